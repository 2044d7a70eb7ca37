//===- DistributeTransformer.cpp - ModelIR to DistributedTaskIR -----------===//
//
// A thin pass: it reads the contracts off each `transformer.decoder_training`
// op, asks the work algebra (lib/Workload) for the block's invocations and
// boundary tensors, and materializes them as a `dist.program`. All counting
// happens in the algebra.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/Interfaces/WholeRunRules.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Plan.h"
#include "Blueprint/Workload/ProgramWork.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <numeric>

namespace blueprint {
#define GEN_PASS_DEF_DISTRIBUTETRANSFORMER
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

constexpr llvm::StringLiteral kMeshName = "tp_mesh";

/// The invocations of every block work in conservative stage order
/// (forward, recompute, backward, per-iteration; prefill, decode), keeping
/// the algebra's order within each stage. Valid because recompute reads only
/// stashed forward tensors.
std::vector<std::pair<const workload::Invocation *, workload::Cadence>>
inStageOrder(llvm::ArrayRef<workload::BlockWork> blocks) {
  std::vector<std::pair<const workload::Invocation *, workload::Cadence>> work;
  std::vector<std::pair<workload::Phase, workload::Cadence>> keys;
  for (const workload::BlockWork &block : blocks)
    for (const workload::Invocation &invocation : block.invocations) {
      work.push_back({&invocation, block.cadence});
      keys.push_back({invocation.phase, block.cadence});
    }
  std::vector<workload::Stage> stages = workload::assignStages(keys);
  // A stable bucket sort by stage: the stages are few and ordered.
  std::map<
      workload::Stage,
      std::vector<std::pair<const workload::Invocation *, workload::Cadence>>>
      byStage;
  for (auto [entry, stage] : llvm::zip(work, stages))
    byStage[stage].push_back(entry);
  std::vector<std::pair<const workload::Invocation *, workload::Cadence>>
      ordered;
  for (auto &[stage, entries] : byStage)
    llvm::append_range(ordered, entries);
  return ordered;
}

/// `fused<#dist.lineage<...>>["<primitive>.<phase>", <source location>]`.
Location workLineage(Operation *source, StringAttr model,
                     const workload::Invocation &invocation) {
  MLIRContext *context = source->getContext();
  Builder builder(context);
  auto lineage = dist::LineageAttr::get(
      context, model, builder.getStringAttr(invocation.primitive),
      invocation.phase, builder.getStringAttr(invocation.cause));
  StringAttr locationName = builder.getStringAttr(
      invocation.primitive + "." + workload::stringifyEnum(invocation.phase));
  return FusedLoc::get(context, {NameLoc::get(locationName), source->getLoc()},
                       lineage);
}

/// The mesh axes of an invocation's collective: the axes its facts name
/// (the tensor axis for every tensor-parallel collective, the context axis
/// for the key/value exchange, the data-parallel axis and inside it the
/// context axis for the gradient reduction at cp > 1); the tensor axis for
/// a task.
ArrayAttr axesOf(Builder &builder, const workload::Invocation &invocation) {
  if (!invocation.collective)
    return builder.getStrArrayAttr({workload::kTensorParallelAxis});
  llvm::SmallVector<llvm::StringRef, 2> axes = {invocation.collective->axis};
  llvm::append_range(axes, invocation.collective->innerAxes);
  return builder.getStrArrayAttr(axes);
}

/// The mesh axes of a step's collective: the step's axis when it names one
/// (the whole run's pipeline and data-parallel collectives), then the inner
/// axes its facts name; axesOf(invocation) otherwise.
ArrayAttr axesOf(Builder &builder, const workload::RunWork &work) {
  if (work.axis.empty() || !work.invocation->collective)
    return axesOf(builder, *work.invocation);
  llvm::SmallVector<llvm::StringRef, 2> axes = {work.axis};
  llvm::append_range(axes, work.invocation->collective->innerAxes);
  return builder.getStrArrayAttr(axes);
}

/// The mesh of a program under `mapping` (docs/DistSpec.md): `outer` axes
/// of the given sizes, then `ep` at ep > 1, then `cp` at cp > 1 (each
/// omitted at 1, so programs without them are unchanged), then `tp`.
dist::MeshOp
createMesh(OpBuilder &builder, Location loc, llvm::StringRef name,
           transformer::MappingAttr mapping,
           llvm::ArrayRef<std::pair<llvm::StringRef, int64_t>> outer) {
  llvm::SmallVector<llvm::StringRef, 5> axes;
  llvm::SmallVector<int64_t, 5> shape;
  for (auto [axis, size] : outer) {
    axes.push_back(axis);
    shape.push_back(size);
  }
  if (mapping.getEp() > 1) {
    axes.push_back(workload::kExpertParallelAxis);
    shape.push_back(mapping.getEp());
  }
  if (mapping.getCp() > 1) {
    axes.push_back(workload::kContextParallelAxis);
    shape.push_back(mapping.getCp());
  }
  axes.push_back(workload::kTensorParallelAxis);
  shape.push_back(mapping.getTp());
  return dist::MeshOp::create(builder, loc, name, builder.getStrArrayAttr(axes),
                              builder.getDenseI64ArrayAttr(shape));
}

/// The task or collective op of `invocation`.
Operation *buildWorkOp(OpBuilder &builder, Location loc,
                       const workload::Invocation &invocation,
                       workload::Cadence cadence, FlatSymbolRefAttr mesh,
                       DenseI64ArrayAttr ranks, ArrayAttr axes,
                       DenseI64ArrayAttr group, ValueRange deps) {
  MLIRContext *context = builder.getContext();
  Type token = dist::TokenType::get(context);
  StringAttr primitive = builder.getStringAttr(invocation.primitive);
  TensorBytesList reads = getTensorBytes(context, invocation.reads);
  TensorBytesList writes = getTensorBytes(context, invocation.writes);
  TensorBytesList stashed = getTensorBytes(context, invocation.stashed);
  workload::Phase phase = invocation.phase;
  int64_t ops = invocation.ops;
  if (!invocation.collective) {
    DenseI64ArrayAttr gemm;
    if (!invocation.gemms.empty())
      gemm = builder.getDenseI64ArrayAttr(
          workload::flattenGemms(invocation.gemms));
    return dist::TaskOp::create(builder, loc, token, primitive, phase, cadence,
                                mesh, ranks, ops, reads, writes, stashed, deps,
                                invocation.engine, gemm);
  }
  const workload::CollectiveFacts &facts = *invocation.collective;
  UnitAttr pointToPoint = facts.pointToPoint ? builder.getUnitAttr() : nullptr;
  auto createReducing = [&](auto opTag) {
    using OpT = decltype(opTag);
    return OpT::create(builder, loc, token, primitive, phase, cadence, mesh,
                       ranks, ops, reads, writes, stashed, deps, axes, group,
                       facts.participants, facts.messageBytes, facts.reduction,
                       /*ready_blocks=*/nullptr, pointToPoint)
        .getOperation();
  };
  switch (facts.kind) {
  case workload::CollectiveKind::AllReduce:
    return createReducing(dist::AllReduceOp());
  case workload::CollectiveKind::ReduceScatter:
    return createReducing(dist::ReduceScatterOp());
  case workload::CollectiveKind::AllGather:
    return dist::AllGatherOp::create(
        builder, loc, token, primitive, phase, cadence, mesh, ranks, ops, reads,
        writes, stashed, deps, axes, group, facts.participants,
        facts.messageBytes, pointToPoint);
  case workload::CollectiveKind::AllToAll:
    return dist::AllToAllOp::create(
        builder, loc, token, primitive, phase, cadence, mesh, ranks, ops, reads,
        writes, stashed, deps, axes, group, facts.participants,
        facts.messageBytes, pointToPoint);
  }
  llvm_unreachable("unknown CollectiveKind");
}

/// Builds the program of one source op from its derived work.
class ProgramBuilder {
public:
  ProgramBuilder(Operation *source, OpBuilder &builder)
      : source(source), builder(builder), context(builder.getContext()),
        name(SymbolTable::getSymbolName(source)) {}

