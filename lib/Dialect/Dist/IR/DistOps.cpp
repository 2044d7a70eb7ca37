//===- DistOps.cpp - DistributedTaskIR operations and their rules ---------===//
//
// The verifier rules of docs/DistSpec.md; each diagnostic starts with the
// rule's label.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Interfaces/TensorBytes.h"
#include "Blueprint/Interfaces/WholeRunRules.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace blueprint;
using namespace blueprint::dist;

//===----------------------------------------------------------------------===//
// Shared rule helpers
//===----------------------------------------------------------------------===//

/// The mesh `ref` names in the program enclosing `op`, or null. Ops verify
/// in program order, so the mesh may not have been verified yet: a mesh
/// that breaks dist_mesh_c1 is returned as null too (its own diagnostic
/// names the problem), so callers can multiply and divide by axis sizes.
static MeshOp lookupMesh(Operation *op, FlatSymbolRefAttr ref) {
  auto program = op->getParentOfType<ProgramOp>();
  if (!program || !ref)
    return nullptr;
  auto mesh = llvm::dyn_cast_or_null<MeshOp>(
      SymbolTable::lookupSymbolIn(program, ref.getAttr()));
  if (!mesh || mesh.getAxes().size() != mesh.getShape().size() ||
      llvm::any_of(mesh.getShape(), [](int64_t size) { return size <= 0; }) ||
      mesh.getNumRanks() == 0)
    return nullptr;
  return mesh;
}

/// `ranks` must be distinct ranks of `mesh` in increasing order.
static LogicalResult verifyRankGroup(Operation *op,
                                     std::optional<ArrayRef<int64_t>> ranks,
                                     MeshOp mesh, StringRef rule,
                                     StringRef field) {
  if (!ranks)
    return success();
  int64_t numRanks = mesh.getNumRanks();
  int64_t previous = -1;
  for (int64_t rank : *ranks) {
    if (rank < 0 || rank >= numRanks)
      return op->emitOpError()
             << rule << ": " << field << " names rank " << rank
             << ", which is not a rank of mesh @" << mesh.getSymName()
             << " (ranks 0.." << numRanks - 1 << ")";
    if (rank <= previous)
      return op->emitOpError() << rule << ": " << field
                               << " must list distinct ranks in increasing "
                                  "order, got "
                               << rank << " after " << previous;
    previous = rank;
  }
  return success();
}

