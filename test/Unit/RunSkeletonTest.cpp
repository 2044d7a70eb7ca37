//===- RunSkeletonTest.cpp - Runs evaluated through their shape -----------===//
//
// A search evaluates a training run from its parts through the skeleton of
// its shape (lib/Sweep/RunSkeleton.cpp), derived in whole from another run
// of the shape. These tests hold it to the whole derivation of every run,
// row for row, check that shapes are told apart, and hold the cache the
// workers share skeletons and timing plans through (SkeletonCache) to its
// protocol, under a budget that drops shapes.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/RunSkeleton.h"
#include "Blueprint/Sweep/Search.h"

#include "SmallRuns.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace blueprint;

namespace {

const estimate::SystemProfile &a100() { return test::a100Profile(); }

/// The small model of SmallRuns.h (tp 2, pp 2, dp 2, 4 micro-batches of 2).
sweep::RunContracts smallContracts() {
  test::RunSpecs specs =
      test::smallRun(workload::PipelineSchedule::OneFOneB, 2, 4);
  sweep::RunContracts run;
  run.name = "small";
  run.model = specs.model;
  run.training = specs.training;
  run.mapping = specs.mapping;
  return run;
}

/// Every valid configuration of the small model on `gpus` GPUs, with every
/// recompute policy and two bucket sizes (one bucket, and small buckets).
sweep::SearchSpace spaceOn(llvm::ArrayRef<int64_t> gpus,
                           llvm::json::Object grid = {}) {
  grid["recompute"] = llvm::json::Array{"none", "selective", "full"};
  grid["bucket_bytes"] = llvm::json::Array{0, 40000};
  llvm::Expected<sweep::SearchSpace> space = sweep::SearchSpace::parse(
      grid, smallContracts(), {}, a100(), gpus, std::nullopt);
  EXPECT_TRUE(static_cast<bool>(space));
  return std::move(*space);
}

/// The row of `configuration` from its whole derivation (deriveRun, then
/// costRun, with no skeleton).
std::string wholeRow(const sweep::Configuration &configuration) {
  const sweep::RunContracts &run = configuration.run;
  llvm::Expected<sweep::RunFigures> figures =
      sweep::evaluateWholeRun(run.model, run.training, run.inference,
                              run.mapping, a100(), configuration.binding);
  sweep::RunEvaluation evaluation;
  if (figures) {
    evaluation.run = std::move(*figures);
  } else {
    evaluation.rejectedAt = sweep::SearchStage::Derivation;
    evaluation.diagnostics.push_back(llvm::toString(figures.takeError()));
  }
  return sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0, configuration,
                                evaluation);
}

TEST(RunSkeletonTest, EveryRunOfAShapeEqualsItsWholeDerivation) {
  // Every valid configuration on 4 GPUs, and on 8 those with every kind
  // of work at once (TP, PP and DP: scattered messages, ZeRO 0-3), and
  // with cp 1 or 2 (cp 2, dp 1 and cp 1, dp 2 share skeletons).
  sweep::FastEvaluator fast(a100());
  size_t count = 0;
  for (sweep::SearchSpace space :
       {spaceOn({4}),
        spaceOn({8}, llvm::json::Object{{"tp", llvm::json::Array{2}},
                                        {"pp", llvm::json::Array{2}}}),
        spaceOn({8}, llvm::json::Object{{"tp", llvm::json::Array{2}},
                                        {"cp", llvm::json::Array{1, 2}},
                                        {"pp", llvm::json::Array{2}}})})
    space.enumerate([&](const sweep::Configuration &configuration) {
      ++count;
      std::string shaped =
          sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0, configuration,
                                 fast.evaluate(configuration));
      EXPECT_EQ(shaped, wholeRow(configuration));
      return true;
    });
  EXPECT_GT(count, 1000u) << count;
  // Runs shared shapes: most were evaluated from a skeleton another run's
  // derivation made.
  EXPECT_GT(fast.shapedRuns(), 2 * fast.shapesDerived());
  EXPECT_GT(fast.shapesDerived(), 10u);
  // Bindings that differ only in dp's tier change only the stages' closing
  // steps: those runs were timed from there, the rows still equal.
  EXPECT_GT(fast.keptStepTimings(), 0u);
  // Runs with the same templates (another pp, schedule, buckets, or ZeRO
  // stage among 1-3) took their templates' costs and bytes from an earlier
  // run.
  EXPECT_GT(fast.templateCostsShared(), 0u);
  EXPECT_GT(fast.templateBytesShared(), 0u);
}

TEST(RunSkeletonTest, OverlappedExpertReductionsEqualTheWholeDerivation) {
  // At ep > 1 a stage reduces its dense and its expert gradient buckets;
  // under overlap_dp_grad_reduce one stream issues them in the order the
  // backward completes them, which only the whole run's steps fix (a run's
  // parts list the dense ones first). Every configuration of a mixture of
  // experts with a dense first block on 16 GPUs at tp 1, ep 2 and pp 2 or 4
  // (edp 4 or 2: the expert buckets are reduced), 1F1B and interleaved,
  // ZeRO 1 and 3, with and without overlap, on every tier binding: the
  // fast path's row is the whole derivation's, byte for byte.
  llvm::StringRef input = R"({"spec": {"name": "mixed", "model": {
      "hidden": 128, "heads": 16, "ffn_hidden": 512, "seq_length": 64,
      "vocab": 256, "blocks": 8, "norm": "rmsnorm", "activation": "swiglu",
      "linear_bias": "none", "position_embedding": "rotary",
      "moe": {"experts": 8, "experts_per_token": 2, "expert_ffn_hidden": 128,
              "first_dense_blocks": 1}},
    "training": {"global_batch": 16, "micro_batch": 1,
      "activation_type": "bf16", "weight_type": "bf16",
      "gradient_type": "f32", "optimizer_state_type": "f32"},
    "mapping": {"tp": 1, "pp": 4, "dp": 4, "ep": 2, "cp": 1,
      "virtual_stages": 2, "schedule": "interleaved_one_f_one_b",
      "recompute": "full", "zero_stage": 1, "bucket_bytes": 40000}},
    "grid": {"tp": [1], "pp": [2, 4], "ep": [2], "virtual_stages": [1, 2],
      "schedule": ["one_f_one_b", "interleaved_one_f_one_b"],
      "recompute": ["full"], "zero_stage": [1, 3],
      "overlap_dp_grad_reduce": [false, true], "bucket_bytes": [40000],
      "micro_batch": [1]}})";
  sweep::SearchSpace space = test::valueOrFail(
      sweep::parseSearchSpace(input, "mixed.json", {}, a100(), {16}));
  sweep::FastEvaluator fast(a100());
  size_t count = 0, overlapped = 0;
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::RunEvaluation evaluation = fast.evaluate(configuration);
    if (!evaluation.valid())
      return true;
    ++count;
    if (configuration.run.mapping.overlapDPGradReduce)
      ++overlapped;
    EXPECT_EQ(sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0,
                                     configuration, evaluation),
              wholeRow(configuration))
        << sweep::describeMapping(configuration);
    return true;
  });
  EXPECT_GT(overlapped, 20u) << overlapped;
  EXPECT_GT(count, overlapped) << count;
  EXPECT_GT(fast.shapedRuns(), 0u);
}

/// The A100 profile with `values`' median usable per GPU, all of it.
estimate::SystemProfile withMedianCapacity(std::vector<int64_t> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2,
                   values.end());
  estimate::SystemProfile profile = a100();
  profile.memory.capacityBytes.value = values[values.size() / 2];
  profile.memory.usableFraction.reset();
  return profile;
}

/// Every valid configuration of `space` evaluated in full and by a query's
/// evaluator, both valid or neither; `check` sees each valid one.
void evaluateInFullAndByAQuery(
    const sweep::SearchSpace &space, sweep::FastEvaluator &full,
    sweep::FastEvaluator &query,
    llvm::function_ref<void(const sweep::Configuration &,
                            const sweep::RunEvaluation &every,
                            const sweep::RunEvaluation &fitted)>
        check) {
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::RunEvaluation every = full.evaluate(configuration);
    sweep::RunEvaluation fitted = query.evaluate(configuration);
    EXPECT_EQ(every.valid(), fitted.valid());
    if (every.valid())
      check(configuration, every, fitted);
    return true;
  });
}

/// Each configuration of `space` whose contracts compose (a space lists
/// every combination of its axes), with its whole run and its parts.
void forEachComposingRun(
    const sweep::SearchSpace &space,
    llvm::function_ref<void(const sweep::Configuration &,
                            const workload::WholeRun &whole,
                            const workload::WholeRun &parts)>
        visit) {
  space.enumerate([&](const sweep::Configuration &configuration) {
    const sweep::RunContracts &run = configuration.run;
    llvm::Expected<workload::WholeRun> whole =
        workload::deriveWholeRun(run.model, *run.training, run.mapping);
    if (!whole) {
      llvm::consumeError(whole.takeError());
      return true;
    }
    workload::WholeRun parts = test::valueOrFail(
        workload::deriveRunParts(run.model, *run.training, run.mapping));
    visit(configuration, *whole, parts);
    return true;
  });
}

/// memoryBoundFigures of `run` on `profile`, from its parts.
std::optional<sweep::RunFigures>
boundFromParts(const sweep::RunContracts &run,
               const estimate::SystemProfile &profile) {
  workload::WholeRun parts = test::valueOrFail(
      workload::deriveRunParts(run.model, *run.training, run.mapping));
  std::vector<workload::TemplateBytes> bytes =
      test::valueOrFail(workload::templateBytesOf(parts));
  std::optional<std::vector<workload::InFlightBlocks>> inFlight =
      workload::inFlightBlocksOf(parts.schedule, parts.layout,
                                 parts.microbatches);
  if (!inFlight)
    return std::nullopt;
  return sweep::memoryBoundFigures(parts, bytes, *inFlight, run.mapping,
                                   *run.training, profile);
}

