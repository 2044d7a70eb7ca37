//===- CriticalPathTest.cpp - Iteration time from the whole-run graph -----===//
//
// The longest path through a whole run's graph equals the closed forms of
// the pipeline schedules when every stage is the same (GPipe and 1F1B
// (m + pp - 1)(F + B), GPipe's 2(pp - 1) transfers, interleaved 1F1B
// (m v + pp - 1)(f + b) for chunk passes f and b, ZB-H1's
// m(F + B + W) + (pp - 1)(F + B - W) of Qi et al. 2023 Sec. 3.1): the graph
// is built from the derived run, its step times replaced by those unit
// times. With the estimate's times the path is contiguous, each stage's
// compute, collective and bubble time sum to the iteration, and a graph
// that cannot finish is an error naming where it stops.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Workload/Primitives.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

#include <limits>
#include <tuple>

using namespace blueprint;
using namespace blueprint::analysis;
using namespace blueprint::workload;
using blueprint::test::RunSpecs;
using blueprint::test::smallRun;
using blueprint::test::useLatentAttention;
using blueprint::test::valueOrFail;
using blueprint::test::withExperts;

namespace {

estimate::NetworkTierBinding binding() {
  estimate::NetworkTierBinding result;
  result.tierOfAxis = {
      {"tp", "nvlink"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
  return result;
}

RunGraph graphOf(const RunSpecs &run,
                 const estimate::NetworkTierBinding &tiers = binding()) {
  WholeRun whole =
      valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
  return valueOrFail(runGraphOf(whole, run.mapping, run.training.activationType,
                                blueprint::test::a100Profile(), tiers));
}

/// The graph with unit times: a block instance's pass takes `forward`,
/// `backward` or `weightGrad` per model chunk, every message `transfer`,
/// everything else (edges, collectives, steps) nothing.
RunGraph withUnitTimes(RunGraph graph, double forward, double backward,
                       double weightGrad, double transfer) {
  for (std::vector<GraphStep> &steps : graph.stages)
    for (GraphStep &step : steps) {
      step.transferSeconds = step.kind == StepKind::Send ? transfer : 0;
      step.seconds = 0;
      if (step.kind != StepKind::Compute ||
          llvm::StringRef(step.label).find("block_") != 0)
        continue;
      switch (step.pass) {
      case PipelinePass::Forward:
        step.seconds = forward;
        break;
      case PipelinePass::Backward:
      case PipelinePass::InputGrad:
        step.seconds = backward;
        break;
      case PipelinePass::WeightGrad:
        step.seconds = weightGrad;
        break;
      default:
        break;
      }
    }
  return graph;
}

/// `seconds`, a time of a test graph, in picoseconds.
estimate::Picoseconds ps(double seconds) {
  return estimate::picosecondsOf(seconds).value_or(-1);
}

/// The iteration time of `graph` in seconds (exact: the tests' times are
/// multiples of 2^-2 s).
/// The step times of `graph` rounded to picoseconds by roundStepTimes, as
/// the timing reads them.
StepDurations roundedTimesOf(const RunGraph &graph, const TimingPlan &plan) {
  std::vector<double> seconds, transfers, ready;
  for (const std::vector<GraphStep> &steps : graph.stages)
    for (const GraphStep &step : steps) {
      seconds.push_back(step.seconds);
      transfers.push_back(step.transferSeconds);
      ready.push_back(step.readySeconds);
    }
  StepDurations times;
  if (llvm::Error error = roundStepTimes(
          plan, seconds, transfers, ready,
          [](uint32_t id) { return "step #" + std::to_string(id); }, times))
    ADD_FAILURE() << llvm::toString(std::move(error));
  return times;
}

double iterationOf(const RunGraph &graph) {
  return estimate::secondsOf(
      valueOrFail(longestPath(graph)).iterationPicoseconds);
}

TEST(CriticalPath, UniformStagesGiveTheSchedulesClosedForms) {
  for (int64_t pp : {2, 4})
    for (int64_t m : {4, 8}) {
      std::string where =
          "pp=" + std::to_string(pp) + " m=" + std::to_string(m);
      double p = static_cast<double>(pp), mb = static_cast<double>(m);
      // GPipe: all forwards then all backwards; each message crosses once
      // on the path per boundary and direction.
      RunGraph gpipe = graphOf(smallRun(PipelineSchedule::GPipe, pp, m));
      EXPECT_EQ(iterationOf(withUnitTimes(gpipe, 1, 2, 0, 0)), (mb + p - 1) * 3)
          << where;
      EXPECT_EQ(iterationOf(withUnitTimes(gpipe, 1, 2, 0, 0.25)),
                (mb + p - 1) * 3 + 2 * (p - 1) * 0.25)
          << where;
      RunGraph oneFOneB = graphOf(smallRun(PipelineSchedule::OneFOneB, pp, m));
      EXPECT_EQ(iterationOf(withUnitTimes(oneFOneB, 1, 2, 0, 0)),
                (mb + p - 1) * 3)
          << where;
      // Interleaved: v = 2 chunks per stage, chunk passes f = 1, b = 2.
      RunGraph interleaved =
          graphOf(smallRun(PipelineSchedule::Interleaved1F1B, pp, m));
      EXPECT_EQ(iterationOf(withUnitTimes(interleaved, 1, 2, 0, 0)),
                (mb * 2 + p - 1) * 3)
          << where;
      // ZB-H1: m (F + B + W) + (pp - 1)(F + B - W) (Qi et al. 2023 Sec.
      // 3.1); a free W leaves 1F1B with backward B.
      RunGraph zeroBubble =
          graphOf(smallRun(PipelineSchedule::ZeroBubbleH1, pp, m));
      for (auto [f, b, w] :
           {std::tuple{1.0, 1.0, 1.0}, std::tuple{1.0, 2.0, 1.0},
            std::tuple{1.0, 1.0, 0.5}, std::tuple{1.0, 2.0, 0.0}})
        EXPECT_EQ(iterationOf(withUnitTimes(zeroBubble, f, b, w, 0)),
                  mb * (f + b + w) + (p - 1) * (f + b - w))
            << where << " F=" << f << " B=" << b << " W=" << w;
    }
}

TEST(CriticalPath, PathIsContiguousAndStagesAddUp) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    for (std::vector<int64_t> layout :
         {std::vector<int64_t>{}, std::vector<int64_t>{3, 1, 1, 3}})
      for (bool overlapReduce : {false, true}) {
        RunSpecs run = smallRun(
            schedule, schedule == PipelineSchedule::Interleaved1F1B ? 2 : 4, 8);
        run.mapping.pipelineLayout = layout;
        run.mapping.zeroStage = 1;
        // With the reductions beside the backward (one bucket per gradient
        // unit), a reduction's exposed part starts where the compute before
        // it ends, so the bubble stays exact and not negative; in interleaved
        // 1F1B a later chunk's backward follows a reduction in step order.
        run.mapping.overlapDPGradReduce = overlapReduce;
        if (overlapReduce)
          run.mapping.bucketBytes = 1;
        RunGraph graph = graphOf(run);
        CriticalPathReport report = valueOrFail(longestPath(graph));
        std::string where = stringifyEnum(schedule).str() +
                            (layout.empty() ? " uniform" : " uneven") +
                            (overlapReduce ? " dp overlap" : "");
        ASSERT_FALSE(report.path.empty()) << where;
        EXPECT_EQ(report.path.front().start, 0) << where;
        EXPECT_EQ(report.path.back().end, report.iterationPicoseconds) << where;
        for (size_t i = 1; i < report.path.size(); ++i)
          EXPECT_EQ(report.path[i].start, report.path[i - 1].end) << where;
        // Exact in integer time, whatever the order of the sums.
        EXPECT_EQ(report.exposedCommunicationPicoseconds +
                      report.pathComputePicoseconds,
                  report.iterationPicoseconds)
            << where;
        EXPECT_GT(report.exposedCommunicationPicoseconds, 0) << where;
        // The iteration is at least every stage's busy time (its bubble is
        // not negative), and every stage's steps lie within it.
        for (auto [index, stage] : llvm::enumerate(report.stages)) {
          EXPECT_GE(stage.bubblePicoseconds, 0) << where << " stage " << index;
          EXPECT_GT(stage.computePicoseconds, 0) << where;
          for (const StepTiming &timing : report.timing[index])
            EXPECT_LE(timing.end, report.iterationPicoseconds) << where;
        }
        if (overlapReduce) {
          // The option took effect: some reduction ran beside the backward.
          estimate::Picoseconds hidden = 0;
          for (const StageTime &stage : report.stages)
            hidden += stage.hiddenDPReducePicoseconds;
          EXPECT_GT(hidden, 0) << where;
        }
      }
}

TEST(CriticalPath, UnevenLayoutsAreBoundByTheirLongestStage) {
  // Stage 0 holds 6 of 8 blocks: the iteration is longer than the even
  // layout's and at least stage 0's busy time, and stage 0 idles less than
  // stage 1.
  RunSpecs even = smallRun(PipelineSchedule::OneFOneB, 2, 8);
  RunSpecs uneven = even;
  uneven.mapping.pipelineLayout = {6, 2};
  estimate::Picoseconds evenTime =
      valueOrFail(longestPath(graphOf(even))).iterationPicoseconds;
  CriticalPathReport report = valueOrFail(longestPath(graphOf(uneven)));
  EXPECT_GT(report.iterationPicoseconds, evenTime);
  EXPECT_GE(report.iterationPicoseconds,
            report.stages[0].computePicoseconds +
                report.stages[0].collectivePicoseconds);
  EXPECT_LT(report.stages[0].bubblePicoseconds,
            report.stages[1].bubblePicoseconds);
}

/// A collective over the pp axis joins its stages: each starts when the
/// last of them is ready. Stage 0 reaches its tied-embedding all-reduce at
/// 1, stage 1 at 5; both run it from 5 to 7, and stage 0's step after it
/// ends at 8, on a path through stage 1.
TEST(CriticalPath, CollectivesOverThePipelineAxisMeet) {
  auto step = [](double seconds, std::vector<size_t> deps) {
    GraphStep result;
    result.kind = StepKind::Compute;
    result.label = "work";
    result.seconds = seconds;
    result.deps.assign(deps.begin(), deps.end());
    return result;
  };
  GraphStep sync =
      workStep("embedding_grad_sync", /*collective=*/true, "pp", {0, 1}, 2,
               Cadence::PerIteration, Phase::WeightGrad, 2);
  ASSERT_EQ(sync.rendezvous, (std::vector<int64_t>{0, 1}));
  RunGraph graph;
  graph.stages = {{step(1, {}), sync, step(1, {1})},
                  {step(5, {}), sync, step(0.5, {1})}};
  graph.stages[0][1].deps = {0};
  graph.stages[1][1].deps = {0};
  CriticalPathReport report = valueOrFail(longestPath(graph));
  EXPECT_EQ(report.timing[0][1].start, ps(5));
  EXPECT_EQ(report.timing[1][1].start, ps(5));
  EXPECT_EQ(report.timing[0][1].end, ps(7));
  EXPECT_EQ(report.iterationPicoseconds, ps(8));
  ASSERT_EQ(report.path.size(), 3u);
  EXPECT_EQ(report.path[0].stage, 1);
  EXPECT_EQ(report.path[1].stage, 0);
  EXPECT_EQ(report.exposedCommunicationPicoseconds, ps(2));
  // A data-parallel collective stays within its stage.
  EXPECT_TRUE(workStep("dp_grad_allreduce", true, "dp", {}, 2,
                       Cadence::PerIteration, Phase::WeightGrad, 1)
                  .rendezvous.empty());

  // In a derived run with an uneven layout, the first and the last stage
  // start their tied-embedding all-reduce together.
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  run.mapping.pipelineLayout = {1, 7};
  RunGraph derived = graphOf(run);
  CriticalPathReport timed = valueOrFail(longestPath(derived));
  std::vector<estimate::Picoseconds> starts;
  for (size_t stage = 0; stage < derived.stages.size(); ++stage)
    for (size_t index = 0; index < derived.stages[stage].size(); ++index)
      if (llvm::StringRef(derived.stages[stage][index].label)
              .starts_with("embedding_grad_sync"))
        starts.push_back(timed.timing[stage][index].start);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0], starts[1]);
}

