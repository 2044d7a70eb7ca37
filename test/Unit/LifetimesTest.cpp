//===- LifetimesTest.cpp - Peak memory against its closed forms -----------===//
//
// The buffers of a whole run (deriveBuffers) swept by analyzeMemory give,
// per stage, exactly the closed forms of docs/Memory.md: the activation
// stash Megatron-LM's schedules hold (GPipe m micro-batches, 1F1B pp - r on
// stage r, interleaved 1F1B its warm-up + 1 model chunks), ZB-H1's extra
// weight-gradient inputs, and the persistent state per rank under each ZeRO
// stage (Rajbhandari et al. 2020, Sec. 5). The closed forms are computed
// here from the work algebra's per-block figures and the parameter counts;
// only ZB-H1's split of one micro-batch's stash into what B and what W
// read is taken from its buffers, and the test checks the counts.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Workload/EdgeWork.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

#include <limits>

using namespace blueprint;
using namespace blueprint::workload;
using blueprint::test::RunSpecs;
using blueprint::test::valueOrFail;
using blueprint::test::smallRun;

namespace {

struct Analysed {
  WholeRun run;
  std::vector<StageBuffers> buffers;
  std::vector<StageMemory> memory;
};

Analysed analyse(const RunSpecs &run) {
  Analysed result;
  result.run =
      valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
  result.buffers =
      valueOrFail(deriveBuffers(result.run, run.mapping, run.training));
  for (const StageBuffers &stage : result.buffers)
    result.memory.push_back(valueOrFail(analyzeMemory(stage)));
  return result;
}

/// Bytes one block stashes for one micro-batch, from the work algebra.
int64_t blockStashBytes(const RunSpecs &run) {
  BlockWork work =
      valueOrFail(deriveBlockWork(run.model, run.training, run.mapping));
  int64_t bytes = 0;
  for (const Invocation &invocation : work.invocations)
    bytes += invocation.stashBytes;
  return bytes;
}

int64_t at(const std::array<int64_t, kNumBufferCauses> &byCause,
           BufferCause cause) {
  return byCause[static_cast<size_t>(cause)];
}

/// Megatron-LM's schedules hold, on stage r of pp with v model chunks per
/// stage and m micro-batches, this many micro-batch chunks of stashed
/// activations at most: every forward (GPipe), the warm-up pp - r - 1 and
/// one more (1F1B), the interleaved warm-up 2(pp - r - 1) + (v - 1) pp and
/// one more (all m v when m = pp); never more than all m v.
int64_t megatronInFlightChunks(PipelineSchedule schedule, int64_t m, int64_t pp,
                               int64_t v, int64_t r) {
  switch (schedule) {
  case PipelineSchedule::GPipe:
    return m;
  case PipelineSchedule::OneFOneB:
  case PipelineSchedule::ZeroBubbleH1:
    return std::min(m, pp - r);
  case PipelineSchedule::Interleaved1F1B:
    // With m = pp every forward is warm-up.
    if (m == pp)
      return m * v;
    return std::min(m * v, 2 * (pp - r - 1) + (v - 1) * pp + 1);
  }
  return 0;
}

TEST(Lifetimes, StashedActivationsAreTheSchedulesInFlightMicroBatches) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    for (int64_t pp : {2, 4})
      for (int64_t m : {4, 8, 12}) {
        if (schedule == PipelineSchedule::Interleaved1F1B && m % pp != 0)
          continue;
        RunSpecs run = smallRun(schedule, pp, m);
        Analysed analysed = analyse(run);
        int64_t v = run.mapping.virtualStages;
        int64_t blocksPerChunk = run.model.blocks / (pp * v);
        int64_t perBlock = blockStashBytes(run);
        ASSERT_EQ(analysed.memory.size(), static_cast<size_t>(pp));
        for (int64_t r = 0; r < pp; ++r) {
          int64_t chunks = megatronInFlightChunks(schedule, m, pp, v, r);
          int64_t stashed =
              at(analysed.memory[r].maxByCause, BufferCause::BlockActivations);
          int64_t weightGrad =
              at(analysed.memory[r].maxByCause, BufferCause::WeightGradInputs);
          if (schedule != PipelineSchedule::ZeroBubbleH1) {
            EXPECT_EQ(stashed, chunks * blocksPerChunk * perBlock)
                << test::describeRun(run) << " stage " << r;
            EXPECT_EQ(weightGrad, 0) << test::describeRun(run);
            continue;
          }
          // ZB-H1 frees what only the input-gradient pass reads after it
          // (1F1B's count of the rest), and keeps the weight-gradient
          // pass's inputs until the deferred W runs: on stage r the W of
          // micro-batch k runs after the B of k + r, so the stash W reads
          // lives from forward to W for pp micro-batches on every stage,
          // the gradients B writes for W for r + 1.
          int64_t stashedWeightGrad = 0, gradients = 0;
          for (const RunBuffer &buffer : analysed.buffers[r].buffers) {
            if (buffer.name ==
                "weight_grad_stash_mb0_chunk" + std::to_string(r))
              stashedWeightGrad = buffer.bytes;
            if (buffer.name ==
                "weight_grad_inputs_mb0_chunk" + std::to_string(r))
              gradients = buffer.bytes;
          }
          EXPECT_GT(stashedWeightGrad, 0) << test::describeRun(run);
          EXPECT_GT(gradients, 0) << test::describeRun(run);
          EXPECT_EQ(stashed,
                    chunks * (blocksPerChunk * perBlock - stashedWeightGrad))
              << test::describeRun(run) << " stage " << r;
          EXPECT_EQ(weightGrad, std::min(m, pp) * stashedWeightGrad +
                                    std::min(m, r + 1) * gradients)
              << test::describeRun(run) << " stage " << r;
        }
      }
}

