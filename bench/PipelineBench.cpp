//===- PipelineBench.cpp - In-process benchmarks of the pipeline ----------===//
//
// Google Benchmark cases for what a design-space sweep pays per
// configuration (bench/README.md explains every figure):
//   - the work algebra of one block (deriveBlockWork + deriveOptimizerWork);
//   - the full pipeline for one configuration: ModelIR built in C++,
//     --distribute-transformer, --plan-portable and --verify-conservation
//     under the pass manager's verifier, the work-summary totals and the
//     estimate on profiles/a100-80gb.json, on one reused MLIRContext;
//   - the same pipeline over model size and TP degree;
//   - each stage of that pipeline alone, for where the time goes;
//   - batch mode: configurations per second of a grid on one worker.
// The configurations come from the bundled examples, imported once at start.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/PlanEstimate.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/BlockWork.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <limits>

using namespace blueprint;

namespace {

/// The three contracts of one configuration.
struct Contracts {
  std::string name;
  workload::ModelSpec model;
  workload::TrainingSpec training;
  workload::MappingSpec mapping;
};

[[noreturn]] void fatal(const llvm::Twine &message) {
  llvm::errs() << "blueprint-bench: " << message << "\n";
  std::exit(EXIT_FAILURE);
}

std::string readFile(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    fatal("cannot read " + path + ": " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

std::string examplePath(llvm::StringRef name) {
  return (BLUEPRINT_EXAMPLES_DIR "/" + name + ".json").str();
}

/// The contracts of examples/<name>.json, through the JSON importer.
Contracts loadExample(llvm::StringRef name) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(readFile(examplePath(name))),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importTransformerJSON(sourceMgr, &context);
  if (!module)
    fatal("examples/" + name + ".json does not import");
  auto op = *module->getOps<transformer::DecoderTrainingOp>().begin();
  return {op.getSymName().str(), op.getModel().getSpec(),
          op.getTraining().getSpec(), op.getMapping().getSpec()};
}

const sweep::Target &a100Target() {
  static const sweep::Target target = [] {
    llvm::Expected<estimate::SystemProfile> profile =
        estimate::loadSystemProfile(BLUEPRINT_PROFILES_DIR "/a100-80gb.json");
    if (!profile)
      fatal(llvm::toString(profile.takeError()));
    llvm::Expected<estimate::NetworkTierBinding> binding =
        estimate::parseNetworkTierBindingEntries({"tp:nvlink"});
    if (!binding)
      fatal(llvm::toString(binding.takeError()));
    return sweep::Target{std::move(*profile), std::move(*binding)};
  }();
  return target;
}

/// Fails the benchmark (not silently timing an error path) unless valid.
void requireValid(benchmark::State &state, const sweep::Evaluation &result) {
  if (!result.valid())
    state.SkipWithError(result.diagnostics.empty()
                            ? "configuration rejected"
                            : result.diagnostics.front().c_str());
}

//===----------------------------------------------------------------------===//
// The work algebra of one block
//===----------------------------------------------------------------------===//

void BM_BlockWorkAlgebra(benchmark::State &state) {
  Contracts gpt3 = loadExample("gpt3-175b");
  for (auto _ : state) {
    llvm::Expected<workload::BlockWork> perMicroBatch =
        workload::deriveBlockWork(gpt3.model, gpt3.training, gpt3.mapping);
    llvm::Expected<workload::BlockWork> perIteration =
        workload::deriveOptimizerWork(gpt3.model, gpt3.training, gpt3.mapping);
    if (!perMicroBatch || !perIteration)
      fatal("the GPT-3 175B block does not derive");
    benchmark::DoNotOptimize(perMicroBatch->invocations.data());
    benchmark::DoNotOptimize(perIteration->invocations.data());
  }
}
BENCHMARK(BM_BlockWorkAlgebra);

//===----------------------------------------------------------------------===//
// The full pipeline for one configuration
//===----------------------------------------------------------------------===//

/// One context for every iteration: the same configuration uniques the same
/// attributes, so the context never needs replacing.
sweep::Evaluator makeSingleContextEvaluator() {
  return sweep::Evaluator(a100Target(), std::numeric_limits<unsigned>::max());
}

void BM_PipelineGPT3_175B(benchmark::State &state) {
  Contracts gpt3 = loadExample("gpt3-175b");
  sweep::Evaluator evaluator = makeSingleContextEvaluator();
  for (auto _ : state) {
    sweep::Evaluation result = evaluator.evaluateContracts(
        gpt3.name, gpt3.model, gpt3.training, gpt3.mapping);
    requireValid(state, result);
    benchmark::DoNotOptimize(result.block.combined);
  }
}
BENCHMARK(BM_PipelineGPT3_175B)->Unit(benchmark::kMicrosecond);

/// The same with the JSON importer in front, as batch mode runs it.
void BM_PipelineGPT3_175BFromJSON(benchmark::State &state) {
  std::string spec = readFile(examplePath("gpt3-175b"));
  sweep::Evaluator evaluator = makeSingleContextEvaluator();
  for (auto _ : state) {
    sweep::Evaluation result = evaluator.evaluateSpec(spec, "gpt3-175b.json");
    requireValid(state, result);
    benchmark::DoNotOptimize(result.block.combined);
  }
}
BENCHMARK(BM_PipelineGPT3_175BFromJSON)->Unit(benchmark::kMicrosecond);

//===----------------------------------------------------------------------===//
// Scaling with model size and TP degree
//===----------------------------------------------------------------------===//

/// Bundled examples by size: 22B, 175B, 530B, 1T parameters.
constexpr const char *kModels[] = {"seqsel-22b", "gpt3-175b", "seqsel-530b",
                                   "seqsel-1t"};

void BM_PipelineScaling(benchmark::State &state) {
  Contracts contracts = loadExample(kModels[state.range(0)]);
  // The example's PP x DP at another TP degree: world follows.
  contracts.mapping.tp = state.range(1);
  contracts.mapping.world =
      contracts.mapping.tp * contracts.mapping.pp * contracts.mapping.dp;
  state.SetLabel(contracts.name + " tp=" + std::to_string(state.range(1)));
  sweep::Evaluator evaluator = makeSingleContextEvaluator();
  for (auto _ : state) {
    sweep::Evaluation result = evaluator.evaluateContracts(
        contracts.name, contracts.model, contracts.training, contracts.mapping);
    requireValid(state, result);
    benchmark::DoNotOptimize(result.block.combined);
  }
}
BENCHMARK(BM_PipelineScaling)
    ->ArgsProduct({{0, 1, 2, 3}, {1, 2, 4, 8}})
    ->ArgNames({"model", "tp"})
    ->Unit(benchmark::kMicrosecond);

//===----------------------------------------------------------------------===//
// The pipeline's stages, one at a time
//===----------------------------------------------------------------------===//

/// GPT-3 175B at each stage of the pipeline, for the stage benchmarks: the
/// ModelIR module, the module after --distribute-transformer and the module
/// after --plan-portable, all in one context.
class GPT3Stages {
public:
  GPT3Stages() : context(makeRegistry(), mlir::MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
    Contracts gpt3 = loadExample("gpt3-175b");
    mlir::OpBuilder builder(&context);
    mlir::Location loc = mlir::NameLoc::get(builder.getStringAttr(gpt3.name));
    modelIR = mlir::ModuleOp::create(loc);
    builder.setInsertionPointToEnd(modelIR->getBody());
    transformer::DecoderTrainingOp::create(
        builder, loc, builder.getStringAttr(gpt3.name),
        transformer::getModelAttr(&context, gpt3.model),
        transformer::getTrainingAttr(&context, gpt3.training),
        transformer::getMappingAttr(&context, gpt3.mapping));
    distributed = modelIR->clone();
    run(createDistributeTransformer(), *distributed);
    planned = distributed->clone();
    run(createPlanPortable(), *planned);
  }

  mlir::MLIRContext &getContext() { return context; }
  mlir::ModuleOp getModelIR() { return *modelIR; }
  mlir::ModuleOp getDistributed() { return *distributed; }
  mlir::ModuleOp getPlanned() { return *planned; }
  dist::ProgramOp getProgram() {
    return *distributed->getOps<dist::ProgramOp>().begin();
  }
  pplan::PlanOp getPlan() { return *planned->getOps<pplan::PlanOp>().begin(); }

  /// Runs `pass` alone on `module`, without the pass manager's verifier.
  void run(std::unique_ptr<mlir::Pass> pass, mlir::ModuleOp module) {
    mlir::PassManager manager(&context);
    manager.enableVerifier(false);
    manager.addPass(std::move(pass));
    if (mlir::failed(manager.run(module)))
      fatal("a stage of the GPT-3 175B pipeline failed");
  }

private:
  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> modelIR, distributed, planned;
};

/// --distribute-transformer alone (the ModelIR clone it runs on is made
/// with the timer paused).
void BM_StageDistribute(benchmark::State &state) {
  GPT3Stages stages;
  for (auto _ : state) {
    state.PauseTiming();
    mlir::OwningOpRef<mlir::ModuleOp> module = stages.getModelIR().clone();
    state.ResumeTiming();
    stages.run(createDistributeTransformer(), *module);
  }
}
BENCHMARK(BM_StageDistribute)->Unit(benchmark::kMicrosecond);

/// The IR verifier on the distributed module (what the pass manager runs
/// after --distribute-transformer).
void BM_StageVerifyDistributed(benchmark::State &state) {
  GPT3Stages stages;
  for (auto _ : state)
    if (mlir::failed(mlir::verify(stages.getDistributed())))
      fatal("the distributed GPT-3 175B module does not verify");
}
BENCHMARK(BM_StageVerifyDistributed)->Unit(benchmark::kMicrosecond);

/// The plan's source_digest: the dist.program printed without locations
/// and hashed (SHA-256), as --plan-portable computes it.
void BM_StageDigestProgram(benchmark::State &state) {
  GPT3Stages stages;
  dist::ProgramOp program = stages.getProgram();
  for (auto _ : state)
    benchmark::DoNotOptimize(computeDigest(program));
}
BENCHMARK(BM_StageDigestProgram)->Unit(benchmark::kMicrosecond);

/// --plan-portable alone, its digest included.
void BM_StagePlan(benchmark::State &state) {
  GPT3Stages stages;
  for (auto _ : state) {
    state.PauseTiming();
    mlir::OwningOpRef<mlir::ModuleOp> module = stages.getDistributed().clone();
    state.ResumeTiming();
    stages.run(createPlanPortable(), *module);
  }
}
BENCHMARK(BM_StagePlan)->Unit(benchmark::kMicrosecond);

/// The IR verifier on the planned module.
void BM_StageVerifyPlan(benchmark::State &state) {
  GPT3Stages stages;
  for (auto _ : state)
    if (mlir::failed(mlir::verify(stages.getPlanned())))
      fatal("the planned GPT-3 175B module does not verify");
}
BENCHMARK(BM_StageVerifyPlan)->Unit(benchmark::kMicrosecond);

/// --verify-conservation's check of the plan.
void BM_StageConservation(benchmark::State &state) {
  GPT3Stages stages;
  pplan::PlanOp plan = stages.getPlan();
  for (auto _ : state)
    if (mlir::failed(verifyConservation(plan)))
      fatal("the GPT-3 175B plan does not conserve its work");
}
BENCHMARK(BM_StageConservation)->Unit(benchmark::kMicrosecond);

/// The work-summary totals and the estimate of the plan (a batch row's
/// figures).
void BM_StageSummaryAndEstimate(benchmark::State &state) {
  GPT3Stages stages;
  pplan::PlanOp plan = stages.getPlan();
  for (auto _ : state) {
    mlir::FailureOr<ProgramTotals> totals = summarizeProgram(plan);
    llvm::Expected<estimate::EstimateReport> report = estimatePlan(
        plan, a100Target().profile, a100Target().binding, {/*explain=*/false});
    if (mlir::failed(totals) || !report)
      fatal("the GPT-3 175B plan does not summarize or estimate");
    benchmark::DoNotOptimize(report->block.combined);
  }
}
BENCHMARK(BM_StageSummaryAndEstimate)->Unit(benchmark::kMicrosecond);

//===----------------------------------------------------------------------===//
// Batch mode
//===----------------------------------------------------------------------===//

/// A GPT-3 175B grid of 1,440 configurations over every sweep axis
/// (tp, pp, dp, micro_batch, recompute, tp_comm) on one worker, all valid so
/// that every configuration runs the whole pipeline (a rejected one stops
/// early and would flatter the rate), with JSON-lines (0) or CSV (1) rows.
/// Items per second = configurations per second per core.
void BM_BatchGrid(benchmark::State &state) {
  sweep::RowFormat format =
      state.range(0) ? sweep::RowFormat::CSV : sweep::RowFormat::JSONLines;
  state.SetLabel(state.range(0) ? "csv" : "jsonl");
  std::string grid = "{\"spec\": " + readFile(examplePath("gpt3-175b")) +
                     ", \"grid\": {\"tp\": [1, 2, 4, 8], \"pp\": [1, 4, 8, "
                     "16, 32], \"dp\": [1, 2, 3], \"micro_batch\": [1, 2, 4, "
                     "8], \"recompute\": [\"none\", \"selective\", "
                     "\"full\"], \"tp_comm\": [\"all_reduce\", "
                     "\"reduce_scatter_all_gather\"]}}";
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(grid);
  if (!batch)
    fatal(llvm::toString(batch.takeError()));
  size_t bytes = 0;
  for (auto _ : state)
    sweep::runBatch(*batch, a100Target(), /*threads=*/1, format,
                    [&](llvm::StringRef row) { bytes += row.size(); });
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(batch->size()));
}
BENCHMARK(BM_BatchGrid)
    ->ArgName("csv")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
