//===- PPlanOps.cpp - PortablePlanIR operations and their rules -----------===//
//
// The verifier rules of docs/PPlanSpec.md; each diagnostic starts with the
// rule's label.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/StageTotals.h"

#include "Blueprint/Interfaces/TensorBytes.h"
#include "Blueprint/Interfaces/WholeRunRules.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Workload/Implementation.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Workload/Plan.h"
#include "Blueprint/Workload/Spec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::pplan;

/// pplan_c1: a plan op carries only the attributes it defines, so no target
/// field (kernel, device, queue, duration, ...) can be attached to it.
static LogicalResult verifyNoForeignAttributes(Operation *op) {
  for (NamedAttribute attribute : op->getDiscardableAttrs())
    return op->emitOpError()
           << "pplan_c1: attribute '" << attribute.getName().getValue()
           << "' is not a field of " << op->getName()
           << "; a portable plan cannot carry target fields";
  return success();
}

//===----------------------------------------------------------------------===//
// PlanOp
//===----------------------------------------------------------------------===//

LogicalResult PlanOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  if (!isWellFormedDigest(getSourceDigest()))
    return emitOpError() << "pplan_plan_c1: source_digest must be 'sha256:' "
                            "followed by 64 lowercase hex digits, got '"
                         << getSourceDigest() << "'";
  // The composition first: the decode-context rule of pplan_plan_c3 computes
  // with the inference contract's lengths, which pplan_plan_c4 bounds.
  if (failed(transformer::verifyProgramRun(
          *this, getModel(), getMapping(), getTrainingAttr(),
          getInferenceAttr(), "pplan_plan_c4")))
    return failure();
  // A whole-run inference plan holds every step of the generation.
  if (isWholeRun() && getInferenceAttr() && !getTrainingAttr()) {
    if (getDecodeContext())
      return emitOpError() << "pplan_plan_c3: a whole-run inference plan "
                              "holds every step of the generation, so it has "
                              "no decode_context";
    return success();
  }
  if (std::optional<std::string> violation =
          transformer::workloadContractViolation(
              getTrainingAttr(), getInferenceAttr(), getDecodeContext()))
    return emitOpError() << "pplan_plan_c3: " << *violation;
  return success();
}

namespace {
/// Totals keyed by (cadence, phase, engine).
using LedgerKey =
    std::tuple<workload::Cadence, workload::Phase, workload::Engine>;
} // namespace

/// pplan_task_c1 and pplan_task_c2: what `task` requires and joins is
/// declared in its plan. Checked by the plan, which resolves every symbol
/// once, rather than by each task looking its symbols up in the plan.
static LogicalResult
verifyTaskReferences(TaskOp task,
                     const llvm::DenseMap<StringAttr, Operation *> &symbols) {
  auto capability = llvm::dyn_cast_or_null<CapabilityOp>(
      symbols.lookup(task.getCapabilityAttr().getAttr()));
  if (!capability)
    return task.emitOpError()
           << "pplan_task_c1: " << task.getCapabilityAttr()
           << " does not name a pplan.capability of the plan";
  std::optional<workload::CollectiveFacts> collective =
      task.getCollectiveFacts();
  workload::CapabilityKind required = workload::requiredCapability(
      task.getEngine(),
      collective ? std::optional(collective->kind) : std::nullopt);
  if (capability.getKind() != required)
    return task.emitOpError()
           << "pplan_task_c1: " << task.getPrimitive() << " requires the "
           << workload::stringifyEnum(required) << " capability, but @"
           << capability.getSymName() << " provides "
           << workload::stringifyEnum(capability.getKind());
  if (!llvm::isa_and_nonnull<GroupOp>(
          symbols.lookup(task.getGroupAttr().getAttr())))
    return task.emitOpError() << "pplan_task_c2: " << task.getGroupAttr()
                              << " does not name a pplan.group of the plan";
  return success();
}

/// The ledger quantities of `row` against `found`, in the order rows print
/// them.
static std::array<std::pair<llvm::StringRef, std::pair<int64_t, int64_t>>, 6>
ledgerQuantities(LedgerOp row, const workload::WorkTotals &found) {
  return {
      {{"invocations",
        {static_cast<int64_t>(row.getInvocations()), found.invocations}},
       {"ops", {static_cast<int64_t>(row.getOps()), found.ops}},
       {"read bytes", {static_cast<int64_t>(row.getRead()), found.readBytes}},
       {"write bytes",
        {static_cast<int64_t>(row.getWrite()), found.writeBytes}},
       {"message bytes",
        {static_cast<int64_t>(row.getMessage()), found.messageBytes}},
       {"stash bytes",
        {static_cast<int64_t>(row.getStash()), found.stashBytes}}}};
}