TEST(Lifetimes, FirstStageStashMatchesTheModelSummaryClosedForm) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B}) {
    RunSpecs run = smallRun(schedule, 4, 8);
    Analysed analysed = analyse(run);
    int64_t v = run.mapping.virtualStages;
    int64_t chunks = analysis::inFlightChunks(schedule, 8, 4, v);
    EXPECT_EQ(at(analysed.memory[0].maxByCause, BufferCause::BlockActivations),
              chunks * (run.model.blocks / (4 * v)) * blockStashBytes(run))
        << test::describeRun(run);
  }
}

/// ZeRO (Rajbhandari et al. 2020, Sec. 5.1-5.3) per rank, for Psi
/// parameters held in one gradient bucket padded to dp: stage 0 keeps
/// weights, gradients and optimizer state (master, m, v) whole; stage 1
/// shards the optimizer state, 2 also the gradients, 3 also the weights.
/// Under ZeRO-2/3 the gradients persist only as the sharded step's input:
/// the whole bucket lives from the first backward to its reduce-scatter,
/// whose output shard lives to the step (both at the reduce-scatter).
TEST(Lifetimes, PersistentStateIsZeROsPerRankBytes) {
  for (int64_t pp : {1, 2})
    for (int64_t dp : {2, 4})
      for (int64_t zero : {0, 1, 2, 3}) {
        RunSpecs run = smallRun(PipelineSchedule::OneFOneB, pp, 4);
        run.mapping.dp = dp;
        run.mapping.world = run.mapping.tp * pp * dp;
        run.mapping.zeroStage = zero;
        run.training.globalBatch = 2 * dp * 4;
        Analysed analysed = analyse(run);
        int64_t perBlock =
            valueOrFail(blockParametersPerRank(run.model, run.mapping));
        EdgeParameters edges =
            valueOrFail(edgeParametersPerRank(run.model, run.mapping));
        for (int64_t stage = 0; stage < pp; ++stage) {
          int64_t psi = perBlock * (run.model.blocks / pp);
          if (stage == 0)
            psi += edges.wordEmbedding + edges.positionEmbedding;
          if (stage == pp - 1)
            psi += edges.finalNorm + (pp > 1 ? edges.wordEmbedding : 0);
          int64_t padded = (psi + dp - 1) / dp * dp;
          int64_t shard = padded / dp;
          int64_t weights = (zero >= 3 ? shard : psi) * 2;
          int64_t gradients = zero >= 2 ? 0 : padded * 4;
          int64_t optimizer = (zero >= 1 ? shard : psi) * 3 * 4;
          const StageMemory &memory = analysed.memory[stage];
          std::string where =
              test::describeRun(run) + " stage " + std::to_string(stage);
          EXPECT_EQ(at(memory.peakByCause, BufferCause::Weights), weights)
              << where;
          EXPECT_EQ(at(memory.peakByCause, BufferCause::Gradients), gradients)
              << where;
          EXPECT_EQ(at(memory.peakByCause, BufferCause::OptimizerState),
                    optimizer)
              << where;
          EXPECT_EQ(
              memory.peakByKind[static_cast<size_t>(BufferKind::Persistent)],
              weights + gradients + optimizer)
              << where;
          // ZeRO-2/3 hold the whole gradient bucket only until its
          // reduce-scatter; ZeRO-3 gathers a chunk's weights per pass.
          EXPECT_EQ(at(memory.maxByCause, BufferCause::GradientBucket),
                    zero >= 2 ? (padded + shard) * 4 : 0)
              << where;
          EXPECT_EQ(at(memory.maxByCause, BufferCause::GatheredParameters) > 0,
                    zero == 3)
              << where;
        }
      }
}