  /// A program with `source`'s contracts (`workload` is its training or
  /// inference attribute) holding `blocks`.
  dist::ProgramOp build(transformer::ModelAttr model,
                        transformer::TrainingAttr training,
                        transformer::InferenceAttr inference,
                        std::optional<int64_t> decodeContext,
                        transformer::MappingAttr mapping,
                        llvm::ArrayRef<workload::BlockWork> blocks,
                        llvm::ArrayRef<workload::BoundaryTensor> boundaries) {
    Location loc = source->getLoc();
    auto program = dist::ProgramOp::create(
        builder, loc, name, builder.getStringAttr(computeDigest(source)), model,
        training, inference,
        decodeContext ? builder.getI64IntegerAttr(*decodeContext)
                      : IntegerAttr(),
        mapping);
    builder.setInsertionPointToStart(&program.getBody().emplaceBlock());
    dist::MeshOp blockMesh = createMesh(builder, loc, kMeshName, mapping, {});
    // The block's work runs on, and its boundary values are held by, every
    // logical rank of the block's mesh: ranks 0 .. cp*tp-1, named
    // explicitly so that each task says on which ranks it runs.
    llvm::SmallVector<int64_t> meshRanks(blockMesh.getNumRanks());
    std::iota(meshRanks.begin(), meshRanks.end(), 0);
    ranks = builder.getDenseI64ArrayAttr(meshRanks);
    for (const workload::BoundaryTensor &tensor : boundaries)
      if (!tensor.isOutput())
        createBoundary(tensor, Value());
    for (auto [invocation, cadence] : inStageOrder(blocks))
      createWork(*invocation, cadence);
    for (const workload::BoundaryTensor &tensor : boundaries)
      if (tensor.isOutput())
        createBoundary(tensor, lastWriter(tensor));
    return program;
  }

private:
  /// `fused<#dist.lineage<...>>["<primitive>.<phase>", <source location>]`.
  Location lineageLoc(const workload::Invocation &invocation) {
    return workLineage(source, name, invocation);
  }

