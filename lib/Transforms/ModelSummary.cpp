//===- ModelSummary.cpp - Model-level quantities of every training plan ---===//
//
// A thin pass over lib/Analysis: reads each plan's tasks through
// WorkFactsOpInterface, its block-output buffer and its contracts, derives
// the model-level quantities and, given a profile, the iteration time, and
// prints them. The plan is never changed, so neither the profile nor the
// binding can reach a digest.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/PlanAnalyses.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Implementation.h"
#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace blueprint {
#define GEN_PASS_DEF_MODELSUMMARY
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// The block work, contracts and block-output buffer of a training plan.
/// The block output one rank holds, read off a whole-run plan: what a stage
/// sends per activation message (times tp when Megatron-LM's scatter/gather
/// sends 1/t of it); without a pipeline, from the contracts' boundaries.
llvm::Expected<int64_t> wholeRunOutputBytes(pplan::PlanOp plan,
                                            const analysis::PlanWork &work) {
  for (pplan::StageOp stage : plan.getBody().getOps<pplan::StageOp>())
    for (pplan::SendOp send : stage.getBody().getOps<pplan::SendOp>())
      if (send.getMessage() == workload::PipelineMessage::Activation)
        return workload::scattersPipelineMessages(work.mapping)
                   ? send.getBytes() * work.mapping.tp
                   : send.getBytes();
  llvm::Expected<std::vector<workload::BoundaryTensor>> boundaries =
      workload::blockBoundaries(work.model, work.training, work.mapping);
  if (!boundaries)
    return boundaries.takeError();
  for (const workload::BoundaryTensor &tensor : *boundaries)
    if (tensor.role == workload::BoundaryRole::ActivationOut)
      return workload::bytesPerRank(tensor, work.mapping.tp, work.mapping.cp);
  return llvm::createStringError("the block has no output activation");
}

/// The graph's figures of a whole-run plan, each checked against the
/// closed form the model summary derives independently.
llvm::Expected<analysis::GraphFigures>
readGraph(const ProgramTotals &totals,
          const analysis::ModelQuantities &quantities,
          const analysis::PlanWork &work) {
  const workload::MappingSpec &mapping = work.mapping;
  analysis::GraphFigures graph;
  llvm::Expected<analysis::RunFlops> flops =
      analysis::runFlopsOf(totals.stages, work.model, work.training, mapping);
  if (!flops)
    return flops.takeError();
  // The recompute passes are what runs and the model does not count.
  graph.modelFlops = flops->model;
  graph.recomputeFlops = flops->hardware - flops->model;
  for (const workload::StageTotals &stage : totals.stages)
    graph.pipelineBytesSent.push_back(stage.bytesSent);
  auto disagree = [](llvm::StringRef what, const llvm::Twine &graph,
                     const llvm::Twine &closed) {
    return llvm::createStringError(("the whole-run graph's " + what + " " +
                                    graph + " differ from the closed form's " +
                                    closed)
                                       .str());
  };
  if (graph.modelFlops != quantities.flops.model)
    return disagree("model FLOPs", analysis::toDecimal(graph.modelFlops),
                    analysis::toDecimal(quantities.flops.model));
  if (graph.recomputeFlops != quantities.flops.recompute)
    return disagree("recompute FLOPs",
                    analysis::toDecimal(graph.recomputeFlops),
                    analysis::toDecimal(quantities.flops.recompute));
  // Without a sharded optimizer the first stage steps every parameter it
  // holds, once: the closed forms' first-stage parameters.
  if (mapping.zeroStage == 0 || mapping.dp == 1) {
    const workload::WorkTotals &step = totals.stages.front().work.at(
        workload::Phase::Optimizer, workload::Engine::Vector);
    graph.firstStageParameters =
        step.ops / workload::opcount::kAdamWPerParameter;
    int64_t expected = quantities.parameters.firstStagePerRank;
    if (*graph.firstStageParameters != expected)
      return disagree("first-stage parameters per rank",
                      llvm::Twine(*graph.firstStageParameters),
                      llvm::Twine(expected));
  }
  // A middle stage (no model edge on any of its chunks) sends what the
  // closed form counts for one.
  if (mapping.pp >= 3 && graph.pipelineBytesSent[1] !=
                             quantities.communication.pipeline.messageBytes)
    return disagree(
        "pipeline bytes of stage 1", llvm::Twine(graph.pipelineBytesSent[1]),
        llvm::Twine(quantities.communication.pipeline.messageBytes));
  return graph;
}