TEST(RunSkeletonTest, AQueryTimesOnlyTheRunsThatFit) {
  // A capacity that about half of the space on 4 GPUs fits (the median
  // peak): a query's evaluator (timeFittingOnly) gives every run that fits
  // the full evaluator's row, byte for byte, and every other run no time
  // and the same memory figures or a lower bound of them over the capacity;
  // it times exactly the configurations that fit, and derives the timing
  // plans of the shapes they use only.
  sweep::SearchSpace space = spaceOn({4});
  std::vector<int64_t> peaks;
  sweep::FastEvaluator measure(a100());
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::RunEvaluation evaluation = measure.evaluate(configuration);
    if (evaluation.valid())
      peaks.push_back(evaluation.run.peakBytes);
    return true;
  });
  ASSERT_GT(peaks.size(), 100u);
  estimate::SystemProfile half = withMedianCapacity(peaks);

  sweep::FastEvaluator full(half);
  sweep::FastEvaluator query(half, /*timeFittingOnly=*/true);
  size_t fitting = 0, other = 0, stageStopped = 0, boundRuledOut = 0;
  evaluateInFullAndByAQuery(
      space, full, query,
      [&](const sweep::Configuration &configuration,
          const sweep::RunEvaluation &every,
          const sweep::RunEvaluation &fitted) {
        if (every.run.fits) {
          ++fitting;
          EXPECT_EQ(sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0,
                                           configuration, fitted),
                    sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0,
                                           configuration, every));
        } else {
          ++other;
          EXPECT_TRUE(every.run.iterationPicoseconds.has_value());
          EXPECT_FALSE(fitted.run.fits);
          EXPECT_FALSE(fitted.run.iterationPicoseconds.has_value());
          // A run its persistent state rules out has that bound instead of its
          // peak (the next test), and so has a run whose stage before the last
          // exceeds the capacity the peak so far (the later stages are left
          // out); any other has the full evaluation's figures.
          if (fitted.run.peakIsBound) {
            EXPECT_LE(fitted.run.peakBytes, every.run.peakBytes);
            EXPECT_GT(fitted.run.peakBytes, half.memory.usableCapacityBytes());
            const sweep::RunContracts &run = configuration.run;
            std::optional<sweep::RunFigures> persistent =
                sweep::persistentBoundFigures(run.model, *run.training,
                                              run.mapping, half);
            EXPECT_TRUE(persistent.has_value());
            if (persistent && persistent->fits) {
              // Ruled out by the bound from its parts, or stopped at a
              // stage over the capacity.
              std::optional<sweep::RunFigures> fromParts =
                  boundFromParts(run, half);
              EXPECT_TRUE(fromParts.has_value());
              if (fromParts && !fromParts->fits) {
                ++boundRuledOut;
                EXPECT_EQ(fitted.run.peakBytes, fromParts->peakBytes);
                return;
              }
              ++stageStopped;
              EXPECT_LT(fitted.run.peakStage, run.mapping.pp - 1);
              EXPECT_LE(fitted.run.peakStage, every.run.peakStage);
            }
            return;
          }
          EXPECT_EQ(fitted.run.peakBytes, every.run.peakBytes);
          EXPECT_EQ(fitted.run.peakStage, every.run.peakStage);
          EXPECT_EQ(fitted.run.marginBytes, every.run.marginBytes);
        }
      });
  EXPECT_GT(fitting, 50u);
  EXPECT_GT(other, 50u);
  EXPECT_GT(stageStopped, 0u);
  EXPECT_GT(boundRuledOut, 0u);
  EXPECT_GT(query.runsRuledOutByBound(), 0u);
  EXPECT_EQ(full.runsRuledOutByBound(), 0u);
  EXPECT_EQ(query.configurationsTimed(), fitting);
  EXPECT_EQ(full.configurationsTimed(), fitting + other);
  // Every shape the full evaluator derived has its plan; the query's
  // shapes whose runs all miss the capacity have none.
  EXPECT_EQ(full.timingPlansDerived(), full.shapesDerived());
  EXPECT_GT(query.timingPlansDerived(), 0u);
  EXPECT_LT(query.timingPlansDerived(), query.shapesDerived());
}

TEST(RunSkeletonTest, APersistentStateOverTheCapacityRulesARunOut) {
  // The persistent state (weights, gradients, optimizer state) is live at
  // every position of its stage, so its largest is a lower bound of the
  // peak: on every run of the space on 4 and 8 GPUs (every ZeRO stage,
  // schedule, layout and bucket size) the bound is at most the peak. At
  // a capacity between the smallest and the largest bound, a query rules
  // out the runs above it without a shape, and every configuration still
  // fits exactly when the full evaluation says so.
  sweep::SearchSpace space = spaceOn({4, 8});
  sweep::FastEvaluator measure(a100());
  std::vector<int64_t> bounds;
  std::optional<sweep::Configuration> first;
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::RunEvaluation evaluation = measure.evaluate(configuration);
    if (!evaluation.valid())
      return true;
    if (!first)
      first = configuration;
    const sweep::RunContracts &run = configuration.run;
    std::optional<sweep::RunFigures> bound = sweep::persistentBoundFigures(
        run.model, *run.training, run.mapping, a100());
    EXPECT_TRUE(bound.has_value());
    if (!bound)
      return true;
    EXPECT_TRUE(bound->peakIsBound);
    EXPECT_FALSE(evaluation.run.peakIsBound);
    EXPECT_GT(bound->peakBytes, 0);
    EXPECT_LE(bound->peakBytes, evaluation.run.peakBytes);
    bounds.push_back(bound->peakBytes);
    return true;
  });
  ASSERT_GT(bounds.size(), 100u);
  ASSERT_LT(*std::min_element(bounds.begin(), bounds.end()),
            *std::max_element(bounds.begin(), bounds.end()));
  estimate::SystemProfile tight = withMedianCapacity(bounds);

  sweep::FastEvaluator full(tight);
  sweep::FastEvaluator query(tight, /*timeFittingOnly=*/true);
  size_t bounded = 0, fitting = 0;
  evaluateInFullAndByAQuery(
      space, full, query,
      [&](const sweep::Configuration &, const sweep::RunEvaluation &every,
          const sweep::RunEvaluation &fitted) {
        EXPECT_EQ(fitted.run.fits, every.run.fits);
        if (every.run.fits)
          ++fitting;
        if (fitted.run.peakIsBound) {
          ++bounded;
          EXPECT_GT(fitted.run.peakBytes, tight.memory.usableCapacityBytes());
          EXPECT_EQ(fitted.run.marginBytes,
                    tight.memory.usableCapacityBytes() - fitted.run.peakBytes);
        }
      });
  EXPECT_GT(bounded, 0u);
  EXPECT_GT(fitting, 0u);
  EXPECT_GT(query.runsRuledOut(), 0u);
  EXPECT_EQ(full.runsRuledOut(), 0u);
  EXPECT_LT(query.shapesDerived(), full.shapesDerived());

  // At the capacity of a run's bound exactly the run is not ruled out; one
  // byte less and it is.
  ASSERT_TRUE(first.has_value());
  const sweep::RunContracts &run = first->run;
  std::optional<sweep::RunFigures> bound = sweep::persistentBoundFigures(
      run.model, *run.training, run.mapping, a100());
  ASSERT_TRUE(bound.has_value());
  estimate::SystemProfile exact = tight;
  exact.memory.capacityBytes.value = bound->peakBytes;
  std::optional<sweep::RunFigures> at = sweep::persistentBoundFigures(
      run.model, *run.training, run.mapping, exact);
  ASSERT_TRUE(at.has_value());
  EXPECT_TRUE(at->fits);
  EXPECT_EQ(at->marginBytes, 0);
  sweep::FastEvaluator atQuery(exact, /*timeFittingOnly=*/true);
  EXPECT_TRUE(atQuery.evaluate(*first).valid());
  EXPECT_EQ(atQuery.runsRuledOut(), 0u);
  exact.memory.capacityBytes.value = bound->peakBytes - 1;
  std::optional<sweep::RunFigures> over = sweep::persistentBoundFigures(
      run.model, *run.training, run.mapping, exact);
  ASSERT_TRUE(over.has_value());
  EXPECT_FALSE(over->fits);
  EXPECT_EQ(over->marginBytes, -1);
  sweep::FastEvaluator overQuery(exact, /*timeFittingOnly=*/true);
  sweep::RunEvaluation evaluation = overQuery.evaluate(*first);
  EXPECT_TRUE(evaluation.valid());
  EXPECT_TRUE(evaluation.run.peakIsBound);
  EXPECT_EQ(overQuery.runsRuledOut(), 1u);
  EXPECT_EQ(overQuery.shapesDerived(), 0u);
}

