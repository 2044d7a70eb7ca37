//===- SearchTest.cpp - The design-space search ---------------------------===//
//
// What blueprint-search relies on (lib/Sweep/Search.cpp): the capacity is
// honoured to the byte, the top-K and the Pareto front do not depend on the
// order configurations arrive in, a GPU count enumerates only valid
// configurations, each once, and both evaluation paths agree.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/Search.h"

#include "SmallRuns.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>

using namespace blueprint;

namespace {

const estimate::SystemProfile &a100() { return test::a100Profile(); }

const char *kSmallSpec = R"({
  "name": "small",
  "model": {"hidden": 128, "heads": 16, "ffn_hidden": 512, "seq_length": 64,
            "vocab": 256, "blocks": 8},
  "training": {"global_batch": 8, "micro_batch": 2,
               "activation_type": "bf16", "weight_type": "bf16",
               "gradient_type": "f32", "optimizer_state_type": "f32"},
  "mapping": {"tp": 2, "pp": 2, "dp": 2}
})";

sweep::Configuration smallConfiguration() {
  llvm::Expected<sweep::RunContracts> run =
      sweep::importContracts(kSmallSpec, "small");
  if (!run) {
    ADD_FAILURE() << llvm::toString(run.takeError());
    return {};
  }
  sweep::Configuration configuration;
  configuration.run = std::move(*run);
  configuration.binding.tierOfAxis = {
      {"tp", "nvlink"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
  return configuration;
}

sweep::SearchSpace spaceOn(llvm::ArrayRef<int64_t> gpus,
                           const estimate::SystemProfile &profile) {
  llvm::Expected<sweep::RunContracts> run =
      sweep::importContracts(kSmallSpec, "small");
  EXPECT_TRUE(static_cast<bool>(run));
  llvm::json::Object grid{{"recompute", llvm::json::Array{"none", "full"}}};
  llvm::Expected<sweep::SearchSpace> space = sweep::SearchSpace::parse(
      grid, std::move(*run), {}, profile, gpus, std::nullopt);
  EXPECT_TRUE(static_cast<bool>(space));
  return std::move(*space);
}

TEST(SearchTest, CapacityIsHonouredToTheByte) {
  sweep::Configuration configuration = smallConfiguration();
  sweep::RunEvaluation measured = sweep::evaluateFast(configuration, a100());
  ASSERT_TRUE(measured.valid());
  int64_t peak = measured.run.peakBytes;
  ASSERT_GT(peak, 0);

  estimate::SystemProfile exact = a100();
  exact.memory.capacityBytes.value = peak;
  sweep::RunEvaluation atCapacity = sweep::evaluateFast(configuration, exact);
  EXPECT_TRUE(atCapacity.run.fits);
  EXPECT_EQ(atCapacity.run.marginBytes, 0);
  EXPECT_TRUE(atCapacity.feasible());

  estimate::SystemProfile short1 = a100();
  short1.memory.capacityBytes.value = peak - 1;
  sweep::RunEvaluation over = sweep::evaluateFast(configuration, short1);
  EXPECT_TRUE(over.valid());
  EXPECT_FALSE(over.run.fits);
  EXPECT_EQ(over.run.marginBytes, -1);
  EXPECT_FALSE(over.feasible());
  // The IR path says the same.
  sweep::PipelineEvaluator pipeline(short1);
  sweep::RunEvaluation throughIR = pipeline.evaluate(configuration);
  EXPECT_FALSE(throughIR.run.fits);
  EXPECT_EQ(throughIR.run.peakBytes, peak);

  // Against the usable capacity, floor(capacity x 3/4): a capacity of
  // ceil(4 peak / 3) leaves exactly peak usable bytes (3/4 of it is at
  // least peak and less than peak + 3/4); floor((4 peak - 1) / 3) leaves
  // peak - 1. Both paths compare the same number.
  estimate::SystemProfile reserved = a100();
  reserved.memory.usableFraction = estimate::SourcedFraction{3, 4, "test"};
  reserved.memory.capacityBytes.value = (4 * peak + 2) / 3;
  ASSERT_EQ(reserved.memory.usableCapacityBytes(), peak);
  EXPECT_TRUE(sweep::evaluateFast(configuration, reserved).run.fits);
  EXPECT_TRUE(
      sweep::PipelineEvaluator(reserved).evaluate(configuration).run.fits);
  reserved.memory.capacityBytes.value = (4 * peak - 1) / 3;
  ASSERT_EQ(reserved.memory.usableCapacityBytes(), peak - 1);
  EXPECT_FALSE(sweep::evaluateFast(configuration, reserved).run.fits);
  EXPECT_FALSE(
      sweep::PipelineEvaluator(reserved).evaluate(configuration).run.fits);
}

TEST(SearchTest, ImpossibleBindingsAreRejectedOnBothPaths) {
  sweep::Configuration configuration = smallConfiguration();
  // tp (2) and dp (2) on NVLink are fine; with pp (2) too, 8 ranks still
  // fit one 8-GPU domain; tp = 16 on NVLink does not.
  configuration.binding.tierOfAxis = {
      {"tp", "nvlink"}, {"pp", "nvlink"}, {"dp", "nvlink"}};
  EXPECT_TRUE(sweep::evaluateFast(configuration, a100()).valid());
  configuration.run.mapping.tp = 16;
  configuration.run.mapping.world = 64;
  sweep::RunEvaluation fast = sweep::evaluateFast(configuration, a100());
  ASSERT_FALSE(fast.valid());
  EXPECT_EQ(*fast.rejectedAt, sweep::SearchStage::Binding);
  sweep::PipelineEvaluator pipeline(a100());
  sweep::RunEvaluation throughIR = pipeline.evaluate(configuration);
  ASSERT_FALSE(throughIR.valid());
  EXPECT_EQ(*throughIR.rejectedAt, sweep::SearchStage::Binding);
  EXPECT_EQ(fast.diagnostics, throughIR.diagnostics);
}

TEST(SearchTest, AHaltedPipelineIsARejectionNotACrash) {
  // A checkpoint that cannot be written halts the pipeline: later passes
  // are skipped and no plan exists. The configuration is rejected with the
  // checkpoint's diagnostic.
  llvm::SmallString<128> file;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("search", "txt", file));
  llvm::SmallString<128> directory(file);
  llvm::sys::path::append(directory, "checkpoints");
  sweep::PipelineEvaluator pipeline(a100());
  sweep::RunEvaluation halted =
      pipeline.evaluateWithCheckpoints(smallConfiguration(), directory);
  llvm::sys::fs::remove(file);
  ASSERT_FALSE(halted.valid());
  EXPECT_EQ(*halted.rejectedAt, sweep::SearchStage::Derivation);
  ASSERT_FALSE(halted.diagnostics.empty());
  EXPECT_NE(halted.diagnostics.front().find("checkpoint"), std::string::npos)
      << halted.diagnostics.front();
}

TEST(SearchTest, AGPUCountEnumeratesValidConfigurationsOnce) {
  sweep::SearchSpace space = spaceOn({4}, a100());
  std::set<std::string> seen;
  size_t count = 0;
  space.enumerate([&](const sweep::Configuration &configuration) {
    ++count;
    EXPECT_EQ(configuration.run.mapping.world, 4);
    std::string row = sweep::formatSearchRow(
        sweep::RowFormat::JSONLines, 0, configuration, sweep::RunEvaluation());
    // The point is everything that varies: no two configurations share it.
    EXPECT_TRUE(seen.insert(row).second) << row;
    sweep::RunEvaluation evaluation =
        sweep::evaluateFast(configuration, a100());
    EXPECT_TRUE(evaluation.valid())
        << row << "\n"
        << (evaluation.diagnostics.empty() ? "" : evaluation.diagnostics[0]);
    return true;
  });
  EXPECT_GT(count, 100u);
  // Stopping early stops.
  size_t visited = 0;
  space.enumerate([&](const sweep::Configuration &) { return ++visited < 3; });
  EXPECT_EQ(visited, 3u);
}

/// The feasible configurations of the small model on 2 and 4 A100s whose
/// capacity is cut to 16 MB (some fit, some do not), with their index in
/// the enumeration; `enumerated` is set to how many it enumerates.
std::vector<sweep::Ranked> feasibleOnTwoAndFourGPUs(size_t &enumerated) {
  estimate::SystemProfile tight = a100();
  tight.memory.capacityBytes.value = 16000000;
  sweep::SearchSpace space = spaceOn({2, 4}, tight);
  std::vector<sweep::Ranked> feasible;
  enumerated = 0;
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::RunEvaluation evaluation = sweep::evaluateFast(configuration, tight);
    if (evaluation.feasible())
      feasible.push_back({enumerated, configuration, evaluation});
    ++enumerated;
    return true;
  });
  return feasible;
}

