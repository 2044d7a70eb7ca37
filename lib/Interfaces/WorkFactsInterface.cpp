//===- WorkFactsInterface.cpp - Exact work facts of an op -----------------===//

#include "Blueprint/Interfaces/WorkFactsInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "Blueprint/Workload/Checked.h"

using namespace mlir;
using namespace blueprint;

#include "Blueprint/Interfaces/WorkFactsInterface.cpp.inc"

DictionaryAttr
blueprint::getTensorBytesAttr(MLIRContext *context,
                              llvm::ArrayRef<workload::TensorAccess> accesses) {
  IntegerType i64 = IntegerType::get(context, 64);
  llvm::SmallVector<NamedAttribute, 4> entries;
  entries.reserve(accesses.size());
  for (const workload::TensorAccess &access : accesses)
    entries.emplace_back(StringAttr::get(context, access.tensor),
                         IntegerAttr::get(i64, access.bytes));
  return DictionaryAttr::get(context, entries);
}

std::vector<workload::TensorAccess>
blueprint::getTensorAccesses(DictionaryAttr bytes) {
  std::vector<workload::TensorAccess> accesses;
  accesses.reserve(bytes.size());
  for (NamedAttribute entry : bytes)
    if (auto value = llvm::dyn_cast<IntegerAttr>(entry.getValue()))
      accesses.push_back({entry.getName().str(), value.getInt()});
  return accesses;
}

LogicalResult
blueprint::verifyTensorBytes(DictionaryAttr bytes, llvm::StringRef what,
                             function_ref<InFlightDiagnostic()> emitError) {
  for (NamedAttribute entry : bytes) {
    auto value = llvm::dyn_cast<IntegerAttr>(entry.getValue());
    if (!value || !value.getType().isSignlessInteger(64))
      return emitError() << what << " of tensor '" << entry.getName().str()
                         << "' must be a 64-bit integer byte count";
    if (value.getInt() < 0)
      return emitError() << what << " of tensor '" << entry.getName().str()
                         << "' must be non-negative, got " << value.getInt();
  }
  return success();
}

/// Checked sum of the byte counts of a `name = bytes` dictionary.
static int64_t sumTensorBytes(workload::OverflowGuard &guard,
                              DictionaryAttr bytes, const llvm::Twine &what) {
  int64_t total = 0;
  for (NamedAttribute entry : bytes)
    if (auto value = llvm::dyn_cast<IntegerAttr>(entry.getValue()))
      total = guard.add(total, value.getInt(), what);
  return total;
}

llvm::Expected<workload::InvocationFigures>
blueprint::figuresOf(WorkFactsOpInterface op) {
  workload::InvocationFigures figures;
  figures.primitive = op.getPrimitive();
  figures.phase = op.getPhase();
  figures.engine = op.getWorkEngine();
  figures.ops = op.getOps();
  workload::OverflowGuard guard;
  figures.readBytes = sumTensorBytes(guard, op.getReads(), "read bytes");
  figures.writeBytes = sumTensorBytes(guard, op.getWrites(), "write bytes");
  figures.stashBytes = sumTensorBytes(guard, op.getStashed(), "stash bytes");
  if (guard.failed())
    return llvm::createStringError("%s of '%s' overflows a 64-bit integer",
                                   guard.overflowedQuantity().str().c_str(),
                                   figures.primitive.str().c_str());
  figures.collective = op.getCollectiveFacts();
  return figures;
}

llvm::Expected<workload::InvocationFigures>
blueprint::addToSummaries(CadenceSummaries &summaries,
                          WorkFactsOpInterface op) {
  llvm::Expected<workload::InvocationFigures> figures = figuresOf(op);
  if (!figures)
    return figures.takeError();
  workload::Cadence cadence = op.getCadence();
  if (llvm::Error error =
          summaries.try_emplace(cadence, workload::WorkSummary(cadence))
              .first->second.add(*figures))
    return std::move(error);
  return figures;
}

llvm::Expected<workload::Invocation>
blueprint::toInvocation(WorkFactsOpInterface op) {
  workload::Invocation invocation;
  invocation.primitive = op.getPrimitive().str();
  invocation.phase = op.getPhase();
  invocation.engine = op.getWorkEngine();
  invocation.ops = op.getOps();
  invocation.reads = getTensorAccesses(op.getReads());
  invocation.writes = getTensorAccesses(op.getWrites());
  invocation.stashed = getTensorAccesses(op.getStashed());
  workload::OverflowGuard guard;
  invocation.stashBytes = sumTensorBytes(guard, op.getStashed(), "stash bytes");
  if (guard.failed())
    return llvm::createStringError("%s of '%s' overflows a 64-bit integer",
                                   guard.overflowedQuantity().str().c_str(),
                                   invocation.primitive.c_str());
  invocation.collective = op.getCollectiveFacts();
  return invocation;
}
