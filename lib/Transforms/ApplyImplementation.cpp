//===- ApplyImplementation.cpp - Implementation transformations -----------===//
//
// A thin pass over workload/Implementation.h: reads each block-scope
// training plan's tasks as invocations, asks the library which tasks one
// fused kernel replaces and what it executes, and rewrites the plan.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/TensorBytes.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Implementation.h"
#include "Blueprint/Workload/Plan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace blueprint {
#define GEN_PASS_DEF_APPLYIMPLEMENTATION
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// b·(a/t)·s/cp: the score rows of one micro-batch on one rank, each with
/// one logsumexp element.
llvm::Expected<int64_t> scoreRows(const ProgramContracts &contracts) {
  workload::OverflowGuard guard;
  int64_t rows =
      guard.product({contracts.workload.training->microBatch,
                     contracts.model.heads / contracts.mapping.tp,
                     contracts.model.seqLength / contracts.mapping.cp},
                    "score rows b*(a/t)*(s/cp)");
  if (guard.failed())
    return guard.error("flash-attention");
  return rows;
}

/// The symbol of the plan's matmul capability, which a fused kernel
/// requires (pplan_task_c1).
FlatSymbolRefAttr matmulCapability(pplan::PlanOp plan) {
  for (auto capability : plan.getBody().getOps<pplan::CapabilityOp>())
    if (capability.getKind() == workload::CapabilityKind::Matmul)
      return FlatSymbolRefAttr::get(capability.getSymNameAttr());
  return {};
}

/// Replaces `fusion.originals` of `tasks` by one fused task, at the last
/// original's place, after every op the originals waited for.
LogicalResult rewrite(pplan::PlanOp plan, llvm::ArrayRef<pplan::TaskOp> tasks,
                      llvm::ArrayRef<workload::Invocation> invocations,
                      const workload::Fusion &fusion) {
  MLIRContext *context = plan.getContext();
  llvm::SmallVector<pplan::TaskOp> originals;
  for (size_t index : fusion.originals)
    originals.push_back(tasks[index]);
  pplan::TaskOp last = originals.back();
  llvm::SmallPtrSet<Operation *, 4> replaced;
  for (pplan::TaskOp original : originals)
    replaced.insert(original);
  llvm::SetVector<Value> deps;
  llvm::SmallVector<Location> locations;
  llvm::SmallVector<Attribute> fuses;
  for (auto [original, index] : llvm::zip_equal(originals, fusion.originals)) {
    for (Value dep : original.getDeps())
      if (!replaced.contains(dep.getDefiningOp()))
        deps.insert(dep);
    locations.push_back(original.getLoc());
    llvm::Expected<workload::InvocationFigures> figures =
        workload::figuresOf(invocations[index]);
    if (!figures)
      return original.emitOpError()
             << "apply-implementation: " << llvm::toString(figures.takeError());
    fuses.push_back(pplan::FusedWorkAttr::get(
        context, figures->primitive, figures->phase, figures->engine,
        figures->ops, figures->readBytes, figures->writeBytes,
        figures->stashBytes));
  }
  const workload::Invocation &executed = fusion.executed;
  llvm::Expected<workload::InvocationFigures> figures =
      workload::figuresOf(executed);
  if (!figures)
    return last.emitOpError()
           << "apply-implementation: " << llvm::toString(figures.takeError());
  llvm::Expected<workload::Demand> demand = workload::demandOf(*figures);
  if (!demand)
    return last.emitOpError()
           << "apply-implementation: " << llvm::toString(demand.takeError());
  FlatSymbolRefAttr capability = matmulCapability(plan);
  if (!capability)
    return plan.emitOpError() << "apply-implementation: the plan has no "
                                 "matmul capability for the fused kernel";

  llvm::StringRef name = workload::nameOf(fusion.implementation);
  Location location =
      FusedLoc::get(context, locations,
                    StringAttr::get(context, "apply-implementation: " + name));
  OpBuilder builder(last);
  TensorBytesList reads = getTensorBytes(context, executed.reads);
  TensorBytesList writes = getTensorBytes(context, executed.writes);
  TensorBytesList stashed = getTensorBytes(context, executed.stashed);
  auto fused = pplan::TaskOp::create(
      builder, location, pplan::TokenType::get(context),
      builder.getStringAttr(executed.primitive), executed.phase,
      executed.engine, last.getCadence(), capability, last.getGroupAttr(),
      pplan::DemandAttr::get(context, demand->compute, demand->memory,
                             demand->network),
      /*collective=*/nullptr, /*axis=*/nullptr, /*axis_group=*/nullptr,
      executed.ops, reads, writes, stashed, deps.getArrayRef(),
      /*inner_axes=*/nullptr, builder.getStringAttr(name),
      builder.getArrayAttr(fuses));
  for (pplan::TaskOp original : originals) {
    original.getDone().replaceAllUsesWith(fused.getDone());
    original.erase();
  }
  return success();
}

