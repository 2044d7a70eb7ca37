//===- WholeRunBench.cpp - Benchmarks of the whole-run program ------------===//
//
// Google Benchmark cases for the whole-run program of one training iteration
// (docs/WholeRun.md, issue 15; bench/README.md explains every figure):
//   - the plain derivation: workload::deriveWholeRun + summarizeWholeRun;
//   - the IR path: the ModelIR built in C++, --distribute-transformer with
//     scope=iteration under the pass manager's verifier, and the per-stage
//     totals read off the IR (summarizeStages);
// for GPT-3 175B on 1,536 GPUs (examples/gpt3-175b.json: TP 8, PP 16, DP 12,
// 128 micro-batches) and over pipeline stages x micro-batches for the same
// model, where `per_stage_mb` is the time per (stage x micro-batch).
// Everything runs on one thread: the context's threading is disabled, so
// the verifier does not check the stages in parallel.
//
// For the same GPT-3 175B run, what a search pays for memory and time
// without IR (docs/Memory.md): every stage's buffers and their peak
// (workload::deriveBuffers + analyzeMemory), the critical path
// (analysis::runGraphOf + longestPath on profiles/a100-80gb.json, tp on
// nvlink, pp and dp on infiniband), and the whole chain from the contracts.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

using namespace blueprint;

namespace {

/// The three contracts of one configuration.
struct RunContracts {
  std::string name;
  workload::ModelSpec model;
  workload::TrainingSpec training;
  workload::MappingSpec mapping;
};

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "blueprint-bench: " << message << "\n";
  std::exit(EXIT_FAILURE);
}

mlir::DialectRegistry makeRegistry() {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  return registry;
}

/// The contracts of examples/gpt3-175b.json, through the JSON importer.
RunContracts loadGPT3() {
  std::string path = BLUEPRINT_EXAMPLES_DIR "/gpt3-175b.json";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    fail("cannot read " + path + ": " + buffer.getError().message());
  mlir::MLIRContext context(makeRegistry());
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importTransformerJSON(sourceMgr, &context);
  if (!module)
    fail(path + " does not import");
  auto op = *module->getOps<transformer::DecoderTrainingOp>().begin();
  return {op.getSymName().str(), op.getModel().getSpec(),
          op.getTraining().getSpec(), op.getMapping().getSpec()};
}

/// GPT-3 175B with `pp` stages and `microbatches` micro-batches per
/// iteration: TP 8, DP 12 and micro-batch 1 kept, the global batch and the
/// world following. (16, 128) is the example itself.
RunContracts gpt3With(int64_t pp, int64_t microbatches) {
  RunContracts contracts = loadGPT3();
  contracts.mapping.pp = pp;
  contracts.mapping.world =
      contracts.mapping.tp * contracts.mapping.pp * contracts.mapping.dp;
  contracts.training.globalBatch =
      microbatches * contracts.mapping.dp * contracts.training.microBatch;
  return contracts;
}

/// Steps (instances, messages and stage-level work) of all stages.
int64_t countSteps(const workload::WholeRun &run) {
  int64_t steps = 0;
  for (const workload::StageProgram &stage : run.stages)
    steps += static_cast<int64_t>(stage.steps.size());
  return steps;
}

/// The plain path once: derive and summarise, failing loudly.
int64_t derivePlain(const RunContracts &contracts) {
  llvm::Expected<workload::WholeRun> run = workload::deriveWholeRun(
      contracts.model, contracts.training, contracts.mapping);
  if (!run)
    fail(contracts.name + ": " + llvm::toString(run.takeError()));
  llvm::Expected<std::vector<workload::StageTotals>> totals =
      workload::summarizeWholeRun(*run);
  if (!totals)
    fail(contracts.name + ": " + llvm::toString(totals.takeError()));
  benchmark::DoNotOptimize(totals->data());
  return countSteps(*run);
}