TEST(RunSkeletonTest, ABoundFromThePartsIsAtMostEachStagesPeak) {
  // Every configuration of the small model on 8 GPUs at tp 2 (pp 2 and
  // 4), dense and with experts (ep 2, its first block dense: two block
  // kinds, each with its own templates), under every schedule, one and two
  // chunks per stage, a uniform and an uneven layout, ZeRO 0-3, with and
  // without overlapped gradient reductions, selective and full recompute,
  // in small buckets: each stage's bound from the run's parts
  // (stagePeakBounds) is at most the peak of the stage's buffers
  // (deriveBuffers, analyzeMemory), and at least its persistent state. A
  // term counted where its buffers are not all live together (the buckets
  // beside a stash no slot holds after a weight-gradient pass, ZB-H1's
  // weight-gradient stash beyond what input_grad frees, a working set of
  // another pass) fails here.
  llvm::json::Object grid{
      {"tp", llvm::json::Array{2}},
      {"pp", llvm::json::Array{2, 4}},
      {"schedule",
       llvm::json::Array{"gpipe", "one_f_one_b", "interleaved_one_f_one_b",
                         "zero_bubble_h1"}},
      {"virtual_stages", llvm::json::Array{1, 2}},
      {"pipeline_layout",
       llvm::json::Array{"uniform", llvm::json::Array{3, 5}}},
      {"zero_stage", llvm::json::Array{0, 1, 2, 3}},
      {"overlap_dp_grad_reduce", llvm::json::Array{false, true}},
      {"recompute", llvm::json::Array{"selective", "full"}},
      {"bucket_bytes", llvm::json::Array{40000}}};
  sweep::RunContracts experts = smallContracts();
  test::RunSpecs moe = test::withExperts(
      test::smallRun(workload::PipelineSchedule::OneFOneB, 2, 4), 2);
  moe.model.moe->firstDenseBlocks = 1;
  experts.model = moe.model;
  experts.mapping = moe.mapping;
  size_t stages = 0, beyondPersistent = 0, closeToPeak = 0;
  bool uneven = false;
  for (const sweep::RunContracts &contracts : {smallContracts(), experts}) {
    sweep::SearchSpace space = test::valueOrFail(sweep::SearchSpace::parse(
        grid, contracts, {}, a100(), {8}, std::nullopt));
    forEachComposingRun(space, [&](const sweep::Configuration &configuration,
                                   const workload::WholeRun &whole,
                                   const workload::WholeRun &parts) {
      const sweep::RunContracts &run = configuration.run;
      std::vector<workload::StageBuffers> buffers = test::valueOrFail(
          workload::deriveBuffers(whole, run.mapping, run.training));
      std::vector<workload::TemplateBytes> bytes =
          test::valueOrFail(workload::templateBytesOf(parts));
      std::optional<std::vector<workload::InFlightBlocks>> inFlight =
          workload::inFlightBlocksOf(parts.schedule, parts.layout,
                                     parts.microbatches);
      std::optional<std::vector<int64_t>> bounds =
          inFlight ? sweep::stagePeakBounds(parts, bytes, *inFlight,
                                            run.mapping, *run.training)
                   : std::nullopt;
      if (!bounds) {
        ADD_FAILURE() << "no bound: " << sweep::describeMapping(configuration);
        return;
      }
      if (bounds->size() != buffers.size()) {
        ADD_FAILURE() << bounds->size() << " bounds, " << buffers.size()
                      << " stages: " << sweep::describeMapping(configuration);
        return;
      }
      std::optional<sweep::RunFigures> persistent =
          sweep::persistentBoundFigures(run.model, *run.training, run.mapping,
                                        a100());
      if (!persistent) {
        ADD_FAILURE() << "no persistent bound: "
                      << sweep::describeMapping(configuration);
        return;
      }
      for (auto [stage, bound] : llvm::enumerate(*bounds)) {
        ++stages;
        workload::StageMemory memory =
            test::valueOrFail(workload::analyzeMemory(buffers[stage]));
        EXPECT_LE(bound, memory.peakBytes)
            << "stage " << stage << " of "
            << sweep::describeMapping(configuration);
        int64_t persistentBytes = 0;
        for (workload::BufferCause cause :
             {workload::BufferCause::Weights, workload::BufferCause::Gradients,
              workload::BufferCause::OptimizerState})
          persistentBytes += memory.maxByCause[static_cast<size_t>(cause)];
        EXPECT_GE(bound, persistentBytes);
        if (bound > persistentBytes)
          ++beyondPersistent;
        if (10 * bound >= 9 * memory.peakBytes)
          ++closeToPeak;
      }
      uneven |= !whole.layout.isUniform();
      // The run's figures are its stages' largest bound.
      std::optional<sweep::RunFigures> figures = boundFromParts(run, a100());
      EXPECT_TRUE(figures.has_value());
      if (figures) {
        EXPECT_TRUE(figures->peakIsBound);
        EXPECT_EQ(figures->peakBytes,
                  *std::max_element(bounds->begin(), bounds->end()));
        EXPECT_GE(figures->peakBytes, persistent->peakBytes);
      }
    });
  }
  EXPECT_GT(stages, 1000u) << stages;
  EXPECT_TRUE(uneven);
  // The bound adds to the persistent state on nearly every stage (on all
  // 25,056 of these), and is within 10% of the peak on more than half
  // (69%).
  EXPECT_GT(beyondPersistent, stages * 9 / 10);
  EXPECT_GT(closeToPeak, stages / 2);
}

TEST(RunSkeletonTest, ABoundFromThePartsOverTheCapacityRulesARunOut) {
  // At a capacity between the persistent bound and the bound from the
  // parts of a run, exactly the latter: the run is not ruled out; one byte
  // less and a query rules it out by the bound, without a shape, and the
  // full evaluation agrees it does not fit.
  sweep::SearchSpace space = spaceOn({4});
  std::optional<sweep::Configuration> chosen;
  std::optional<sweep::RunFigures> bound;
  space.enumerate([&](const sweep::Configuration &configuration) {
    const sweep::RunContracts &run = configuration.run;
    std::optional<sweep::RunFigures> persistent = sweep::persistentBoundFigures(
        run.model, *run.training, run.mapping, a100());
    if (!persistent)
      return true;
    std::optional<sweep::RunFigures> fromParts = boundFromParts(run, a100());
    if (!fromParts || fromParts->peakBytes <= persistent->peakBytes)
      return true;
    chosen = configuration;
    bound = fromParts;
    return false;
  });
  ASSERT_TRUE(chosen.has_value());
  estimate::SystemProfile exact = a100();
  exact.memory.usableFraction.reset();
  exact.memory.capacityBytes.value = bound->peakBytes;
  sweep::FastEvaluator atQuery(exact, /*timeFittingOnly=*/true);
  atQuery.evaluate(*chosen);
  EXPECT_EQ(atQuery.runsRuledOutByBound(), 0u);
  EXPECT_EQ(atQuery.shapesDerived(), 1u);
  exact.memory.capacityBytes.value = bound->peakBytes - 1;
  sweep::FastEvaluator overQuery(exact, /*timeFittingOnly=*/true);
  sweep::RunEvaluation evaluation = overQuery.evaluate(*chosen);
  EXPECT_TRUE(evaluation.valid());
  EXPECT_TRUE(evaluation.run.peakIsBound);
  EXPECT_FALSE(evaluation.run.fits);
  EXPECT_EQ(evaluation.run.peakBytes, bound->peakBytes);
  EXPECT_EQ(evaluation.run.marginBytes, -1);
  EXPECT_EQ(overQuery.runsRuledOut(), 0u);
  EXPECT_EQ(overQuery.runsRuledOutByBound(), 1u);
  EXPECT_EQ(overQuery.shapesDerived(), 0u);
  sweep::FastEvaluator full(exact);
  EXPECT_FALSE(full.evaluate(*chosen).run.fits);
}

TEST(RunSkeletonTest, AChainBoundIsAtMostTheIteration) {
  // Every configuration of the small model on 8 GPUs at tp 2 (pp 1, 2 and
  // 4) under every schedule, overlap option, ZeRO 0 and 3, in small buckets,
  // with every tier binding, on the A100 profile and on one whose networks
  // are 1000 times slower (the collectives, and what overlap hides of
  // them, then outweigh the compute): the chain bound
  // (RunSkeleton::chainBound, derived from the steps without a plan) is at
  // most the iteration of the whole run's critical path, and at least each
  // stage's instances summed (every instance of a stage waits for the one
  // before it). A chain that missed an instance, or took two steps that
  // run side by side, fails here. A single stage's chain is its whole
  // path where nothing overlaps: some bounds are the iteration itself.
  llvm::json::Object grid{
      {"tp", llvm::json::Array{2}},
      {"pp", llvm::json::Array{1, 2, 4}},
      {"schedule",
       llvm::json::Array{"gpipe", "one_f_one_b", "interleaved_one_f_one_b",
                         "zero_bubble_h1"}},
      {"virtual_stages", llvm::json::Array{1, 2}},
      {"zero_stage", llvm::json::Array{0, 3}},
      {"overlap_dp_grad_reduce", llvm::json::Array{false, true}},
      {"overlap_p2p_comm", llvm::json::Array{false, true}},
      {"overlap_tp_comm", llvm::json::Array{false, true}},
      {"recompute", llvm::json::Array{"selective"}},
      {"bucket_bytes", llvm::json::Array{40000}}};
  sweep::SearchSpace space = test::valueOrFail(sweep::SearchSpace::parse(
      grid, smallContracts(), {}, a100(), {8}, std::nullopt));
  estimate::SystemProfile slowNetworks = a100();
  for (estimate::NetworkTier &tier : slowNetworks.networkTiers)
    tier.bandwidthBytesPerSecond.value /= 1000;
  for (const estimate::SystemProfile *profile :
       {&a100(), const_cast<const estimate::SystemProfile *>(&slowNetworks)}) {
    size_t count = 0, closeToIteration = 0, beyondInstances = 0,
           equalToIteration = 0;
    forEachComposingRun(space, [&](const sweep::Configuration &configuration,
                                   const workload::WholeRun &whole,
                                   const workload::WholeRun &parts) {
      const sweep::RunContracts &run = configuration.run;
      ++count;
      std::vector<workload::StageLifetimes> buffers =
          workload::deriveBufferLifetimes(whole);
      analysis::RunGraph graph = test::valueOrFail(analysis::runGraphOf(
          whole, run.mapping, run.training->activationType, *profile,
          configuration.binding, /*labelled=*/false));
      analysis::CriticalPathReport report =
          test::valueOrFail(analysis::longestPath(graph));
      sweep::RunSkeleton skeleton = test::valueOrFail(
          sweep::RunSkeleton::build(whole, parts, buffers, /*graph=*/nullptr));
      analysis::StepCoster coster(run.mapping, run.training->activationType,
                                  *profile, configuration.binding);
      sweep::RunSkeleton::CostMemo memo;
      sweep::RunSkeleton::TimeScratch scratch;
      std::optional<estimate::Picoseconds> bound =
          test::valueOrFail(skeleton.chainBound(
              parts, coster, configuration.binding, memo, scratch));
      if (!bound) {
        ADD_FAILURE() << "no bound: " << sweep::describeMapping(configuration);
        return;
      }
      EXPECT_LE(*bound, report.iterationPicoseconds)
          << sweep::describeMapping(configuration);
      estimate::Picoseconds instances = 0;
      for (auto [stage, program] : llvm::enumerate(whole.stages)) {
        estimate::Picoseconds sum = 0;
        for (auto [index, step] : llvm::enumerate(program.steps))
          if (std::holds_alternative<workload::RunInstance>(step.action))
            sum += report.timing[stage][index].end -
                   report.timing[stage][index].start;
        instances = std::max(instances, sum);
      }
      EXPECT_GE(*bound, instances) << sweep::describeMapping(configuration);
      if (*bound > instances)
        ++beyondInstances;
      if (10 * *bound >= 9 * report.iterationPicoseconds)
        ++closeToIteration;
      if (*bound == report.iterationPicoseconds)
        ++equalToIteration;
    });
    EXPECT_GT(count, 100u) << count;
    // The stages' collectives lengthen some chains beyond their
    // instances, and some bounds come within 10% of the iteration, or are
    // it.
    EXPECT_GT(beyondInstances, 0u);
    EXPECT_GT(closeToIteration, 0u);
    EXPECT_GT(equalToIteration, 0u);
  }
}