LogicalResult applyToPlan(pplan::PlanOp plan,
                          llvm::ArrayRef<workload::Implementation> list) {
  std::optional<ProgramContracts> contracts =
      getProgramContracts(plan.getOperation());
  if (plan.isWholeRun() || !contracts || !contracts->workload.training)
    return plan.emitOpError()
           << "apply_implementation_c2: implementation transformations apply "
              "to block-scope training plans; @"
           << plan.getSymName() << " is "
           << (plan.isWholeRun() ? "a whole-run" : "an inference") << " plan";
  for (workload::Implementation implementation : list) {
    llvm::SmallVector<pplan::TaskOp> tasks =
        llvm::to_vector(plan.getBody().getOps<pplan::TaskOp>());
    std::vector<workload::Invocation> invocations;
    for (pplan::TaskOp task : tasks) {
      llvm::Expected<workload::Invocation> invocation =
          toInvocation(llvm::cast<WorkFactsOpInterface>(task.getOperation()));
      if (!invocation)
        return task.emitOpError() << "apply-implementation: "
                                  << llvm::toString(invocation.takeError());
      invocations.push_back(std::move(*invocation));
    }
    if (std::optional<std::string> absent =
            workload::absentPattern(implementation, invocations)) {
      mlir::emitRemark(plan.getLoc())
          << "apply-implementation: " << workload::nameOf(implementation)
          << " leaves the plan unchanged: " << *absent;
      continue;
    }
    llvm::Expected<int64_t> rows = scoreRows(*contracts);
    if (!rows)
      return plan.emitOpError() << llvm::toString(rows.takeError());
    llvm::Expected<std::vector<workload::Fusion>> fusions =
        workload::fuseFlashAttention(invocations, *rows);
    if (!fusions)
      return plan.emitOpError() << llvm::toString(fusions.takeError());
    for (const workload::Fusion &fusion : *fusions)
      if (failed(rewrite(plan, tasks, invocations, fusion)))
        return failure();
  }
  return success();
}

struct ApplyImplementationPass
    : blueprint::impl::ApplyImplementationBase<ApplyImplementationPass> {
  using ApplyImplementationBase::ApplyImplementationBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SmallVector<workload::Implementation> list;
    for (const std::string &name : transformations) {
      llvm::Expected<workload::Implementation> implementation =
          workload::parseImplementation(name);
      if (!implementation) {
        module.emitError() << llvm::toString(implementation.takeError());
        return signalPassFailure();
      }
      if (llvm::is_contained(list, *implementation)) {
        module.emitError() << "apply_implementation_c1: '" << name
                           << "' is listed twice";
        return signalPassFailure();
      }
      list.push_back(*implementation);
    }
    if (list.empty()) {
      module.emitError() << "apply_implementation_c1: no transformation is "
                            "listed (transformations=flash-attention,...)";
      return signalPassFailure();
    }
    for (auto plan : module.getBody()->getOps<pplan::PlanOp>())
      if (failed(applyToPlan(plan, list)))
        return signalPassFailure();
  }
};

} // namespace
