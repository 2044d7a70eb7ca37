//===- PipelineTest.cpp - Pipeline layouts, schedules and their checks ----===//

#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Analysis/ModelSummary.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace blueprint::workload;

namespace {

/// One letter per pass; the hand-written orders below read like the
/// schedule figures of the papers.
char letterOf(PipelinePass pass) {
  switch (pass) {
  case PipelinePass::Forward:
    return 'F';
  case PipelinePass::Backward:
    return 'B';
  case PipelinePass::InputGrad:
    return 'I';
  case PipelinePass::WeightGrad:
    return 'W';
  case PipelinePass::Step:
    return 'S';
  case PipelinePass::Prefill:
    return 'P';
  case PipelinePass::Decode:
    return 'D';
  }
  return '?';
}

/// "F0 F1 B0": pass letter and micro-batch, with ".k" for virtual chunk k
/// when `interleaved`.
std::string render(const StageOrder &order, bool interleaved = false) {
  std::string text;
  for (const ScheduleSlot &slot : order) {
    if (!text.empty())
      text += ' ';
    text += letterOf(slot.pass);
    text += std::to_string(slot.microBatch);
    if (interleaved)
      text += "." + std::to_string(slot.virtualIndex);
  }
  return text;
}

/// The inverse of render: "F0 B0.1" (virtual chunk 0 unless given).
StageOrder parse(const std::string &text) {
  StageOrder order;
  std::istringstream tokens(text);
  std::string token;
  while (tokens >> token) {
    ScheduleSlot slot;
    switch (token[0]) {
    case 'F':
      slot.pass = PipelinePass::Forward;
      break;
    case 'B':
      slot.pass = PipelinePass::Backward;
      break;
    case 'I':
      slot.pass = PipelinePass::InputGrad;
      break;
    default:
      slot.pass = PipelinePass::WeightGrad;
      break;
    }
    size_t dot = token.find('.');
    slot.microBatch = std::stoll(token.substr(1, dot - 1));
    if (dot != std::string::npos)
      slot.virtualIndex = std::stoll(token.substr(dot + 1));
    order.push_back(slot);
  }
  return order;
}

std::vector<std::string> renderAll(const std::vector<StageOrder> &orders,
                                   bool interleaved = false) {
  std::vector<std::string> texts;
  for (const StageOrder &order : orders)
    texts.push_back(render(order, interleaved));
  return texts;
}

std::vector<StageOrder> parseAll(const std::vector<std::string> &texts) {
  std::vector<StageOrder> orders;
  for (const std::string &text : texts)
    orders.push_back(parse(text));
  return orders;
}

std::vector<std::string> rules(const std::vector<RuleViolation> &violations) {
  std::vector<std::string> labels;
  for (const RuleViolation &violation : violations)
    labels.push_back(violation.rule);
  return labels;
}

std::vector<std::string>
messages(const std::vector<RuleViolation> &violations) {
  std::vector<std::string> texts;
  for (const RuleViolation &violation : violations)
    texts.push_back(violation.message);
  return texts;
}

using Strings = std::vector<std::string>;

//===----------------------------------------------------------------------===//
// Generated orders, written out by hand
//===----------------------------------------------------------------------===//

TEST(PipelineOrders, GPipeRunsEveryForwardThenEveryBackward) {
  EXPECT_EQ(renderAll(generateStageOrders(PipelineSchedule::GPipe, 2, 1, 3)),
            (Strings{"F0 F1 F2 B0 B1 B2", "F0 F1 F2 B0 B1 B2"}));
}

TEST(PipelineOrders, OneFOneBWarmsUpWithTheStagesBelow) {
  std::vector<StageOrder> orders =
      generateStageOrders(PipelineSchedule::OneFOneB, 4, 1, 6);
  ASSERT_EQ(orders.size(), 4u);
  EXPECT_EQ(render(orders[0]), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(render(orders[1]), "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 B4 B5");
  EXPECT_EQ(render(orders[2]), "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 B5");
  EXPECT_EQ(render(orders[3]), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5");
}

TEST(PipelineOrders, OneFOneBWithFewerMicroBatchesThanStages) {
  // Warmup min(pp - r - 1, m) is capped at the micro-batches on stages 0 and
  // 1; stage 2 warms up with one forward, the last stage with none.
  EXPECT_EQ(
      renderAll(generateStageOrders(PipelineSchedule::OneFOneB, 4, 1, 2)),
      (Strings{"F0 F1 B0 B1", "F0 F1 B0 B1", "F0 F1 B0 B1", "F0 B0 F1 B1"}));
}

TEST(PipelineOrders, InterleavedFollowsMegatronChunkAndMicroBatchIds) {
  // pp = 2, v = 2, m = 4. Forward k runs chunk (k / 2) % 2 on micro-batch
  // (k / 4) * 2 + k % 2; backward k the chunk 1 - (k / 2) % 2. Stage 0 warms
  // up with (2 - 0 - 1) * 2 + (2 - 1) * 2 = 4 forwards, stage 1 with 2.
  std::vector<StageOrder> orders =
      generateStageOrders(PipelineSchedule::Interleaved1F1B, 2, 2, 4);
  EXPECT_EQ(renderAll(orders, /*interleaved=*/true),
            (Strings{"F0.0 F1.0 F0.1 F1.1 F2.0 B0.1 F3.0 B1.1 "
                     "F2.1 B0.0 F3.1 B1.0 B2.1 B3.1 B2.0 B3.0",
                     "F0.0 F1.0 F0.1 B0.1 F1.1 B1.1 F2.0 B0.0 "
                     "F3.0 B1.0 F2.1 B2.1 F3.1 B3.1 B2.0 B3.0"}));
}

TEST(PipelineOrders, InterleavedWithOneGroupRunsAllForwardsFirst) {
  // m = pp: Megatron warms up with every forward.
  EXPECT_EQ(
      renderAll(generateStageOrders(PipelineSchedule::Interleaved1F1B, 2, 2, 2),
                /*interleaved=*/true),
      (Strings{"F0.0 F1.0 F0.1 F1.1 B0.1 B1.1 B0.0 B1.0",
               "F0.0 F1.0 F0.1 F1.1 B0.1 B1.1 B0.0 B1.0"}));
}

TEST(PipelineOrders, ZeroBubbleH1DefersWeightGradsOnLaterStages) {
  // 1F1B with B as input_grad; stage r runs W of micro-batch k - r after
  // the input_grad of k, and the rest after its last input_grad.
  EXPECT_EQ(
      renderAll(generateStageOrders(PipelineSchedule::ZeroBubbleH1, 3, 1, 4)),
      (Strings{"F0 F1 F2 I0 W0 F3 I1 W1 I2 W2 I3 W3",
               "F0 F1 I0 F2 I1 W0 F3 I2 W1 I3 W2 W3",
               "F0 I0 F1 I1 F2 I2 W0 F3 I3 W1 W2 W3"}));
}

TEST(PipelineOrders, PassesOfEachSchedule) {
  using Passes = llvm::SmallVector<PipelinePass, 3>;
  EXPECT_EQ(passesOf(PipelineSchedule::GPipe),
            (Passes{PipelinePass::Forward, PipelinePass::Backward}));
  EXPECT_EQ(passesOf(PipelineSchedule::OneFOneB),
            (Passes{PipelinePass::Forward, PipelinePass::Backward}));
  EXPECT_EQ(passesOf(PipelineSchedule::Interleaved1F1B),
            (Passes{PipelinePass::Forward, PipelinePass::Backward}));
  EXPECT_EQ(passesOf(PipelineSchedule::ZeroBubbleH1),
            (Passes{PipelinePass::Forward, PipelinePass::InputGrad,
                    PipelinePass::WeightGrad}));
}

TEST(PipelineOrders, PeakInFlight) {
  EXPECT_EQ(peakInFlight({}), 0);
  EXPECT_EQ(peakInFlight(parse("F0 F1 B0 F2 B1 B2")), 2);
  EXPECT_EQ(peakInFlight(parse("F0 F1 F2 I0 W0 I1 I2 W1 W2")), 3);
  // weight_grad releases no stashed forward activation.
  EXPECT_EQ(peakInFlight(parse("F0 I0 F1 W0 F2")), 2);
}

TEST(PipelineOrders, InFlightAfterEachSlot) {
  // Each chunk weighs its virtual index + 1 here: F0 and B0 are chunk 0
  // (weight 1), F1.1 and B1.1 chunk 1 (weight 2).
  auto weight = [](int64_t virtualIndex) { return virtualIndex + 1; };
  EXPECT_EQ(inFlightAfter(parse("F0 F1.1 B0 F2 B1.1 B2"), weight),
            (std::vector<int64_t>{1, 3, 2, 3, 1, 0}));
  // input_grad releases the stash; weight_grad does not.
  EXPECT_EQ(inFlightAfter(parse("F0 F1 I0 W0 I1 W1"), weight),
            (std::vector<int64_t>{1, 2, 1, 1, 0, 0}));
  EXPECT_EQ(inFlightAfter(
                parse("F0"),
                [](int64_t) { return std::numeric_limits<int64_t>::max(); }),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max()}));
  EXPECT_FALSE(inFlightAfter(parse("F0 F1"), [](int64_t) {
                 return std::numeric_limits<int64_t>::max();
               }).has_value());
}

TEST(PipelineOrders, InFlightBlocksAtTheSlotsABoundReads) {
  // 1F1B on 2 stages, 3 micro-batches, 3 and 5 blocks: stage 0 runs
  // F0 F1 B0 F2 B1 B2, stage 1 F0 B0 F1 B1 F2 B2.
  PipelineLayout layout;
  layout.stages = 2;
  layout.chunkBlocks = {3, 5};
  std::optional<std::vector<InFlightBlocks>> derived =
      inFlightBlocksOf(PipelineSchedule::OneFOneB, layout, 3);
  ASSERT_TRUE(derived.has_value());
  const std::vector<InFlightBlocks> &held = *derived;
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].afterForward, 6);
  EXPECT_EQ(held[0].afterForwardPastWeightGradients, 6);
  EXPECT_EQ(held[0].beforeBackward, 6);
  EXPECT_FALSE(held[0].beforeWeightGrad.has_value());
  EXPECT_EQ(held[1].afterForward, 5);
  EXPECT_EQ(held[1].afterForwardPastWeightGradients, 5);
  EXPECT_EQ(held[1].beforeBackward, 5);
  // GPipe runs every forward first: no forward after a backward.
  std::optional<std::vector<InFlightBlocks>> gpipe =
      inFlightBlocksOf(PipelineSchedule::GPipe, layout, 3);
  ASSERT_TRUE(gpipe.has_value());
  EXPECT_EQ((*gpipe)[0].afterForward, 9);
  EXPECT_FALSE((*gpipe)[0].afterForwardPastWeightGradients.has_value());
  EXPECT_EQ((*gpipe)[0].beforeBackward, 9);
  // ZB-H1 has no backward slot; its weight_grad slots see what input_grad
  // has not yet released.
  std::optional<std::vector<InFlightBlocks>> zeroBubble =
      inFlightBlocksOf(PipelineSchedule::ZeroBubbleH1, layout, 3);
  ASSERT_TRUE(zeroBubble.has_value());
  for (const InFlightBlocks &stage : *zeroBubble) {
    EXPECT_FALSE(stage.beforeBackward.has_value());
    ASSERT_TRUE(stage.beforeWeightGrad.has_value());
    EXPECT_LE(*stage.beforeWeightGrad, stage.afterForward);
  }
  EXPECT_EQ((*zeroBubble)[0].afterForward, 6);
}