TEST(RunSkeletonTest, AQuerySkipsOnlyWhatIsStrictlySlowerThanTheBest) {
  // Every configuration of the space on 4 GPUs that a query times, with its
  // time T: a query's evaluator told to skip what is slower than T times it
  // (its chain bound is at most T) with the same figures; told T - 1, it
  // skips it exactly when the bound is T, which single-stage runs reach
  // (their one chain is their whole path). A configuration whose bound
  // equals the K-th best's time may tie it and must be timed: a skip at a
  // bound equal to the threshold (>= for >) fails here.
  sweep::SearchSpace space = spaceOn({4});
  sweep::FastEvaluator reference(a100(), /*timeFittingOnly=*/true);
  sweep::FastEvaluator atOwnTime(a100(), /*timeFittingOnly=*/true);
  sweep::FastEvaluator belowOwnTime(a100(), /*timeFittingOnly=*/true);
  size_t timed = 0, skippedBelow = 0;
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::RunEvaluation expected = reference.evaluate(configuration);
    if (!expected.feasible())
      return true;
    ++timed;
    estimate::Picoseconds time = *expected.run.iterationPicoseconds;
    atOwnTime.skipExcludedBy(sweep::QueryBar{/*top=*/true, time, std::nullopt});
    size_t skipped = atOwnTime.configurationsSkipped();
    sweep::RunEvaluation evaluation = atOwnTime.evaluate(configuration);
    EXPECT_EQ(atOwnTime.configurationsSkipped(), skipped)
        << sweep::describeMapping(configuration);
    EXPECT_EQ(sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0,
                                     configuration, evaluation),
              sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0,
                                     configuration, expected));
    belowOwnTime.skipExcludedBy(
        sweep::QueryBar{/*top=*/true, time - 1, std::nullopt});
    skipped = belowOwnTime.configurationsSkipped();
    sweep::RunEvaluation below = belowOwnTime.evaluate(configuration);
    if (belowOwnTime.configurationsSkipped() != skipped) {
      ++skippedBelow;
      EXPECT_FALSE(below.feasible());
      EXPECT_TRUE(below.run.fits);
    }
    return true;
  });
  EXPECT_GT(timed, 100u);
  EXPECT_GT(skippedBelow, 0u);
}

/// Whether `a` and `b` are the same memory figures.
bool sameMemoryFigures(const std::optional<sweep::RunFigures> &a,
                       const std::optional<sweep::RunFigures> &b) {
  if (!a || !b)
    return a.has_value() == b.has_value();
  return a->peakBytes == b->peakBytes && a->peakStage == b->peakStage &&
         a->fits == b->fits && a->marginBytes == b->marginBytes &&
         a->peakIsBound == b->peakIsBound;
}

// A run's persistent state reads neither its recompute policy nor tp_comm:
// runs that differ only in those share one bound, equal to each one's own.
TEST(PersistentBoundMemo, SharesAcrossRecomputeAndTPComm) {
  sweep::RunContracts run = smallContracts();
  sweep::PersistentBoundMemo memo(a100());
  std::optional<sweep::RunFigures> first =
      memo.of(run.model, *run.training, run.mapping);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(memo.shared(), 0u);
  workload::MappingSpec other = run.mapping;
  other.recompute = workload::RecomputePolicy::Full;
  other.tpComm = workload::TPCommMode::ReduceScatterAllGather;
  std::optional<sweep::RunFigures> shared =
      memo.of(run.model, *run.training, other);
  EXPECT_EQ(memo.shared(), 1u);
  EXPECT_TRUE(sameMemoryFigures(shared, first));
  EXPECT_TRUE(sameMemoryFigures(
      shared,
      sweep::persistentBoundFigures(run.model, *run.training, other, a100())));
}

// Every other field is keyed: a run that differs in one is bounded again,
// as persistentBoundFigures bounds it. One row per field a persistent state
// reads (a key without it fails here; checked by dropping tp, pp, dp with
// the world, ZeRO and the weight type), and a few it does not read but the
// key holds.
TEST(PersistentBoundMemo, BoundsAgainForWhatTheKeyHolds) {
  sweep::RunContracts base = smallContracts();
  base.mapping.zeroStage = 1;
  struct Row {
    const char *axis;
    std::function<void(sweep::RunContracts &)> change;
    /// Whether the bound itself differs from the base's.
    bool boundDiffers;
  };
  const Row rows[] = {
      {"tp",
       [](sweep::RunContracts &run) {
         run.mapping.tp = 4;
         run.mapping.world = 4 * 2 * 2;
       },
       true},
      {"pp",
       [](sweep::RunContracts &run) {
         run.mapping.pp = 4;
         run.mapping.world = 2 * 4 * 2;
       },
       true},
      {"dp (ZeRO-1 shards over it; the world with it)",
       [](sweep::RunContracts &run) {
         run.mapping.dp = 4;
         run.mapping.world = 2 * 2 * 4;
       },
       true},
      {"zero_stage",
       [](sweep::RunContracts &run) { run.mapping.zeroStage = 3; }, true},
      {"weight_type",
       [](sweep::RunContracts &run) {
         run.training->weightType = workload::DataType::F32;
       },
       true},
      {"gradient_type",
       [](sweep::RunContracts &run) {
         run.training->gradientType = workload::DataType::BF16;
       },
       true},
      {"optimizer_state_type",
       [](sweep::RunContracts &run) {
         run.training->optimizerStateType = workload::DataType::BF16;
       },
       true},
      {"the model", [](sweep::RunContracts &run) { run.model.ffnHidden = 512; },
       true},
      {"bucket_bytes",
       [](sweep::RunContracts &run) { run.mapping.bucketBytes = 40000; },
       false},
      {"the schedule",
       [](sweep::RunContracts &run) {
         run.mapping.schedule = workload::PipelineSchedule::GPipe;
       },
       false},
      {"micro_batch",
       [](sweep::RunContracts &run) {
         run.training->microBatch = 1;
         run.training->globalBatch = 1 * 2 * 4;
       },
       false},
  };
  for (const Row &row : rows) {
    sweep::PersistentBoundMemo memo(a100());
    std::optional<sweep::RunFigures> reference =
        memo.of(base.model, *base.training, base.mapping);
    ASSERT_TRUE(reference.has_value()) << row.axis;
    sweep::RunContracts run = base;
    row.change(run);
    std::optional<sweep::RunFigures> own =
        memo.of(run.model, *run.training, run.mapping);
    EXPECT_EQ(memo.shared(), 0u) << row.axis;
    ASSERT_TRUE(own.has_value()) << row.axis;
    EXPECT_TRUE(sameMemoryFigures(
        own, sweep::persistentBoundFigures(run.model, *run.training,
                                           run.mapping, a100())))
        << row.axis;
    EXPECT_EQ(own->peakBytes != reference->peakBytes, row.boundDiffers)
        << row.axis;
  }
}

/// The parts and shape key of the small run under `mapping` (and, when
/// given, micro-batches of `microBatch`).
sweep::ShapeKey keyOf(const workload::MappingSpec &mapping,
                      sweep::ShapeNames &names,
                      std::optional<int64_t> microBatch = std::nullopt) {
  sweep::RunContracts run = smallContracts();
  if (microBatch)
    run.training->microBatch = *microBatch;
  llvm::Expected<workload::WholeRun> parts =
      workload::deriveRunParts(run.model, *run.training, mapping);
  EXPECT_TRUE(static_cast<bool>(parts));
  return sweep::shapeKeyOf(*parts, mapping, names);
}

TEST(RunSkeletonTest, ShapeKeysTellShapesApart) {
  sweep::ShapeNames names;
  workload::MappingSpec base = smallContracts().mapping;
  sweep::ShapeKey key = keyOf(base, names);

  // The recompute policy changes what the templates cost and keep, not
  // the steps: one shape.
  workload::MappingSpec recompute = base;
  recompute.recompute = workload::RecomputePolicy::Full;
  EXPECT_EQ(keyOf(recompute, names), key);

  // A sharded optimizer adds steps to every stage's tail.
  workload::MappingSpec zero = base;
  zero.zeroStage = 1;
  EXPECT_NE(keyOf(zero, names), key);
  // ZeRO-2 has ZeRO-1's steps and buffers' lifetimes (its gradient buckets
  // are of no bytes at ZeRO-1): one shape. ZeRO-3 gathers parameters.
  workload::MappingSpec zeroTwo = base;
  zeroTwo.zeroStage = 2;
  EXPECT_EQ(keyOf(zeroTwo, names), keyOf(zero, names));
  workload::MappingSpec zeroThree = base;
  zeroThree.zeroStage = 3;
  EXPECT_NE(keyOf(zeroThree, names), keyOf(zero, names));

  // Small buckets: more data-parallel reductions per stage.
  workload::MappingSpec buckets = base;
  buckets.bucketBytes = 40000;
  EXPECT_NE(keyOf(buckets, names), key);

  // Another schedule orders the same steps differently.
  workload::MappingSpec gpipe = base;
  gpipe.schedule = workload::PipelineSchedule::GPipe;
  EXPECT_NE(keyOf(gpipe, names), key);

  // Sequence parallelism sends whole messages: no gathers.
  workload::MappingSpec sequenceParallel = base;
  sequenceParallel.tpComm = workload::TPCommMode::ReduceScatterAllGather;
  EXPECT_NE(keyOf(sequenceParallel, names), key);

  // cp needs nothing in the key (docs/Sweep.md, "Speed"): global batch 16
  // at cp 2, dp 1 in micro-batches of 2 and at cp 1, dp 2 in micro-batches
  // of 1 are 16 / (1 x 2) = 16 / (2 x 1) = 8 micro-batches per stage, and
  // both reduce gradients over 2 replicas: one step structure, one shape.
  workload::MappingSpec contextParallel = base;
  contextParallel.cp = 2;
  contextParallel.dp = 1;
  EXPECT_EQ(keyOf(contextParallel, names, 2), keyOf(base, names, 1));
}

