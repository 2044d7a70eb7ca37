//===- PlanAnalyses.cpp - Memory and time of a whole-run plan -------------===//
//
// docs/Memory.md states the model; this file only reads the plan into the
// plain structures of lib/Workload/Lifetimes and lib/Analysis/CriticalPath.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/PlanAnalyses.h"

#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Workload/Pipeline.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace blueprint;

namespace {

llvm::Error failure(Operation *op, const llvm::Twine &message) {
  std::string where;
  if (auto symbol =
          op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    where = "@" + symbol.str() + ": ";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 where + message.str());
}

/// The plan's stages by index (the verifier accepts them in any order).
llvm::SmallVector<pplan::StageOp> stagesOf(pplan::PlanOp plan) {
  llvm::SmallVector<pplan::StageOp> stages(
      plan.getBody().getOps<pplan::StageOp>());
  llvm::sort(stages, [](pplan::StageOp lhs, pplan::StageOp rhs) {
    return lhs.getIndex() < rhs.getIndex();
  });
  return stages;
}

/// The stage's ops that are not buffers: its positions.
llvm::SmallVector<Operation *> positionsOf(pplan::StageOp stage) {
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : stage.getBody().front())
    if (!llvm::isa<pplan::BufferOp>(op))
      ops.push_back(&op);
  return ops;
}

} // namespace

llvm::Expected<std::vector<workload::StageBuffers>>
blueprint::stageBuffersOf(pplan::PlanOp plan) {
  std::vector<workload::StageBuffers> result;
  for (pplan::StageOp stage : stagesOf(plan)) {
    llvm::SmallVector<Operation *> ops = positionsOf(stage);
    llvm::DenseMap<Value, size_t> positionOf;
    for (auto [position, op] : llvm::enumerate(ops))
      positionOf[op->getResult(0)] = position;
    workload::StageBuffers buffers;
    buffers.stage = stage.getIndex();
    buffers.positions = ops.size();
    for (pplan::BufferOp op : stage.getBody().getOps<pplan::BufferOp>()) {
      std::optional<llvm::ArrayRef<int64_t>> live = op.getLive();
      if (!op.getCause() || !live || live->size() != 2 || (*live)[0] < 0 ||
          (*live)[1] < 0)
        return failure(op, "a stage buffer needs a cause and a lifetime "
                           "(pplan_buffer_c6, c7)");
      workload::RunBuffer buffer;
      buffer.name = op.getSymName().str();
      buffer.cause = *op.getCause();
      buffer.bytes = op.getBytes();
      if (Value producer = op.getProducer())
        buffer.producer = positionOf.lookup(producer);
      for (Value consumer : op.getConsumers())
        buffer.consumers.push_back(positionOf.lookup(consumer));
      buffer.start = static_cast<size_t>((*live)[0]);
      buffer.end = static_cast<size_t>((*live)[1]);
      buffers.buffers.push_back(std::move(buffer));
    }
    result.push_back(std::move(buffers));
  }
  return result;
}

PlanMemoryAnalysis::PlanMemoryAnalysis(Operation *op) {
  auto plan = llvm::cast<pplan::PlanOp>(op);
  llvm::Expected<std::vector<workload::StageBuffers>> buffers =
      stageBuffersOf(plan);
  if (!buffers) {
    failure = llvm::toString(buffers.takeError());
    return;
  }
  stageBuffers = std::move(*buffers);
  for (const workload::StageBuffers &stage : stageBuffers) {
    llvm::Expected<workload::StageMemory> memory =
        workload::analyzeMemory(stage);
    if (!memory) {
      failure = llvm::toString(memory.takeError());
      return;
    }
    stageMemory.push_back(std::move(*memory));
  }
}