void setCounters(benchmark::State &state, int64_t pp, int64_t microbatches,
                 int64_t steps, int64_t ops) {
  state.counters["steps"] = static_cast<double>(steps);
  if (ops > 0)
    state.counters["ops"] = static_cast<double>(ops);
  // Seconds per (stage x micro-batch): an iteration-invariant rate, inverted.
  state.counters["per_stage_mb"] =
      benchmark::Counter(static_cast<double>(pp * microbatches),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

//===----------------------------------------------------------------------===//
// The plain derivation
//===----------------------------------------------------------------------===//

void runPlain(benchmark::State &state, const RunContracts &contracts,
              int64_t pp, int64_t microbatches) {
  int64_t steps = 0;
  for (auto _ : state)
    steps = derivePlain(contracts);
  setCounters(state, pp, microbatches, steps, 0);
}

/// deriveWholeRun + summarizeWholeRun for examples/gpt3-175b.json.
void BM_WholeRunPlainGPT3_175B(benchmark::State &state) {
  runPlain(state, loadGPT3(), 16, 128);
}
BENCHMARK(BM_WholeRunPlainGPT3_175B)->Unit(benchmark::kMillisecond);

/// The same over pipeline stages x micro-batches.
void BM_WholeRunPlainCurve(benchmark::State &state) {
  runPlain(state, gpt3With(state.range(0), state.range(1)), state.range(0),
           state.range(1));
}
BENCHMARK(BM_WholeRunPlainCurve)
    ->ArgsProduct({{2, 4, 8, 16}, {16, 32, 64, 128, 256}})
    ->ArgNames({"pp", "mb"})
    ->Unit(benchmark::kMillisecond);

//===----------------------------------------------------------------------===//
// The IR path
//===----------------------------------------------------------------------===//

/// One context (threading disabled) and one pass manager for all iterations:
/// the same configuration uniques the same attributes and locations.
class WholeRunIR {
public:
  explicit WholeRunIR(RunContracts contracts)
      : contracts(std::move(contracts)),
        context(makeRegistry(), mlir::MLIRContext::Threading::DISABLED),
        manager(&context) {
    context.loadAllAvailableDialects();
    DistributeTransformerOptions options;
    options.scope = "iteration";
    // The pass manager's verifier (on by default) checks the output.
    manager.addPass(createDistributeTransformer(options));
  }

  /// Builds the ModelIR, distributes it over the whole iteration, verifies
  /// and summarises it; returns the number of ops of the program.
  int64_t runOnce(bool countOps) {
    mlir::OpBuilder builder(&context);
    mlir::Location loc =
        mlir::NameLoc::get(builder.getStringAttr(contracts.name));
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    transformer::DecoderTrainingOp::create(
        builder, loc, builder.getStringAttr(contracts.name),
        transformer::getModelAttr(&context, contracts.model),
        transformer::getTrainingAttr(&context, contracts.training),
        transformer::getMappingAttr(&context, contracts.mapping));
    if (mlir::failed(manager.run(*module)))
      fail(contracts.name + ": --distribute-transformer=scope=iteration "
                            "failed");
    auto programs = module->getOps<dist::ProgramOp>();
    if (programs.empty())
      fail(contracts.name + ": no dist.program");
    dist::ProgramOp program = *programs.begin();
    mlir::FailureOr<std::vector<workload::StageTotals>> totals =
        summarizeStages(program);
    if (mlir::failed(totals))
      fail(contracts.name + ": the stages do not summarise");
    benchmark::DoNotOptimize(totals->data());
    int64_t ops = 0;
    if (countOps)
      program->walk([&](mlir::Operation *) { ++ops; });
    return ops;
  }

  const RunContracts &getContracts() const { return contracts; }

private:
  RunContracts contracts;
  mlir::MLIRContext context;
  mlir::PassManager manager;
};

void runIR(benchmark::State &state, RunContracts contracts, int64_t pp,
           int64_t microbatches) {
  int64_t steps = derivePlain(contracts);
  WholeRunIR ir(std::move(contracts));
  int64_t ops = ir.runOnce(/*countOps=*/true);
  for (auto _ : state)
    ir.runOnce(/*countOps=*/false);
  setCounters(state, pp, microbatches, steps, ops);
}

/// The IR path for examples/gpt3-175b.json.
void BM_WholeRunIRGPT3_175B(benchmark::State &state) {
  runIR(state, loadGPT3(), 16, 128);
}
BENCHMARK(BM_WholeRunIRGPT3_175B)->Unit(benchmark::kMillisecond);

/// The same over pipeline stages x micro-batches.
void BM_WholeRunIRCurve(benchmark::State &state) {
  runIR(state, gpt3With(state.range(0), state.range(1)), state.range(0),
        state.range(1));
}
BENCHMARK(BM_WholeRunIRCurve)
    ->ArgsProduct({{2, 4, 8, 16}, {16, 32, 64, 128, 256}})
    ->ArgNames({"pp", "mb"})
    ->Unit(benchmark::kMillisecond);

//===----------------------------------------------------------------------===//
// Lifetimes, peaks and the critical path
//===----------------------------------------------------------------------===//

/// Takes the value of `value`, or reports its error through
/// SkipWithError (the benchmark fails loudly) and returns nothing.
template <typename T>
std::optional<T> valueOrSkip(benchmark::State &state, llvm::StringRef what,
                             llvm::Expected<T> value) {
  if (value)
    return std::move(*value);
  std::string message = (what + ": " + llvm::toString(value.takeError())).str();
  llvm::errs() << "blueprint-bench: " << message << "\n";
  state.SkipWithError(message.c_str());
  return std::nullopt;
}

/// The profile the critical path is costed on: profiles/a100-80gb.json, tp
/// on nvlink, pp and dp on infiniband, with the InfiniBand fabric widened to
/// `world` ranks when it is smaller. The bundled profile models one DGX
/// SuperPOD fabric of 1,120 GPUs (140 NVLink domains), so it cannot hold
/// GPT-3 175B on 1,536 GPUs (192 domains; docs/Estimate.md): the estimate
/// refuses the binding. Only that check reads a tier's group size; the
/// times (bandwidth, latency, efficiency) are the profile's.
struct CostTarget {
  estimate::SystemProfile profile;
  estimate::NetworkTierBinding binding;
};

std::optional<CostTarget> loadA100(benchmark::State &state, int64_t world) {
  std::optional<estimate::SystemProfile> profile = valueOrSkip(
      state, BLUEPRINT_PROFILES_DIR "/a100-80gb.json",
      estimate::loadSystemProfile(BLUEPRINT_PROFILES_DIR "/a100-80gb.json"));
  if (!profile)
    return std::nullopt;
  for (estimate::NetworkTier &tier : profile->networkTiers)
    if (tier.name == "infiniband" && tier.groupSize.value < world) {
      tier.groupSize.value = world;
      tier.groupSize.source = "blueprint-bench: widened to the run's world";
    }
  estimate::NetworkTierBinding binding;
  binding.tierOfAxis = {
      {"tp", "nvlink"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
  return CostTarget{std::move(*profile), std::move(binding)};
}

/// What one pass of the memory analysis found, for the counters.
struct MemoryFigures {
  int64_t buffers = 0;
  int64_t maxStageBuffers = 0;
  int64_t worstPeakBytes = 0;
};

/// deriveBuffers, then analyzeMemory of every stage; nothing after an error
/// (reported through SkipWithError).
std::optional<MemoryFigures> analyseMemory(benchmark::State &state,
                                           const RunContracts &contracts,
                                           const workload::WholeRun &run) {
  std::optional<std::vector<workload::StageBuffers>> buffers = valueOrSkip(
      state, contracts.name + ": deriveBuffers",
      workload::deriveBuffers(run, contracts.mapping, contracts.training));
  if (!buffers)
    return std::nullopt;
  MemoryFigures figures;
  for (const workload::StageBuffers &stage : *buffers) {
    std::optional<workload::StageMemory> memory =
        valueOrSkip(state, contracts.name + ": analyzeMemory",
                    workload::analyzeMemory(stage));
    if (!memory)
      return std::nullopt;
    benchmark::DoNotOptimize(memory->liveBytes.data());
    auto count = static_cast<int64_t>(stage.buffers.size());
    figures.buffers += count;
    figures.maxStageBuffers = std::max(figures.maxStageBuffers, count);
    figures.worstPeakBytes =
        std::max(figures.worstPeakBytes, memory->peakBytes);
  }
  return figures;
}

/// runGraphOf, then longestPath; the iteration time, nothing after an
/// error (reported through SkipWithError).
std::optional<double> analyseTime(benchmark::State &state,
                                  const RunContracts &contracts,
                                  const workload::WholeRun &run,
                                  const CostTarget &target) {
  std::optional<analysis::RunGraph> graph =
      valueOrSkip(state, contracts.name + ": runGraphOf",
                  analysis::runGraphOf(run, contracts.mapping,
                                       contracts.training.activationType,
                                       target.profile, target.binding));
  if (!graph)
    return std::nullopt;
  std::optional<analysis::CriticalPathReport> report = valueOrSkip(
      state, contracts.name + ": longestPath", analysis::longestPath(*graph));
  if (!report)
    return std::nullopt;
  benchmark::DoNotOptimize(report->path.data());
  return estimate::secondsOf(report->iterationPicoseconds);
}

std::optional<workload::WholeRun> deriveRun(benchmark::State &state,
                                            const RunContracts &contracts) {
  return valueOrSkip(state, contracts.name + ": deriveWholeRun",
                     workload::deriveWholeRun(contracts.model,
                                              contracts.training,
                                              contracts.mapping));
}

void setMemoryCounters(benchmark::State &state, const MemoryFigures &figures,
                       size_t stages) {
  state.counters["buffers"] = static_cast<double>(figures.buffers);
  state.counters["buffers_per_stage"] =
      static_cast<double>(figures.buffers) / static_cast<double>(stages);
  state.counters["max_stage_buffers"] =
      static_cast<double>(figures.maxStageBuffers);
  state.counters["peak_bytes"] = benchmark::Counter(
      static_cast<double>(figures.worstPeakBytes),
      benchmark::Counter::kDefaults, benchmark::Counter::OneK::kIs1024);
}

/// deriveBuffers + analyzeMemory of every stage of the GPT-3 175B run,
/// derived once outside the timed loop. `peak_bytes` is the worst stage's
/// peak per rank.
void BM_WholeRunMemoryGPT3_175B(benchmark::State &state) {
  RunContracts contracts = loadGPT3();
  std::optional<workload::WholeRun> run = deriveRun(state, contracts);
  if (!run)
    return;
  MemoryFigures figures;
  for (auto _ : state) {
    std::optional<MemoryFigures> result = analyseMemory(state, contracts, *run);
    if (!result)
      return;
    figures = *result;
  }
  state.counters["steps"] = static_cast<double>(countSteps(*run));
  setMemoryCounters(state, figures, run->stages.size());
}
BENCHMARK(BM_WholeRunMemoryGPT3_175B)->Unit(benchmark::kMillisecond);

/// runGraphOf + longestPath for the GPT-3 175B run, derived once outside the
/// timed loop. `iteration_s` is the estimated iteration time.
void BM_WholeRunCriticalPathGPT3_175B(benchmark::State &state) {
  RunContracts contracts = loadGPT3();
  std::optional<CostTarget> target = loadA100(state, contracts.mapping.world);
  if (!target)
    return;
  std::optional<workload::WholeRun> run = deriveRun(state, contracts);
  if (!run)
    return;
  double seconds = 0;
  for (auto _ : state) {
    std::optional<double> result = analyseTime(state, contracts, *run, *target);
    if (!result)
      return;
    seconds = *result;
  }
  state.counters["steps"] = static_cast<double>(countSteps(*run));
  state.counters["iteration_s"] = seconds;
}
BENCHMARK(BM_WholeRunCriticalPathGPT3_175B)->Unit(benchmark::kMillisecond);

/// The whole chain from the contracts (the profile loaded once):
/// deriveWholeRun, deriveBuffers, analyzeMemory of every stage, runGraphOf and
/// longestPath. The `*_s` counters split the time per iteration between the
/// parts (wall clock): derive, memory (buffers and peaks), graph (runGraphOf
/// and longestPath).
void BM_WholeRunLifetimesAndPathGPT3_175B(benchmark::State &state) {
  using Clock = std::chrono::steady_clock;
  RunContracts contracts = loadGPT3();
  std::optional<CostTarget> target = loadA100(state, contracts.mapping.world);
  if (!target)
    return;
  MemoryFigures figures;
  double seconds = 0;
  int64_t steps = 0;
  size_t stages = 0;
  std::chrono::duration<double> derive{}, memory{}, time{};
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    std::optional<workload::WholeRun> run = deriveRun(state, contracts);
    if (!run)
      return;
    Clock::time_point derived = Clock::now();
    std::optional<MemoryFigures> memoryFigures =
        analyseMemory(state, contracts, *run);
    if (!memoryFigures)
      return;
    Clock::time_point analysed = Clock::now();
    std::optional<double> result = analyseTime(state, contracts, *run, *target);
    if (!result)
      return;
    Clock::time_point timed = Clock::now();
    derive += derived - start;
    memory += analysed - derived;
    time += timed - analysed;
    figures = *memoryFigures;
    seconds = *result;
    steps = countSteps(*run);
    stages = run->stages.size();
  }
  state.counters["steps"] = static_cast<double>(steps);
  setMemoryCounters(state, figures, stages);
  state.counters["iteration_s"] = seconds;
  state.counters["derive_s"] =
      benchmark::Counter(derive.count(), benchmark::Counter::kAvgIterations);
  state.counters["memory_s"] =
      benchmark::Counter(memory.count(), benchmark::Counter::kAvgIterations);
  state.counters["path_s"] =
      benchmark::Counter(time.count(), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_WholeRunLifetimesAndPathGPT3_175B)->Unit(benchmark::kMillisecond);

} // namespace