/// Every dependency is the token of an op of the same region: the program
/// body, a template or a stage (tokens never cross a stage: messages do).
static LogicalResult verifyDependencies(Operation *op, OperandRange deps,
                                        StringRef rule) {
  for (Value dep : deps) {
    Operation *producer = dep.getDefiningOp();
    if (!producer ||
        !llvm::isa<WorkFactsOpInterface, InstanceOp, SendOp, RecvOp>(
            producer) ||
        producer->getParentRegion() != op->getParentRegion())
      return op->emitOpError()
             << rule
             << ": every dependency must be the token of an op of the same "
                "program, template or stage";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  if (!isWellFormedDigest(getSourceDigest()))
    return emitOpError() << "dist_program_c1: source_digest must be "
                            "'sha256:' followed by 64 lowercase hex digits, "
                            "got '"
                         << getSourceDigest() << "'";
  // The composition first: the decode-context rule of dist_program_c3 computes
  // with the inference contract's lengths, which dist_program_c4 bounds.
  if (failed(transformer::verifyProgramRun(
          *this, getModel(), getMapping(), getTrainingAttr(),
          getInferenceAttr(), "dist_program_c4")))
    return failure();
  // A whole-run inference program holds every step of the generation.
  if (isWholeRun(*this) && getInferenceAttr() && !getTrainingAttr()) {
    if (getDecodeContext())
      return emitOpError() << "dist_program_c3: a whole-run inference program "
                              "holds every step of the generation, so it "
                              "has no decode_context";
    return success();
  }
  if (std::optional<std::string> violation =
          transformer::workloadContractViolation(
              getTrainingAttr(), getInferenceAttr(), getDecodeContext()))
    return emitOpError() << "dist_program_c3: " << *violation;
  return success();
}

//===----------------------------------------------------------------------===//
// The whole run
//===----------------------------------------------------------------------===//

namespace {
/// Dense channel keys for workload::findDeadlock: one per message (what it
/// carries, micro-batch, chunk), so a token and an activation of the same
/// step and chunk are different channels.
class Channels {
public:
  template <typename MessageOpT> int64_t of(MessageOpT op) {
    std::tuple<int, int64_t, int64_t> key{static_cast<int>(op.getMessage()),
                                          op.getMicroBatch(), op.getChunk()};
    int64_t next = static_cast<int64_t>(ids.size());
    return ids.try_emplace(key, next).first->second;
  }

private:
  std::map<std::tuple<int, int64_t, int64_t>, int64_t> ids;
};
} // namespace

static LogicalResult verifyInferenceOrder(ProgramOp program,
                                          const workload::RunShape &shape,
                                          llvm::ArrayRef<StageOp> stages);

/// The first instance of each slot of `stage`'s block instances
/// (dist_program_c8: a slot's instances run every block of its chunk).
static FailureOr<llvm::SmallVector<InstanceOp>>
blockSlotsOf(StageOp stage, const workload::PipelineLayout &layout) {
  return blockSlotsOf<InstanceOp>(
      stage.getBody().front(), layout,
      [](InstanceOp instance) { return instance.lookupTemplate(); },
      "dist_program_c8");
}

/// dist_program_c5 .. c9 (docs/WholeRun.md): a program with stages holds
/// its whole run and nothing of block scope; its messages pair up; its
/// stages do not deadlock; each stage's order is well formed and the one
/// its schedule generates.
static LogicalResult verifyWholeRun(ProgramOp program) {
  Block &body = program.getBody().front();
  llvm::SmallVector<StageOp> stages(body.getOps<StageOp>());
  if (stages.empty() && body.getOps<TemplateOp>().empty())
    return success();
  for (Operation &op : body)
    if (!llvm::isa<MeshOp, TemplateOp, StageOp>(op))
      return op.emitOpError()
             << "dist_program_c5: a whole-run program holds meshes, "
                "templates and stages only, not block-scope work or "
                "boundaries";
  const std::optional<workload::RunShape> &shape =
      enclosingRunShape<ProgramOp>(program);
  if (!shape)
    return program.emitOpError()
           << "dist_program_c5: a whole-run program describes a training "
              "or inference run";
  const workload::PipelineLayout &layout = shape->layout;
  llvm::SmallVector<StageOp> byIndex(layout.stages);
  for (StageOp stage : stages) {
    // dist_stage_c1 bounds the index.
    StageOp &slot = byIndex[stage.getIndex()];
    if (slot)
      return stage.emitOpError() << "dist_program_c5: stage "
                                 << stage.getIndex() << " appears twice";
    slot = stage;
  }
  for (auto [index, stage] : llvm::enumerate(byIndex))
    if (!stage)
      return program.emitOpError() << "dist_program_c5: pipeline stage "
                                   << index << " has no dist.stage";

  // dist_program_c6: messages pair up, by (message, micro-batch, chunk).
  llvm::SmallVector<Block *> stageBodies;
  for (StageOp stage : byIndex)
    stageBodies.push_back(&stage.getBody().front());
  if (failed(
          verifyMessagePairs<SendOp, RecvOp>(stageBodies, "dist_program_c6")))
    return failure();

  // dist_program_c7: the stages run to completion. Only messages make a
  // stage wait, so they are the progress steps.
  std::vector<std::vector<workload::ProgressStep>> progress(layout.stages);
  std::vector<std::vector<Operation *>> stepOps(layout.stages);
  Channels channels;
  for (auto [index, stage] : llvm::enumerate(byIndex))
    for (Operation &op : stage.getBody().front()) {
      workload::ProgressStep step;
      if (auto send = llvm::dyn_cast<SendOp>(op))
        step.signals.push_back(channels.of(send));
      else if (auto recv = llvm::dyn_cast<RecvOp>(op))
        step.waits.push_back(channels.of(recv));
      else
        continue;
      progress[index].push_back(step);
      stepOps[index].push_back(&op);
    }
  if (std::optional<workload::Deadlock> deadlock =
          workload::findDeadlock(progress)) {
    InFlightDiagnostic diagnostic =
        program.emitOpError()
        << "dist_program_c7: the stages deadlock through their messages:";
    for (const workload::Deadlock::Blocked &blocked : deadlock->blocked) {
      auto recv = llvm::cast<RecvOp>(stepOps[blocked.stage][blocked.step]);
      diagnostic << " stage " << blocked.stage << " waits for the "
                 << workload::describeMessage(recv.getMessage(),
                                              recv.getMicroBatch(),
                                              recv.getChunk())
                 << " from stage " << recv.getPeer() << ";";
      diagnostic.attachNote(recv.getLoc())
          << "stage " << blocked.stage << " is blocked here";
    }
    return diagnostic;
  }

  // dist_program_c8 and c9: the order of each stage's block passes.
  if (shape->inference())
    return verifyInferenceOrder(program, *shape, byIndex);
  std::vector<workload::StageOrder> orders(layout.stages);
  std::vector<std::vector<InstanceOp>> slotOps(layout.stages);
  for (auto [index, stage] : llvm::enumerate(byIndex)) {
    FailureOr<llvm::SmallVector<InstanceOp>> slots =
        blockSlotsOf(stage, layout);
    if (failed(slots))
      return failure();
    for (InstanceOp instance : *slots) {
      auto templateOp = instance.lookupTemplate();
      if (templateOp.getPass() == workload::PipelinePass::Step)
        continue;
      orders[index].push_back({instance.getMicroBatchAttr().getInt(),
                               layout.virtualIndexOf(instance.getChunk()),
                               templateOp.getPass()});
      slotOps[index].push_back(instance);
    }
  }
  for (const workload::RuleViolation &violation : workload::checkStageOrders(
           shape->schedule, layout.stages, layout.virtualStages,
           shape->microbatches, orders))
    return program.emitOpError() << "dist_program_c8: " << violation.rule
                                 << ": " << violation.message;
  std::vector<workload::StageOrder> expected =
      workload::generateStageOrders(shape->schedule, layout.stages,
                                    layout.virtualStages, shape->microbatches);
  for (int64_t stage = 0; stage < layout.stages; ++stage)
    for (auto [slot, entry] : llvm::enumerate(orders[stage]))
      if (!(entry == expected[stage][slot]))
        return slotOps[stage][slot].emitOpError()
               << "dist_program_c9: stage " << stage << " slot " << slot
               << " runs the " << workload::stringifyEnum(entry.pass)
               << " of micro-batch " << entry.microBatch << ", virtual chunk "
               << entry.virtualIndex << ", but schedule "
               << workload::stringifyEnum(shape->schedule) << " runs the "
               << workload::stringifyEnum(expected[stage][slot].pass)
               << " of micro-batch " << expected[stage][slot].microBatch
               << ", virtual chunk " << expected[stage][slot].virtualIndex;
  return success();
}

/// dist_program_c8 and c9 of an inference run: each stage's block instances
/// are the prefill (step 0), then the decode steps 1 .. generated_tokens - 1
/// in order, each of the decode template at context prompt_length + step.
static LogicalResult verifyInferenceOrder(ProgramOp program,
                                          const workload::RunShape &shape,
                                          llvm::ArrayRef<StageOp> stages) {
  for (StageOp stage : stages) {
    FailureOr<llvm::SmallVector<InstanceOp>> slots =
        blockSlotsOf(stage, shape.layout);
    if (failed(slots))
      return failure();
    llvm::SmallPtrSet<Operation *, 16> starts;
    for (InstanceOp start : *slots)
      starts.insert(start);
    int64_t steps = 0;
    for (InstanceOp instance : stage.getBody().getOps<InstanceOp>()) {
      auto templateOp = instance.lookupTemplate();
      workload::PipelinePass pass = templateOp.getPass();
      // The next segment of the current step's blocks, or the next step.
      bool continues = templateOp.getPart() == workload::ModelPart::Block &&
                       !starts.contains(instance);
      int64_t slot = continues ? steps - 1 : steps;
      if (templateOp.getPart() != workload::ModelPart::Block ||
          (pass != workload::PipelinePass::Prefill &&
           pass != workload::PipelinePass::Decode))
        return instance.emitOpError()
               << "dist_program_c8: an inference run's stages run block "
                  "prefill and decode instances only, not a "
               << workload::stringifyEnum(templateOp.getPart()) << " "
               << workload::stringifyEnum(pass);
      if (slot == shape.microbatches)
        return instance.emitOpError()
               << "dist_program_c8: stage " << stage.getIndex()
               << " runs more than the generation's " << shape.microbatches
               << " steps";
      // dist_instance_c2 gave the instance its step.
      int64_t step = instance.getMicroBatchAttr().getInt();
      workload::PipelinePass expected = slot == 0
                                            ? workload::PipelinePass::Prefill
                                            : workload::PipelinePass::Decode;
      if (step != slot || pass != expected)
        return instance.emitOpError()
               << "dist_program_c9: stage " << stage.getIndex() << " slot "
               << slot << " runs the " << workload::stringifyEnum(pass)
               << " of step " << step << ", but the generation runs the "
               << workload::stringifyEnum(expected) << " of step " << slot;
      int64_t context = *shape.promptLength + step;
      if (pass == workload::PipelinePass::Decode &&
          templateOp.getContextLength() != context)
        return instance.emitOpError()
               << "dist_program_c9: decode step " << step << " runs at context "
               << context << " (prompt_length + step), but template @"
               << templateOp.getSymName() << " is the decode step at context "
               << *templateOp.getContextLength();
      if (!continues)
        ++steps;
    }
    if (steps != shape.microbatches)
      return stage.emitOpError()
             << "dist_program_c8: stage " << stage.getIndex() << " runs "
             << steps << " steps of the generation, which has "
             << shape.microbatches << " (the prefill and "
             << shape.microbatches - 1 << " decode steps)";
  }
  (void)program;
  return success();
}

/// dist_boundary_c4 for inputs: some work of `program` reads each input
/// boundary (a KV cache, state the work appends to and reads, may be
/// written instead).
static LogicalResult verifyInputsAreUsed(ProgramOp program) {
  llvm::DenseSet<StringAttr> read, written;
  for (Operation &op : program.getBody().front())
    if (auto work = llvm::dyn_cast<WorkFactsOpInterface>(op)) {
      for (const TensorBytes &entry : work.getReads())
        read.insert(entry.tensor);
      for (const TensorBytes &entry : work.getWrites())
        written.insert(entry.tensor);
    }
  for (BoundaryOp boundary : program.getBody().getOps<BoundaryOp>()) {
    if (workload::producingPhase(boundary.getRole()))
      continue;
    bool kvCache = boundary.getRole() == workload::BoundaryRole::KVCache;
    StringAttr name = boundary.getSymNameAttr();
    if (!read.contains(name) && !(kvCache && written.contains(name)))
      return boundary.emitOpError()
             << "dist_boundary_c4: no work of the program "
             << (kvCache ? "reads or writes" : "reads") << " input '"
             << name.getValue() << "'";
  }
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  if (failed(verifyInputsAreUsed(*this)) || failed(verifyWholeRun(*this)))
    return failure();
  workload::MappingSpec mapping = getMapping().getSpec();
  for (MeshOp mesh : getBody().getOps<MeshOp>()) {
    for (auto [axis, size] : llvm::zip(
             mesh.getAxes().getAsValueRange<StringAttr>(), mesh.getShape())) {
      // Megatron-Core's expert grid: at ep > 1 the data-parallel ranks are
      // edp x ep (docs/DistSpec.md, "The ep and edp mesh axes").
      bool expertAxis = axis == workload::kExpertDataParallelAxis ||
                        axis == workload::kExpertParallelAxis;
      if (mapping.ep > 1 && axis == workload::kDataParallelAxis)
        return mesh.emitOpError()
               << "dist_program_c10: at ep = " << mapping.ep
               << " the data-parallel ranks are the axes 'edp' x 'ep' (edp "
                  "= dp / ep = "
               << mapping.dp / mapping.ep << "), not 'dp'";
      if (mapping.ep == 1 && expertAxis)
        return mesh.emitOpError()
               << "dist_program_c10: axis '" << axis
               << "' splits the data-parallel ranks at ep > 1; the mapping "
                  "has ep = 1, whose mesh names 'dp'";
      std::optional<int64_t> degree = mapping.axisDegree(axis);
      if (!degree)
        return mesh.emitOpError()
               << "dist_program_c2: axis '" << axis
               << "' is not a parallelism of the mapping (tp, pp, dp, cp, "
                  "edp or ep)";
      if (*degree != size)
        return mesh.emitOpError()
               << "dist_program_c2: axis '" << axis << "' has " << size
               << " ranks but the mapping says " << axis << " = " << *degree;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  if (getAxes().empty() || getAxes().size() != getShape().size())
    return emitOpError() << "dist_mesh_c1: axes and shape must have the same "
                            "non-zero length, got "
                         << getAxes().size() << " axes and "
                         << getShape().size() << " sizes";
  llvm::StringSet<> names;
  for (auto [axis, size] :
       llvm::zip(getAxes().getAsValueRange<StringAttr>(), getShape())) {
    if (size <= 0)
      return emitOpError() << "dist_mesh_c1: axis '" << axis
                           << "' must have a positive size, got " << size;
    if (!names.insert(axis).second)
      return emitOpError() << "dist_mesh_c1: axis '" << axis
                           << "' is named twice";
  }
  if (getNumRanks() == 0)
    return emitOpError() << "dist_mesh_c1: the number of ranks overflows a "
                            "64-bit integer";
  return success();
}

int64_t MeshOp::getNumRanks() {
  int64_t ranks = 1;
  for (int64_t size : getShape()) {
    std::optional<int64_t> product = llvm::checkedMul(ranks, size);
    if (!product)
      return 0;
    ranks = *product;
  }
  return ranks;
}

std::optional<int64_t> MeshOp::getAxisSize(StringRef axis) {
  for (auto [name, size] :
       llvm::zip(getAxes().getAsValueRange<StringAttr>(), getShape()))
    if (name == axis)
      return size;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// BoundaryOp
//===----------------------------------------------------------------------===//

LogicalResult BoundaryOp::verify() {
  // dist_boundary_c5: a value of the work algebra has one of its datatypes.
  Type elementType = llvm::cast<RankedTensorType>(getType()).getElementType();
  if (!getDataType(elementType))
    return emitOpError() << "dist_boundary_c5: element type " << elementType
                         << " is not a datatype of the work algebra (f32, "
                            "bf16, f16, f8E4M3FN)";
  ShardingAttr sharding = getSharding();
  MeshOp mesh = lookupMesh(*this, sharding.getMesh());
  if (!mesh)
    return emitOpError() << "dist_boundary_c1: sharding mesh "
                         << sharding.getMesh()
                         << " does not name a valid dist.mesh of the program";
  auto type = llvm::cast<RankedTensorType>(getType());
  ArrayAttr splitAxes = sharding.getSplitAxes();
  if (static_cast<int64_t>(splitAxes.size()) > type.getRank())
    return emitOpError() << "dist_boundary_c1: sharding lists "
                         << splitAxes.size() << " dimensions but the tensor "
                         << type << " has rank " << type.getRank();
  llvm::StringSet<> used;
  for (auto [dim, axesOfDim] : llvm::enumerate(splitAxes)) {
    auto axes = llvm::dyn_cast<ArrayAttr>(axesOfDim);
    if (!axes || !llvm::all_of(axes, llvm::IsaPred<StringAttr>))
      return emitOpError() << "dist_boundary_c1: dimension " << dim
                           << " of the sharding must be a list of axis names";
    int64_t ways = 1;
    for (StringRef axis : axes.getAsValueRange<StringAttr>()) {
      std::optional<int64_t> size = mesh.getAxisSize(axis);
      if (!size)
        return emitOpError() << "dist_boundary_c1: mesh @" << mesh.getSymName()
                             << " has no axis '" << axis << "'";
      if (!used.insert(axis).second)
        return emitOpError() << "dist_boundary_c1: axis '" << axis
                             << "' splits more than one dimension";
      ways *= *size; // bounded by the mesh's rank count, checked by its rule
    }
    if (type.getDimSize(dim) % ways != 0)
      return emitOpError() << "dist_boundary_c1: dimension " << dim
                           << " of size " << type.getDimSize(dim)
                           << " is not divisible into " << ways << " shards";
  }
  if (failed(verifyRankGroup(*this, getOwners(), mesh, "dist_boundary_c2",
                             "owners")))
    return failure();

  std::optional<workload::Phase> phase = workload::producingPhase(getRole());
  Value producer = getProducer();
  if (!phase) {
    if (producer)
      return emitOpError() << "dist_boundary_c3: input '"
                           << workload::stringifyEnum(getRole())
                           << "' cannot have a producer";
    // Whether some work reads the input (dist_boundary_c4) is checked by
    // the program, in one pass over its work.
    return success();
  }
  auto work = producer ? producer.getDefiningOp<WorkFactsOpInterface>()
                       : WorkFactsOpInterface();
  if (!work)
    return emitOpError() << "dist_boundary_c3: output '"
                         << workload::stringifyEnum(getRole())
                         << "' must be produced_by the token of a work op";
  if (work.getPhase() != *phase)
    return emitOpError() << "dist_boundary_c3: output '"
                         << workload::stringifyEnum(getRole())
                         << "' must be produced by "
                         << workload::stringifyEnum(*phase) << " work, not by "
                         << work.getPrimitive() << " ("
                         << workload::stringifyEnum(work.getPhase()) << ")";
  if (!findTensor(work.getWrites(), getSymName()))
    return emitOpError() << "dist_boundary_c4: producer " << work.getPrimitive()
                         << " does not write '" << getSymName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Work ops
//===----------------------------------------------------------------------===//

/// dist_work_c1 .. dist_work_c5; returns the mesh for the op's own rules.
static FailureOr<MeshOp> verifyWork(WorkFactsOpInterface work,
                                    FlatSymbolRefAttr meshRef,
                                    std::optional<ArrayRef<int64_t>> ranks,
                                    OperandRange deps) {
  Operation *op = work;
  MeshOp mesh = lookupMesh(op, meshRef);
  if (!mesh)
    return op->emitOpError() << "dist_work_c1: " << meshRef
                             << " does not name a valid dist.mesh of the "
                                "program";
  if (failed(verifyRankGroup(op, ranks, mesh, "dist_work_c2", "ranks")))
    return failure();
  if (work.getOps() < 0)
    return op->emitOpError()
           << "dist_work_c3: ops must be non-negative, got " << work.getOps();
  auto emit = [&]() { return op->emitOpError() << "dist_work_c3: "; };
  if (failed(verifyTensorBytes(work.getReads(), "read bytes", emit)) ||
      failed(verifyTensorBytes(work.getWrites(), "write bytes", emit)) ||
      failed(verifyTensorBytes(work.getStashed(), "stash bytes", emit)))
    return failure();
  if (failed(verifyDependencies(op, deps, "dist_work_c4")))
    return failure();
  if (!work.getStashed().empty() && work.getPhase() != workload::Phase::Forward)
    return op->emitOpError()
           << "dist_work_c5: only forward work stashes, but "
           << work.getPrimitive() << " ("
           << workload::stringifyEnum(work.getPhase()) << ") stashes "
           << work.getStashed().size() << " tensors";
  return mesh;
}

LogicalResult TaskOp::verify() {
  if (failed(verifyWork(*this, getMeshAttr(), getRanks(), getDeps())))
    return failure();
  if (getEngine() == workload::Engine::Collective)
    return emitOpError() << "dist_task_c1: a task runs on a matmul or vector "
                            "engine; collectives are dist.all_reduce, "
                            "dist.reduce_scatter and dist.all_gather";
  if (std::optional<std::string> violation = gemmViolation(*this))
    return emitOpError() << "dist_task_c2: " << *violation;
  return success();
}

workload::Engine TaskOp::getWorkEngine() { return getEngine(); }

std::optional<workload::CollectiveFacts> TaskOp::getCollectiveFacts() {
  return std::nullopt;
}

ArrayRef<int64_t> TaskOp::getGemmExtents() {
  return getGemm().value_or(ArrayRef<int64_t>());
}

/// dist_collective_c5: `ranks`, when given, run the collective in whole
/// groups: with every rank, each rank that differs from it only along the
/// collective's axes (its group of `participants` ranks) is listed too.
static LogicalResult verifyWholeGroups(Operation *op,
                                       std::optional<ArrayRef<int64_t>> ranks,
                                       MeshOp mesh, ArrayAttr axes,
                                       int64_t participants) {
  if (!ranks)
    return success();
  // A rank's group is named by its row-major coordinates with those along
  // the collective's axes set to 0; each group must appear `participants`
  // times. Sizes are bounded by the mesh's checked rank count.
  llvm::SmallVector<bool> collectiveAxis;
  for (StringRef axis : mesh.getAxes().getAsValueRange<StringAttr>())
    collectiveAxis.push_back(
        llvm::is_contained(axes.getAsValueRange<StringAttr>(), axis));
  auto groupOf = [&](int64_t rank) {
    int64_t group = 0, stride = 1, rest = rank;
    for (size_t dim = mesh.getShape().size(); dim-- > 0;) {
      int64_t size = mesh.getShape()[dim];
      if (!collectiveAxis[dim])
        group += (rest % size) * stride;
      rest /= size;
      stride *= size;
    }
    return group;
  };
  llvm::DenseMap<int64_t, int64_t> membersOfGroup;
  for (int64_t rank : *ranks)
    ++membersOfGroup[groupOf(rank)];
  // Reported for the first listed rank whose group is incomplete.
  for (int64_t rank : *ranks) {
    int64_t members = membersOfGroup.lookup(groupOf(rank));
    if (members != participants)
      return op->emitOpError()
             << "dist_collective_c5: ranks must run the collective in whole "
                "groups of "
             << participants << " participants along axes " << axes
             << ", but of the group of rank " << rank << " only " << members
             << " listed";
  }
  return success();
}

/// dist_collective_c1 .. c8 on top of the work rules.
template <typename CollectiveOpT>
static LogicalResult verifyCollective(CollectiveOpT op) {
  FailureOr<MeshOp> mesh =
      verifyWork(op, op.getMeshAttr(), op.getRanks(), op.getDeps());
  if (failed(mesh))
    return failure();
  ArrayAttr axes = op.getMeshAxes();
  if (axes.empty())
    return op.emitOpError() << "dist_collective_c1: axes must name at least "
                               "one mesh axis";
  llvm::StringSet<> seen;
  int64_t participants = 1;
  for (StringRef axis : axes.getAsValueRange<StringAttr>()) {
    std::optional<int64_t> size = mesh->getAxisSize(axis);
    if (!size)
      return op.emitOpError()
             << "dist_collective_c1: mesh @" << mesh->getSymName()
             << " has no axis '" << axis << "'";
    if (!seen.insert(axis).second)
      return op.emitOpError()
             << "dist_collective_c1: axis '" << axis << "' is named twice";
    participants *= *size; // bounded by the mesh's checked rank count
  }
  if (std::optional<ArrayRef<int64_t>> group = op.getGroup()) {
    if (axes.size() != 1 || group->size() < 2)
      return op.emitOpError() << "dist_collective_c7: a group names at least "
                                 "two positions along a single axis";
    int64_t previous = -1;
    for (int64_t position : *group) {
      if (position <= previous || position >= participants)
        return op.emitOpError()
               << "dist_collective_c7: group positions must be distinct "
                  "positions of axis "
               << axes[0] << " (0.." << participants - 1
               << ") in increasing order, got " << position;
      previous = position;
    }
    if (op.getRanks())
      return op.emitOpError() << "dist_collective_c7: a group collective "
                                 "lists no ranks: the group names them";
    // In a stage, the pipeline group must hold the stage itself.
    auto stage = llvm::dyn_cast<StageOp>(op->getParentOp());
    if (stage &&
        llvm::cast<StringAttr>(axes[0]).getValue() ==
            workload::kPipelineParallelAxis &&
        !llvm::is_contained(*group, stage.getIndex()))
      return op.emitOpError()
             << "dist_collective_c7: stage " << stage.getIndex()
             << " is not a position of the group";
    participants = static_cast<int64_t>(group->size());
  }
  int64_t declared = op.getParticipants();
  if (declared != participants)
    return op.emitOpError()
           << "dist_collective_c2: participants = " << declared << " but axes "
           << axes << " span " << participants << " ranks";
  workload::CollectiveFacts facts = *op.getCollectiveFacts();
  if (workload::collectiveReduces(facts.kind) &&
      facts.reduction == workload::ReductionKind::None)
    return op.emitOpError()
           << "dist_collective_c3: a " << workload::stringifyEnum(facts.kind)
           << " must reduce (reduction = sum or max)";
  if (facts.messageBytes < 0)
    return op.emitOpError() << "dist_collective_c4: message bytes must be "
                               "non-negative, got "
                            << facts.messageBytes;
  if (facts.messageBytes % participants != 0)
    return op.emitOpError()
           << "dist_collective_c4: message bytes " << facts.messageBytes
           << " are not divisible by participants = " << participants;
  if (failed(verifyWholeGroups(op, op.getRanks(), *mesh, axes, participants)))
    return failure();
  // Byte sums fit: dist_work_c3 checked them.
  llvm::Expected<workload::InvocationFigures> figures = figuresOf(op);
  if (!figures)
    return op.emitOpError()
           << "dist_work_c3: " << llvm::toString(figures.takeError());
  if (std::optional<std::string> violation = workload::collectiveBytesViolation(
          facts, figures->readBytes, figures->writeBytes))
    return op.emitOpError() << "dist_collective_c6: " << *violation;
  // A collective that only moves data performs no arithmetic.
  if (!workload::collectiveReduces(facts.kind) && figures->ops != 0)
    return op.emitOpError()
           << "dist_collective_c8: " << workload::stringifyEnum(facts.kind)
           << " does not reduce: ops must be 0, got " << figures->ops;
  return verifyReadyBlocksInStage(
      *op.getOperation(), llvm::isa_and_present<StageOp>(op->getParentOp()),
      "dist_stage_c4");
}

/// The collective facts of an op (all-gather has no reduction operand).
template <typename CollectiveOpT>
static workload::CollectiveFacts collectiveFactsOf(CollectiveOpT op) {
  workload::CollectiveFacts facts;
  facts.kind = CollectiveOpT::kKind;
  if constexpr (std::is_same_v<CollectiveOpT, AllGatherOp> ||
                std::is_same_v<CollectiveOpT, AllToAllOp>)
    facts.reduction = workload::ReductionKind::None;
  else
    facts.reduction = op.getReduction();
  facts.participants = op.getParticipants();
  facts.messageBytes = op.getMessageBytes();
  facts.pointToPoint = op.getPointToPoint();
  // The op's axes, outermost first (dist_collective_c1: at least one).
  auto axes = op.getMeshAxes().template getAsValueRange<StringAttr>();
  if (!axes.empty()) {
    facts.axis = (*axes.begin()).str();
    for (StringRef inner : llvm::drop_begin(axes))
      facts.innerAxes.push_back(inner.str());
  }
  return facts;
}

#define DEFINE_COLLECTIVE(OpT)                                                 \
  LogicalResult OpT::verify() { return verifyCollective(*this); }              \
  workload::Engine OpT::getWorkEngine() {                                      \
    return workload::Engine::Collective;                                       \
  }                                                                            \
  std::optional<workload::CollectiveFacts> OpT::getCollectiveFacts() {         \
    return collectiveFactsOf(*this);                                           \
  }                                                                            \
  ArrayRef<int64_t> OpT::getGemmExtents() { return {}; }
DEFINE_COLLECTIVE(AllReduceOp)
DEFINE_COLLECTIVE(ReduceScatterOp)
DEFINE_COLLECTIVE(AllGatherOp)
DEFINE_COLLECTIVE(AllToAllOp)
#undef DEFINE_COLLECTIVE

//===----------------------------------------------------------------------===//
// TemplateOp, StageOp, InstanceOp, SendOp, RecvOp
//===----------------------------------------------------------------------===//

workload::Cadence TemplateOp::getCadence() {
  switch (getPass()) {
  case workload::PipelinePass::Step:
    return workload::Cadence::PerIteration;
  case workload::PipelinePass::Prefill:
    return workload::Cadence::PerGeneration;
  case workload::PipelinePass::Decode:
    return workload::Cadence::PerDecodeStep;
  default:
    return workload::Cadence::PerMicroBatch;
  }
}

/// Whether work of `phase` belongs to a template of `pass`
/// (dist_template_c2).
static bool belongsToPass(workload::Phase phase, workload::PipelinePass pass) {
  using workload::Phase;
  switch (pass) {
  case workload::PipelinePass::Forward:
    return phase == Phase::Forward;
  case workload::PipelinePass::Backward:
    return phase == Phase::Recompute || phase == Phase::ActivationGrad ||
           phase == Phase::WeightGrad || phase == Phase::Recommunication;
  case workload::PipelinePass::InputGrad:
    return phase == Phase::Recompute || phase == Phase::ActivationGrad ||
           phase == Phase::Recommunication;
  case workload::PipelinePass::WeightGrad:
    return phase == Phase::WeightGrad || phase == Phase::Recommunication;
  case workload::PipelinePass::Step:
    return phase == Phase::Optimizer || phase == Phase::WeightGrad;
  case workload::PipelinePass::Prefill:
    return phase == Phase::Prefill;
  case workload::PipelinePass::Decode:
    return phase == Phase::Decode;
  }
  llvm_unreachable("unknown PipelinePass");
}

LogicalResult TemplateOp::verify() {
  bool decode = getPass() == workload::PipelinePass::Decode;
  std::optional<int64_t> context = getContextLength();
  if (decode && (!context || *context < 1))
    return emitOpError() << "dist_template_c4: decode template @"
                         << getSymName()
                         << " states its positive context length";
  if (!decode && context)
    return emitOpError() << "dist_template_c4: only a decode template has a "
                            "context, not a "
                         << workload::stringifyEnum(getPass()) << " template";
  return success();
}

LogicalResult TemplateOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.empty())
    return emitOpError() << "dist_template_c3: a template holds at least one "
                            "work op";
  for (Operation &op : body) {
    auto work = llvm::dyn_cast<WorkFactsOpInterface>(op);
    if (!work)
      return op.emitOpError() << "dist_template_c3: a template holds work "
                                 "ops only";
    if (work.getCadence() != getCadence())
      return op.emitOpError()
             << "dist_template_c1: " << work.getPrimitive() << " is "
             << workload::stringifyEnum(work.getCadence())
             << " work but template @" << getSymName() << " ("
             << workload::stringifyEnum(getPass()) << ") runs "
             << workload::stringifyEnum(getCadence());
    if (!belongsToPass(work.getPhase(), getPass()))
      return op.emitOpError()
             << "dist_template_c2: " << work.getPrimitive() << " ("
             << workload::stringifyEnum(work.getPhase())
             << ") does not belong to a " << workload::stringifyEnum(getPass())
             << " template";
  }
  return success();
}

LogicalResult StageOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  int64_t stages = program.getMapping().getPp();
  if (getIndex() < 0 || getIndex() >= stages)
    return emitOpError() << "dist_stage_c1: index " << getIndex()
                         << " is not a pipeline stage (pp = " << stages << ")";
  return success();
}

/// dist_stage_c3: with a sharded optimizer, the stage's own optimizer step
/// covers exactly the rank's shard of the gradients it reduce-scatters
/// over dp: one parameter per gradient element of its 1/dp shard of every
/// bucket (docs/WholeRun.md, "Data parallelism and ZeRO"); at ep > 1 its
/// 1/dp of the dense buckets and 1/edp of the expert buckets, the whole
/// expert buckets at edp = 1.
static LogicalResult verifyShardedStep(StageOp stage) {
  auto program = stage->getParentOfType<ProgramOp>();
  transformer::TrainingAttr training = program.getTrainingAttr();
  if (!training)
    return success();
  int64_t gradientBytes = workload::bytesOf(training.getGradientType());
  int64_t shard = 0;
  bool reduceScatters = false;
  TaskOp step;
  for (Operation &op : stage.getBody().front()) {
    if (auto scatter = llvm::dyn_cast<ReduceScatterOp>(op);
        scatter && scatter.getPhase() == workload::Phase::WeightGrad) {
      reduceScatters = true;
      // Sizes are bounded by the verified collective's facts.
      shard +=
          scatter.getMessageBytes() / scatter.getParticipants() / gradientBytes;
    } else if (auto task = llvm::dyn_cast<TaskOp>(op);
               task && task.getPhase() == workload::Phase::Optimizer) {
      step = task;
    }
  }
  if (!reduceScatters && !step)
    return success();
  if (!step)
    return stage.emitOpError()
           << "dist_stage_c3: the stage reduce-scatters its gradients but "
              "runs no optimizer step over its shard";
  // At ep = dp (one expert-data-parallel rank) the expert buckets have no
  // reduction: the rank's shard of them is the whole of its experts.
  workload::MappingSpec mapping = program.getMapping().getSpec();
  if (mapping.ep > 1 && mapping.expertGradientReplicas() == 1) {
    llvm::Expected<int64_t> experts = workload::stageExpertParameters(
        program.getModel().getSpec(), mapping, stage.getIndex());
    if (!experts)
      return stage.emitOpError()
             << "dist_stage_c3: " << llvm::toString(experts.takeError());
    shard += *experts;
  }
  int64_t covered = step.getOps() / workload::opcount::kAdamWPerParameter;
  if (covered != shard ||
      step.getOps() % workload::opcount::kAdamWPerParameter != 0)
    return step.emitOpError()
           << "dist_stage_c3: the optimizer step covers " << covered
           << " parameters (ops / " << workload::opcount::kAdamWPerParameter
           << "), but the rank's shard of the reduce-scattered gradients "
              "holds "
           << shard;
  return success();
}

LogicalResult StageOp::verifyRegions() {
  for (Operation &op : getBody().front())
    if (!llvm::isa<InstanceOp, SendOp, RecvOp, TaskOp, AllReduceOp,
                   ReduceScatterOp, AllGatherOp, AllToAllOp>(op))
      return op.emitOpError() << "dist_stage_c2: a stage holds instances, "
                                 "sends, receives, tasks and collectives "
                                 "only";
  if (failed(verifyReadyBlocks<InstanceOp>(
          getBody().front(),
          [](InstanceOp instance) { return instance.lookupTemplate(); },
          "dist_stage_c4")))
    return failure();
  return verifyShardedStep(*this);
}

int64_t InstanceOp::getRepetitions() {
  std::optional<ArrayRef<int64_t>> blocks = getBlocks();
  return blocks && blocks->size() == 2 ? (*blocks)[1] - (*blocks)[0] : 1;
}

TemplateOp InstanceOp::lookupTemplate() {
  return findTemplate<TemplateOp>((*this)->getParentOfType<ProgramOp>(),
                                  getTemplateNameAttr().getAttr());
}

LogicalResult InstanceOp::verify() {
  auto templateOp = lookupTemplate();
  if (!templateOp)
    return emitOpError() << "dist_instance_c1: " << getTemplateNameAttr()
                         << " does not name a dist.template of the program";
  const std::optional<workload::RunShape> &shape =
      enclosingRunShape<ProgramOp>(*this);
  if (!shape)
    return success(); // dist_program_c4 or c5 reports the program.
  if (failed(verifyInstanceShape(*this, templateOp, *shape,
                                 (*this)->getParentOfType<StageOp>().getIndex(),
                                 "dist_instance")))
    return failure();
  return verifyDependencies(*this, getDeps(), "dist_instance_c4");
}

/// Whether two work ops state the same work: dist_instance_c5 compares an
/// expanded copy with its template op.
static bool sameWork(WorkFactsOpInterface lhs, WorkFactsOpInterface rhs) {
  return lhs->getName() == rhs->getName() &&
         lhs.getPrimitiveAttr() == rhs.getPrimitiveAttr() &&
         lhs.getPhase() == rhs.getPhase() &&
         lhs.getWorkEngine() == rhs.getWorkEngine() &&
         lhs.getCadence() == rhs.getCadence() && lhs.getOps() == rhs.getOps() &&
         llvm::equal(lhs.getReads(), rhs.getReads()) &&
         llvm::equal(lhs.getWrites(), rhs.getWrites()) &&
         llvm::equal(lhs.getStashed(), rhs.getStashed()) &&
         lhs.getCollectiveFacts() == rhs.getCollectiveFacts() &&
         lhs.getGemmExtents() == rhs.getGemmExtents();
}

LogicalResult InstanceOp::verifyRegions() {
  if (!isExpanded())
    return success();
  auto templateOp = lookupTemplate();
  // dist_instance_c1 holds: verify() ran first.
  Block &work = templateOp.getBody().front();
  int64_t perRepetition =
      static_cast<int64_t>(std::distance(work.begin(), work.end()));
  Block &body = getBody().front();
  int64_t copies =
      static_cast<int64_t>(std::distance(body.begin(), body.end()));
  if (copies != perRepetition * getRepetitions())
    return emitOpError() << "dist_instance_c5: an expanded instance holds "
                         << perRepetition << " ops of template @"
                         << templateOp.getSymName() << " x " << getRepetitions()
                         << " repetitions, but its body "
                         << "holds " << copies;
  Block::iterator expected = work.begin();
  for (Operation &op : body) {
    auto copy = llvm::dyn_cast<WorkFactsOpInterface>(op);
    auto original = llvm::cast<WorkFactsOpInterface>(*expected);
    if (!copy || !sameWork(copy, original))
      return op.emitOpError()
             << "dist_instance_c5: the expanded work differs from template @"
             << templateOp.getSymName() << "'s " << original.getPrimitive()
             << " (" << workload::stringifyEnum(original.getPhase()) << ")";
    if (++expected == work.end())
      expected = work.begin();
  }
  return success();
}

/// dist_message_c1 .. c4 of a send (`sending`) or a receive.
template <typename MessageOpT>
static LogicalResult verifyMessage(MessageOpT op, bool sending) {
  if (failed(verifyTransferShape(
          op, sending, enclosingRunShape<ProgramOp>(op),
          op->template getParentOfType<StageOp>().getIndex(), "dist_message")))
    return failure();
  return verifyDependencies(op, op.getDeps(), "dist_message_c4");
}

LogicalResult SendOp::verify() { return verifyMessage(*this, true); }
LogicalResult RecvOp::verify() { return verifyMessage(*this, false); }

//===----------------------------------------------------------------------===//
// Boundaries of derived tensors
//===----------------------------------------------------------------------===//

bool blueprint::dist::isWholeRun(ProgramOp program) {
  return !program.getBody().getOps<StageOp>().empty() ||
         !program.getBody().getOps<TemplateOp>().empty();
}

Type blueprint::dist::getElementType(MLIRContext *context,
                                     workload::DataType type) {
  switch (type) {
  case workload::DataType::F32:
    return Float32Type::get(context);
  case workload::DataType::BF16:
    return BFloat16Type::get(context);
  case workload::DataType::F16:
    return Float16Type::get(context);
  case workload::DataType::FP8:
    return Float8E4M3FNType::get(context);
  }
  llvm_unreachable("unknown DataType");
}

std::optional<workload::DataType> blueprint::dist::getDataType(Type type) {
  for (uint32_t value = 0; value <= workload::getMaxEnumValForDataType();
       ++value) {
    std::optional<workload::DataType> dataType =
        workload::symbolizeDataType(value);
    if (dataType && getElementType(type.getContext(), *dataType) == type)
      return dataType;
  }
  return std::nullopt;
}

RankedTensorType
blueprint::dist::getBoundaryType(MLIRContext *context,
                                 const workload::BoundaryTensor &tensor) {
  return RankedTensorType::get(tensor.shape,
                               getElementType(context, tensor.type));
}

ShardingAttr
blueprint::dist::getBoundarySharding(MLIRContext *context,
                                     FlatSymbolRefAttr mesh, StringRef axis,
                                     const workload::BoundaryTensor &tensor) {
  Builder builder(context);
  llvm::SmallVector<llvm::SmallVector<StringRef, 2>> axesOfDim;
  auto split = [&](std::optional<unsigned> dim, StringRef splitAxis) {
    if (!dim)
      return;
    if (axesOfDim.size() <= *dim)
      axesOfDim.resize(*dim + 1);
    axesOfDim[*dim].push_back(splitAxis);
  };
  split(tensor.cpSplitDim, workload::kContextParallelAxis);
  split(tensor.tpSplitDim, axis);
  llvm::SmallVector<Attribute> splitAxes;
  for (const llvm::SmallVector<StringRef, 2> &axes : axesOfDim)
    splitAxes.push_back(builder.getStrArrayAttr(axes));
  return ShardingAttr::get(context, mesh, builder.getArrayAttr(splitAxes));
}

#define GET_OP_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistOps.cpp.inc"
