//===- ModelSummaryTest.cpp - Model-level quantities and iteration time ---===//
//
// Each formula of lib/Analysis on hand-computed cases; the model-level
// quantities against the closed forms they must equal (MLM2021 Eq. 2, SeqSel
// Eq. 7 and Table 2 times the schedule's chunks in flight), including FLOP
// totals past int64_t; and the iteration time as the sum of its terms, each
// built from the block estimate of lib/Estimate.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/ModelSummary.h"

#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/EdgeWork.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>

#ifndef BLUEPRINT_PROFILES_DIR
#error "BLUEPRINT_PROFILES_DIR must name the profiles directory"
#endif

using namespace blueprint;
using namespace blueprint::analysis;
using namespace blueprint::workload;

using blueprint::test::valueOrFail;

namespace {

std::string errorOf(llvm::Error error) {
  EXPECT_TRUE(static_cast<bool>(error)) << "expected an error";
  return llvm::toString(std::move(error));
}

/// A Megatron GPT shape of SeqSel Table 3: s = 2048, V = 51200, f = 4h.
ModelSpec gpt(int64_t hidden, int64_t heads, int64_t blocks) {
  ModelSpec model;
  model.hidden = hidden;
  model.heads = heads;
  model.kvHeads = heads;
  model.headDim = hidden / heads;
  model.ffnHidden = 4 * hidden;
  model.seqLength = 2048;
  model.maxPositions = 2048;
  model.vocab = 51200;
  model.blocks = blocks;
  return model;
}

TrainingSpec mixedPrecision(int64_t globalBatch, int64_t microBatch) {
  TrainingSpec training;
  training.globalBatch = globalBatch;
  training.microBatch = microBatch;
  training.gradientType = DataType::F32;
  return training;
}

MappingSpec mapping(int64_t tp, int64_t pp, int64_t dp, int64_t v,
                    TPCommMode comm, RecomputePolicy recompute) {
  MappingSpec result;
  result.tp = tp;
  result.pp = pp;
  result.dp = dp;
  result.world = tp * pp * dp;
  result.virtualStages = v;
  result.tpComm = comm;
  result.recompute = recompute;
  result.schedule = v > 1 ? PipelineSchedule::Interleaved1F1B
                          : PipelineSchedule::OneFOneB;
  return result;
}

/// What a plan of these contracts holds, derived by the algebra the
/// distribute pass uses.
PlanWork planWork(const ModelSpec &model, const TrainingSpec &training,
                  const MappingSpec &mapping) {
  PlanWork work;
  work.model = model;
  work.training = training;
  work.mapping = mapping;
  work.perMicroBatch = valueOrFail(deriveBlockWork(model, training, mapping));
  work.perIteration =
      valueOrFail(deriveOptimizerWork(model, training, mapping));
  int64_t output = training.microBatch * model.seqLength * model.hidden *
                   bytesOf(training.activationType);
  work.blockOutputBytesPerRank =
      mapping.tpComm == TPCommMode::ReduceScatterAllGather ? output / mapping.tp
                                                            : output;
  return work;
}

/// SeqSel Table 3's 175B run: TP 8 x PP 8, v = 3, B = 64, b = 1.
PlanWork gpt175b(TPCommMode comm, RecomputePolicy recompute, int64_t dp = 1) {
  return planWork(gpt(12288, 96, 96), mixedPrecision(64 * dp, 1),
                  mapping(8, 8, dp, 3, comm, recompute));
}

llvm::APInt wide(int64_t value) {
  return llvm::APInt(WideGuard::kBits, static_cast<uint64_t>(value));
}

estimate::NetworkTierBinding bind(std::vector<std::string> entries) {
  return valueOrFail(estimate::parseNetworkTierBindingEntries(entries));
}

//===----------------------------------------------------------------------===//
// Formulas
//===----------------------------------------------------------------------===//

TEST(ModelSummaryFormulas, InFlightChunksFollowMegatronSchedules) {
  EXPECT_EQ(inFlightChunks(PipelineSchedule::GPipe, 64, 8, 1), 64);
  EXPECT_EQ(inFlightChunks(PipelineSchedule::OneFOneB, 64, 8, 1), 8);
  EXPECT_EQ(inFlightChunks(PipelineSchedule::OneFOneB, 3, 8, 1), 3);
  // Interleaved: 2(pp-1) + (v-1)pp warm-up chunk forwards, one more held.
  EXPECT_EQ(inFlightChunks(PipelineSchedule::Interleaved1F1B, 64, 8, 3), 31);
  EXPECT_EQ(inFlightChunks(PipelineSchedule::Interleaved1F1B, 8, 8, 3), 24);
  // For m >= pp the chunks held are pp*v * (1 + (pp-1)/(pp*v)): SeqSel
  // Sec. 4.2.3's interleaving factor, exactly.
  for (int64_t pp : {2, 8, 35, 64})
    for (int64_t v : {2, 3, 4})
      EXPECT_EQ(inFlightChunks(PipelineSchedule::Interleaved1F1B, 8 * pp, pp,
                               v),
                pp * v + pp - 1);
  EXPECT_EQ(inFlightChunks(PipelineSchedule::Interleaved1F1B,
                           std::numeric_limits<int64_t>::max(), 8, 3),
            31);
}

TEST(ModelSummaryFormulas, BubbleIsPipelineMinusOneStageSlotsOverV) {
  EXPECT_EQ(bubbleStageSlots(PipelineSchedule::GPipe, 8, 1), 7);
  EXPECT_EQ(bubbleStageSlots(PipelineSchedule::OneFOneB, 64, 1), 63);
  EXPECT_DOUBLE_EQ(bubbleStageSlots(PipelineSchedule::Interleaved1F1B, 8, 3),
                   7.0 / 3.0);
  EXPECT_EQ(bubbleStageSlots(PipelineSchedule::OneFOneB, 1, 1), 0);
}

TEST(ModelSummaryFormulas, PointToPointIsBytesOverBandwidthPlusLatency) {
  EXPECT_DOUBLE_EQ(pointToPointSeconds(1000000, 1e9, 1e-5), 1.01e-3);
  EXPECT_DOUBLE_EQ(pointToPointSeconds(0, 1e9, 1e-5), 1e-5);
}

TEST(ModelSummaryFormulas, LogitsAreSixBshVOverTPerMicroBatch) {
  ModelSpec model = gpt(6144, 64, 48);
  TrainingSpec training = mixedPrecision(4, 4);
  MappingSpec tp8 = mapping(8, 1, 1, 1, TPCommMode::ReduceScatterAllGather,
                            RecomputePolicy::Selective);
  BlockWork logits = valueOrFail(deriveLogitsWork(model, training, tp8));
  ASSERT_EQ(logits.invocations.size(), 3u);
  int64_t perGemm = 2 * 4 * 2048 * int64_t{6144} * (51200 / 8);
  int64_t total = 0;
  for (const Invocation &gemm : logits.invocations) {
    EXPECT_EQ(gemm.engine, Engine::Matmul);
    EXPECT_EQ(gemm.ops, perGemm) << stringifyEnum(gemm.phase).str();
    total += gemm.ops;
  }
  EXPECT_EQ(total, 6 * 4 * 2048 * int64_t{6144} * 51200 / 8);
  EXPECT_EQ(logits.find("lm_head_logits", Phase::Forward)->writeBytes(),
            4 * 2048 * (51200 / 8) * 2);

  MappingSpec broken = tp8;
  broken.world = 7;
  EXPECT_NE(errorOf(deriveLogitsWork(model, training, broken).takeError())
                .find("do not compose"),
            std::string::npos);
}

TEST(WideGuard, CountsPastInt64AndReportsOverflow) {
  WideGuard guard;
  llvm::APInt big =
      guard.product({std::numeric_limits<int64_t>::max(), 4}, "big");
  EXPECT_FALSE(guard.failed());
  EXPECT_EQ(toDecimal(big), "36893488147419103228");
  llvm::APInt squared = guard.mul(big, big, "squared");
  EXPECT_TRUE(guard.failed());
  EXPECT_EQ(guard.failureMessage(), "squared overflows 128 bits");
  EXPECT_TRUE(squared.isZero());

  WideGuard negative;
  EXPECT_TRUE(negative.count(-1, "a count").isZero());
  EXPECT_EQ(negative.failureMessage(), "a count is negative");
}

//===----------------------------------------------------------------------===//
// Model-level quantities
//===----------------------------------------------------------------------===//

TEST(ModelQuantities, ParametersAreMLM2021Eq2WithTheFinalNorm) {
  PlanWork work =
      gpt175b(TPCommMode::AllReduce, RecomputePolicy::Full);
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  const ParameterCounts &parameters = quantities.parameters;
  int64_t h = 12288, L = 96, V = 51200, s = 2048, t = 8;
  EXPECT_EQ(parameters.perBlock, 12 * h * h + 13 * h);
  EXPECT_EQ(parameters.wordEmbedding, V * h);
  EXPECT_EQ(parameters.positionEmbedding, s * h);
  EXPECT_EQ(parameters.finalNorm, 2 * h);
  // 12Lh^2 (1 + 13/(12h) + (V + s)/(12Lh)), plus the final LayerNorm.
  EXPECT_EQ(parameters.model, L * (12 * h * h + 13 * h) + (V + s) * h + 2 * h);
  EXPECT_EQ(parameters.firstStagePerRank,
            12 * parameters.perBlockPerRank + V * h / t + s * h);
}

/// A decoder of published dimensions for a one-rank training run.
ModelSpec published(int64_t hidden, int64_t heads, int64_t kvHeads, int64_t ffn,
                    int64_t vocab, int64_t blocks, int64_t positions) {
  ModelSpec model;
  model.hidden = hidden;
  model.heads = heads;
  model.kvHeads = kvHeads;
  model.headDim = hidden / heads;
  model.ffnHidden = ffn;
  model.seqLength = positions;
  model.maxPositions = positions;
  model.vocab = vocab;
  model.blocks = blocks;
  return model;
}

int64_t modelParameters(const ModelSpec &model) {
  PlanWork work = planWork(
      model, mixedPrecision(1, 1),
      mapping(1, 1, 1, 1, TPCommMode::AllReduce, RecomputePolicy::None));
  return valueOrFail(deriveModelQuantities(work)).parameters.model;
}

// The whole-model count of the pipeline's own parameter formulas equals
// the published checkpoint totals (the sum of every tensor of the released
// weights).
TEST(ModelQuantities, ParametersEqualPublishedCheckpoints) {
  // Llama's semantics: RMSNorm, SwiGLU, no linear bias, rotary, untied.
  auto llama = [](ModelSpec model) {
    model.norm = NormKind::RMSNorm;
    model.activation = ActivationKind::SwiGLU;
    model.linearBias = LinearBias::None;
    model.positionEmbedding = PositionEmbedding::Rotary;
    model.tiedEmbeddings = false;
    return model;
  };
  EXPECT_EQ(
      modelParameters(llama(published(4096, 32, 32, 11008, 32000, 32, 4096))),
      6738415616);
  EXPECT_EQ(
      modelParameters(llama(published(4096, 32, 8, 14336, 128256, 32, 8192))),
      8030261248);

  // GPT-2 small: every default (biases, learned positions, tied).
  ModelSpec gpt2 = published(768, 12, 12, 3072, 50257, 12, 1024);
  EXPECT_EQ(modelParameters(gpt2), 124439808);

  // Qwen2: Llama's, but biases on QKV and, at 0.5B, tied.
  ModelSpec qwen2 = llama(published(896, 14, 2, 4864, 151936, 24, 32768));
  qwen2.linearBias = LinearBias::QKVOnly;
  qwen2.tiedEmbeddings = true;
  EXPECT_EQ(modelParameters(qwen2), 494032768);
}

// Untied embeddings: an output layer of V h, and no gradient all-reduce
// between the first and the last stage.
TEST(ModelQuantities, UntiedEmbeddingsNeedNoGradientSync) {
  ModelSpec model = gpt(12288, 96, 96);
  model.tiedEmbeddings = false;
  PlanWork work = planWork(
      model, mixedPrecision(64, 1),
      mapping(8, 8, 1, 3, TPCommMode::AllReduce, RecomputePolicy::Full));
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  int64_t h = 12288, V = 51200;
  EXPECT_EQ(quantities.parameters.outputLayer, V * h);
  EXPECT_EQ(quantities.parameters.model,
            96 * (12 * h * h + 13 * h) + (2 * V + 2048) * h + 2 * h);
  EXPECT_EQ(quantities.parameters.lastStageEdgesPerRank, V * h / 8 + 2 * h);
  EXPECT_EQ(quantities.communication.embeddingGradSync.messageBytes, 0);
  EXPECT_EQ(quantities.communication.embeddingGradSync.transferBytes, 0);
}

// Without a pipeline the one stage is also the last: its rank holds the
// blocks, the word embedding's slice, the final norm and, untied, the
// output layer's slice; its state and its data-parallel all-reduce cover
// all of them. With a pipeline the first stage holds only its own edges.
TEST(ModelQuantities, OneStageHoldsEveryEdge) {
  ModelSpec model = gpt(1024, 16, 8);
  model.norm = NormKind::RMSNorm;
  model.positionEmbedding = PositionEmbedding::Rotary;
  model.tiedEmbeddings = false;
  int64_t h = 1024, V = 51200, t = 2;
  for (int64_t pp : {1, 2}) {
    ModelQuantities quantities = valueOrFail(deriveModelQuantities(planWork(
        model, mixedPrecision(16, 1),
        mapping(t, pp, 2, 1, TPCommMode::AllReduce, RecomputePolicy::None))));
    const ParameterCounts &parameters = quantities.parameters;
    int64_t blocks = 8 / pp * parameters.perBlockPerRank;
    EXPECT_EQ(parameters.firstStagePerRank,
              pp == 1 ? blocks + V * h / t + h + V * h / t : blocks + V * h / t)
        << "pp=" << pp;
    EXPECT_EQ(quantities.state.weights, parameters.firstStagePerRank * 2)
        << "pp=" << pp;
  }
}

TEST(ModelQuantities, FlopsAreSeqSelEquationsSevenAndEight) {
  int64_t B = 64, L = 96, s = 2048, h = 12288, V = 51200;
  // Eq. 7: 72BLsh^2 (1 + s/(6h) + V/(12hL)).
  llvm::APInt model = wide(72 * B * L) * wide(s * h * h) +
                      wide(12 * B * L) * wide(s * s * h) +
                      wide(6 * B * s) * wide(h * V);
  // MLM2021 Eq. 3: full recompute adds one forward of every block,
  // 96BLsh^2 (1 + s/(6h) + V/(16Lh)).
  llvm::APInt full = wide(96 * B * L) * wide(s * h * h) +
                     wide(16 * B * L) * wide(s * s * h) +
                     wide(6 * B * s) * wide(h * V);
  // Selective recompute reruns QK^T and attention x V: 4Bs^2h per block.
  llvm::APInt selective = model + wide(4 * B * L) * wide(s * s * h);

  ModelQuantities full175 = valueOrFail(deriveModelQuantities(
      gpt175b(TPCommMode::AllReduce, RecomputePolicy::Full)));
  EXPECT_EQ(full175.flops.model, model);
  EXPECT_EQ(full175.flops.hardware, full);
  EXPECT_EQ(full175.flops.logits, wide(6 * B * s) * wide(h * V));
  ModelQuantities selective175 = valueOrFail(deriveModelQuantities(
      gpt175b(TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective)));
  EXPECT_EQ(selective175.flops.model, model);
  EXPECT_EQ(selective175.flops.hardware, selective);
}

/// Model FLOPs of a training run of B sequences are B s (6 N +
/// `attentionPerToken`) for N matmul weights: the identity the tests below
/// check with their own N and attention term.
void expectSixNPlusAttention(const ModelSpec &model, int64_t B,
                             const MappingSpec &run, int64_t matmulWeights,
                             int64_t attentionPerToken) {
  ModelQuantities quantities = valueOrFail(
      deriveModelQuantities(planWork(model, mixedPrecision(B, 1), run)));
  llvm::APInt expected =
      wide(B * model.seqLength) * wide(6 * matmulWeights + attentionPerToken);
  EXPECT_EQ(quantities.flops.model, expected)
      << toDecimal(quantities.flops.model) << " != " << toDecimal(expected);
}

// Model FLOPs per token are 6N + 12 L k a d (Kaplan et al. 2020, Sec.
// 2.1, C = 6N per token plus the attention context term; Hoffmann et al.
// 2022, App. F): N the matmul weights, every block's four linears and the
// LM head (the embedding lookups are no matmul), and k the keys each query
// attends to (s, or a sliding window w). Over grouped-query attention,
// SwiGLU, a head_dim other than h/a and windows, on several TP degrees.
TEST(ModelQuantities, FlopsPerTokenAreSixNPlusTheAttentionTerm) {
  struct Variant {
    int64_t hidden, heads, kvHeads, headDim, ffn;
    ActivationKind activation;
    std::optional<int64_t> window;
  };
  const Variant variants[] = {
      {1024, 16, 16, 64, 4096, ActivationKind::GeLU, std::nullopt},
      {1024, 16, 4, 64, 2816, ActivationKind::SwiGLU, std::nullopt},
      {1024, 8, 4, 256, 3072, ActivationKind::SwiGLU, 512},
      {768, 12, 12, 64, 3072, ActivationKind::ReLU, 2048},
  };
  for (const Variant &variant : variants)
    for (int64_t t : {1, 2, 4}) {
      ModelSpec model = gpt(variant.hidden, variant.heads, 4);
      model.kvHeads = variant.kvHeads;
      model.headDim = variant.headDim;
      model.ffnHidden = variant.ffn;
      model.activation = variant.activation;
      model.norm = NormKind::RMSNorm;
      model.attentionWindow = variant.window;
      int64_t B = 8, s = model.seqLength, L = model.blocks;
      int64_t h = model.hidden, a = model.heads, g = model.kvHeads;
      int64_t d = model.headDim, f = model.ffnHidden, V = model.vocab;
      int64_t fc1 = variant.activation == ActivationKind::SwiGLU ? 2 * f : f;
      int64_t k = variant.window ? std::min(s, *variant.window) : s;
      int64_t matmulWeights =
          L * (h * (a + 2 * g) * d + a * d * h + h * fc1 + f * h) + V * h;
      SCOPED_TRACE("h=" + std::to_string(h) + " g=" + std::to_string(g) +
                   " k=" + std::to_string(k) + " t=" + std::to_string(t));
      expectSixNPlusAttention(model, B,
                              mapping(t, 1, 1, 1, TPCommMode::AllReduce,
                                      RecomputePolicy::Selective),
                              matmulWeights, 12 * L * k * a * d);
    }
}

// Under multi-head latent attention the same holds with MLA's matmul
// weights and dimensions (docs/WorkAlgebra.md, "Multi-head latent
// attention"): per block N_mm = h r_q + r_q a d + h (r_kv + d_r) +
// r_kv a (d_n + d_v) + a d_v h + the MLP's (h a d for the first two without
// a query latent), and the attention term 6 L k a (d + d_v) with
// d = d_n + d_r: scores over d, context over d_v. The duplicated
// down-projections run on each TP rank's sequence shard, so over the TP
// group they count once.
TEST(ModelQuantities, LatentAttentionFlopsPerTokenAreSixNPlusTheAttentionTerm) {
  for (bool queryLatent : {true, false})
    for (int64_t t : {1, 2, 4}) {
      int64_t h = 256, a = 8, dn = 32, dr = 16, dv = 24, rq = 96, rkv = 64,
              f = 512;
      ModelSpec model = gpt(h, a, 4);
      model.ffnHidden = f;
      model.activation = ActivationKind::SwiGLU;
      model.norm = NormKind::RMSNorm;
      test::useLatentAttention(
          model, {queryLatent ? std::optional<int64_t>(rq) : std::nullopt, rkv,
                  dn, dr, dv});
      int64_t B = 8, s = model.seqLength, L = model.blocks, V = model.vocab;
      int64_t d = dn + dr;
      int64_t query = queryLatent ? h * rq + rq * a * d : h * a * d;
      int64_t attention =
          query + h * (rkv + dr) + rkv * a * (dn + dv) + a * dv * h;
      int64_t matmulWeights = L * (attention + h * 2 * f + f * h) + V * h;
      SCOPED_TRACE("t=" + std::to_string(t) +
                   (queryLatent ? " q_lora" : " no q_lora"));
      expectSixNPlusAttention(model, B,
                              mapping(t, 1, 1, 1,
                                      t > 1 ? TPCommMode::ReduceScatterAllGather
                                            : TPCommMode::AllReduce,
                                      RecomputePolicy::Selective),
                              matmulWeights, 6 * L * s * a * (d + dv));
    }
}

// A model whose every block is a mixture of experts (docs/WorkAlgebra.md,
// "Mixture-of-experts"): per token the matmul work is that of its active
// parameters, the router's h x E and k experts' fc1 and fc2, so the same
// 6 N + attention identity holds with N the active matmul weights
// (dropless routing: every one of the k T pairs is processed). The router
// runs on each TP rank's sequence shard, so over the TP group it counts
// once.
TEST(ModelQuantities,
     MixtureOfExpertsFlopsPerTokenAreSixActiveNPlusTheAttentionTerm) {
  for (ActivationKind activation :
       {ActivationKind::SwiGLU, ActivationKind::GeLU})
    for (int64_t t : {1, 2, 4}) {
      int64_t h = 256, a = 8, E = 8, k = 2, f = 384;
      ModelSpec model = gpt(h, a, 4);
      model.activation = activation;
      model.norm = NormKind::RMSNorm;
      model.linearBias = LinearBias::None;
      MixtureOfExperts moe;
      moe.experts = E;
      moe.expertsPerToken = k;
      moe.expertFfnHidden = f;
      model.moe = moe;
      int64_t B = 8, s = model.seqLength, L = model.blocks, V = model.vocab;
      int64_t d = model.headDim;
      int64_t fc1 = activation == ActivationKind::SwiGLU ? 2 * f : f;
      int64_t active = h * E + k * (h * fc1 + f * h);
      int64_t matmulWeights = L * (4 * h * a * d + active) + V * h;
      SCOPED_TRACE("t=" + std::to_string(t) + " " +
                   stringifyEnum(activation).str());
      expectSixNPlusAttention(model, B,
                              mapping(t, 1, 1, 1,
                                      t > 1 ? TPCommMode::ReduceScatterAllGather
                                            : TPCommMode::AllReduce,
                                      RecomputePolicy::Selective),
                              matmulWeights, 12 * L * s * a * d);
    }
}

// Mixtral-8x7B: its published active count per token, 12,879,925,248
// (HuggingFaceMoETest), less what no matmul multiplies (the embedding
// table, 32000 x 4096, and the 2 x 32 + 1 RMSNorm weights of 4096), is the
// N of the model FLOPs per token, 6 N plus 12 L s a d of attention.
TEST(ModelQuantities, MixtralFlopsPerTokenFollowItsPublishedActiveCount) {
  ModelSpec model = gpt(4096, 32, 32);
  model.kvHeads = 8;
  model.headDim = 128;
  model.ffnHidden = 14336;
  model.seqLength = 4096;
  model.maxPositions = 32768;
  model.vocab = 32000;
  model.norm = NormKind::RMSNorm;
  model.activation = ActivationKind::SwiGLU;
  model.linearBias = LinearBias::None;
  model.positionEmbedding = PositionEmbedding::Rotary;
  model.tiedEmbeddings = false;
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 14336;
  model.moe = moe;
  int64_t activeParameters = 12'879'925'248;
  int64_t matmulWeights = activeParameters - 32000 * 4096 - (2 * 32 + 1) * 4096;
  int64_t B = 8, s = 4096, L = 32, a = 32, d = 128;
  expectSixNPlusAttention(model, B,
                          mapping(8, 1, 1, 1,
                                  TPCommMode::ReduceScatterAllGather,
                                  RecomputePolicy::Selective),
                          matmulWeights, 12 * L * s * a * d);
}

// DeepSeek-V3 (the bundled config, HuggingFaceMoETest) mixes 3 dense and
// 58 MoE blocks: its model FLOPs per token are the sums over the two kinds,
// 6 N + 6 L s a (d + d_v) with N the matmul weights a token passes
// through. Per block the MLA matmuls are h r_q + r_q a d + h (r_kv + d_r)
// + r_kv a (d_n + d_v) + a d_v h = 11,010,048 + 37,748,736 + 4,128,768 +
// 16,777,216 + 117,440,512 = 187,105,280; a dense block adds 3 h 18432 =
// 396,361,728, an MoE block the router h E = 1,835,008 and 9 experts of
// 3 h 2048 = 396,361,728. N = 3 x 583,467,008 + 58 x 585,302,016 + V h
// 926,679,040 = 36,624,596,992: the 37,552,282,624 active parameters
// (HuggingFaceMoETest) less the input embedding table and the 61 x 16,384
// + 7,168 norm weights no matmul multiplies.
TEST(ModelQuantities, DeepseekV3FlopsPerTokenFollowItsActiveCount) {
  ModelSpec model = gpt(7168, 128, 61);
  model.ffnHidden = 18432;
  model.seqLength = 4096;
  model.maxPositions = 163840;
  model.vocab = 129280;
  model.norm = NormKind::RMSNorm;
  model.activation = ActivationKind::SwiGLU;
  model.linearBias = LinearBias::None;
  test::useLatentAttention(model, {1536, 512, 128, 64, 128});
  model.tiedEmbeddings = false;
  MixtureOfExperts moe;
  moe.experts = 256;
  moe.expertsPerToken = 8;
  moe.expertFfnHidden = 2048;
  moe.sharedExperts = 1;
  moe.firstDenseBlocks = 3;
  moe.router = RouterKind::SigmoidGroupLimited;
  moe.routerGroups = 8;
  moe.routerGroupsPerToken = 4;
  model.moe = moe;
  int64_t matmulWeights = 36'624'596'992;
  int64_t attention = 187'105'280, denseMlp = 396'361'728;
  int64_t router = 1'835'008, experts = 396'361'728, lmHead = 926'679'040;
  EXPECT_EQ(3 * (attention + denseMlp) + 58 * (attention + router + experts) +
                lmHead,
            matmulWeights);
  int64_t L = 61, s = 4096, a = 128, d = 192, dv = 128;
  expectSixNPlusAttention(model, 8,
                          mapping(8, 1, 1, 1,
                                  TPCommMode::ReduceScatterAllGather,
                                  RecomputePolicy::Selective),
                          matmulWeights, 6 * L * s * a * (d + dv));
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(
      planWork(model, mixedPrecision(8, 1),
               mapping(8, 1, 1, 1, TPCommMode::ReduceScatterAllGather,
                       RecomputePolicy::Selective))));
  EXPECT_EQ(quantities.parameters.active, 37'552'282'624);
  EXPECT_EQ(quantities.parameters.denseBlocks, 3);
  // transformers' num_parameters(): the state_dict's 671,026,419,200
  // less the 58 x 256 score-correction biases.
  EXPECT_EQ(quantities.parameters.model, 671'026'404'352);
}

TEST(ModelQuantities, FlopsPastInt64AreExact) {
  // The 1T model at four times SeqSel's batch: 2.6e19 FLOPs per iteration.
  int64_t B = 2048, L = 128, s = 2048, h = 25600, V = 51200;
  PlanWork work = planWork(gpt(h, 160, L), mixedPrecision(B, 1),
                           mapping(8, 64, 1, 1, TPCommMode::AllReduce,
                                   RecomputePolicy::None));
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  llvm::APInt model = wide(72 * B * L) * wide(s * h * h) +
                      wide(12 * B * L) * wide(s * s * h) +
                      wide(6 * B * s) * wide(h * V);
  EXPECT_TRUE(model.ugt(
      wide(std::numeric_limits<int64_t>::max())));
  EXPECT_EQ(quantities.flops.model, model);
  EXPECT_EQ(toDecimal(quantities.flops.model), toDecimal(model));
}

TEST(ModelQuantities, FirstStageActivationsFollowTheSchedule) {
  // SeqSel Table 2, tensor + sequence parallel + selective: 34sbh/t per
  // block; the interleaved 175B first stage holds L(1 + (p-1)/(pv)) = 124
  // blocks' worth.
  int64_t s = 2048, b = 1, h = 12288, t = 8;
  ModelQuantities interleaved = valueOrFail(deriveModelQuantities(
      gpt175b(TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective)));
  EXPECT_EQ(interleaved.activations.perBlockPerMicroBatch,
            34 * s * b * h / t);
  EXPECT_EQ(interleaved.pipeline.inFlightChunks, 31);
  EXPECT_EQ(interleaved.pipeline.blocksPerChunk, 4);
  EXPECT_EQ(interleaved.activations.firstStage, 124 * 34 * s * b * h / t);

  PlanWork gpipe = gpt175b(TPCommMode::ReduceScatterAllGather,
                           RecomputePolicy::Selective);
  gpipe.mapping.virtualStages = 1;
  gpipe.mapping.schedule = PipelineSchedule::GPipe;
  ModelQuantities allInFlight = valueOrFail(deriveModelQuantities(gpipe));
  EXPECT_EQ(allInFlight.activations.firstStage,
            64 * 12 * 34 * s * b * h / t);
}

TEST(ModelQuantities, StateBytesWithAndWithoutOptimizerSharding) {
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(gpt175b(
      TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective, 3)));
  int64_t parameters = quantities.parameters.firstStagePerRank;
  // bf16 weights, fp32 gradients, fp32 master weights, m and v.
  EXPECT_EQ(quantities.state.weights, 2 * parameters);
  EXPECT_EQ(quantities.state.gradients, 4 * parameters);
  EXPECT_EQ(quantities.state.optimizerState, 12 * parameters);
  EXPECT_EQ(quantities.state.optimizerStateSharded,
            12 * ((parameters + 2) / 3));
  EXPECT_EQ(quantities.state.blockStates,
            18 * 12 * quantities.parameters.perBlockPerRank);
}

TEST(ModelQuantities, PipelineMessagesAreScatteredWhenReplicated) {
  int64_t bsh = 1 * 2048 * 12288, t = 8, m = 64, v = 3;
  PlanWork work = gpt175b(TPCommMode::AllReduce, RecomputePolicy::Full);
  ModelQuantities replicated = valueOrFail(deriveModelQuantities(work));
  const IterationCommunication &scatter = replicated.communication;
  EXPECT_EQ(scatter.pipelineBoundaryBytes, 2 * bsh);
  EXPECT_EQ(scatter.pipelineSendBytes, 2 * bsh / t);
  EXPECT_EQ(scatter.pipelineMessages, 2 * m * v);
  EXPECT_EQ(scatter.pipeline.messageBytes, 2 * m * v * 2 * bsh / t);
  EXPECT_EQ(scatter.embeddingGradSync.messageBytes, 51200 * 12288 / t * 4);
  // The block's collectives on a stage's 12 blocks, and the receiver's
  // all-gather of every scattered message.
  WorkSummary block = valueOrFail(summarize(work.perMicroBatch));
  WorkSummary iteration = valueOrFail(summarize(work.perIteration));
  EXPECT_EQ(scatter.tensorParallel.messageBytes,
            block.of(Engine::Collective).messageBytes * 12 * m +
                iteration.of(Engine::Collective).messageBytes * 12 +
                2 * m * v * 2 * bsh);
  EXPECT_EQ(scatter.tensorParallel.transferBytes,
            block.of(Engine::Collective).minimumTransferBytes * 12 * m +
                iteration.of(Engine::Collective).minimumTransferBytes * 12 +
                2 * m * v * (t - 1) * 2 * bsh / t);

  ModelQuantities sharded = valueOrFail(deriveModelQuantities(
      gpt175b(TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective)));
  EXPECT_EQ(sharded.communication.pipelineBoundaryBytes, 2 * bsh / t);
  EXPECT_EQ(sharded.communication.pipelineSendBytes, 2 * bsh / t);

  PlanWork noPipeline = planWork(gpt(6144, 64, 48), mixedPrecision(4, 4),
                                 mapping(8, 1, 1, 1, TPCommMode::AllReduce,
                                         RecomputePolicy::Full));
  ModelQuantities single = valueOrFail(deriveModelQuantities(noPipeline));
  EXPECT_EQ(single.communication.pipelineMessages, 0);
  EXPECT_EQ(single.communication.pipeline.messageBytes, 0);
  EXPECT_EQ(single.communication.embeddingGradSync.messageBytes, 0);
}

TEST(ModelQuantities, DataParallelGradientsArePaddedAndReduced) {
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(gpt175b(
      TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective, 3)));
  int64_t padded = (quantities.parameters.firstStagePerRank + 2) / 3 * 3;
  const IterationCommunication &communication = quantities.communication;
  EXPECT_EQ(communication.dataParallel.messageBytes, 4 * padded);
  EXPECT_EQ(communication.dataParallel.transferBytes, 2 * 2 * 4 * padded / 3);
  // Reduce-scatter of fp32 gradients, all-gather of bf16 weights.
  EXPECT_EQ(communication.dataParallelSharded.messageBytes,
            4 * padded + 2 * padded);
  EXPECT_EQ(communication.dataParallelSharded.transferBytes,
            2 * 4 * padded / 3 + 2 * 2 * padded / 3);
}