/// pplan_plan_c5 .. c8 and pplan_stage_c2 of a whole-run plan.
static LogicalResult
verifyWholeRun(PlanOp plan,
               const llvm::DenseMap<StringAttr, Operation *> &symbols) {
  Block &body = plan.getBody().front();
  // pplan_plan_c5: the compact form only, one stage per pipeline stage.
  for (Operation &op : body) {
    if (!llvm::isa<CapabilityOp, GroupOp, TemplateOp, StageOp, ObjectiveOp,
                   LedgerOp>(op))
      return op.emitOpError()
             << "pplan_plan_c5: a whole-run plan holds capabilities, groups, "
                "templates, stages, objectives and ledger rows only, not "
                "block-scope tasks or buffers";
    if (auto row = llvm::dyn_cast<LedgerOp>(op); row && !row.getStage())
      return row.emitOpError() << "pplan_plan_c5: every ledger row of a "
                                  "whole-run plan names a stage";
  }
  const std::optional<workload::RunShape> &shape =
      enclosingRunShape<PlanOp>(plan);
  if (!shape)
    return plan.emitOpError()
           << "pplan_plan_c5: a whole-run plan describes a training or "
              "inference run";
  const workload::PipelineLayout &layout = shape->layout;
  llvm::SmallVector<StageOp> byIndex(layout.stages);
  for (StageOp stage : body.getOps<StageOp>()) {
    // pplan_stage_c1 bounds the index.
    StageOp &slot = byIndex[stage.getIndex()];
    if (slot)
      return stage.emitOpError()
             << "pplan_plan_c5: stage " << stage.getIndex() << " appears twice";
    slot = stage;
  }
  for (auto [index, stage] : llvm::enumerate(byIndex))
    if (!stage)
      return plan.emitOpError() << "pplan_plan_c5: pipeline stage " << index
                                << " has no pplan.stage";

  // pplan_stage_c2: each stage runs in one serial group.
  for (StageOp stage : byIndex) {
    auto group = llvm::dyn_cast_or_null<GroupOp>(
        symbols.lookup(stage.getGroupAttr().getAttr()));
    if (!group || group.getConcurrency() != workload::ConcurrencyKind::Serial)
      return stage.emitOpError()
             << "pplan_stage_c2: " << stage.getGroupAttr()
             << " does not name a serial pplan.group of the plan";
    for (TaskOp task : stage.getBody().getOps<TaskOp>())
      if (task.getGroupAttr() != stage.getGroupAttr())
        return task.emitOpError()
               << "pplan_stage_c2: stage-level task " << task.getPrimitive()
               << " joins " << task.getGroupAttr() << ", not its stage's "
               << stage.getGroupAttr();
  }

  // pplan_plan_c6: messages pair up, by (message, micro-batch, chunk).
  llvm::SmallVector<Block *> stageBodies;
  for (StageOp stage : byIndex)
    stageBodies.push_back(&stage.getBody().front());
  if (failed(verifyMessagePairs<SendOp, RecvOp>(stageBodies, "pplan_plan_c6")))
    return failure();

  // pplan_plan_c8: each pass of a chunk runs every block of the chunk, one
  // instance per segment of one block kind (as dist_program_c8).
  for (StageOp stage : byIndex)
    if (failed(blockSlotsOf<InstanceOp>(
            stage.getBody().front(), layout,
            [](InstanceOp instance) { return instance.lookupTemplate(); },
            "pplan_plan_c8")))
      return failure();

  // pplan_plan_c7: each stage's totals equal its ledger rows.
  std::map<std::tuple<int64_t, workload::Phase, workload::Engine>, LedgerOp>
      rows;
  workload::Cadence runCadence = shape->inference()
                                     ? workload::Cadence::PerGeneration
                                     : workload::Cadence::PerIteration;
  for (LedgerOp row : body.getOps<LedgerOp>()) {
    int64_t stage = *row.getStage();
    if (row.getCadence() != runCadence)
      return row.emitOpError()
             << "pplan_plan_c7: a stage's ledger row holds its totals over "
             << (shape->inference() ? "the generation" : "the iteration")
             << " (" << workload::stringifyEnum(runCadence) << "), not "
             << workload::stringifyEnum(row.getCadence());
    if (stage < 0 || stage >= layout.stages)
      return row.emitOpError() << "pplan_plan_c7: the ledger records stage "
                               << stage << ", which is not a pipeline stage";
    if (!rows.try_emplace({stage, row.getPhase(), row.getEngine()}, row).second)
      return row.emitOpError() << "pplan_plan_c7: a second ledger row for "
                                  "the same stage, phase and engine";
  }
  for (StageOp stage : byIndex) {
    llvm::Expected<workload::StageTotals> totals = stage.summarizeWork();
    if (!totals)
      return stage.emitOpError()
             << "pplan_plan_c7: " << llvm::toString(totals.takeError());
    const workload::WorkSummary *summary = &totals->work;
    int64_t index = stage.getIndex();
    for (workload::Phase phase : workload::allPhases())
      for (workload::Engine engine : workload::allEngines()) {
        const workload::WorkTotals &found = summary->at(phase, engine);
        auto row = rows.find({index, phase, engine});
        if (row == rows.end()) {
          if (found.invocations != 0)
            return stage.emitOpError()
                   << "pplan_plan_c7: no ledger row records stage " << index
                   << "'s " << workload::stringifyEnum(phase) << " "
                   << workload::stringifyEnum(engine)
                   << " work, so it cannot be checked for conservation";
          continue;
        }
        for (auto [quantity, values] : ledgerQuantities(row->second, found))
          if (values.first != values.second)
            return row->second.emitOpError()
                   << "pplan_plan_c7: conservation of stage " << index << " "
                   << workload::stringifyEnum(phase) << " "
                   << workload::stringifyEnum(engine) << " " << quantity
                   << ": the distributed IR has " << values.first
                   << ", the plan's stage has " << values.second;
      }
  }
  return success();
}

