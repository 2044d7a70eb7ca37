//===- ImplementationTest.cpp - FlashAttention rule formulas --------------===//
//
// The deltas of lib/Workload/Implementation.cpp against hand derivations on
// one small block: h = 64, a = 4 (d = 16), s = 32, b = 2, bf16 (e = 2), at
// tp = 2 with sequence parallelism. Per rank: S = b (a/t) s^2 = 4096 score
// elements (S e = 8192 bytes, a dropout mask S = 4096 bytes), T = b s = 64
// tokens, Q = (a/t) d = 32 (q, k, v, context T Q e = 4096 bytes each),
// M = 2 b (a/t) s^2 d = 131072 ops per attention matmul, R = b (a/t) s = 128
// statistic rows (4R = 512 bytes of fp32 log-sum-exp).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Implementation.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

using namespace blueprint::workload;

namespace {

constexpr int64_t kScores = 4096;        // S
constexpr int64_t kScoreBytes = 8192;    // S e
constexpr int64_t kHeadBytes = 4096;     // T Q e
constexpr int64_t kMatmul = 131072;      // M
constexpr int64_t kRows = 128;           // R
constexpr int64_t kStatisticBytes = 512; // 4 R

BlockWork smallBlock(RecomputePolicy policy, bool attentionDropout = true) {
  // The small model of SmallRuns.h (h 64, a 4, s 32, b 2) at tp 2.
  blueprint::test::RunSpecs run =
      blueprint::test::smallRun(PipelineSchedule::OneFOneB, 1, 1);
  run.training.attentionDropout = attentionDropout;
  run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  run.mapping.recompute = policy;
  llvm::Expected<BlockWork> work =
      deriveBlockWork(run.model, run.training, run.mapping);
  if (!work) {
    ADD_FAILURE() << llvm::toString(work.takeError());
    return {};
  }
  return std::move(*work);
}

std::vector<ImplementationDelta> deltasOf(const BlockWork &work) {
  llvm::Expected<std::vector<ImplementationDelta>> deltas =
      flashAttentionDeltas(work, kRows);
  if (!deltas) {
    ADD_FAILURE() << llvm::toString(deltas.takeError());
    return {};
  }
  return std::move(*deltas);
}

int64_t opsOf(const BlockWork &work, llvm::StringRef primitive) {
  const Invocation *invocation = work.find(primitive, Phase::Forward);
  return invocation ? invocation->ops : -1;
}

} // namespace

TEST(FlashAttentionRule, StatisticRows) {
  blueprint::test::RunSpecs run =
      blueprint::test::smallRun(PipelineSchedule::OneFOneB, 1, 1);
  llvm::Expected<int64_t> rows =
      flashAttentionStatisticRows(run.model, run.training, run.mapping);
  ASSERT_TRUE(static_cast<bool>(rows)) << llvm::toString(rows.takeError());
  // b 2 x (a 4 / t 2) x s 32.
  EXPECT_EQ(*rows, kRows);
}

TEST(FlashAttentionRule, SelectiveRecompute) {
  BlockWork work = smallBlock(RecomputePolicy::Selective);
  std::vector<ImplementationDelta> deltas = deltasOf(work);
  ASSERT_EQ(deltas.size(), 3u);
  const int64_t softmax = opsOf(work, "softmax");
  // The dropout is 3 operations per score (WorkAlgebra.md).
  ASSERT_EQ(opsOf(work, "attn_dropout"), 3 * kScores);
  const int64_t forwardOps = kMatmul + softmax + 3 * kScores + kMatmul;

  const ImplementationDelta &forward = deltas[0];
  EXPECT_EQ(forward.phase, Phase::Forward);
  EXPECT_EQ(forward.fused,
            (std::vector<std::string>{"qk_matmul", "softmax", "attn_dropout",
                                      "attn_v_matmul"}));
  EXPECT_EQ(forward.semanticOps, forwardOps);
  EXPECT_EQ(forward.executedOps, forwardOps);
  EXPECT_EQ(forward.recomputedOps, 0);
  // Off chip no more: scores (written, read), probs (written, read),
  // probs_dropped (written, read) and the mask (written); the statistics
  // are written instead: 6 S e + S - 4R = 49152 + 4096 - 512.
  EXPECT_EQ(forward.trafficRemovedBytes,
            6 * kScoreBytes + kScores - kStatisticBytes);
  EXPECT_EQ(forward.trafficRemovedBytes, 52736);
  // Selective recompute stashed only q, k, v; the kernel adds 4R.
  EXPECT_EQ(forward.stashRemovedBytes, -kStatisticBytes);

  const ImplementationDelta &recompute = deltas[1];
  EXPECT_EQ(recompute.phase, Phase::Recompute);
  EXPECT_EQ(recompute.semanticOps, 0);
  EXPECT_EQ(recompute.executedOps, 0);
  EXPECT_EQ(recompute.recomputedOps, -forwardOps);
  // Every byte the four clones moved: the forward's fused traffic removed
  // plus what the fused forward still moves (q, k, v in; context and no
  // statistics out): 52736 + 512 + 3 x 4096 + 4096.
  EXPECT_EQ(recompute.trafficRemovedBytes,
            52736 + kStatisticBytes + 4 * kHeadBytes);

  const ImplementationDelta &backward = deltas[2];
  EXPECT_EQ(backward.phase, Phase::ActivationGrad);
  // attn_v_matmul 2M, attn_dropout S, softmax 5S, qk_matmul 2M.
  EXPECT_EQ(backward.semanticOps, 4 * kMatmul + 6 * kScores);
  // Algorithm 2 recomputes S = QK^T (M), P (the forward softmax) and the
  // dropout mask (3S): 5 matmuls in all, FlashAttention-2's 2.5x forward.
  EXPECT_EQ(backward.recomputedOps, kMatmul + softmax + 3 * kScores);
  EXPECT_EQ(backward.executedOps,
            backward.semanticOps + backward.recomputedOps);
  // 8 S e of score-shaped reads and writes and the mask read (S) stay on
  // chip; O (T Q e) and the statistics (4R) are read instead.
  EXPECT_EQ(backward.trafficRemovedBytes,
            8 * kScoreBytes + kScores - kStatisticBytes - kHeadBytes);
  EXPECT_EQ(backward.trafficRemovedBytes, 65024);
  EXPECT_EQ(backward.stashRemovedBytes, 0);
}