llvm::Expected<analysis::PlanWork> readPlanWork(pplan::PlanOp plan) {
  analysis::PlanWork work;
  work.model = plan.getModel().getSpec();
  work.training = plan.getTrainingAttr().getSpec();
  work.mapping = plan.getMapping().getSpec();
  work.perMicroBatch.cadence = workload::Cadence::PerMicroBatch;
  work.perIteration.cadence = workload::Cadence::PerIteration;
  // A whole-run plan states the block's work once, in its block templates:
  // those of the representative block kind (an MoE block's of a model that
  // mixes kinds; deriveModelQuantities derives the other kind's).
  llvm::SmallVector<pplan::TaskOp> tasks;
  if (plan.isWholeRun()) {
    std::string prefix =
        workload::blockTemplatePrefix(
            work.model, workload::representativeBlockKind(work.model)) +
        "block_";
    for (pplan::TemplateOp templateOp :
         plan.getBody().getOps<pplan::TemplateOp>())
      if (templateOp.getPart() == workload::ModelPart::Block &&
          templateOp.getSymName().starts_with(prefix))
        llvm::append_range(tasks, templateOp.getBody().getOps<pplan::TaskOp>());
  } else {
    llvm::append_range(tasks, plan.getBody().getOps<pplan::TaskOp>());
  }
  for (pplan::TaskOp task : tasks) {
    // The closed forms compare the model's semantic work task by task; a
    // fused task holds the executed facts of one kernel and its originals'
    // totals only (docs/ModelSummary.md).
    if (task.getFusesAttr())
      return llvm::createStringError(
          "model_summary_c2: task '%s' is fused by --apply-implementation "
          "(%s): the model summary reads the semantic work of unfused "
          "tasks; run it on the plan before the transformation",
          task.getPrimitive().str().c_str(),
          task.getImplementation()->str().c_str());
    llvm::Expected<workload::Invocation> invocation =
        toInvocation(llvm::cast<WorkFactsOpInterface>(task.getOperation()));
    if (!invocation)
      return invocation.takeError();
    switch (task.getCadence()) {
    case workload::Cadence::PerMicroBatch:
      work.perMicroBatch.invocations.push_back(std::move(*invocation));
      break;
    case workload::Cadence::PerIteration:
      work.perIteration.invocations.push_back(std::move(*invocation));
      break;
    default:
      return llvm::createStringError(
          "task '%s' has cadence %s, which is not training work",
          invocation->primitive.c_str(),
          workload::stringifyEnum(task.getCadence()).str().c_str());
    }
  }
  if (plan.isWholeRun()) {
    llvm::Expected<int64_t> outputBytes = wholeRunOutputBytes(plan, work);
    if (!outputBytes)
      return outputBytes.takeError();
    work.blockOutputBytesPerRank = *outputBytes;
    return work;
  }
  // The block output is the boundary buffer forward work writes
  // (dist_boundary_c3: activation_out is produced by forward work).
  std::optional<int64_t> outputBytes;
  for (pplan::BufferOp buffer : plan.getBody().getOps<pplan::BufferOp>()) {
    Value producer = buffer.getProducer();
    if (!producer)
      continue;
    auto task = producer.getDefiningOp<pplan::TaskOp>();
    if (!task || task.getPhase() != workload::Phase::Forward)
      continue;
    if (outputBytes)
      return llvm::createStringError(
          "more than one buffer is written by forward work; the block has "
          "one output activation");
    outputBytes = buffer.getBytes();
  }
  if (!outputBytes)
    return llvm::createStringError(
        "no buffer is written by forward work; the block output activation "
        "is missing");
  work.blockOutputBytesPerRank = *outputBytes;
  return work;
}

struct ModelSummaryPass : blueprint::impl::ModelSummaryBase<ModelSummaryPass> {
  using ModelSummaryBase::ModelSummaryBase;

