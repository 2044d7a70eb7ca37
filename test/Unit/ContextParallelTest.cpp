//===- ContextParallelTest.cpp - Closed forms of context parallelism ------===//
//
// Each closed form of ContextParallel.h against an independent computation
// written here: the score pairs against an explicit loop over ranks, ring
// steps, chunk pairs and query-key positions; the exchange against a
// simulation of TransformerEngine's ring and the all-gather's definition.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ContextParallel.h"

#include "gtest/gtest.h"

#include <array>
#include <set>
#include <tuple>

using namespace blueprint::workload;

namespace {

/// Query-key pairs rank `rank` of `cp` computes per head and sequence of
/// `seq` tokens, by enumeration. The sequence is cut into 2 cp chunks of c
/// tokens; rank r holds chunks r and 2 cp - 1 - r. At ring step t the rank
/// holds the keys of rank (r - t) mod cp. A flash-attention call takes whole
/// chunks, so one step's call covers every query chunk holding a query that
/// sees a key of the step (key <= query) against every key chunk holding
/// such a key, computed in full with the causal mask. TransformerEngine's
/// three cases (step 0: both chunks against both; lower rank: the keys'
/// first chunk only; higher rank: the second query chunk only) are not
/// written here; they fall out of the positions.
int64_t enumeratedScorePairs(int64_t seq, int64_t cp, int64_t rank) {
  int64_t c = seq / (2 * cp);
  std::array<int64_t, 2> queryChunks = {rank, 2 * cp - 1 - rank};
  int64_t pairs = 0;
  for (int64_t step = 0; step < cp; ++step) {
    int64_t keyRank = (rank - step + cp) % cp;
    std::array<int64_t, 2> keyChunks = {keyRank, 2 * cp - 1 - keyRank};
    std::set<int64_t> usedQueryChunks, usedKeyChunks;
    for (int64_t queryChunk : queryChunks)
      for (int64_t keyChunk : keyChunks)
        for (int64_t q = queryChunk * c; q < (queryChunk + 1) * c; ++q)
          for (int64_t k = keyChunk * c; k < (keyChunk + 1) * c; ++k)
            if (k <= q) {
              usedQueryChunks.insert(queryChunk);
              usedKeyChunks.insert(keyChunk);
            }
    pairs += static_cast<int64_t>(usedQueryChunks.size()) * c *
             static_cast<int64_t>(usedKeyChunks.size()) * c;
  }
  return pairs;
}

ModelSpec exchangeModel() {
  ModelSpec model;
  model.hidden = 256;
  model.heads = 8;
  model.kvHeads = 4;
  model.headDim = 32;
  model.ffnHidden = 1024;
  model.seqLength = 96;
  model.maxPositions = 96;
  model.vocab = 512;
  model.blocks = 2;
  return model;
}

} // namespace

// Every rank computes the same count, and it is s^2 (cp + 1) / (2 cp^2);
// the ranks together compute (cp + 1) / (2 cp) of the s^2 pairs a single
// rank would, the causal half plus the diagonal blocks.
TEST(ContextParallel, ScorePairsMatchEnumeration) {
  for (auto [seq, cp] : std::vector<std::pair<int64_t, int64_t>>{
           {4, 2}, {12, 2}, {12, 3}, {16, 4}, {32, 8}, {40, 5}}) {
    llvm::Expected<ContextParallelShape> shape = contextParallelShape(seq, cp);
    ASSERT_TRUE(static_cast<bool>(shape)) << llvm::toString(shape.takeError());
    EXPECT_EQ(shape->chunkTokens * 2 * cp, seq);
    EXPECT_EQ(shape->rankTokens * cp, seq);
    for (int64_t rank = 0; rank < cp; ++rank)
      EXPECT_EQ(shape->scorePairs, enumeratedScorePairs(seq, cp, rank))
          << "seq " << seq << " cp " << cp << " rank " << rank;
    EXPECT_EQ(shape->scorePairs * 2 * cp * cp, seq * seq * (cp + 1));
  }
}

// cp = 1 is today's shape for any sequence, odd ones included.
TEST(ContextParallel, OneRankIsTheWholeSequence) {
  for (int64_t seq : {1, 7, 512}) {
    llvm::Expected<ContextParallelShape> shape = contextParallelShape(seq, 1);
    ASSERT_TRUE(static_cast<bool>(shape)) << llvm::toString(shape.takeError());
    EXPECT_EQ(shape->rankTokens, seq);
    EXPECT_EQ(shape->scorePairs, seq * seq);
  }
}

// A sequence not cut into 2 cp chunks, a non-positive cp and a 64-bit
// overflow are errors naming the rule or the quantity.
TEST(ContextParallel, ShapeErrors) {
  llvm::Expected<ContextParallelShape> odd = contextParallelShape(100, 3);
  ASSERT_FALSE(static_cast<bool>(odd));
  EXPECT_NE(llvm::toString(odd.takeError()).find("[context_parallel_c1]"),
            std::string::npos);
  llvm::Expected<ContextParallelShape> zero = contextParallelShape(100, 0);
  ASSERT_FALSE(static_cast<bool>(zero));
  EXPECT_NE(llvm::toString(zero.takeError()).find("cp = 0"), std::string::npos);
  int64_t huge = int64_t(1) << 40;
  llvm::Expected<ContextParallelShape> overflow = contextParallelShape(huge, 2);
  ASSERT_FALSE(static_cast<bool>(overflow));
  EXPECT_NE(llvm::toString(overflow.takeError()).find("chunk tokens squared"),
            std::string::npos);
}