/// Feasible rankings of a real space, offered in two different orders.
TEST(SearchTest, TheBestAndTheFrontDoNotDependOnArrivalOrder) {
  size_t index = 0;
  std::vector<sweep::Ranked> feasible = feasibleOnTwoAndFourGPUs(index);
  ASSERT_GT(feasible.size(), 20u);
  ASSERT_LT(feasible.size(), index) << "some configurations must not fit";

  auto rankAll = [](const std::vector<sweep::Ranked> &order) {
    sweep::TopK top(7);
    sweep::ParetoFront front;
    for (const sweep::Ranked &entry : order) {
      top.offer(entry);
      front.offer(entry);
    }
    std::vector<size_t> indices;
    for (const sweep::Ranked &entry : top.sorted())
      indices.push_back(entry.index);
    indices.push_back(~size_t(0));
    for (const sweep::Ranked &entry : front.sorted())
      indices.push_back(entry.index);
    return indices;
  };
  std::vector<size_t> inOrder = rankAll(feasible);
  std::vector<sweep::Ranked> shuffled = feasible;
  std::mt19937 random(12345);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  EXPECT_EQ(rankAll(shuffled), inOrder);

  // The top-K is the K smallest under rankedBefore; the front holds exactly
  // the points nothing dominates (of equal points, the lowest index).
  std::vector<sweep::Ranked> sorted = feasible;
  std::sort(sorted.begin(), sorted.end(), sweep::rankedBefore);
  for (size_t rank = 0; rank < 7; ++rank)
    EXPECT_EQ(inOrder[rank], sorted[rank].index);
  std::set<size_t> front(inOrder.begin() + 8, inOrder.end());
  for (const sweep::Ranked &candidate : feasible) {
    bool dominated = llvm::any_of(feasible, [&](const sweep::Ranked &other) {
      return sweep::dominates(other, candidate);
    });
    bool shadowed = llvm::any_of(feasible, [&](const sweep::Ranked &other) {
      return other.index < candidate.index &&
             other.picoseconds() == candidate.picoseconds() &&
             other.evaluation.run.peakBytes ==
                 candidate.evaluation.run.peakBytes &&
             other.gpus() == candidate.gpus();
    });
    EXPECT_EQ(front.count(candidate.index), !dominated && !shadowed)
        << candidate.index;
  }
}

