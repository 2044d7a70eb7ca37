//===- WorkFactsInterface.cpp - Exact work facts of an op -----------------===//

#include "Blueprint/Interfaces/WorkFactsInterface.h"

#include "Blueprint/Workload/Checked.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace blueprint;

#include "Blueprint/Interfaces/WorkFactsInterface.cpp.inc"

/// Checked sum of the byte counts of a list.
static int64_t sumTensorBytes(workload::OverflowGuard &guard,
                              llvm::ArrayRef<TensorBytes> list,
                              const llvm::Twine &what) {
  int64_t total = 0;
  for (const TensorBytes &entry : list)
    total = guard.add(total, entry.bytes, what);
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
    return guard.error("'" + figures.primitive.str() + "'");
  figures.collective = op.getCollectiveFacts();
  std::optional<std::vector<workload::MatmulShape>> gemms =
      workload::unflattenGemms(op.getGemmExtents());
  if (!gemms)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'" + figures.primitive.str() +
            "': gemm lists four extents [batch, M, N, K] per GEMM");
  figures.gemms.assign(gemms->begin(), gemms->end());
  figures.gemmCover = op.getGemmCover();
  return figures;
}

std::optional<std::string> blueprint::gemmViolation(WorkFactsOpInterface op) {
  llvm::ArrayRef<int64_t> extents = op.getGemmExtents();
  if (extents.empty())
    return std::nullopt;
  std::optional<std::vector<workload::MatmulShape>> gemms =
      workload::unflattenGemms(extents);
  if (!gemms)
    return "gemm lists four extents [batch, M, N, K] per GEMM, got " +
           std::to_string(extents.size());
  return workload::matmulShapeViolation(op.getWorkEngine(), op.getOps(), *gemms,
                                        op.getGemmCover());
}

llvm::Expected<workload::InvocationFigures>
blueprint::addToSummaries(CadenceSummaries &summaries,
                          WorkFactsOpInterface op) {
  llvm::Expected<workload::InvocationFigures> figures = figuresOf(op);
  if (!figures)
    return figures.takeError();
  workload::Cadence cadence = op.getCadence();
  if (llvm::Error error =
          summaries.try_emplace(cadence, cadence).first->second.add(*figures))
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
    return guard.error("'" + invocation.primitive + "'");
  invocation.collective = op.getCollectiveFacts();
  std::optional<std::vector<workload::MatmulShape>> gemms =
      workload::unflattenGemms(op.getGemmExtents());
  if (!gemms)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'" + invocation.primitive +
            "': gemm lists four extents [batch, M, N, K] per GEMM");
  invocation.gemms = std::move(*gemms);
  invocation.gemmCover = op.getGemmCover();
  return invocation;
}
