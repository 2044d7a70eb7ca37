//===- ContextParallelTest.cpp - Closed forms of context parallelism ------===//
//
// Each closed form of ContextParallel.h against an independent computation
// written here: the score pairs against an explicit loop over ranks, ring
// steps, chunk pairs and query-key positions; the exchange against a
// simulation of TransformerEngine's ring and the all-gather's definition.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ContextParallel.h"

#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/Primitives.h"
#include "Blueprint/Workload/WholeRun.h"

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

/// A training run of one sequence per micro-batch on tp x cp ranks.
MappingSpec rankMapping(int64_t tp, int64_t cp, TPCommMode tpComm,
                        RecomputePolicy recompute) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.cp = cp;
  mapping.world = tp * cp;
  mapping.tpComm = tpComm;
  mapping.recompute = recompute;
  return mapping;
}

TrainingSpec rankTraining() {
  TrainingSpec training;
  training.microBatch = 1;
  training.globalBatch = 2;
  return training;
}

/// The ops of `work` at cp against the same work at cp = 1, invocation by
/// invocation. Token-proportional work summed over the cp ranks is the
/// sequence's: cp * ops == ops at cp = 1. The attention matmuls and the
/// attention dropout run over the rank's score pairs, s^2 (cp + 1) /
/// (2 cp^2) per head and sequence against s^2: cp * ops * 2 cp ==
/// ops(cp = 1) * (cp + 1). The softmax has a per-row term over the rank's
/// s / cp rows besides its per-pair term; it is written out by hand from
/// opcount (b = 1, heads / tp heads, chunk c = s / (2 cp), c (cp + 1)
/// pairs per row). `perMicroBatchOps` is the work the cp ranks repeat
/// rather than split (the loss average's divisions), per invocation.
void expectRanksSumToSequence(
    const BlockWork &split, const BlockWork &whole, int64_t cp,
    int64_t headsPerRank, int64_t seq,
    llvm::function_ref<int64_t(const Invocation &)> perMicroBatchOps) {
  ASSERT_EQ(split.invocations.size(), whole.invocations.size());
  int64_t rows = headsPerRank * (seq / cp);
  int64_t pairsPerRow = seq / (2 * cp) * (cp + 1);
  for (auto [part, full] : llvm::zip(split.invocations, whole.invocations)) {
    ASSERT_EQ(part.primitive, full.primitive);
    ASSERT_EQ(part.phase, full.phase);
    SCOPED_TRACE(part.primitive + " " + stringifyEnum(part.phase).str());
    if (part.primitive == primitive::kSoftmax &&
        part.phase != Phase::ActivationGrad) {
      EXPECT_EQ(part.ops,
                rows * (pairsPerRow * opcount::kSoftmaxForwardPerElement +
                        opcount::kSoftmaxForwardPerRow));
      EXPECT_EQ(full.ops, headsPerRank * seq *
                              (seq * opcount::kSoftmaxForwardPerElement +
                               opcount::kSoftmaxForwardPerRow));
    } else if (primitive::isAttentionCore(part.primitive)) {
      EXPECT_EQ(cp * part.ops * 2 * cp, full.ops * (cp + 1));
    } else {
      int64_t repeated = perMicroBatchOps(part);
      EXPECT_EQ(cp * (part.ops - repeated), full.ops - repeated);
    }
    if (part.collective) {
      ASSERT_TRUE(full.collective.has_value());
      EXPECT_EQ(part.collective->participants, full.collective->participants);
      EXPECT_EQ(cp * part.collective->messageBytes,
                full.collective->messageBytes);
    }
  }
}

/// Whether `invocation` is a collective over the cp axis.
bool isExchange(const Invocation &invocation) {
  return invocation.collective && invocation.collective->axis == "cp";
}