LogicalResult PlanOp::verifyRegions() {
  Dialect *dialect = (*this)->getDialect();
  for (Operation &op : getBody().front())
    if (op.getDialect() != dialect)
      return op.emitOpError()
             << "pplan_c1: only pplan ops may appear in a portable plan";

  // Only capabilities and groups are named by tasks and stages (the
  // SymbolTable trait has already rejected duplicate names).
  llvm::DenseMap<StringAttr, Operation *> symbols;
  for (CapabilityOp capability : getBody().getOps<CapabilityOp>())
    symbols.try_emplace(capability.getSymNameAttr(), capability);
  for (GroupOp group : getBody().getOps<GroupOp>())
    symbols.try_emplace(group.getSymNameAttr(), group);
  for (Operation &op : getBody().front()) {
    if (auto task = llvm::dyn_cast<TaskOp>(op)) {
      if (failed(verifyTaskReferences(task, symbols)))
        return failure();
    } else if (llvm::isa<TemplateOp, StageOp>(op)) {
      for (TaskOp task : op.getRegion(0).getOps<TaskOp>())
        if (failed(verifyTaskReferences(task, symbols)))
          return failure();
    }
  }

  if (isWholeRun())
    return verifyWholeRun(*this, symbols);
  for (LedgerOp row : getBody().getOps<LedgerOp>())
    if (row.getStage())
      return row.emitOpError() << "pplan_plan_c5: only a whole-run plan has "
                                  "ledger rows of a stage";

  // pplan_plan_c2: the tasks' totals equal the ledger.
  std::map<LedgerKey, LedgerOp> rows;
  for (LedgerOp row : getBody().getOps<LedgerOp>())
    if (!rows.try_emplace({row.getCadence(), row.getPhase(), row.getEngine()},
                          row)
             .second)
      return row.emitOpError() << "pplan_plan_c2: a second ledger row for "
                                  "the same cadence, phase and engine";
  CadenceSummaries byCadence;
  for (TaskOp task : getBody().getOps<TaskOp>()) {
    workload::Cadence cadence = task.getCadence();
    // A fused task conserves the work of the tasks it replaced
    // (pplan_task_c10): its `fuses`, not what its kernel executes.
    llvm::SmallVector<workload::InvocationFigures> parts =
        task.getFusedFigures();
    if (!task.getFusesAttr()) {
      llvm::Expected<workload::InvocationFigures> figures =
          figuresOf(llvm::cast<WorkFactsOpInterface>(task.getOperation()));
      if (!figures)
        return task.emitOpError()
               << "pplan_plan_c2: " << llvm::toString(figures.takeError());
      parts.push_back(*figures);
    }
    for (const workload::InvocationFigures &part : parts) {
      if (!rows.count({cadence, part.phase, part.engine}))
        return emitOpError()
               << "pplan_plan_c2: no ledger row records the distributed "
                  "IR's "
               << workload::stringifyEnum(cadence) << " "
               << workload::stringifyEnum(part.phase) << " "
               << workload::stringifyEnum(part.engine) << " work, so task "
               << part.primitive << " cannot be checked for conservation";
      if (llvm::Error error =
              byCadence.try_emplace(cadence, cadence).first->second.add(part))
        return task.emitOpError()
               << "pplan_plan_c2: " << llvm::toString(std::move(error));
    }
  }
  for (auto [key, row] : rows) {
    auto [cadence, phase, engine] = key;
    auto summary = byCadence.find(cadence);
    if (summary == byCadence.end())
      return row.emitOpError() << "pplan_plan_c2: the ledger records "
                               << workload::stringifyEnum(cadence)
                               << " work the plan has no task for";
    const workload::WorkTotals &found = summary->second.at(phase, engine);
    for (auto [quantity, values] : ledgerQuantities(row, found))
      if (values.first != values.second)
        return row.emitOpError()
               << "pplan_plan_c2: conservation of "
               << workload::stringifyEnum(cadence) << " "
               << workload::stringifyEnum(phase) << " "
               << workload::stringifyEnum(engine) << " " << quantity
               << ": the distributed IR has " << values.first
               << ", the plan's tasks have " << values.second;
  }
  return success();
}

bool PlanOp::isWholeRun() {
  return !getBody().getOps<TemplateOp>().empty() ||
         !getBody().getOps<StageOp>().empty();
}

//===----------------------------------------------------------------------===//
// CapabilityOp, GroupOp, ObjectiveOp, LedgerOp
//===----------------------------------------------------------------------===//

LogicalResult CapabilityOp::verify() {
  return verifyNoForeignAttributes(*this);
}

LogicalResult GroupOp::verify() { return verifyNoForeignAttributes(*this); }

LogicalResult ObjectiveOp::verify() { return verifyNoForeignAttributes(*this); }

LogicalResult LedgerOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  for (int64_t value : {getInvocations(), getOps(), getRead(), getWrite(),
                        getMessage(), getStash()})
    if (value < 0)
      return emitOpError() << "pplan_plan_c2: ledger totals must be "
                              "non-negative, got "
                           << value;
  return success();
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

workload::Engine TaskOp::getWorkEngine() { return getEngine(); }

ArrayRef<int64_t> TaskOp::getGemmExtents() {
  return getGemm().value_or(ArrayRef<int64_t>());
}

/// A fused task's ops also count the vector work between its GEMMs
/// (pplan_task_c9); every other task's ops are its GEMMs'.
workload::GemmCover TaskOp::getGemmCover() {
  return getImplementationAttr() ? workload::GemmCover::AtMostOps
                                 : workload::GemmCover::AllOps;
}

std::optional<workload::CollectiveFacts> TaskOp::getCollectiveFacts() {
  CollectiveAttr collective = getCollectiveAttr();
  if (!collective)
    return std::nullopt;
  workload::CollectiveFacts facts;
  facts.kind = collective.getKind();
  facts.reduction = collective.getReduction();
  facts.participants = collective.getParticipants();
  facts.messageBytes = collective.getMessage();
  facts.pointToPoint = collective.getPointToPoint();
  // Its mesh axes (pplan_task_c8): none names tp.
  if (std::optional<llvm::StringRef> axis = getAxis())
    facts.axis = axis->str();
  if (std::optional<ArrayAttr> innerAxes = getInnerAxes())
    for (llvm::StringRef inner : innerAxes->getAsValueRange<StringAttr>())
      facts.innerAxes.push_back(inner.str());
  return facts;
}