  /// The whole-run plan's peaks from its buffer lifetimes and, with a
  /// profile, its iteration time from the critical path; the first stage's
  /// block activations are checked against the closed form where one
  /// exists (a uniform layout outside ZB-H1).
  llvm::Error readMemoryAndTime(pplan::PlanOp plan,
                                const analysis::PlanWork &work,
                                const analysis::ModelQuantities &quantities,
                                const estimate::SystemProfile *profile,
                                const estimate::NetworkTierBinding &tiers,
                                analysis::GraphFigures &graph) {
    const auto &memory = getChildAnalysis<PlanMemoryAnalysis>(plan);
    if (memory.error())
      return llvm::createStringError(*memory.error());
    for (const workload::StageMemory &stage : memory.memory())
      graph.peakBytesPerStage.push_back(stage.peakBytes);
    graph.firstStageBlockActivations =
        memory.memory().front().maxByCause[static_cast<size_t>(
            workload::BufferCause::BlockActivations)];
    bool closedForm =
        work.mapping.schedule != workload::PipelineSchedule::ZeroBubbleH1 &&
        workload::layoutOf(work.model, work.mapping).isUniform();
    if (closedForm &&
        graph.firstStageBlockActivations != quantities.activations.firstStage)
      return llvm::createStringError(
          "the whole-run graph's first-stage activations " +
          std::to_string(graph.firstStageBlockActivations) +
          " differ from the closed form's " +
          std::to_string(quantities.activations.firstStage));
    // Unsharded, the first stage's weights and optimizer state are the
    // closed forms'.
    if (work.mapping.zeroStage == 0 || work.mapping.dp == 1) {
      const workload::StageMemory &first = memory.memory().front();
      auto held = [&](workload::BufferCause cause) {
        return first.peakByCause[static_cast<size_t>(cause)];
      };
      int64_t weights = quantities.state.weights;
      int64_t optimizer = quantities.state.optimizerState;
      if (held(workload::BufferCause::Weights) != weights ||
          held(workload::BufferCause::OptimizerState) != optimizer)
        return llvm::createStringError(
            "the whole-run graph's first-stage weights and optimizer state " +
            std::to_string(held(workload::BufferCause::Weights)) + " and " +
            std::to_string(held(workload::BufferCause::OptimizerState)) +
            " differ from the closed form's " + std::to_string(weights) +
            " and " + std::to_string(optimizer));
    }
    if (!profile)
      return llvm::Error::success();
    llvm::Expected<analysis::RunGraph> runGraph =
        planGraphOf(plan, *profile, tiers);
    if (!runGraph)
      return runGraph.takeError();
    llvm::Expected<analysis::CriticalPathReport> path =
        analysis::longestPath(*runGraph);
    if (!path)
      return path.takeError();
    std::optional<analysis::Utilization> utilization =
        analysis::flopsUtilization(
            analysis::RunFlops{quantities.flops.model,
                               quantities.flops.hardware},
            estimate::secondsOf(path->iterationPicoseconds), work.mapping.world,
            *profile, work.training.activationType);
    if (!utilization)
      return llvm::createStringError(
          "profile '" + profile->name + "' declares no matmul rate at " +
          workload::stringifyEnum(work.training.activationType).str());
    analysis::GraphFigures::CriticalPathTime time;
    time.iterationPicoseconds = path->iterationPicoseconds;
    time.exposedCommunicationPicoseconds =
        path->exposedCommunicationPicoseconds;
    time.modelFlopsUtilization = utilization->model;
    time.hardwareFlopsUtilization = utilization->hardware;
    graph.time = time;
    return llvm::Error::success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const llvm::Twine &message) {
      module.emitError() << "model-summary: " << message;
      signalPassFailure();
    };
    if (format != "table" && format != "json")
      return fail("format must be 'table' or 'json', got '" + format + "'");
    std::optional<estimate::SystemProfile> profile;
    if (!profileFile.empty()) {
      llvm::Expected<estimate::SystemProfile> loaded =
          estimate::loadSystemProfile(profileFile);
      if (!loaded)
        return fail(llvm::toString(loaded.takeError()));
      profile = std::move(*loaded);
    } else if (!binding.empty()) {
      return fail("binding= needs profile=<SystemProfile JSON file>");
    }
    llvm::Expected<estimate::NetworkTierBinding> tiers =
        estimate::parseNetworkTierBindingEntries(binding);
    if (!tiers)
      return fail(llvm::toString(tiers.takeError()));
    llvm::Expected<std::vector<workload::Implementation>> transformations =
        workload::parseImplementations(implementations);
    if (!transformations)
      return fail(llvm::toString(transformations.takeError()));
    if (!transformations->empty() && !profile)
      return fail("model_summary_c3: implementations= costs the composed "
                  "time, which needs profile=<SystemProfile JSON file>");