TEST(CriticalPath, ReportsGraphsThatCannotFinish) {
  RunGraph graph;
  GraphStep receive;
  receive.kind = StepKind::Receive;
  receive.label = "recv a";
  receive.channel = 1;
  GraphStep send;
  send.kind = StepKind::Send;
  send.label = "send b";
  send.channel = 2;
  send.deps = {0};
  graph.stages = {{receive, send}, {receive, send}};
  graph.stages[1][0].channel = 2;
  graph.stages[1][1].channel = 1;
  llvm::Expected<CriticalPathReport> report = longestPath(graph);
  ASSERT_FALSE(report);
  EXPECT_NE(llvm::toString(report.takeError())
                .find("stage 0 step 0 (recv a) never runs"),
            std::string::npos);

  graph.stages[0][0].seconds = -1;
  graph.stages[0][0].kind = StepKind::Compute;
  report = longestPath(graph);
  ASSERT_FALSE(report);
  EXPECT_NE(llvm::toString(report.takeError()).find("negative"),
            std::string::npos);
}

} // namespace

/// Two stages: stage 0 computes, then sends to stage 1, which receives and
/// computes; compute and transfer times as given.
static RunGraph pipeOf(double first, double transfer, double second) {
  GraphStep compute;
  compute.kind = StepKind::Compute;
  compute.seconds = first;
  GraphStep send;
  send.kind = StepKind::Send;
  send.channel = 7;
  send.deps = {0};
  send.transferSeconds = transfer;
  GraphStep receive;
  receive.kind = StepKind::Receive;
  receive.channel = 7;
  GraphStep after = compute;
  after.seconds = second;
  after.deps = {0};
  RunGraph graph;
  graph.stages = {{compute, send}, {receive, after}};
  return graph;
}

/// Stage 0's first two steps in the held-send tests: compute A (1 s) and
/// the send of its activation to stage 1 (a 2 s transfer), chained to A.
static std::pair<GraphStep, GraphStep> computeAndSend(bool overlapped) {
  GraphStep computeA;
  computeA.kind = StepKind::Compute;
  computeA.seconds = 1;
  GraphStep send =
      messageStep(true, PipelineMessage::Activation, 0, 0, 1, 1, 2, overlapped);
  send.deps = {0};
  return {computeA, send};
}

// overlap_p2p_comm (docs/Estimate.md, "Overlap"), on two stages built with
// messageStep (the one implementation the IR path and the search call).
// Stage 0 computes A (1 s), sends its activation (a 2 s transfer) and
// computes C (4 s); stage 1 receives it and computes D (3 s).
// Not overlapped (the default, Megatron-LM's blocking p2p) the send holds
// stage 0 over [1, 3]: C runs [3, 7]; the message arrives at the send's end,
// 3, and D runs [3, 6]. The iteration is 7, along A, the send (2 s exposed
// on stage 0's own path) and C: compute 1 + 4 = 5, communication 2; stage
// 0's collective time is its send's 2 s, its bubble none.
// Overlapped the send costs stage 0 nothing: C runs [1, 5]; the message
// still arrives at 1 + 2 = 3, D runs [3, 6], which ends last: 6, along A,
// the transfer (2 s) and D: compute 1 + 3 = 4. Stage 0 is idle [5, 6]: its
// bubble is 1 s and its collective time none.
TEST(CriticalPath, BlockingSendsHoldTheirStageForTheTransfer) {
  auto graphOf = [](bool overlapped) {
    auto [computeA, send] = computeAndSend(overlapped);
    // As in a derived program, C is chained to A: a send gates nothing
    // (docs/WholeRun.md); the timing plan makes C wait for the send.
    GraphStep computeC = computeA;
    computeC.seconds = 4;
    computeC.deps = {0};
    GraphStep receive = messageStep(false, PipelineMessage::Activation, 0, 0, 0,
                                    1, 0, overlapped);
    GraphStep computeD = computeA;
    computeD.seconds = 3;
    computeD.deps = {0};
    RunGraph graph;
    graph.stages = {{computeA, send, computeC}, {receive, computeD}};
    return graph;
  };
  // messageTimes: the send's stage time is its transfer unless overlapped;
  // the transfer is the same; a receive costs nothing either way.
  EXPECT_EQ(messageTimes(true, 2, false).seconds, 2);
  EXPECT_EQ(messageTimes(true, 2, true).seconds, 0);
  EXPECT_EQ(messageTimes(true, 2, true).transferSeconds, 2);
  EXPECT_EQ(messageTimes(false, 2, false).seconds, 0);
  EXPECT_EQ(messageTimes(false, 2, false).transferSeconds, 0);

  CriticalPathReport blocking = valueOrFail(longestPath(graphOf(false)));
  EXPECT_EQ(blocking.timing[0][1].start, ps(1));
  EXPECT_EQ(blocking.timing[0][1].end, ps(3));
  EXPECT_EQ(blocking.timing[0][2].start, ps(3));
  EXPECT_EQ(blocking.timing[1][0].end, ps(3));
  EXPECT_EQ(blocking.timing[1][1].end, ps(6));
  EXPECT_EQ(blocking.iterationPicoseconds, ps(7));
  EXPECT_EQ(blocking.exposedCommunicationPicoseconds, ps(2));
  EXPECT_EQ(blocking.pathComputePicoseconds, ps(5));
  EXPECT_EQ(blocking.stages[0].collectivePicoseconds, ps(2));
  EXPECT_EQ(blocking.stages[0].computePicoseconds, ps(5));
  EXPECT_EQ(blocking.stages[0].bubblePicoseconds, 0);

  CriticalPathReport overlapped = valueOrFail(longestPath(graphOf(true)));
  EXPECT_EQ(overlapped.timing[0][1].end, ps(1));
  EXPECT_EQ(overlapped.timing[0][2].start, ps(1));
  EXPECT_EQ(overlapped.timing[1][0].end, ps(3));
  EXPECT_EQ(overlapped.timing[1][1].end, ps(6));
  EXPECT_EQ(overlapped.iterationPicoseconds, ps(6));
  EXPECT_EQ(overlapped.exposedCommunicationPicoseconds, ps(2));
  EXPECT_EQ(overlapped.pathComputePicoseconds, ps(4));
  EXPECT_EQ(overlapped.stages[0].collectivePicoseconds, 0);
  EXPECT_EQ(overlapped.stages[0].bubblePicoseconds, ps(1));
}