  void createWork(const workload::Invocation &invocation,
                  workload::Cadence cadence) {
    Operation *op = createWorkOp(invocation, cadence);
    previous = op->getResult(0);
    for (const workload::TensorAccess &write : invocation.writes)
      writers[write.tensor].push_back({invocation.phase, previous});
  }

  /// The task or collective op of `invocation`, after the previous one.
  Operation *createWorkOp(const workload::Invocation &invocation,
                          workload::Cadence cadence) {
    llvm::SmallVector<Value, 1> deps;
    if (previous)
      deps.push_back(previous);
    return buildWorkOp(builder, lineageLoc(invocation), invocation, cadence,
                       mesh, ranks, axesOf(builder, invocation),
                       DenseI64ArrayAttr(), deps);
  }

  /// The token of the last op of the output's producing phase that writes
  /// it (the forward terminal for the block output).
  Value lastWriter(const workload::BoundaryTensor &tensor) {
    Value producer;
    for (const auto &[phase, token] : writers.lookup(tensor.name))
      if (phase == workload::producingPhase(tensor.role))
        producer = token;
    return producer;
  }

  void createBoundary(const workload::BoundaryTensor &tensor, Value producer) {
    dist::BoundaryOp::create(
        builder, source->getLoc(), builder.getStringAttr(tensor.name),
        tensor.role, TypeAttr::get(dist::getBoundaryType(context, tensor)),
        dist::getBoundarySharding(context, mesh, workload::kTensorParallelAxis,
                                  tensor),
        ranks, producer);
  }