/// pplan_task_c8: a stage-level collective keeps the mesh axes (and the
/// group of positions along one) of its `dist` collective, as
/// dist_collective_c1, c2 and c7 state them; a template's key/value
/// exchange names its `cp` axis.
static LogicalResult
verifyMeshAxis(TaskOp task,
               const std::optional<workload::CollectiveFacts> &collective) {
  std::optional<llvm::StringRef> axis = task.getAxis();
  std::optional<ArrayAttr> innerAxes = task.getInnerAxes();
  std::optional<ArrayRef<int64_t>> group = task.getAxisGroup();
  auto fail = [&]() { return task.emitOpError() << "pplan_task_c8: "; };
  if (group && !axis)
    return fail() << "a group names positions along a mesh axis: give the "
                     "axis";
  if (innerAxes && !axis)
    return fail() << "inner axes follow the outermost mesh axis: give the "
                     "axis";
  if (innerAxes && group)
    return fail() << "a group names positions along a single axis: no inner "
                     "axes with a group";
  auto stage = llvm::dyn_cast<StageOp>(task->getParentOp());
  bool stageCollective = stage && collective;
  if (!stageCollective) {
    // A template's or a block-scope plan's key/value exchange spans cp; at
    // ep > 1 the expert dispatcher's collectives span ep, the token counts'
    // all-gather ep x tp.
    bool contextAxis = collective && axis && !group && !innerAxes &&
                       *axis == workload::kContextParallelAxis;
    bool expertAxis =
        collective && axis && !group &&
        *axis == workload::kExpertParallelAxis &&
        (!innerAxes || (innerAxes->size() == 1 &&
                        llvm::cast<StringAttr>((*innerAxes)[0]).getValue() ==
                            workload::kTensorParallelAxis));
    if (axis && !contextAxis && !expertAxis)
      return fail() << "only a collective of a pplan.stage names a mesh "
                       "axis; "
                    << (collective ? "a collective of a template or a "
                                     "block-scope plan spans tp, or names "
                                     "axis \"cp\" alone, or axis \"ep\" "
                                     "(inner axes [\"tp\"] or none)"
                                   : "this task is not a collective");
    if (!contextAxis && !expertAxis)
      return success();
  } else if (!axis) {
    return fail() << "stage-level collective " << task.getPrimitive()
                  << " names its mesh axis (axis \"tp\", \"pp\", \"dp\" or "
                     "\"cp\"; \"edp\" or \"ep\" for \"dp\" at ep > 1)";
  }
  auto plan = task->getParentOfType<PlanOp>();
  if (!plan)
    return success();
  workload::MappingSpec mapping = plan.getMapping().getSpec();
  std::optional<int64_t> size = mapping.axisDegree(*axis);
  if (!size)
    return fail() << "axis must be \"tp\", \"pp\", \"dp\" or \"cp\" "
                     "(\"edp\" and \"ep\" for \"dp\" at ep > 1), got \""
                  << *axis << "\"";
  int64_t participants = *size;
  llvm::SmallVector<llvm::StringRef, 2> spanned = {*axis};
  if (innerAxes)
    for (llvm::StringRef inner : innerAxes->getAsValueRange<StringAttr>()) {
      std::optional<int64_t> innerSize = mapping.axisDegree(inner);
      if (!innerSize)
        return fail() << "inner axis must be \"tp\", \"pp\", \"dp\" or "
                         "\"cp\" (\"edp\" and \"ep\" for \"dp\" at ep > 1), "
                         "got \""
                      << inner << "\"";
      if (llvm::is_contained(spanned, inner))
        return fail() << "axis " << inner << " is named twice";
      spanned.push_back(inner);
      // Bounded by world, whose product transformer_mapping_c2 checks.
      participants *= *innerSize;
    }
  if (group) {
    if (group->size() < 2)
      return fail() << "a group names at least two positions of axis " << *axis;
    int64_t previous = -1;
    for (int64_t position : *group) {
      if (position <= previous || position >= *size)
        return fail() << "group positions must be distinct positions of "
                         "axis "
                      << *axis << " (0.." << *size - 1
                      << ") in increasing order, got " << position;
      previous = position;
    }
    if (*axis == workload::kPipelineParallelAxis && stage &&
        !llvm::is_contained(*group, stage.getIndex()))
      return fail() << "stage " << stage.getIndex()
                    << " is not a position of the group";
    participants = static_cast<int64_t>(group->size());
  }
  if (collective->participants != participants)
    return fail() << "the collective has " << collective->participants
                  << " participants but "
                  << (group ? "its group along axis " : "axis ")
                  << llvm::join(spanned, " x ") << (group ? " has " : " spans ")
                  << participants << (group ? " positions" : " ranks");
  return success();
}

std::optional<llvm::SmallVector<workload::InvocationFigures>>
blueprint::pplan::fusedFiguresOf(WorkFactsOpInterface work) {
  auto task = llvm::dyn_cast<TaskOp>(work.getOperation());
  if (!task || !task.getFusesAttr())
    return std::nullopt;
  return task.getFusedFigures();
}

llvm::SmallVector<workload::InvocationFigures> TaskOp::getFusedFigures() {
  llvm::SmallVector<workload::InvocationFigures> parts;
  if (std::optional<ArrayAttr> fuses = getFuses())
    for (auto part : fuses->getAsRange<FusedWorkAttr>()) {
      workload::InvocationFigures figures;
      figures.primitive = part.getPrimitive();
      figures.phase = part.getPhase();
      figures.engine = part.getEngine();
      figures.ops = part.getOps();
      figures.readBytes = part.getRead();
      figures.writeBytes = part.getWrite();
      figures.stashBytes = part.getStash();
      parts.push_back(figures);
    }
  return parts;
}