// The ring against a simulation of TransformerEngine's loop: forward, rank
// r sends at steps i < cp - 1 the K,V block it holds; backward, it sends
// K,V at steps 0 .. cp - 2 and the accumulated dK,dV at 1 .. cp - 1. The
// bytes of one block are written out from the model: b = 2 sequences,
// s / cp = 48 tokens at cp = 2, kv_heads / tp = 2 heads of 32 dims, keys
// and values, bf16: 2 * 2 * 48 * 2 * 32 * 2 = 24576 bytes.
TEST(ContextParallel, RingMatchesTransformerEngineLoop) {
  ModelSpec model = exchangeModel();
  TrainingSpec training;
  training.microBatch = 2;
  training.globalBatch = 2;
  for (int64_t cp : {2, 3, 4})
    for (RecomputePolicy recompute :
         {RecomputePolicy::None, RecomputePolicy::Selective}) {
      MappingSpec mapping;
      mapping.tp = 2;
      mapping.cp = cp;
      mapping.world = 2 * cp;
      mapping.recompute = recompute;
      int64_t block = 2 * 2 * (96 / cp) * (4 / 2) * 32 * 2;
      if (cp == 2) {
        EXPECT_EQ(block, 24576);
      }
      int64_t forwardSends = 0, kvSends = 0, gradSends = 0;
      for (int64_t i = 0; i < cp; ++i)
        forwardSends += i < cp - 1 ? 1 : 0;
      for (int64_t i = 0; i < cp; ++i) {
        kvSends += i <= cp - 2 ? 1 : 0;
        gradSends += i >= 1 ? 1 : 0;
      }
      llvm::Expected<std::vector<ContextParallelTransfer>> exchange =
          contextParallelExchange(model, training, mapping);
      ASSERT_TRUE(static_cast<bool>(exchange))
          << llvm::toString(exchange.takeError());
      std::vector<std::tuple<Phase, std::string, int64_t>> expected = {
          {Phase::Forward, "kv", forwardSends}};
      if (recompute != RecomputePolicy::None)
        expected.push_back({Phase::Recompute, "kv", forwardSends});
      expected.push_back({Phase::ActivationGrad, "kv", kvSends});
      expected.push_back({Phase::ActivationGrad, "d_kv", gradSends});
      ASSERT_EQ(exchange->size(), expected.size());
      for (auto [transfer, want] : llvm::zip(*exchange, expected)) {
        EXPECT_EQ(transfer.phase, std::get<0>(want));
        EXPECT_EQ(transfer.tensor, std::get<1>(want));
        EXPECT_FALSE(transfer.collective.has_value());
        EXPECT_EQ(transfer.count, std::get<2>(want));
        EXPECT_EQ(transfer.participants, cp);
        EXPECT_EQ(transfer.messageBytes, block);
        EXPECT_EQ(transfer.sentBytes, std::get<2>(want) * block);
      }
    }
}

// all_gather: the logical tensor is every rank's block; each rank sends the
// other cp - 1 ranks' worth ((n - 1) M / n), the same bytes as the ring.
TEST(ContextParallel, AllGatherExchange) {
  ModelSpec model = exchangeModel();
  TrainingSpec training;
  training.microBatch = 1;
  training.globalBatch = 1;
  training.activationType = DataType::F32;
  MappingSpec mapping;
  mapping.tp = 1;
  mapping.cp = 4;
  mapping.world = 4;
  mapping.cpComm = CPCommMode::AllGather;
  mapping.recompute = RecomputePolicy::Full;
  // 2 (K and V) * 1 sequence * 24 tokens * 4 kv heads * 32 dims * 4 bytes.
  int64_t block = 2 * 1 * 24 * 4 * 32 * 4;
  llvm::Expected<std::vector<ContextParallelTransfer>> exchange =
      contextParallelExchange(model, training, mapping);
  ASSERT_TRUE(static_cast<bool>(exchange))
      << llvm::toString(exchange.takeError());
  std::vector<std::tuple<Phase, std::string, CollectiveKind>> expected = {
      {Phase::Forward, "kv", CollectiveKind::AllGather},
      {Phase::Recompute, "kv", CollectiveKind::AllGather},
      {Phase::ActivationGrad, "kv", CollectiveKind::AllGather},
      {Phase::ActivationGrad, "d_kv", CollectiveKind::ReduceScatter}};
  ASSERT_EQ(exchange->size(), expected.size());
  for (auto [transfer, want] : llvm::zip(*exchange, expected)) {
    EXPECT_EQ(transfer.phase, std::get<0>(want));
    EXPECT_EQ(transfer.tensor, std::get<1>(want));
    EXPECT_EQ(transfer.collective, std::get<2>(want));
    EXPECT_EQ(transfer.count, 1);
    EXPECT_EQ(transfer.participants, 4);
    EXPECT_EQ(transfer.messageBytes, 4 * block);
    EXPECT_EQ(transfer.sentBytes, 3 * block);
  }
}

// No exchange at cp = 1; the shape's rule is reported through the exchange.
TEST(ContextParallel, ExchangeEdges) {
  ModelSpec model = exchangeModel();
  TrainingSpec training;
  training.microBatch = 1;
  MappingSpec mapping;
  llvm::Expected<std::vector<ContextParallelTransfer>> none =
      contextParallelExchange(model, training, mapping);
  ASSERT_TRUE(static_cast<bool>(none)) << llvm::toString(none.takeError());
  EXPECT_TRUE(none->empty());
  mapping.cp = 5;
  llvm::Expected<std::vector<ContextParallelTransfer>> uneven =
      contextParallelExchange(model, training, mapping);
  ASSERT_FALSE(static_cast<bool>(uneven));
  EXPECT_NE(llvm::toString(uneven.takeError()).find("[context_parallel_c1]"),
            std::string::npos);
}