  Operation *source;
  OpBuilder &builder;
  MLIRContext *context;
  StringAttr name;
  // What every work op of the program shares.
  FlatSymbolRefAttr mesh = FlatSymbolRefAttr::get(context, kMeshName);
  DenseI64ArrayAttr ranks;
  Value previous;
  llvm::StringMap<llvm::SmallVector<std::pair<workload::Phase, Value>>> writers;
};

/// Builds the whole-run program of one training or inference op
/// (docs/WholeRun.md) from workload::deriveWholeRun or
/// workload::deriveInferenceRun: one template per model part and pass (per
/// decode step for inference), one stage op per pipeline stage.
class WholeRunBuilder {
public:
  WholeRunBuilder(Operation *source, OpBuilder &builder)
      : source(source), builder(builder), context(builder.getContext()),
        name(SymbolTable::getSymbolName(source)) {}

  /// `training` or `inference` is the source's workload contract.
  void build(const workload::WholeRun &run, transformer::ModelAttr model,
             transformer::TrainingAttr training,
             transformer::InferenceAttr inference,
             transformer::MappingAttr mapping) {
    Location loc = source->getLoc();
    auto program = dist::ProgramOp::create(
        builder, loc, name, builder.getStringAttr(computeDigest(source)), model,
        training, inference, IntegerAttr(), mapping);
    builder.setInsertionPointToStart(&program.getBody().emplaceBlock());
    // At ep > 1 the data-parallel ranks are edp x ep (createMesh adds ep).
    if (mapping.getEp() > 1)
      createMesh(builder, loc, kWholeRunMesh, mapping,
                 {{workload::kPipelineParallelAxis, mapping.getPp()},
                  {workload::kExpertDataParallelAxis,
                   mapping.getDp() / mapping.getEp()}});
    else
      createMesh(builder, loc, kWholeRunMesh, mapping,
                 {{workload::kPipelineParallelAxis, mapping.getPp()},
                  {workload::kDataParallelAxis, mapping.getDp()}});
    for (const workload::RunTemplate &runTemplate : run.templates)
      buildTemplate(runTemplate);
    for (const workload::StageProgram &stage : run.stages)
      buildStage(run, stage);
  }

private:
  void buildTemplate(const workload::RunTemplate &runTemplate) {
    OpBuilder::InsertionGuard guard(builder);
    auto templateOp = dist::TemplateOp::create(
        builder, source->getLoc(), runTemplate.name, runTemplate.part,
        runTemplate.pass,
        runTemplate.context ? builder.getI64IntegerAttr(*runTemplate.context)
                            : IntegerAttr());
    builder.setInsertionPointToStart(&templateOp.getBody().emplaceBlock());
    Value previous;
    for (const workload::Invocation &invocation :
         runTemplate.work.invocations) {
      llvm::SmallVector<Value, 1> deps;
      if (previous)
        deps.push_back(previous);
      previous = buildWorkOp(builder, workLineage(source, name, invocation),
                             invocation, runTemplate.work.cadence, mesh,
                             DenseI64ArrayAttr(), axesOf(builder, invocation),
                             DenseI64ArrayAttr(), deps)
                     ->getResult(0);
    }
  }

  /// `stage S chunk C micro_batch M blocks [F, E) <what>`, fused with the
  /// model source: where in the run an op of a stage belongs.
  Location placement(int64_t stage, const llvm::Twine &what) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "stage " << stage << " " << what;
    return FusedLoc::get(
        context, {NameLoc::get(builder.getStringAttr(text)), source->getLoc()});
  }