/// The tiers the small run's axes are bound to: tp on NVLink, pp and dp
/// across nodes.
const estimate::NetworkTierBinding &smallBinding() {
  static const estimate::NetworkTierBinding binding = [] {
    estimate::NetworkTierBinding tiers;
    tiers.tierOfAxis = {
        {"tp", "nvlink"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
    return tiers;
  }();
  return binding;
}

/// The critical path of the small run's `parts` under `mapping`, timed
/// through `skeleton` on smallBinding().
llvm::Expected<sweep::PathFigures>
timeOf(const sweep::RunSkeleton &skeleton, const workload::WholeRun &parts,
       const workload::MappingSpec &mapping) {
  analysis::StepCoster coster(mapping,
                              smallContracts().training->activationType, a100(),
                              smallBinding());
  sweep::RunSkeleton::CostMemo memo;
  sweep::RunSkeleton::TimeScratch scratch;
  return skeleton.time(parts, coster, smallBinding(), memo, scratch);
}

TEST(RunSkeletonTest, ASkeletonRefusesWhatDoesNotLineUp) {
  sweep::RunContracts run = smallContracts();
  const workload::MappingSpec &mapping = run.mapping;
  llvm::Expected<workload::WholeRun> whole =
      workload::deriveWholeRun(run.model, *run.training, mapping);
  llvm::Expected<workload::WholeRun> parts =
      workload::deriveRunParts(run.model, *run.training, mapping);
  ASSERT_TRUE(whole && parts);
  std::vector<workload::StageLifetimes> buffers =
      workload::deriveBufferLifetimes(*whole);
  const estimate::NetworkTierBinding &binding = smallBinding();
  llvm::Expected<analysis::RunGraph> graph =
      analysis::runGraphOf(*whole, mapping, run.training->activationType,
                           a100(), binding, /*labelled=*/false);
  ASSERT_TRUE(static_cast<bool>(graph));

  llvm::Expected<sweep::RunSkeleton> skeleton =
      sweep::RunSkeleton::build(*whole, *parts, buffers, &*graph);
  ASSERT_TRUE(static_cast<bool>(skeleton))
      << llvm::toString(skeleton.takeError());
  EXPECT_TRUE(skeleton->fits(*parts));

  // The parts of another shape (a longer tail) do not fit it.
  workload::MappingSpec buckets = mapping;
  buckets.bucketBytes = 40000;
  llvm::Expected<workload::WholeRun> otherParts =
      workload::deriveRunParts(run.model, *run.training, buckets);
  ASSERT_TRUE(static_cast<bool>(otherParts));
  EXPECT_FALSE(skeleton->fits(*otherParts));

  // Buffers sized by a step that is no work (the stage's first step is a
  // block instance) do not make one either.
  std::vector<workload::StageLifetimes> misread = buffers;
  misread.front().buffers.push_back(
      {{workload::BufferSource::Kind::WorkRead, 0, 1}, 0, 0});
  llvm::Expected<sweep::RunSkeleton> misreadSkeleton =
      sweep::RunSkeleton::build(*whole, *parts, misread, &*graph);
  ASSERT_FALSE(static_cast<bool>(misreadSkeleton));
  EXPECT_NE(llvm::toString(misreadSkeleton.takeError())
                .find("a buffer sized by a step that is no work"),
            std::string::npos);

  // A run whose tails are not its parts' does not make a skeleton.
  llvm::Expected<sweep::RunSkeleton> mismatched =
      sweep::RunSkeleton::build(*whole, *otherParts, buffers, &*graph);
  ASSERT_FALSE(static_cast<bool>(mismatched));
  EXPECT_NE(llvm::toString(mismatched.takeError()).find("run skeleton"),
            std::string::npos);

  // Without a graph the skeleton has no timing plan: it gives memory,
  // refuses to time and to total, and with the run's plan added (withPlan)
  // times and totals as the skeleton built with it does.
  llvm::Expected<sweep::RunSkeleton> untimed =
      sweep::RunSkeleton::build(*whole, *parts, buffers, /*graph=*/nullptr);
  ASSERT_TRUE(static_cast<bool>(untimed))
      << llvm::toString(untimed.takeError());
  EXPECT_TRUE(skeleton->timed());
  EXPECT_FALSE(untimed->timed());
  EXPECT_LT(untimed->bytes(), skeleton->bytes());
  llvm::Expected<sweep::PathFigures> refused =
      timeOf(*untimed, *parts, mapping);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("no timing plan"),
            std::string::npos);
  llvm::Expected<std::vector<workload::StageTotals>> untotalled =
      untimed->totals(*parts);
  ASSERT_FALSE(static_cast<bool>(untotalled));
  EXPECT_NE(llvm::toString(untotalled.takeError()).find("without its timing"),
            std::string::npos);
  llvm::Expected<sweep::RunSkeleton> planned =
      untimed->withPlan(*whole, *graph);
  ASSERT_TRUE(static_cast<bool>(planned))
      << llvm::toString(planned.takeError());
  EXPECT_TRUE(planned->timed());
  // Both skeletons' totals are the whole run's.
  llvm::Expected<std::vector<workload::StageTotals>> wholeTotals =
      workload::summarizeWholeRun(*whole);
  ASSERT_TRUE(static_cast<bool>(wholeTotals));
  for (const sweep::RunSkeleton *timedSkeleton : {&*skeleton, &*planned}) {
    llvm::Expected<std::vector<workload::StageTotals>> totals =
        timedSkeleton->totals(*parts);
    ASSERT_TRUE(static_cast<bool>(totals));
    ASSERT_EQ(totals->size(), wholeTotals->size());
    for (size_t stage = 0; stage < totals->size(); ++stage) {
      const workload::StageTotals &got = (*totals)[stage];
      const workload::StageTotals &expected = (*wholeTotals)[stage];
      EXPECT_EQ(got.work.total().invocations,
                expected.work.total().invocations);
      EXPECT_EQ(got.work.total().ops, expected.work.total().ops);
      EXPECT_EQ(got.work.total().readBytes, expected.work.total().readBytes);
      EXPECT_EQ(got.work.total().writeBytes, expected.work.total().writeBytes);
      EXPECT_EQ(got.messagesSent, expected.messagesSent);
      EXPECT_EQ(got.bytesSent, expected.bytesSent);
      EXPECT_EQ(got.messagesReceived, expected.messagesReceived);
      EXPECT_EQ(got.bytesReceived, expected.bytesReceived);
    }
  }
  llvm::Expected<sweep::PathFigures> eager = timeOf(*skeleton, *parts, mapping);
  llvm::Expected<sweep::PathFigures> late = timeOf(*planned, *parts, mapping);
  ASSERT_TRUE(eager && late);
  EXPECT_EQ(eager->iterationPicoseconds, late->iterationPicoseconds);
  EXPECT_EQ(eager->exposedCommunicationPicoseconds,
            late->exposedCommunicationPicoseconds);
  // The graph of a run of another shape (more steps per stage) is refused.
  workload::MappingSpec twice = mapping;
  twice.bucketBytes = 40000;
  llvm::Expected<workload::WholeRun> otherWhole =
      workload::deriveWholeRun(run.model, *run.training, twice);
  ASSERT_TRUE(static_cast<bool>(otherWhole));
  llvm::Expected<analysis::RunGraph> otherGraph =
      analysis::runGraphOf(*otherWhole, twice, run.training->activationType,
                           a100(), binding, /*labelled=*/false);
  ASSERT_TRUE(static_cast<bool>(otherGraph));
  llvm::Expected<sweep::RunSkeleton> misplanned =
      untimed->withPlan(*whole, *otherGraph);
  ASSERT_FALSE(static_cast<bool>(misplanned));
  EXPECT_NE(llvm::toString(misplanned.takeError()).find("of the graph has"),
            std::string::npos);
  // So is a run of fewer stages, and another shape's run, whose usage the
  // plan would keep.
  workload::WholeRun fewerStages = *whole;
  fewerStages.stages.pop_back();
  llvm::Expected<sweep::RunSkeleton> unstaged =
      untimed->withPlan(fewerStages, *graph);
  ASSERT_FALSE(static_cast<bool>(unstaged));
  EXPECT_NE(llvm::toString(unstaged.takeError()).find("the run has 1 stages"),
            std::string::npos);
  llvm::Expected<sweep::RunSkeleton> misused =
      untimed->withPlan(*otherWhole, *graph);
  ASSERT_FALSE(static_cast<bool>(misused));
  EXPECT_NE(llvm::toString(misused.takeError()).find("of the run has"),
            std::string::npos);
}

TEST(RunSkeletonTest, TheCacheKeepsSkeletonsAndFailures) {
  // A budget that holds an empty skeleton's entry (its bytes, its one-
  // integer key and the entry's bookkeeping, under 64 bytes) or a failure's
  // (the key and the bookkeeping), not both.
  sweep::SkeletonCache cache(/*budgetBytes=*/sweep::RunSkeleton().bytes() + 64);
  bool build = false;
  // A new shape: the caller builds it.
  EXPECT_EQ(cache.acquire({1}, build), nullptr);
  EXPECT_TRUE(build);
  // It could not: the shape's runs are derived in whole from now on.
  cache.abandon({1});
  EXPECT_EQ(cache.acquire({1}, build), nullptr);
  EXPECT_FALSE(build);
  // Another shape, built and kept.
  EXPECT_EQ(cache.acquire({2}, build), nullptr);
  EXPECT_TRUE(build);
  std::shared_ptr<const sweep::RunSkeleton> built =
      cache.insert({2}, sweep::RunSkeleton());
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(cache.acquire({2}, build), built);
  EXPECT_FALSE(build);
  // Beyond the budget the least recently used went: the failure.
  EXPECT_EQ(cache.acquire({1}, build), nullptr);
  EXPECT_TRUE(build);
  EXPECT_EQ(cache.peakEntries(), 1u);
  EXPECT_GE(cache.peakBytes(), sweep::RunSkeleton().bytes());
}

TEST(RunSkeletonTest, TheCacheKeepsWhatFitsItsBudget) {
  // An empty skeleton's entry holds its bytes plus at most 64 (its one-
  // integer key and the entry's bookkeeping) and at least its bytes plus
  // 8: two fit a budget of twice that, three do not (3 * (skeleton + 8)
  // exceeds 2 * (skeleton + 64) whenever the skeleton is over 104 bytes,
  // and it holds sizeof(RunSkeleton) alone).
  size_t entryBound = sweep::RunSkeleton().bytes() + 64;
  ASSERT_GT(sweep::RunSkeleton().bytes(), 104u);
  sweep::SkeletonCache cache(/*budgetBytes=*/2 * entryBound);
  bool build = false;
  std::shared_ptr<const sweep::RunSkeleton> kept[3];
  for (int64_t key : {1, 2}) {
    EXPECT_EQ(cache.acquire({key}, build), nullptr);
    EXPECT_TRUE(build);
    kept[key] = cache.insert({key}, sweep::RunSkeleton());
  }
  // Both fit: neither is derived again.
  EXPECT_EQ(cache.acquire({1}, build), kept[1]);
  EXPECT_FALSE(build);
  EXPECT_EQ(cache.acquire({2}, build), kept[2]);
  EXPECT_FALSE(build);
  EXPECT_EQ(cache.peakEntries(), 2u);
  // A third goes over: the least recently used (1) is dropped, 2 stays.
  EXPECT_EQ(cache.acquire({3}, build), nullptr);
  EXPECT_TRUE(build);
  cache.insert({3}, sweep::RunSkeleton());
  EXPECT_EQ(cache.acquire({2}, build), kept[2]);
  EXPECT_FALSE(build);
  EXPECT_EQ(cache.acquire({1}, build), nullptr);
  EXPECT_TRUE(build);
  EXPECT_EQ(cache.peakEntries(), 2u);
  EXPECT_LE(cache.peakBytes(), 2 * entryBound);
}

TEST(RunSkeletonTest, WorkersShareOneDerivationOfAShape) {
  // Two workers ask for the same new shape: exactly one is told to build
  // it, the other waits for it and receives the same skeleton.
  sweep::SkeletonCache cache;
  std::atomic<int> builders{0};
  std::shared_ptr<const sweep::RunSkeleton> seen[2];
  auto worker = [&](int index) {
    bool build = false;
    std::shared_ptr<const sweep::RunSkeleton> skeleton =
        cache.acquire({7}, build);
    if (build) {
      ++builders;
      skeleton = cache.insert({7}, sweep::RunSkeleton());
    }
    seen[index] = skeleton;
  };
  std::thread first(worker, 0), second(worker, 1);
  first.join();
  second.join();
  EXPECT_EQ(builders.load(), 1);
  ASSERT_NE(seen[0], nullptr);
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(cache.peakEntries(), 1u);
}

TEST(RunSkeletonTest, TheCacheAddsAPlanOnce) {
  sweep::SkeletonCache cache;
  bool build = false;
  // A shape kept without its plan: acquire gives it at once; the first
  // caller to ask for its plan adds it, and replaces it.
  EXPECT_EQ(cache.acquire({1}, build), nullptr);
  ASSERT_TRUE(build);
  std::shared_ptr<const sweep::RunSkeleton> untimed =
      cache.insert({1}, sweep::RunSkeleton());
  ASSERT_FALSE(untimed->timed());
  EXPECT_EQ(cache.acquire({1}, build, /*planned=*/true), nullptr);
  EXPECT_TRUE(build);
  EXPECT_EQ(cache.acquire({1}, build), untimed);
  EXPECT_FALSE(build);
  llvm::Expected<sweep::RunSkeleton> planned =
      untimed->withPlan(workload::WholeRun(), analysis::RunGraph());
  ASSERT_TRUE(static_cast<bool>(planned))
      << llvm::toString(planned.takeError());
  std::shared_ptr<const sweep::RunSkeleton> timed =
      cache.insert({1}, std::move(*planned));
  EXPECT_TRUE(timed->timed());
  EXPECT_EQ(cache.acquire({1}, build, /*planned=*/true), timed);
  EXPECT_FALSE(build);
  EXPECT_EQ(cache.acquire({1}, build), timed);
  // One entry throughout: the replaced skeleton was unsettled first.
  EXPECT_EQ(cache.peakEntries(), 1u);

  // A plan that cannot be derived: the shape keeps its skeleton for memory
  // and its runs are timed by the whole derivation.
  EXPECT_EQ(cache.acquire({2}, build), nullptr);
  std::shared_ptr<const sweep::RunSkeleton> memoryOnly =
      cache.insert({2}, sweep::RunSkeleton());
  EXPECT_EQ(cache.acquire({2}, build, /*planned=*/true), nullptr);
  EXPECT_TRUE(build);
  cache.abandonTiming({2}, memoryOnly);
  EXPECT_EQ(cache.acquire({2}, build, /*planned=*/true), nullptr);
  EXPECT_FALSE(build);
  EXPECT_EQ(cache.acquire({2}, build), memoryOnly);
  EXPECT_FALSE(build);
}

TEST(RunSkeletonTest, WorkersShareOnePlanOfAShape) {
  // Two workers ask for the plan of one shape kept without it: exactly one
  // adds it, the other waits and receives the same skeleton.
  sweep::SkeletonCache cache;
  bool build = false;
  cache.acquire({7}, build);
  std::shared_ptr<const sweep::RunSkeleton> untimed =
      cache.insert({7}, sweep::RunSkeleton());
  std::atomic<int> planners{0};
  std::shared_ptr<const sweep::RunSkeleton> seen[2];
  auto worker = [&](int index) {
    bool plan = false;
    std::shared_ptr<const sweep::RunSkeleton> skeleton =
        cache.acquire({7}, plan, /*planned=*/true);
    if (plan) {
      ++planners;
      llvm::Expected<sweep::RunSkeleton> planned =
          untimed->withPlan(workload::WholeRun(), analysis::RunGraph());
      if (planned) {
        skeleton = cache.insert({7}, std::move(*planned));
      } else {
        // Settled all the same, so that the other worker fails, not hangs.
        llvm::consumeError(planned.takeError());
        cache.abandonTiming({7}, untimed);
      }
    }
    seen[index] = skeleton;
  };
  std::thread first(worker, 0), second(worker, 1);
  first.join();
  second.join();
  EXPECT_EQ(planners.load(), 1);
  ASSERT_NE(seen[0], nullptr);
  EXPECT_TRUE(seen[0]->timed());
  EXPECT_EQ(seen[0], seen[1]);
}

/// A real shape of the small run: its key, the parts and whole run it is
/// derived from, and what its skeleton is built of (buffers, and the graph
/// its timing plan comes from).
struct SmallShape {
  workload::MappingSpec mapping;
  workload::WholeRun parts;
  workload::WholeRun whole;
  std::vector<workload::StageLifetimes> buffers;
  analysis::RunGraph graph;
  sweep::ShapeKey key;

  /// The skeleton without its timing plan (a query's first run of the
  /// shape) and with it (a full evaluation's, or a fresh derivation).
  llvm::Expected<sweep::RunSkeleton> untimed() const {
    return sweep::RunSkeleton::build(whole, parts, buffers, /*graph=*/nullptr);
  }
  llvm::Expected<sweep::RunSkeleton> timed() const {
    return sweep::RunSkeleton::build(whole, parts, buffers, &graph);
  }
};

/// The shape of the small run under `mapping`, its names numbered in
/// `names`.
SmallShape smallShape(const workload::MappingSpec &mapping,
                      sweep::ShapeNames &names) {
  sweep::RunContracts run = smallContracts();
  SmallShape shape;
  shape.mapping = mapping;
  shape.parts = test::valueOrFail(
      workload::deriveRunParts(run.model, *run.training, mapping));
  shape.whole = test::valueOrFail(
      workload::deriveWholeRun(run.model, *run.training, mapping));
  shape.buffers = workload::deriveBufferLifetimes(shape.whole);
  shape.graph = test::valueOrFail(
      analysis::runGraphOf(shape.whole, mapping, run.training->activationType,
                           a100(), smallBinding(), /*labelled=*/false));
  shape.key = sweep::shapeKeyOf(shape.parts, mapping, names);
  return shape;
}

/// The small run's shape and another one (small buckets: more reductions
/// per stage), with distinct keys.
std::pair<SmallShape, SmallShape> twoShapes(sweep::ShapeNames &names) {
  workload::MappingSpec base = smallContracts().mapping;
  workload::MappingSpec buckets = base;
  buckets.bucketBytes = 40000;
  std::pair<SmallShape, SmallShape> shapes = {smallShape(base, names),
                                              smallShape(buckets, names)};
  EXPECT_NE(shapes.first.key, shapes.second.key);
  return shapes;
}

/// Another worker's acquire of `key`, made on a thread of its own: a test
/// sees it wait (waits()) for the caller that builds or plans the shape,
/// then settles the shape and reads what the worker got (join()). The
/// protocol, not a sleep, orders the two. A cache that never wakes the
/// worker makes the test fail, not hang: both calls give up after
/// kHangGuard (a guard against a hang, not a speed target; ctest's TIMEOUT
/// in test/Unit/CMakeLists.txt is the backstop).
class OtherWorker {
public:
  static constexpr std::chrono::seconds kHangGuard{120};

  OtherWorker(sweep::SkeletonCache &cache, sweep::ShapeKey key, bool planned) {
    thread = std::thread([this, &cache, key = std::move(key), planned] {
#ifdef __linux__
      task = static_cast<long>(syscall(SYS_gettid));
#endif
      started = true;
      result = cache.acquire(key, toBuild, planned);
      returned = true;
    });
  }
  ~OtherWorker() {
    if (thread.joinable())
      thread.join();
  }

  /// Whether its acquire waits: returns once the thread sleeps inside the
  /// call (true) or the call has returned (false). acquire's mutex is free
  /// (the test thread does not call the cache meanwhile), so a thread that
  /// entered it sleeps only in its wait for another caller's settlement.
  /// Linux says a thread sleeps in /proc; where it cannot be read (another
  /// system, or /proc not mounted) the test's results still hold whichever
  /// thread comes first, but its waiting is not shown.
  bool waits() {
    auto deadline = std::chrono::steady_clock::now() + kHangGuard;
    while (!started) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      std::this_thread::yield();
    }
#ifdef __linux__
    std::string stat =
        "/proc/self/task/" + std::to_string(task.load()) + "/stat";
    while (!returned) {
      std::ifstream file(stat);
      if (!file)
        break;
      std::string line;
      std::getline(file, line);
      // "<id> (<name>) <state> ...": the state follows the last ')'.
      size_t close = line.rfind(')');
      if (close != std::string::npos && close + 2 < line.size() &&
          line[close + 2] == 'S')
        return !returned;
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      std::this_thread::yield();
    }
#endif
    return !returned;
  }

  /// What its acquire gave, once it has returned; `build` whether it was
  /// told to build. A worker still waiting after kHangGuard cannot be
  /// released or joined: the process stops with a message.
  std::shared_ptr<const sweep::RunSkeleton> join(bool &build) {
    auto deadline = std::chrono::steady_clock::now() + kHangGuard;
    while (!returned) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "a worker's acquire was never woken: the "
                             "cache did not settle the shape it waits for\n");
        std::abort();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    thread.join();
    build = toBuild;
    return result;
  }

