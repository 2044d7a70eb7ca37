//===- Evaluator.cpp - One configuration through the real pipeline --------===//
//
// The pipeline of README's main job plus the estimate, run with a reused
// context and pass manager: import (or build) ModelIR, then
// --distribute-transformer --plan-portable --verify-conservation under the
// pass manager's verifier, then the work-summary totals and the estimate of
// the plan. Diagnostics are captured, never printed: a rejected
// configuration is a row, not a failure of the batch.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/Sweep.h"

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Support/DiagnosticCapture.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/WholeRun.h"

#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/PlanEstimate.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>

using namespace mlir;
using namespace blueprint;
using namespace blueprint::sweep;

llvm::StringRef sweep::stringifyStage(Stage stage) {
  switch (stage) {
  case Stage::Import:
    return "import";
  case Stage::Pipeline:
    return "pipeline";
  case Stage::Estimate:
    return "estimate";
  }
  llvm_unreachable("unknown sweep stage");
}

Evaluator::Evaluator(const Target &target, unsigned configurationsPerContext)
    : target(target),
      configurationsPerContext(std::max(configurationsPerContext, 1u)) {}

Evaluator::~Evaluator() = default;

MLIRContext &Evaluator::freshContext() {
  if (context && evaluationsInContext < configurationsPerContext) {
    ++evaluationsInContext;
    return *context;
  }
  pipeline.reset();
  DialectRegistry registry;
  registerAllDialects(registry);
  context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  pipeline = std::make_unique<PassManager>(context.get());
  pipeline->addPass(createDistributeTransformer());
  pipeline->addPass(createPlanPortable());
  pipeline->addPass(createVerifyConservation());
  evaluationsInContext = 1;
  return *context;
}