  void buildStage(const workload::WholeRun &run,
                  const workload::StageProgram &stage) {
    OpBuilder::InsertionGuard guard(builder);
    auto stageOp =
        dist::StageOp::create(builder, source->getLoc(), stage.stage);
    builder.setInsertionPointToStart(&stageOp.getBody().emplaceBlock());
    llvm::SmallVector<Value> tokens;
    for (const workload::RunStep &step : stage.steps) {
      llvm::SmallVector<Value, 2> deps;
      for (size_t dep : step.deps)
        deps.push_back(tokens[dep]);
      tokens.push_back(buildStep(run, stage.stage, step, deps));
    }
  }

  Value buildStep(const workload::WholeRun &run, int64_t stage,
                  const workload::RunStep &step, ValueRange deps) {
    if (const auto *instance =
            std::get_if<workload::RunInstance>(&step.action)) {
      const workload::RunTemplate &runTemplate =
          run.templates[instance->templateIndex];
      std::string what;
      llvm::raw_string_ostream os(what);
      os << "chunk " << instance->chunk;
      if (instance->microBatch)
        os << " micro_batch " << *instance->microBatch;
      if (instance->hasBlocks)
        os << " blocks [" << instance->firstBlock << ", " << instance->endBlock
           << ")";
      os << " " << runTemplate.name;
      return dist::InstanceOp::create(
          builder, placement(stage, what), token,
          FlatSymbolRefAttr::get(context, runTemplate.name), instance->chunk,
          instance->microBatch
              ? builder.getI64IntegerAttr(*instance->microBatch)
              : IntegerAttr(),
          instance->hasBlocks ? builder.getDenseI64ArrayAttr(
                                    {instance->firstBlock, instance->endBlock})
                              : DenseI64ArrayAttr(),
          deps);
    }
    if (const auto *message = std::get_if<workload::RunMessage>(&step.action)) {
      std::string what = (llvm::Twine("chunk ") + llvm::Twine(message->chunk) +
                          " micro_batch " + llvm::Twine(message->microBatch) +
                          " " + (message->send ? "send " : "recv ") +
                          workload::stringifyEnum(message->message))
                             .str();
      Location loc = placement(stage, what);
      if (message->send)
        return dist::SendOp::create(builder, loc, token, message->message,
                                    message->microBatch, message->chunk,
                                    message->peer, message->bytes, deps);
      return dist::RecvOp::create(builder, loc, token, message->message,
                                  message->microBatch, message->chunk,
                                  message->peer, message->bytes, deps);
    }
    const auto &work = std::get<workload::RunWork>(step.action);
    Location loc =
        FusedLoc::get(context, {placement(stage, work.invocation->primitive),
                                workLineage(source, name, *work.invocation)});
    DenseI64ArrayAttr group = work.group.empty()
                                  ? DenseI64ArrayAttr()
                                  : builder.getDenseI64ArrayAttr(work.group);
    Operation *op =
        buildWorkOp(builder, loc, *work.invocation, work.cadence, mesh,
                    DenseI64ArrayAttr(), axesOf(builder, work), group, deps);
    // A bucket ready inside the instance of its last dependency
    // (overlap_dp_grad_reduce, dist_stage_c4).
    if (step.readyBlocks)
      op->setAttr(kReadyBlocksAttr,
                  builder.getI64IntegerAttr(*step.readyBlocks));
    return op->getResult(0);
  }

  static constexpr llvm::StringLiteral kWholeRunMesh = "mesh";
  Operation *source;
  OpBuilder &builder;
  MLIRContext *context;
  StringAttr name;
  FlatSymbolRefAttr mesh = FlatSymbolRefAttr::get(context, kWholeRunMesh);
  Type token = dist::TokenType::get(context);
};

