//===- VerifyConservation.cpp - Work conservation against the algebra -----===//
//
// Re-derives each program's work from the contracts it carries and checks
// that the IR holds exactly that work, fact by fact.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/StageTotals.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/Implementation.h"
#include "Blueprint/Workload/Primitives.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <array>

namespace blueprint {
#define GEN_PASS_DEF_VERIFYCONSERVATION
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// A derived invocation's identity; the primitive names the derived work's
/// own string, so building a key allocates nothing.
using WorkKey = std::tuple<workload::Cadence, workload::Phase, llvm::StringRef>;

std::string describe(const WorkKey &key) {
  auto [cadence, phase, primitive] = key;
  return "'" + primitive.str() + "' (" + workload::stringifyEnum(phase).str() +
         ", " + workload::stringifyEnum(cadence).str() + ")";
}

/// Compares one fact; reports `quantity` of `key` on `op` if it differs.
LogicalResult expectEqual(Operation *op, const WorkKey &key,
                          const llvm::Twine &quantity, int64_t expected,
                          int64_t found) {
  if (expected == found)
    return success();
  return op->emitError() << "conservation: task " << describe(key) << " "
                         << quantity << ": expected " << expected
                         << " (derived from the contracts), found " << found;
}

/// Compares the derived per-tensor byte list with the op's (TensorBytes.h),
/// read in place.
LogicalResult expectSameTensors(Operation *op, const WorkKey &key,
                                llvm::StringRef what,
                                llvm::ArrayRef<workload::TensorAccess> expected,
                                llvm::ArrayRef<TensorBytes> found) {
  size_t matched = 0;
  for (const workload::TensorAccess &access : expected) {
    const TensorBytes *entry = findTensor(found, access.tensor);
    if (failed(expectEqual(op, key, what + " of tensor '" + access.tensor + "'",
                           access.bytes, entry ? entry->bytes : 0)))
      return failure();
    matched += entry ? 1 : 0;
  }
  if (matched == found.size())
    return success();
  for (const TensorBytes &entry : found)
    if (llvm::none_of(expected, [&](const workload::TensorAccess &access) {
          return access.tensor == entry.tensor.getValue();
        }))
      return op->emitError() << "conservation: task " << describe(key) << " "
                             << what << " tensor '" << entry.tensor.getValue()
                             << "' that the derived work does not";
  return success();
}

/// Reports the implementation delta of the fused task `task`
/// (pplan_task_c10) as a remark: its semantic work (the tasks it replaced)
/// against what its kernel executes, and the transformation's cause.
LogicalResult remarkImplementationDelta(pplan::TaskOp task) {
  llvm::SmallVector<workload::InvocationFigures> parts = task.getFusedFigures();
  llvm::Expected<workload::InvocationFigures> executed =
      figuresOf(llvm::cast<WorkFactsOpInterface>(task.getOperation()));
  if (!executed)
    return task.emitError()
           << "conservation: " << llvm::toString(executed.takeError());
  llvm::Expected<workload::ImplementationDelta> delta =
      workload::deltaOf(parts, *executed);
  if (!delta)
    return task.emitError()
           << "conservation: " << llvm::toString(delta.takeError());
  llvm::Expected<workload::Implementation> implementation =
      workload::parseImplementation(*task.getImplementation());
  if (!implementation)
    return task.emitError()
           << "conservation: " << llvm::toString(implementation.takeError());
  mlir::emitRemark(task.getLoc())
      << "implementation delta of '" << task.getPrimitive() << "' ("
      << workload::stringifyEnum(task.getPhase()) << ", "
      << *task.getImplementation() << ", " << parts.size()
      << " tasks conserved): ops " << delta->semanticOps << " semantic, "
      << delta->executedOps << " executed; read bytes " << delta->semanticRead
      << ", " << delta->executedRead << "; write bytes " << delta->semanticWrite
      << ", " << delta->executedWrite << "; stash bytes "
      << delta->semanticStash << ", " << delta->executedStash
      << "; cause: " << workload::causeOf(*implementation);
  return success();
}

/// A fused task (pplan_task_c10) against the derivation: each task it
/// replaced (`fuses`) is a derived invocation with the same engine,
/// operations and total bytes read, written and stashed (a fused task keeps
/// no per-tensor lists of its originals). Reports the implementation delta
/// as a remark: semantic against executed work and the cause.
LogicalResult verifyFusedTask(pplan::TaskOp task,
                              llvm::function_ref<const workload::Invocation *(
                                  Operation *, const WorkKey &)>
                                  claim) {
  llvm::SmallVector<workload::InvocationFigures> parts = task.getFusedFigures();
  for (const workload::InvocationFigures &part : parts) {
    WorkKey key{task.getCadence(), part.phase, part.primitive};
    const workload::Invocation *want = claim(task, key);
    if (!want)
      return failure();
    llvm::Expected<workload::InvocationFigures> derived =
        workload::figuresOf(*want);
    if (!derived)
      return task.emitError()
             << "conservation: " << llvm::toString(derived.takeError());
    if (failed(expectEqual(task, key, "engine",
                           static_cast<int64_t>(derived->engine),
                           static_cast<int64_t>(part.engine))) ||
        failed(expectEqual(task, key, "ops", derived->ops, part.ops)) ||
        failed(expectEqual(task, key, "read bytes", derived->readBytes,
                           part.readBytes)) ||
        failed(expectEqual(task, key, "write bytes", derived->writeBytes,
                           part.writeBytes)) ||
        failed(expectEqual(task, key, "stash bytes", derived->stashBytes,
                           part.stashBytes)))
      return failure();
  }
  return remarkImplementationDelta(task);
}

/// The work op `op` against the derived invocation `want`: the same engine,
/// operations and bytes read, written and stashed, tensor by tensor.
LogicalResult expectSameWork(WorkFactsOpInterface op, const WorkKey &key,
                             const workload::Invocation &want) {
  return success(
      succeeded(expectEqual(op, key, "engine",
                            static_cast<int64_t>(want.engine),
                            static_cast<int64_t>(op.getWorkEngine()))) &&
      succeeded(expectEqual(op, key, "ops", want.ops, op.getOps())) &&
      succeeded(expectSameTensors(op, key, "read bytes", want.reads,
                                  op.getReads())) &&
      succeeded(expectSameTensors(op, key, "write bytes", want.writes,
                                  op.getWrites())) &&
      succeeded(expectSameTensors(op, key, "stash bytes", want.stashed,
                                  op.getStashed())));
}

/// A kernel a transformation adds (pplan_task_c10, empty `fuses`) against
/// the same transformation applied to the derived work (`want`)
/// (expectSameWork). Reports its implementation delta as a remark.
LogicalResult verifyAddedKernel(pplan::TaskOp task, const WorkKey &key,
                                const workload::Invocation &want) {
  if (failed(expectSameWork(
          llvm::cast<WorkFactsOpInterface>(task.getOperation()), key, want)))
    return failure();
  return remarkImplementationDelta(task);
}

LogicalResult verifyDerivedWork(Operation *program,
                                const ProgramContracts &contracts) {
  llvm::Expected<std::vector<workload::BlockWork>> blocks =
      workload::deriveProgramWork(contracts.model, contracts.mapping,
                                  contracts.workload);
  if (!blocks)
    return program->emitError()
           << "conservation: " << llvm::toString(blocks.takeError());
  // Each derived invocation, and whether a work op has matched it yet.
  llvm::DenseMap<WorkKey, std::pair<const workload::Invocation *, bool>>
      expected;
  for (const workload::BlockWork &work : *blocks)
    for (const workload::Invocation &invocation : work.invocations) {
      WorkKey key{work.cadence, invocation.phase, invocation.primitive};
      // The algebra names each (cadence, phase, primitive) once; a repeat
      // would let a missing task go unnoticed.
      if (!expected.try_emplace(key, &invocation, false).second)
        return program->emitError()
               << "conservation: the derived work has " << describe(key)
               << " twice, so it cannot be matched task by task";
    }

  // The derived invocation of `key`, marked as matched; reports a task the
  // derivation does not have, or one met twice.
  auto claim = [&](Operation *op,
                   const WorkKey &key) -> const workload::Invocation * {
    auto it = expected.find(key);
    if (it == expected.end() || it->second.second) {
      op->emitError() << "conservation: task " << describe(key)
                      << " has no counterpart in the work derived from the "
                         "contracts (or appears twice)";
      return nullptr;
    }
    it->second.second = true;
    return it->second.first;
  };

  // The kernels the transformation that adds kernels adds to the derived
  // work, by key, derived at the program's first such task: the same C++
  // the pass runs. One set serves every such task because one
  // transformation adds kernels (megatron-unfused-attention-glue, the only
  // one `addsKernels` names) and a plan carries it once
  // (apply_implementation_c1). `added` points into the inner vectors, whose
  // buffers a move of the outer vector's elements keeps.
  std::vector<std::vector<workload::AddedKernel>> addedKernels;
  llvm::DenseMap<WorkKey, std::pair<const workload::Invocation *, bool>> added;
  auto deriveAddedKernels =
      [&](pplan::TaskOp task,
          workload::Implementation implementation) -> LogicalResult {
    // An inference program gets none (apply_implementation_c2): its
    // kernels then match nothing below.
    if (!addedKernels.empty() || !contracts.workload.training)
      return success();
    llvm::Expected<workload::ImplementationContext> run =
        workload::implementationContextOf(*contracts.workload.training,
                                          contracts.model, contracts.mapping);
    if (!run)
      return task.emitError()
             << "conservation: " << llvm::toString(run.takeError());
    for (const workload::BlockWork &work : *blocks) {
      llvm::Expected<std::vector<workload::AddedKernel>> kernels =
          workload::addedKernelsOf(implementation, work.invocations, *run);
      if (!kernels)
        return task.emitError()
               << "conservation: " << llvm::toString(kernels.takeError());
      addedKernels.push_back(std::move(*kernels));
      for (const workload::AddedKernel &kernel : addedKernels.back()) {
        WorkKey key{work.cadence, kernel.executed.phase,
                    kernel.executed.primitive};
        if (!added.try_emplace(key, &kernel.executed, false).second)
          return task.emitError()
                 << "conservation: the derived added kernels have "
                 << describe(key) << " twice";
      }
    }
    return success();
  };

  WalkResult walk = program->walk([&](WorkFactsOpInterface op) {
    auto task = llvm::dyn_cast<pplan::TaskOp>(op.getOperation());
    if (task && task.getFusesAttr() && task.getFuses()->empty()) {
      llvm::Expected<workload::Implementation> implementation =
          workload::parseImplementation(*task.getImplementation());
      if (!implementation) {
        task.emitError() << "conservation: "
                         << llvm::toString(implementation.takeError());
        return WalkResult::interrupt();
      }
      if (failed(deriveAddedKernels(task, *implementation)))
        return WalkResult::interrupt();
      WorkKey key{task.getCadence(), task.getPhase(), task.getPrimitive()};
      auto it = added.find(key);
      if (it == added.end() || it->second.second) {
        task.emitError() << "conservation: task " << describe(key)
                         << " is no kernel " << *task.getImplementation()
                         << " adds to the work derived from the contracts "
                            "(or appears twice)";
        return WalkResult::interrupt();
      }
      it->second.second = true;
      return succeeded(verifyAddedKernel(task, key, *it->second.first))
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    }
    if (task && task.getFusesAttr())
      return succeeded(verifyFusedTask(task, claim)) ? WalkResult::advance()
                                                     : WalkResult::interrupt();
    WorkKey key{op.getCadence(), op.getPhase(), op.getPrimitive()};
    const workload::Invocation *claimed = claim(op, key);
    if (!claimed)
      return WalkResult::interrupt();
    const workload::Invocation &want = *claimed;
    workload::CollectiveFacts noCollective;
    const workload::CollectiveFacts &wantCollective =
        want.collective.value_or(noCollective);
    const workload::CollectiveFacts foundCollective =
        op.getCollectiveFacts().value_or(noCollective);
    if (failed(expectSameWork(op, key, want)) ||
        failed(expectEqual(op, key, "message bytes",
                           wantCollective.messageBytes,
                           foundCollective.messageBytes)) ||
        failed(expectEqual(op, key, "participants", wantCollective.participants,
                           foundCollective.participants)) ||
        failed(expectEqual(op, key, "collective kind",
                           static_cast<int64_t>(wantCollective.kind),
                           static_cast<int64_t>(foundCollective.kind))) ||
        failed(expectEqual(op, key, "reduction",
                           static_cast<int64_t>(wantCollective.reduction),
                           static_cast<int64_t>(foundCollective.reduction))))
      return WalkResult::interrupt();
    // The GEMM shapes of a matmul (dist_task_c2 ties them to its ops, not
    // to the contracts: a transposed shape has the same ops). A derived
    // matmul without them is an error too: the rules let hand-written IR
    // leave `gemm` out, not a program derived from contracts, whose
    // estimate under a tile model needs them.
    std::vector<int64_t> wantGemm = workload::flattenGemms(want.gemms);
    if (llvm::ArrayRef<int64_t>(wantGemm) != op.getGemmExtents()) {
      auto print = [](llvm::ArrayRef<int64_t> extents) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "[";
        llvm::interleaveComma(extents, os);
        os << "]";
        return text;
      };
      InFlightDiagnostic error = op->emitError();
      error << "conservation: task " << describe(key) << " gemm: expected "
            << print(wantGemm) << " (derived from the contracts), found ";
      if (op.getGemmExtents().empty())
        error << "none (every matmul derived from the contracts carries its "
                 "GEMM shapes, dist_task_c2 and pplan_task_c9)";
      else
        error << print(op.getGemmExtents());
      return WalkResult::interrupt();
    }
    // The mesh axes a collective spans: equal participants do not tell
    // ["dp"] from ["cp"] when dp = cp.
    if (wantCollective.axis != foundCollective.axis ||
        wantCollective.innerAxes != foundCollective.innerAxes) {
      auto axesOf = [](const workload::CollectiveFacts &facts) {
        std::vector<std::string> axes = {facts.axis};
        llvm::append_range(axes, facts.innerAxes);
        return llvm::join(axes, ", ");
      };
      op->emitError() << "conservation: task " << describe(key)
                      << " mesh axes: the program has ["
                      << axesOf(foundCollective) << "], the derivation ["
                      << axesOf(wantCollective) << "]";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // The first unmatched invocation in derivation order.
  for (const workload::BlockWork &work : *blocks)
    for (const workload::Invocation &invocation : work.invocations) {
      WorkKey key{work.cadence, invocation.phase, invocation.primitive};
      if (!expected.lookup(key).second)
        return program->emitError()
               << "conservation: the derived work has " << describe(key)
               << " but the program has no such task";
    }
  // A program with a kernel of the transformation has all of them.
  for (const auto &[blockKernels, work] : llvm::zip(addedKernels, *blocks))
    for (const workload::AddedKernel &kernel : blockKernels) {
      WorkKey key{work.cadence, kernel.executed.phase,
                  kernel.executed.primitive};
      if (!added.lookup(key).second)
        return program->emitError()
               << "conservation: the transformation adds " << describe(key)
               << " to the derived work but the program has no such task";
    }
  return success();
}

/// The boundary values of a program and the boundary buffers of a plan
/// against the boundary tensors derived from its contracts: the same names,
/// and for each its role, global type and sharding (`dist.boundary`) or its
/// per-rank bytes (`pplan.buffer`).
LogicalResult verifyDerivedBoundaries(Operation *program,
                                      const ProgramContracts &contracts) {
  llvm::Expected<std::vector<workload::BoundaryTensor>> derived =
      workload::programBoundaries(contracts.model, contracts.mapping,
                                  contracts.workload);
  if (!derived)
    return program->emitError()
           << "conservation: " << llvm::toString(derived.takeError());
  llvm::StringMap<std::pair<const workload::BoundaryTensor *, bool>> expected;
  for (const workload::BoundaryTensor &tensor : *derived)
    expected.try_emplace(tensor.name, &tensor, false);
  MLIRContext *context = program->getContext();
  // The derived tensor named `name`, marked as matched; reports a boundary
  // the contracts do not derive, or one listed twice.
  auto match = [&](Operation *op,
                   StringRef name) -> const workload::BoundaryTensor * {
    auto it = expected.find(name);
    if (it == expected.end() || it->second.second) {
      op->emitError() << "conservation: boundary '" << name
                      << "' has no counterpart in the boundary tensors "
                         "derived from the contracts (or appears twice)";
      return nullptr;
    }
    it->second.second = true;
    return it->second.first;
  };
  for (Operation &op : program->getRegion(0).front()) {
    if (auto boundary = llvm::dyn_cast<dist::BoundaryOp>(op)) {
      const workload::BoundaryTensor *want =
          match(boundary, boundary.getSymName());
      if (!want)
        return failure();
      Type type = dist::getBoundaryType(context, *want);
      dist::ShardingAttr sharding =
          dist::getBoundarySharding(context, boundary.getSharding().getMesh(),
                                    workload::kTensorParallelAxis, *want);
      if (boundary.getRole() != want->role)
        return boundary.emitError()
               << "conservation: boundary '" << want->name << "' role: "
               << "expected " << workload::stringifyEnum(want->role)
               << " (derived from the contracts), found "
               << workload::stringifyEnum(boundary.getRole());
      if (boundary.getType() != type || boundary.getSharding() != sharding)
        return boundary.emitError()
               << "conservation: boundary '" << want->name << "': expected "
               << type << " sharded " << sharding
               << " (derived from the contracts), found " << boundary.getType()
               << " sharded " << boundary.getSharding();
    } else if (auto buffer = llvm::dyn_cast<pplan::BufferOp>(op)) {
      if (buffer.getKind() != workload::BufferKind::Boundary)
        continue;
      const workload::BoundaryTensor *want = match(buffer, buffer.getSymName());
      if (!want)
        return failure();
      llvm::Expected<int64_t> bytes = workload::bytesPerRank(
          *want, contracts.mapping.tp, contracts.mapping.cp);
      if (!bytes)
        return buffer.emitError()
               << "conservation: " << llvm::toString(bytes.takeError());
      if (buffer.getBytes() != *bytes)
        return buffer.emitError()
               << "conservation: buffer '" << want->name
               << "' bytes per rank: expected " << *bytes
               << " (derived from the contracts), found " << buffer.getBytes();
    }
  }
  for (const workload::BoundaryTensor &tensor : *derived)
    if (!expected.lookup(tensor.name).second)
      return program->emitError()
             << "conservation: the derived boundary tensor '" << tensor.name
             << "' has no boundary in the program";
  return success();
}

//===----------------------------------------------------------------------===//
// Whole-run programs
//===----------------------------------------------------------------------===//

/// A summary of `work` with the optimizer step left out when the stage
/// steps its shard itself (zero_stage >= 1 over dp * cp > 1
/// gradient replicas, as WholeRun decides).
llvm::Expected<workload::WorkSummary>
stepSummary(llvm::Expected<workload::BlockWork> work, bool sharded) {
  if (!work)
    return work.takeError();
  workload::WorkSummary summary(workload::Cadence::PerIteration);
  for (const workload::Invocation &invocation : work->invocations) {
    if (sharded && invocation.phase == workload::Phase::Optimizer)
      continue;
    llvm::Expected<workload::InvocationFigures> figures =
        workload::figuresOf(invocation);
    if (!figures)
      return figures.takeError();
    if (llvm::Error error = summary.add(*figures))
      return std::move(error);
  }
  return summary;
}

/// The work of the block instances of `stage`, by the kind of the blocks
/// each runs (indexed by BlockKind), read off the IR: an instance adds its
/// template's work times its repetitions (an expanded one its copies).
template <typename InstanceOpT, typename LookupT>
llvm::Expected<std::array<workload::WorkSummary, 2>>
blockWorkByKind(Block &stage, const workload::ModelSpec &model,
                LookupT lookupTemplate, const std::string &what) {
  std::array<workload::WorkSummary, 2> byKind = {
      workload::WorkSummary(workload::Cadence::PerIteration),
      workload::WorkSummary(workload::Cadence::PerIteration)};
  // A template's work, read off its body once: a stage runs each template
  // once per micro-batch.
  llvm::DenseMap<Operation *, workload::WorkSummary> templateWork;
  auto workOf = [&](Region &body) -> llvm::Expected<workload::WorkSummary> {
    workload::WorkSummary work(workload::Cadence::PerIteration);
    for (auto op : body.template getOps<WorkFactsOpInterface>())
      if (llvm::Error error =
              addSemanticWork(op, pplan::fusedFiguresOf, {&work}))
        return std::move(error);
    return work;
  };
  for (InstanceOpT instance : stage.getOps<InstanceOpT>()) {
    auto templateOp = lookupTemplate(instance);
    if (!templateOp || templateOp.getPart() != workload::ModelPart::Block)
      continue;
    // `*_instance_c3` holds: a block instance runs blocks of one kind.
    ArrayRef<int64_t> blocks = *instance.getBlocks();
    workload::BlockKind kind = workload::blockKindOf(model, blocks[0]);
    bool expanded =
        instance->getNumRegions() == 1 && !instance->getRegion(0).empty();
    std::optional<workload::WorkSummary> copies;
    const workload::WorkSummary *work = nullptr;
    if (expanded) {
      llvm::Expected<workload::WorkSummary> read =
          workOf(instance->getRegion(0));
      if (!read)
        return read.takeError();
      copies = std::move(*read);
      work = &*copies;
    } else {
      auto known = templateWork.find(templateOp.getOperation());
      if (known == templateWork.end()) {
        llvm::Expected<workload::WorkSummary> read =
            workOf(templateOp.getBody());
        if (!read)
          return read.takeError();
        known = templateWork
                    .try_emplace(templateOp.getOperation(), std::move(*read))
                    .first;
      }
      work = &known->second;
    }
    if (llvm::Error error = byKind[static_cast<size_t>(kind)].addScaled(
            *work, expanded ? 1 : instance.getRepetitions(), what))
      return std::move(error);
  }
  return byKind;
}

/// The instance totals of one stage against what the contracts derive.
LogicalResult expectInstanceWork(
    Operation *program, const workload::StageTotals &stage,
    llvm::function_ref<workload::WorkTotals(workload::Phase, workload::Engine)>
        expectedAt,
    llvm::StringRef derivedText) {
  std::string what = "stage " + std::to_string(stage.stage);
  for (workload::Phase phase : workload::allPhases())
    for (workload::Engine engine : workload::allEngines()) {
      const workload::WorkTotals &found = stage.instanceWork.at(phase, engine);
      workload::WorkTotals derived = expectedAt(phase, engine);
      for (auto [quantity, lhs, rhs] :
           {std::tuple("invocations", found.invocations, derived.invocations),
            std::tuple("ops", found.ops, derived.ops),
            std::tuple("read bytes", found.readBytes, derived.readBytes),
            std::tuple("write bytes", found.writeBytes, derived.writeBytes),
            std::tuple("message bytes", found.messageBytes,
                       derived.messageBytes),
            std::tuple("stash bytes", found.stashBytes, derived.stashBytes)})
        if (lhs != rhs)
          return program->emitError()
                 << "conservation: " << what << ", "
                 << workload::stringifyEnum(phase) << " "
                 << workload::stringifyEnum(engine) << " " << quantity
                 << ": the instances hold " << lhs << ", " << derivedText
                 << " is " << rhs;
    }
  return success();
}

/// The block instances' work of each kind on the stage `totals` describes
/// against `expectedAt(kind, phase, engine)`: each instance's template is
/// its own blocks' kind (a dense block's work is not charged to an MoE
/// template, or the reverse, even where the stage's totals agree).
LogicalResult expectWorkByKind(
    Operation *program, const workload::StageTotals &totals,
    const workload::ModelSpec &model,
    llvm::function_ref<workload::WorkTotals(workload::BlockKind,
                                            workload::Phase, workload::Engine)>
        expectedAt,
    llvm::StringRef derivedText) {
  std::string what = "stage " + std::to_string(totals.stage);
  auto read = [&]() -> llvm::Expected<std::array<workload::WorkSummary, 2>> {
    for (Operation &op : program->getRegion(0).front()) {
      if (auto stage = llvm::dyn_cast<dist::StageOp>(op);
          stage && stage.getIndex() == totals.stage)
        return blockWorkByKind<dist::InstanceOp>(
            stage.getBody().front(), model,
            [](dist::InstanceOp instance) { return instance.lookupTemplate(); },
            what);
      if (auto stage = llvm::dyn_cast<pplan::StageOp>(op);
          stage && stage.getIndex() == totals.stage)
        return blockWorkByKind<pplan::InstanceOp>(
            stage.getBody().front(), model,
            [](pplan::InstanceOp instance) {
              return instance.lookupTemplate();
            },
            what);
    }
    return llvm::createStringError(what + " is not in the program");
  };
  llvm::Expected<std::array<workload::WorkSummary, 2>> byKind = read();
  if (!byKind)
    return program->emitError()
           << "conservation: " << llvm::toString(byKind.takeError());
  for (workload::BlockKind kind : workload::blockKindsOf(model)) {
    workload::StageTotals ofKind;
    ofKind.stage = totals.stage;
    ofKind.instanceWork = (*byKind)[static_cast<size_t>(kind)];
    std::string text = (derivedText + (kind == workload::BlockKind::Dense
                                           ? " of its dense blocks"
                                           : " of its MoE blocks"))
                           .str();
    if (failed(expectInstanceWork(
            program, ofKind,
            [&](workload::Phase phase, workload::Engine engine) {
              return expectedAt(kind, phase, engine);
            },
            text)))
      return failure();
  }
  return success();
}

/// What a whole-run inference program's stages must hold, re-derived from
/// its contracts without the whole-run derivation and without a loop over
/// the tokens: each stage's instances hold blocks x (the prefill + the sum
/// of the decode steps), the closed-form series of
/// deriveInferenceGeneration; it runs no stage-level work; every stage but
/// the last sends one activation per step (the prompt's block output for
/// the prefill, one position's per decode step) and every stage but the
/// first receives them; at pp > 1 the last stage sends the first one token
/// message per step but the last; and the stage writes blocks x the
/// generation's KV-cache write bytes (GenerationWork::kvCacheWriteBytes; the
/// cache at the end, blocks x kvCacheBytesPerRank(prompt_length +
/// generated_tokens - 1), without a sliding window).
LogicalResult verifyInferenceRun(Operation *program,
                                 const ProgramContracts &contracts) {
  const workload::ModelSpec &model = contracts.model;
  const workload::MappingSpec &mapping = contracts.mapping;
  const workload::InferenceSpec &inference = *contracts.workload.inference;
  auto fail = [&](llvm::Error error) {
    return program->emitError()
           << "conservation: " << llvm::toString(std::move(error));
  };
  std::optional<workload::InferenceComposition> composition =
      workload::composeInference(model, inference, mapping);
  if (!composition)
    return program->emitError() << "conservation: the contracts do not compose";
  // The generation of one block of each kind (indexed by BlockKind).
  std::vector<workload::BlockKind> kinds = workload::blockKindsOf(model);
  std::array<workload::GenerationWork, 2> generation;
  for (workload::BlockKind kind : kinds) {
    llvm::Expected<workload::GenerationWork> work =
        workload::deriveInferenceGeneration(workload::blockModelOf(model, kind),
                                            inference, mapping);
    if (!work)
      return fail(work.takeError());
    generation[static_cast<size_t>(kind)] = std::move(*work);
  }
  // The generation of one block of `kind`, by phase and engine: the
  // prefill's summary, and in phase decode the decode steps' closed-form
  // sums.
  auto perBlock = [&](workload::BlockKind kind, workload::Phase phase,
                      workload::Engine engine) {
    const workload::GenerationWork &work =
        generation[static_cast<size_t>(kind)];
    return phase == workload::Phase::Decode ? work.decodeOf(engine)
                                            : work.prefill.at(phase, engine);
  };

  workload::OverflowGuard guard;
  int64_t steps = inference.generatedTokens;
  int64_t sequences = composition->localBatch;
  int64_t elementBytes = workload::bytesOf(inference.activationType);
  int64_t prefillBytes = guard.product(
      {sequences, inference.promptLength, model.hidden, elementBytes},
      "prefill activation bytes");
  int64_t decodeBytes =
      guard.product({steps - 1, sequences, model.hidden, elementBytes},
                    "decode activation bytes");
  int64_t activationBytes =
      guard.add(prefillBytes, decodeBytes, "activation bytes");
  int64_t tokenBytes = guard.product(
      {steps - 1, sequences, workload::kTokenIdBytes}, "token bytes");
  if (guard.failed())
    return fail(guard.error("conservation"));
  workload::PipelineLayout layout = workload::layoutOf(model, mapping);
  int64_t last = mapping.pp - 1;

  FailureOr<std::vector<workload::StageTotals>> stages =
      summarizeStages(program);
  if (failed(stages))
    return failure();
  for (const workload::StageTotals &stage : *stages) {
    int64_t index = stage.stage;
    std::string what = "stage " + std::to_string(index);
    int64_t firstBlock = layout.firstBlock(layout.chunkAt(index, 0));
    int64_t endBlock = firstBlock + layout.stageBlocks(index);
    std::string quantity = what + " generation work";
    // The stage's blocks of `kind` x one block's generation.
    auto expectedOfKind = [&](workload::BlockKind kind, workload::Phase phase,
                              workload::Engine engine) {
      workload::WorkTotals cell = perBlock(kind, phase, engine);
      int64_t blocks =
          workload::blocksOfKind(model, kind, firstBlock, endBlock);
      for (int64_t *field :
           {&cell.invocations, &cell.ops, &cell.readBytes, &cell.writeBytes,
            &cell.messageBytes, &cell.stashBytes})
        *field = guard.mul(*field, blocks, quantity);
      return cell;
    };
    auto expectedAt = [&](workload::Phase phase, workload::Engine engine) {
      workload::WorkTotals sum;
      for (workload::BlockKind kind : kinds) {
        workload::WorkTotals cell = expectedOfKind(kind, phase, engine);
        for (auto [total, field] :
             {std::pair{&sum.invocations, cell.invocations},
              std::pair{&sum.ops, cell.ops},
              std::pair{&sum.readBytes, cell.readBytes},
              std::pair{&sum.writeBytes, cell.writeBytes},
              std::pair{&sum.messageBytes, cell.messageBytes},
              std::pair{&sum.stashBytes, cell.stashBytes}})
          *total = guard.add(*total, field, quantity);
      }
      return sum;
    };
    llvm::StringRef derivedText =
        "blocks x (the prefill + the decode steps' closed-form sum)";
    if (failed(expectInstanceWork(program, stage, expectedAt, derivedText)) ||
        failed(expectWorkByKind(program, stage, model, expectedOfKind,
                                derivedText)))
      return failure();
    if (guard.failed())
      return fail(guard.error("conservation"));
    if (stage.work.total().invocations !=
        stage.instanceWork.total().invocations)
      return program->emitError()
             << "conservation: " << what << " runs "
             << stage.work.total().invocations -
                    stage.instanceWork.total().invocations
             << " stage-level work ops; an inference stage runs instances "
                "and messages only";

    // Messages: activations down the pipeline, tokens back to the first
    // stage.
    int64_t sentMessages = 0, sentBytes = 0, receivedMessages = 0,
            receivedBytes = 0;
    if (index < last) {
      sentMessages += steps;
      sentBytes += activationBytes;
    }
    if (index > 0) {
      receivedMessages += steps;
      receivedBytes += activationBytes;
    }
    if (last > 0 && index == last) {
      sentMessages += steps - 1;
      sentBytes += tokenBytes;
    }
    if (last > 0 && index == 0) {
      receivedMessages += steps - 1;
      receivedBytes += tokenBytes;
    }
    if (stage.messagesSent != sentMessages || stage.bytesSent != sentBytes ||
        stage.messagesReceived != receivedMessages ||
        stage.bytesReceived != receivedBytes)
      return program->emitError()
             << "conservation: " << what << " sends " << stage.messagesSent
             << " pipeline messages (" << stage.bytesSent << " bytes) and "
             << "receives " << stage.messagesReceived << " ("
             << stage.bytesReceived << " bytes); the generation's " << steps
             << " steps need " << sentMessages << " sent (" << sentBytes
             << " bytes) and " << receivedMessages << " received ("
             << receivedBytes << " bytes)";

    // The KV cache: every position the prefill and the decode steps wrote.
    int64_t kvWrites = 0;
    for (workload::BlockKind kind : kinds)
      kvWrites = guard.add(
          kvWrites,
          guard.mul(workload::blocksOfKind(model, kind, firstBlock, endBlock),
                    generation[static_cast<size_t>(kind)].kvCacheWriteBytes,
                    what + " KV cache"),
          what + " KV cache");
    if (guard.failed())
      return fail(guard.error("conservation"));
    if (stage.kvCacheWriteBytes != kvWrites)
      return program->emitError()
             << "conservation: " << what << " writes "
             << stage.kvCacheWriteBytes << " KV-cache bytes per rank; the "
             << "prefill and decode steps of its " << endBlock - firstBlock
             << " blocks write " << kvWrites;
  }
  return success();
}

/// What a whole-run program's stages must hold, re-derived from its
/// contracts without the whole-run derivation: each stage's instances run
/// its blocks' per-micro-batch work once per micro-batch and their step
/// once, and the edges' work once per micro-batch and their step once on
/// the first and last stage; each stage sends one pipeline message per
/// micro-batch and direction across each boundary of its chunks, of the
/// block output's bytes (1/t of it when scattered); and reduces over its
/// dp * cp gradient replicas every gradient it holds, each bucket padded to
/// a multiple of dp * cp.
LogicalResult verifyWholeRun(Operation *program,
                             const ProgramContracts &contracts) {
  if (contracts.workload.inference)
    return verifyInferenceRun(program, contracts);
  const workload::ModelSpec &model = contracts.model;
  const workload::MappingSpec &mapping = contracts.mapping;
  const workload::TrainingSpec &training = *contracts.workload.training;
  auto fail = [&](llvm::Error error) {
    return program->emitError()
           << "conservation: " << llvm::toString(std::move(error));
  };
  std::optional<workload::TrainingComposition> composition =
      workload::composeTraining(model, training, mapping);
  if (!composition)
    return program->emitError() << "conservation: the contracts do not compose";
  int64_t m = composition->microbatches;
  workload::PipelineLayout layout = workload::layoutOf(model, mapping);
  bool sharded = mapping.shardsOptimizer();
  int64_t last = mapping.pp - 1;

  // Each block kind's per-micro-batch work, step and parameters, indexed
  // by BlockKind.
  std::vector<workload::BlockKind> kinds = workload::blockKindsOf(model);
  std::array<workload::WorkSummary, 2> block = {
      workload::WorkSummary(workload::Cadence::PerMicroBatch),
      workload::WorkSummary(workload::Cadence::PerMicroBatch)};
  std::array<workload::WorkSummary, 2> blockStep = {
      workload::WorkSummary(workload::Cadence::PerIteration),
      workload::WorkSummary(workload::Cadence::PerIteration)};
  std::array<int64_t, 2> perBlock{};
  // At ep > 1 the routed experts' parameters of a block (their gradients
  // reduce over edp alone); 0 at ep = 1.
  std::array<int64_t, 2> expertPerBlock{};
  for (workload::BlockKind kind : kinds) {
    size_t at = static_cast<size_t>(kind);
    llvm::Expected<workload::BlockWork> blockWork =
        workload::deriveBlockWork(model, kind, training, mapping);
    if (!blockWork)
      return fail(blockWork.takeError());
    llvm::Expected<workload::WorkSummary> summary =
        workload::summarize(*blockWork);
    if (!summary)
      return fail(summary.takeError());
    block[at] = std::move(*summary);
    llvm::Expected<workload::WorkSummary> step = stepSummary(
        workload::deriveOptimizerWork(model, kind, training, mapping), sharded);
    if (!step)
      return fail(step.takeError());
    blockStep[at] = std::move(*step);
    llvm::Expected<int64_t> parameters =
        workload::blockParametersPerRank(model, kind, mapping);
    if (!parameters)
      return fail(parameters.takeError());
    perBlock[at] = *parameters;
    llvm::Expected<int64_t> experts =
        workload::blockExpertParametersPerRank(model, kind, mapping);
    if (!experts)
      return fail(experts.takeError());
    expertPerBlock[at] = *experts;
  }
  llvm::Expected<workload::BlockWork> embeddingWork =
      workload::deriveEmbeddingWork(model, training, mapping);
  if (!embeddingWork)
    return fail(embeddingWork.takeError());
  llvm::Expected<workload::WorkSummary> embedding =
      workload::summarize(*embeddingWork);
  llvm::Expected<workload::BlockWork> headWork =
      workload::deriveHeadWork(model, training, mapping);
  if (!headWork)
    return fail(headWork.takeError());
  llvm::Expected<workload::WorkSummary> head = workload::summarize(*headWork);
  llvm::Expected<workload::WorkSummary> firstStep =
      stepSummary(workload::deriveEdgeOptimizerWork(model, training, mapping,
                                                    true, mapping.pp == 1),
                  sharded);
  llvm::Expected<workload::WorkSummary> lastStep =
      mapping.pp == 1
          ? llvm::Expected<workload::WorkSummary>(
                workload::WorkSummary(workload::Cadence::PerIteration))
          : stepSummary(workload::deriveEdgeOptimizerWork(model, training,
                                                          mapping, false, true),
                        sharded);
  for (llvm::Expected<workload::WorkSummary> *summary :
       {&embedding, &head, &firstStep, &lastStep})
    if (!*summary)
      return fail(summary->takeError());
  llvm::Expected<workload::EdgeParameters> edge =
      workload::edgeParametersPerRank(model, mapping);
  if (!edge)
    return fail(edge.takeError());
  llvm::Expected<std::vector<workload::BoundaryTensor>> boundaries =
      workload::blockBoundaries(model, training, mapping);
  if (!boundaries)
    return fail(boundaries.takeError());
  int64_t outputBytes = 0;
  for (const workload::BoundaryTensor &tensor : *boundaries)
    if (tensor.role == workload::BoundaryRole::ActivationOut) {
      llvm::Expected<int64_t> bytes =
          workload::bytesPerRank(tensor, mapping.tp, mapping.cp);
      if (!bytes)
        return fail(bytes.takeError());
      outputBytes = *bytes;
    }
  int64_t messageBytes = workload::scattersPipelineMessages(mapping)
                             ? outputBytes / mapping.tp
                             : outputBytes;

  FailureOr<std::vector<workload::StageTotals>> stages =
      summarizeStages(program);
  if (failed(stages))
    return failure();
  int64_t gradientBytes = workload::bytesOf(training.gradientType);
  for (const workload::StageTotals &stage : *stages) {
    int64_t index = stage.stage;
    std::string what = "stage " + std::to_string(index);
    // The stage's blocks of each kind, over its chunks.
    workload::OverflowGuard guard;
    std::array<int64_t, 2> blocks{};
    for (int64_t k = 0; k < mapping.virtualStages; ++k) {
      int64_t chunk = layout.chunkAt(index, k);
      int64_t first = layout.firstBlock(chunk);
      for (workload::BlockKind kind : kinds) {
        int64_t &count = blocks[static_cast<size_t>(kind)];
        count =
            guard.add(count,
                      workload::blocksOfKind(model, kind, first,
                                             first + layout.chunkBlocks[chunk]),
                      what + " blocks");
      }
    }
    // Each kind's blocks run their kind's block work once per micro-batch
    // and its step once.
    std::array<workload::WorkSummary, 2> ofKind = {
        workload::WorkSummary(workload::Cadence::PerIteration),
        workload::WorkSummary(workload::Cadence::PerIteration)};
    for (workload::BlockKind kind : kinds) {
      size_t at = static_cast<size_t>(kind);
      int64_t passes = guard.mul(blocks[at], m, what + " block passes");
      if (guard.failed())
        return fail(guard.error("conservation"));
      for (auto [summary, times] : {std::pair{&block[at], passes},
                                    std::pair{&blockStep[at], blocks[at]}})
        if (llvm::Error error = ofKind[at].addScaled(*summary, times, what))
          return fail(std::move(error));
    }
    workload::WorkSummary expected(workload::Cadence::PerIteration);
    std::vector<std::pair<const workload::WorkSummary *, int64_t>> parts;
    for (workload::BlockKind kind : kinds)
      parts.push_back({&ofKind[static_cast<size_t>(kind)], 1});
    if (index == 0)
      llvm::append_range(
          parts, std::vector<std::pair<const workload::WorkSummary *, int64_t>>{
                     {&*embedding, m}, {&*firstStep, 1}});
    if (index == last)
      llvm::append_range(
          parts, std::vector<std::pair<const workload::WorkSummary *, int64_t>>{
                     {&*head, m}, {&*lastStep, 1}});
    for (auto [summary, times] : parts)
      if (llvm::Error error = expected.addScaled(*summary, times, what))
        return fail(std::move(error));
    if (failed(expectInstanceWork(
            program, stage,
            [&](workload::Phase phase, workload::Engine engine) {
              return expected.at(phase, engine);
            },
            "blocks x micro-batches x the block's work plus the edges'")))
      return failure();
    if (failed(expectWorkByKind(
            program, stage, model,
            [&](workload::BlockKind kind, workload::Phase phase,
                workload::Engine engine) {
              return ofKind[static_cast<size_t>(kind)].at(phase, engine);
            },
            "blocks x micro-batches x the block's work")))
      return failure();

    // Pipeline messages: one per micro-batch and direction across each
    // boundary of the stage's chunks.
    int64_t boundariesCrossed = 0;
    for (int64_t k = 0; k < mapping.virtualStages; ++k) {
      int64_t chunk = layout.chunkAt(index, k);
      boundariesCrossed += (chunk + 1 < layout.chunks()) + (chunk > 0);
    }
    int64_t messages = boundariesCrossed * m;
    if (stage.messagesSent != messages || stage.messagesReceived != messages ||
        stage.bytesSent != messages * messageBytes ||
        stage.bytesReceived != messages * messageBytes)
      return program->emitError()
             << "conservation: " << what << " sends " << stage.messagesSent
             << " pipeline messages (" << stage.bytesSent << " bytes) and "
             << "receives " << stage.messagesReceived << " ("
             << stage.bytesReceived << " bytes); its chunks' boundaries "
             << "need " << messages << " of " << messageBytes
             << " bytes each way";

    // Data parallelism: every gradient the stage holds is reduced once over
    // the dp * cp ranks holding it, each bucket padded by less than dp * cp
    // elements; at ep > 1 the dense gradients over edp x ep (the dp ranks)
    // and the routed experts' over edp alone, padded by less than edp (none
    // at edp = 1).
    int64_t replicas = mapping.gradientReplicas();
    if (replicas == 1)
      continue;
    std::string held = what + " gradient elements";
    int64_t elements = 0;
    int64_t expertElements = 0;
    for (workload::BlockKind kind : kinds) {
      size_t at = static_cast<size_t>(kind);
      elements = guard.add(
          elements,
          guard.mul(blocks[at], perBlock[at] - expertPerBlock[at], held), held);
      expertElements =
          guard.add(expertElements,
                    guard.mul(blocks[at], expertPerBlock[at], held), held);
    }
    if (index == 0)
      elements = guard.add(elements, edge->firstStageTotal, held);
    if (index == last)
      elements = guard.add(elements, edge->lastStageTotal, held);
    if (guard.failed())
      return fail(guard.error("conservation"));
    int64_t expertReplicas = mapping.expertGradientReplicas();
    struct GradientGroup {
      bool experts;
      int64_t elements;
      int64_t replicas;
      llvm::StringRef name;
    };
    for (GradientGroup group :
         {GradientGroup{false, elements, replicas,
                        mapping.ep > 1   ? "edp x ep"
                        : mapping.cp > 1 ? "dp x cp"
                                         : "dp"},
          GradientGroup{true, expertElements, expertReplicas, "edp"}}) {
      // At ep = 1 the experts are dense gradients. At edp = 1 an expert's
      // gradient has no replica: nothing may reduce it (checked below).
      if (group.experts && mapping.ep == 1)
        continue;
      int64_t reduced = 0, buckets = 0;
      for (Operation &stageOp : program->getRegion(0).front()) {
        auto dist = llvm::dyn_cast<dist::StageOp>(stageOp);
        auto plan = llvm::dyn_cast<pplan::StageOp>(stageOp);
        if ((!dist || dist.getIndex() != index) &&
            (!plan || plan.getIndex() != index))
          continue;
        for (WorkFactsOpInterface op :
             stageOp.getRegion(0).getOps<WorkFactsOpInterface>()) {
          if (op.getPrimitive() != workload::primitive::kDPGradAllReduce &&
              op.getPrimitive() != workload::primitive::kDPGradReduceScatter)
            continue;
          // An expert bucket's reduction spans axis "edp" alone; any other
          // reduction is checked with the dense gradients (a stray axis
          // there breaks their sum).
          std::optional<workload::CollectiveFacts> facts =
              op.getCollectiveFacts();
          bool expertBucket =
              mapping.ep > 1 &&
              facts->axis == workload::kExpertDataParallelAxis &&
              facts->innerAxes.empty();
          if (expertBucket != group.experts)
            continue;
          reduced = guard.add(reduced, facts->messageBytes,
                              what + " reduced gradient bytes");
          ++buckets;
        }
      }
      std::string bytes = what + " gradient bytes";
      int64_t unpadded = guard.mul(group.elements, gradientBytes, bytes);
      int64_t padding = guard.mul(group.replicas, gradientBytes, bytes);
      int64_t paddingBound = guard.mul(buckets, padding, bytes);
      int64_t paddedBound = guard.add(unpadded, paddingBound, bytes);
      if (guard.failed())
        return fail(guard.error("conservation"));
      if (group.experts && group.replicas == 1) {
        if (buckets == 0)
          continue;
        return program->emitError()
               << "conservation: " << what << " reduces " << reduced
               << " expert gradient bytes over edp in " << buckets
               << " buckets at edp = 1, where no rank shares its experts' "
                  "gradients; none may be reduced";
      }
      if (reduced < unpadded || reduced >= paddedBound ||
          reduced % padding != 0)
        return program->emitError()
               << "conservation: " << what << " reduces " << reduced
               << (group.experts ? " expert" : "") << " gradient bytes over "
               << group.name << " in " << buckets << " buckets; it holds "
               << unpadded << " (each bucket padded by less than " << group.name
               << " = " << group.replicas << " elements)";
    }
  }
  return success();
}

struct VerifyConservationPass
    : blueprint::impl::VerifyConservationBase<VerifyConservationPass> {
  void runOnOperation() override {
    for (Operation &op : getOperation().getBody()->getOperations())
      if (failed(verifyConservation(&op)))
        return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace

LogicalResult blueprint::verifyConservation(Operation *op) {
  std::optional<ProgramContracts> contracts = getProgramContracts(op);
  if (!contracts)
    return success();
  auto distProgram = llvm::dyn_cast<dist::ProgramOp>(op);
  auto plan = llvm::dyn_cast<pplan::PlanOp>(op);
  if (distProgram && dist::isWholeRun(distProgram))
    return verifyWholeRun(op, *contracts);
  if (plan && plan.isWholeRun()) {
    // The stage totals count a fused template task's semantic work, which
    // verifyWholeRun checks; each fused task reports its delta once.
    if (failed(verifyWholeRun(op, *contracts)))
      return failure();
    for (auto templateOp : plan.getBody().getOps<pplan::TemplateOp>())
      for (auto task : templateOp.getBody().getOps<pplan::TaskOp>())
        if (task.getFusesAttr() && failed(remarkImplementationDelta(task)))
          return failure();
    return success();
  }
  if (failed(verifyDerivedWork(op, *contracts)))
    return failure();
  return verifyDerivedBoundaries(op, *contracts);
}
