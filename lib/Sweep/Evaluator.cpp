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
#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Workload/Primitives.h"
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
#include "llvm/Support/CheckedArithmetic.h"
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

/// The persistent state of a rank of `stage` (persistentBytesOf): its
/// weights, gradients and optimizer state, live at every position.
static int64_t persistentTotal(const workload::PersistentBytes &bytes,
                               workload::OverflowGuard &guard) {
  return guard.add(
      guard.add(bytes.weights, bytes.gradients, "persistent bytes"),
      bytes.optimizerState, "persistent bytes");
}

/// Figures of a run whose stages' peaks are at least `stagePeaks` (stage
/// s at index s), marked peakIsBound.
static RunFigures boundFigures(llvm::ArrayRef<int64_t> stagePeaks,
                               const estimate::SystemProfile &profile) {
  RunFigures figures;
  figures.peakIsBound = true;
  for (auto [stage, peak] : llvm::enumerate(stagePeaks))
    addStagePeak(figures, static_cast<int64_t>(stage), peak);
  addCapacityFigures(figures, profile);
  return figures;
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
  workload::OverflowGuard guard;
  std::vector<int64_t> peaks;
  for (const workload::StageProgram &stage : *stages)
    peaks.push_back(
        persistentTotal(workload::persistentBytesOf(stage, mapping, training,
                                                    std::nullopt, guard),
                        guard));
  if (guard.failed())
    return std::nullopt;
  return boundFigures(peaks, profile);
}