// The held step after a stage's last blocking send (timingPlanOf) and the
// reductions beside it (GraphStep::besideBackward), on two stages built by
// hand. Stage 0 computes A (1 s), sends its activation (a 2 s transfer),
// then reduces R (r s, chained to A) and R2 (0.25 s, after R), both beside
// the backward, and computes S (2 s, chained to A and R2). Stage 1
// receives the message and computes D (1 s). The first later step chained
// to what the send follows (A) and not beside is S: R and R2 are skipped
// and the hold carries over them to S.
//   Blocking, r = 1.5: A [0, 1], the send [1, 3], R [1, 2.5] beside it
//   (not held), R2 [2.5, 2.75], S held to the send's end: [3, 5]. The
//   message arrives at 1 + 2 = 3: D [3, 4]. The iteration is 5, along A,
//   the send and S. Accounting (busyEnd): R runs before the send ends,
//   min(2.5, 3) - 1 = 1.5 hidden, R2 min(2.75, 3) - 2.5 = 0.25 hidden;
//   compute 1 + 2 = 3, collective the send's 2, bubble 5 - 5 = 0; both
//   reductions come before S on the path: 1.75 hidden on it.
//   Blocking, r = 3: R [1, 4] outlasts the send: min(4, 3) - 1 = 2 of it is
//   hidden, 1 exposed; R2 [4, 4.25] after the send, none hidden; S waits
//   for R2: [4.25, 6.25]. Compute 3, collective 2 + 1 + 0.25 = 3.25,
//   bubble 6.25 - 6.25 = 0.
//   R not beside (besideBackward cleared), r = 1.5: R is the held step,
//   [3, 4.5]; R2 [4.5, 4.75], after the send, hides nothing; S [4.75,
//   6.75]. Compute 3, collective 2 + 1.5 + 0.25 = 3.75, bubble 0.
//   Overlapped, r = 1.5: the send lasts nothing, [1, 1]; R [1, 2.5], R2
//   [2.5, 2.75], S [2.75, 4.75]; the message still arrives at 3, D [3, 4].
//   The iteration is 4.75. busyEnd stays at A's end, 1: nothing is
//   hidden; compute 3, collective 1.5 + 0.25 = 1.75, bubble 0.
TEST(CriticalPath, ABlockingSendHoldsTheStepAfterTheReductionsBesideIt) {
  auto graphOf = [](bool overlapped, double reduction, bool beside) {
    auto [computeA, send] = computeAndSend(overlapped);
    GraphStep reduce;
    reduce.kind = StepKind::Collective;
    reduce.seconds = reduction;
    reduce.besideBackward = beside;
    reduce.deps = {0};
    GraphStep reduce2 = reduce;
    reduce2.seconds = 0.25;
    reduce2.besideBackward = true;
    reduce2.deps = {2};
    GraphStep computeS = computeA;
    computeS.seconds = 2;
    computeS.deps = {0, 3};
    GraphStep receive = messageStep(false, PipelineMessage::Activation, 0, 0, 0,
                                    1, 0, overlapped);
    GraphStep computeD = computeA;
    computeD.deps = {0};
    RunGraph graph;
    graph.stages = {{computeA, send, reduce, reduce2, computeS},
                    {receive, computeD}};
    return graph;
  };
  // Each timing, in seconds: stage 0's step starts, the send's end, the
  // iteration, and stage 0's hidden reduction, compute, collective and
  // bubble times.
  struct Expected {
    bool overlapped;
    double reduction;
    bool beside;
    std::vector<double> starts;
    double sendEnd, iteration, hidden, compute, collective, bubble;
  };
  const Expected timings[] = {
      {false, 1.5, true, {0, 1, 1, 2.5, 3}, 3, 5, 1.75, 3, 2, 0},
      {false, 3, true, {0, 1, 1, 4, 4.25}, 3, 6.25, 2, 3, 3.25, 0},
      {false, 1.5, false, {0, 1, 3, 4.5, 4.75}, 3, 6.75, 0, 3, 3.75, 0},
      {true, 1.5, true, {0, 1, 1, 2.5, 2.75}, 1, 4.75, 0, 3, 1.75, 0},
  };
  for (const Expected &expected : timings) {
    std::string where =
        std::string(expected.overlapped ? "overlapped" : "blocking") + ", R " +
        std::to_string(expected.reduction) +
        (expected.beside ? " beside" : " not beside");
    CriticalPathReport report = valueOrFail(longestPath(
        graphOf(expected.overlapped, expected.reduction, expected.beside)));
    std::vector<estimate::Picoseconds> starts, wanted;
    for (const StepTiming &timing : report.timing[0])
      starts.push_back(timing.start);
    for (double start : expected.starts)
      wanted.push_back(ps(start));
    EXPECT_EQ(starts, wanted) << where;
    EXPECT_EQ(report.timing[0][1].end, ps(expected.sendEnd)) << where;
    // The message arrives at 1 + 2 = 3 either way: D runs [3, 4].
    EXPECT_EQ(report.timing[1][1].end, ps(4)) << where;
    EXPECT_EQ(report.iterationPicoseconds, ps(expected.iteration)) << where;
    const StageTime &stage = report.stages[0];
    EXPECT_EQ(stage.hiddenDPReducePicoseconds, ps(expected.hidden)) << where;
    EXPECT_EQ(stage.computePicoseconds, ps(expected.compute)) << where;
    EXPECT_EQ(stage.collectivePicoseconds, ps(expected.collective)) << where;
    EXPECT_EQ(stage.bubblePicoseconds, ps(expected.bubble)) << where;
  }
  // The path of the first ends along the send and S: both reductions come
  // before S on it.
  EXPECT_EQ(valueOrFail(longestPath(graphOf(false, 1.5, true)))
                .pathHiddenDPReducePicoseconds,
            ps(1.75));
}

TEST(CriticalPath, OnePlanTimesEveryGraphOfItsShape) {
  llvm::Expected<TimingPlan> plan = timingPlanOf(pipeOf(1, 2, 3));
  ASSERT_TRUE(static_cast<bool>(plan));
  // Another graph of the shape, with other times.
  RunGraph other = pipeOf(0.5, 0.25, 4);
  llvm::Expected<CriticalPathReport> expected = longestPath(other);
  ASSERT_TRUE(static_cast<bool>(expected));
  PlanTiming timed;
  std::vector<double> seconds = {0.5, 0, 0, 4};
  std::vector<double> transfers = {0, 0.25, 0, 0};
  std::vector<double> ready(4, 0);
  auto describe = [](uint32_t id) { return "step #" + std::to_string(id); };
  StepDurations times;
  ASSERT_FALSE(static_cast<bool>(
      roundStepTimes(*plan, seconds, transfers, ready, describe, times)));
  EXPECT_EQ(times.durations,
            (std::vector<estimate::Picoseconds>{ps(0.5), 0, 0, ps(4)}));
  ASSERT_FALSE(static_cast<bool>(timeSteps(*plan, times, describe, timed)));
  EXPECT_EQ(timed.iterationPicoseconds, expected->iterationPicoseconds);
  EXPECT_EQ(timed.iterationPicoseconds, ps(4.75));
  EXPECT_EQ(timed.exposedCommunicationPicoseconds,
            expected->exposedCommunicationPicoseconds);
  EXPECT_EQ(timed.exposedCommunicationPicoseconds, ps(0.25));
  // The path runs back from stage 1's compute through the transfer.
  ASSERT_EQ(timed.reversedPath.size(), 5u);
  EXPECT_TRUE(timed.reversedPath[2].transfer);

  // An infinite transfer is named by the caller's description.
  transfers[1] = std::numeric_limits<double>::infinity();
  llvm::Error error =
      roundStepTimes(*plan, seconds, transfers, ready, describe, times);
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_NE(llvm::toString(std::move(error))
                .find("step #1 has a negative or non-finite time"),
            std::string::npos);

  // Of two bad steps roundStepTimes names the first in timing order, not the
  // lower-numbered. Stages swapped: stage 0 (steps 0, 1) waits for stage
  // 1's send (steps 2, 3), so the timing order is 2, 3, 0, 1; steps 0 and
  // 2 are negative.
  RunGraph swapped = pipeOf(1, 2, 3);
  std::swap(swapped.stages[0], swapped.stages[1]);
  llvm::Expected<TimingPlan> swappedPlan = timingPlanOf(swapped);
  ASSERT_TRUE(static_cast<bool>(swappedPlan));
  std::vector<double> negative = {-1, 3, -1, 0};
  std::vector<double> none = {0, 0, 0, 2};
  llvm::Error first =
      roundStepTimes(*swappedPlan, negative, none, ready, describe, times);
  ASSERT_TRUE(static_cast<bool>(first));
  EXPECT_NE(llvm::toString(std::move(first))
                .find("step #2 has a negative or non-finite time"),
            std::string::npos);
}