LogicalResult TaskOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  auto work = llvm::cast<WorkFactsOpInterface>(getOperation());

  // pplan_task_c4: well-formed facts.
  if (work.getOps() < 0)
    return emitOpError() << "pplan_task_c4: ops must be non-negative, got "
                         << work.getOps();
  auto emit = [&]() { return emitOpError() << "pplan_task_c4: "; };
  if (failed(verifyTensorBytes(getReads(), "read bytes", emit)) ||
      failed(verifyTensorBytes(getWrites(), "write bytes", emit)) ||
      failed(verifyTensorBytes(getStashed(), "stash bytes", emit)))
    return failure();
  std::optional<workload::CollectiveFacts> collective = getCollectiveFacts();
  bool isCollective = getEngine() == workload::Engine::Collective;
  if (isCollective != collective.has_value())
    return emitOpError() << "pplan_task_c4: "
                         << (isCollective ? "collective work needs its "
                                            "collective facts"
                                          : "only collective work has "
                                            "collective facts");
  if (collective) {
    if (collective->participants <= 0 || collective->messageBytes < 0 ||
        collective->messageBytes % collective->participants != 0)
      return emitOpError() << "pplan_task_c4: a collective needs participants "
                              "> 0 and a non-negative message divisible by "
                              "them, got participants = "
                           << collective->participants
                           << ", message = " << collective->messageBytes;
    bool reduces = workload::collectiveReduces(collective->kind);
    if (reduces == (collective->reduction == workload::ReductionKind::None)) {
      llvm::StringRef kind = workload::stringifyEnum(collective->kind);
      return emitOpError() << "pplan_task_c4: "
                           << (kind.starts_with("a") ? "an " : "a ") << kind
                           << (reduces ? " must reduce (reduction = sum)"
                                       : " does not reduce");
    }
  }

  if (std::optional<std::string> violation = gemmViolation(work))
    return emitOpError() << "pplan_task_c9: " << *violation;

  // pplan_task_c3: the declared demand is what the facts imply.
  llvm::Expected<workload::InvocationFigures> figures = figuresOf(work);
  if (!figures)
    return emitOpError() << "pplan_task_c3: "
                         << llvm::toString(figures.takeError());
  // pplan_task_c7: a collective's buffers fit its message.
  if (collective)
    if (std::optional<std::string> violation =
            workload::collectiveBytesViolation(*collective, figures->readBytes,
                                               figures->writeBytes))
      return emitOpError() << "pplan_task_c7: " << *violation;
  llvm::Expected<workload::Demand> implied = workload::demandOf(*figures);
  if (!implied)
    return emitOpError() << "pplan_task_c3: "
                         << llvm::toString(implied.takeError());
  DemandAttr declared = getDemand();
  std::pair<llvm::StringRef, std::pair<int64_t, int64_t>> demands[] = {
      {"compute", {declared.getCompute(), implied->compute}},
      {"memory", {declared.getMemory(), implied->memory}},
      {"network", {declared.getNetwork(), implied->network}}};
  for (auto [resource, values] : demands)
    if (values.first != values.second)
      return emitOpError() << "pplan_task_c3: task " << getPrimitive() << " ("
                           << workload::stringifyEnum(getPhase())
                           << ") declares " << resource << " demand "
                           << values.first << " but its facts imply "
                           << values.second;

  // pplan_task_c5: in a plan or a template, tasks depend on tasks; in a
  // stage, on any op of the stage.
  Operation *parent = (*this)->getParentOp();
  bool inStage = llvm::isa<StageOp>(parent);
  for (Value dep : getDeps()) {
    Operation *producer = dep.getDefiningOp();
    if (!producer || producer->getParentOp() != parent ||
        (!inStage && !llvm::isa<TaskOp>(producer)))
      return emitOpError()
             << "pplan_task_c5: every dependency must be the token of "
             << (llvm::isa<PlanOp>(parent)       ? "a task of the same plan"
                 : llvm::isa<TemplateOp>(parent) ? "a task of the same "
                                                   "template"
                                                 : "an op of the same stage");
  }

  // pplan_task_c10: a fused task names its transformation and its originals.
  if (getImplementationAttr() || getFusesAttr()) {
    if (!getImplementationAttr())
      return emitOpError() << "pplan_task_c10: a fused task must have both "
                              "'implementation' and a non-empty 'fuses'; "
                              "this task has no implementation";
    llvm::Expected<workload::Implementation> known =
        workload::parseImplementation(*getImplementation());
    if (!known) {
      llvm::consumeError(known.takeError());
      return emitOpError() << "pplan_task_c10: unknown implementation '"
                           << *getImplementation()
                           << "' (known: " << workload::knownImplementations()
                           << ")";
    }
    if (!getFusesAttr())
      return emitOpError()
             << "pplan_task_c10: "
             << (workload::addsKernels(*known)
                     ? "a kernel " + getImplementation()->str() +
                           " adds must carry an empty 'fuses' (fuses []); "
                           "this task has none"
                     : std::string("a fused task must have both "
                                   "'implementation' and a non-empty "
                                   "'fuses'; this task has no fused work"));
    // A kernel a transformation adds replaces no task: its `fuses` is
    // empty, and only such a transformation's tasks have an empty one.
    if (workload::addsKernels(*known) != getFuses()->empty())
      return emitOpError()
             << "pplan_task_c10: "
             << (getFuses()->empty()
                     ? "a fused task must have both 'implementation' and a "
                       "non-empty 'fuses'; this task has no fused work"
                     : "a kernel " + getImplementation()->str() +
                           " adds replaces no task, so its 'fuses' must be "
                           "empty");
    if (getFuses()->empty() && getEngine() != workload::Engine::Vector)
      return emitOpError() << "pplan_task_c10: a kernel "
                           << *getImplementation()
                           << " adds is a vector task, not "
                           << workload::stringifyEnum(getEngine());
    if (getFuses()->empty()) {
      llvm::SmallVector<llvm::StringRef> written;
      for (const TensorBytes &entry : getWrites())
        written.push_back(entry.tensor.getValue());
      if (!workload::isAddedBy(*known, getPrimitive(), written))
        return emitOpError() << "pplan_task_c10: '" << getPrimitive()
                             << "' is not a kernel " << *getImplementation()
                             << " adds (docs/Estimate.md, \"Implementation "
                                "transformations\")";
    }
    if (isCollective)
      return emitOpError() << "pplan_task_c10: a collective is never fused";
    int64_t semanticOps = 0;
    for (const workload::InvocationFigures &part : getFusedFigures()) {
      if (part.phase != getPhase() || part.ops < 0 || part.readBytes < 0 ||
          part.writeBytes < 0 || part.stashBytes < 0)
        return emitOpError() << "pplan_task_c10: fused work '" << part.primitive
                             << "' must be of the task's phase ("
                             << workload::stringifyEnum(getPhase())
                             << ") with non-negative figures";
      if (!workload::isFusedBy(*known, part.primitive))
        return emitOpError()
               << "pplan_task_c10: '" << part.primitive
               << "' is not in the pattern " << *getImplementation()
               << " fuses (docs/Estimate.md, \"Implementation "
                  "transformations\")";
      if (llvm::AddOverflow(semanticOps, part.ops, semanticOps))
        return emitOpError() << "pplan_task_c10: the fused work's ops overflow";
    }
    // A fused kernel executes every operation of the tasks it replaces
    // (docs/WorkAlgebra.md, "Bytes are unfused"), recomputation on top.
    if (static_cast<int64_t>(getOps()) < semanticOps)
      return emitOpError() << "pplan_task_c10: the fused task executes "
                           << getOps() << " ops, fewer than the " << semanticOps
                           << " of the tasks it replaces";
  }

  // pplan_task_c6
  if (!getStashed().empty() && getPhase() != workload::Phase::Forward)
    return emitOpError() << "pplan_task_c6: only forward work stashes, but "
                         << getPrimitive() << " ("
                         << workload::stringifyEnum(getPhase()) << ") stashes "
                         << getStashed().size() << " tensors";
  if (failed(verifyReadyBlocksInStage(
          *getOperation(),
          llvm::isa_and_present<StageOp>(getOperation()->getParentOp()),
          "pplan_stage_c4")))
    return failure();
  return verifyMeshAxis(*this, collective);
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

