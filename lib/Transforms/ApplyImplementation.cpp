//===- ApplyImplementation.cpp - Implementation transformations -----------===//
//
// A thin pass over workload/Implementation.h: reads the tasks of one block
// of a training plan (a block-scope plan's, or a whole-run plan's block
// templates) as invocations, asks the library which tasks one fused kernel
// replaces and what it executes, and rewrites the plan; in a whole-run plan
// the stage buffers the templates size follow (workload::templateBytesOf).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/TensorBytes.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Implementation.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/Plan.h"
#include "Blueprint/Workload/WholeRun.h"

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

/// The symbol of the plan's capability for `engine`, which a fused kernel
/// of that engine requires (pplan_task_c1).
FlatSymbolRefAttr capabilityFor(pplan::PlanOp plan, workload::Engine engine) {
  workload::CapabilityKind kind =
      workload::requiredCapability(engine, std::nullopt);
  for (auto capability : plan.getBody().getOps<pplan::CapabilityOp>())
    if (capability.getKind() == kind)
      return FlatSymbolRefAttr::get(capability.getSymNameAttr());
  return {};
}

/// Creates, at `builder`'s insertion point, the task of `implementation`
/// that executes `executed`, of `like`'s cadence and group, waiting for
/// `deps`, with the semantic work `fuses` and a location fusing
/// `locations` under the transformation's name.
FailureOr<pplan::TaskOp> createTask(pplan::PlanOp plan, OpBuilder &builder,
                                    pplan::TaskOp like,
                                    workload::Implementation implementation,
                                    const workload::Invocation &executed,
                                    llvm::ArrayRef<Location> locations,
                                    llvm::ArrayRef<Value> deps,
                                    llvm::ArrayRef<Attribute> fuses) {
  MLIRContext *context = plan.getContext();
  llvm::Expected<workload::InvocationFigures> figures =
      workload::figuresOf(executed);
  if (!figures)
    return like.emitOpError()
           << "apply-implementation: " << llvm::toString(figures.takeError());
  llvm::Expected<workload::Demand> demand = workload::demandOf(*figures);
  if (!demand)
    return like.emitOpError()
           << "apply-implementation: " << llvm::toString(demand.takeError());
  FlatSymbolRefAttr capability = capabilityFor(plan, executed.engine);
  if (!capability)
    return plan.emitOpError() << "apply-implementation: the plan has no "
                              << workload::stringifyEnum(executed.engine)
                              << " capability for the transformation's kernel";
  llvm::StringRef name = workload::nameOf(implementation);
  Location location =
      FusedLoc::get(context, locations,
                    StringAttr::get(context, "apply-implementation: " + name));
  return pplan::TaskOp::create(
      builder, location, pplan::TokenType::get(context),
      builder.getStringAttr(executed.primitive), executed.phase,
      executed.engine, like.getCadence(), capability, like.getGroupAttr(),
      pplan::DemandAttr::get(context, demand->compute, demand->memory,
                             demand->network),
      /*collective=*/nullptr, /*axis=*/nullptr, /*axis_group=*/nullptr,
      executed.ops, getTensorBytes(context, executed.reads),
      getTensorBytes(context, executed.writes),
      getTensorBytes(context, executed.stashed), deps,
      /*inner_axes=*/nullptr,
      executed.gemms.empty() ? DenseI64ArrayAttr()
                             : builder.getDenseI64ArrayAttr(
                                   workload::flattenGemms(executed.gemms)),
      builder.getStringAttr(name), builder.getArrayAttr(fuses),
      /*ready_blocks=*/nullptr);
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
  OpBuilder builder(last);
  FailureOr<pplan::TaskOp> fused =
      createTask(plan, builder, last, fusion.implementation, fusion.executed,
                 locations, deps.getArrayRef(), fuses);
  if (failed(fused))
    return failure();
  for (pplan::TaskOp original : originals) {
    original.getDone().replaceAllUsesWith(fused->getDone());
    original.erase();
  }
  return success();
}