/// timeSteps from a position of the timing order equals timing every step,
/// on every schedule and option: the steps before it keep their timing,
/// those from it on (from a meeting's first member when the position falls
/// inside a collective of several stages) are timed again.
TEST(CriticalPath, TimingFromAPositionEqualsTimingEveryStep) {
  struct Case {
    std::string name;
    RunSpecs run;
  };
  std::vector<Case> cases;
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    cases.push_back(
        {stringifyEnum(schedule).str(),
         smallRun(schedule,
                  schedule == PipelineSchedule::Interleaved1F1B ? 2 : 4, 8)});
  RunSpecs dpOverlap = smallRun(PipelineSchedule::Interleaved1F1B, 2, 8);
  dpOverlap.mapping.overlapDPGradReduce = true;
  dpOverlap.mapping.bucketBytes = 1;
  cases.push_back({"interleaved dp overlap", dpOverlap});
  RunSpecs tpOverlap = smallRun(PipelineSchedule::OneFOneB, 4, 8);
  tpOverlap.mapping.overlapTPComm = true;
  cases.push_back({"tp overlap", tpOverlap});
  RunSpecs contextParallel = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  contextParallel.mapping.cp = 2;
  contextParallel.mapping.dp = 1;
  cases.push_back({"cp 2", contextParallel});
  RunSpecs oneFOneBOverlap = smallRun(PipelineSchedule::OneFOneB, 4, 8);
  oneFOneBOverlap.mapping.overlapDPGradReduce = true;
  oneFOneBOverlap.mapping.bucketBytes = 1;
  cases.push_back({"1f1b dp overlap", oneFOneBOverlap});
  RunSpecs zeroThree = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  zeroThree.mapping.zeroStage = 3;
  cases.push_back({"zero 3", zeroThree});
  // ep 2: the dispatcher's all-to-alls over ep, the expert gradients over
  // edp (dp 2 = edp 1 x ep 2).
  cases.push_back(
      {"ep 2", withExperts(smallRun(PipelineSchedule::OneFOneB, 2, 4),
                           /*ep=*/2)});
  auto describe = [](uint32_t id) { return "step #" + std::to_string(id); };
  auto expectSame = [](const PlanTiming &got, const PlanTiming &want,
                       const std::string &where) {
    ASSERT_EQ(got.timing.size(), want.timing.size()) << where;
    for (size_t id = 0; id < want.timing.size(); ++id) {
      EXPECT_EQ(got.timing[id].start, want.timing[id].start) << where << id;
      EXPECT_EQ(got.timing[id].end, want.timing[id].end) << where << id;
    }
    EXPECT_EQ(got.predecessor, want.predecessor) << where;
    EXPECT_EQ(got.transferred, want.transferred) << where;
    EXPECT_EQ(got.readied, want.readied) << where;
    ASSERT_EQ(got.reversedPath.size(), want.reversedPath.size()) << where;
    for (size_t i = 0; i < want.reversedPath.size(); ++i) {
      EXPECT_EQ(got.reversedPath[i].stage, want.reversedPath[i].stage);
      EXPECT_EQ(got.reversedPath[i].step, want.reversedPath[i].step);
      EXPECT_EQ(got.reversedPath[i].start, want.reversedPath[i].start);
      EXPECT_EQ(got.reversedPath[i].end, want.reversedPath[i].end);
    }
    EXPECT_EQ(got.iterationPicoseconds, want.iterationPicoseconds) << where;
    EXPECT_EQ(got.exposedCommunicationPicoseconds,
              want.exposedCommunicationPicoseconds)
        << where;
    EXPECT_EQ(got.pathComputePicoseconds, want.pathComputePicoseconds) << where;
  };
  // Positions that fell inside a meeting, over every case.
  size_t movedToAMeeting = 0;
  estimate::NetworkTierBinding withContext = binding();
  withContext.tierOfAxis["cp"] = "nvlink";
  withContext.tierOfAxis["ep"] = "nvlink";
  withContext.tierOfAxis["edp"] = "infiniband";
  for (const Case &c : cases) {
    RunGraph graph = graphOf(c.run, withContext);
    TimingPlan plan = valueOrFail(timingPlanOf(graph));
    size_t total = plan.steps();
    StepDurations times = roundedTimesOf(graph, plan);
    PlanTiming first;
    ASSERT_FALSE(static_cast<bool>(timeSteps(plan, times, describe, first)));
    // `changed` timed at every step, and from `from` on after `first`.
    auto timeBoth = [&](const StepDurations &changed, size_t from,
                        PlanTiming &everyStep, PlanTiming &resumed) {
      resumed = first;
      auto succeeded = [](llvm::Error error) {
        if (!error)
          return true;
        ADD_FAILURE() << llvm::toString(std::move(error));
        return false;
      };
      return succeeded(timeSteps(plan, changed, describe, everyStep)) &&
             succeeded(timeSteps(plan, changed, describe, resumed, from));
    };
    // Positions: the ends, the middle, and each meeting's last member (a
    // position inside a collective of several stages: every pp > 1 case
    // has the tied embedding's all-reduce between the first and the last
    // stage).
    std::vector<size_t> positions = {0,         1,         total / 3,
                                     total / 2, total - 1, total};
    for (const std::vector<uint32_t> &members : plan.meetings)
      positions.push_back(plan.position[members.back()]);
    EXPECT_EQ(plan.meetings.empty(), c.run.mapping.pp == 1) << c.name;
    for (size_t from : positions) {
      std::string where = c.name + " from " + std::to_string(from) + ": ";
      // Every step from `from` on 1 ns longer, every send's transfer, and
      // every ready point inside an earlier instance 1 ns later.
      StepDurations changed = times;
      for (size_t at = from; at < total; ++at) {
        changed.durations[plan.order[at]] += 1000;
        changed.transfers[plan.order[at]] += 1000;
        changed.ready[plan.order[at]] += 1000;
      }
      PlanTiming everyStep, resumed;
      ASSERT_TRUE(timeBoth(changed, from, everyStep, resumed)) << where;
      expectSame(resumed, everyStep, where);
      // It timed from `from`, or from the first member of the meeting
      // `from` falls inside.
      size_t expectedFrom = from;
      for (const std::vector<uint32_t> &members : plan.meetings)
        if (plan.position[members.front()] < from &&
            from <= plan.position[members.back()])
          expectedFrom = plan.position[members.front()];
      EXPECT_EQ(resumed.timedFrom, expectedFrom) << where;
      movedToAMeeting += expectedFrom != from;
      if (from < total) {
        EXPECT_NE(everyStep.timing[plan.order[total - 1]].end,
                  first.timing[plan.order[total - 1]].end)
            << where;
      }
    }
    // One member of each meeting alone 1 ns longer, timed from its
    // position: the meeting is timed again from its first member.
    for (const std::vector<uint32_t> &members : plan.meetings) {
      uint32_t member = members[members.size() / 2];
      size_t from = plan.position[member];
      StepDurations changed = times;
      changed.durations[member] += 1000;
      std::string where =
          c.name + " meeting member at " + std::to_string(from) + ": ";
      PlanTiming everyStep, resumed;
      ASSERT_TRUE(timeBoth(changed, from, everyStep, resumed)) << where;
      expectSame(resumed, everyStep, where);
      EXPECT_LE(resumed.timedFrom, from) << c.name;
    }
    // The steps before `from` are not timed again: a change there (which
    // breaks the caller's guarantee) leaves their timing as it was.
    size_t from = total / 2;
    bool insideAMeeting = false;
    for (const std::vector<uint32_t> &members : plan.meetings)
      insideAMeeting |= plan.position[members.front()] < from &&
                        from <= plan.position[members.back()];
    ASSERT_FALSE(insideAMeeting) << c.name;
    StepDurations broken = times;
    uint32_t before = plan.order[from - 1];
    broken.durations[before] += 1000;
    PlanTiming resumed = first;
    ASSERT_FALSE(
        static_cast<bool>(timeSteps(plan, broken, describe, resumed, from)));
    EXPECT_EQ(resumed.timedFrom, from) << c.name;
    EXPECT_EQ(resumed.timing[before].end, first.timing[before].end) << c.name;
    PlanTiming everyStep;
    ASSERT_FALSE(
        static_cast<bool>(timeSteps(plan, broken, describe, everyStep)));
    EXPECT_EQ(everyStep.timing[before].end, first.timing[before].end + 1000)
        << c.name;
  }
  EXPECT_GT(movedToAMeeting, 0u);
}