/// Every generated order over a grid obeys the rules, runs each pass of
/// each (micro-batch, chunk) once, and holds the chunks ModelSummary's
/// closed form says at its peak.
TEST(PipelineOrders, GeneratedOrdersObeyTheRulesOverAGrid) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1}) {
    bool interleaved = schedule == PipelineSchedule::Interleaved1F1B;
    for (int64_t p = 1; p <= 8; ++p) {
      for (int64_t v = 1; v <= (interleaved ? 4 : 1); ++v) {
        for (int64_t m = 1; m <= 16; ++m) {
          if (interleaved && m % p != 0)
            continue;
          SCOPED_TRACE(stringifyEnum(schedule).str() +
                       " pp=" + std::to_string(p) + " v=" + std::to_string(v) +
                       " m=" + std::to_string(m));
          std::vector<StageOrder> orders =
              generateStageOrders(schedule, p, v, m);
          ASSERT_EQ(static_cast<int64_t>(orders.size()), p);
          EXPECT_EQ(messages(checkStageOrders(schedule, p, v, m, orders)),
                    Strings{});
          for (const StageOrder &order : orders) {
            for (PipelinePass pass : passesOf(schedule)) {
              EXPECT_EQ(std::count_if(order.begin(), order.end(),
                                      [&](const ScheduleSlot &slot) {
                                        return slot.pass == pass;
                                      }),
                        m * v);
            }
            EXPECT_EQ(static_cast<int64_t>(order.size()),
                      m * v * static_cast<int64_t>(passesOf(schedule).size()));
          }
          EXPECT_EQ(peakInFlight(orders[0]),
                    blueprint::analysis::inFlightChunks(schedule, m, p, v));
          // ZB-H1 keeps 1F1B's forward/input_grad order, so it holds what
          // 1F1B holds.
          if (schedule == PipelineSchedule::ZeroBubbleH1) {
            EXPECT_EQ(peakInFlight(orders[0]), std::min(m, p));
          }
          if (schedule == PipelineSchedule::OneFOneB ||
              schedule == PipelineSchedule::ZeroBubbleH1) {
            for (int64_t r = 0; r < p; ++r) {
              EXPECT_EQ(peakInFlight(orders[r]), std::min(m, p - r))
                  << "stage " << r;
            }
          }
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Order rules, violated one at a time
//===----------------------------------------------------------------------===//

TEST(PipelineOrderRules, C1OneOrderPerStage) {
  std::vector<RuleViolation> violations = checkStageOrders(
      PipelineSchedule::OneFOneB, 2, 1, 1, parseAll({"F0 B0"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c1"});
  EXPECT_EQ(messages(violations),
            Strings{"1 stage orders for pp = 2 stages; one order per stage"});
}

TEST(PipelineOrderRules, C1SlotsInRange) {
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                       parseAll({"F0 B0 F1 B1", "F0 B0 F2 B1 I1 F1.1"}));
  EXPECT_EQ(
      rules(violations),
      (Strings{"pipeline_order_c1", "pipeline_order_c1", "pipeline_order_c1"}));
  EXPECT_EQ(messages(violations),
            (Strings{"stage 1 slot 2: forward of micro-batch 2, virtual chunk "
                     "0: micro-batch 2 is outside [0, microbatches = 2)",
                     "stage 1 slot 4: input_grad of micro-batch 1, virtual "
                     "chunk 0: schedule one_f_one_b runs no input_grad pass",
                     "stage 1 slot 5: forward of micro-batch 1, virtual chunk "
                     "1: virtual chunk 1 is outside [0, virtual_stages = 1)"}));
}

TEST(PipelineOrderRules, C1BackwardUnderZeroBubble) {
  std::vector<RuleViolation> violations = checkStageOrders(
      PipelineSchedule::ZeroBubbleH1, 1, 1, 1, parseAll({"F0 B0 W0"}));
  EXPECT_EQ(messages(violations),
            Strings{"stage 0 slot 1: backward of micro-batch 0, virtual chunk "
                    "0: schedule zero_bubble_h1 runs no backward pass"});
}

TEST(PipelineOrderRules, C2MissingSlot) {
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                       parseAll({"F0 F1 B0 B1", "F0 B0 F1"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c2"});
  EXPECT_EQ(messages(violations),
            Strings{"stage 1 has no slot for backward of micro-batch 1, "
                    "virtual chunk 0"});
}

TEST(PipelineOrderRules, C2DuplicatedSlot) {
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::GPipe, 2, 1, 2,
                       parseAll({"F0 F1 B0 B1 F1", "F0 F1 B0 B1"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c2"});
  EXPECT_EQ(messages(violations),
            Strings{"stage 0 slot 4: forward of micro-batch 1, virtual chunk "
                    "0 repeats slot 1"});
}

TEST(PipelineOrderRules, C3BackwardBeforeForward) {
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                       parseAll({"F0 F1 B0 B1", "F0 B0 B1 F1"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c3"});
  EXPECT_EQ(messages(violations),
            Strings{"stage 1 slot 2: backward of micro-batch 1, virtual chunk "
                    "0 precedes its forward (slot 3)"});
}

TEST(PipelineOrderRules, C3WeightGradBeforeInputGrad) {
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::ZeroBubbleH1, 1, 2, 1,
                       parseAll({"F0.0 F0.1 I0.1 W0.0 I0.0 W0.1"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c3"});
  EXPECT_EQ(messages(violations),
            Strings{"stage 0 slot 3: weight_grad of micro-batch 0, virtual "
                    "chunk 0 precedes its input_grad (slot 4)"});
}

TEST(PipelineOrderRules, C4Deadlock) {
  // Stage 0 waits for micro-batch 0's gradient before it sends micro-batch
  // 1's activation, which stage 1 waits for before it runs micro-batch 0's
  // backward.
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                       parseAll({"F0 B0 F1 B1", "F0 F1 B0 B1"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c4"});
  EXPECT_EQ(messages(violations),
            Strings{"the stage orders deadlock: stage 0 waits at slot 1 "
                    "(backward of micro-batch 0, virtual chunk 0) for the "
                    "activation gradient of micro-batch 0 from model chunk 1 "
                    "on stage 1; stage 1 waits at slot 1 (forward of "
                    "micro-batch 1, virtual chunk 0) for the activation of "
                    "micro-batch 1 from model chunk 0 on stage 0"});
}

TEST(PipelineOrderRules, C4DeadlockThroughVirtualChunks) {
  // pp = 2, v = 2: stage 0 runs chunk 2 (its virtual chunk 1) before the
  // activation of chunk 1 can have reached it.
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::Interleaved1F1B, 2, 2, 2,
                       parseAll({"F0.0 F0.1 F1.0 F1.1 B0.1 B1.1 B0.0 B1.0",
                                 "F1.0 F0.0 F0.1 F1.1 B0.1 B1.1 B0.0 B1.0"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c4"});
  EXPECT_EQ(messages(violations),
            Strings{"the stage orders deadlock: stage 0 waits at slot 1 "
                    "(forward of micro-batch 0, virtual chunk 1) for the "
                    "activation of micro-batch 0 from model chunk 1 on stage "
                    "1; stage 1 waits at slot 0 (forward of micro-batch 1, "
                    "virtual chunk 0) for the activation of micro-batch 1 "
                    "from model chunk 0 on stage 0"});
}

TEST(PipelineOrderRules, C4IsCheckedOnlyWhenTheOtherRulesHold) {
  // The deadlocking orders of C4Deadlock with a slot missing: c2 alone.
  std::vector<RuleViolation> violations =
      checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                       parseAll({"F0 B0 F1", "F0 F1 B0 B1"}));
  EXPECT_EQ(rules(violations), Strings{"pipeline_order_c2"});
}

TEST(PipelineOrderRules, ValidHandWrittenOrdersPass) {
  // GPipe's orders are valid under 1F1B's passes, and a 1F1B stage 0 next
  // to an all-forward-first stage 1 still makes progress.
  EXPECT_EQ(
      messages(checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                                parseAll({"F0 F1 B0 B1", "F0 F1 B0 B1"}))),
      Strings{});
  EXPECT_EQ(
      messages(checkStageOrders(PipelineSchedule::OneFOneB, 2, 1, 2,
                                parseAll({"F0 F1 B0 B1", "F0 B0 F1 B1"}))),
      Strings{});
}

//===----------------------------------------------------------------------===//
// Progress and deadlock
//===----------------------------------------------------------------------===//

using Program = std::vector<std::vector<ProgressStep>>;

ProgressStep step(std::vector<int64_t> waits, std::vector<int64_t> signals) {
  ProgressStep result;
  result.waits.assign(waits.begin(), waits.end());
  result.signals.assign(signals.begin(), signals.end());
  return result;
}

TEST(FindDeadlock, TwoStageCycle) {
  std::optional<Deadlock> deadlock = findDeadlock(Program{
      {step({}, {10}), step({20}, {11})}, {step({11}, {20}), step({}, {})}});
  ASSERT_TRUE(deadlock.has_value());
  ASSERT_EQ(deadlock->blocked.size(), 2u);
  EXPECT_EQ(deadlock->blocked[0].stage, 0);
  EXPECT_EQ(deadlock->blocked[0].step, 1);
  EXPECT_EQ(deadlock->blocked[0].channel, 20);
  EXPECT_EQ(deadlock->blocked[1].stage, 1);
  EXPECT_EQ(deadlock->blocked[1].step, 0);
  EXPECT_EQ(deadlock->blocked[1].channel, 11);
}

TEST(FindDeadlock, WaitForAChannelNobodySignals) {
  std::optional<Deadlock> deadlock =
      findDeadlock(Program{{step({}, {1})}, {step({1}, {}), step({1, 7}, {})}});
  ASSERT_TRUE(deadlock.has_value());
  ASSERT_EQ(deadlock->blocked.size(), 1u);
  EXPECT_EQ(deadlock->blocked[0].stage, 1);
  EXPECT_EQ(deadlock->blocked[0].step, 1);
  EXPECT_EQ(deadlock->blocked[0].channel, 7);
}

TEST(FindDeadlock, ExtremeChannelKeys) {
  // Every int64_t is a channel, DenseMap's reserved keys included.
  int64_t max = std::numeric_limits<int64_t>::max();
  int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_FALSE(findDeadlock(Program{{step({max}, {max - 1})},
                                    {step({}, {max}), step({max - 1}, {min})},
                                    {step({min}, {})}})
                   .has_value());
  std::optional<Deadlock> deadlock =
      findDeadlock(Program{{step({max - 1}, {})}, {step({}, {max})}});
  ASSERT_TRUE(deadlock.has_value());
  ASSERT_EQ(deadlock->blocked.size(), 1u);
  EXPECT_EQ(deadlock->blocked[0].channel, max - 1);
}

TEST(FindDeadlock, LongChainFinishes) {
  // Two stages pass a token back and forth 100000 times: each step of one
  // waits for the previous step of the other.
  constexpr int64_t rounds = 100000;
  Program stages(2);
  for (int64_t i = 0; i < rounds; ++i) {
    stages[0].push_back(
        step(i == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{2 * i - 1},
             {2 * i}));
    stages[1].push_back(step({2 * i}, {2 * i + 1}));
  }
  EXPECT_FALSE(findDeadlock(stages).has_value());
  // Without the first signal nothing runs.
  stages[0][0].signals.clear();
  std::optional<Deadlock> deadlock = findDeadlock(stages);
  ASSERT_TRUE(deadlock.has_value());
  ASSERT_EQ(deadlock->blocked.size(), 2u);
  EXPECT_EQ(deadlock->blocked[0].step, 1);
  EXPECT_EQ(deadlock->blocked[1].step, 0);
}

TEST(FindDeadlock, EmptyStagesFinish) {
  EXPECT_FALSE(findDeadlock(Program{}).has_value());
  EXPECT_FALSE(findDeadlock(Program(2)).has_value());
}

TEST(ProgressOf, ChannelsFollowTheModelChunks) {
  // pp = 2, v = 2: stage 0 holds chunks 0 and 2, stage 1 chunks 1 and 3.
  PipelineLayout layout;
  layout.stages = 2;
  layout.virtualStages = 2;
  layout.chunkBlocks = {1, 1, 1, 1};
  std::vector<std::vector<ProgressStep>> progress =
      progressOf(layout, 2, parseAll({"F1.0 F1.1 B1.1 B1.0", "F1.1 B1.1"}));
  ASSERT_EQ(progress.size(), 2u);
  ASSERT_EQ(progress[0].size(), 4u);
  auto channel = [](int64_t mb, int64_t chunk, bool backward) {
    return pipelineChannel(mb, chunk, backward, 4);
  };
  using Keys = llvm::SmallVector<int64_t, 1>;
  // Forward through chunk 0: nothing to wait for.
  EXPECT_EQ(progress[0][0].waits, Keys{});
  EXPECT_EQ(progress[0][0].signals, Keys{channel(1, 0, false)});
  // Forward through chunk 2.
  EXPECT_EQ(progress[0][1].waits, Keys{channel(1, 1, false)});
  EXPECT_EQ(progress[0][1].signals, Keys{channel(1, 2, false)});
  // Backward through chunk 2.
  EXPECT_EQ(progress[0][2].waits, Keys{channel(1, 3, true)});
  EXPECT_EQ(progress[0][2].signals, Keys{channel(1, 2, true)});
  // Backward through chunk 0 sends nothing further.
  EXPECT_EQ(progress[0][3].waits, Keys{channel(1, 1, true)});
  EXPECT_EQ(progress[0][3].signals, Keys{});
  // Chunk 3 is the last: its forward sends nothing, its backward waits for
  // nothing.
  EXPECT_EQ(progress[1][0].waits, Keys{channel(1, 2, false)});
  EXPECT_EQ(progress[1][0].signals, Keys{});
  EXPECT_EQ(progress[1][1].waits, Keys{});
  EXPECT_EQ(progress[1][1].signals, Keys{channel(1, 3, true)});
}

TEST(ProgressOf, WeightGradHasNoChannel) {
  PipelineLayout layout;
  layout.stages = 2;
  layout.chunkBlocks = {1, 1};
  std::vector<std::vector<ProgressStep>> progress =
      progressOf(layout, 1, parseAll({"F0 I0 W0", "F0 I0 W0"}));
  EXPECT_TRUE(progress[0][2].waits.empty());
  EXPECT_TRUE(progress[0][2].signals.empty());
  EXPECT_TRUE(progress[1][2].waits.empty());
  EXPECT_TRUE(progress[1][2].signals.empty());
}

TEST(ProgressOf, ChannelKeysAreDistinct) {
  std::vector<int64_t> keys;
  for (int64_t mb = 0; mb < 5; ++mb)
    for (int64_t chunk = 0; chunk < 3; ++chunk)
      for (bool backward : {false, true})
        keys.push_back(pipelineChannel(mb, chunk, backward, 3));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
  EXPECT_GE(keys.front(), 0);
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

TEST(PipelineLayout, Accessors) {
  // pp = 2, v = 2: chunks 0 and 2 on stage 0, 1 and 3 on stage 1.
  PipelineLayout layout;
  layout.stages = 2;
  layout.virtualStages = 2;
  layout.chunkBlocks = {3, 2, 4, 1};
  EXPECT_EQ(layout.chunks(), 4);
  EXPECT_EQ(layout.stageOf(2), 0);
  EXPECT_EQ(layout.virtualIndexOf(2), 1);
  EXPECT_EQ(layout.stageOf(3), 1);
  EXPECT_EQ(layout.chunkAt(1, 1), 3);
  EXPECT_EQ(layout.firstBlock(0), 0);
  EXPECT_EQ(layout.firstBlock(1), 3);
  EXPECT_EQ(layout.firstBlock(3), 9);
  EXPECT_EQ(layout.stageBlocks(0), 7);
  EXPECT_EQ(layout.stageBlocks(1), 3);
  EXPECT_FALSE(layout.isUniform());
  layout.chunkBlocks = {2, 2, 2, 2};
  EXPECT_TRUE(layout.isUniform());
}

TEST(PipelineLayout, LayoutOfAMapping) {
  ModelSpec model;
  model.blocks = 12;
  MappingSpec mapping;
  mapping.pp = 2;
  mapping.virtualStages = 3;
  PipelineLayout uniform = layoutOf(model, mapping);
  EXPECT_EQ(uniform.stages, 2);
  EXPECT_EQ(uniform.virtualStages, 3);
  EXPECT_EQ(uniform.chunkBlocks, (std::vector<int64_t>{2, 2, 2, 2, 2, 2}));
  mapping.pipelineLayout = {1, 2, 3, 3, 2, 1};
  PipelineLayout explicitLayout = layoutOf(model, mapping);
  EXPECT_EQ(explicitLayout.chunkBlocks, mapping.pipelineLayout);
  EXPECT_EQ(explicitLayout.stageBlocks(0), 6);
}

TEST(PipelineLayoutRules, ValidLayout) {
  EXPECT_EQ(messages(checkPipelineLayout({3, 5, 4}, 12, 3)), Strings{});
}

TEST(PipelineLayoutRules, C11EntryPerChunk) {
  std::vector<RuleViolation> violations = checkPipelineLayout({6, 6}, 12, 4);
  EXPECT_EQ(rules(violations), Strings{"decoder_training_c11"});
  EXPECT_EQ(messages(violations),
            Strings{"pipeline_layout has 2 entries; it needs pp * "
                    "virtual_stages = 4, one per model chunk"});
}

TEST(PipelineLayoutRules, C12NoEmptyChunk) {
  std::vector<RuleViolation> violations =
      checkPipelineLayout({6, 0, 6, -1, 1}, 12, 5);
  EXPECT_EQ(rules(violations),
            (Strings{"decoder_training_c12", "decoder_training_c12"}));
  EXPECT_EQ(messages(violations),
            (Strings{"pipeline_layout[1] = 0: model chunk 1 holds no block",
                     "pipeline_layout[3] = -1: model chunk 3 holds no "
                     "block"}));
}

TEST(PipelineLayoutRules, C13SumsToTheBlocks) {
  std::vector<RuleViolation> violations = checkPipelineLayout({6, 5}, 12, 2);
  EXPECT_EQ(rules(violations), Strings{"decoder_training_c13"});
  EXPECT_EQ(messages(violations),
            Strings{"pipeline_layout sums to 11 blocks; the model has blocks "
                    "= 12"});
}

TEST(PipelineLayoutRules, C13Overflow) {
  int64_t max = std::numeric_limits<int64_t>::max();
  std::vector<RuleViolation> violations =
      checkPipelineLayout({max, max}, 12, 2);
  EXPECT_EQ(rules(violations), Strings{"decoder_training_c13"});
  EXPECT_EQ(messages(violations),
            Strings{"the entries of pipeline_layout sum past a 64-bit "
                    "integer; they must sum to blocks = 12"});
}

std::vector<int64_t>
layoutOrEmpty(std::variant<std::vector<int64_t>, RuleViolation> result) {
  if (auto *layout = std::get_if<std::vector<int64_t>>(&result))
    return *layout;
  ADD_FAILURE() << std::get<RuleViolation>(result).message;
  return {};
}

std::string
violationOf(std::variant<std::vector<int64_t>, RuleViolation> result) {
  if (auto *violation = std::get_if<RuleViolation>(&result))
    return violation->rule + ": " + violation->message;
  ADD_FAILURE() << "expected a violation";
  return {};
}

TEST(FirstLastLayout, ValidLayouts) {
  using Layout = std::vector<int64_t>;
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(30, 4, 6, 8)), (Layout{6, 8, 8, 8}));
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(30, 4, 3, std::nullopt)),
            (Layout{3, 9, 9, 9}));
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(30, 4, std::nullopt, 6)),
            (Layout{8, 8, 8, 6}));
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(10, 2, 3, 7)), (Layout{3, 7}));
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(10, 2, 4, std::nullopt)),
            (Layout{4, 6}));
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(10, 1, 10, std::nullopt)),
            (Layout{10}));
  EXPECT_EQ(layoutOrEmpty(firstLastLayout(10, 1, 10, 10)), (Layout{10}));
}

TEST(FirstLastLayout, Violations) {
  EXPECT_EQ(violationOf(firstLastLayout(30, 4, 0, std::nullopt)),
            "megatron_args_layout: --decoder-first-pipeline-num-layers = 0 "
            "must be positive");
  EXPECT_EQ(violationOf(firstLastLayout(30, 4, std::nullopt, -2)),
            "megatron_args_layout: --decoder-last-pipeline-num-layers = -2 "
            "must be positive");
  EXPECT_EQ(violationOf(firstLastLayout(30, 4, 31, std::nullopt)),
            "megatron_args_layout: --decoder-first-pipeline-num-layers = 31 "
            "exceeds the model's 30 blocks");
  EXPECT_EQ(violationOf(firstLastLayout(30, 1, 29, std::nullopt)),
            "megatron_args_layout: with pp = 1 the one stage holds all 30 "
            "blocks, but --decoder-first-pipeline-num-layers = 29");
  EXPECT_EQ(violationOf(firstLastLayout(30, 2, 10, 10)),
            "megatron_args_layout: with pp = 2, "
            "--decoder-first-pipeline-num-layers = 10 and "
            "--decoder-last-pipeline-num-layers = 10 must sum to the model's "
            "30 blocks");
  EXPECT_EQ(violationOf(firstLastLayout(30, 2, 30, std::nullopt)),
            "megatron_args_layout: --decoder-first-pipeline-num-layers = 30 "
            "leave 0 of the 30 blocks for the other 1 stages, which need a "
            "positive multiple of 1");
  EXPECT_EQ(violationOf(firstLastLayout(30, 4, 5, 6)),
            "megatron_args_layout: --decoder-first-pipeline-num-layers = 5 "
            "and --decoder-last-pipeline-num-layers = 6 leave 19 of the 30 "
            "blocks for the other 2 stages, which need a positive multiple "
            "of 2");
  EXPECT_EQ(violationOf(firstLastLayout(30, 0, 5, 6)),
            "megatron_args_layout: pp = 0 must be positive");
}

TEST(CeilingLayout, CeilOnAllButTheLast) {
  EXPECT_EQ(layoutOrEmpty(ceilingLayout(10, 4)),
            (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(layoutOrEmpty(ceilingLayout(12, 4)),
            (std::vector<int64_t>{3, 3, 3, 3}));
  EXPECT_EQ(layoutOrEmpty(ceilingLayout(5, 1)), (std::vector<int64_t>{5}));
}

TEST(CeilingLayout, EmptyLastChunk) {
  EXPECT_EQ(violationOf(ceilingLayout(9, 4)),
            "ceiling_layout: ceil(blocks / chunks) = ceil(9 / 4) = 3 blocks "
            "on each of the first 3 model chunks leave 0 blocks for the last");
  EXPECT_EQ(violationOf(ceilingLayout(5, 4)),
            "ceiling_layout: ceil(blocks / chunks) = ceil(5 / 4) = 2 blocks "
            "on each of the first 3 model chunks leave -1 blocks for the "
            "last");
  int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(violationOf(ceilingLayout(max, max / 2)),
            "ceiling_layout: ceil(blocks / chunks) = ceil(" +
                std::to_string(max) + " / " + std::to_string(max / 2) +
                ") = 3 blocks on each of the first " +
                std::to_string(max / 2 - 1) +
                " model chunks leave no blocks for the last");
  EXPECT_EQ(violationOf(ceilingLayout(4, 0)),
            "ceiling_layout: blocks = 4 and model chunks = 0 must be "
            "positive");
}

} // namespace