/// ZeRO-2 reduce-scatters after the last backward (the program states no
/// overlap), so its whole gradient bucket is live at the backward's peak
/// as ZeRO-1's persistent gradients are: the same peak, and less memory
/// outside the backward.
TEST(Lifetimes, ZeRO2MatchesZeRO1AtTheBackwardPeak) {
  // Dense; with experts at ep 2 over dp 2 (edp 1: an expert bucket has no
  // reduction, so ZeRO-2 holds its gradients whole, as ZeRO-1 does) and
  // over dp 4 (edp 2: reduce-scattered like the dense buckets).
  RunSpecs dense = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  RunSpecs expertsOverOne = test::withExperts(dense, 2);
  RunSpecs expertsOverTwo = expertsOverOne;
  expertsOverTwo.mapping.dp = 4;
  expertsOverTwo.mapping.world = 16;
  expertsOverTwo.training.globalBatch *= 2;
  for (RunSpecs one : {dense, expertsOverOne, expertsOverTwo}) {
    one.mapping.zeroStage = 1;
    RunSpecs two = one;
    two.mapping.zeroStage = 2;
    Analysed first = analyse(one), second = analyse(two);
    for (size_t stage = 0; stage < first.memory.size(); ++stage) {
      EXPECT_EQ(second.memory[stage].peakBytes, first.memory[stage].peakBytes)
          << "stage " << stage << ", ep " << one.mapping.ep << ", dp "
          << one.mapping.dp;
      EXPECT_LT(second.memory[stage].liveBytes.front(),
                first.memory[stage].liveBytes.front())
          << "stage " << stage << ", ep " << one.mapping.ep << ", dp "
          << one.mapping.dp;
    }
  }
}

TEST(Lifetimes, PeakIsTheLargestLiveSumAndNamesItsBuffers) {
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  Analysed analysed = analyse(run);
  for (size_t stage = 0; stage < analysed.memory.size(); ++stage) {
    const StageBuffers &buffers = analysed.buffers[stage];
    const StageMemory &memory = analysed.memory[stage];
    ASSERT_EQ(memory.liveBytes.size(), buffers.positions);
    // Brute force: the live sum at every position.
    int64_t peak = 0;
    size_t peakPosition = 0;
    for (size_t position = 0; position < buffers.positions; ++position) {
      int64_t live = 0;
      for (const RunBuffer &buffer : buffers.buffers)
        if (buffer.start <= position && position <= buffer.end)
          live += buffer.bytes;
      EXPECT_EQ(memory.liveBytes[position], live);
      if (live > peak) {
        peak = live;
        peakPosition = position;
      }
    }
    EXPECT_EQ(memory.peakBytes, peak);
    EXPECT_EQ(memory.peakPosition, peakPosition);
    int64_t named = 0;
    for (size_t index : memory.liveAtPeak)
      named += buffers.buffers[index].bytes;
    EXPECT_EQ(named, peak);
  }
}

TEST(Lifetimes, BuffersLiveFromProducerToLastConsumer) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::OneFOneB, PipelineSchedule::ZeroBubbleH1})
    for (int64_t zero : {0, 3}) {
      RunSpecs run = smallRun(schedule, 2, 4);
      run.mapping.zeroStage = zero;
      Analysed analysed = analyse(run);
      for (const StageBuffers &stage : analysed.buffers)
        for (const RunBuffer &buffer : stage.buffers) {
          std::string where = test::describeRun(run) + " " + buffer.name;
          if (buffer.kind() == BufferKind::Persistent) {
            EXPECT_FALSE(buffer.producer) << where;
            EXPECT_EQ(buffer.start, 0u) << where;
            EXPECT_EQ(buffer.end, stage.positions - 1) << where;
            continue;
          }
          ASSERT_TRUE(buffer.producer) << where;
          ASSERT_FALSE(buffer.consumers.empty()) << where;
          EXPECT_EQ(buffer.start, *buffer.producer) << where;
          EXPECT_LE(*buffer.producer, buffer.consumers.front()) << where;
          EXPECT_EQ(buffer.end, buffer.consumers.back()) << where;
          // A block's stash goes from its forward to the backward (or
          // input-gradient) pass of the same micro-batch and chunk.
          if (buffer.cause != BufferCause::BlockActivations)
            continue;
          const auto &steps = analysed.run.stages[stage.stage].steps;
          const auto *forward =
              std::get_if<RunInstance>(&steps[*buffer.producer].action);
          ASSERT_EQ(buffer.consumers.size(), 1u) << where;
          const auto *backward =
              std::get_if<RunInstance>(&steps[buffer.consumers[0]].action);
          ASSERT_TRUE(forward && backward) << where;
          EXPECT_EQ(analysed.run.templates[forward->templateIndex].pass,
                    PipelinePass::Forward)
              << where;
          EXPECT_EQ(analysed.run.templates[backward->templateIndex].pass,
                    schedule == PipelineSchedule::ZeroBubbleH1
                        ? PipelinePass::InputGrad
                        : PipelinePass::Backward)
              << where;
          EXPECT_EQ(forward->microBatch, backward->microBatch) << where;
          EXPECT_EQ(forward->chunk, backward->chunk) << where;
          EXPECT_EQ(buffer.name,
                    "stash_mb" + std::to_string(*forward->microBatch) +
                        "_chunk" + std::to_string(forward->chunk))
              << where;
        }
    }
}