/// Whether a block instance of `pass` makes or reads a pipeline message of
/// `message`: the forward (or an inference step) an activation, the
/// backward (or input gradient) an activation gradient, an inference step
/// a token.
static bool carriesMessage(workload::PipelinePass pass,
                           workload::PipelineMessage message) {
  using workload::PipelinePass;
  bool inference =
      pass == PipelinePass::Prefill || pass == PipelinePass::Decode;
  switch (message) {
  case workload::PipelineMessage::Activation:
    return pass == PipelinePass::Forward || inference;
  case workload::PipelineMessage::ActivationGrad:
    return pass == PipelinePass::Backward || pass == PipelinePass::InputGrad;
  case workload::PipelineMessage::Token:
    return inference;
  }
  llvm_unreachable("unknown PipelineMessage");
}

/// pplan_buffer_c5: a pipeline message buffer of a stage holds one message
/// between the transfer and the block instances making (`sending`) or
/// reading it (or the pipeline_gather task reassembling it). pplan_buffer_c2
/// and c3 have checked that its producer and consumers are ops of the stage.
static LogicalResult verifyMessageBuffer(BufferOp buffer, bool sending) {
  auto fail = [&]() { return buffer.emitOpError() << "pplan_buffer_c5: "; };
  Value producer = buffer.getProducer();
  if (!producer || buffer.getConsumers().empty())
    return fail() << "a pipeline message buffer has a producer and "
                     "consumers";
  Operation *source = producer.getDefiningOp();
  llvm::SmallVector<Operation *> sinks;
  for (Value consumer : buffer.getConsumers())
    sinks.push_back(consumer.getDefiningOp());
  // The message end and the instances on the other side.
  workload::PipelineMessage message;
  int64_t microBatch = 0, messageChunk = 0, bytes = 0;
  llvm::SmallVector<Operation *> instances;
  if (!sending) {
    auto recv = llvm::dyn_cast<RecvOp>(source);
    if (!recv)
      return fail() << "a pipeline_receive buffer is filled by a pplan.recv";
    message = recv.getMessage();
    microBatch = recv.getMicroBatch();
    messageChunk = recv.getChunk();
    bytes = recv.getBytes();
    // A scattered message is read by the task that all-gathers it; the
    // gathered copy is a gathered_message buffer of its own.
    for (Operation *sink : sinks) {
      auto task = llvm::dyn_cast<TaskOp>(sink);
      if (!task || task.getPrimitive() != workload::primitive::kPipelineGather)
        instances.push_back(sink);
    }
  } else {
    auto send = sinks.size() == 1 ? llvm::dyn_cast<SendOp>(sinks[0]) : SendOp();
    if (!send)
      return fail() << "a pipeline_send buffer is drained by one pplan.send";
    message = send.getMessage();
    microBatch = send.getMicroBatch();
    messageChunk = send.getChunk();
    bytes = send.getBytes();
    instances.push_back(source);
  }
  bool forward = message == workload::PipelineMessage::Activation;
  bool token = message == workload::PipelineMessage::Token;
  // The sending chunk makes the message, the receiving chunk reads it; a
  // token of step t is read by the first chunk's step t + 1.
  int64_t chunk = sending ? messageChunk
                  : token ? 0
                          : (forward ? messageChunk + 1 : messageChunk - 1);
  int64_t step = token && !sending ? microBatch + 1 : microBatch;
  for (Operation *op : instances) {
    auto instance = llvm::dyn_cast<InstanceOp>(op);
    TemplateOp templateOp = instance ? instance.lookupTemplate() : nullptr;
    if (!templateOp || templateOp.getPart() != workload::ModelPart::Block ||
        !carriesMessage(templateOp.getPass(), message) ||
        !instance.getMicroBatchAttr() ||
        instance.getMicroBatchAttr().getInt() != step ||
        instance.getChunk() != chunk)
      return fail() << "the "
                    << workload::describeMessage(message, microBatch,
                                                 messageChunk)
                    << " must be " << (sending ? "made" : "read")
                    << " by a block "
                    << (token     ? "prefill or decode"
                        : forward ? "forward"
                                  : "backward")
                    << " instance of micro-batch " << step << " on model chunk "
                    << chunk;
  }
  if (static_cast<int64_t>(buffer.getBytes()) != bytes)
    return fail() << "the buffer holds "
                  << static_cast<int64_t>(buffer.getBytes())
                  << " bytes but the message is " << bytes;
  return success();
}