TEST(SearchTest, AQueryBarExcludesOnlyWhatCanEnterNeitherTheBestNorTheFront) {
  // The rules at their edges: a bar of neither query excludes nothing;
  // under --top nothing before K are kept, and a time equal to the K-th
  // best's may tie it; a front point excludes what it is no better than in
  // every objective (the same point included: it came first), with or
  // without --top.
  sweep::QueryBar bar;
  EXPECT_FALSE(bar.excludes(100, 10, 4));
  bar.top = true;
  EXPECT_FALSE(bar.excludes(100, 10, 4));
  bar.kthBest = 50;
  EXPECT_FALSE(bar.excludes(50, 10, 4));
  EXPECT_TRUE(bar.excludes(51, 10, 4));
  bar.front = std::vector<sweep::QueryBar::Point>{{60, 10, 4}, {40, 30, 4}};
  EXPECT_TRUE(bar.excludes(60, 10, 4));
  EXPECT_FALSE(bar.excludes(59, 10, 4));
  EXPECT_FALSE(bar.excludes(60, 9, 4));
  EXPECT_FALSE(bar.excludes(60, 10, 2));
  EXPECT_TRUE(bar.excludes(61, 11, 8));
  EXPECT_TRUE(bar.excludes(55, 30, 4));
  EXPECT_FALSE(bar.excludes(55, 29, 4));
  EXPECT_FALSE(bar.excludes(45, 30, 4)) << "not slower than the K-th best";
  bar.top = false;
  bar.kthBest.reset();
  EXPECT_TRUE(bar.excludes(45, 30, 4)) << "the front alone";
  EXPECT_TRUE(bar.excludes(40, 30, 4));
  EXPECT_FALSE(bar.excludes(39, 30, 4));
  bar.front->clear();
  EXPECT_FALSE(bar.excludes(100, 10, 4));

  // On a real space: the bar of the first configurations (the K best and
  // the front they give) excludes a later one, given its own time as the
  // bound, only if it is neither among the K best nor on the front of all;
  // the bar of the front alone, only if it is neither on the front nor the
  // best.
  size_t index = 0;
  std::vector<sweep::Ranked> feasible = feasibleOnTwoAndFourGPUs(index);
  ASSERT_GT(feasible.size(), 100u);
  constexpr size_t kBest = 3;
  sweep::TopK allTop(kBest);
  sweep::ParetoFront allFront;
  for (const sweep::Ranked &entry : feasible) {
    allTop.offer(entry);
    allFront.offer(entry);
  }
  // What --top=3 --pareto reports, and what --pareto alone does: its front
  // and its best (`--search-stats`, a suite).
  std::set<size_t> reported, reportedByTheFront;
  for (const sweep::Ranked &entry : allTop.sorted())
    reported.insert(entry.index);
  for (const sweep::Ranked &entry : allFront.sorted()) {
    reported.insert(entry.index);
    reportedByTheFront.insert(entry.index);
  }
  reportedByTheFront.insert(allTop.sorted().front().index);
  size_t excluded = 0, excludedByTimeAlone = 0, excludedByTheFrontAlone = 0;
  for (size_t split : {feasible.size() / 8, feasible.size() / 2}) {
    sweep::TopK top(kBest);
    sweep::ParetoFront front;
    for (size_t at = 0; at < split; ++at) {
      top.offer(feasible[at]);
      front.offer(feasible[at]);
    }
    sweep::QueryBar withFront{true, top.worstKept(), front.points()};
    sweep::QueryBar timeAlone{true, top.worstKept(), std::nullopt};
    sweep::QueryBar frontAlone{false, std::nullopt, front.points()};
    for (size_t at = split; at < feasible.size(); ++at) {
      const sweep::Ranked &candidate = feasible[at];
      auto excludedBy = [&](const sweep::QueryBar &bar) {
        return bar.excludes(candidate.picoseconds(),
                            candidate.evaluation.run.peakBytes,
                            candidate.gpus());
      };
      if (excludedBy(withFront)) {
        ++excluded;
        EXPECT_EQ(reported.count(candidate.index), 0u) << candidate.index;
      }
      if (excludedBy(frontAlone)) {
        ++excludedByTheFrontAlone;
        EXPECT_EQ(reportedByTheFront.count(candidate.index), 0u)
            << candidate.index;
      }
      excludedByTimeAlone += excludedBy(timeAlone);
    }
  }
  // The front alone excludes what the two together do, and more.
  EXPECT_GE(excludedByTheFrontAlone, excluded);
  EXPECT_GT(excluded, 0u);
  // The front keeps some that the K-th best's time alone would exclude.
  EXPECT_GT(excludedByTimeAlone, excluded);
}

