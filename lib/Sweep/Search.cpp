//===- Search.cpp - Design-space search over whole runs -------------------===//
//
// A search space is enumerated lazily (nested loops over the axes, the last
// varying fastest), evaluated in chunks on a pool of workers, and reported
// in enumeration order; the top-K and the Pareto front keep only what they
// report, so memory does not grow with the number of configurations. The
// fast path and the IR path end in the same figure functions
// (addMemoryFigures, addTimeFigures) over buffers, graph and totals that the
// plain libraries derive or the plan holds.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/Search.h"

#include "Rows.h"

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Checkpoint/Checkpoint.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/Import/TrainingModule.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Support/DiagnosticCapture.h"
#include "Blueprint/Support/JSON.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/PlanAnalyses.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Threading.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace blueprint;
using namespace blueprint::sweep;

llvm::StringRef sweep::stringifySearchStage(SearchStage stage) {
  switch (stage) {
  case SearchStage::Contracts:
    return "contracts";
  case SearchStage::Binding:
    return "binding";
  case SearchStage::Derivation:
    return "derivation";
  }
  llvm_unreachable("unknown search stage");
}

namespace {

/// The mesh axes a binding may name, in the order of the grid's axes, and
/// the grid axis of each one's tier.
/// The data-parallel ranks are the axis dp at ep = 1 and the axes edp x ep
/// at ep > 1 (estimate::meshAxesOf), so a run's mesh has four of the six.
constexpr llvm::StringLiteral kMeshAxes[] = {
    workload::kTensorParallelAxis,     workload::kContextParallelAxis,
    workload::kPipelineParallelAxis,   workload::kDataParallelAxis,
    workload::kExpertDataParallelAxis, workload::kExpertParallelAxis};
constexpr llvm::StringLiteral kTierAxes[] = {"tp_tier", "cp_tier",  "pp_tier",
                                             "dp_tier", "edp_tier", "ep_tier"};
constexpr size_t kMeshAxisCount = std::size(kMeshAxes);

/// The origin names the search reports contract rules under (what the
/// importer's prefix `import: <origin>: ` then names).
import::ContractOrigins originsAt(Location loc, bool training){
    return {{"model", loc},
            {training ? "training" : "inference", loc},
            {"mapping", loc},
            {"composition", loc}};
} // namespace

/// The contracts' rules as the importer reports them.
std::vector<std::string> contractDiagnostics(const RunContracts &run) {
  workload::RunViolations violations =
      run.training
          ? workload::checkTrainingRun(run.model, *run.training, run.mapping)
          : workload::checkInferenceRun(run.model, *run.inference, run.mapping);
  std::vector<std::string> texts;
  auto add = [&](llvm::StringRef origin,
                 const std::vector<workload::RuleViolation> &rules) {
    for (const workload::RuleViolation &rule : rules)
      texts.push_back(import::violationText(origin, rule));
  };
  add("model", violations.model);
  add(run.training ? "training" : "inference", violations.workload);
  add("mapping", violations.mapping);
  // The importer checks the composition only when the contracts hold.
  if (texts.empty())
    add("composition", violations.composition);
  return texts;
}

/// The contracts' rules and then the binding's: the rejection both paths
/// share, or none.
std::optional<RunEvaluation> rejection(const Configuration &configuration,
                                       const estimate::SystemProfile &profile) {
  RunEvaluation evaluation;
  evaluation.diagnostics = contractDiagnostics(configuration.run);
  if (!evaluation.diagnostics.empty()) {
    evaluation.rejectedAt = SearchStage::Contracts;
    return evaluation;
  }
  if (llvm::Error error = estimate::checkMeshBinding(
          estimate::meshAxesOf(configuration.run.mapping), profile,
          configuration.binding)) {
    evaluation.rejectedAt = SearchStage::Binding;
    evaluation.diagnostics.push_back(llvm::toString(std::move(error)));
    return evaluation;
  }
  return std::nullopt;
}

/// The whole-run pipeline of the IR path.
void addWholeRunPipeline(PassManager &pm) {
  DistributeTransformerOptions wholeRun;
  wholeRun.scope = "iteration";
  pm.addPass(createDistributeTransformer(wholeRun));
  pm.addPass(createPlanPortable());
  pm.addPass(createVerifyConservation());
}

/// The IR path on `current` with `pipeline` (PipelineEvaluator).
RunEvaluation evaluateThroughIR(const Configuration &configuration,
                                const estimate::SystemProfile &profile,
                                MLIRContext &current, PassManager &pipeline);

/// Whether estimate::checkMeshBinding accepts the configuration's binding.
bool bindingPossible(const Configuration &configuration,
                     const estimate::SystemProfile &profile) {
  if (llvm::Error error = estimate::checkMeshBinding(
          estimate::meshAxesOf(configuration.run.mapping), profile,
          configuration.binding)) {
    llvm::consumeError(std::move(error));
    return false;
  }
  return true;
}

RunEvaluation derivationFailure(std::string message) {
  RunEvaluation evaluation;
  evaluation.rejectedAt = SearchStage::Derivation;
  evaluation.diagnostics.push_back(std::move(message));
  return evaluation;
}


} // namespace

//===----------------------------------------------------------------------===//
// Contracts
//===----------------------------------------------------------------------===//

llvm::Expected<RunContracts> sweep::importContracts(llvm::StringRef specJSON,
                                                    llvm::StringRef label) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  std::vector<std::string> errors;
  DiagnosticCapture capture(context, errors);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(specJSON, label), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = importTransformerJSON(sourceMgr, &context);
  if (!module)
    return llvm::createStringError(llvm::join(errors, "\n"));
  RunContracts contracts;
  Operation &op = module->getBody()->front();
  contracts.name = SymbolTable::getSymbolName(&op).str();
  if (auto training = llvm::dyn_cast<transformer::DecoderTrainingOp>(op)) {
    contracts.model = training.getModel().getSpec();
    contracts.training = training.getTraining().getSpec();
    contracts.mapping = training.getMapping().getSpec();
  } else {
    auto inference = llvm::cast<transformer::DecoderInferenceOp>(op);
    contracts.model = inference.getModel().getSpec();
    contracts.inference = inference.getInference().getSpec();
    contracts.mapping = inference.getMapping().getSpec();
  }
  return contracts;
}