/// pplan_buffer_c2, c3, c5 and c6 of a buffer in a stage; the stage checks
/// the lifetime (c7 .. c10, verifyBufferLifetimes).
static LogicalResult verifyStageBuffer(BufferOp buffer) {
  std::optional<workload::BufferCause> cause = buffer.getCause();
  workload::BufferKind kind = buffer.getKind();
  if (kind == workload::BufferKind::Boundary)
    return buffer.emitOpError()
           << "pplan_buffer_c6: a boundary buffer belongs to a block-scope "
              "plan, not to a pplan.stage";
  if (!cause || !buffer.getLive())
    return buffer.emitOpError()
           << "pplan_buffer_c6: a buffer of a stage has a cause and a live "
              "interval";
  if (workload::kindOf(*cause) != kind)
    return buffer.emitOpError()
           << "pplan_buffer_c6: a " << workload::stringifyEnum(*cause)
           << " buffer is " << workload::stringifyEnum(workload::kindOf(*cause))
           << ", not " << workload::stringifyEnum(kind);
  if (buffer.getLive()->size() != 2)
    return buffer.emitOpError() << "pplan_buffer_c7: live names two "
                                   "positions [start, end], got "
                                << buffer.getLive()->size();
  Operation *stage = buffer->getParentOp();
  auto ofStage = [&](Value token) {
    Operation *op = token.getDefiningOp();
    return op && op->getParentOp() == stage;
  };
  if (Value producer = buffer.getProducer(); producer && !ofStage(producer))
    return buffer.emitOpError() << "pplan_buffer_c2: the producer of a "
                                   "stage's buffer is an op of the stage";
  if (!llvm::all_of(buffer.getConsumers(), ofStage))
    return buffer.emitOpError() << "pplan_buffer_c3: every consumer of a "
                                   "stage's buffer is an op of the stage";
  if (*cause == workload::BufferCause::PipelineSend ||
      *cause == workload::BufferCause::PipelineReceive)
    return verifyMessageBuffer(buffer,
                               *cause == workload::BufferCause::PipelineSend);
  return success();
}

LogicalResult BufferOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  if (static_cast<int64_t>(getBytes()) < 0)
    return emitOpError() << "pplan_buffer_c1: bytes must be non-negative, got "
                         << static_cast<int64_t>(getBytes());
  if (llvm::isa<StageOp>((*this)->getParentOp()))
    return verifyStageBuffer(*this);
  if (getCause() || getLive())
    return emitOpError() << "pplan_buffer_c6: a plan-level buffer has no "
                            "cause and no live interval: its tasks are its "
                            "producer and consumers";
  if (getKind() == workload::BufferKind::Communication)
    return emitOpError() << "pplan_buffer_c5: a communication buffer "
                            "belongs to a pplan.stage";
  auto taskOf = [&](Value token) -> TaskOp {
    auto task = token.getDefiningOp<TaskOp>();
    if (!task || task->getParentOp() != (*this)->getParentOp())
      return nullptr;
    return task;
  };
  if (Value producer = getProducer()) {
    TaskOp task = taskOf(producer);
    if (!task)
      return emitOpError() << "pplan_buffer_c2: the producer must be a task "
                              "of the plan";
    if (!findTensor(task.getWrites(), getSymName()))
      return emitOpError() << "pplan_buffer_c2: producer "
                           << task.getPrimitive() << " ("
                           << workload::stringifyEnum(task.getPhase())
                           << ") does not write '" << getSymName() << "'";
  }
  for (Value consumer : getConsumers()) {
    TaskOp task = taskOf(consumer);
    if (!task)
      return emitOpError() << "pplan_buffer_c3: every consumer must be a task "
                              "of the plan";
    if (!findTensor(task.getReads(), getSymName()))
      return emitOpError() << "pplan_buffer_c3: consumer "
                           << task.getPrimitive() << " ("
                           << workload::stringifyEnum(task.getPhase())
                           << ") does not read '" << getSymName() << "'";
  }
  if (!getProducer() && getConsumers().empty())
    return emitOpError() << "pplan_buffer_c4: buffer '" << getSymName()
                         << "' has neither a producer nor a consumer";
  return success();
}

/// pplan_buffer_c7 .. c10: every buffer of `stage` lives from its producer
/// to its last consumer (over the whole stage if persistent). The stage
/// numbers its positions once, so the check is linear in the stage's ops
/// and the buffers' operands. The buffers' own verifiers (c2, c3, c6) have
/// run before: their tokens are of ops of the stage.
static LogicalResult verifyBufferLifetimes(StageOp stage) {
  Block &body = stage.getBody().front();
  llvm::DenseMap<Operation *, int64_t> positionOf;
  int64_t positions = 0;
  for (Operation &op : body)
    if (!llvm::isa<BufferOp>(op))
      positionOf[&op] = positions++;
  auto position = [&](Value token) -> std::optional<int64_t> {
    auto it = positionOf.find(token.getDefiningOp());
    if (it == positionOf.end())
      return std::nullopt;
    return it->second;
  };
  for (BufferOp buffer : body.getOps<BufferOp>()) {
    std::optional<ArrayRef<int64_t>> live = buffer.getLive();
    if (!live || live->size() != 2 || !buffer.getCause())
      continue; // pplan_buffer_c6 and c7 report the buffer.
    int64_t start = (*live)[0], end = (*live)[1];
    auto fail = [&](llvm::StringRef rule) {
      return buffer.emitOpError()
             << rule << ": buffer '" << buffer.getSymName() << "' ";
    };
    if (start < 0 || start > end || end >= positions)
      return fail("pplan_buffer_c7")
             << "lives over [" << start << ", " << end
             << "], which is not an interval 0 <= start <= end < " << positions
             << " of the stage's positions";
    if (buffer.getKind() == workload::BufferKind::Persistent) {
      if (buffer.getProducer() || !buffer.getConsumers().empty())
        return fail("pplan_buffer_c8")
               << "is persistent: it has no producer and no consumers";
      if (start != 0 || end != positions - 1)
        return fail("pplan_buffer_c8")
               << "is persistent: it lives over the whole stage, [0, "
               << positions - 1 << "], not [" << start << ", " << end << "]";
      continue;
    }
    Value producer = buffer.getProducer();
    if (!producer)
      return fail("pplan_buffer_c8")
             << "is " << workload::stringifyEnum(buffer.getKind())
             << ": it has a producer, whose position starts its lifetime";
    std::optional<int64_t> made = position(producer);
    if (!made)
      continue; // pplan_buffer_c2 reports the buffer.
    if (start != *made)
      return fail("pplan_buffer_c8")
             << "starts at position " << start
             << " but its producer is at position " << *made;
    int64_t last = *made;
    bool read = false;
    for (Value consumer : buffer.getConsumers()) {
      std::optional<int64_t> at = position(consumer);
      if (!at)
        continue; // pplan_buffer_c3 reports the buffer.
      if (*at < *made)
        return fail("pplan_buffer_c9")
               << "is read before it is produced: the consumer at position "
               << *at << " runs before the producer at position " << *made;
      last = std::max(last, *at);
      read = true;
    }
    if (end != last)
      return fail("pplan_buffer_c10")
             << (end < last ? "is freed before its last consumer"
                            : "outlives its last consumer")
             << ": it lives until position " << end << " but its last "
             << (read ? "consumer" : "use, its producer,") << " is at position "
             << last;
  }
  return success();
}

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