TEST(CriticalPath, AnyChannelNumberPairsASendWithItsReceive) {
  // timingPlanOf looks small non-negative channels (messageChannel's) up by
  // index and every other int64_t by hash: both pair the same way. By hand:
  // the compute ends at 1, its message arrives at 1 + 2 = 3, the receiving
  // stage's compute of 3 ends at 6.
  for (int64_t channel : {int64_t(7), int64_t(-1), int64_t(1) << 40,
                          std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()}) {
    RunGraph graph = pipeOf(1, 2, 3);
    graph.stages[0][1].channel = channel;
    graph.stages[1][0].channel = channel;
    llvm::Expected<CriticalPathReport> report = longestPath(graph);
    ASSERT_TRUE(static_cast<bool>(report)) << channel;
    EXPECT_EQ(report->iterationPicoseconds, ps(6)) << channel;
    EXPECT_EQ(report->exposedCommunicationPicoseconds, ps(2)) << channel;

    // A second send on the channel is refused, a receive on another
    // channel never runs.
    RunGraph twice = graph;
    twice.stages[0].push_back(twice.stages[0][1]);
    llvm::Expected<TimingPlan> refused = timingPlanOf(twice);
    ASSERT_FALSE(static_cast<bool>(refused)) << channel;
    EXPECT_NE(llvm::toString(refused.takeError()).find("already sent"),
              std::string::npos);
    RunGraph stray = graph;
    stray.stages[1][0].channel = channel == 7 ? int64_t(-7) : int64_t(8);
    llvm::Expected<TimingPlan> stuck = timingPlanOf(stray);
    ASSERT_FALSE(static_cast<bool>(stuck)) << channel;
    EXPECT_NE(llvm::toString(stuck.takeError()).find("never runs"),
              std::string::npos);
  }
}

TEST(CriticalPath, MalformedGraphsHaveNoPlan) {
  auto planError = [](const RunGraph &graph) {
    llvm::Expected<TimingPlan> plan = timingPlanOf(graph);
    return plan ? std::string() : llvm::toString(plan.takeError());
  };
  RunGraph forward = pipeOf(1, 1, 1);
  forward.stages[0][0].deps = {1};
  EXPECT_NE(planError(forward).find("does not precede it"), std::string::npos);

  RunGraph twice = pipeOf(1, 1, 1);
  twice.stages[0].push_back(twice.stages[0][1]);
  EXPECT_NE(planError(twice).find("already sent"), std::string::npos);

  RunGraph unnamed = pipeOf(1, 1, 1);
  unnamed.stages[0][1].channel.reset();
  EXPECT_NE(planError(unnamed).find("names no message"), std::string::npos);

  RunGraph stranger = pipeOf(1, 1, 1);
  stranger.stages[0][0].kind = StepKind::Collective;
  stranger.stages[0][0].rendezvous = {1};
  EXPECT_NE(planError(stranger).find("do not include its own"),
            std::string::npos);

  // Stages 0 and 1 hold a collective of the two of them; stage 2 then
  // joins the same collective (its label's first occurrence).
  GraphStep sync;
  sync.kind = StepKind::Collective;
  sync.label = "sync over pp";
  sync.rendezvous = {0, 1};
  GraphStep late = sync;
  late.rendezvous = {0, 1, 2};
  RunGraph overfull;
  overfull.stages = {{sync}, {sync}, {late}};
  EXPECT_NE(planError(overfull).find(
                "stage 2 step 0 (sync over pp) joins a collective its stages "
                "already held"),
            std::string::npos);
}

// The step that finishes last is the first in step order among equal ends,
// however the steps were timed (timeSteps finds it while timing: kept steps,
// a meeting's members, each timed step), and the path's segments name the
// stages their steps are in, across an empty stage and back to an earlier
// one.
TEST(CriticalPath, TiesGoToTheFirstStepHoweverTheStepsWereTimed) {
  auto describe = [](uint32_t id) { return "step #" + std::to_string(id); };
  auto timed = [&](const RunGraph &graph, const TimingPlan &plan, size_t from,
                   const PlanTiming &before) {
    StepDurations times = roundedTimesOf(graph, plan);
    PlanTiming result = before;
    EXPECT_FALSE(
        static_cast<bool>(timeSteps(plan, times, describe, result, from)));
    return result;
  };
  GraphStep compute;
  compute.kind = StepKind::Compute;
  compute.seconds = 1;

  // Two stages of one 1 s step each, timed in step order #0, #1: both end
  // at 1 s and the last is #0, on stage 0, timed from 0 or with #0 kept and
  // #1 timed again.
  RunGraph apart;
  apart.stages = {{compute}, {compute}};
  TimingPlan apartPlan = valueOrFail(timingPlanOf(apart));
  ASSERT_EQ(apartPlan.order, (std::vector<uint32_t>{0, 1}));
  PlanTiming apartFirst = timed(apart, apartPlan, 0, PlanTiming());
  for (size_t from : {size_t(0), size_t(1)}) {
    PlanTiming again = timed(apart, apartPlan, from, apartFirst);
    EXPECT_EQ(again.iterationPicoseconds, ps(1)) << from;
    ASSERT_EQ(again.reversedPath.size(), 1u) << from;
    EXPECT_EQ(again.reversedPath[0].stage, 0) << from;
    EXPECT_EQ(again.reversedPath[0].step, 0u) << from;
  }

  // Stage 0 receives R (#0) and computes A (#1); stage 1 is empty; stage 2
  // computes B (#2), sends S (#3, blocking, a 1 s transfer) and computes C
  // (#4), chained to B, so held by S. Stage 0 waits for S: the timing
  // order is B, S, C, R, A. B runs [0, 1], S [1, 2], C [2, 3]; the message
  // arrives at 2, R ends at 2, A runs [2, 3]. A and C both end at 3: the
  // last step is A (#1, before C's #4), also when C is kept and A timed
  // again (from R's position, 3), and its path runs from stage 2 back to
  // stage 0: B, S (the message arrives as the blocking send ends, so the
  // send's own step, not a transfer segment, carries it), R, A.
  GraphStep send = messageStep(true, PipelineMessage::Activation, 0, 0, 0, 1, 1,
                               /*overlapped=*/false);
  send.deps = {0};
  GraphStep receive = messageStep(false, PipelineMessage::Activation, 0, 0, 2,
                                  1, 0, /*overlapped=*/false);
  GraphStep afterReceive = compute;
  afterReceive.deps = {0};
  GraphStep afterSend = compute;
  afterSend.deps = {0};
  RunGraph across;
  across.stages = {{receive, afterReceive}, {}, {compute, send, afterSend}};
  TimingPlan acrossPlan = valueOrFail(timingPlanOf(across));
  ASSERT_EQ(acrossPlan.order, (std::vector<uint32_t>{2, 3, 4, 0, 1}));
  PlanTiming acrossFirst = timed(across, acrossPlan, 0, PlanTiming());
  for (size_t from : {size_t(0), size_t(3), size_t(4)}) {
    PlanTiming again = timed(across, acrossPlan, from, acrossFirst);
    EXPECT_EQ(again.timing[4].end, ps(3)) << from;
    EXPECT_EQ(again.timing[1].end, ps(3)) << from;
    EXPECT_EQ(again.iterationPicoseconds, ps(3)) << from;
    std::vector<std::tuple<int64_t, size_t, bool>> path;
    for (const PathSegment &segment : llvm::reverse(again.reversedPath))
      path.emplace_back(segment.stage, segment.step, segment.transfer);
    EXPECT_EQ(path,
              (std::vector<std::tuple<int64_t, size_t, bool>>{
                  {2, 0, false}, {2, 1, false}, {0, 0, false}, {0, 1, false}}))
        << from;
  }
}