/// The index of `primitive` in `phase` in `work`, or -1.
int64_t indexOf(const BlockWork &work, llvm::StringRef primitive, Phase phase) {
  for (size_t index = 0; index < work.invocations.size(); ++index)
    if (work.invocations[index].primitive == primitive &&
        work.invocations[index].phase == phase)
      return static_cast<int64_t>(index);
  return -1;
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

// ring: TransformerEngine's AttnFuncWithCPAndKVP2P loop, simulated here,
// sends the rank's K,V forward at steps i < cp - 1, and backward K,V at
// steps 0 .. cp - 2 and the accumulating dK,dV at steps 1 .. cp - 1: cp - 1
// messages of the rank's block each, the bytes each rank sends in a ring
// all-gather or reduce-scatter of the cp blocks. The ring holds the rank's
// block and the one in flight.
TEST(ContextParallel, RingMatchesTransformerEngineLoop) {
  ModelSpec model = exchangeModel();
  TrainingSpec training;
  training.microBatch = 2;
  training.globalBatch = 2;
  for (int64_t cp : {2, 3, 4})
    for (RecomputePolicy recompute :
         {RecomputePolicy::None, RecomputePolicy::Selective}) {
      MappingSpec mapping =
          rankMapping(2, cp, TPCommMode::AllReduce, recompute);
      // 2 (K and V) * 2 sequences * s / cp tokens * 4 / 2 kv heads * 32
      // dims * 2 bytes.
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
      std::vector<std::tuple<Phase, std::string, CollectiveKind, int64_t>>
          expected = {
              {Phase::Forward, "kv", CollectiveKind::AllGather, forwardSends}};
      if (recompute != RecomputePolicy::None)
        expected.push_back({Phase::Recommunication, "kv",
                            CollectiveKind::AllGather, forwardSends});
      expected.push_back(
          {Phase::ActivationGrad, "kv", CollectiveKind::AllGather, kvSends});
      expected.push_back({Phase::ActivationGrad, "d_kv",
                          CollectiveKind::ReduceScatter, gradSends});
      ASSERT_EQ(exchange->size(), expected.size());
      for (auto [transfer, want] : llvm::zip(*exchange, expected)) {
        EXPECT_EQ(transfer.phase, std::get<0>(want));
        EXPECT_EQ(transfer.tensor, std::get<1>(want));
        EXPECT_EQ(transfer.collective, std::get<2>(want));
        EXPECT_EQ(transfer.participants, cp);
        EXPECT_EQ(transfer.messageBytes, cp * block);
        EXPECT_EQ(transfer.sentBytes, std::get<3>(want) * block);
        EXPECT_EQ(transfer.attentionLiveBytes, 2 * block);
        // A reduce-scatter adds the cp - 1 other ranks' gradients into each
        // element of the rank's block (block / 2 bytes at bf16).
        EXPECT_EQ(transfer.ops,
                  transfer.collective == CollectiveKind::ReduceScatter
                      ? (cp - 1) * (block / 2)
                      : 0);
        EXPECT_NE(transfer.cause.find("AttnFuncWithCPAndKVP2P"),
                  std::string::npos);
      }
    }
}

// all_gather: the logical tensor is every rank's block; each rank sends the
// other cp - 1 ranks' worth ((n - 1) M / n), the same bytes as the ring,
// and the attention call holds the gathered s tokens.
TEST(ContextParallel, AllGatherExchange) {
  ModelSpec model = exchangeModel();
  TrainingSpec training;
  training.microBatch = 1;
  training.globalBatch = 1;
  training.activationType = DataType::F32;
  MappingSpec mapping =
      rankMapping(1, 4, TPCommMode::AllReduce, RecomputePolicy::Full);
  mapping.cpComm = CPCommMode::AllGather;
  // 2 (K and V) * 1 sequence * 24 tokens * 4 kv heads * 32 dims * 4 bytes.
  int64_t block = 2 * 1 * 24 * 4 * 32 * 4;
  llvm::Expected<std::vector<ContextParallelTransfer>> exchange =
      contextParallelExchange(model, training, mapping);
  ASSERT_TRUE(static_cast<bool>(exchange))
      << llvm::toString(exchange.takeError());
  std::vector<std::tuple<Phase, std::string, CollectiveKind>> expected = {
      {Phase::Forward, "kv", CollectiveKind::AllGather},
      {Phase::Recommunication, "kv", CollectiveKind::AllGather},
      {Phase::ActivationGrad, "kv", CollectiveKind::AllGather},
      {Phase::ActivationGrad, "d_kv", CollectiveKind::ReduceScatter}};
  ASSERT_EQ(exchange->size(), expected.size());
  for (auto [transfer, want] : llvm::zip(*exchange, expected)) {
    EXPECT_EQ(transfer.phase, std::get<0>(want));
    EXPECT_EQ(transfer.tensor, std::get<1>(want));
    EXPECT_EQ(transfer.collective, std::get<2>(want));
    EXPECT_EQ(transfer.participants, 4);
    EXPECT_EQ(transfer.messageBytes, 4 * block);
    EXPECT_EQ(transfer.sentBytes, 3 * block);
    EXPECT_EQ(transfer.attentionLiveBytes, 4 * block);
    EXPECT_EQ(transfer.ops, transfer.collective == CollectiveKind::ReduceScatter
                                ? 3 * (block / 4)
                                : 0);
    EXPECT_NE(transfer.cause.find("AttnFuncWithCPAndKVAllGather"),
              std::string::npos);
  }
}

// Under multi-head latent attention the exchanged keys are head_dim =
// qk_nope + qk_rope wide and the values v_head_dim wide, per head.
TEST(ContextParallel, LatentAttentionExchangeHasItsValueWidth) {
  ModelSpec model = exchangeModel();
  model.kvHeads = model.heads;
  model.kvLoraRank = 64;
  model.qkNopeHeadDim = 32;
  model.qkRopeHeadDim = 16;
  model.vHeadDim = 24;
  model.headDim = 48;
  model.positionEmbedding = PositionEmbedding::Rotary;
  model.linearBias = LinearBias::None;
  TrainingSpec training;
  training.microBatch = 1;
  training.globalBatch = 1;
  training.activationType = DataType::F32;
  MappingSpec mapping =
      rankMapping(2, 4, TPCommMode::AllReduce, RecomputePolicy::None);
  // 1 sequence * 24 tokens * (8 heads / tp 2) * (48 key + 24 value dims)
  // * 4 bytes.
  int64_t block = 1 * 24 * 4 * (48 + 24) * 4;
  llvm::Expected<std::vector<ContextParallelTransfer>> exchange =
      contextParallelExchange(model, training, mapping);
  ASSERT_TRUE(static_cast<bool>(exchange))
      << llvm::toString(exchange.takeError());
  ASSERT_FALSE(exchange->empty());
  for (const ContextParallelTransfer &transfer : *exchange) {
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

// One rank's block work at cp = 2 and 4, summed over the cp ranks, is the
// cp = 1 work of the sequence except the attention core, whose score pairs
// are s^2 (cp + 1) / (2 cp) over the ranks against s^2 (both computed in
// full with the causal mask, block by block). Every tensor-parallel mode and
// recompute policy; the same for the stash, token-proportional outside the
// attention core.
TEST(ContextParallel, BlockWorkOverRanksIsTheSequence) {
  ModelSpec model = exchangeModel();
  TrainingSpec training = rankTraining();
  for (int64_t cp : {2, 4})
    for (TPCommMode tpComm :
         {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather})
      for (RecomputePolicy recompute :
           {RecomputePolicy::None, RecomputePolicy::Selective,
            RecomputePolicy::Full}) {
        SCOPED_TRACE("cp " + std::to_string(cp));
        llvm::Expected<BlockWork> split = deriveBlockWork(
            model, training, rankMapping(2, cp, tpComm, recompute));
        ASSERT_TRUE(static_cast<bool>(split))
            << llvm::toString(split.takeError());
        llvm::Expected<BlockWork> whole = deriveBlockWork(
            model, training, rankMapping(2, 1, tpComm, recompute));
        ASSERT_TRUE(static_cast<bool>(whole))
            << llvm::toString(whole.takeError());
        // The key/value exchange has no counterpart at cp = 1
        // (BlockWorkHoldsTheExchange checks it); the rest is compared.
        BlockWork computed = *split;
        llvm::erase_if(computed.invocations, isExchange);
        expectRanksSumToSequence(computed, *whole, cp, model.heads / 2, 96,
                                 [](const Invocation &) { return 0; });
        // Stashed tensors over the score pairs (the softmax output, the
        // attention dropout's mask and output) follow the pairs, every other
        // the tokens.
        const std::set<std::string> scoreTensors = {"probs", "probs_dropped",
                                                    "attn_dropout_mask"};
        for (auto [part, full] :
             llvm::zip(computed.invocations, whole->invocations)) {
          ASSERT_EQ(part.stashed.size(), full.stashed.size());
          for (auto [kept, reference] : llvm::zip(part.stashed, full.stashed)) {
            SCOPED_TRACE(kept.tensor);
            ASSERT_EQ(kept.tensor, reference.tensor);
            if (scoreTensors.count(kept.tensor)) {
              EXPECT_EQ(cp * kept.bytes * 2 * cp, reference.bytes * (cp + 1));
            } else {
              EXPECT_EQ(cp * kept.bytes, reference.bytes);
            }
          }
        }
        // The rank's scores: heads / tp x s / cp rows x c (cp + 1) pairs,
        // bf16, written by hand: 4 heads x 48 x 72 at cp = 2 and
        // 4 x 24 x 60 at cp = 4.
        const Invocation *scores =
            split->find(primitive::kQKMatmul, Phase::Forward);
        ASSERT_NE(scores, nullptr);
        ASSERT_EQ(scores->writes.size(), 1u);
        EXPECT_EQ(scores->writes[0].bytes,
                  cp == 2 ? 4 * 48 * 72 * 2 : 4 * 24 * 60 * 2);
      }
}

// The run's hardware FLOPs count every rank of a stage, tp x dp x cp: at
// cp = 2 the ranks together run the cp = 1 matmuls, except the attention
// core's (qk_matmul, attn_v_matmul), of which they run (cp + 1) / (2 cp)
// (BlockWorkOverRanksIsTheSequence). With Core the cp = 1 run's core
// matmul ops, derived here from its block work x tp x dp x blocks x
// micro-batches: 2 cp H(cp) = 2 cp H(1) - (cp - 1) Core. The model's FLOPs
// are the model's, however context parallelism runs them: M(cp) = M(1).
TEST(ContextParallel, RunFlopsCountTheContextParallelRanks) {
  ModelSpec model = exchangeModel();
  TrainingSpec training = rankTraining();
  auto runFlops = [&](int64_t cp) -> std::pair<int64_t, int64_t> {
    MappingSpec mapping =
        rankMapping(2, cp, TPCommMode::AllReduce, RecomputePolicy::None);
    llvm::Expected<WholeRun> run = deriveWholeRun(model, training, mapping);
    if (!run) {
      ADD_FAILURE() << llvm::toString(run.takeError());
      return {-1, -1};
    }
    llvm::Expected<std::vector<StageTotals>> stages = summarizeWholeRun(*run);
    if (!stages) {
      ADD_FAILURE() << llvm::toString(stages.takeError());
      return {-1, -1};
    }
    llvm::Expected<blueprint::analysis::RunFlops> flops =
        blueprint::analysis::runFlopsOf(*stages, model, training, mapping);
    if (!flops) {
      ADD_FAILURE() << llvm::toString(flops.takeError());
      return {-1, -1};
    }
    return {flops->model.getSExtValue(), flops->hardware.getSExtValue()};
  };
  llvm::Expected<BlockWork> whole = deriveBlockWork(
      model, training,
      rankMapping(2, 1, TPCommMode::AllReduce, RecomputePolicy::None));
  ASSERT_TRUE(static_cast<bool>(whole)) << llvm::toString(whole.takeError());
  int64_t coreOpsPerRank = 0;
  for (const Invocation &invocation : whole->invocations)
    if (invocation.engine == Engine::Matmul &&
        (invocation.primitive == primitive::kQKMatmul ||
         invocation.primitive == primitive::kAttnVMatmul))
      coreOpsPerRank += invocation.ops;
  ASSERT_GT(coreOpsPerRank, 0);
  // tp = 2 ranks, dp = 1, 2 blocks on one stage, global_batch 2 / micro 1.
  int64_t core = coreOpsPerRank * 2 * model.blocks * 2;
  auto [modelOne, hardwareOne] = runFlops(1);
  // Without recompute the model's FLOPs at cp = 1 are what runs.
  EXPECT_EQ(modelOne, hardwareOne);
  for (int64_t cp : {2, 4}) {
    auto [modelFlops, hardwareFlops] = runFlops(cp);
    EXPECT_EQ(2 * cp * hardwareFlops, 2 * cp * hardwareOne - (cp - 1) * core);
    EXPECT_EQ(modelFlops, modelOne);
  }
}

// The edges run on the rank's s / cp tokens: the embedding and the LM head
// with its loss, summed over the cp ranks, are the sequence's, except the
// loss average's per-micro-batch divisions, which every rank runs.
TEST(ContextParallel, EdgeWorkOverRanksIsTheSequence) {
  ModelSpec model = exchangeModel();
  TrainingSpec training = rankTraining();
  auto perMicroBatch = [](const Invocation &invocation) -> int64_t {
    if (invocation.primitive != primitive::kLossAverage)
      return 0;
    return invocation.phase == Phase::Forward
               ? opcount::kLossAveragePerMicroBatch
               : opcount::kLossAverageGradPerMicroBatch;
  };
  for (int64_t cp : {2, 4})
    for (TPCommMode tpComm :
         {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather}) {
      SCOPED_TRACE("cp " + std::to_string(cp));
      MappingSpec split = rankMapping(2, cp, tpComm, RecomputePolicy::None);
      MappingSpec whole = rankMapping(2, 1, tpComm, RecomputePolicy::None);
      for (auto derive : {deriveEmbeddingWork, deriveHeadWork}) {
        llvm::Expected<BlockWork> part = derive(model, training, split);
        ASSERT_TRUE(static_cast<bool>(part))
            << llvm::toString(part.takeError());
        llvm::Expected<BlockWork> full = derive(model, training, whole);
        ASSERT_TRUE(static_cast<bool>(full))
            << llvm::toString(full.takeError());
        expectRanksSumToSequence(*part, *full, cp, model.heads / 2, 96,
                                 perMicroBatch);
      }
    }
}

// A training run at cp > 1 whose composition rules hold is valid: no rule
// refuses its program (context_parallel_c5 was dropped once the program's
// mesh, gradient reduction and dist/pplan programs were derived).
TEST(ContextParallel, TrainingRunsAtCpAboveOneAreValid) {
  ModelSpec model = exchangeModel();
  TrainingSpec training = rankTraining();
  MappingSpec mapping =
      rankMapping(2, 2, TPCommMode::AllReduce, RecomputePolicy::None);
  EXPECT_TRUE(checkTrainingRun(model, training, mapping).empty());
}

// The block's work at cp > 1 holds the key/value exchange as collectives
// over the cp axis, in phase and place: the forward all-gather after the
// keys and values (and their rotation) and before the scores, its rerun
// (recommunication) before the recomputed scores under selective and full
// recompute, the backward all-gather before the attention backward and the
// reduce-scatter of dK,dV right after it. Bytes by hand: the rank's keys
// and values are 2 b (s / cp) (kv_heads / tp) head_dim elements, bf16, and
// the message is cp times that.
TEST(ContextParallel, BlockWorkHoldsTheExchange) {
  ModelSpec model = exchangeModel();
  TrainingSpec training = rankTraining();
  const int64_t tp = 2;
  for (PositionEmbedding position :
       {PositionEmbedding::Learned, PositionEmbedding::Rotary})
    for (int64_t cp : {2, 4})
      for (CPCommMode cpComm : {CPCommMode::Ring, CPCommMode::AllGather})
        for (RecomputePolicy recompute :
             {RecomputePolicy::None, RecomputePolicy::Selective,
              RecomputePolicy::Full}) {
          SCOPED_TRACE("cp " + std::to_string(cp) + " " +
                       stringifyEnum(cpComm).str() + " " +
                       stringifyEnum(recompute).str() + " " +
                       stringifyEnum(position).str());
          model.positionEmbedding = position;
          MappingSpec mapping =
              rankMapping(tp, cp, TPCommMode::AllReduce, recompute);
          mapping.cpComm = cpComm;
          llvm::Expected<BlockWork> work =
              deriveBlockWork(model, training, mapping);
          ASSERT_TRUE(static_cast<bool>(work))
              << llvm::toString(work.takeError());
          // b = 1, s = 96, kv_heads = 4, head_dim = 32, bf16.
          int64_t rankElements = 2 * 1 * (96 / cp) * (4 / tp) * 32;
          int64_t messageBytes = rankElements * 2 * cp;
          struct Expected {
            llvm::StringRef primitive;
            Phase phase;
            CollectiveKind kind;
            llvm::StringRef tensor;
          };
          std::vector<Expected> expected = {{"cp_kv_gather", Phase::Forward,
                                             CollectiveKind::AllGather, "kv"}};
          if (recompute != RecomputePolicy::None)
            expected.push_back({"cp_kv_gather", Phase::Recommunication,
                                CollectiveKind::AllGather, "kv"});
          expected.push_back({"cp_kv_gather", Phase::ActivationGrad,
                              CollectiveKind::AllGather, "kv"});
          expected.push_back({"cp_dkv_reduce_scatter", Phase::ActivationGrad,
                              CollectiveKind::ReduceScatter, "d_kv"});
          std::vector<size_t> found;
          for (size_t index = 0; index < work->invocations.size(); ++index)
            if (isExchange(work->invocations[index]))
              found.push_back(index);
          ASSERT_EQ(found.size(), expected.size());
          llvm::Expected<std::vector<ContextParallelTransfer>> transfers =
              contextParallelExchange(model, training, mapping);
          ASSERT_TRUE(static_cast<bool>(transfers))
              << llvm::toString(transfers.takeError());
          ASSERT_EQ(transfers->size(), expected.size());
          for (size_t i = 0; i < expected.size(); ++i) {
            const Invocation &invocation = work->invocations[found[i]];
            SCOPED_TRACE(invocation.primitive);
            EXPECT_EQ(invocation.primitive, expected[i].primitive);
            EXPECT_EQ(invocation.phase, expected[i].phase);
            EXPECT_EQ(invocation.engine, Engine::Collective);
            ASSERT_TRUE(invocation.collective.has_value());
            EXPECT_EQ(invocation.collective->kind, expected[i].kind);
            EXPECT_EQ(invocation.collective->participants, cp);
            EXPECT_EQ(invocation.collective->messageBytes, messageBytes);
            EXPECT_EQ(invocation.collective->axis, "cp");
            bool gather = expected[i].kind == CollectiveKind::AllGather;
            EXPECT_EQ(invocation.collective->reduction,
                      gather ? ReductionKind::None : ReductionKind::Sum);
            // A reduce-scatter adds cp - 1 partial values into each element
            // of the rank's shard; a gather adds nothing.
            EXPECT_EQ(invocation.ops, gather ? 0 : (cp - 1) * rankElements);
            int64_t shard = messageBytes / cp;
            ASSERT_EQ(invocation.reads.size(), 1u);
            ASSERT_EQ(invocation.writes.size(), 1u);
            EXPECT_EQ(invocation.reads[0].tensor, expected[i].tensor);
            EXPECT_EQ(invocation.reads[0].bytes, gather ? shard : messageBytes);
            EXPECT_EQ(invocation.writes[0].bytes,
                      gather ? messageBytes : shard);
            EXPECT_EQ(invocation.stashBytes, 0);
            EXPECT_EQ(invocation.cause, (*transfers)[i].cause);
            EXPECT_NE(
                invocation.cause.find(cpComm == CPCommMode::Ring
                                          ? "AttnFuncWithCPAndKVP2P"
                                          : "AttnFuncWithCPAndKVAllGather"),
                std::string::npos);
          }
          // In place: the forward gather follows the keys and values (and
          // their rotation) and precedes the scores.
          int64_t keysMade =
              position == PositionEmbedding::Rotary
                  ? indexOf(*work, primitive::kRotary, Phase::Forward)
                  : indexOf(*work, primitive::kQKVProj, Phase::Forward);
          EXPECT_EQ(static_cast<int64_t>(found[0]), keysMade + 1);
          EXPECT_EQ(static_cast<int64_t>(found[0]) + 1,
                    indexOf(*work, primitive::kQKMatmul, Phase::Forward));
          // The rerun directly precedes the recomputed scores and, under
          // full recompute, directly follows the recomputed rotation (or
          // qkv_proj).
          size_t backward = 1;
          if (recompute != RecomputePolicy::None) {
            int64_t rerun = static_cast<int64_t>(found[1]);
            EXPECT_EQ(rerun + 1,
                      indexOf(*work, primitive::kQKMatmul, Phase::Recompute));
            if (recompute == RecomputePolicy::Full) {
              EXPECT_EQ(rerun - 1, indexOf(*work,
                                           position == PositionEmbedding::Rotary
                                               ? primitive::kRotary
                                               : primitive::kQKVProj,
                                           Phase::Recompute));
            }
            backward = 2;
          }
          // The backward gather directly precedes the attention backward
          // (attn_v_matmul's input gradient), the reduce-scatter directly
          // follows it (qk_matmul's).
          EXPECT_EQ(
              static_cast<int64_t>(found[backward]) + 1,
              indexOf(*work, primitive::kAttnVMatmul, Phase::ActivationGrad));
          EXPECT_EQ(
              static_cast<int64_t>(found[backward + 1]) - 1,
              indexOf(*work, primitive::kQKMatmul, Phase::ActivationGrad));
        }
}

// At cp = 1 the block has no exchange and every collective is on the
// tensor axis, as before the axis existed.
TEST(ContextParallel, BlockWorkAtCpOneHasNoExchange) {
  ModelSpec model = exchangeModel();
  TrainingSpec training = rankTraining();
  for (RecomputePolicy recompute :
       {RecomputePolicy::None, RecomputePolicy::Selective,
        RecomputePolicy::Full}) {
    llvm::Expected<BlockWork> work = deriveBlockWork(
        model, training,
        rankMapping(2, 1, TPCommMode::ReduceScatterAllGather, recompute));
    ASSERT_TRUE(static_cast<bool>(work)) << llvm::toString(work.takeError());
    int64_t collectives = 0;
    for (const Invocation &invocation : work->invocations) {
      if (!invocation.collective)
        continue;
      ++collectives;
      EXPECT_EQ(invocation.collective->axis, "tp");
    }
    EXPECT_GT(collectives, 0);
  }
}