private:
  std::atomic<long> task{0};
  std::atomic<bool> started{false};
  std::atomic<bool> returned{false};
  bool toBuild = false;
  std::shared_ptr<const sweep::RunSkeleton> result;
  std::thread thread;
};

/// What another worker's acquire of `key` gives when it asks while this
/// caller builds or plans the shape: the worker is seen waiting, then
/// `settle` settles the shape (given `key`), then the worker returns.
struct AcquiredMeanwhile {
  std::shared_ptr<const sweep::RunSkeleton> skeleton;
  bool build = true;
};
AcquiredMeanwhile
acquireWhileSettling(sweep::SkeletonCache &cache, const sweep::ShapeKey &key,
                     bool planned,
                     llvm::function_ref<void(const sweep::ShapeKey &)> settle) {
  OtherWorker other(cache, key, planned);
  EXPECT_TRUE(other.waits());
  settle(key);
  AcquiredMeanwhile acquired;
  acquired.skeleton = other.join(acquired.build);
  return acquired;
}

/// Builds `shape`'s skeleton without its plan into `cache`, as a query's
/// first run of the shape does, and returns what the cache keeps.
std::shared_ptr<const sweep::RunSkeleton>
keepUntimed(sweep::SkeletonCache &cache, const SmallShape &shape) {
  bool build = false;
  EXPECT_EQ(cache.acquire(shape.key, build), nullptr);
  EXPECT_TRUE(build);
  return cache.insert(shape.key, test::valueOrFail(shape.untimed()));
}