llvm::Expected<SearchInput> sweep::parseSearchInput(llvm::StringRef input,
                                                    llvm::StringRef inputFile) {
  auto fail = [&](const llvm::Twine &message) {
    return inputError(inputFile, message);
  };
  llvm::Expected<llvm::json::Value> parsed = parseJSONInput(input, inputFile);
  if (!parsed)
    return parsed.takeError();
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("$: expected a space object {\"spec\": ..., \"grid\": "
                "{...}} or a spec");
  // A spec alone is the space of its run with no grid.
  llvm::json::Object spaceOfSpec{{"spec", llvm::json::Object(*root)}};
  if (!root->get("spec") && root->get("model"))
    root = &spaceOfSpec;
  std::vector<std::string> unknown;
  for (const auto &entry : *root)
    if (entry.first != "spec" && entry.first != "grid")
      unknown.push_back(entry.first.str());
  llvm::sort(unknown);
  if (!unknown.empty())
    return fail("$." + unknown.front() +
                ": unknown field; expected one of: spec, grid");
  // The spec, inline or as a path relative to the space file.
  std::string specText;
  std::string specLabel = (inputFile + " $.spec").str();
  const llvm::json::Value *specValue = root->get("spec");
  if (std::optional<llvm::StringRef> path =
          specValue ? specValue->getAsString() : std::nullopt) {
    llvm::SmallString<256> resolved(*path);
    if (llvm::sys::path::is_relative(resolved) && inputFile != "-") {
      resolved = llvm::sys::path::parent_path(inputFile);
      llvm::sys::path::append(resolved, *path);
    }
    std::string errorMessage;
    std::unique_ptr<llvm::MemoryBuffer> spec =
        mlir::openInputFile(resolved, &errorMessage);
    if (!spec)
      return fail("$.spec: " + errorMessage);
    specText = spec->getBuffer().str();
    specLabel = resolved.str().str();
  } else if (specValue && specValue->getAsObject()) {
    llvm::raw_string_ostream(specText) << *specValue;
  } else {
    return fail("$.spec: expected a spec object (docs/ImportJSON.md) or the "
                "path of a spec file");
  }
  SearchInput result;
  if (const llvm::json::Value *given = root->get("grid")) {
    const llvm::json::Object *grid = given->getAsObject();
    if (!grid)
      return fail("$.grid: expected an object from axis to values");
    result.grid = *grid;
  }
  llvm::Expected<RunContracts> base = importContracts(specText, specLabel);
  if (!base)
    return fail("$.spec is not a valid spec:\n" +
                llvm::toString(base.takeError()));
  result.base = std::move(*base);
  return result;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// A training run through the skeleton of its shape: its parts, and the
/// figures that do not depend on the binding (the flops and costs only
/// when it is to be timed).
struct FastEvaluator::ShapedRun {
  /// Empty, and no skeleton, for a run ruled out by its persistent state
  /// or by a bound of its peak.
  workload::WholeRun parts;
  std::shared_ptr<const RunSkeleton> skeleton;
  RunFigures memory;
  /// Until the run is prepared for timing (prepareTiming): its shape's key,
  /// and its whole run when this evaluator derived the shape (the plan's
  /// graph is that run's).
  ShapeKey key;
  std::optional<workload::WholeRun> whole;
  bool timingPrepared = false;
  analysis::RunFlops flops;
  RunSkeleton::CostMemo costs;
};

FastEvaluator::FastEvaluator(const estimate::SystemProfile &profile,
                             bool timeFittingOnly)
    : FastEvaluator(std::make_shared<SharedDerivations>(profile),
                    timeFittingOnly) {}

FastEvaluator::FastEvaluator(std::shared_ptr<SharedDerivations> shared,
                             bool timeFittingOnly)
    : profile(shared->profile), timeFittingOnly(timeFittingOnly),
      shared(std::move(shared)) {}

FastEvaluator::~FastEvaluator() = default;

void FastEvaluator::deriveWhole(const RunContracts &run) {
  if (derived || !derivationError.empty())
    return;
  llvm::Expected<DerivedRun> derivation =
      deriveRun(run.model, run.training, run.inference, run.mapping, profile);
  if (derivation)
    derived = std::move(*derivation);
  else
    derivationError = llvm::toString(derivation.takeError());
}

llvm::Expected<analysis::RunGraph>
FastEvaluator::timingGraphOf(const Configuration &configuration,
                             const workload::WholeRun &whole) {
  const RunContracts &run = configuration.run;
  return analysis::runGraphOf(whole, run.mapping, run.training->activationType,
                              profile, configuration.binding,
                              /*labelled=*/false, /*costed=*/false);
}

llvm::Expected<RunSkeleton>
FastEvaluator::deriveSkeleton(const Configuration &configuration,
                              const workload::WholeRun &parts, bool planned,
                              std::optional<workload::WholeRun> &whole) {
  const RunContracts &run = configuration.run;
  llvm::Expected<workload::WholeRun> derivation = workload::deriveWholeRun(
      run.model, *run.training, run.mapping, &shared->runTemplates);
  if (!derivation)
    return derivation.takeError();
  whole = std::move(*derivation);
  std::vector<workload::StageLifetimes> buffers =
      workload::deriveBufferLifetimes(*whole);
  if (!planned)
    return RunSkeleton::build(*whole, parts, buffers, /*graph=*/nullptr);
  llvm::Expected<analysis::RunGraph> graph =
      timingGraphOf(configuration, *whole);
  if (!graph)
    return graph.takeError();
  ++planDerivations;
  return RunSkeleton::build(*whole, parts, buffers, &*graph);
}

std::shared_ptr<const RunSkeleton>
FastEvaluator::timedSkeleton(const Configuration &configuration,
                             const ShapeKey &key,
                             std::shared_ptr<const RunSkeleton> untimed,
                             std::optional<workload::WholeRun> &whole) {
  bool build = false;
  std::shared_ptr<const RunSkeleton> timed =
      shared->skeletons.acquire(key, build, /*planned=*/true);
  if (timed || !build)
    return timed;
  auto planned = [&]() -> llvm::Expected<RunSkeleton> {
    const RunContracts &run = configuration.run;
    if (!whole) {
      llvm::Expected<workload::WholeRun> derivation = workload::deriveWholeRun(
          run.model, *run.training, run.mapping, &shared->runTemplates);
      if (!derivation)
        return derivation.takeError();
      whole = std::move(*derivation);
    }
    llvm::Expected<analysis::RunGraph> graph =
        timingGraphOf(configuration, *whole);
    if (!graph)
      return graph.takeError();
    return untimed->withPlan(*whole, *graph);
  }();
  if (!planned) {
    llvm::consumeError(planned.takeError());
    shared->skeletons.abandonTiming(key, std::move(untimed));
    return nullptr;
  }
  ++planDerivations;
  return shared->skeletons.insert(key, std::move(*planned));
}

std::unique_ptr<FastEvaluator::ShapedRun>
FastEvaluator::shape(const Configuration &configuration) {
  const RunContracts &run = configuration.run;
  if (!run.training)
    return nullptr;
  auto result = std::make_unique<ShapedRun>();
  // A query reads no figure of a run that does not fit: a run whose
  // persistent state alone exceeds the memory is ruled out before its parts
  // and its shape are derived.
  if (timeFittingOnly) {
    std::optional<RunFigures> bound =
        shared->persistentBounds.of(run.model, *run.training, run.mapping);
    if (bound && !bound->fits) {
      result->memory = std::move(*bound);
      ++ruledOutRunCount;
      return result;
    }
  }
  llvm::Expected<workload::WholeRun> parts = workload::deriveRunParts(
      run.model, *run.training, run.mapping, &shared->runTemplates);
  if (!parts) {
    llvm::consumeError(parts.takeError());
    return nullptr;
  }
  result->parts = std::move(*parts);
  llvm::Expected<std::shared_ptr<const TemplateBytesCache::Bytes>>
      templateBytes = templateBytesOfRuns.of(result->parts);
  if (!templateBytes) {
    llvm::consumeError(templateBytes.takeError());
    return nullptr;
  }
  // Nor is its shape derived when a bound of its stages' peaks from its
  // parts alone exceeds the memory.
  if (timeFittingOnly) {
    std::optional<std::vector<workload::InFlightBlocks>> inFlight =
        shared->inFlightBlocks.of(run.model, result->parts);
    std::optional<RunFigures> bound =
        inFlight ? memoryBoundFigures(result->parts, **templateBytes, *inFlight,
                                      run.mapping, *run.training, profile)
                 : std::nullopt;
    if (bound && !bound->fits) {
      result->parts = workload::WholeRun();
      result->memory = std::move(*bound);
      ++boundRuledOutRunCount;
      return result;
    }
  }
  ShapeKey key =
      shapeKeyOf(result->parts, run.mapping, shared->skeletons.names());
  bool build = false;
  result->skeleton = shared->skeletons.acquire(key, build);
  if (!result->skeleton && !build)
    return nullptr;
  // The whole run, when this call derives the shape.
  std::optional<workload::WholeRun> whole;
  if (!result->skeleton) {
    // The shape's first run: derive its steps, buffers and (unless only the
    // runs that fit are timed) graph, once.
    llvm::Expected<RunSkeleton> skeleton =
        deriveSkeleton(configuration, result->parts, !timeFittingOnly, whole);
    if (!skeleton) {
      llvm::consumeError(skeleton.takeError());
      shared->skeletons.abandon(key);
      return nullptr;
    }
    ++shapeDerivations;
    result->skeleton = shared->skeletons.insert(key, std::move(*skeleton));
  }
  if (!result->skeleton->fits(result->parts))
    return nullptr;
  if (llvm::Error error = result->skeleton->addMemoryFigures(
          result->memory, result->parts, **templateBytes, run.mapping,
          *run.training, profile,
          /*stopOverCapacity=*/timeFittingOnly)) {
    llvm::consumeError(std::move(error));
    return nullptr;
  }
  ++shapedRunCount;
  // Memory does not depend on the binding: none of this run's
  // configurations is timed.
  if (timeFittingOnly && !result->memory.fits)
    return result;
  result->costs.templates = templateCosts.of(
      result->parts.templates, run.mapping, run.training->activationType);
  result->key = std::move(key);
  result->whole = std::move(whole);
  return result;
}

void FastEvaluator::prepareTiming(const Configuration &configuration) {
  if (shaped->timingPrepared)
    return;
  const RunContracts &run = configuration.run;
  if (!shaped->skeleton->timed()) {
    shaped->skeleton = timedSkeleton(
        configuration, shaped->key, std::move(shaped->skeleton), shaped->whole);
    if (!shaped->skeleton) {
      shaped.reset();
      return;
    }
  }
  shaped->whole.reset();
  llvm::Expected<std::vector<workload::StageTotals>> totals =
      shaped->skeleton->totals(shaped->parts);
  if (!totals) {
    llvm::consumeError(totals.takeError());
    shaped.reset();
    return;
  }
  llvm::Expected<analysis::RunFlops> flops =
      analysis::runFlopsOf(*totals, run.model, run.training, run.mapping);
  if (!flops) {
    llvm::consumeError(flops.takeError());
    shaped.reset();
    return;
  }
  shaped->flops = std::move(*flops);
  shaped->timingPrepared = true;
}

RunEvaluation FastEvaluator::evaluate(const Configuration &configuration) {
  if (std::optional<RunEvaluation> rejected = rejection(configuration, profile))
    return std::move(*rejected);
  const RunContracts &run = configuration.run;
  if (derivedNumber != configuration.runNumber) {
    derivedNumber = configuration.runNumber;
    derived.reset();
    derivationError.clear();
    shaped = shape(configuration);
  }
  // The memory figures alone, as the timed evaluation has them.
  auto untimed = [](const RunFigures &memory) {
    RunEvaluation evaluation;
    evaluation.run = memory;
    return evaluation;
  };
  if (timeFittingOnly) {
    if (shaped && !shaped->memory.fits)
      return untimed(shaped->memory);
    if (!shaped) {
      deriveWhole(run);
      if (!derived)
        return derivationFailure(derivationError);
      if (!derived->memory.fits)
        return untimed(derived->memory);
    }
  }
  std::optional<analysis::StepCoster> coster;
  if (shaped) {
    coster.emplace(run.mapping, run.training->activationType, profile,
                   configuration.binding);
    if (queryBar) {
      llvm::Expected<std::optional<estimate::Picoseconds>> bound =
          shaped->skeleton->chainBound(shaped->parts, *coster,
                                       configuration.binding, shaped->costs,
                                       scratch);
      if (!bound)
        // time() fails as well: the whole derivation says why.
        llvm::consumeError(bound.takeError());
      else if (*bound && queryBar->excludes(**bound, shaped->memory.peakBytes,
                                            run.mapping.world)) {
        ++skippedCount;
        return untimed(shaped->memory);
      }
    }
    prepareTiming(configuration);
  }
  if (shaped) {
    llvm::Expected<PathFigures> path = shaped->skeleton->time(
        shaped->parts, *coster, configuration.binding, shaped->costs, scratch);
    if (path) {
      RunEvaluation evaluation = untimed(shaped->memory);
      llvm::Error error = addTimeFigures(
          evaluation.run, *path,
          [&]() -> llvm::Expected<analysis::RunFlops> { return shaped->flops; },
          run.model, run.training, run.inference, run.mapping, profile);
      if (!error) {
        ++timedCount;
        return evaluation;
      }
      llvm::consumeError(std::move(error));
    } else {
      // The whole derivation says why (a step it cannot cost).
      llvm::consumeError(path.takeError());
    }
  }
  deriveWhole(run);
  if (!derived)
    return derivationFailure(derivationError);
  llvm::Expected<RunFigures> figures =
      costRun(*derived, run.model, run.training, run.inference, run.mapping,
              profile, configuration.binding);
  if (!figures)
    return derivationFailure(llvm::toString(figures.takeError()));
  ++timedCount;
  RunEvaluation evaluation;
  evaluation.run = std::move(*figures);
  return evaluation;
}

RunEvaluation sweep::evaluateFast(const Configuration &configuration,
                                  const estimate::SystemProfile &profile) {
  return FastEvaluator(profile).evaluate(configuration);
}

PipelineEvaluator::PipelineEvaluator(const estimate::SystemProfile &profile)
    : profile(profile) {}

PipelineEvaluator::~PipelineEvaluator() = default;

MLIRContext &PipelineEvaluator::freshContext() {
  if (context &&
      evaluationsInContext < Evaluator::kDefaultConfigurationsPerContext) {
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
  addWholeRunPipeline(*pipeline);
  evaluationsInContext = 1;
  return *context;
}

RunEvaluation PipelineEvaluator::evaluate(const Configuration &configuration) {
  MLIRContext &current = freshContext();
  return evaluateThroughIR(configuration, profile, current, *pipeline);
}

RunEvaluation PipelineEvaluator::evaluateWithCheckpoints(
    const Configuration &configuration, llvm::StringRef checkpointDirectory) {
  // A context of its own: the session installs an action handler on it.
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext audited(registry, MLIRContext::Threading::DISABLED);
  audited.loadAllAvailableDialects();
  PassManager pm(&audited);
  addWholeRunPipeline(pm);
  CheckpointSession session({checkpointDirectory.str(), "blueprint-search"});
  RunEvaluation failed;
  {
    DiagnosticCapture capture(audited, failed.diagnostics);
    if (mlir::failed(session.instrument(pm))) {
      failed.rejectedAt = SearchStage::Derivation;
      return failed;
    }
  }
  return evaluateThroughIR(configuration, profile, audited, pm);
}

namespace {
RunEvaluation evaluateThroughIR(const Configuration &configuration,
                                const estimate::SystemProfile &profile,
                                MLIRContext &current, PassManager &pipeline) {
  RunEvaluation evaluation;
  const RunContracts &run = configuration.run;
  Location loc = NameLoc::get(StringAttr::get(&current, run.name));
  {
    DiagnosticCapture capture(current, evaluation.diagnostics);
    import::ContractOrigins origins = originsAt(loc, run.training.has_value());
    OwningOpRef<ModuleOp> module =
        run.training
            ? import::buildTrainingModule(loc, run.name, run.model,
                                          *run.training, run.mapping, origins)
            : import::buildInferenceModule(loc, run.name, run.model,
                                           *run.inference, run.mapping,
                                           origins);
    if (!module) {
      evaluation.rejectedAt = SearchStage::Contracts;
      return evaluation;
    }
    // The binding is the estimate's to check; the search rejects an
    // impossible one before anything is derived, on either path.
    if (std::optional<RunEvaluation> rejected =
            rejection(configuration, profile))
      return std::move(*rejected);
    // A pass that fails, or an observer (a checkpoint that cannot be
    // written) that halts the pipeline with a diagnostic, rejects the
    // configuration.
    bool ran = succeeded(pipeline.run(*module));
    auto plans = module->getOps<pplan::PlanOp>();
    if (!ran || !evaluation.diagnostics.empty() || plans.empty()) {
      if (evaluation.diagnostics.empty())
        evaluation.diagnostics.push_back("the pipeline produced no plan");
      evaluation.rejectedAt = SearchStage::Derivation;
      return evaluation;
    }
    pplan::PlanOp plan = *plans.begin();
    llvm::Expected<std::vector<workload::StageBuffers>> buffers =
        stageBuffersOf(plan);
    if (!buffers)
      return derivationFailure(llvm::toString(buffers.takeError()));
    if (llvm::Error error = addMemoryFigures(evaluation.run, *buffers, profile))
      return derivationFailure(llvm::toString(std::move(error)));
    llvm::Expected<analysis::RunGraph> graph =
        planGraphOf(plan, profile, configuration.binding);
    if (!graph) {
      evaluation.run.timeUnavailable = llvm::toString(graph.takeError());
      return evaluation;
    }
    llvm::Expected<analysis::CriticalPathReport> path =
        analysis::longestPath(*graph);
    if (!path)
      return derivationFailure(llvm::toString(path.takeError()));
    FailureOr<ProgramTotals> totals = summarizeProgram(plan);
    if (failed(totals)) {
      evaluation.rejectedAt = SearchStage::Derivation;
      return evaluation;
    }
    if (llvm::Error error = addTimeFigures(
            evaluation.run, pathFiguresOf(*graph, *path),
            [&] {
              return analysis::runFlopsOf(totals->stages, run.model,
                                          run.training, run.mapping);
            },
            run.model, run.training, run.inference, run.mapping, profile))
      return derivationFailure(llvm::toString(std::move(error)));
  }
  return evaluation;
}

} // namespace

//===----------------------------------------------------------------------===//
// Spaces
//===----------------------------------------------------------------------===//

namespace {

/// Grid axes in enumeration order (docs/Sweep.md): the last varies fastest.
constexpr llvm::StringLiteral kSpaceAxes[] = {"tp",
                                              "cp",
                                              "pp",
                                              "dp",
                                              "ep",
                                              "micro_batch",
                                              "virtual_stages",
                                              "schedule",
                                              "pipeline_layout",
                                              "recompute",
                                              "tp_comm",
                                              "cp_comm",
                                              "zero_stage",
                                              "bucket_bytes",
                                              "overlap_dp_grad_reduce",
                                              "tp_tier",
                                              "cp_tier",
                                              "pp_tier",
                                              "dp_tier",
                                              "edp_tier",
                                              "ep_tier",
                                              "overlap_tp_comm",
                                              "overlap_p2p_comm"};

/// Axes that only a training run has.
bool trainingOnly(llvm::StringRef axis) {
  return axis == "micro_batch" || axis == "virtual_stages" ||
         axis == "schedule" || axis == "pipeline_layout" ||
         axis == "recompute" || axis == "zero_stage" ||
         axis == "bucket_bytes" || axis == "overlap_dp_grad_reduce" ||
         axis == "overlap_tp_comm";
}

/// Positive values larger than this are not a mesh. Two such degrees
/// multiply inside int64_t, four need not: the grid's largest
/// tp x cp x pp x dp is checked when the space is parsed
/// (SearchSpace::parse).
constexpr int64_t kMaxDegree = int64_t(1) << 20;

/// The divisors of `n` (n > 0), ascending.
std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> low, high;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      low.push_back(d);
      if (d != n / d)
        high.push_back(n / d);
    }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

template <typename T>
std::vector<T> listedOr(const std::vector<T> &listed, std::vector<T> all) {
  if (listed.empty())
    return all;
  std::vector<T> kept;
  for (const T &value : listed)
    if (llvm::is_contained(all, value))
      kept.push_back(value);
  return kept;
}

/// Why the value at `position` of an axis's list repeats an earlier one
/// (the same JSON value), naming the first; none when it is new. Every
/// point of a space is a different run, so an axis lists each value once.
std::optional<std::string> repetitionOf(const llvm::json::Array &values,
                                        size_t position,
                                        const std::string &path) {
  for (size_t earlier = 0; earlier < position; ++earlier)
    if (values[earlier] == values[position])
      return printed(values[position]) + " repeats " + path + "[" +
             std::to_string(earlier) + "]; an axis lists each value once";
  return std::nullopt;
}

} // namespace

llvm::Expected<SearchSpace>
SearchSpace::parse(const llvm::json::Object &grid, RunContracts base,
                   const estimate::NetworkTierBinding &baseBinding,
                   const estimate::SystemProfile &profile,
                   llvm::ArrayRef<int64_t> gpus,
                   std::optional<int64_t> globalBatch) {
  std::vector<std::string> errors;
  SearchSpace space;
  bool training = base.training.has_value();
  auto kindError = [&](const std::string &path, llvm::StringRef expected,
                       const llvm::json::Value &got) {
    errors.push_back(path + ": expected " + expected.str() + ", got " +
                     printed(got));
  };
  // A positive integer of at most kMaxDegree.
  auto readDegree = [&](const std::string &path, const llvm::json::Value &value,
                        int64_t minimum, std::vector<int64_t> &into) {
    std::optional<int64_t> number = exactInteger(value);
    if (!number || *number < minimum || *number > kMaxDegree)
      return kindError(path,
                       "an integer in [" + std::to_string(minimum) + ", " +
                           std::to_string(kMaxDegree) + "]",
                       value);
    into.push_back(*number);
  };
  auto readCount = [&](const std::string &path, const llvm::json::Value &value,
                       std::vector<int64_t> &into) {
    std::optional<int64_t> number = exactInteger(value);
    if (!number || *number < 0)
      return kindError(path, "a non-negative integer", value);
    into.push_back(*number);
  };
  auto readEnum = [&](const std::string &path, const llvm::json::Value &value,
                      auto &into) {
    using Enum = typename std::decay_t<decltype(into)>::value_type;
    std::optional<llvm::StringRef> text = value.getAsString();
    std::optional<Enum> parsed;
    if (text)
      parsed = workload::symbolizeEnum<Enum>(*text);
    if (!parsed) {
      std::vector<std::string> names;
      for (uint32_t raw = 0;; ++raw) {
        llvm::StringRef name = workload::stringifyEnum(static_cast<Enum>(raw));
        if (name.empty())
          break;
        names.push_back(name.str());
      }
      return kindError(path, "one of: " + llvm::join(names, ", "), value);
    }
    into.push_back(*parsed);
  };

  std::vector<std::string> unknown;
  for (const auto &entry : grid) {
    llvm::StringRef key = entry.first;
    if (key == "gpus" || key == "global_batch" ||
        llvm::is_contained(kSpaceAxes, key))
      continue;
    unknown.push_back(key.str());
  }
  llvm::sort(unknown);
  std::vector<std::string> expected = {"gpus", "global_batch"};
  for (llvm::StringLiteral axis : kSpaceAxes)
    expected.push_back(axis.str());
  for (const std::string &key : unknown) {
    errors.push_back(
        "$.grid." + key +
        ": unknown grid axis; expected one of: " + llvm::join(expected, ", "));
  }

  for (llvm::StringLiteral axis : kSpaceAxes) {
    const llvm::json::Value *given = grid.get(axis);
    if (!given)
      continue;
    std::string path = ("$.grid." + axis).str();
    const llvm::json::Array *values = given->getAsArray();
    if (!values || values->empty()) {
      kindError(path, "a non-empty list of values", *given);
      continue;
    }
    if (!training && trainingOnly(axis)) {
      errors.push_back(path + ": applies to a training run; the spec is "
                              "an inference run");
      continue;
    }
    space.listedAxes.push_back(axis.str());
    for (auto [position, value] : llvm::enumerate(*values)) {
      std::string at = path + "[" + std::to_string(position) + "]";
      if (std::optional<std::string> repeated =
              repetitionOf(*values, position, path)) {
        errors.push_back(at + ": " + *repeated);
        continue;
      }
      AxisValues &listed = space.listed;
      if (axis == "tp")
        readDegree(at, value, 1, listed.tp);
      else if (axis == "cp")
        readDegree(at, value, 1, listed.cp);
      else if (axis == "pp")
        readDegree(at, value, 1, listed.pp);
      else if (axis == "dp")
        readDegree(at, value, 1, listed.dp);
      else if (axis == "ep")
        readDegree(at, value, 1, listed.ep);
      else if (axis == "micro_batch")
        readDegree(at, value, 1, listed.microBatch);
      else if (axis == "virtual_stages")
        readDegree(at, value, 1, listed.virtualStages);
      else if (axis == "zero_stage")
        readDegree(at, value, 0, listed.zeroStage);
      else if (axis == "bucket_bytes")
        readCount(at, value, listed.bucketBytes);
      else if (axis == "schedule")
        readEnum(at, value, listed.schedule);
      else if (axis == "recompute")
        readEnum(at, value, listed.recompute);
      else if (axis == "tp_comm")
        readEnum(at, value, listed.tpComm);
      else if (axis == "cp_comm")
        readEnum(at, value, listed.cpComm);
      else if (axis == "overlap_tp_comm" || axis == "overlap_dp_grad_reduce" ||
               axis == "overlap_p2p_comm") {
        if (std::optional<bool> overlap = value.getAsBoolean())
          (axis == "overlap_tp_comm"          ? listed.overlapTPComm
           : axis == "overlap_dp_grad_reduce" ? listed.overlapDPGradReduce
                                              : listed.overlapP2PComm)
              .push_back(*overlap);
        else
          kindError(at, "a boolean", value);
      } else if (axis == "pipeline_layout") {
        if (value.getAsString() == std::optional<llvm::StringRef>("uniform")) {
          listed.pipelineLayout.push_back({});
        } else if (value.getAsString() ==
                   std::optional<llvm::StringRef>("ceiling")) {
          listed.pipelineLayout.push_back({-1});
        } else if (const llvm::json::Array *blocks = value.getAsArray();
                   blocks && !blocks->empty()) {
          std::vector<int64_t> layout;
          for (auto [chunk, count] : llvm::enumerate(*blocks))
            readDegree(at + "[" + std::to_string(chunk) + "]", count, 1,
                       layout);
          listed.pipelineLayout.push_back(layout);
        } else {
          kindError(at,
                    "\"uniform\", \"ceiling\" or a non-empty list of blocks "
                    "per model chunk",
                    value);
        }
      } else {
        // tp_tier, cp_tier, pp_tier, dp_tier, edp_tier, ep_tier.
        size_t mesh = llvm::find(kTierAxes, axis) - std::begin(kTierAxes);
        std::optional<llvm::StringRef> tier = value.getAsString();
        if (!tier || !profile.tier(*tier)) {
          std::vector<std::string> tiers;
          for (const estimate::NetworkTier &known : profile.networkTiers)
            tiers.push_back(known.name);
          kindError(at,
                    "a network tier of profile '" + profile.name +
                        "' (one of: " + llvm::join(tiers, ", ") + ")",
                    value);
        } else {
          listed.tiers[mesh].push_back(tier->str());
        }
      }
    }
  }

  // The GPU counts and global batch: the options override the grid's.
  if (gpus.empty()) {
    if (const llvm::json::Value *given = grid.get("gpus")) {
      const llvm::json::Array *counts = given->getAsArray();
      std::optional<int64_t> single = exactInteger(*given);
      if (single)
        readDegree("$.grid.gpus", *given, 1, space.gpuCounts);
      else if (counts && !counts->empty())
        for (auto [position, value] : llvm::enumerate(*counts))
          readDegree("$.grid.gpus[" + std::to_string(position) + "]", value, 1,
                     space.gpuCounts);
      else
        kindError("$.grid.gpus", "a GPU count or a non-empty list of them",
                  *given);
    }
  } else {
    space.gpuCounts.assign(gpus.begin(), gpus.end());
  }
  for (auto [position, count] : llvm::enumerate(space.gpuCounts))
    if (llvm::is_contained(llvm::ArrayRef(space.gpuCounts).take_front(position),
                           count))
      errors.push_back((gpus.empty() ? "$.grid.gpus: " : "--gpus: ") +
                       std::to_string(count) +
                       " is listed twice; each GPU count is searched once");
  for (int64_t count : space.gpuCounts)
    if (count < 1 || count > kMaxDegree)
      errors.push_back("--gpus: " + std::to_string(count) + " is not in [1, " +
                       std::to_string(kMaxDegree) + "]");
  if (globalBatch) {
    space.globalBatch = globalBatch;
  } else if (const llvm::json::Value *given = grid.get("global_batch")) {
    if (std::optional<int64_t> batch = exactInteger(*given))
      space.globalBatch = *batch;
    else
      kindError("$.grid.global_batch", "an integer", *given);
  }
  if (space.globalBatch && !training)
    errors.push_back("global_batch: applies to a training run; the spec is "
                     "an inference run (its batch is the spec's)");
  if (space.globalBatch &&
      (*space.globalBatch < 1 || *space.globalBatch > (int64_t(1) << 40)))
    errors.push_back(
        (globalBatch ? "--global-batch: " : "$.grid.global_batch: ") +
        std::to_string(*space.globalBatch) + " is not in [1, 2^40]");
  // Grid mode: a point's world is tp x cp x pp x dp, four factors of at
  // most kMaxDegree each, which an int64_t need not hold; the largest
  // values must (with a GPU count the product is the count).
  if (space.gpuCounts.empty()) {
    int64_t largest = 1;
    bool overflow = false;
    for (auto [listedValues, baseValue] :
         {std::pair{&space.listed.tp, base.mapping.tp},
          std::pair{&space.listed.cp, base.mapping.cp},
          std::pair{&space.listed.pp, base.mapping.pp},
          std::pair{&space.listed.dp, base.mapping.dp}}) {
      int64_t top =
          listedValues->empty() ? baseValue : *llvm::max_element(*listedValues);
      overflow = overflow || llvm::MulOverflow(largest, top, largest);
    }
    if (overflow)
      errors.push_back("$.grid: the largest tp x cp x pp x dp (a point's "
                       "world) overflows a 64-bit integer");
  }
  if (!errors.empty())
    return llvm::createStringError(llvm::join(errors, "\n"));
  space.base = std::move(base);
  space.baseBinding = baseBinding;
  space.profile = &profile;
  return space;
}

llvm::Expected<SearchSpace>
sweep::parseSearchSpace(llvm::StringRef input, llvm::StringRef inputFile,
                        const estimate::NetworkTierBinding &baseBinding,
                        const estimate::SystemProfile &profile,
                        llvm::ArrayRef<int64_t> gpus,
                        std::optional<int64_t> globalBatch) {
  llvm::Expected<SearchInput> searchInput = parseSearchInput(input, inputFile);
  if (!searchInput)
    return searchInput.takeError();
  llvm::Expected<SearchSpace> space =
      SearchSpace::parse(searchInput->grid, std::move(searchInput->base),
                         baseBinding, profile, gpus, globalBatch);
  if (!space)
    return inputError(inputFile, llvm::toString(space.takeError()));
  return space;
}

void SearchSpace::enumerate(
    llvm::function_ref<bool(const Configuration &)> visit) const {
  const workload::MappingSpec &baseMapping = base.mapping;
  bool training = base.training.has_value();
  bool validOnly = enumeratesValidOnly();
  auto isListed = [&](llvm::StringRef axis) {
    return llvm::is_contained(listedAxes, axis);
  };
  // Grid mode: the listed values, or the base's. Valid-only mode: the
  // listed values that can be valid, or every value that can.
  auto values = [&](llvm::StringRef axis, const auto &listedValues, auto base,
                    auto all) {
    using Vector = std::decay_t<decltype(listedValues)>;
    if (!validOnly)
      return isListed(axis) ? listedValues : Vector{base};
    return listedOr(listedValues, all);
  };

  std::vector<int64_t> counts = gpuCounts;
  if (counts.empty())
    counts.push_back(0); // grid mode: world follows tp x cp x pp x dp
  Configuration configuration;
  configuration.run = base;
  configuration.pointHasOverlapTPComm = isListed("overlap_tp_comm");
  configuration.pointHasOverlapDPGradReduce =
      isListed("overlap_dp_grad_reduce");
  configuration.pointHasOverlapP2PComm = isListed("overlap_p2p_comm");
  configuration.pointHasExpertParallel = hasExpertParallelFields();
  workload::MappingSpec &mapping = configuration.run.mapping;
  const int64_t blocks = base.model.blocks;

  // The last axes, inside the binding: overlap_tp_comm, then
  // overlap_p2p_comm, each the base's value unless listed. Without what an
  // option overlaps (no tensor-parallel collective at tp = 1, no pipeline
  // message at pp = 1) a valid-only space takes its first listed value only;
  // so it does for overlap_p2p_comm when serving, whose one batch waits for
  // each message's return either way: the same run (docs/Sweep.md).
  auto overlapsOf = [&](llvm::StringRef axis, bool base,
                        const std::vector<bool> &listedOverlaps,
                        bool nothingToOverlap) {
    if (!isListed(axis))
      return std::vector<bool>{base};
    return validOnly && nothingToOverlap
               ? std::vector<bool>{listedOverlaps.front()}
               : listedOverlaps;
  };
  auto visitOverlaps = [&] {
    for (bool tpOverlap :
         overlapsOf("overlap_tp_comm", baseMapping.overlapTPComm,
                    listed.overlapTPComm, mapping.tp == 1))
      for (bool p2pOverlap :
           overlapsOf("overlap_p2p_comm", baseMapping.overlapP2PComm,
                      listed.overlapP2PComm, mapping.pp == 1 || !training)) {
        mapping.overlapTPComm = tpOverlap;
        mapping.overlapP2PComm = p2pOverlap;
        if (!visit(configuration))
          return false;
      }
    return true;
  };

  auto bindings = [&](auto &&emit) -> bool {
    ++configuration.runNumber;
    // Grid mode without tier axes: the base binding as given.
    std::vector<std::string> choices[kMeshAxisCount];
    for (size_t axis = 0; axis < kMeshAxisCount; ++axis) {
      llvm::StringRef tierAxis = kTierAxes[axis];
      if (!validOnly) {
        if (isListed(tierAxis))
          choices[axis] = listed.tiers[axis];
        else if (auto bound =
                     baseBinding.tierOfAxis.find(kMeshAxes[axis].str());
                 bound != baseBinding.tierOfAxis.end())
          choices[axis] = {bound->second};
        else
          choices[axis] = {""};
        continue;
      }
      // An axis of one rank communicates with no one, and an axis the
      // run's mesh does not have (dp at ep > 1, edp and ep at ep = 1) with
      // no one either: it is left unbound.
      if (mapping.axisDegree(kMeshAxes[axis]).value_or(1) == 1) {
        choices[axis] = {""};
        continue;
      }
      std::vector<std::string> all;
      for (const estimate::NetworkTier &tier : profile->networkTiers)
        all.push_back(tier.name);
      choices[axis] = listedOr(listed.tiers[axis], all);
    }
    // Every combination of the axes' choices, the last axis varying
    // fastest.
    size_t chosen[kMeshAxisCount] = {};
    if (llvm::any_of(choices, [](const auto &tiers) { return tiers.empty(); }))
      return true;
    while (true) {
      configuration.binding.tierOfAxis.clear();
      for (size_t axis = 0; axis < kMeshAxisCount; ++axis)
        if (const std::string &tier = choices[axis][chosen[axis]];
            !tier.empty())
          configuration.binding.tierOfAxis[kMeshAxes[axis].str()] = tier;
      if (!validOnly || bindingPossible(configuration, *profile))
        if (!emit())
          return false;
      size_t axis = kMeshAxisCount;
      while (axis > 0 && ++chosen[axis - 1] == choices[axis - 1].size())
        chosen[--axis] = 0;
      if (axis == 0)
        return true;
    }
  };

  for (int64_t gpus : counts) {
    std::vector<int64_t> tps =
        values("tp", listed.tp, baseMapping.tp,
               validOnly ? divisorsOf(gpus) : std::vector<int64_t>{});
    for (int64_t tp : tps) {
      if (validOnly && gpus % tp != 0)
        continue;
      // cp ranges over the listed values only, else keeps the base's: a
      // space without a cp axis is the space it was before cp existed
      // (Calculon's, docs/Sweep.md).
      std::vector<int64_t> cps =
          isListed("cp") ? listed.cp : std::vector<int64_t>{baseMapping.cp};
      for (int64_t cp : cps) {
        if (validOnly && (gpus / tp) % cp != 0)
          continue;
        std::vector<int64_t> pps = values("pp", listed.pp, baseMapping.pp,
                                          validOnly ? divisorsOf(gpus / tp / cp)
                                                    : std::vector<int64_t>{});
        for (int64_t pp : pps) {
          if (validOnly && (gpus / tp / cp) % pp != 0)
            continue;
          std::vector<int64_t> dps =
              values("dp", listed.dp, baseMapping.dp,
                     validOnly ? std::vector<int64_t>{gpus / tp / cp / pp}
                               : std::vector<int64_t>{});
          // Each dp with its expert-parallel degrees: with a GPU count, a
          // training run of a model with routed experts takes every ep
          // dividing both dp (expert_parallel_c1) and the experts
          // (expert_parallel_c3), any other run ep = 1 (c2, c6); the
          // contracts decide the rest (c5, c7, c8).
          std::vector<std::pair<int64_t, int64_t>> dataParallel;
          for (int64_t dp : dps) {
            std::vector<int64_t> allEP = {1};
            if (validOnly && training && base.model.moe)
              for (int64_t ep : divisorsOf(dp))
                if (ep > 1 && base.model.moe->experts % ep == 0)
                  allEP.push_back(ep);
            for (int64_t ep : values("ep", listed.ep, baseMapping.ep, allEP))
              dataParallel.push_back({dp, ep});
          }
          for (auto [dp, ep] : dataParallel) {
            mapping.tp = tp;
            mapping.cp = cp;
            mapping.pp = pp;
            mapping.dp = dp;
            mapping.ep = ep;
            // In range: the product of the largest values is checked when
            // the space is parsed, or is the GPU count.
            mapping.world = tp * cp * pp * dp;
            std::vector<workload::TPCommMode> allTPComm = {
                workload::TPCommMode::AllReduce};
            if (tp > 1)
              allTPComm.push_back(workload::TPCommMode::ReduceScatterAllGather);
            std::vector<workload::TPCommMode> tpComms =
                values("tp_comm", listed.tpComm, baseMapping.tpComm, allTPComm);
            // One exchange at cp = 1, where there is nothing to exchange.
            std::vector<workload::CPCommMode> allCPComm = {
                workload::CPCommMode::Ring};
            if (cp > 1)
              allCPComm.push_back(workload::CPCommMode::AllGather);
            // With --gpus a cp = 1 point is kept whatever cp_comm lists: the
            // exchange is irrelevant there, so it is the one ring run.
            std::vector<workload::CPCommMode> cpComms =
                validOnly && cp == 1 ? allCPComm
                                     : values("cp_comm", listed.cpComm,
                                              baseMapping.cpComm, allCPComm);
            if (!training) {
              for (workload::TPCommMode tpComm : tpComms)
                for (workload::CPCommMode cpComm : cpComms) {
                  mapping.tpComm = tpComm;
                  mapping.cpComm = cpComm;
                  if (validOnly &&
                      !contractDiagnostics(configuration.run).empty())
                    continue;
                  // overlap_p2p_comm applies to serving pipelines too
                  // (overlap_tp_comm, a training axis, stays the base's);
                  // a valid-only space takes its first listed value.
                  if (!bindings(visitOverlaps))
                    return;
                }
              continue;
            }
            workload::TrainingSpec &run = *configuration.run.training;
            if (globalBatch)
              run.globalBatch = *globalBatch;
            std::vector<int64_t> allMicroBatches;
            if (validOnly && run.globalBatch % dp == 0)
              allMicroBatches = divisorsOf(run.globalBatch / dp);
            std::vector<int64_t> microBatches =
                values("micro_batch", listed.microBatch,
                       base.training->microBatch, allMicroBatches);
            std::vector<int64_t> allVirtual = {1};
            if (validOnly && pp > 1 && blocks % pp == 0)
              for (int64_t v : divisorsOf(blocks / pp))
                if (v > 1)
                  allVirtual.push_back(v);
            std::vector<int64_t> virtualStages =
                values("virtual_stages", listed.virtualStages,
                       baseMapping.virtualStages, allVirtual);
            for (int64_t microBatch : microBatches)
              for (int64_t v : virtualStages) {
                run.microBatch = microBatch;
                mapping.virtualStages = v;
                // The same run is enumerated once: one schedule without a
                // pipeline, the interleaved one exactly with virtual stages.
                std::vector<workload::PipelineSchedule> allSchedules;
                if (pp == 1)
                  allSchedules = {workload::PipelineSchedule::OneFOneB};
                else if (v > 1)
                  allSchedules = {workload::PipelineSchedule::Interleaved1F1B};
                else
                  allSchedules = {workload::PipelineSchedule::GPipe,
                                  workload::PipelineSchedule::OneFOneB,
                                  workload::PipelineSchedule::ZeroBubbleH1};
                std::vector<std::vector<int64_t>> allLayouts;
                if (blocks % (pp * v) == 0)
                  allLayouts.push_back({});
                else if (v == 1)
                  allLayouts.push_back({-1});
                // Listed layouts are searched as given (the contracts
                // decide which hold); the enumeration's own are uniform or
                // the ceiling layout.
                std::vector<std::vector<int64_t>> layouts =
                    validOnly && isListed("pipeline_layout")
                        ? listed.pipelineLayout
                        : values("pipeline_layout", listed.pipelineLayout,
                                 baseMapping.pipelineLayout, allLayouts);
                for (workload::PipelineSchedule schedule :
                     values("schedule", listed.schedule, baseMapping.schedule,
                            allSchedules))
                  for (const std::vector<int64_t> &layout : layouts) {
                    mapping.schedule = schedule;
                    mapping.pipelineLayout = layout;
                    if (layout == std::vector<int64_t>{-1}) {
                      auto ceiling = workload::ceilingLayout(blocks, pp * v);
                      if (auto *chunks =
                              std::get_if<std::vector<int64_t>>(&ceiling))
                        mapping.pipelineLayout = *chunks;
                      else if (validOnly)
                        continue;
                    }
                    for (workload::RecomputePolicy recompute :
                         values("recompute", listed.recompute,
                                baseMapping.recompute,
                                std::vector<workload::RecomputePolicy>{
                                    workload::RecomputePolicy::None,
                                    workload::RecomputePolicy::Selective,
                                    workload::RecomputePolicy::Full})) {
                      mapping.recompute = recompute;
                      for (workload::TPCommMode tpComm : tpComms)
                        for (workload::CPCommMode cpComm : cpComms) {
                          mapping.tpComm = tpComm;
                          mapping.cpComm = cpComm;
                          // ZeRO shards, and buckets reduce, over the ranks
                          // holding the same parameters, dp x cp.
                          bool replicated = mapping.gradientReplicas() > 1;
                          std::vector<int64_t> allZero = {0};
                          if (replicated)
                            allZero = {0, 1, 2, 3};
                          std::vector<int64_t> allBuckets = {
                              baseMapping.bucketBytes};
                          if (!listed.bucketBytes.empty())
                            allBuckets = replicated
                                             ? listed.bucketBytes
                                             : std::vector<int64_t>{
                                                   listed.bucketBytes.front()};
                          // overlap_dp_grad_reduce, the base's value unless
                          // listed; without a gradient reduction (dp x cp =
                          // 1) a valid-only space takes the first listed
                          // value only (the same run).
                          std::vector<bool> dpOverlaps = {
                              baseMapping.overlapDPGradReduce};
                          if (isListed("overlap_dp_grad_reduce"))
                            dpOverlaps =
                                validOnly && !replicated
                                    ? std::vector<bool>{listed
                                                            .overlapDPGradReduce
                                                            .front()}
                                    : listed.overlapDPGradReduce;
                          for (int64_t zero :
                               values("zero_stage", listed.zeroStage,
                                      baseMapping.zeroStage, allZero))
                            for (int64_t bucket :
                                 values("bucket_bytes", listed.bucketBytes,
                                        baseMapping.bucketBytes, allBuckets))
                              for (bool dpOverlap : dpOverlaps) {
                                mapping.zeroStage = zero;
                                mapping.bucketBytes = bucket;
                                mapping.overlapDPGradReduce = dpOverlap;
                                if (validOnly &&
                                    !contractDiagnostics(configuration.run)
                                         .empty())
                                  continue;
                                if (!bindings(visitOverlaps))
                                  return;
                              }
                        }
                    }
                  }
              }
          }
        }
      }
    }
  }
}

std::string sweep::describeMapping(const Configuration &configuration) {
  const RunContracts &run = configuration.run;
  const workload::MappingSpec &mapping = run.mapping;
  std::string text =
      std::to_string(mapping.world) + " GPUs tp" + std::to_string(mapping.tp) +
      (mapping.cp > 1 ? " cp" + std::to_string(mapping.cp) : std::string()) +
      " pp" + std::to_string(mapping.pp) + " dp" + std::to_string(mapping.dp) +
      (mapping.ep > 1 ? " ep" + std::to_string(mapping.ep) : std::string());
  if (run.training)
    text += " mb" + std::to_string(run.training->microBatch) + " v" +
            std::to_string(mapping.virtualStages) + " " +
            workload::stringifyEnum(mapping.schedule).str() + " " +
            workload::stringifyEnum(mapping.recompute).str() +
            (mapping.pipelineLayout.empty() ? "" : " uneven") + " zero" +
            std::to_string(mapping.zeroStage);
  if (mapping.tpComm == workload::TPCommMode::ReduceScatterAllGather)
    text += " sp";
  if (mapping.cp > 1)
    text += " " + workload::stringifyEnum(mapping.cpComm).str();
  return text;
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

namespace {

/// The point's fields in row order: name and JSON value.
std::vector<std::pair<llvm::StringLiteral, llvm::json::Value>>
pointFields(const Configuration &configuration) {
  const RunContracts &run = configuration.run;
  const workload::MappingSpec &mapping = run.mapping;
  std::vector<std::pair<llvm::StringLiteral, llvm::json::Value>> fields;
  fields.push_back({"gpus", mapping.world});
  if (run.training)
    fields.push_back({"global_batch", run.training->globalBatch});
  else
    fields.push_back({"batch", run.inference->batch});
  fields.push_back({"tp", mapping.tp});
  fields.push_back({"cp", mapping.cp});
  fields.push_back({"pp", mapping.pp});
  fields.push_back({"dp", mapping.dp});
  if (configuration.pointHasExpertParallel)
    fields.push_back({"ep", mapping.ep});
  if (run.training) {
    fields.push_back({"micro_batch", run.training->microBatch});
    fields.push_back({"virtual_stages", mapping.virtualStages});
    fields.push_back({"schedule", workload::stringifyEnum(mapping.schedule)});
    if (mapping.pipelineLayout.empty())
      fields.push_back({"pipeline_layout", "uniform"});
    else
      fields.push_back(
          {"pipeline_layout", llvm::json::Array(mapping.pipelineLayout)});
    fields.push_back({"recompute", workload::stringifyEnum(mapping.recompute)});
  }
  fields.push_back({"tp_comm", workload::stringifyEnum(mapping.tpComm)});
  fields.push_back({"cp_comm", workload::stringifyEnum(mapping.cpComm)});
  if (run.training) {
    fields.push_back({"zero_stage", mapping.zeroStage});
    fields.push_back({"bucket_bytes", mapping.bucketBytes});
  }
  for (auto [axis, column] : llvm::zip(kMeshAxes, kTierAxes)) {
    if (!configuration.pointHasExpertParallel &&
        (axis == workload::kExpertDataParallelAxis ||
         axis == workload::kExpertParallelAxis))
      continue;
    auto bound = configuration.binding.tierOfAxis.find(axis.str());
    fields.push_back({column, bound == configuration.binding.tierOfAxis.end()
                                  ? llvm::json::Value(nullptr)
                                  : llvm::json::Value(bound->second)});
  }
  if (configuration.pointHasOverlapTPComm)
    fields.push_back({"overlap_tp_comm", mapping.overlapTPComm});
  if (configuration.pointHasOverlapDPGradReduce)
    fields.push_back({"overlap_dp_grad_reduce", mapping.overlapDPGradReduce});
  if (configuration.pointHasOverlapP2PComm)
    fields.push_back({"overlap_p2p_comm", mapping.overlapP2PComm});
  return fields;
}

/// The point columns of a training search (an inference search leaves the
/// training-only cells empty and fills `batch`).
constexpr llvm::StringLiteral kPointColumns[] = {
    "gpus",         "global_batch",
    "batch",        "tp",
    "cp",           "pp",
    "dp",           "ep",
    "micro_batch",  "virtual_stages",
    "schedule",     "pipeline_layout",
    "recompute",    "tp_comm",
    "cp_comm",      "zero_stage",
    "bucket_bytes", "tp_tier",
    "cp_tier",      "pp_tier",
    "dp_tier",      "edp_tier",
    "ep_tier"};

/// Whether `column` is one of the expert-parallel point columns.
bool expertParallelColumn(llvm::StringRef column) {
  return column == "ep" || column == "edp_tier" || column == "ep_tier";
}

} // namespace

std::string sweep::searchCSVHeader(bool ranked, bool overlapTPCommColumn,
                                   bool overlapDPGradReduceColumn,
                                   bool overlapP2PCommColumn,
                                   bool expertParallelColumns) {
  std::vector<std::string> columns = {"index"};
  if (ranked)
    columns.push_back("rank");
  for (llvm::StringLiteral column : kPointColumns)
    if (expertParallelColumns || !expertParallelColumn(column))
      columns.push_back(column.str());
  if (overlapTPCommColumn)
    columns.push_back("overlap_tp_comm");
  if (overlapDPGradReduceColumn)
    columns.push_back("overlap_dp_grad_reduce");
  if (overlapP2PCommColumn)
    columns.push_back("overlap_p2p_comm");
  for (const char *column : {"valid", "stage", "diagnostics"})
    columns.push_back(column);
  appendRunCSVColumns(columns);
  return llvm::join(columns, ",");
}

std::string sweep::formatSearchRow(RowFormat format, size_t index,
                                   const Configuration &configuration,
                                   const RunEvaluation &evaluation,
                                   std::optional<size_t> rank,
                                   bool rankColumn) {
  auto fields = pointFields(configuration);
  if (format == RowFormat::CSV) {
    std::vector<std::string> cells = {std::to_string(index)};
    if (rankColumn)
      cells.push_back(rank ? std::to_string(*rank) : "");
    for (llvm::StringLiteral column : kPointColumns) {
      if (!configuration.pointHasExpertParallel && expertParallelColumn(column))
        continue;
      const llvm::json::Value *value = nullptr;
      for (const auto &field : fields)
        if (field.first == column)
          value = &field.second;
      std::string cell;
      if (value && value->getAsArray()) {
        std::vector<std::string> entries;
        for (const llvm::json::Value &entry : *value->getAsArray())
          entries.push_back(printed(entry));
        cell = llvm::join(entries, " ");
      } else if (value && value->kind() != llvm::json::Value::Null) {
        cell = csvValue(*value);
      }
      cells.push_back(cell);
    }
    if (configuration.pointHasOverlapTPComm)
      cells.push_back(configuration.run.mapping.overlapTPComm ? "true"
                                                              : "false");
    if (configuration.pointHasOverlapDPGradReduce)
      cells.push_back(configuration.run.mapping.overlapDPGradReduce ? "true"
                                                                    : "false");
    if (configuration.pointHasOverlapP2PComm)
      cells.push_back(configuration.run.mapping.overlapP2PComm ? "true"
                                                               : "false");
    cells.push_back(evaluation.valid() ? "true" : "false");
    cells.push_back(evaluation.valid()
                        ? ""
                        : stringifySearchStage(*evaluation.rejectedAt).str());
    cells.push_back(csvField(llvm::join(evaluation.diagnostics, "; ")));
    appendRunCSV(cells, evaluation.valid() ? &evaluation.run : nullptr);
    return llvm::join(cells, ",");
  }
  std::string row;
  llvm::raw_string_ostream os(row);
  os.SetBuffered();
  llvm::json::OStream json(os);
  json.object([&] {
    json.attribute("index", static_cast<int64_t>(index));
    if (rank)
      json.attribute("rank", static_cast<int64_t>(*rank));
    json.attributeObject("point", [&] {
      for (const auto &field : fields)
        json.attribute(field.first, field.second);
    });
    json.attribute("valid", evaluation.valid());
    if (!evaluation.valid()) {
      writeRejectionJSON(json, stringifySearchStage(*evaluation.rejectedAt),
                         evaluation.diagnostics);
      return;
    }
    writeRunJSON(json, evaluation.run);
  });
  os.flush();
  return row;
}

//===----------------------------------------------------------------------===//
// The best and the front
//===----------------------------------------------------------------------===//

bool ServiceLevel::accepts(const RunEvaluation &evaluation) const {
  // The objective, in seconds, rounded to the picosecond like a duration
  // (a time beyond int64_t picoseconds holds every run).
  auto within = [](std::optional<double> limit,
                   std::optional<estimate::Picoseconds> value) {
    if (!limit)
      return true;
    std::optional<estimate::Picoseconds> bound =
        estimate::picosecondsOf(*limit);
    return value && (!bound || *value <= *bound);
  };
  return evaluation.feasible() &&
         within(timeToFirstTokenSeconds,
                evaluation.run.timeToFirstTokenPicoseconds) &&
         within(timePerOutputTokenSeconds,
                evaluation.run.timePerOutputTokenPicoseconds);
}

bool sweep::rankedBefore(const Ranked &a, const Ranked &b) {
  return std::make_tuple(a.picoseconds(), a.evaluation.run.peakBytes, a.gpus(),
                         a.index) < std::make_tuple(b.picoseconds(),
                                                    b.evaluation.run.peakBytes,
                                                    b.gpus(), b.index);
}

bool sweep::dominates(const Ranked &a, const Ranked &b) {
  int64_t aBytes = a.evaluation.run.peakBytes;
  int64_t bBytes = b.evaluation.run.peakBytes;
  bool noWorse = a.picoseconds() <= b.picoseconds() && aBytes <= bBytes &&
                 a.gpus() <= b.gpus();
  bool better = a.picoseconds() < b.picoseconds() || aBytes < bBytes ||
                a.gpus() < b.gpus();
  return noWorse && better;
}

void TopK::offer(const Ranked &candidate) {
  if (k == 0)
    return;
  // A max-heap under rankedBefore: the worst kept is at the front.
  if (heap.size() < k) {
    heap.push_back(candidate);
    std::push_heap(heap.begin(), heap.end(), rankedBefore);
    return;
  }
  if (!rankedBefore(candidate, heap.front()))
    return;
  std::pop_heap(heap.begin(), heap.end(), rankedBefore);
  heap.back() = candidate;
  std::push_heap(heap.begin(), heap.end(), rankedBefore);
}

std::optional<estimate::Picoseconds> TopK::worstKept() const {
  if (k == 0 || heap.size() < k)
    return std::nullopt;
  return heap.front().picoseconds();
}

std::vector<Ranked> TopK::sorted() const {
  std::vector<Ranked> best = heap;
  std::sort(best.begin(), best.end(), rankedBefore);
  return best;
}

void ParetoFront::offer(const Ranked &candidate) {
  auto same = [&](const Ranked &kept) {
    return kept.picoseconds() == candidate.picoseconds() &&
           kept.evaluation.run.peakBytes ==
               candidate.evaluation.run.peakBytes &&
           kept.gpus() == candidate.gpus();
  };
  for (const Ranked &kept : front)
    if (dominates(kept, candidate) ||
        (same(kept) && kept.index < candidate.index))
      return;
  llvm::erase_if(front, [&](const Ranked &kept) {
    return dominates(candidate, kept) || same(kept);
  });
  front.push_back(candidate);
}

bool QueryBar::excludes(estimate::Picoseconds atLeast, int64_t peakBytes,
                        int64_t gpus) const {
  if (top && (!kthBest || atLeast <= *kthBest))
    return false;
  if (front)
    return llvm::any_of(*front, [&](const Point &point) {
      return point.picoseconds <= atLeast && point.peakBytes <= peakBytes &&
             point.gpus <= gpus;
    });
  return top;
}

std::vector<QueryBar::Point> ParetoFront::points() const {
  std::vector<QueryBar::Point> points;
  points.reserve(front.size());
  for (const Ranked &kept : front)
    points.push_back(
        {kept.picoseconds(), kept.evaluation.run.peakBytes, kept.gpus()});
  return points;
}

std::vector<Ranked> ParetoFront::sorted() const {
  std::vector<Ranked> points = front;
  std::sort(points.begin(), points.end(), rankedBefore);
  return points;
}

//===----------------------------------------------------------------------===//
// The parallel search
//===----------------------------------------------------------------------===//

llvm::Expected<SearchSummary> sweep::runSearch(
    const SearchSpace &space, const estimate::SystemProfile &profile,
    const SearchOptions &options,
    llvm::function_ref<void(llvm::StringRef row)> emit,
    llvm::function_ref<void(const Configuration &, const RunEvaluation &)>
        observe) {
  unsigned threads = std::clamp<unsigned>(
      options.threads, 1u,
      4 * std::max(1u, std::thread::hardware_concurrency()));
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
  MLIRContext driver(MLIRContext::Threading::DISABLED);
  if (threads > 1)
    driver.setThreadPool(pool);
  std::vector<std::unique_ptr<PipelineEvaluator>> pipelines(threads);
  auto pipelineOf = [&](size_t worker) -> PipelineEvaluator & {
    if (!pipelines[worker])
      pipelines[worker] = std::make_unique<PipelineEvaluator>(profile);
    return *pipelines[worker];
  };
  bool selecting = options.top || options.pareto;
  // A query reads the time of the runs that fit only (the top-K and the
  // front are of feasible configurations): a run that does not fit is not
  // timed. Every row, or an observer, reads every time.
  bool timeFittingOnly = selecting && !observe;
  std::vector<std::unique_ptr<FastEvaluator>> fasts(threads);
  auto shared = std::make_shared<SharedDerivations>(profile);
  // A query reads no time of a configuration that can enter neither the
  // K best nor the front: once K configurations are accepted, each chunk's
  // workers skip those its bar excludes, the bar being what the chunks
  // before found (fixed for the chunk, so the rows do not depend on the
  // workers).
  bool skips = options.skipExcluded && timeFittingOnly && !options.throughIR;
  std::optional<QueryBar> bar;
  auto fastOf = [&](size_t worker) -> FastEvaluator & {
    if (!fasts[worker]) {
      fasts[worker] = std::make_unique<FastEvaluator>(shared, timeFittingOnly);
      fasts[worker]->skipExcludedBy(bar);
    }
    return *fasts[worker];
  };

  SearchSummary summary;
  // Now: the wall clock, and the CPU time the process has spent
  // (GetTimeUsage's own wall time is the system clock's, which may step).
  auto clocks = [] {
    llvm::sys::TimePoint<> systemWall;
    std::chrono::nanoseconds user, system;
    llvm::sys::Process::GetTimeUsage(systemWall, user, system);
    return std::make_pair(std::chrono::steady_clock::now(), user + system);
  };
  auto evaluationStarted = clocks();
  TopK top(std::max<size_t>(options.top.value_or(0), 1));
  ParetoFront front;
  // A chunk of configurations is evaluated in parallel, then observed and
  // emitted in order: only one chunk is ever held.
  const size_t chunkSize = 512 * static_cast<size_t>(threads);
  std::vector<Configuration> chunk;
  std::vector<RunEvaluation> evaluations;
  size_t firstIndex = 0;
  auto flush = [&] {
    evaluations.assign(chunk.size(), RunEvaluation());
    // Workers take runs of consecutive configurations, which mostly share
    // their derivation (FastEvaluator): at least kTake configurations each,
    // ending where a run ends, so that no run is derived by two workers.
    constexpr size_t kTake = 16;
    std::vector<size_t> takeBegins = {0};
    for (size_t at = 1; at < chunk.size(); ++at)
      if (at - takeBegins.back() >= kTake &&
          chunk[at].runNumber != chunk[at - 1].runNumber)
        takeBegins.push_back(at);
    takeBegins.push_back(chunk.size());
    std::atomic<size_t> next(0);
    mlir::parallelFor(&driver, 0, threads, [&](size_t worker) {
      for (size_t take = next.fetch_add(1); take + 1 < takeBegins.size();
           take = next.fetch_add(1))
        for (size_t at = takeBegins[take]; at < takeBegins[take + 1]; ++at)
          evaluations[at] = options.throughIR
                                ? pipelineOf(worker).evaluate(chunk[at])
                                : fastOf(worker).evaluate(chunk[at]);
    });
    for (size_t at = 0; at < chunk.size(); ++at) {
      const RunEvaluation &evaluation = evaluations[at];
      size_t index = firstIndex + at;
      ++summary.configurations;
      if (evaluation.valid())
        ++summary.valid;
      // The pipeline times every valid configuration (the fast path
      // counts its own).
      if (options.throughIR && evaluation.valid())
        ++summary.timed;
      if (evaluation.valid() && evaluation.run.fits)
        ++summary.fitting;
      if (observe)
        observe(chunk[at], evaluation);
      if (!selecting)
        emit(formatSearchRow(options.format, index, chunk[at], evaluation));
      if (!evaluation.feasible())
        continue;
      ++summary.feasible;
      if (!options.serviceLevel.accepts(evaluation))
        continue;
      ++summary.accepted;
      Ranked ranked{index, chunk[at], evaluation};
      top.offer(ranked);
      if (options.pareto)
        front.offer(ranked);
    }
    firstIndex += chunk.size();
    chunk.clear();
    if (skips) {
      bar = QueryBar{options.top.has_value(), top.worstKept(), std::nullopt};
      if (options.pareto)
        bar->front = front.points();
      for (const std::unique_ptr<FastEvaluator> &fast : fasts)
        if (fast)
          fast->skipExcludedBy(bar);
    }
  };
  space.enumerate([&](const Configuration &configuration) {
    // A chunk ends where a run ends, as a worker's take does.
    if (chunk.size() >= chunkSize &&
        configuration.runNumber != chunk.back().runNumber)
      flush();
    chunk.push_back(configuration);
    return true;
  });
  flush();
  for (const std::unique_ptr<FastEvaluator> &fast : fasts)
    if (fast) {
      summary.shapesDerived += fast->shapesDerived();
      summary.shapedRuns += fast->shapedRuns();
      summary.runsRuledOut += fast->runsRuledOut();
      summary.runsRuledOutByBound += fast->runsRuledOutByBound();
      summary.timed += fast->configurationsTimed();
      summary.timingPlansDerived += fast->timingPlansDerived();
      summary.skipped += fast->configurationsSkipped();
    }
  summary.shapeEntriesHeld = shared->skeletons.peakEntries();
  summary.shapeBytesHeld = shared->skeletons.peakBytes();
  auto evaluationEnded = clocks();
  summary.evaluationSeconds =
      std::chrono::duration<double>(evaluationEnded.first -
                                    evaluationStarted.first)
          .count();
  summary.evaluationCPUSeconds =
      std::chrono::duration<double>(evaluationEnded.second -
                                    evaluationStarted.second)
          .count();
  std::vector<Ranked> best = top.sorted();
  if (!best.empty())
    summary.best = best.front();
  if (!selecting)
    return summary;

  // Every reported row has its audit trail: it is derived again through the
  // IR and must be the fast path's row, byte for byte.
  if (options.top)
    summary.top = std::move(best);
  if (options.pareto)
    summary.front = front.sorted();
  // Each reported configuration is derived again once (the top-K and the
  // front may share some), the workers taking one at a time, each through
  // its own context; the rows are then compared and emitted in order.
  bool audited = !options.checkpointDirectory.empty() || !options.throughIR;
  std::vector<const Ranked *> reported;
  llvm::DenseMap<size_t, size_t> auditOf;
  for (const std::vector<Ranked> *rows : {&summary.top, &summary.front})
    for (const Ranked &entry : *rows)
      if (auditOf.try_emplace(entry.index, reported.size()).second)
        reported.push_back(&entry);
  std::vector<RunEvaluation> audits(audited ? reported.size() : 0);
  std::atomic<size_t> nextAudit(0);
  mlir::parallelFor(&driver, 0, threads, [&](size_t worker) {
    for (size_t at = nextAudit.fetch_add(1); at < audits.size();
         at = nextAudit.fetch_add(1)) {
      const Ranked &entry = *reported[at];
      llvm::SmallString<256> directory(options.checkpointDirectory);
      llvm::sys::path::append(directory, std::to_string(entry.index));
      audits[at] = options.checkpointDirectory.empty()
                       ? pipelineOf(worker).evaluate(entry.configuration)
                       : pipelineOf(worker).evaluateWithCheckpoints(
                             entry.configuration, directory);
    }
  });
  auto report = [&](const std::vector<Ranked> &rows,
                    bool ranked) -> llvm::Error {
    for (auto [position, entry] : llvm::enumerate(rows)) {
      std::optional<size_t> rank;
      if (ranked)
        rank = position + 1;
      bool rankColumn = options.top.has_value();
      std::string row =
          formatSearchRow(options.format, entry.index, entry.configuration,
                          entry.evaluation, rank, rankColumn);
      if (audited) {
        std::string derived = formatSearchRow(
            options.format, entry.index, entry.configuration,
            audits[auditOf.lookup(entry.index)], rank, rankColumn);
        if (derived != row)
          return llvm::createStringError(
              "configuration " + std::to_string(entry.index) +
              ": the fast path's row\n  " + row +
              "\ndiffers from the row derived through the IR\n  " + derived);
      }
      emit(row);
    }
    return llvm::Error::success();
  };
  if (options.top)
    if (llvm::Error error = report(summary.top, /*ranked=*/true))
      return std::move(error);
  if (options.pareto)
    if (llvm::Error error = report(summary.front, /*ranked=*/false))
      return std::move(error);
  return summary;
}