LogicalResult TemplateOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  bool decode = getPass() == workload::PipelinePass::Decode;
  std::optional<int64_t> context = getContextLength();
  if (decode && (!context || *context < 1))
    return emitOpError() << "pplan_template_c2: decode template @"
                         << getSymName()
                         << " states its positive context length";
  if (!decode && context)
    return emitOpError() << "pplan_template_c2: only a decode template has "
                            "a context, not a "
                         << workload::stringifyEnum(getPass()) << " template";
  return success();
}

LogicalResult TemplateOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.empty())
    return emitOpError() << "pplan_template_c1: a template holds at least "
                            "one task";
  for (Operation &op : body) {
    auto task = llvm::dyn_cast<TaskOp>(op);
    if (!task)
      return op.emitOpError()
             << "pplan_template_c1: a template holds pplan.task ops only";
    if (task.getCadence() != getCadence())
      return task.emitOpError()
             << "pplan_template_c1: " << task.getPrimitive() << " is "
             << workload::stringifyEnum(task.getCadence())
             << " work but template @" << getSymName() << " ("
             << workload::stringifyEnum(getPass()) << ") runs "
             << workload::stringifyEnum(getCadence());
  }
  return success();
}

LogicalResult StageOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  auto plan = (*this)->getParentOfType<PlanOp>();
  int64_t stages = plan.getMapping().getPp();
  if (getIndex() < 0 || getIndex() >= stages)
    return emitOpError() << "pplan_stage_c1: index " << getIndex()
                         << " is not a pipeline stage (pp = " << stages << ")";
  return success();
}

LogicalResult StageOp::verifyRegions() {
  for (Operation &op : getBody().front())
    if (!llvm::isa<InstanceOp, SendOp, RecvOp, TaskOp, BufferOp>(op))
      return op.emitOpError() << "pplan_stage_c3: a stage holds instances, "
                                 "sends, receives, tasks and buffers only";
  if (failed(verifyReadyBlocks<InstanceOp>(
          getBody().front(),
          [](InstanceOp instance) { return instance.lookupTemplate(); },
          "pplan_stage_c4")))
    return failure();
  return verifyBufferLifetimes(*this);
}

llvm::Expected<workload::StageTotals> StageOp::summarizeWork() {
  llvm::DenseMap<Operation *, workload::WorkSummary> templates;
  return summarizeStage<InstanceOp, SendOp, RecvOp>(
      getBody().front(), getIndex(),
      [](InstanceOp instance) -> Operation * {
        return instance.lookupTemplate();
      },
      fusedFiguresOf, templates);
}

int64_t InstanceOp::getRepetitions() {
  std::optional<ArrayRef<int64_t>> blocks = getBlocks();
  return blocks && blocks->size() == 2 ? (*blocks)[1] - (*blocks)[0] : 1;
}

TemplateOp InstanceOp::lookupTemplate() {
  // The stage is the symbol table of its buffers: templates are the plan's.
  return findTemplate<TemplateOp>((*this)->getParentOfType<PlanOp>(),
                                  getTemplateNameAttr().getAttr());
}

/// The dependency rule of a stage op: every token is of an op of the same
/// stage.
static LogicalResult verifyStageDependencies(Operation *op, ValueRange deps,
                                             llvm::StringRef rule) {
  for (Value dep : deps) {
    Operation *producer = dep.getDefiningOp();
    if (!producer || producer->getParentOp() != op->getParentOp())
      return op->emitOpError() << rule
                               << ": every dependency must be the token of "
                                  "an op of the same stage";
  }
  return success();
}

LogicalResult InstanceOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  TemplateOp templateOp = lookupTemplate();
  if (!templateOp)
    return emitOpError() << "pplan_instance_c1: " << getTemplateNameAttr()
                         << " does not name a pplan.template of the plan";
  const std::optional<workload::RunShape> &shape =
      enclosingRunShape<PlanOp>(*this);
  if (!shape)
    return success(); // pplan_plan_c4 or c5 reports the plan.
  if (failed(verifyInstanceShape(*this, templateOp, *shape,
                                 (*this)->getParentOfType<StageOp>().getIndex(),
                                 "pplan_instance")))
    return failure();
  return verifyStageDependencies(*this, getDeps(), "pplan_instance_c4");
}

/// pplan_transfer_c1 .. c4 of a send (`sending`) or a receive.
template <typename TransferOpT>
static LogicalResult verifyTransfer(TransferOpT op, bool sending) {
  if (failed(verifyNoForeignAttributes(op)))
    return failure();
  if (failed(verifyTransferShape(
          op, sending, enclosingRunShape<PlanOp>(op),
          op->template getParentOfType<StageOp>().getIndex(),
          "pplan_transfer")))
    return failure();
  return verifyStageDependencies(op, op.getDeps(), "pplan_transfer_c4");
}

LogicalResult SendOp::verify() { return verifyTransfer(*this, true); }

LogicalResult RecvOp::verify() { return verifyTransfer(*this, false); }

#define GET_OP_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.cpp.inc"