/// A pass of three invocations: a = f(x); b = g(a); y = h(a, b). a lives
/// over [0, 2], b over [1, 2], y from 2 to the end: the peak is at the last
/// invocation, a + b + y; x (an input) and what `kept` names are not the
/// pass's.
TEST(Lifetimes, WorkingSetIsTheLargestSetOfLiveIntermediates) {
  auto invocation = [](std::vector<TensorAccess> reads,
                       std::vector<TensorAccess> writes) {
    Invocation result;
    result.reads = std::move(reads);
    result.writes = std::move(writes);
    return result;
  };
  BlockWork work;
  work.invocations = {invocation({{"x", 100}}, {{"a", 10}}),
                      invocation({{"a", 10}}, {{"b", 20}}),
                      invocation({{"a", 10}, {"b", 20}}, {{"y", 40}})};
  EXPECT_EQ(valueOrFail(workingSetBytes(work, {})), 70);
  EXPECT_EQ(valueOrFail(workingSetBytes(work, {"b"})), 50);
  // An in-place update of an input (a gradient accumulator) is no
  // intermediate.
  work.invocations.push_back(invocation({{"x", 100}}, {{"x", 100}}));
  EXPECT_EQ(valueOrFail(workingSetBytes(work, {})), 70);
}

TEST(Lifetimes, AnalysisRejectsLifetimesOutsideTheStage) {
  StageBuffers stage;
  stage.positions = 3;
  RunBuffer buffer;
  buffer.name = "late";
  buffer.cause = BufferCause::WorkingSet;
  buffer.bytes = 8;
  buffer.producer = 2;
  buffer.start = 2;
  buffer.end = 3;
  stage.buffers.push_back(buffer);
  llvm::Expected<StageMemory> memory = analyzeMemory(stage);
  ASSERT_FALSE(memory);
  EXPECT_NE(llvm::toString(memory.takeError()).find("'late' lives over [2, 3]"),
            std::string::npos);
  stage.buffers[0].end = 2;
  stage.buffers[0].bytes = INT64_MAX;
  stage.buffers.push_back(stage.buffers[0]);
  memory = analyzeMemory(stage);
  ASSERT_FALSE(memory);
  EXPECT_NE(llvm::toString(memory.takeError()).find("64-bit overflow"),
            std::string::npos);
}

} // namespace

TEST(Lifetimes, LivePeakIsTheFirstLargestSum) {
  // [0, 1] 5 bytes, [1, 2] 7 bytes, [2, 2] 5 bytes: 5, 12, 12 live.
  std::vector<LiveSpan> spans = {{0, 1, 5}, {1, 2, 7}, {2, 2, 5}};
  std::pair<int64_t, size_t> peak = valueOrFail(livePeak(3, 3, spans));
  EXPECT_EQ(peak.first, 12);
  EXPECT_EQ(peak.second, 1u);
  // Nothing live: 0 at position 0.
  peak = valueOrFail(livePeak(3, 3, {}));
  EXPECT_EQ(peak.first, 0);
  EXPECT_EQ(peak.second, 0u);

  auto errorOf = [](int64_t positions, std::vector<LiveSpan> spans) {
    llvm::Expected<std::pair<int64_t, size_t>> peak =
        livePeak(3, positions, spans);
    return peak ? std::string() : llvm::toString(peak.takeError());
  };
  EXPECT_NE(errorOf(3, {{0, 1, -1}})
                .find("stage 3: a buffer of negative "
                      "bytes"),
            std::string::npos);
  EXPECT_NE(errorOf(3, {{1, 3, 1}}).find("outside the stage's 3 positions"),
            std::string::npos);
  EXPECT_NE(errorOf(3, {{2, 1, 1}}).find("outside"), std::string::npos);
  int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_NE(errorOf(3, {{0, 2, max}, {1, 1, 1}})
                .find("stage 3: 64-bit overflow computing live bytes"),
            std::string::npos);
}