std::optional<std::vector<int64_t>>
sweep::stagePeakBounds(const workload::WholeRun &parts,
                       llvm::ArrayRef<workload::TemplateBytes> templateBytes,
                       llvm::ArrayRef<workload::InFlightBlocks> inFlight,
                       const workload::MappingSpec &mapping,
                       const workload::TrainingSpec &training) {
  if (parts.inference || templateBytes.size() != parts.templates.size() ||
      inFlight.size() != parts.stages.size())
    return std::nullopt;
  workload::OverflowGuard guard;
  // The least a block forward instance stashes per block (under ZB-H1 with
  // what the weight-gradient pass reads of it: both live from the forward
  // to the input_grad at least), and the least working set of a block
  // instance of each pass: an instance's buffers are its template's bytes.
  std::optional<int64_t> blockStash, forwardWorkingSet, backwardWorkingSet;
  auto least = [](std::optional<int64_t> &sofar, int64_t bytes) {
    sofar = std::min(sofar.value_or(bytes), bytes);
  };
  // Whether every block backward and weight_grad writes weight gradients,
  // as the bucket terms below assume of their slots' first instances (a
  // block has parameters, so it does; checked, not assumed).
  bool gradientPassesWrite = true;
  for (auto [runTemplate, bytes] : llvm::zip(parts.templates, templateBytes)) {
    if (runTemplate.part != workload::ModelPart::Block)
      continue;
    if ((runTemplate.pass == workload::PipelinePass::Backward ||
         runTemplate.pass == workload::PipelinePass::WeightGrad) &&
        !workload::writesWeightGradients(runTemplate))
      gradientPassesWrite = false;
    if (runTemplate.pass == workload::PipelinePass::Forward) {
      least(blockStash,
            guard.add(bytes.stash, bytes.weightGradStash, "stash bytes"));
      least(forwardWorkingSet, bytes.workingSet);
    } else if (runTemplate.pass == workload::PipelinePass::Backward ||
               runTemplate.pass == workload::PipelinePass::InputGrad) {
      least(backwardWorkingSet, bytes.workingSet);
    }
  }
  if (!blockStash || !forwardWorkingSet || !backwardWorkingSet)
    return std::nullopt;
  auto stashOf = [&](int64_t blocks) {
    return guard.mul(blocks, *blockStash, "stash bytes");
  };
  std::vector<int64_t> peaks;
  for (size_t at = 0; at < parts.stages.size(); ++at) {
    const workload::StageProgram &stage = parts.stages[at];
    const workload::InFlightBlocks &held = inFlight[at];
    workload::PersistentBytes persistent = workload::persistentBytesOf(
        stage, mapping, training, std::nullopt, guard);
    // Every gradient bucket of the stage (ZeRO-2/3; no bytes below) lives
    // from the stage's first instance that writes weight gradients to its
    // reduce-scatter, in the stage's tail, after every slot.
    auto workAt = [&](size_t position) -> const workload::RunWork & {
      return std::get<workload::RunWork>(stage.steps[position].action);
    };
    workload::StageValues values;
    values.persistent = persistent;
    values.workAt = workAt;
    int64_t buckets = 0;
    for (auto [position, step] : llvm::enumerate(stage.steps)) {
      const auto *work = std::get_if<workload::RunWork>(&step.action);
      if (work && work->invocation->primitive ==
                      workload::primitive::kDPGradReduceScatter)
        buckets = guard.add(
            buckets,
            workload::sourceBytes(
                {workload::BufferSource::Kind::GradientBucket, position, 1},
                values, guard),
            "gradient bucket bytes");
    }
    // A stage runs its slots' steps in order. After a forward slot, the
    // stash of the blocks in flight is live at its last block instance,
    // beside that instance's working set; the most of it is still live at
    // the first block instance of the next backward (input_grad) slot,
    // beside that one's working set. A backward's or weight_grad's first
    // block instance writes weight gradients: from there every bucket is
    // live, at it beside the stash in flight before the slot (and a
    // backward's working set), and at every later forward slot's last block
    // instance beside the stash in flight after it and that instance's
    // working set.
    int64_t live = guard.add(stashOf(held.afterForward),
                             std::max(*forwardWorkingSet, *backwardWorkingSet),
                             "stash bytes");
    std::optional<int64_t> besideBuckets;
    auto liveBesideBuckets = [&](std::optional<int64_t> blocks,
                                 int64_t workingSet) {
      if (blocks)
        besideBuckets =
            std::max(besideBuckets.value_or(0),
                     guard.add(stashOf(*blocks), workingSet, "stash bytes"));
    };
    liveBesideBuckets(held.afterForwardPastWeightGradients, *forwardWorkingSet);
    liveBesideBuckets(held.beforeBackward, *backwardWorkingSet);
    liveBesideBuckets(held.beforeWeightGrad, 0);
    if (gradientPassesWrite)
      live = std::max(live, besideBuckets ? guard.add(*besideBuckets, buckets,
                                                      "stash bytes")
                                          : buckets);
    peaks.push_back(guard.add(persistentTotal(persistent, guard), live,
                              "persistent bytes"));
  }
  if (guard.failed())
    return std::nullopt;
  return peaks;
}

std::optional<RunFigures>
sweep::memoryBoundFigures(const workload::WholeRun &parts,
                          llvm::ArrayRef<workload::TemplateBytes> templateBytes,
                          llvm::ArrayRef<workload::InFlightBlocks> inFlight,
                          const workload::MappingSpec &mapping,
                          const workload::TrainingSpec &training,
                          const estimate::SystemProfile &profile) {
  std::optional<std::vector<int64_t>> peaks =
      stagePeakBounds(parts, templateBytes, inFlight, mapping, training);
  if (!peaks)
    return std::nullopt;
  return boundFigures(*peaks, profile);
}

std::optional<std::vector<workload::InFlightBlocks>>
InFlightBlocksMemo::of(const workload::ModelSpec &model,
                       const workload::WholeRun &parts) {
  // What inFlightBlocksOf reads.
  Key key = {static_cast<int64_t>(parts.schedule), parts.microbatches,
             parts.layout.stages};
  llvm::append_range(key, parts.layout.chunkBlocks);
  if (std::optional<std::optional<std::vector<workload::InFlightBlocks>>> kept =
          held.find(model, key))
    return std::move(*kept);
  std::optional<std::vector<workload::InFlightBlocks>> derived =
      workload::inFlightBlocksOf(parts.schedule, parts.layout,
                                 parts.microbatches);
  held.insert(model, std::move(key), derived);
  return derived;
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