/// A query's caller that holds the skeleton of `first` without its plan,
/// which a budget of one byte drops for `second`'s, then asks for the plan
/// (timedSkeleton's fresh entry): it is told to add it. Returns the
/// skeleton the caller holds.
std::shared_ptr<const sweep::RunSkeleton>
planAfterDrop(sweep::SkeletonCache &cache, const SmallShape &first,
              const SmallShape &second) {
  std::shared_ptr<const sweep::RunSkeleton> untimed = keepUntimed(cache, first);
  keepUntimed(cache, second);
  bool build = false;
  EXPECT_EQ(cache.acquire(first.key, build, /*planned=*/true), nullptr);
  EXPECT_TRUE(build);
  return untimed;
}

TEST(RunSkeletonTest, TheCacheKeepsAShapeWhilePlanningIt) {
  // A budget of one byte holds the entry just settled alone, and what is
  // being planned (speed7 review, m3): the shape whose plan a caller adds
  // is not dropped, so its skeleton is still there for memory and no
  // second caller derives its plan meanwhile.
  sweep::ShapeNames names;
  auto [first, second] = twoShapes(names);
  sweep::SkeletonCache cache(/*budgetBytes=*/1);
  std::shared_ptr<const sweep::RunSkeleton> untimed = keepUntimed(cache, first);
  // This caller adds the first shape's plan.
  bool build = false;
  EXPECT_EQ(cache.acquire(first.key, build, /*planned=*/true), nullptr);
  ASSERT_TRUE(build);
  // Meanwhile the second shape is built beyond the budget: the first, the
  // least recently used, is being planned and stays.
  keepUntimed(cache, second);
  EXPECT_EQ(cache.peakEntries(), 2u);
  EXPECT_EQ(cache.acquire(first.key, build), untimed);
  EXPECT_FALSE(build);
  llvm::Expected<sweep::RunSkeleton> planned =
      untimed->withPlan(first.whole, first.graph);
  ASSERT_TRUE(static_cast<bool>(planned))
      << llvm::toString(planned.takeError());

  // Another worker asking for the plan waits for this caller's, and
  // receives it.
  std::shared_ptr<const sweep::RunSkeleton> timed;
  AcquiredMeanwhile other = acquireWhileSettling(
      cache, first.key, /*planned=*/true, [&](const sweep::ShapeKey &key) {
        timed = cache.insert(key, std::move(*planned));
      });
  EXPECT_EQ(other.skeleton, timed);
  EXPECT_FALSE(other.build);
  EXPECT_TRUE(timed->timed());
  EXPECT_EQ(cache.peakEntries(), 2u);
}

TEST(RunSkeletonTest, APlanIsDerivedAgainAfterItsShapeIsDropped) {
  // A query's caller holds a shape's skeleton without a plan, which the
  // budget drops before the caller asks for the plan (timedSkeleton's
  // fresh entry): the caller is told to add it, a worker asking for the
  // skeleton meanwhile waits for it, and the plan the caller adds to its
  // skeleton times the run as a fresh derivation with the graph does.
  sweep::ShapeNames names;
  auto [first, second] = twoShapes(names);
  llvm::Expected<sweep::RunSkeleton> fresh = first.timed();
  ASSERT_TRUE(static_cast<bool>(fresh)) << llvm::toString(fresh.takeError());
  sweep::SkeletonCache cache(/*budgetBytes=*/1);
  std::shared_ptr<const sweep::RunSkeleton> untimed =
      planAfterDrop(cache, first, second);
  ASSERT_FALSE(HasFailure());
  llvm::Expected<sweep::RunSkeleton> replanned =
      untimed->withPlan(first.whole, first.graph);
  ASSERT_TRUE(static_cast<bool>(replanned))
      << llvm::toString(replanned.takeError());

  std::shared_ptr<const sweep::RunSkeleton> timed;
  AcquiredMeanwhile other = acquireWhileSettling(
      cache, first.key, /*planned=*/false, [&](const sweep::ShapeKey &key) {
        timed = cache.insert(key, std::move(*replanned));
      });
  EXPECT_EQ(other.skeleton, timed);
  EXPECT_FALSE(other.build);
  bool build = true;
  EXPECT_EQ(cache.acquire(first.key, build, /*planned=*/true), timed);
  EXPECT_FALSE(build);
  // One entry held at a time: the budget kept only the one just settled.
  EXPECT_EQ(cache.peakEntries(), 1u);

  ASSERT_TRUE(timed->timed());
  llvm::Expected<sweep::PathFigures> again =
      timeOf(*timed, first.parts, first.mapping);
  llvm::Expected<sweep::PathFigures> derived =
      timeOf(*fresh, first.parts, first.mapping);
  ASSERT_TRUE(again && derived);
  EXPECT_EQ(again->iterationPicoseconds, derived->iterationPicoseconds);
  EXPECT_EQ(again->exposedCommunicationPicoseconds,
            derived->exposedCommunicationPicoseconds);
  EXPECT_EQ(timed->steps(), fresh->steps());
}

TEST(RunSkeletonTest, AShapeWhosePlanFailsKeepsItsSkeleton) {
  // As above, but the plan cannot be derived (the graph of another shape:
  // withPlan refuses it): abandonTiming puts back the skeleton the budget
  // dropped, for memory, settled like any other; a worker that waited
  // for the plan, and every later one, gets none and is not asked to
  // derive it (its runs are timed by the whole derivation).
  sweep::ShapeNames names;
  auto [first, second] = twoShapes(names);
  sweep::SkeletonCache cache(/*budgetBytes=*/1);
  std::shared_ptr<const sweep::RunSkeleton> untimed =
      planAfterDrop(cache, first, second);
  ASSERT_FALSE(HasFailure());
  llvm::Expected<sweep::RunSkeleton> misplanned =
      untimed->withPlan(second.whole, second.graph);
  ASSERT_FALSE(static_cast<bool>(misplanned));
  llvm::consumeError(misplanned.takeError());

  AcquiredMeanwhile other = acquireWhileSettling(
      cache, first.key, /*planned=*/true,
      [&](const sweep::ShapeKey &key) { cache.abandonTiming(key, untimed); });
  EXPECT_EQ(other.skeleton, nullptr);
  EXPECT_FALSE(other.build);
  bool build = true;
  EXPECT_EQ(cache.acquire(first.key, build, /*planned=*/true), nullptr);
  EXPECT_FALSE(build);
  EXPECT_EQ(cache.acquire(first.key, build), untimed);
  EXPECT_FALSE(build);
  // Kept as settled: holding it put the budget over, so the second shape
  // was dropped.
  EXPECT_EQ(cache.acquire(second.key, build), nullptr);
  EXPECT_TRUE(build);
}

/// The templates of the small run under `mapping` (deriveRunParts).
std::vector<workload::RunTemplate> templatesOf(
    const workload::MappingSpec &mapping,
    workload::RecomputePolicy recompute = workload::RecomputePolicy::None) {
  sweep::RunContracts run = smallContracts();
  workload::MappingSpec withRecompute = mapping;
  withRecompute.recompute = recompute;
  workload::RunTemplateList templates =
      test::valueOrFail(
          workload::deriveRunParts(run.model, *run.training, withRecompute))
          .templates;
  return {templates.begin(), templates.end()};
}