struct DistributeTransformerPass
    : blueprint::impl::DistributeTransformerBase<DistributeTransformerPass> {
  using DistributeTransformerBase::DistributeTransformerBase;

  void runOnOperation() override {
    if (scope != "block" && scope != "iteration") {
      getOperation().emitError()
          << "distribute-transformer: scope must be 'block' or 'iteration', "
             "got '"
          << scope << "'";
      return signalPassFailure();
    }
    // One-to-many expansion: collect first, then rewrite.
    llvm::SmallVector<Operation *> sources;
    for (Operation &op : getOperation().getBody()->getOperations())
      if (llvm::isa<transformer::DecoderTrainingOp,
                    transformer::DecoderInferenceOp>(op))
        sources.push_back(&op);
    for (Operation *source : sources) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(source)
              .Case([&](transformer::DecoderTrainingOp op) {
                if (scope == "iteration")
                  return distributeWholeRun(op);
                workload::WorkloadContract workload;
                workload.training = op.getTraining().getSpec();
                return distribute(op, op.getModel(), op.getTraining(), {},
                                  std::nullopt, op.getMapping(), workload);
              })
              .Case([&](transformer::DecoderInferenceOp op) -> LogicalResult {
                if (scope == "iteration")
                  return distributeInferenceRun(op);
                workload::WorkloadContract workload;
                workload.inference = op.getInference().getSpec();
                llvm::Expected<std::optional<int64_t>> decodeContext =
                    workload::defaultDecodeContext(*workload.inference);
                if (!decodeContext)
                  return op.emitOpError()
                         << "derivation: "
                         << llvm::toString(decodeContext.takeError());
                workload.decodeContext = *decodeContext;
                return distribute(op, op.getModel(), {}, op.getInference(),
                                  workload.decodeContext, op.getMapping(),
                                  workload);
              });
      if (failed(result))
        return signalPassFailure();
    }
  }

  LogicalResult distributeWholeRun(transformer::DecoderTrainingOp source) {
    llvm::Expected<workload::WholeRun> run = workload::deriveWholeRun(
        source.getModel().getSpec(), source.getTraining().getSpec(),
        source.getMapping().getSpec());
    if (!run)
      return source->emitOpError()
             << "derivation: " << llvm::toString(run.takeError());
    OpBuilder builder(source);
    WholeRunBuilder(source, builder)
        .build(*run, source.getModel(), source.getTraining(),
               transformer::InferenceAttr(), source.getMapping());
    source->erase();
    return success();
  }

  /// The whole generation of an inference op (docs/WholeRun.md, "Inference
  /// runs").
  LogicalResult distributeInferenceRun(transformer::DecoderInferenceOp source) {
    llvm::Expected<workload::WholeRun> run = workload::deriveInferenceRun(
        source.getModel().getSpec(), source.getInference().getSpec(),
        source.getMapping().getSpec());
    if (!run)
      return source->emitOpError()
             << "derivation: " << llvm::toString(run.takeError());
    OpBuilder builder(source);
    WholeRunBuilder(source, builder)
        .build(*run, source.getModel(), transformer::TrainingAttr(),
               source.getInference(), source.getMapping());
    source->erase();
    return success();
  }

  LogicalResult distribute(Operation *source, transformer::ModelAttr model,
                           transformer::TrainingAttr training,
                           transformer::InferenceAttr inference,
                           std::optional<int64_t> decodeContext,
                           transformer::MappingAttr mapping,
                           const workload::WorkloadContract &workload) {
    llvm::Expected<std::vector<workload::BlockWork>> blocks =
        workload::deriveProgramWork(model.getSpec(), mapping.getSpec(),
                                    workload);
    if (!blocks)
      return source->emitOpError()
             << "derivation: " << llvm::toString(blocks.takeError());
    llvm::Expected<std::vector<workload::BoundaryTensor>> boundaries =
        workload::programBoundaries(model.getSpec(), mapping.getSpec(),
                                    workload);
    if (!boundaries)
      return source->emitOpError()
             << "derivation: " << llvm::toString(boundaries.takeError());

    OpBuilder builder(source);
    ProgramBuilder(source, builder)
        .build(model, training, inference, decodeContext, mapping, *blocks,
               *boundaries);
    source->erase();
    return success();
  }
};

} // namespace