TEST(FlashAttentionRule, NoRecomputeDropsTheScoreStash) {
  BlockWork work = smallBlock(RecomputePolicy::None);
  std::vector<ImplementationDelta> deltas = deltasOf(work);
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas[0].phase, Phase::Forward);
  EXPECT_EQ(deltas[1].phase, Phase::ActivationGrad);
  // probs and probs_dropped (S e each) and the mask (S) are no longer
  // stashed; the statistics are: 2 S e + S - 4R.
  EXPECT_EQ(deltas[0].stashRemovedBytes,
            2 * kScoreBytes + kScores - kStatisticBytes);
  EXPECT_EQ(deltas[0].stashRemovedBytes, 19968);
  EXPECT_EQ(deltas[0].trafficRemovedBytes, 52736);
}

TEST(FlashAttentionRule, FullRecomputeRerunsTheFusedForward) {
  BlockWork work = smallBlock(RecomputePolicy::Full);
  std::vector<ImplementationDelta> deltas = deltasOf(work);
  ASSERT_EQ(deltas.size(), 3u);
  const int64_t forwardOps = 2 * kMatmul + opsOf(work, "softmax") + 3 * kScores;
  // Full recompute stashes nothing of the core, before or after.
  EXPECT_EQ(deltas[0].stashRemovedBytes, 0);
  EXPECT_EQ(deltas[1].phase, Phase::Recompute);
  EXPECT_EQ(deltas[1].semanticOps, 0);
  EXPECT_EQ(deltas[1].executedOps, forwardOps);
  EXPECT_EQ(deltas[1].recomputedOps, forwardOps);
  EXPECT_EQ(deltas[1].trafficRemovedBytes, 52736);
}

TEST(FlashAttentionRule, WithoutAttentionDropout) {
  BlockWork work = smallBlock(RecomputePolicy::None, false);
  std::vector<ImplementationDelta> deltas = deltasOf(work);
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas[0].fused, (std::vector<std::string>{"qk_matmul", "softmax",
                                                       "attn_v_matmul"}));
  // scores and probs, each written and read: 4 S e - 4R.
  EXPECT_EQ(deltas[0].trafficRemovedBytes, 4 * kScoreBytes - kStatisticBytes);
  // Only probs was stashed (attn_v_matmul reads it): S e - 4R.
  EXPECT_EQ(deltas[0].stashRemovedBytes, kScoreBytes - kStatisticBytes);
  EXPECT_EQ(deltas[1].recomputedOps, kMatmul + opsOf(work, "softmax"));
}

TEST(FlashAttentionRule, RefusesWorkWithoutAnAttentionCore) {
  llvm::Expected<std::vector<ImplementationDelta>> deltas =
      flashAttentionDeltas(BlockWork(), kRows);
  ASSERT_FALSE(static_cast<bool>(deltas));
  EXPECT_EQ(llvm::toString(deltas.takeError()),
            "flash-attention: the block has no forward 'qk_matmul', so "
            "there is no attention core to fuse");
  deltas = flashAttentionDeltas(smallBlock(RecomputePolicy::None), 0);
  ASSERT_FALSE(static_cast<bool>(deltas));
  EXPECT_EQ(llvm::toString(deltas.takeError()),
            "flash-attention: the statistic rows b x (a/t) x s_q must be "
            "positive, got 0");
}
