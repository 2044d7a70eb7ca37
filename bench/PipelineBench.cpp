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
//   - batch mode: configurations per second of a grid on one worker.
// The configurations come from the bundled examples, imported once at start.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Workload/BlockWork.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
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