/// Inserts the kernel `kernel` adds next to its anchor in `tasks`: a task
/// with `implementation` and an empty `fuses` (it replaces no semantic
/// work, pplan_task_c10). After the anchor it waits for the anchor and is
/// placed after `previous` (the anchor, or the kernel last added after it,
/// so kernels keep their list order, as applyImplementations gives them);
/// before it, it waits for what the anchor waited for and the anchor waits
/// for it. Returns the added task.
FailureOr<pplan::TaskOp> insertKernel(pplan::PlanOp plan,
                                      llvm::ArrayRef<pplan::TaskOp> tasks,
                                      const workload::AddedKernel &kernel,
                                      Operation *previous) {
  pplan::TaskOp anchor = tasks[kernel.anchor];
  OpBuilder builder(anchor);
  if (!kernel.beforeAnchor)
    builder.setInsertionPointAfter(previous);
  llvm::SmallVector<Value> deps;
  if (kernel.beforeAnchor)
    llvm::append_range(deps, anchor.getDeps());
  else
    deps.push_back(anchor.getDone());
  FailureOr<pplan::TaskOp> added =
      createTask(plan, builder, anchor, kernel.implementation, kernel.executed,
                 {anchor.getLoc()}, deps, /*fuses=*/{});
  if (failed(added))
    return failure();
  if (kernel.beforeAnchor)
    anchor.getDepsMutable().append(added->getDone());
  return added;
}

/// The tasks of `tasks` as invocations, in order.
FailureOr<std::vector<workload::Invocation>>
invocationsOf(llvm::ArrayRef<pplan::TaskOp> tasks) {
  std::vector<workload::Invocation> invocations;
  for (pplan::TaskOp task : tasks) {
    llvm::Expected<workload::Invocation> invocation =
        toInvocation(llvm::cast<WorkFactsOpInterface>(task.getOperation()));
    if (!invocation)
      return task.emitOpError() << "apply-implementation: "
                                << llvm::toString(invocation.takeError());
    invocations.push_back(std::move(*invocation));
  }
  return invocations;
}

/// Applies `implementation` to the per-micro-batch tasks of one block,
/// `tasks` in plan order (a block-scope plan's, or the concatenated block
/// templates of one block kind of a whole-run plan): each fusion replaces
/// its originals where they are.
LogicalResult applyToBlock(pplan::PlanOp plan,
                           llvm::ArrayRef<pplan::TaskOp> tasks,
                           workload::Implementation implementation,
                           const ProgramContracts &contracts) {
  FailureOr<std::vector<workload::Invocation>> invocations =
      invocationsOf(tasks);
  if (failed(invocations))
    return failure();
  if (std::optional<std::string> absent =
          workload::absentPattern(implementation, *invocations)) {
    mlir::emitRemark(plan.getLoc())
        << "apply-implementation: " << workload::nameOf(implementation)
        << " leaves the plan unchanged: " << *absent;
    return success();
  }
  llvm::Expected<workload::ImplementationContext> run =
      workload::implementationContextOf(*contracts.workload.training,
                                        contracts.model, contracts.mapping);
  if (!run)
    return plan.emitOpError() << llvm::toString(run.takeError());
  llvm::Expected<std::vector<workload::Fusion>> fusions =
      workload::fusionsOf(implementation, *invocations, *run);
  if (!fusions)
    return plan.emitOpError() << llvm::toString(fusions.takeError());
  for (const workload::Fusion &fusion : *fusions)
    if (failed(rewrite(plan, tasks, *invocations, fusion)))
      return failure();
  llvm::Expected<std::vector<workload::AddedKernel>> kernels =
      workload::addedKernelsOf(implementation, *invocations, *run);
  if (!kernels)
    return plan.emitOpError() << llvm::toString(kernels.takeError());
  // The last task added after each anchor.
  llvm::DenseMap<size_t, Operation *> lastAfter;
  for (const workload::AddedKernel &kernel : *kernels) {
    Operation *&previous = lastAfter[kernel.anchor];
    if (!previous)
      previous = tasks[kernel.anchor];
    FailureOr<pplan::TaskOp> added =
        insertKernel(plan, tasks, kernel, previous);
    if (failed(added))
      return failure();
    if (!kernel.beforeAnchor)
      previous = *added;
  }
  return success();
}