TEST(ModelQuantities, RejectsWorkThatIsNoTrainingPlan) {
  PlanWork work = gpt175b(TPCommMode::AllReduce, RecomputePolicy::None);
  PlanWork noOutput = work;
  noOutput.blockOutputBytesPerRank = 0;
  EXPECT_NE(errorOf(deriveModelQuantities(noOutput).takeError())
                .find("block output buffer must have a positive size"),
            std::string::npos);
  PlanWork empty = work;
  empty.perMicroBatch.invocations.clear();
  EXPECT_NE(errorOf(deriveModelQuantities(empty).takeError())
                .find("no per-micro-batch work"),
            std::string::npos);
  PlanWork mixed = work;
  mixed.perIteration.cadence = Cadence::PerMicroBatch;
  EXPECT_NE(errorOf(deriveModelQuantities(mixed).takeError())
                .find("per-micro-batch and per-iteration"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Iteration time
//===----------------------------------------------------------------------===//

double term(const IterationTime &time, llvm::StringRef name) {
  for (const IterationTerm &entry : time.terms)
    if (entry.name == name)
      return entry.seconds;
  ADD_FAILURE() << "no term " << name.str();
  return 0;
}

TEST(FlopsUtilization, ConvertsCountsPastSixtyFourBits) {
  // 2^64 + 2^62 = 1.25 * 2^64 = 23058430092136939520 needs 65 bits, like
  // MLM2021 530B's 2.2216e19 hardware FLOPs per iteration; a double holds
  // it exactly (0x1.4p64). LLVM 22's APInt::roundToDouble returns 1.75 *
  // 2^65 for it: the exponent one too high and the leading bit kept in the
  // mantissa, as for every count of more than 64 active bits.
  llvm::APInt count =
      llvm::APInt::getOneBitSet(128, 64) + llvm::APInt::getOneBitSet(128, 62);
  EXPECT_EQ(unsignedToDouble(count), 0x1.4p64);
  EXPECT_EQ(unsignedToDouble(llvm::APInt(128, 7)), 7.0);
  // Over 2 s on 4 ranks of the A100's 312e12 fp16 peak: 0x1.4p64 / 2.496e15.
  std::optional<Utilization> utilization =
      flopsUtilization(RunFlops{count, count}, 2, 4, test::a100Profile(),
                       workload::DataType::F16);
  ASSERT_TRUE(utilization.has_value());
  EXPECT_DOUBLE_EQ(utilization->hardware, 0x1.4p64 / (2 * 4 * 312e12));
  EXPECT_DOUBLE_EQ(utilization->model, utilization->hardware);
}

TEST(IterationTime, TermsComposeTheBlockEstimateAndTheSchedule) {
  PlanWork work =
      gpt175b(TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective);
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  estimate::SystemProfile profile = test::a100Profile();
  estimate::NetworkTierBinding binding = bind({"tp:nvlink", "pp:infiniband"});
  IterationTime time = valueOrFail(
      composeIterationTime(work, quantities, profile, binding));

  // The block time is --estimate's.
  estimate::EstimateInput input =
      estimate::makeEstimateInput(work.training, work.mapping);
  llvm::cantFail(estimate::appendWork(input, work.perMicroBatch));
  llvm::cantFail(estimate::appendWork(input, work.perIteration));
  estimate::EstimateReport block =
      valueOrFail(estimate::estimateWork(input, profile, binding));
  EXPECT_DOUBLE_EQ(time.block.block.combined, block.block.combined);
  EXPECT_DOUBLE_EQ(time.stageSlotSeconds, 12 * block.block.combined);

  std::vector<std::string> names;
  double sum = 0;
  for (const IterationTerm &entry : time.terms) {
    names.push_back(entry.name);
    sum += entry.seconds;
    EXPECT_FALSE(entry.provenance.empty()) << entry.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "microbatches", "bubble", "pipeline_transfers",
                       "lm_head", "embedding", "embedding_grad_sync",
                       "dp_grad_allreduce", "optimizer_step"}));
  EXPECT_DOUBLE_EQ(time.totalSeconds, sum);
  EXPECT_DOUBLE_EQ(term(time, "microbatches"), 64 * time.stageSlotSeconds);
  EXPECT_DOUBLE_EQ(term(time, "bubble"), 7.0 / 3.0 * time.stageSlotSeconds);
  // 2(m*v + pp - 1) messages of bsh/t bytes over 25 GB/s InfiniBand at the
  // profile's declared bus-bandwidth efficiency 0.9, + 14 us.
  double message = pointToPointSeconds(2048 * 12288 * 2 / 8, 25e9 * 0.9, 14e-6);
  EXPECT_DOUBLE_EQ(time.pipelineMessageSeconds, message);
  EXPECT_DOUBLE_EQ(term(time, "pipeline_transfers"),
                   2 * (64 * 3 + 7) * message);
  EXPECT_DOUBLE_EQ(term(time, "lm_head"), 64 * time.headSeconds);
  // The edges are EdgeWork.h's, costed by --estimate's rules: the whole
  // head (final norm, logits, cross-entropy, loss, their tp collectives)
  // every micro-batch, and on this interleaved pipeline pp = 8 micro-batches'
  // embeddings (the first device's back-to-back chunk-0 forwards of the
  // fill and backwards of the drain).
  estimate::EstimateInput head =
      estimate::makeEstimateInput(work.training, work.mapping);
  llvm::cantFail(estimate::appendWork(
      head, valueOrFail(workload::deriveHeadWork(work.model, work.training,
                                                 work.mapping))));
  EXPECT_DOUBLE_EQ(
      time.headSeconds,
      valueOrFail(estimate::estimateWork(head, profile, binding))
          .secondsByCadence[static_cast<size_t>(Cadence::PerMicroBatch)]);
  estimate::EstimateInput embedding =
      estimate::makeEstimateInput(work.training, work.mapping);
  llvm::cantFail(estimate::appendWork(
      embedding, valueOrFail(workload::deriveEmbeddingWork(
                     work.model, work.training, work.mapping))));
  EXPECT_DOUBLE_EQ(
      time.embeddingSeconds,
      valueOrFail(estimate::estimateWork(embedding, profile, binding))
          .secondsByCadence[static_cast<size_t>(Cadence::PerMicroBatch)]);
  EXPECT_DOUBLE_EQ(term(time, "embedding"), 8 * time.embeddingSeconds);
  EXPECT_DOUBLE_EQ(
      term(time, "optimizer_step"),
      12 * block.secondsByCadence[static_cast<size_t>(Cadence::PerIteration)]);
  EXPECT_EQ(term(time, "dp_grad_allreduce"), 0);
  EXPECT_DOUBLE_EQ(time.modelFlopsUtilization,
                   quantities.flops.model.roundToDouble() /
                       (time.totalSeconds * 64 * 312e12));
}

TEST(IterationTime, OverlappedSendsChargeOnlyTheFillAndDrainHops) {
  // The same interleaved 175B run with overlap_p2p_comm: the sends run
  // beside compute, so the composition charges only the receivers' waits it
  // can bound from below, the fill's pp - 1 forward and the drain's pp - 1
  // backward hops: 2 x 7 messages instead of 2(m v + pp - 1) = 2 x 199.
  PlanWork work =
      gpt175b(TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective);
  work.mapping.overlapP2PComm = true;
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  IterationTime time =
      valueOrFail(composeIterationTime(work, quantities, test::a100Profile(),
                                       bind({"tp:nvlink", "pp:infiniband"})));
  double message = pointToPointSeconds(2048 * 12288 * 2 / 8, 25e9 * 0.9, 14e-6);
  EXPECT_DOUBLE_EQ(time.pipelineMessageSeconds, message);
  EXPECT_DOUBLE_EQ(term(time, "pipeline_transfers"), 2 * 7 * message);
  auto transfers = llvm::find_if(time.terms, [](const IterationTerm &entry) {
    return entry.name == "pipeline_transfers";
  });
  ASSERT_NE(transfers, time.terms.end());
  EXPECT_NE(transfers->provenance.find("2*(pp-1) = 14 messages of the fill "
                                       "and drain (overlap_p2p_comm"),
            std::string::npos)
      << transfers->provenance;
}

TEST(IterationTime, AxesOfOneRankNeedNoTier) {
  PlanWork work = planWork(gpt(6144, 64, 48), mixedPrecision(4, 4),
                           mapping(8, 1, 1, 1, TPCommMode::AllReduce,
                                   RecomputePolicy::Full));
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  IterationTime time = valueOrFail(composeIterationTime(
      work, quantities, test::a100Profile(), bind({"tp:nvlink"})));
  EXPECT_EQ(term(time, "bubble"), 0);
  EXPECT_EQ(term(time, "pipeline_transfers"), 0);
  EXPECT_EQ(term(time, "embedding_grad_sync"), 0);
  EXPECT_EQ(term(time, "dp_grad_allreduce"), 0);
  EXPECT_DOUBLE_EQ(term(time, "microbatches"), 48 * time.block.block.combined);
  // Without a pipeline the one stage embeds each of the m = 1 micro-batches.
  EXPECT_GT(time.embeddingSeconds, 0);
  EXPECT_DOUBLE_EQ(term(time, "embedding"), time.embeddingSeconds);
}

TEST(IterationTime, OneStageEmbedsEveryMicroBatch) {
  // Global batch 8 of micro-batch 2 at dp = 1: m = 4 micro-batches, all on
  // the one stage, so the term is 4 embeddings (not the pipelined 1 or pp).
  PlanWork work = planWork(
      gpt(6144, 64, 48), mixedPrecision(8, 2),
      mapping(8, 1, 1, 1, TPCommMode::AllReduce, RecomputePolicy::Full));
  ModelQuantities quantities = valueOrFail(deriveModelQuantities(work));
  IterationTime time = valueOrFail(composeIterationTime(
      work, quantities, test::a100Profile(), bind({"tp:nvlink"})));
  EXPECT_GT(time.embeddingSeconds, 0);
  EXPECT_DOUBLE_EQ(term(time, "embedding"), 4 * time.embeddingSeconds);
  EXPECT_DOUBLE_EQ(term(time, "lm_head"), 4 * time.headSeconds);
}

TEST(IterationTime, AxesOfSeveralRanksNeedATier) {
  PlanWork pipelined =
      gpt175b(TPCommMode::ReduceScatterAllGather, RecomputePolicy::Selective);
  ModelQuantities pipelineQuantities =
      valueOrFail(deriveModelQuantities(pipelined));
  EXPECT_NE(
      errorOf(composeIterationTime(pipelined, pipelineQuantities,
                                   test::a100Profile(), bind({"tp:nvlink"}))
                  .takeError())
          .find("span mesh axis 'pp' (8 ranks), which the binding does "
                "not bind"),
      std::string::npos);

  PlanWork replicated = gpt175b(TPCommMode::ReduceScatterAllGather,
                                RecomputePolicy::Selective, /*dp=*/2);
  ModelQuantities replicatedQuantities =
      valueOrFail(deriveModelQuantities(replicated));
  EXPECT_NE(errorOf(composeIterationTime(replicated, replicatedQuantities,
                                         test::a100Profile(),
                                         bind({"tp:nvlink", "pp:infiniband"}))
                        .takeError())
                .find("mesh axis 'dp'"),
            std::string::npos);
  IterationTime time = valueOrFail(composeIterationTime(
      replicated, replicatedQuantities, test::a100Profile(),
      bind({"tp:nvlink", "pp:infiniband", "dp:infiniband"})));
  EXPECT_GT(term(time, "dp_grad_allreduce"), 0);
}

} // namespace