//===----------------------------------------------------------------------===//
// overlap_tp_comm (docs/Estimate.md, "Overlap")
//===----------------------------------------------------------------------===//

namespace {

estimate::EstimateTask matmulTask(llvm::StringRef primitive, Phase phase,
                                  int64_t ops = 0) {
  estimate::EstimateTask task;
  task.primitive = primitive.str();
  task.phase = phase;
  task.engine = Engine::Matmul;
  task.ops = ops;
  return task;
}

estimate::EstimateTask collectiveTask(llvm::StringRef primitive, Phase phase,
                                      CollectiveKind kind,
                                      llvm::StringRef axis = "tp",
                                      int64_t messageBytes = 0) {
  estimate::EstimateTask task;
  task.primitive = primitive.str();
  task.phase = phase;
  task.engine = Engine::Collective;
  CollectiveFacts facts;
  facts.kind = kind;
  facts.reduction = kind == CollectiveKind::AllGather ? ReductionKind::None
                                                      : ReductionKind::Sum;
  facts.participants = 2;
  facts.messageBytes = messageBytes;
  facts.axis = axis.str();
  task.collective = facts;
  task.meshAxis = axis.str();
  return task;
}

std::vector<std::pair<size_t, size_t>>
pairsOf(llvm::ArrayRef<estimate::EstimateTask> tasks) {
  std::vector<std::pair<size_t, size_t>> result;
  for (const OverlapPair &pair : tensorParallelOverlapPairs(tasks))
    result.push_back({pair.collective, pair.compute});
  return result;
}

/// The pairs of each block backward template of `run` as primitive names
/// (collective, compute's phase and primitive).
std::vector<std::string> blockBackwardPairs(const RunSpecs &run) {
  WholeRun whole =
      valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
  std::vector<std::string> names;
  for (const RunTemplate &runTemplate : whole.templates) {
    if (runTemplate.name != "block_backward" &&
        runTemplate.name != "head_backward")
      continue;
    std::vector<estimate::EstimateTask> tasks;
    for (const Invocation &invocation : runTemplate.work.invocations)
      tasks.push_back(estimate::makeEstimateTask(
          valueOrFail(figuresOf(invocation)), runTemplate.work.cadence,
          invocation.collective ? invocation.collective->axis : "tp"));
    for (const OverlapPair &pair : tensorParallelOverlapPairs(tasks))
      names.push_back(runTemplate.name + ": " +
                      tasks[pair.collective].primitive + " under " +
                      tasks[pair.compute].primitive + " " +
                      stringifyEnum(tasks[pair.compute].phase).str());
  }
  return names;
}

} // namespace

TEST(CriticalPath, TensorParallelOverlapPairsAreMegatronsBackwardPairs) {
  using Pairs = std::vector<std::pair<size_t, size_t>>;
  // allreduce_dgrad: the input gradient's all-reduce under the weight-
  // gradient GEMM.
  EXPECT_EQ(pairsOf({matmulTask("fc1", Phase::ActivationGrad),
                     collectiveTask("mlp_tp_f", Phase::ActivationGrad,
                                    CollectiveKind::AllReduce),
                     matmulTask("fc1", Phase::WeightGrad)}),
            (Pairs{{1, 2}}));
  // Sequence parallelism: the reduce-scatter under the weight-gradient
  // GEMM, the re-gather under the input-gradient GEMM.
  EXPECT_EQ(pairsOf({matmulTask("fc1", Phase::ActivationGrad),
                     collectiveTask("mlp_tp_f", Phase::ActivationGrad,
                                    CollectiveKind::ReduceScatter),
                     collectiveTask("fc1_wgrad_gather", Phase::Recommunication,
                                    CollectiveKind::AllGather),
                     matmulTask("fc1", Phase::WeightGrad)}),
            (Pairs{{1, 3}, {2, 0}}));
  // A GEMM hides one collective: a second reduction between the same D
  // and W stays exposed.
  EXPECT_EQ(pairsOf({matmulTask("fc1", Phase::ActivationGrad),
                     collectiveTask("mlp_tp_f", Phase::ActivationGrad,
                                    CollectiveKind::AllReduce),
                     collectiveTask("extra", Phase::ActivationGrad,
                                    CollectiveKind::AllReduce),
                     matmulTask("fc1", Phase::WeightGrad)}),
            (Pairs{{1, 3}}));
  // A collective is in one pair: in nested [D, W] ranges the inner W's
  // all-reduce is not paired again with the outer W.
  EXPECT_EQ(pairsOf({matmulTask("fc1", Phase::ActivationGrad),
                     matmulTask("qkv_proj", Phase::ActivationGrad),
                     collectiveTask("attn_tp_f", Phase::ActivationGrad,
                                    CollectiveKind::AllReduce),
                     matmulTask("qkv_proj", Phase::WeightGrad),
                     matmulTask("fc1", Phase::WeightGrad)}),
            (Pairs{{2, 3}}));
  // Not pairs: a row-parallel g's backward all-gather, a forward
  // all-reduce, a collective over another axis, a weight-gradient GEMM of
  // another linear, a collective outside [D, W].
  EXPECT_EQ(
      pairsOf({matmulTask("fc2", Phase::ActivationGrad),
               collectiveTask("mlp_tp_g", Phase::ActivationGrad,
                              CollectiveKind::AllGather),
               collectiveTask("x", Phase::Forward, CollectiveKind::AllReduce),
               collectiveTask("y", Phase::ActivationGrad,
                              CollectiveKind::AllReduce, "dp"),
               matmulTask("fc2", Phase::WeightGrad),
               collectiveTask("attn_tp_f", Phase::ActivationGrad,
                              CollectiveKind::AllReduce),
               matmulTask("qkv_proj", Phase::WeightGrad)}),
      Pairs{});

  // The derived templates: without sequence parallelism the two f
  // all-reduces of a block and the output layer's; with it, each
  // reduce-scatter and each re-gather.
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  EXPECT_EQ(blockBackwardPairs(run),
            (std::vector<std::string>{
                "block_backward: mlp_tp_f under fc1 weight_grad",
                "block_backward: attn_tp_f under qkv_proj weight_grad",
                "head_backward: lm_head_tp_f under lm_head_logits "
                "weight_grad"}));
  run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  EXPECT_EQ(
      blockBackwardPairs(run),
      (std::vector<std::string>{
          "block_backward: mlp_tp_f under fc1 weight_grad",
          "block_backward: fc1_wgrad_gather under fc1 activation_grad",
          "block_backward: attn_tp_f under qkv_proj weight_grad",
          "block_backward: qkv_wgrad_gather under qkv_proj activation_grad",
          "head_backward: lm_head_tp_f under lm_head_logits weight_grad",
          "head_backward: lm_head_wgrad_gather under lm_head_logits "
          "activation_grad"}));

  // Multi-head latent attention: Megatron-LM's up-projections
  // (linear_q_up_proj, linear_kv_up_proj; linear_q_proj without a query
  // latent) are ColumnParallelLinear, so each pairs as QKV does: its input
  // gradient's reduction under its weight-gradient GEMM, its re-gather
  // under its input-gradient GEMM. The down-projections are replicated
  // (no tp collective between their D and W).
  RunSpecs latent = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  latent.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  useLatentAttention(latent.model, {32, 32, 16, 8, 16});
  std::vector<std::string> latentPairs = {
      "block_backward: mlp_tp_f under fc1 weight_grad",
      "block_backward: fc1_wgrad_gather under fc1 activation_grad",
      "block_backward: kv_latent_tp_f under kv_b_proj weight_grad",
      "block_backward: kv_b_wgrad_gather under kv_b_proj activation_grad",
      "block_backward: q_latent_tp_f under q_b_proj weight_grad",
      "block_backward: q_b_wgrad_gather under q_b_proj activation_grad",
      "head_backward: lm_head_tp_f under lm_head_logits weight_grad",
      "head_backward: lm_head_wgrad_gather under lm_head_logits "
      "activation_grad"};
  EXPECT_EQ(blockBackwardPairs(latent), latentPairs);
  // Without a query latent, q_proj takes q_b_proj's place.
  latent.model.qLoraRank = std::nullopt;
  latentPairs[4] = "block_backward: attn_tp_f under q_proj weight_grad";
  latentPairs[5] =
      "block_backward: q_wgrad_gather under q_proj activation_grad";
  EXPECT_EQ(blockBackwardPairs(latent), latentPairs);
  // Shared experts: Megatron-LM's SharedExpertMLP's fc1 is
  // ColumnParallelLinear; its fc2 (row-parallel) pairs nothing.
  RunSpecs shared = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  shared.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  shared.model.norm = NormKind::RMSNorm;
  shared.model.linearBias = LinearBias::None;
  shared.model.moe = MixtureOfExperts{};
  shared.model.moe->experts = 8;
  shared.model.moe->expertsPerToken = 2;
  shared.model.moe->expertFfnHidden = 96;
  shared.model.moe->sharedExperts = 1;
  // The routed experts' GEMMs have no tp collective between D and W.
  EXPECT_EQ(
      blockBackwardPairs(shared),
      (std::vector<std::string>{
          "block_backward: shared_expert_tp_f under shared_expert_fc1 "
          "weight_grad",
          "block_backward: fc1_wgrad_gather under shared_expert_fc1 "
          "activation_grad",
          "block_backward: attn_tp_f under qkv_proj weight_grad",
          "block_backward: qkv_wgrad_gather under qkv_proj activation_grad",
          "head_backward: lm_head_tp_f under lm_head_logits weight_grad",
          "head_backward: lm_head_wgrad_gather under lm_head_logits "
          "activation_grad"}));
}