/// The plan's templates as the run templates their buffers are derived
/// from (workload::templateBytesOf), in plan order.
FailureOr<workload::WholeRun> runTemplatesOf(pplan::PlanOp plan) {
  std::vector<workload::RunTemplate> templates;
  for (auto templateOp : plan.getBody().getOps<pplan::TemplateOp>()) {
    FailureOr<std::vector<workload::Invocation>> invocations = invocationsOf(
        llvm::to_vector(templateOp.getBody().getOps<pplan::TaskOp>()));
    if (failed(invocations))
      return failure();
    workload::RunTemplate runTemplate;
    runTemplate.name = templateOp.getSymName().str();
    runTemplate.part = templateOp.getPart();
    runTemplate.pass = templateOp.getPass();
    runTemplate.work.invocations = std::move(*invocations);
    templates.push_back(std::move(runTemplate));
  }
  workload::WholeRun run;
  run.templates = workload::RunTemplateList(std::move(templates));
  return run;
}

FailureOr<std::vector<workload::TemplateBytes>>
templateBytesOf(pplan::PlanOp plan) {
  FailureOr<workload::WholeRun> run = runTemplatesOf(plan);
  if (failed(run))
    return failure();
  llvm::Expected<std::vector<workload::TemplateBytes>> bytes =
      workload::templateBytesOf(*run);
  if (!bytes)
    return plan.emitOpError()
           << "apply-implementation: " << llvm::toString(bytes.takeError());
  return std::move(*bytes);
}

/// Moves every stage buffer a template's pass sizes (its working set, its
/// stash times the instance's blocks) from the template's bytes `before`
/// the transformation to those `after` (docs/Estimate.md, "Whole-run
/// plans"). Templates are indexed in plan order. ZB-H1's weight-gradient
/// buffers keep their bytes: the fused backward writes the same dQ, dK, dV
/// and the weight-gradient pass reads no attention-core tensor.
LogicalResult resizeBuffers(pplan::PlanOp plan,
                            llvm::ArrayRef<workload::TemplateBytes> before,
                            llvm::ArrayRef<workload::TemplateBytes> after) {
  llvm::DenseMap<Operation *, size_t> indexOf;
  for (auto [index, templateOp] :
       llvm::enumerate(plan.getBody().getOps<pplan::TemplateOp>()))
    indexOf[templateOp] = index;
  workload::OverflowGuard guard;
  for (auto stage : plan.getBody().getOps<pplan::StageOp>())
    for (auto buffer : stage.getBody().getOps<pplan::BufferOp>()) {
      Value producer = buffer.getProducer();
      auto instance = producer ? producer.getDefiningOp<pplan::InstanceOp>()
                               : pplan::InstanceOp();
      if (!instance || !buffer.getCause())
        continue;
      size_t index = indexOf.lookup(instance.lookupTemplate());
      int64_t repetitions = instance.getRepetitions();
      int64_t oldBytes = 0, newBytes = 0;
      switch (*buffer.getCause()) {
      case workload::BufferCause::WorkingSet:
        oldBytes = before[index].workingSet;
        newBytes = after[index].workingSet;
        break;
      case workload::BufferCause::BlockActivations:
        oldBytes = guard.mul(before[index].stash, repetitions, "stash bytes");
        newBytes = guard.mul(after[index].stash, repetitions, "stash bytes");
        break;
      default:
        continue;
      }
      int64_t bytes = guard.add(buffer.getBytes(),
                                guard.sub(newBytes, oldBytes, "stash delta"),
                                "buffer bytes");
      if (guard.failed())
        return buffer.emitOpError()
               << "apply-implementation: "
               << llvm::toString(guard.error("buffer bytes"));
      buffer.setBytes(bytes);
    }
  return success();
}