llvm::Expected<analysis::RunGraph>
blueprint::planGraphOf(pplan::PlanOp plan,
                       const estimate::SystemProfile &profile,
                       const estimate::NetworkTierBinding &binding) {
  workload::MappingSpec mapping = plan.getMapping().getSpec();
  workload::DataType computeType =
      plan.getTrainingAttr() ? plan.getTrainingAttr().getActivationType()
                             : plan.getInferenceAttr().getActivationType();
  analysis::StepCoster coster(mapping, computeType, profile, binding);
  auto taskOf =
      [](pplan::TaskOp task,
         llvm::StringRef axis) -> llvm::Expected<estimate::EstimateTask> {
    llvm::Expected<workload::InvocationFigures> figures =
        figuresOf(llvm::cast<WorkFactsOpInterface>(task.getOperation()));
    if (!figures)
      return figures.takeError();
    return estimate::makeEstimateTask(*figures, task.getCadence(), axis);
  };

  // Each template's tasks, one after another on one rank.
  llvm::StringMap<std::pair<pplan::TemplateOp, analysis::TaskTimes>> templates;
  for (pplan::TemplateOp templateOp :
       plan.getBody().getOps<pplan::TemplateOp>()) {
    std::vector<estimate::EstimateTask> tasks;
    for (pplan::TaskOp task : templateOp.getBody().getOps<pplan::TaskOp>()) {
      // Its axis (pplan_task_c8): cp for the key/value exchange, tp
      // otherwise.
      llvm::Expected<estimate::EstimateTask> estimateTask =
          taskOf(task, task.getAxis().value_or(workload::kTensorParallelAxis));
      if (!estimateTask)
        return estimateTask.takeError();
      tasks.push_back(std::move(*estimateTask));
    }
    llvm::Expected<analysis::TaskTimes> times = coster.times(std::move(tasks));
    if (!times)
      return failure(templateOp, llvm::toString(times.takeError()));
    templates[templateOp.getSymName()] = {templateOp, *times};
  }

  int64_t chunks = mapping.pp * mapping.virtualStages;
  analysis::RunGraph graph;
  for (pplan::StageOp stage : stagesOf(plan)) {
    llvm::SmallVector<Operation *> ops = positionsOf(stage);
    llvm::DenseMap<Value, size_t> positionOf;
    for (auto [position, op] : llvm::enumerate(ops))
      positionOf[op->getResult(0)] = position;
    std::vector<analysis::GraphStep> steps;
    steps.reserve(ops.size());
    for (Operation *op : ops) {
      analysis::GraphStep step;
      if (auto instance = llvm::dyn_cast<pplan::InstanceOp>(op)) {
        auto found = templates.find(instance.getTemplateName());
        if (found == templates.end())
          return failure(plan, "an instance runs template @" +
                                   instance.getTemplateName() +
                                   ", which the plan does not define");
        std::optional<int64_t> microBatch;
        if (instance.getMicroBatchAttr())
          microBatch = instance.getMicroBatchAttr().getInt();
        std::optional<std::pair<int64_t, int64_t>> blocks;
        if (std::optional<llvm::ArrayRef<int64_t>> range = instance.getBlocks())
          blocks = {(*range)[0], (*range)[1]};
        step = analysis::instanceStep(
            instance.getTemplateName(), found->second.first.getPass(),
            instance.getChunk(), microBatch, blocks,
            analysis::StepCoster::instanceTimes(found->second.second,
                                                instance.getRepetitions()));
      } else if (auto send = llvm::dyn_cast<pplan::SendOp>(op)) {
        llvm::Expected<double> transfer =
            coster.transferSeconds(send.getBytes());
        if (!transfer)
          return failure(plan, llvm::toString(transfer.takeError()));
        step = analysis::messageStep(
            true, send.getMessage(), send.getMicroBatch(), send.getChunk(),
            send.getPeer(), chunks, *transfer, coster.overlapsP2PComm());
      } else if (auto recv = llvm::dyn_cast<pplan::RecvOp>(op)) {
        step = analysis::messageStep(
            false, recv.getMessage(), recv.getMicroBatch(), recv.getChunk(),
            recv.getPeer(), chunks, 0, coster.overlapsP2PComm());
      } else {
        auto task = llvm::cast<pplan::TaskOp>(op);
        llvm::StringRef axis = task.getAxis().value_or("");
        llvm::Expected<estimate::EstimateTask> estimateTask =
            taskOf(task, axis);
        if (!estimateTask)
          return estimateTask.takeError();
        llvm::ArrayRef<int64_t> group;
        if (std::optional<llvm::ArrayRef<int64_t>> positions =
                task.getAxisGroup())
          group = *positions;
        size_t groupSize = group.size();
        llvm::Expected<double> seconds =
            coster.workSeconds(*estimateTask, groupSize);
        if (!seconds)
          return failure(plan, llvm::toString(seconds.takeError()));
        step = analysis::workStep(task.getPrimitive(),
                                  task.getCollective().has_value(), axis,
                                  group, mapping.pp, task.getCadence(),
                                  task.getPhase(), *seconds);
        step.besideBackward =
            analysis::reducesBesideBackward(mapping, task.getPrimitive());
      }
      for (Value dep : op->getOperands())
        step.deps.push_back(positionOf.lookup(dep));
      // A bucket ready after the first blocks of the instance of its last
      // token (pplan_stage_c4 makes it a block instance).
      if (auto task = llvm::dyn_cast<pplan::TaskOp>(op))
        if (std::optional<uint64_t> readyBlocks = task.getReadyBlocks()) {
          auto instance = llvm::cast<pplan::InstanceOp>(
              op->getOperands().back().getDefiningOp());
          step.readyAfter = step.deps.pop_back_val();
          step.readySeconds =
              analysis::StepCoster::instanceTimes(
                  templates.find(instance.getTemplateName())->second.second,
                  static_cast<int64_t>(*readyBlocks))
                  .seconds;
        }
      steps.push_back(std::move(step));
    }
    graph.stages.push_back(std::move(steps));
  }
  return graph;
}

llvm::Expected<CostTarget>
blueprint::loadCostTarget(llvm::StringRef profileFile,
                          llvm::ArrayRef<std::string> entries,
                          llvm::StringRef bindingFile) {
  if (profileFile.empty())
    return llvm::createStringError("needs profile=<SystemProfile JSON file>");
  llvm::Expected<estimate::SystemProfile> profile =
      estimate::loadSystemProfile(profileFile);
  if (!profile)
    return profile.takeError();
  llvm::Expected<estimate::NetworkTierBinding> binding =
      bindingFile.empty() ? estimate::parseNetworkTierBindingEntries(entries)
      : entries.empty()
          ? estimate::loadNetworkTierBinding(bindingFile)
          : llvm::Expected<estimate::NetworkTierBinding>(llvm::createStringError(
                "give binding= or binding-file=, not both"));
  if (!binding)
    return binding.takeError();
  return CostTarget{std::move(*profile), std::move(*binding)};
}