TEST(SearchTest, EvaluatorsSharingDerivationsGiveTheRowsOfOneAlone) {
  // Two evaluators share one search's derivations (SharedDerivations) and
  // take alternate runs, as two workers do: each run's row is the row an
  // evaluator of its own gives, and the two take templates and bounds the
  // other derived.
  estimate::SystemProfile tight = a100();
  tight.memory.capacityBytes.value = 16000000;
  sweep::SearchSpace space = spaceOn({2, 4}, tight);
  auto shared = std::make_shared<sweep::SharedDerivations>(tight);
  sweep::FastEvaluator even(shared, /*timeFittingOnly=*/true);
  sweep::FastEvaluator odd(shared, /*timeFittingOnly=*/true);
  sweep::FastEvaluator alone(tight, /*timeFittingOnly=*/true);
  size_t count = 0;
  space.enumerate([&](const sweep::Configuration &configuration) {
    sweep::FastEvaluator &sharing =
        configuration.runNumber % 2 == 0 ? even : odd;
    EXPECT_EQ(
        sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0, configuration,
                               sharing.evaluate(configuration)),
        sweep::formatSearchRow(sweep::RowFormat::JSONLines, 0, configuration,
                               alone.evaluate(configuration)));
    ++count;
    return true;
  });
  EXPECT_GT(count, 1000u);
  EXPECT_GT(shared->runTemplates.shared(), 0u);
  EXPECT_GT(shared->persistentBounds.shared(), 0u);
  EXPECT_EQ(even.shapesDerived() + odd.shapesDerived(), alone.shapesDerived());
}

} // namespace