/// A whole-run training plan: the block templates of each block kind
/// (forward, then backward or ZB-H1's input- and weight-gradient passes)
/// are one block's tasks, and every template's tasks those of the
/// optimizer-step transformation; the stage buffers follow the templates.
LogicalResult applyToWholeRun(pplan::PlanOp plan,
                              llvm::ArrayRef<workload::Implementation> list,
                              const ProgramContracts &contracts) {
  FailureOr<std::vector<workload::TemplateBytes>> before =
      templateBytesOf(plan);
  if (failed(before))
    return failure();
  for (workload::Implementation implementation : list) {
    // The optimizer steps are templates of their own (block_step,
    // edge_step): every template's tasks are the pattern's candidates.
    if (implementation == workload::Implementation::MegatronFloat16Optimizer) {
      llvm::SmallVector<pplan::TaskOp> tasks;
      for (auto templateOp : plan.getBody().getOps<pplan::TemplateOp>())
        llvm::append_range(tasks, templateOp.getBody().getOps<pplan::TaskOp>());
      if (failed(applyToBlock(plan, tasks, implementation, contracts)))
        return failure();
      continue;
    }
    for (workload::BlockKind kind : workload::blockKindsOf(contracts.model)) {
      std::string prefix = workload::blockTemplatePrefix(contracts.model, kind);
      llvm::SmallVector<pplan::TaskOp> tasks;
      for (llvm::StringRef pass : {"block_forward", "block_backward",
                                   "block_input_grad", "block_weight_grad"})
        if (auto templateOp = llvm::dyn_cast_or_null<pplan::TemplateOp>(
                SymbolTable::lookupSymbolIn(plan, prefix + pass.str())))
          llvm::append_range(tasks,
                             templateOp.getBody().getOps<pplan::TaskOp>());
      if (failed(applyToBlock(plan, tasks, implementation, contracts)))
        return failure();
    }
  }
  FailureOr<std::vector<workload::TemplateBytes>> after = templateBytesOf(plan);
  if (failed(after))
    return failure();
  return resizeBuffers(plan, *before, *after);
}

LogicalResult applyToPlan(pplan::PlanOp plan,
                          llvm::ArrayRef<workload::Implementation> list) {
  std::optional<ProgramContracts> contracts =
      getProgramContracts(plan.getOperation());
  if (!contracts)
    return plan.emitOpError()
           << "apply_implementation_c2: @" << plan.getSymName()
           << " carries no composing contracts";
  if (!contracts->workload.training)
    return plan.emitOpError()
           << "apply_implementation_c2: implementation transformations apply "
              "to training plans (docs/Estimate.md, \"Inference plans\"); @"
           << plan.getSymName() << " is an inference plan";
  // Passes chain (--apply-implementation twice), so the rules over what a
  // plan carries see the transformations earlier passes applied too.
  llvm::SmallVector<workload::Implementation> applied;
  plan.walk([&](pplan::TaskOp task) {
    if (std::optional<llvm::StringRef> name = task.getImplementation()) {
      llvm::Expected<workload::Implementation> implementation =
          workload::parseImplementation(*name);
      // The verifier has checked the name (pplan_task_c10).
      if (!implementation)
        llvm::consumeError(implementation.takeError());
      else if (!llvm::is_contained(applied, *implementation))
        applied.push_back(*implementation);
    }
  });
  if (llvm::Error error = workload::checkAgainstApplied(list, applied))
    return plan.emitOpError() << llvm::toString(std::move(error));
  if (plan.isWholeRun())
    return applyToWholeRun(plan, list, *contracts);
  for (workload::Implementation implementation : list)
    if (failed(applyToBlock(
            plan, llvm::to_vector(plan.getBody().getOps<pplan::TaskOp>()),
            implementation, *contracts)))
      return failure();
  return success();
}

struct ApplyImplementationPass
    : blueprint::impl::ApplyImplementationBase<ApplyImplementationPass> {
  using ApplyImplementationBase::ApplyImplementationBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<std::vector<workload::Implementation>> parsed =
        workload::parseImplementations(transformations);
    if (!parsed) {
      module.emitError() << llvm::toString(parsed.takeError());
      return signalPassFailure();
    }
    const std::vector<workload::Implementation> &list = *parsed;
    if (list.empty()) {
      module.emitError() << "apply_implementation_c1: no transformation is "
                            "listed (transformations=flash-attention,...)";
      return signalPassFailure();
    }
    auto plans = module.getBody()->getOps<pplan::PlanOp>();
    if (plans.empty()) {
      module.emitError() << "apply_implementation_c2: the module holds no "
                            "pplan.plan; run --plan-portable first";
      return signalPassFailure();
    }
    for (auto plan : plans)
      if (failed(applyToPlan(plan, list)))
        return signalPassFailure();
  }
};

} // namespace