    std::vector<std::pair<analysis::ModelSummary, ProgramTotals>> summaries;
    for (Operation &op : module.getBody()->getOperations()) {
      if (llvm::isa<dist::ProgramOp>(op))
        return fail("@" + SymbolTable::getSymbolName(&op).getValue() +
                    " is distributed IR; the model summary reads a portable "
                    "plan (run --plan-portable first)");
      auto plan = llvm::dyn_cast<pplan::PlanOp>(op);
      if (!plan)
        continue;
      std::string where = "@" + plan.getSymName().str() + ": ";
      if (!plan.getTrainingAttr())
        return fail(where + "an inference plan; the model summary covers "
                            "training runs");
      llvm::Expected<analysis::PlanWork> work = readPlanWork(plan);
      if (!work)
        return fail(where + llvm::toString(work.takeError()));
      // The summary's closed forms (SeqSel's FLOPs, memory and iteration
      // time) count tp * pp * dp ranks of full sequences; context
      // parallelism's are not derived in them (docs/ModelSummary.md).
      if (work->mapping.cp > 1)
        return fail(where +
                    "model_summary_c1: cp = " + llvm::Twine(work->mapping.cp) +
                    ": the model summary's closed forms have no context "
                    "parallelism; --work-summary, --memory-report and "
                    "--critical-path cover a cp > 1 plan");
      llvm::Expected<analysis::ModelQuantities> quantities =
          analysis::deriveModelQuantities(*work);
      if (!quantities)
        return fail(where + llvm::toString(quantities.takeError()));
      analysis::ModelSummary summary;
      summary.planName = plan.getSymName().str();
      summary.model = work->model;
      summary.mapping = work->mapping;
      // The closed form composes a uniform pipeline's slots of one block
      // kind; ZB-H1's, an uneven layout's and a model's that mixes block
      // kinds time exists only as the whole-run graph's.
      bool closedFormTime =
          !plan.isWholeRun() ||
          (work->mapping.schedule != workload::PipelineSchedule::ZeroBubbleH1 &&
           workload::layoutOf(work->model, work->mapping).isUniform() &&
           workload::blockKindsOf(work->model).size() == 1);
      if (!transformations->empty() && plan.isWholeRun())
        return fail(where + "model_summary_c3: implementations= costs the "
                            "closed-form block time of a block-scope plan; "
                            "on a whole-run plan run --apply-implementation "
                            "and --critical-path");
      if (profile && closedFormTime) {
        // The block as it runs: the semantic tasks under the listed
        // transformations (the counts above stay the semantic work's).
        analysis::PlanWork executed = *work;
        llvm::Expected<workload::ImplementationContext> run =
            workload::implementationContextOf(work->training, work->model,
                                              work->mapping);
        if (!run)
          return fail(where + llvm::toString(run.takeError()));
        // Per micro-batch (the fusions of the block) and per iteration (the
        // optimizer step's implementation).
        for (workload::BlockWork *part :
             {&executed.perMicroBatch, &executed.perIteration}) {
          llvm::Expected<std::vector<workload::Invocation>> tasks =
              workload::applyImplementations(
                  *transformations, std::move(part->invocations), *run);
          if (!tasks)
            return fail(where + llvm::toString(tasks.takeError()));
          part->invocations = std::move(*tasks);
        }
        llvm::Expected<analysis::IterationTime> time =
            analysis::composeIterationTime(executed, *quantities, *profile,
                                           *tiers);
        if (!time)
          return fail(where + llvm::toString(time.takeError()));
        for (workload::Implementation implementation : *transformations)
          time->implementations.push_back(
              workload::nameOf(implementation).str());
        summary.time = std::move(*time);
      }
      FailureOr<ProgramTotals> totals = summarizeProgram(plan);
      if (failed(totals))
        return signalPassFailure();
      if (plan.isWholeRun()) {
        llvm::Expected<analysis::GraphFigures> graph =
            readGraph(*totals, *quantities, *work);
        if (!graph)
          return fail(where + llvm::toString(graph.takeError()));
        if (llvm::Error error = readMemoryAndTime(plan, *work, *quantities,
                                                  profile ? &*profile : nullptr,
                                                  *tiers, *graph))
          return fail(where + llvm::toString(std::move(error)));
        summary.graph = std::move(*graph);
      }
      summary.quantities = std::move(*quantities);
      summaries.emplace_back(std::move(summary), std::move(*totals));
    }

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    if (format == "json") {
      llvm::json::OStream json(output->os(), 2);
      json.object([&] {
        json.attributeArray("plans", [&] {
          for (const auto &entry : summaries)
            json.object([&] {
              json.attribute("plan", entry.first.planName);
              // The block's own totals, as --work-summary prints them.
              json.attribute("block_work", toJSON(entry.second));
              analysis::writeModelSummaryAttributes(entry.first, json);
            });
        });
      });
      output->os() << "\n";
    } else {
      for (const auto &entry : summaries)
        analysis::printModelSummaryTable(entry.first, output->os());
    }
    output->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