Evaluation Evaluator::evaluateSpec(llvm::StringRef specJSON,
                                   llvm::StringRef label) {
  Evaluation evaluation;
  MLIRContext &current = freshContext();
  DiagnosticCapture capture(current, evaluation.diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(specJSON, label,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = importTransformerJSON(sourceMgr, &current);
  if (!module)
    evaluation.rejectedAt = Stage::Import;
  else
    evaluateModule(module, evaluation);
  return evaluation;
}

Evaluation Evaluator::evaluateContracts(llvm::StringRef name,
                                        const workload::ModelSpec &model,
                                        const workload::TrainingSpec &training,
                                        const workload::MappingSpec &mapping) {
  Evaluation evaluation;
  MLIRContext &current = freshContext();
  DiagnosticCapture capture(current, evaluation.diagnostics);
  OpBuilder builder(&current);
  Location loc = NameLoc::get(builder.getStringAttr(name));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  transformer::DecoderTrainingOp::create(
      builder, loc, builder.getStringAttr(name),
      transformer::getModelAttr(&current, model),
      transformer::getTrainingAttr(&current, training),
      transformer::getMappingAttr(&current, mapping));
  if (failed(verify(*module)))
    evaluation.rejectedAt = Stage::Import;
  else
    evaluateModule(module, evaluation);
  return evaluation;
}

void Evaluator::evaluateModule(OwningOpRef<ModuleOp> &module,
                               Evaluation &evaluation) {
  // The importers produce one ModelIR op (training or inference), hence one
  // program and one plan.
  evaluation.program =
      SymbolTable::getSymbolName(&module->getBody()->front()).str();
  if (failed(pipeline->run(*module))) {
    evaluation.rejectedAt = Stage::Pipeline;
    return;
  }
  auto plans = module->getOps<pplan::PlanOp>();
  if (!llvm::hasSingleElement(plans)) {
    module->emitError() << "sweep: the pipeline produced "
                        << llvm::range_size(plans)
                        << " plans where one imported spec makes one";
    evaluation.rejectedAt = Stage::Pipeline;
    return;
  }
  pplan::PlanOp plan = *plans.begin();
  FailureOr<ProgramTotals> totals = summarizeProgram(plan);
  if (failed(totals)) {
    evaluation.rejectedAt = Stage::Pipeline;
    return;
  }
  // Rows carry figures, not their provenance.
  llvm::Expected<estimate::EstimateReport> report =
      estimatePlan(plan, target.profile, target.binding, {/*explain=*/false});
  if (!report) {
    evaluation.rejectedAt = Stage::Estimate;
    evaluation.diagnostics.push_back(llvm::toString(report.takeError()));
    return;
  }
  std::optional<workload::TrainingSpec> training;
  std::optional<workload::InferenceSpec> inference;
  if (plan.getTrainingAttr())
    training = plan.getTrainingAttr().getSpec();
  else
    inference = plan.getInferenceAttr().getSpec();
  llvm::Expected<RunFigures> run = evaluateWholeRun(
      plan.getModel().getSpec(), training, inference,
      plan.getMapping().getSpec(), target.profile, target.binding);
  if (!run) {
    evaluation.rejectedAt = Stage::Estimate;
    evaluation.diagnostics.push_back(llvm::toString(run.takeError()));
    return;
  }
  evaluation.totals = std::move(*totals);
  evaluation.cadenceSeconds = report->secondsByCadence;
  evaluation.block = report->block;
  evaluation.run = *run;
}

llvm::Error
sweep::addMemoryFigures(RunFigures &figures,
                        llvm::ArrayRef<workload::StageBuffers> buffers,
                        const estimate::SystemProfile &profile) {
  for (const workload::StageBuffers &stage : buffers) {
    llvm::Expected<workload::StageMemory> memory =
        workload::analyzeMemory(stage);
    if (!memory)
      return memory.takeError();
    addStagePeak(figures, memory->stage, memory->peakBytes);
  }
  addCapacityFigures(figures, profile);
  return llvm::Error::success();
}

void sweep::addStagePeak(RunFigures &figures, int64_t stage,
                         int64_t peakBytes) {
  if (peakBytes > figures.peakBytes) {
    figures.peakBytes = peakBytes;
    figures.peakStage = stage;
  }
}

bool sweep::fitsCapacity(int64_t peakBytes,
                         const estimate::SystemProfile &profile) {
  return peakBytes <= profile.memory.usableCapacityBytes();
}

void sweep::addCapacityFigures(RunFigures &figures,
                               const estimate::SystemProfile &profile) {
  // Both are non-negative int64_t: the difference cannot overflow.
  figures.fits = fitsCapacity(figures.peakBytes, profile);
  figures.marginBytes =
      profile.memory.usableCapacityBytes() - figures.peakBytes;
}

std::optional<RunFigures>
sweep::persistentBoundFigures(const workload::ModelSpec &model,
                              const workload::TrainingSpec &training,
                              const workload::MappingSpec &mapping,
                              const estimate::SystemProfile &profile) {
  llvm::Expected<std::vector<workload::StageProgram>> stages =
      workload::deriveRunPersistentState(model, training, mapping);
  if (!stages) {
    llvm::consumeError(stages.takeError());
    return std::nullopt;
  }
  RunFigures figures;
  figures.peakIsBound = true;
  workload::OverflowGuard guard;
  for (const workload::StageProgram &stage : *stages) {
    workload::PersistentBytes bytes = workload::persistentBytesOf(
        stage, mapping, training, std::nullopt, guard);
    int64_t total =
        guard.add(guard.add(bytes.weights, bytes.gradients, "persistent bytes"),
                  bytes.optimizerState, "persistent bytes");
    addStagePeak(figures, stage.stage, total);
  }
  if (guard.failed())
    return std::nullopt;
  addCapacityFigures(figures, profile);
  return figures;
}

PersistentBoundMemo::Key
PersistentBoundMemo::keyOf(const workload::TrainingSpec &training,
                           const workload::MappingSpec &mapping) {
  // Every field of the two contracts named (a structured binding names
  // exactly the fields), so a field added to either does not compile here
  // until it is keyed or said unread. Unread by deriveRunPersistentState
  // and persistentBytesOf but for the composition check, which of()'s
  // callers have passed: recompute and tp_comm (a stage's parameters,
  // buckets and their shards do not depend on what is recomputed or on how
  // TP communicates). The rest is keyed, read or not (the key errs finer,
  // never coarser).
  const auto &[globalBatch, microBatch, activationType, weightType,
               gradientType, optimizerStateType, attentionDropout,
               hiddenDropout] = training;
  [[maybe_unused]] const auto &[tp, pp, dp, world, virtualStages, tpComm,
                                recompute, schedule, pipelineLayout, zeroStage,
                                bucketBytes, cp, cpComm, ep, overlapTPComm,
                                overlapDPGradReduce, overlapP2PComm] = mapping;
  Key key = {globalBatch,
             microBatch,
             static_cast<int64_t>(activationType),
             static_cast<int64_t>(weightType),
             static_cast<int64_t>(gradientType),
             static_cast<int64_t>(optimizerStateType),
             attentionDropout,
             hiddenDropout,
             tp,
             pp,
             dp,
             world,
             virtualStages,
             static_cast<int64_t>(schedule),
             zeroStage,
             bucketBytes,
             cp,
             static_cast<int64_t>(cpComm),
             ep,
             overlapTPComm,
             overlapDPGradReduce,
             overlapP2PComm,
             static_cast<int64_t>(pipelineLayout.size())};
  llvm::append_range(key, pipelineLayout);
  return key;
}

std::optional<RunFigures>
PersistentBoundMemo::of(const workload::ModelSpec &model,
                        const workload::TrainingSpec &training,
                        const workload::MappingSpec &mapping) {
  Key key = keyOf(training, mapping);
  if (std::optional<std::optional<RunFigures>> kept = figures.find(model, key))
    return std::move(*kept);
  std::optional<RunFigures> derived =
      persistentBoundFigures(model, training, mapping, profile);
  figures.insert(model, std::move(key), derived);
  return derived;
}

sweep::PathFigures
sweep::pathFiguresOf(const analysis::RunGraph &graph,
                     const analysis::CriticalPathReport &path) {
  PathFigures figures;
  figures.iterationPicoseconds = path.iterationPicoseconds;
  figures.exposedCommunicationPicoseconds =
      path.exposedCommunicationPicoseconds;
  // The first token exists when the last prefill step ends (the prefill
  // ends in the last stage).
  for (auto [steps, timing] : llvm::zip(graph.stages, path.timing))
    for (auto [step, time] : llvm::zip(steps, timing))
      if (step.pass == workload::PipelinePass::Prefill)
        figures.firstTokenPicoseconds =
            std::max(figures.firstTokenPicoseconds, time.end);
  return figures;
}

llvm::Error sweep::addTimeFigures(
    RunFigures &figures, const PathFigures &path,
    llvm::function_ref<llvm::Expected<analysis::RunFlops>()> flops,
    const workload::ModelSpec &model,
    const std::optional<workload::TrainingSpec> &training,
    const std::optional<workload::InferenceSpec> &inference,
    const workload::MappingSpec &mapping,
    const estimate::SystemProfile &profile) {
  // Rates divide by the time: a run that takes no time has none.
  if (path.iterationPicoseconds <= 0) {
    figures.timeUnavailable = "the critical path has no positive length";
    return llvm::Error::success();
  }
  figures.iterationPicoseconds = path.iterationPicoseconds;
  figures.exposedCommunicationPicoseconds =
      path.exposedCommunicationPicoseconds;
  llvm::Expected<analysis::RunFlops> runFlops = flops();
  if (!runFlops)
    return runFlops.takeError();
  // Rates are quotients: binary64 from the exact time.
  double seconds = estimate::secondsOf(path.iterationPicoseconds);
  workload::DataType computeType =
      training ? training->activationType : inference->activationType;
  if (std::optional<analysis::Utilization> utilization =
          analysis::flopsUtilization(*runFlops, seconds, mapping.world, profile,
                                     computeType)) {
    figures.modelFlopsUtilization = utilization->model;
    figures.hardwareFlopsUtilization = utilization->hardware;
  }
  double tokens = training
                      ? static_cast<double>(training->globalBatch) *
                            static_cast<double>(model.seqLength)
                      : static_cast<double>(inference->batch) *
                            static_cast<double>(inference->generatedTokens);
  double world = static_cast<double>(mapping.world);
  figures.tokensPerSecond = tokens / seconds;
  figures.gpuHoursPerMillionTokens = world * seconds / 3600 * 1e6 / tokens;
  if (inference) {
    // The remaining generated_tokens - 1 tokens take the rest of the
    // generation, one decode step each.
    // The first token ends a step of the path: 0 <= it <= the iteration.
    estimate::Picoseconds firstToken = path.firstTokenPicoseconds;
    figures.timeToFirstTokenPicoseconds = firstToken;
    if (inference->generatedTokens > 1) {
      // The nearest picosecond of the exact quotient, ties to even; rest
      // is not negative and the quotient is at most rest.
      estimate::Picoseconds rest = path.iterationPicoseconds - firstToken;
      figures.timePerOutputTokenPicoseconds =
          static_cast<estimate::Picoseconds>(estimate::roundedQuotient(
              static_cast<uint64_t>(rest),
              static_cast<uint64_t>(inference->generatedTokens - 1)));
    }
  }
  return llvm::Error::success();
}

llvm::Expected<DerivedRun>
sweep::deriveRun(const workload::ModelSpec &model,
                 const std::optional<workload::TrainingSpec> &training,
                 const std::optional<workload::InferenceSpec> &inference,
                 const workload::MappingSpec &mapping,
                 const estimate::SystemProfile &profile) {
  llvm::Expected<workload::WholeRun> run =
      training ? workload::deriveWholeRun(model, *training, mapping)
               : workload::deriveInferenceRun(model, *inference, mapping);
  if (!run)
    return run.takeError();
  llvm::Expected<std::vector<workload::StageBuffers>> buffers =
      workload::deriveBuffers(*run, mapping, training);
  if (!buffers)
    return buffers.takeError();
  DerivedRun derived;
  derived.run = std::move(*run);
  if (llvm::Error error = addMemoryFigures(derived.memory, *buffers, profile))
    return std::move(error);
  return derived;
}

llvm::Expected<RunFigures>
sweep::costRun(DerivedRun &derived, const workload::ModelSpec &model,
               const std::optional<workload::TrainingSpec> &training,
               const std::optional<workload::InferenceSpec> &inference,
               const workload::MappingSpec &mapping,
               const estimate::SystemProfile &profile,
               const estimate::NetworkTierBinding &binding) {
  RunFigures figures = derived.memory;
  workload::DataType computeType =
      training ? training->activationType : inference->activationType;
  // Rows carry times, not step names.
  llvm::Expected<analysis::RunGraph> graph = analysis::runGraphOf(
      derived.run, mapping, computeType, profile, binding, /*labelled=*/false);
  if (!graph) {
    figures.timeUnavailable = llvm::toString(graph.takeError());
    return figures;
  }
  llvm::Expected<analysis::CriticalPathReport> path =
      analysis::longestPath(*graph);
  if (!path)
    return path.takeError();
  if (!derived.totals) {
    llvm::Expected<std::vector<workload::StageTotals>> totals =
        workload::summarizeWholeRun(derived.run);
    if (!totals)
      return totals.takeError();
    derived.totals = std::move(*totals);
  }
  if (llvm::Error error = addTimeFigures(
          figures, pathFiguresOf(*graph, *path),
          [&] {
            return analysis::runFlopsOf(*derived.totals, model, training,
                                        mapping);
          },
          model, training, inference, mapping, profile))
    return std::move(error);
  return figures;
}

llvm::Expected<RunFigures>
sweep::evaluateWholeRun(const workload::ModelSpec &model,
                        const std::optional<workload::TrainingSpec> &training,
                        const std::optional<workload::InferenceSpec> &inference,
                        const workload::MappingSpec &mapping,
                        const estimate::SystemProfile &profile,
                        const estimate::NetworkTierBinding &binding) {
  llvm::Expected<DerivedRun> derived =
      deriveRun(model, training, inference, mapping, profile);
  if (!derived)
    return derived.takeError();
  return costRun(*derived, model, training, inference, mapping, profile,
                 binding);
}