TEST(RunSkeletonTest, TemplateCostInputsDecideTemplateCosts) {
  sweep::RunContracts run = smallContracts();
  workload::DataType type = run.training->activationType;
  // tp 2, pp 2, dp 2 on 8 GPUs.
  workload::MappingSpec base = run.mapping;
  std::vector<workload::RunTemplate> templates = templatesOf(base);
  ASSERT_FALSE(templates.empty());
  analysis::TemplateCostInputs inputs =
      analysis::templateCostInputsOf(templates, base, type);
  // The block's tensor-parallel collectives span tp, of 2 ranks.
  ASSERT_FALSE(inputs.spannedAxes.empty());
  EXPECT_EQ(inputs.spannedAxes.front().name, "tp");
  EXPECT_EQ(inputs.spannedAxes.front().size, 2);

  estimate::NetworkTierBinding nvlink, infiniband;
  nvlink.tierOfAxis = {
      {"tp", "nvlink"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
  infiniband.tierOfAxis = {
      {"tp", "infiniband"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
  auto secondsOf = [&](const workload::MappingSpec &mapping,
                       llvm::ArrayRef<workload::RunTemplate> costed,
                       const estimate::NetworkTierBinding &binding) {
    analysis::StepCoster coster(mapping, type, a100(), binding);
    return test::valueOrFail(coster.templateSeconds(costed));
  };
  // The tier of a spanned axis changes what the templates cost.
  EXPECT_NE(secondsOf(base, templates, nvlink),
            secondsOf(base, templates, infiniband));

  // Runs that differ in pp (on 16 GPUs, or with dp 1 on 8), the schedule
  // or the buckets: equal inputs, the same templates, and the same seconds
  // under each binding.
  workload::MappingSpec deeper = base;
  deeper.pp = 4;
  deeper.world = 16;
  workload::MappingSpec unreplicated = deeper;
  unreplicated.dp = 1;
  unreplicated.world = 8;
  workload::MappingSpec gpipe = base;
  gpipe.schedule = workload::PipelineSchedule::GPipe;
  workload::MappingSpec buckets = base;
  buckets.bucketBytes = 40000;
  for (const workload::MappingSpec &mapping :
       {deeper, unreplicated, gpipe, buckets}) {
    std::vector<workload::RunTemplate> other = templatesOf(mapping);
    EXPECT_EQ(analysis::templateCostInputsOf(other, mapping, type), inputs);
    EXPECT_TRUE(analysis::sameTemplateCostsRead(other, templates));
    for (const estimate::NetworkTierBinding &binding : {nvlink, infiniband})
      EXPECT_EQ(secondsOf(mapping, other, binding),
                secondsOf(base, templates, binding));
  }

  // overlap_tp_comm changes the seconds of the same templates: it keys
  // the costs kept for a run (it varies between a run's configurations).
  workload::MappingSpec overlapped = base;
  overlapped.overlapTPComm = true;
  EXPECT_NE(secondsOf(overlapped, templates, nvlink),
            secondsOf(base, templates, nvlink));

  // Every input changes the key: the compute type, the size of a spanned
  // axis, another spanned axis (cp's exchange at cp 2).
  EXPECT_FALSE(analysis::templateCostInputsOf(
                   templates, base, workload::DataType::F32) == inputs);
  workload::MappingSpec wider = base;
  wider.tp = 4;
  EXPECT_FALSE(analysis::templateCostInputsOf(templates, wider, type) ==
               inputs);
  workload::MappingSpec contextParallel = base;
  contextParallel.cp = 2;
  contextParallel.dp = 1;
  EXPECT_FALSE(analysis::templateCostInputsOf(templatesOf(contextParallel),
                                              contextParallel, type) == inputs);
  // And so do the templates: another recompute policy, a sharded
  // optimizer (ZeRO 1: 6 templates to ZeRO 0's 9, the optimizer steps
  // being stage works), one invocation's operations, a cadence. A name is
  // read only into a diagnostic.
  EXPECT_FALSE(analysis::sameTemplateCostsRead(
      templatesOf(base, workload::RecomputePolicy::Full), templates));
  workload::MappingSpec zero = base;
  zero.zeroStage = 1;
  EXPECT_EQ(templatesOf(zero).size() + 3, templates.size());
  EXPECT_FALSE(analysis::sameTemplateCostsRead(templatesOf(zero), templates));
  std::vector<workload::RunTemplate> changed = templates;
  changed.front().work.invocations.front().ops += 1;
  EXPECT_FALSE(analysis::sameTemplateCostsRead(changed, templates));
  changed = templates;
  changed.front().work.cadence = workload::Cadence::PerIteration;
  EXPECT_FALSE(analysis::sameTemplateCostsRead(changed, templates));
  changed = templates;
  changed.front().name += "_renamed";
  EXPECT_TRUE(analysis::sameTemplateCostsRead(changed, templates));

  // At ep 2 the routed experts' all-to-alls span ep, and the token counts'
  // all-gather spans ep x tp: its inner axis tp is keyed from the
  // collective's inner axes even where no other collective spans tp (the
  // templates cut down to that one invocation).
  test::RunSpecs moeRun = test::withExperts(
      test::smallRun(workload::PipelineSchedule::OneFOneB, 2, 4), /*ep=*/2);
  workload::MappingSpec experts = moeRun.mapping;
  workload::RunTemplateList moeTemplates =
      test::valueOrFail(
          workload::deriveRunParts(moeRun.model, moeRun.training, experts))
          .templates;
  auto spannedOf = [&](llvm::ArrayRef<workload::RunTemplate> costed) {
    std::vector<std::string> spanned;
    for (const estimate::MeshAxis &axis :
         analysis::templateCostInputsOf(costed, experts, type).spannedAxes)
      spanned.push_back(axis.name + " " + std::to_string(axis.size));
    return spanned;
  };
  EXPECT_EQ(spannedOf(moeTemplates),
            (std::vector<std::string>{"tp 2", "ep 2"}));
  std::vector<workload::RunTemplate> countsOnly;
  for (const workload::RunTemplate &runTemplate : moeTemplates)
    for (const workload::Invocation &invocation : runTemplate.work.invocations)
      if (countsOnly.empty() && invocation.primitive == "moe_token_counts") {
        countsOnly.push_back(runTemplate);
        countsOnly.back().work.invocations = {invocation};
      }
  ASSERT_EQ(countsOnly.size(), 1u);
  ASSERT_TRUE(countsOnly.front().work.invocations.front().collective);
  EXPECT_EQ(countsOnly.front().work.invocations.front().collective->innerAxes,
            std::vector<std::string>{"tp"});
  EXPECT_EQ(spannedOf(countsOnly), (std::vector<std::string>{"ep 2", "tp 2"}));

  // The cache gives runs with equal inputs and templates one table.
  sweep::TemplateCostCache cache;
  std::shared_ptr<sweep::TemplateCosts> first = cache.of(templates, base, type);
  EXPECT_EQ(cache.of(templatesOf(deeper), deeper, type), first);
  EXPECT_NE(cache.of(templates, wider, type), first);
  EXPECT_NE(
      cache.of(templatesOf(base, workload::RecomputePolicy::Full), base, type),
      first);
  EXPECT_EQ(cache.shared(), 1u);
}

} // namespace

/// The parts of the small run under `mapping` and `recompute`.
workload::WholeRun partsOf(const workload::MappingSpec &mapping,
                           workload::RecomputePolicy recompute) {
  sweep::RunContracts run = smallContracts();
  workload::MappingSpec withRecompute = mapping;
  withRecompute.recompute = recompute;
  return test::valueOrFail(
      workload::deriveRunParts(run.model, *run.training, withRecompute));
}

TEST(RunSkeletonTest, TemplatesReadAlikeShareTheirBytes) {
  // Runs that differ in pp (and dp) or the schedule have the same
  // templates: the cache hands the second the first's template bytes.
  // Another recompute policy stashes other tensors: its templates are not
  // alike, and it gets its own bytes (a cache that compared less than
  // templateBytesOf reads would hand it the other policy's, and fail here).
  workload::MappingSpec base = smallContracts().mapping;
  workload::MappingSpec deeper = base;
  deeper.pp = 4;
  deeper.dp = 1;
  workload::MappingSpec gpipe = base;
  gpipe.schedule = workload::PipelineSchedule::GPipe;
  sweep::TemplateBytesCache cache;
  auto bytesOf = [&](const workload::WholeRun &parts) {
    return test::valueOrFail(cache.of(parts));
  };
  workload::WholeRun first = partsOf(base, workload::RecomputePolicy::None);
  std::shared_ptr<const sweep::TemplateBytesCache::Bytes> kept = bytesOf(first);
  EXPECT_EQ(cache.shared(), 0u);
  for (const workload::MappingSpec &mapping : {deeper, gpipe}) {
    workload::WholeRun parts =
        partsOf(mapping, workload::RecomputePolicy::None);
    EXPECT_EQ(bytesOf(parts), kept);
  }
  EXPECT_EQ(cache.shared(), 2u);
  auto sameBytes = [](const workload::TemplateBytes &a,
                      const workload::TemplateBytes &b) {
    return a.workingSet == b.workingSet && a.stash == b.stash &&
           a.weightGradStash == b.weightGradStash &&
           a.weightGradInputs == b.weightGradInputs && a.kvCache == b.kvCache;
  };
  for (workload::RecomputePolicy recompute :
       {workload::RecomputePolicy::Selective,
        workload::RecomputePolicy::Full}) {
    workload::WholeRun parts = partsOf(base, recompute);
    std::shared_ptr<const sweep::TemplateBytesCache::Bytes> bytes =
        bytesOf(parts);
    EXPECT_NE(bytes, kept);
    std::vector<workload::TemplateBytes> expected =
        test::valueOrFail(workload::templateBytesOf(parts));
    ASSERT_EQ(bytes->size(), expected.size());
    EXPECT_TRUE(
        std::equal(bytes->begin(), bytes->end(), expected.begin(), sameBytes));
    EXPECT_FALSE(
        std::equal(bytes->begin(), bytes->end(), kept->begin(), sameBytes));
  }
  EXPECT_EQ(cache.shared(), 2u);
}