TEST(Lifetimes, AShapesBuffersAreTheLifetimesOfEveryRunsBuffers) {
  // A search keeps a shape's buffers (deriveBufferLifetimes) and sizes them
  // with each run's values (sweep::RunSkeleton): they are every buffer of
  // the run, in order, the run's own buffers among them with the same
  // source and lifetime, the others of no bytes for this run, under every
  // schedule, every ZeRO stage and small buckets. ZeRO-1 and ZeRO-2 have
  // the same lifetimes (one shape): the gradient buckets a ZeRO-2 stage
  // holds are a ZeRO-1 stage's too, of no bytes.
  size_t runs = 0, zeroByteBuffers = 0;
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    for (int64_t zeroStage : {0, 1, 2, 3}) {
      RunSpecs run = smallRun(schedule, 2, 4);
      run.mapping.zeroStage = zeroStage;
      run.mapping.bucketBytes = 40000;
      WholeRun whole =
          valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
      std::vector<StageBuffers> full =
          valueOrFail(deriveBuffers(whole, run.mapping, run.training));
      std::vector<StageLifetimes> shape = deriveBufferLifetimes(whole);
      ++runs;
      ASSERT_EQ(shape.size(), full.size());
      for (auto [shaped, named] : llvm::zip(shape, full)) {
        EXPECT_EQ(shaped.stage, named.stage);
        EXPECT_EQ(shaped.positions, named.positions);
        size_t next = 0;
        for (const BufferLifetime &buffer : shaped.buffers) {
          bool same =
              next < named.buffers.size() &&
              named.buffers[next].source->kind == buffer.source.kind &&
              named.buffers[next].source->index == buffer.source.index &&
              named.buffers[next].source->repetitions ==
                  buffer.source.repetitions &&
              named.buffers[next].start == buffer.start &&
              named.buffers[next].end == buffer.end;
          if (same) {
            ++next;
            continue;
          }
          // Left out of the run's own buffers: no bytes for this run.
          ++zeroByteBuffers;
        }
        EXPECT_EQ(next, named.buffers.size());
      }
    }
  EXPECT_EQ(runs, 16u);
  EXPECT_GT(zeroByteBuffers, 0u);
  for (PipelineSchedule schedule :
       {PipelineSchedule::OneFOneB, PipelineSchedule::ZeroBubbleH1}) {
    std::vector<StageLifetimes> lifetimes[2];
    size_t gradientBuckets[2] = {0, 0};
    for (int64_t zeroStage : {1, 2}) {
      RunSpecs run = smallRun(schedule, 2, 4);
      run.mapping.zeroStage = zeroStage;
      run.mapping.bucketBytes = 40000;
      WholeRun whole =
          valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
      lifetimes[zeroStage - 1] = deriveBufferLifetimes(whole);
      for (const StageBuffers &stage :
           valueOrFail(deriveBuffers(whole, run.mapping, run.training)))
        for (const RunBuffer &buffer : stage.buffers)
          gradientBuckets[zeroStage - 1] +=
              buffer.cause == BufferCause::GradientBucket;
    }
    // ZeRO-1 holds its gradients in the persistent buffer, ZeRO-2 in its
    // buckets; both have the buckets' lifetimes.
    EXPECT_EQ(gradientBuckets[0], 0u);
    EXPECT_GT(gradientBuckets[1], 0u);
    ASSERT_EQ(lifetimes[0].size(), lifetimes[1].size());
    for (auto [one, two] : llvm::zip(lifetimes[0], lifetimes[1])) {
      EXPECT_EQ(one.positions, two.positions);
      ASSERT_EQ(one.buffers.size(), two.buffers.size());
      for (auto [a, b] : llvm::zip(one.buffers, two.buffers)) {
        EXPECT_EQ(a.source.kind, b.source.kind);
        EXPECT_EQ(a.source.index, b.source.index);
        EXPECT_EQ(a.source.repetitions, b.source.repetitions);
        EXPECT_EQ(a.start, b.start);
        EXPECT_EQ(a.end, b.end);
      }
    }
  }
}