TEST(CriticalPath, OverlappedPairsLastTheLongerTask) {
  // Round numbers: matmul at 1e12 ops/s, memory free, one 1 GB/s tier with
  // 1 us latency.
  estimate::SystemProfile profile = valueOrFail(estimate::parseSystemProfile(
      R"json({"name": "hand",
        "compute": {
          "matmul": {"bf16": {"peak_ops_per_second": {"value": 1e12, "source": "s"}}},
          "vector": {"bf16": {"peak_ops_per_second": {"value": 1e12, "source": "s"}}}},
        "memory": {
          "capacity_bytes": {"value": 1000000000, "source": "s"},
          "bandwidth_bytes_per_second": {"value": 1e18, "source": "s"}},
        "network_tiers": [{"name": "link",
          "group_size": {"value": 8, "source": "s"},
          "bandwidth_bytes_per_second": {"value": 1e9, "source": "s"},
          "latency_seconds": {"value": 1e-6, "source": "s"}}]})json"));
  estimate::NetworkTierBinding link;
  link.tierOfAxis = {{"tp", "link"}};
  MappingSpec mapping;
  mapping.tp = 2;
  mapping.world = 2;
  // D: 2e6 ops / 1e12 = 2 us; W: 1e6 ops = 1 us; the all-reduce of 8192
  // bytes over 2 ranks: 2 (2 - 1) / 2 * 8192 / 1e9 + 2 (2 - 1) * 1e-6 =
  // 8.192 + 2 = 10.192 us. Serial: 13.192 us; overlapped, the pair lasts
  // max(10.192, 1) and W's 1 us is hidden: 12.192 us.
  std::vector<estimate::EstimateTask> tasks = {
      matmulTask("fc1", Phase::ActivationGrad, 2'000'000),
      collectiveTask("mlp_tp_f", Phase::ActivationGrad,
                     CollectiveKind::AllReduce, "tp", 8192),
      matmulTask("fc1", Phase::WeightGrad, 1'000'000)};
  StepCoster serial(mapping, DataType::BF16, profile, link);
  TaskTimes serialTimes = valueOrFail(serial.times(tasks));
  EXPECT_NEAR(serialTimes.seconds, 13.192e-6, 1e-15);
  EXPECT_EQ(serialTimes.hiddenSeconds, 0);
  mapping.overlapTPComm = true;
  StepCoster overlapped(mapping, DataType::BF16, profile, link);
  TaskTimes overlappedTimes = valueOrFail(overlapped.times(tasks));
  EXPECT_NEAR(overlappedTimes.seconds, 12.192e-6, 1e-15);
  EXPECT_NEAR(overlappedTimes.hiddenSeconds, 1e-6, 1e-15);
  EXPECT_EQ(valueOrFail(overlapped.seconds(tasks)), overlappedTimes.seconds);

  // A run's graph: every block backward instance hides its pairs, the
  // stages report it, and the iteration is no longer than without.
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  RunGraph before = graphOf(run);
  run.mapping.overlapTPComm = true;
  RunGraph after = graphOf(run);
  CriticalPathReport beforeReport = valueOrFail(longestPath(before));
  CriticalPathReport afterReport = valueOrFail(longestPath(after));
  EXPECT_EQ(beforeReport.pathHiddenTPCommPicoseconds, 0);
  EXPECT_GT(afterReport.pathHiddenTPCommPicoseconds, 0);
  EXPECT_LT(afterReport.iterationPicoseconds,
            beforeReport.iterationPicoseconds);
  for (size_t stage = 0; stage < after.stages.size(); ++stage) {
    estimate::Picoseconds hidden = 0;
    for (size_t step = 0; step < after.stages[stage].size(); ++step) {
      const GraphStep &was = before.stages[stage][step];
      const GraphStep &is = after.stages[stage][step];
      // Only a backward instance changes, by exactly what it hides.
      if (is.hiddenSeconds > 0) {
        EXPECT_EQ(is.pass, PipelinePass::Backward) << is.label;
      }
      EXPECT_NEAR(was.seconds - is.seconds, is.hiddenSeconds, 1e-15)
          << is.label;
      hidden += ps(is.hiddenSeconds);
    }
    EXPECT_EQ(afterReport.stages[stage].hiddenTPCommPicoseconds, hidden);
    EXPECT_GT(hidden, 0);
  }
}

// overlap_dp_grad_reduce (docs/Estimate.md, "Overlap"): each bucket's
// reduction is issued when the last micro-batch's backward has produced
// it, after the previous bucket's, and gates only the step after the
// reductions.

namespace {

/// The derived run of `run` and its graph with unit times: a block
/// instance's forward or backward takes 1 per block, a step instance
/// (block_step, edge steps) and the sharded optimizer 1, every data-
/// parallel gradient reduction `reduction` (by bucket, in order), all else
/// nothing; a reduction ready inside an instance waits for its ready blocks
/// at 1 each.
struct UnitRun {
  WholeRun whole;
  RunGraph graph;
};
UnitRun unitRun(const RunSpecs &run, llvm::ArrayRef<double> reduction) {
  UnitRun result;
  result.whole =
      valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
  result.graph = valueOrFail(
      runGraphOf(result.whole, run.mapping, run.training.activationType,
                 blueprint::test::a100Profile(), binding()));
  for (auto [stage, steps] : llvm::enumerate(result.graph.stages)) {
    size_t bucket = 0;
    for (auto [index, step] : llvm::enumerate(steps)) {
      const RunStep &runStep = result.whole.stages[stage].steps[index];
      step.transferSeconds = 0;
      step.hiddenSeconds = 0;
      step.seconds = 0;
      if (const auto *instance = std::get_if<RunInstance>(&runStep.action)) {
        const RunTemplate &runTemplate =
            result.whole.templates[instance->templateIndex];
        if (runTemplate.pass == PipelinePass::Step)
          step.seconds = 1;
        else if (runTemplate.part == ModelPart::Block)
          step.seconds = static_cast<double>(instance->repetitions());
      } else if (const auto *work = std::get_if<RunWork>(&runStep.action)) {
        llvm::StringRef name = work->invocation->primitive;
        if (name == primitive::kDPShardedOptimizer)
          step.seconds = 1;
        if (name == primitive::kDPGradAllReduce ||
            name == primitive::kDPGradReduceScatter)
          step.seconds = reduction[bucket++];
      }
      if (runStep.readyBlocks)
        step.readySeconds = static_cast<double>(*runStep.readyBlocks);
    }
  }
  return result;
}

/// The steps of a stage that reduce gradients, in order.
std::vector<size_t> reductionsOf(const WholeRun &whole, size_t stage) {
  std::vector<size_t> result;
  for (auto [index, step] : llvm::enumerate(whole.stages[stage].steps))
    if (const auto *work = std::get_if<RunWork>(&step.action))
      if (work->invocation->primitive == primitive::kDPGradAllReduce ||
          work->invocation->primitive == primitive::kDPGradReduceScatter)
        result.push_back(index);
  return result;
}

} // namespace

