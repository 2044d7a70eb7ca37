//===- PPlanOps.cpp - PortablePlanIR operations and their rules -----------===//
//
// The verifier rules of docs/PPlanSpec.md; each diagnostic starts with the
// rule's label.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"

#include "Blueprint/Interfaces/TensorBytes.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Workload/Plan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

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

LogicalResult PlanOp::verifyRegions() {
  Dialect *dialect = (*this)->getDialect();
  for (Operation &op : getBody().front())
    if (op.getDialect() != dialect)
      return op.emitOpError()
             << "pplan_c1: only pplan ops may appear in a portable plan";

  // Only capabilities and groups are named by tasks (the SymbolTable trait
  // has already rejected duplicate names).
  llvm::DenseMap<StringAttr, Operation *> symbols;
  for (CapabilityOp capability : getBody().getOps<CapabilityOp>())
    symbols.try_emplace(capability.getSymNameAttr(), capability);
  for (GroupOp group : getBody().getOps<GroupOp>())
    symbols.try_emplace(group.getSymNameAttr(), group);
  for (TaskOp task : getBody().getOps<TaskOp>())
    if (failed(verifyTaskReferences(task, symbols)))
      return failure();

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
    if (!rows.count({cadence, task.getPhase(), task.getEngine()}))
      return emitOpError()
             << "pplan_plan_c2: no ledger row records the distributed "
                "IR's "
             << workload::stringifyEnum(cadence) << " "
             << workload::stringifyEnum(task.getPhase()) << " "
             << workload::stringifyEnum(task.getEngine()) << " work, so task "
             << task.getPrimitive() << " cannot be checked for conservation";
    llvm::Expected<workload::InvocationFigures> figures = addToSummaries(
        byCadence, llvm::cast<WorkFactsOpInterface>(task.getOperation()));
    if (!figures)
      return task.emitOpError()
             << "pplan_plan_c2: " << llvm::toString(figures.takeError());
  }
  for (auto [key, row] : rows) {
    auto [cadence, phase, engine] = key;
    auto summary = byCadence.find(cadence);
    if (summary == byCadence.end())
      return row.emitOpError()
             << "pplan_plan_c2: the ledger records "
             << workload::stringifyEnum(cadence)
             << " work the plan has no task for";
    const workload::WorkTotals &found = summary->second.at(phase, engine);
    std::pair<llvm::StringRef, std::pair<int64_t, int64_t>> quantities[] = {
        {"invocations",
         {static_cast<int64_t>(row.getInvocations()), found.invocations}},
        {"ops", {static_cast<int64_t>(row.getOps()), found.ops}},
        {"read bytes", {static_cast<int64_t>(row.getRead()), found.readBytes}},
        {"write bytes",
         {static_cast<int64_t>(row.getWrite()), found.writeBytes}},
        {"message bytes",
         {static_cast<int64_t>(row.getMessage()), found.messageBytes}},
        {"stash bytes",
         {static_cast<int64_t>(row.getStash()), found.stashBytes}}};
    for (auto [quantity, values] : quantities)
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

//===----------------------------------------------------------------------===//
// CapabilityOp, GroupOp, ObjectiveOp, LedgerOp
//===----------------------------------------------------------------------===//

LogicalResult CapabilityOp::verify() {
  return verifyNoForeignAttributes(*this);
}

LogicalResult GroupOp::verify() { return verifyNoForeignAttributes(*this); }

LogicalResult ObjectiveOp::verify() {
  return verifyNoForeignAttributes(*this);
}

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

std::optional<workload::CollectiveFacts> TaskOp::getCollectiveFacts() {
  CollectiveAttr collective = getCollectiveAttr();
  if (!collective)
    return std::nullopt;
  workload::CollectiveFacts facts;
  facts.kind = collective.getKind();
  facts.reduction = collective.getReduction();
  facts.participants = collective.getParticipants();
  facts.messageBytes = collective.getMessage();
  return facts;
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
    if ((collective->kind == workload::CollectiveKind::AllGather) !=
        (collective->reduction == workload::ReductionKind::None))
      return emitOpError() << "pplan_task_c4: a "
                           << workload::stringifyEnum(collective->kind)
                           << (collective->kind ==
                                       workload::CollectiveKind::AllGather
                                   ? " does not reduce"
                                   : " must reduce (reduction = sum)");
  }

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

  // pplan_task_c5
  for (Value dep : getDeps()) {
    auto producer = dep.getDefiningOp<TaskOp>();
    if (!producer || producer->getParentOp() != (*this)->getParentOp())
      return emitOpError() << "pplan_task_c5: every dependency must be the "
                              "token of a task of the same plan";
  }

  // pplan_task_c6
  if (!getStashed().empty() && getPhase() != workload::Phase::Forward)
    return emitOpError() << "pplan_task_c6: only forward work stashes, but "
                         << getPrimitive() << " ("
                         << workload::stringifyEnum(getPhase())
                         << ") stashes " << getStashed().size() << " tensors";
  return success();
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  if (failed(verifyNoForeignAttributes(*this)))
    return failure();
  if (static_cast<int64_t>(getBytes()) < 0)
    return emitOpError() << "pplan_buffer_c1: bytes must be non-negative, got "
                         << static_cast<int64_t>(getBytes());
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
      return emitOpError() << "pplan_buffer_c2: producer " << task.getPrimitive()
                           << " (" << workload::stringifyEnum(task.getPhase())
                           << ") does not write '" << getSymName() << "'";
  }
  for (Value consumer : getConsumers()) {
    TaskOp task = taskOf(consumer);
    if (!task)
      return emitOpError() << "pplan_buffer_c3: every consumer must be a task "
                              "of the plan";
    if (!findTensor(task.getReads(), getSymName()))
      return emitOpError() << "pplan_buffer_c3: consumer " << task.getPrimitive()
                           << " (" << workload::stringifyEnum(task.getPhase())
                           << ") does not read '" << getSymName() << "'";
  }
  if (!getProducer() && getConsumers().empty())
    return emitOpError() << "pplan_buffer_c4: buffer '" << getSymName()
                         << "' has neither a producer nor a consumer";
  return success();
}

#define GET_OP_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.cpp.inc"