TEST(CriticalPath, OverlappedReductionsHideBehindTheRemainingBackward) {
  // pp 1, dp 2, tp 2, 8 blocks, 4 micro-batches (1F1B without a pipeline:
  // F0 B0 F1 B1 F2 B2 F3 B3, 8 blocks each). A block holds per TP rank
  // qkv 64 x 192 / 2 + 96, proj 64 x 64 / 2 + 64, fc1 64 x 256 / 2 + 128,
  // fc2 256 x 64 / 2 + 64 and two LayerNorms 2 x 128: 25184 parameters,
  // 100736 bytes of fp32 gradients; the head (the final LayerNorm, the
  // output layer tied to the word embedding) 128. Backward order: the head,
  // blocks 7 .. 0, the embeddings. bucket_bytes 403000 closes the first
  // bucket at the head and blocks 7..4 (4 x 100736 + 512 = 403456 bytes
  // >= 403000; one block fewer is 302720), 5 units; blocks 3..0 alone are
  // 402944 < 403000 bytes, so the second holds them and the embeddings.
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 1, 4);
  run.mapping.bucketBytes = 403000;
  for (int64_t zero : {0, 1}) {
    run.mapping.zeroStage = zero;
    std::string where = "zero_stage " + std::to_string(zero);
    run.mapping.overlapDPGradReduce = false;
    // Reductions of 3 and 2: the first hides behind the 4 blocks after
    // its own (block 4 is done 4 blocks into B3), the second is ready only
    // when the backward ends.
    UnitRun off = unitRun(run, {3, 2});
    run.mapping.overlapDPGradReduce = true;
    UnitRun on = unitRun(run, {3, 2});
    ASSERT_EQ(on.whole.stages[0].bucketUnitEnds, (std::vector<size_t>{5, 10}))
        << where;
    // The second: blocks 3..0, 4 x 25184 = 100736, and the embeddings, the
    // word embedding's 128 / 2 x 64 = 4096 and the learned positions'
    // 32 x 64 = 2048: 106880 (both even: no padding over dp 2).
    ASSERT_EQ(on.whole.stages[0].bucketElements,
              (std::vector<int64_t>{100864, 106880}))
        << where;
    std::vector<size_t> reductions = reductionsOf(on.whole, 0);
    ASSERT_EQ(reductions.size(), 2u) << where;
    // The first waits for 4 of B3's 8 blocks; the second for the
    // embeddings' backward in full.
    EXPECT_EQ(on.whole.stages[0].steps[reductions[0]].readyBlocks, 4) << where;
    EXPECT_EQ(on.whole.stages[0].steps[reductions[1]].readyBlocks, std::nullopt)
        << where;
    // B3 runs [56, 64] (the 7 block instances before it, F0 B0 F1 B1 F2
    // B2 F3, of 8 each end at 7 x 8 = 56), the
    // embeddings' backward takes nothing. Without the option the
    // reductions follow it: 64 + 3 + 2 = 69, then the steps (block_step
    // and the embeddings' edge_step, 1 each; ZeRO-1: the sharded optimizer,
    // 1, and its all-gathers, nothing): 71 (ZeRO-1: 70).
    CriticalPathReport offPath = valueOrFail(longestPath(off.graph));
    double steps = zero ? 1 : 2;
    EXPECT_EQ(offPath.iterationPicoseconds, ps(69 + steps)) << where;
    EXPECT_EQ(offPath.pathHiddenDPReducePicoseconds, 0) << where;
    // With it the first runs [60, 63], under the last 4 blocks of B3
    // ([60, 64]): hidden in full; the second [64, 66], after the backward:
    // nothing hidden. The iteration is 3 shorter.
    CriticalPathReport onPath = valueOrFail(longestPath(on.graph));
    EXPECT_EQ(onPath.timing[0][reductions[0]].start, ps(60)) << where;
    EXPECT_EQ(onPath.timing[0][reductions[0]].end, ps(63)) << where;
    EXPECT_EQ(onPath.timing[0][reductions[1]].start, ps(64)) << where;
    EXPECT_EQ(onPath.iterationPicoseconds, ps(66 + steps)) << where;
    EXPECT_EQ(onPath.stages[0].hiddenDPReducePicoseconds, ps(3)) << where;
    EXPECT_EQ(onPath.pathHiddenDPReducePicoseconds, ps(3)) << where;
    // The stage's exposed collective time is the second reduction's 2:
    // compute 64 + steps, bubble 0.
    EXPECT_EQ(onPath.stages[0].collectivePicoseconds, ps(2)) << where;
    EXPECT_EQ(onPath.stages[0].bubblePicoseconds, 0) << where;

    // A first reduction of 6 runs [60, 66] and hides 4 of them; the second
    // waits for it, [66, 68]: 6 + 2 - 4 after the backward.
    UnitRun longer = unitRun(run, {6, 2});
    CriticalPathReport longerPath = valueOrFail(longestPath(longer.graph));
    EXPECT_EQ(longerPath.iterationPicoseconds, ps(68 + steps)) << where;
    EXPECT_EQ(longerPath.pathHiddenDPReducePicoseconds, ps(4)) << where;
    // The path enters B3 and leaves it at 60, where the first reduction
    // was ready: contiguous from 0.
    estimate::Picoseconds at = 0;
    for (const PathSegment &segment : longerPath.path) {
      EXPECT_EQ(segment.start, at) << where;
      at = segment.end;
    }
    EXPECT_EQ(at, longerPath.iterationPicoseconds) << where;
  }
}

TEST(CriticalPath, OverlappedReductionsOnAPipeline) {
  // pp 2, 1F1B, 4 micro-batches, 4 blocks per stage at 1 per block: the
  // backward B3 runs [32, 36] on stage 1 and [36, 40] on stage 0 ((m + pp
  // - 1)(F + B) = 5 x 8 = 40 with free transfers). bucket_bytes 1: every
  // gradient unit is a bucket, each reduced in 0.5, on both stages: the
  // project cuts bucket_bytes buckets on every stage (docs/WholeRun.md,
  // "Buckets"). This is not Megatron-Core, which turns bucketing off on
  // pp ranks > 0 (DistributedDataParallel.__init__): there stage 1 would
  // reduce one bucket once B3 ends at 36 and hide nothing. Stage 1's hidden 2
  // below is this model's, the optimistic side of that difference.
  //   stage 1: the head's (ready when head_backward ends, at 32), blocks
  //   7, 6, 5 (1, 2, 3 blocks into B3: 33, 34, 35) and 4 (B3's end, 36):
  //   [32, 32.5], [33, 33.5], [34, 34.5], [35, 35.5], [36, 36.5]: 2 hidden;
  //   stage 0: blocks 3, 2, 1 (37, 38, 39), 0 (40) and the embeddings
  //   (40, after block 0's): [37, 37.5], [38, 38.5], [39, 39.5],
  //   [40, 40.5], [40.5, 41]: 1.5 hidden.
  // The tied embedding's sync meets at 41 on both stages, then the steps:
  // stage 0's block_step and edge_step, 1 each, end the iteration at 43.
  // Without the option stage 0 reduces [40, 42.5]: 44.5.
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  run.mapping.bucketBytes = 1;
  std::vector<double> halves(5, 0.5);
  UnitRun off = unitRun(run, halves);
  run.mapping.overlapDPGradReduce = true;
  UnitRun on = unitRun(run, halves);
  std::vector<std::optional<int64_t>> stage1Ready, stage0Ready;
  for (size_t index : reductionsOf(on.whole, 1))
    stage1Ready.push_back(on.whole.stages[1].steps[index].readyBlocks);
  for (size_t index : reductionsOf(on.whole, 0))
    stage0Ready.push_back(on.whole.stages[0].steps[index].readyBlocks);
  EXPECT_EQ(stage1Ready, (std::vector<std::optional<int64_t>>{
                             std::nullopt, 1, 2, 3, std::nullopt}));
  EXPECT_EQ(stage0Ready, (std::vector<std::optional<int64_t>>{
                             1, 2, 3, std::nullopt, std::nullopt}));
  CriticalPathReport offPath = valueOrFail(longestPath(off.graph));
  CriticalPathReport onPath = valueOrFail(longestPath(on.graph));
  EXPECT_EQ(offPath.iterationPicoseconds, ps(44.5));
  EXPECT_EQ(onPath.iterationPicoseconds, ps(43));
  EXPECT_EQ(onPath.stages[1].hiddenDPReducePicoseconds, ps(2));
  EXPECT_EQ(onPath.stages[0].hiddenDPReducePicoseconds, ps(1.5));
  // The path ends on stage 0's steps, after its reductions: its 1.5.
  EXPECT_EQ(onPath.pathHiddenDPReducePicoseconds, ps(1.5));
}

TEST(CriticalPath, OverlappedReductionsRefuseZeroThree) {
  // decoder_training_c17: ZeRO-3's per-pass gathers over dp would run
  // beside the overlapped reductions, uncharged.
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  run.mapping.zeroStage = 3;
  run.mapping.overlapDPGradReduce = true;
  std::vector<RuleViolation> violations =
      checkTrainingComposition(run.model, run.training, run.mapping);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].rule, "decoder_training_c17");
  run.mapping.zeroStage = 2;
  EXPECT_TRUE(
      checkTrainingComposition(run.model, run.training, run.mapping).empty());
}
