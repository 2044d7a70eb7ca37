//===- InferenceTest.cpp - The work algebra of decoder inference ----------===//
//
// Prefill and decode steps against closed forms over shapes, TP degrees and
// context lengths (dense matmuls 2 x parameters x tokens, Kaplan et al. 2020,
// plus the attention terms; KV-cache and weight bytes, Pope et al. 2022;
// collectives); the prefill against the training forward it shares; the
// generation's closed form against the explicit sum over its decode steps;
// grouped-query attention and SwiGLU; the composition rules; diagnostics.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/ProgramWork.h"
#include "SmallRuns.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include "gtest/gtest.h"

#include <array>
#include <limits>
#include <string>
#include <tuple>

using namespace blueprint::workload;

namespace {

//===----------------------------------------------------------------------===//
// Specs
//===----------------------------------------------------------------------===//

/// A model shape; kvHeads = heads and ffn = 4 * hidden unless a variant says
/// otherwise.
struct Shape {
  const char *name;
  int64_t hidden;
  int64_t heads;
  int64_t kvHeads;
  int64_t headDim;
  int64_t ffn;
  ActivationKind activation;
  NormKind norm;
};

/// GPT-3 175B, a GQA + SwiGLU + RMSNorm model shaped like Llama-2 70B, and
/// small shapes; every head and key/value head count is divisible by 8, so
/// tp in {1, 2, 4, 8} is valid for each.
const Shape kShapes[] = {
    {"175B", 12288, 96, 96, 128, 4 * 12288, ActivationKind::GeLU,
     NormKind::LayerNorm},
    {"70B-gqa-swiglu", 8192, 64, 8, 128, 28672, ActivationKind::SwiGLU,
     NormKind::RMSNorm},
    {"tiny", 64, 8, 8, 8, 256, ActivationKind::GeLU, NormKind::LayerNorm},
    {"small-gqa", 256, 16, 8, 32, 1024, ActivationKind::ReLU,
     NormKind::LayerNorm},
    {"wide-head-swiglu", 1024, 8, 8, 256, 2816, ActivationKind::SwiGLU,
     NormKind::RMSNorm},
};
const int64_t kTensorParallel[] = {1, 2, 4, 8};
const int64_t kMaxPositions = 4096;

ModelSpec modelOf(const Shape &shape) {
  ModelSpec model;
  model.hidden = shape.hidden;
  model.heads = shape.heads;
  model.kvHeads = shape.kvHeads;
  model.headDim = shape.headDim;
  model.ffnHidden = shape.ffn;
  model.seqLength = 2048;
  model.maxPositions = kMaxPositions;
  model.vocab = 1024;
  model.blocks = 8;
  model.norm = shape.norm;
  model.activation = shape.activation;
  return model;
}

InferenceSpec inferenceFor(int64_t batch, int64_t prompt, int64_t generated) {
  InferenceSpec inference;
  inference.batch = batch;
  inference.promptLength = prompt;
  inference.generatedTokens = generated;
  return inference;
}

MappingSpec mappingFor(int64_t tp, int64_t pp = 1, int64_t dp = 1) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.pp = pp;
  mapping.dp = dp;
  mapping.world = tp * pp * dp;
  return mapping;
}

std::string label(const ModelSpec &model, const InferenceSpec &inference,
                  const MappingSpec &mapping) {
  return "h=" + std::to_string(model.hidden) +
         " a=" + std::to_string(model.heads) +
         " g=" + std::to_string(model.kvHeads) +
         " b=" + std::to_string(inference.batch) +
         " P=" + std::to_string(inference.promptLength) +
         " G=" + std::to_string(inference.generatedTokens) +
         " tp=" + std::to_string(mapping.tp) +
         " dp=" + std::to_string(mapping.dp);
}

/// The value of `expected`, or a failure of the calling test and `fallback`.
template <typename T> T valueOr(llvm::Expected<T> expected, T fallback) {
  if (!expected) {
    ADD_FAILURE() << llvm::toString(expected.takeError());
    return fallback;
  }
  return std::move(*expected);
}

BlockWork prefillOf(const ModelSpec &model, const InferenceSpec &inference,
                    const MappingSpec &mapping) {
  return valueOr(deriveInferencePrefill(model, inference, mapping),
                 BlockWork());
}

BlockWork stepOf(const ModelSpec &model, const InferenceSpec &inference,
                 const MappingSpec &mapping, int64_t context) {
  return valueOr(deriveInferenceDecodeStep(model, inference, mapping, context),
                 BlockWork());
}

WorkSummary summaryOf(const BlockWork &work) {
  return valueOr(summarize(work), WorkSummary());
}

/// Read bytes of the tensors called `name` over every invocation.
int64_t readsOf(const BlockWork &work, llvm::StringRef name) {
  int64_t bytes = 0;
  for (const Invocation &invocation : work.invocations)
    for (const TensorAccess &access : invocation.reads)
      if (access.tensor == name)
        bytes += access.bytes;
  return bytes;
}

/// Written bytes of the tensors called `name` over every invocation.
int64_t writesOf(const BlockWork &work, llvm::StringRef name) {
  int64_t bytes = 0;
  for (const Invocation &invocation : work.invocations)
    for (const TensorAccess &access : invocation.writes)
      if (access.tensor == name)
        bytes += access.bytes;
  return bytes;
}

/// The block's parameter tensors, as the work algebra names them.
const llvm::StringSet<> kParameters = {
    "w_qkv", "b_qkv", "w_out",       "b_out",      "w_fc1",       "b_fc1",
    "w_fc2", "b_fc2", "norm1_gamma", "norm1_beta", "norm2_gamma", "norm2_beta"};

/// Weights of the four linears held by one TP rank: h(a+2g)d + adh + hF1 +
/// fh, over t (Kaplan et al. 2020, Table 1: N = 2 d_model n_layer (2 d_attn
/// + d_ff) for one block at g = a, d_attn = a d, and a plain MLP).
int64_t linearWeightsPerRank(const ModelSpec &model, int64_t t) {
  int64_t h = model.hidden, a = model.heads, g = model.kvHeads,
          d = model.headDim, f = model.ffnHidden;
  int64_t fc1 = model.activation == ActivationKind::SwiGLU ? 2 * f : f;
  return (h * (a + 2 * g) * d + a * d * h + h * fc1 + f * h) / t;
}

/// The block's parameters held by one TP rank, written out: column-parallel
/// weights and biases and row-parallel weights over t; row-parallel biases
/// and norm parameters replicated.
int64_t parametersPerRank(const ModelSpec &model, int64_t t) {
  int64_t h = model.hidden, a = model.heads, g = model.kvHeads,
          d = model.headDim, f = model.ffnHidden;
  int64_t fc1 = model.activation == ActivationKind::SwiGLU ? 2 * f : f;
  int64_t norms = model.norm == NormKind::LayerNorm ? 4 * h : 2 * h;
  return linearWeightsPerRank(model, t) + (a + 2 * g) * d / t + fc1 / t +
         2 * h + norms;
}

//===----------------------------------------------------------------------===//
// Prefill
//===----------------------------------------------------------------------===//

// Matmul ops of the prefill are 2 x linear weights x tokens (Kaplan's 2N per
// token) plus QK^T and probs x V over the whole prompt, 2 x 2 b (a/t) P^2 d
// (MLM2021's 4bs^2h at t = 1).
TEST(InferencePrefill, MatmulClosedFormsOverGrid) {
  for (const Shape &shape : kShapes)
    for (int64_t t : kTensorParallel)
      for (auto [batch, dp, prompt] :
           {std::tuple<int64_t, int64_t, int64_t>{1, 1, 128},
            {8, 2, 512},
            {6, 3, 1000}}) {
        ModelSpec model = modelOf(shape);
        InferenceSpec inference = inferenceFor(batch, prompt, 16);
        MappingSpec mapping = mappingFor(t, 1, dp);
        SCOPED_TRACE(label(model, inference, mapping));
        BlockWork work = prefillOf(model, inference, mapping);
        WorkSummary summary = summaryOf(work);
        int64_t b = batch / dp, a = model.heads, d = model.headDim;
        int64_t tokens = b * prompt;
        int64_t attention = 2 * 2 * b * (a / t) * prompt * prompt * d;
        EXPECT_EQ(summary.at(Phase::Prefill, Engine::Matmul).ops,
                  2 * linearWeightsPerRank(model, t) * tokens + attention);
        EXPECT_EQ(summary.total().ops, summary.of(Phase::Prefill).ops);
        EXPECT_EQ(work.cadence, Cadence::PerGeneration);
        EXPECT_EQ(summary.total().stashBytes, 0);
        for (const Invocation &invocation : work.invocations)
          EXPECT_EQ(invocation.phase, Phase::Prefill) << invocation.primitive;
        const Invocation *scores = work.find("qk_matmul", Phase::Prefill);
        ASSERT_NE(scores, nullptr);
        EXPECT_EQ(scores->ops, 2 * b * (a / t) * prompt * prompt * d);
        // The causal mask is part of the prefill softmax.
        const Invocation *softmax = work.find("softmax", Phase::Prefill);
        ASSERT_NE(softmax, nullptr);
        EXPECT_EQ(softmax->ops,
                  b * (a / t) * prompt *
                      (opcount::kSoftmaxForwardPerElement * prompt +
                       opcount::kSoftmaxForwardPerRow));
      }
}

// At t = 1 with a GPT block the prefill is MLM2021's forward 24bsh^2 +
// 4bs^2h, which is Kaplan's C_forward = 2N + 2 n_ctx d_attn per token with
// both attention matmuls counted (Kaplan's "Mask" row counts one).
TEST(InferencePrefill, GptForwardAtTensorParallelOne) {
  ModelSpec model = modelOf(kShapes[0]);
  InferenceSpec inference = inferenceFor(4, 2048, 8);
  WorkSummary summary = summaryOf(prefillOf(model, inference, mappingFor(1)));
  int64_t b = 4, s = 2048, h = 12288;
  EXPECT_EQ(summary.at(Phase::Prefill, Engine::Matmul).ops,
            24 * b * s * h * h + 4 * b * s * s * h);
}

// The prefill is the training forward of the same shape, invocation for
// invocation (same primitive ids, engines, ops, tensors and collectives),
// without dropout and stash, plus the KV-cache write after qkv_proj.
TEST(InferencePrefill, IsTheTrainingForwardPlusTheCacheWrite) {
  for (const Shape &shape : kShapes)
    for (int64_t t : kTensorParallel) {
      ModelSpec model = modelOf(shape);
      InferenceSpec inference = inferenceFor(3, 64, 4);
      MappingSpec mapping = mappingFor(t);
      SCOPED_TRACE(label(model, inference, mapping));
      BlockWork prefill = prefillOf(model, inference, mapping);

      ModelSpec trainingModel = model;
      trainingModel.seqLength = inference.promptLength;
      TrainingSpec training;
      training.globalBatch = inference.batch;
      training.microBatch = inference.batch;
      training.attentionDropout = false;
      training.hiddenDropout = false;
      llvm::Expected<BlockWork> trained =
          deriveBlockWork(trainingModel, training, mapping);
      ASSERT_TRUE(static_cast<bool>(trained))
          << llvm::toString(trained.takeError());

      std::vector<const Invocation *> forward;
      for (const Invocation &invocation : trained->invocations)
        if (invocation.phase == Phase::Forward)
          forward.push_back(&invocation);
      std::vector<const Invocation *> shared;
      for (const Invocation &invocation : prefill.invocations)
        if (invocation.primitive != "kv_cache_write")
          shared.push_back(&invocation);
      ASSERT_EQ(shared.size(), forward.size());
      for (auto [ours, theirs] : llvm::zip(shared, forward)) {
        EXPECT_EQ(ours->primitive, theirs->primitive);
        EXPECT_EQ(ours->engine, theirs->engine) << ours->primitive;
        EXPECT_EQ(ours->ops, theirs->ops) << ours->primitive;
        EXPECT_EQ(ours->reads, theirs->reads) << ours->primitive;
        EXPECT_EQ(ours->writes, theirs->writes) << ours->primitive;
        EXPECT_EQ(ours->collective, theirs->collective) << ours->primitive;
        EXPECT_EQ(ours->stashBytes, 0) << ours->primitive;
      }
      ASSERT_GE(prefill.invocations.size(), 3u);
      EXPECT_EQ(prefill.invocations[1].primitive, "qkv_proj");
      EXPECT_EQ(prefill.invocations[2].primitive, "kv_cache_write");
    }
}

// The prefill writes the prompt's keys and values into the cache at
// kv_cache_type: 2 b P (g/t) d e_kv, which is the resident cache at
// context P; the store converts and counts no operation.
TEST(InferencePrefill, WritesThePromptIntoTheKvCache) {
  for (const Shape &shape : kShapes)
    for (int64_t t : kTensorParallel)
      for (DataType kvType : {DataType::BF16, DataType::FP8, DataType::F32}) {
        ModelSpec model = modelOf(shape);
        InferenceSpec inference = inferenceFor(4, 300, 10);
        inference.kvCacheType = kvType;
        MappingSpec mapping = mappingFor(t, 1, 2);
        SCOPED_TRACE(label(model, inference, mapping) +
                     " kv=" + stringifyEnum(kvType).str());
        BlockWork work = prefillOf(model, inference, mapping);
        const Invocation *write = work.find("kv_cache_write", Phase::Prefill);
        ASSERT_NE(write, nullptr);
        int64_t b = 2, g = model.kvHeads, d = model.headDim;
        int64_t elements = b * 300 * (g / t) * d;
        int64_t fresh = elements * bytesOf(inference.activationType);
        int64_t cached = elements * bytesOf(kvType);
        EXPECT_EQ(write->engine, Engine::Vector);
        EXPECT_EQ(write->ops, 0);
        EXPECT_EQ(write->reads,
                  (std::vector<TensorAccess>{{"k", fresh}, {"v", fresh}}));
        EXPECT_EQ(write->writes,
                  (std::vector<TensorAccess>{{"k_cache", cached},
                                             {"v_cache", cached}}));
        EXPECT_EQ(write->writeBytes(),
                  valueOr(kvCacheBytesPerRank(model, inference, mapping, 300),
                          int64_t(-1)));
        // The prefill attends to the fresh keys and values, not the cache.
        EXPECT_EQ(readsOf(work, "k_cache") + readsOf(work, "v_cache"), 0);
      }
}

//===----------------------------------------------------------------------===//
// Decode step
//===----------------------------------------------------------------------===//

// A decode step at context L: matmul ops 2 x linear weights x b plus
// 2 x 2 b (a/t) L d; the step reads this rank's whole KV cache of the block,
// 2 b L (g/t) d e_kv, appends one position, reads every weight once, and
// all-reduces b h e twice when t > 1.
TEST(InferenceDecode, ClosedFormsOverGrid) {
  for (const Shape &shape : kShapes)
    for (int64_t t : kTensorParallel)
      for (int64_t context :
           {int64_t(1), int64_t(2), int64_t(129), int64_t(2048), kMaxPositions})
        for (auto [batch, dp] :
             {std::pair<int64_t, int64_t>{1, 1}, {16, 2}, {12, 4}}) {
          ModelSpec model = modelOf(shape);
          InferenceSpec inference = inferenceFor(batch, 1, 1);
          inference.kvCacheType = DataType::FP8;
          MappingSpec mapping = mappingFor(t, 2, dp);
          SCOPED_TRACE(label(model, inference, mapping) +
                       " L=" + std::to_string(context));
          BlockWork work = stepOf(model, inference, mapping, context);
          WorkSummary summary = summaryOf(work);
          int64_t b = batch / dp, h = model.hidden, a = model.heads,
                  g = model.kvHeads, d = model.headDim;
          int64_t e = 2, eKv = 1, eW = 2;

          EXPECT_EQ(work.cadence, Cadence::PerDecodeStep);
          for (const Invocation &invocation : work.invocations)
            EXPECT_EQ(invocation.phase, Phase::Decode) << invocation.primitive;
          EXPECT_EQ(summary.at(Phase::Decode, Engine::Matmul).ops,
                    2 * linearWeightsPerRank(model, t) * b +
                        2 * 2 * b * (a / t) * context * d);
          const Invocation *scores = work.find("qk_matmul", Phase::Decode);
          ASSERT_NE(scores, nullptr);
          EXPECT_EQ(scores->ops, 2 * b * (a / t) * context * d);
          EXPECT_EQ(scores->reads,
                    (std::vector<TensorAccess>{
                        {"q", b * (a / t) * d * e},
                        {"k_cache", b * context * (g / t) * d * eKv}}));
          // No causal mask: the one query sees every cached position.
          const Invocation *softmax = work.find("softmax", Phase::Decode);
          ASSERT_NE(softmax, nullptr);
          EXPECT_EQ(softmax->ops, b * (a / t) * (6 * context + 1));

          int64_t cache = 2 * b * context * (g / t) * d * eKv;
          EXPECT_EQ(readsOf(work, "k_cache") + readsOf(work, "v_cache"), cache);
          EXPECT_EQ(cache, valueOr(kvCacheBytesPerRank(model, inference,
                                                       mapping, context),
                                   int64_t(-1)));
          EXPECT_EQ(writesOf(work, "k_cache") + writesOf(work, "v_cache"),
                    2 * b * (g / t) * d * eKv);

          int64_t weights = 0;
          for (const Invocation &invocation : work.invocations)
            for (const TensorAccess &access : invocation.reads)
              if (kParameters.contains(access.tensor))
                weights += access.bytes;
          EXPECT_EQ(weights, parametersPerRank(model, t) * eW);
          EXPECT_EQ(weights,
                    valueOr(weightBytesPerRank(model, inference, mapping),
                            int64_t(-1)));

          WorkTotals collectives = summary.of(Engine::Collective);
          if (t == 1) {
            EXPECT_EQ(collectives.invocations, 0);
            continue;
          }
          EXPECT_EQ(collectives.invocations, 2);
          EXPECT_EQ(collectives.messageBytes, 2 * b * h * e);
          EXPECT_EQ(collectives.minimumTransferBytes,
                    2 * 2 * (t - 1) * b * h * e / t);
          for (llvm::StringRef primitive : {"attn_tp_g", "mlp_tp_g"}) {
            const Invocation *reduce = work.find(primitive, Phase::Decode);
            ASSERT_NE(reduce, nullptr) << primitive.str();
            ASSERT_TRUE(reduce->collective.has_value());
            EXPECT_EQ(reduce->collective->kind, CollectiveKind::AllReduce);
            EXPECT_EQ(reduce->collective->participants, t);
            EXPECT_EQ(reduce->collective->messageBytes, b * h * e);
            EXPECT_EQ(reduce->ops, (t - 1) * b * h / t);
          }
        }
}

// Decode is memory-bound: the linears do 2b operations per weight element
// they read, an arithmetic intensity of 2b / e_w operations per byte,
// whatever the model (Pope et al. 2022, Sec. 2).
TEST(InferenceDecode, LinearIntensityIsTwiceTheBatchPerWeightByte) {
  for (const Shape &shape : kShapes)
    for (int64_t batch : {1, 8, 64}) {
      ModelSpec model = modelOf(shape);
      InferenceSpec inference = inferenceFor(batch, 1, 1);
      BlockWork work = stepOf(model, inference, mappingFor(2), 1000);
      int64_t ops = 0, weightBytes = 0;
      for (llvm::StringRef primitive : {"qkv_proj", "out_proj", "fc1", "fc2"}) {
        const Invocation *linear = work.find(primitive, Phase::Decode);
        ASSERT_NE(linear, nullptr) << primitive.str();
        ops += linear->ops;
        for (const TensorAccess &access : linear->reads)
          if (llvm::StringRef(access.tensor).starts_with("w_"))
            weightBytes += access.bytes;
      }
      EXPECT_EQ(ops * bytesOf(inference.weightType), 2 * batch * weightBytes)
          << shape.name << " b=" << batch;
    }
}

// A decode step at L = 1 is a prefill of a one-token prompt except for the
// causal-mask select, b (a/t) operations, and for attending to the cache.
TEST(InferenceDecode, StepAtContextOneIsAOneTokenPrefill) {
  for (const Shape &shape : kShapes)
    for (int64_t t : kTensorParallel) {
      ModelSpec model = modelOf(shape);
      InferenceSpec inference = inferenceFor(5, 1, 1);
      MappingSpec mapping = mappingFor(t);
      SCOPED_TRACE(label(model, inference, mapping));
      WorkSummary prefill = summaryOf(prefillOf(model, inference, mapping));
      WorkSummary step = summaryOf(stepOf(model, inference, mapping, 1));
      EXPECT_EQ(step.of(Engine::Matmul).ops, prefill.of(Engine::Matmul).ops);
      EXPECT_EQ(prefill.of(Engine::Vector).ops - step.of(Engine::Vector).ops,
                opcount::kCausalMaskPerElement * 5 * (model.heads / t));
      EXPECT_EQ(step.of(Engine::Collective).messageBytes,
                prefill.of(Engine::Collective).messageBytes);
      EXPECT_EQ(step.total().invocations, prefill.total().invocations);
    }
}

// At t = 1 the TP communication mode does not change the work, so
// reduce_scatter_all_gather is accepted there and gives the same steps.
TEST(InferenceDecode, TensorParallelOneIgnoresTheCommunicationMode) {
  ModelSpec model = modelOf(kShapes[2]);
  InferenceSpec inference = inferenceFor(2, 16, 8);
  MappingSpec allReduce = mappingFor(1);
  MappingSpec sequenceParallel = allReduce;
  sequenceParallel.tpComm = TPCommMode::ReduceScatterAllGather;
  EXPECT_EQ(stepOf(model, inference, allReduce, 20).invocations,
            stepOf(model, inference, sequenceParallel, 20).invocations);
  EXPECT_EQ(prefillOf(model, inference, allReduce).invocations,
            prefillOf(model, inference, sequenceParallel).invocations);
}

//===----------------------------------------------------------------------===//
// Variants
//===----------------------------------------------------------------------===//

// Grouped-query attention: the projection makes g key/value heads, the cache
// holds g heads, and each cached key is read once for its group of a/g query
// heads.
TEST(InferenceVariants, GroupedQueryAttention) {
  ModelSpec model = modelOf(kShapes[3]); // a = 16, g = 8, d = 32
  model.kvHeads = 2;
  int64_t h = 256, a = 16, g = 2, d = 32, f = 1024;
  for (int64_t t : {1, 2}) {
    InferenceSpec inference = inferenceFor(3, 40, 9);
    MappingSpec mapping = mappingFor(t);
    SCOPED_TRACE(label(model, inference, mapping));
    BlockWork step = stepOf(model, inference, mapping, 45);
    const Invocation *qkv = step.find("qkv_proj", Phase::Decode);
    ASSERT_NE(qkv, nullptr);
    EXPECT_EQ(qkv->ops, 2 * 3 * h * (a + 2 * g) * d / t);
    EXPECT_EQ(readsOf(step, "k_cache"), 3 * 45 * (g / t) * d * 2);
    EXPECT_EQ(readsOf(step, "v_cache"), 3 * 45 * (g / t) * d * 2);
    const Invocation *values = step.find("attn_v_matmul", Phase::Decode);
    ASSERT_NE(values, nullptr);
    EXPECT_EQ(values->ops, 2 * 3 * (a / t) * 45 * d);
    EXPECT_EQ(summaryOf(step).of(Engine::Matmul).ops,
              2 * 3 * (h * (a + 2 * g) * d + a * d * h + 2 * h * f) / t +
                  4 * 3 * (a / t) * 45 * d);
  }
}

// SwiGLU: fc1 produces the gate and the up projection (2f columns), the
// gate is 5 operations per output element, and RMSNorm reads gamma only.
TEST(InferenceVariants, SwiGLU) {
  ModelSpec model = modelOf(kShapes[2]);
  model.activation = ActivationKind::SwiGLU;
  model.norm = NormKind::RMSNorm;
  int64_t h = 64, f = 256;
  for (int64_t t : kTensorParallel) {
    InferenceSpec inference = inferenceFor(4, 32, 2);
    MappingSpec mapping = mappingFor(t);
    SCOPED_TRACE(label(model, inference, mapping));
    BlockWork prefill = prefillOf(model, inference, mapping);
    BlockWork step = stepOf(model, inference, mapping, 33);
    const Invocation *fc1 = step.find("fc1", Phase::Decode);
    ASSERT_NE(fc1, nullptr);
    EXPECT_EQ(fc1->ops, 2 * 4 * h * 2 * f / t);
    const Invocation *gate = step.find("activation", Phase::Decode);
    ASSERT_NE(gate, nullptr);
    EXPECT_EQ(gate->ops, opcount::kSwiGLUForwardPerElement * 4 * f / t);
    EXPECT_EQ(gate->readBytes(), 4 * (2 * f / t) * 2); // fc1_out
    const Invocation *norm = prefill.find("norm1", Phase::Prefill);
    ASSERT_NE(norm, nullptr);
    EXPECT_EQ(norm->ops, 4 * 32 *
                             (opcount::kRMSNormForwardPerElement * h +
                              opcount::kRMSNormForwardPerRow));
    EXPECT_EQ(norm->reads.size(), 2u);
  }
}

// Llama's semantics in inference: rotary on the prompt's q and k in the
// prefill and on each new token's in a decode step (3 ops per element, the
// fp32 cos/sin of the new positions read), before the cache is written; no
// bias reads or bias adds; the attention core and the cache are unchanged.
TEST(InferenceVariants, RotaryWithoutBiases) {
  ModelSpec gpt = modelOf(kShapes[1]);
  ModelSpec llama = gpt;
  llama.linearBias = LinearBias::None;
  llama.positionEmbedding = PositionEmbedding::Rotary;
  int64_t b = 4, P = 32, a = 64, g = 8, d = 128;
  for (int64_t t : kTensorParallel) {
    InferenceSpec inference = inferenceFor(b, P, 2);
    MappingSpec mapping = mappingFor(t);
    SCOPED_TRACE(label(llama, inference, mapping));
    BlockWork prefill = prefillOf(llama, inference, mapping);
    BlockWork step = stepOf(llama, inference, mapping, P + 1);
    for (auto [work, phase, rows] :
         {std::tuple(&prefill, Phase::Prefill, b * P),
          std::tuple(&step, Phase::Decode, b)}) {
      const Invocation *rotary = work->find("rotary", phase);
      ASSERT_NE(rotary, nullptr);
      int64_t rotated = rows * (a + g) * d / t;
      EXPECT_EQ(rotary->ops, opcount::kRotaryPerElement * rotated);
      int64_t positions = phase == Phase::Prefill ? P : 1;
      EXPECT_EQ(rotary->readBytes(), 2 * rotated + positions * d * 4);
      size_t index = static_cast<size_t>(rotary - work->invocations.data());
      ASSERT_GT(index, 0u);
      EXPECT_EQ(work->invocations[index - 1].primitive, "qkv_proj");
      EXPECT_EQ(work->invocations[index + 1].primitive, "kv_cache_write");
      EXPECT_EQ(work->find("out_proj_bias", phase), nullptr);
      EXPECT_EQ(work->find("fc2_bias", phase), nullptr);
      EXPECT_EQ(readsOf(*work, "b_qkv") + readsOf(*work, "b_fc1"), 0);
    }
    // The attention core and the cache are the GPT model's.
    BlockWork gptStep = stepOf(gpt, inference, mapping, P + 1);
    for (const char *primitive :
         {"qk_matmul", "softmax", "attn_v_matmul", "kv_cache_write"})
      EXPECT_EQ(*step.find(primitive, Phase::Decode),
                *gptStep.find(primitive, Phase::Decode))
          << primitive;
  }
}

//===----------------------------------------------------------------------===//
// The whole generation
//===----------------------------------------------------------------------===//

/// Field-wise a + b.
WorkTotals plus(const WorkTotals &a, const WorkTotals &b) {
  WorkTotals sum;
  sum.invocations = a.invocations + b.invocations;
  sum.ops = a.ops + b.ops;
  sum.readBytes = a.readBytes + b.readBytes;
  sum.writeBytes = a.writeBytes + b.writeBytes;
  sum.messageBytes = a.messageBytes + b.messageBytes;
  sum.minimumTransferBytes = a.minimumTransferBytes + b.minimumTransferBytes;
  sum.stashBytes = a.stashBytes + b.stashBytes;
  return sum;
}

void expectTotalsEq(const WorkTotals &actual, const WorkTotals &expected,
                    llvm::StringRef what) {
  SCOPED_TRACE(what.str());
  EXPECT_EQ(actual.invocations, expected.invocations);
  EXPECT_EQ(actual.ops, expected.ops);
  EXPECT_EQ(actual.readBytes, expected.readBytes);
  EXPECT_EQ(actual.writeBytes, expected.writeBytes);
  EXPECT_EQ(actual.messageBytes, expected.messageBytes);
  EXPECT_EQ(actual.minimumTransferBytes, expected.minimumTransferBytes);
  EXPECT_EQ(actual.stashBytes, expected.stashBytes);
}

/// The generation's decode steps summed one by one: the reference the
/// closed form is checked against.
struct ExplicitDecodeSum {
  std::array<WorkTotals, kNumEngines> byEngine{};
  WorkTotals decode;
  int64_t steps = 0;
  int64_t cacheReads = 0;
  int64_t cacheWrites = 0;
};

ExplicitDecodeSum sumDecodeSteps(const ModelSpec &model,
                                 const InferenceSpec &inference,
                                 const MappingSpec &mapping) {
  ExplicitDecodeSum sum;
  int64_t last = inference.promptLength + inference.generatedTokens - 1;
  for (int64_t context = inference.promptLength + 1; context <= last;
       ++context, ++sum.steps) {
    BlockWork step = stepOf(model, inference, mapping, context);
    WorkSummary summary = summaryOf(step);
    for (size_t engine = 0; engine < kNumEngines; ++engine)
      sum.byEngine[engine] =
          plus(sum.byEngine[engine], summary.of(static_cast<Engine>(engine)));
    sum.decode = plus(sum.decode, summary.total());
    sum.cacheReads += readsOf(step, "k_cache") + readsOf(step, "v_cache") +
                      readsOf(step, "kv_cache");
    sum.cacheWrites += writesOf(step, "k_cache") + writesOf(step, "v_cache");
  }
  return sum;
}

/// Every decode total of `generation` equals the explicit sum's.
void expectDecodeEq(const GenerationWork &generation,
                    const ExplicitDecodeSum &sum) {
  for (size_t engine = 0; engine < kNumEngines; ++engine)
    expectTotalsEq(generation.decodeByEngine[engine], sum.byEngine[engine],
                   stringifyEnum(static_cast<Engine>(engine)));
  expectTotalsEq(generation.decode, sum.decode, "decode");
  EXPECT_EQ(generation.decodeSteps, sum.steps);
  EXPECT_EQ(generation.kvCacheReadBytes, sum.cacheReads);
}

// The closed form equals the explicit loop over the decode steps, for every
// total, engine, datatype mix and TP degree; the cache written over the
// generation is the cache resident at its end.
TEST(InferenceGeneration, ClosedFormEqualsTheExplicitSum) {
  for (const Shape &shape : kShapes)
    for (int64_t t : {1, 2, 8})
      for (auto [prompt, generated] :
           {std::pair<int64_t, int64_t>{1, 2}, {7, 5}, {16, 16}, {100, 33}}) {
        ModelSpec model = modelOf(shape);
        InferenceSpec inference = inferenceFor(6, prompt, generated);
        inference.activationType = DataType::BF16;
        inference.weightType = DataType::FP8;
        inference.kvCacheType = DataType::F16;
        MappingSpec mapping = mappingFor(t, 2, 3);
        SCOPED_TRACE(label(model, inference, mapping));
        llvm::Expected<GenerationWork> generation =
            deriveInferenceGeneration(model, inference, mapping);
        ASSERT_TRUE(static_cast<bool>(generation))
            << llvm::toString(generation.takeError());

        ExplicitDecodeSum sum = sumDecodeSteps(model, inference, mapping);
        BlockWork prefill = prefillOf(model, inference, mapping);
        int64_t cacheWrites = sum.cacheWrites + writesOf(prefill, "k_cache") +
                              writesOf(prefill, "v_cache");

        EXPECT_EQ(generation->decodeSteps, generated - 1);
        EXPECT_EQ(generation->firstContext, prompt + 1);
        EXPECT_EQ(generation->lastContext, prompt + generated - 1);
        expectDecodeEq(*generation, sum);
        expectTotalsEq(generation->prefill.total(), summaryOf(prefill).total(),
                       "prefill");
        expectTotalsEq(generation->total,
                       plus(generation->prefill.total(), sum.decode), "total");
        EXPECT_EQ(generation->finalKvCacheBytes, cacheWrites);
        EXPECT_EQ(generation->kvCacheWriteBytes, cacheWrites);
        EXPECT_EQ(generation->weightReadBytes,
                  generated * parametersPerRank(model, t) *
                      bytesOf(inference.weightType));
      }
}

// The decode sum written symbolically: with n = G - 1 steps and
// sum L = n (2P + n + 1) / 2, matmul ops are n 2b W/t + 4 b (a/t) d sum L
// and KV-cache reads 2 b (g/t) d e_kv sum L, at GPT-3 175B serving scale.
TEST(InferenceGeneration, SymbolicClosedForm) {
  for (const Shape &shape : kShapes)
    for (int64_t t : kTensorParallel) {
      ModelSpec model = modelOf(shape);
      InferenceSpec inference = inferenceFor(64, 2000, 2000);
      MappingSpec mapping = mappingFor(t, 8, 4);
      SCOPED_TRACE(label(model, inference, mapping));
      llvm::Expected<GenerationWork> generation =
          deriveInferenceGeneration(model, inference, mapping);
      ASSERT_TRUE(static_cast<bool>(generation))
          << llvm::toString(generation.takeError());
      int64_t b = 16, a = model.heads, g = model.kvHeads, d = model.headDim;
      int64_t n = 1999, prompt = 2000;
      int64_t contexts = n * (2 * prompt + n + 1) / 2;
      EXPECT_EQ(generation->decodeOf(Engine::Matmul).ops,
                n * 2 * b * linearWeightsPerRank(model, t) +
                    4 * b * (a / t) * d * contexts);
      EXPECT_EQ(generation->kvCacheReadBytes,
                2 * b * (g / t) * d * 2 * contexts);
      EXPECT_EQ(generation->finalKvCacheBytes,
                2 * b * (prompt + n) * (g / t) * d * 2);
      EXPECT_EQ(generation->decodeOf(Engine::Collective).invocations,
                t == 1 ? 0 : 2 * n);
      EXPECT_EQ(generation->decodeOf(Engine::Collective).messageBytes,
                t == 1 ? 0 : 2 * n * b * model.hidden * 2);
    }
}

// Under a sliding window of w keys a decode step attends to the min(L, w)
// positions of its rolling-buffer cache, so the steps' totals grow up to the
// window and then stay constant: the generation's two-segment closed form
// equals the explicit sum over its steps for windows below the prompt,
// inside the decode range, and beyond it, and the cache ends at
// min(L_last, w) positions.
TEST(InferenceGeneration, SlidingWindowClosedFormEqualsTheExplicitSum) {
  for (const Shape &shape : {kShapes[1], kShapes[2]})
    for (int64_t t : {1, 8})
      for (int64_t window : {1, 5, 7, 8, 10, 30, 4096}) {
        int64_t prompt = 7, generated = 9;
        ModelSpec model = modelOf(shape);
        model.attentionWindow = window;
        InferenceSpec inference = inferenceFor(6, prompt, generated);
        MappingSpec mapping = mappingFor(t, 1, 3);
        SCOPED_TRACE(label(model, inference, mapping) +
                     " w=" + std::to_string(window));
        llvm::Expected<GenerationWork> generation =
            deriveInferenceGeneration(model, inference, mapping);
        ASSERT_TRUE(static_cast<bool>(generation))
            << llvm::toString(generation.takeError());

        ExplicitDecodeSum sum = sumDecodeSteps(model, inference, mapping);
        expectDecodeEq(*generation, sum);
        for (int64_t context = prompt + 1; context <= prompt + generated - 1;
             ++context)
          EXPECT_EQ(
              readsOf(stepOf(model, inference, mapping, context), "k_cache"),
              2 * std::min(context, window) * (shape.kvHeads / t) *
                  shape.headDim * 2);
        int64_t last = prompt + generated - 1;
        EXPECT_EQ(generation->finalKvCacheBytes,
                  2 * 2 * std::min(last, window) * (shape.kvHeads / t) *
                      shape.headDim * 2);
        // The prefill keeps the prompt's last window of positions; every
        // step writes one.
        BlockWork prefill = prefillOf(model, inference, mapping);
        EXPECT_EQ(generation->kvCacheWriteBytes,
                  sum.cacheWrites + writesOf(prefill, "k_cache") +
                      writesOf(prefill, "v_cache"));
        EXPECT_EQ(writesOf(prefill, "k_cache"), 2 * std::min(prompt, window) *
                                                    (shape.kvHeads / t) *
                                                    shape.headDim * 2);
      }
}

// Multi-head latent attention served (docs/Inference.md, "Multi-head latent
// attention"): a = 8 heads of d_n 16 + d_r 8 (d = 24) and d_v 12, latents
// r_q = 48 and r_kv = 32, h = 64, f = 128 (SwiGLU), with t in {1, 2, 4}
// (a_t = a/t) and with and without a query latent. The prefill is the
// training forward over the prompt (the duplicated down-projections over
// all b P tokens on every rank: no sequence parallelism in inference) with
// the compressed cache write; a decode step at context L leaves out
// kv_b_proj and attends in the absorbed form. The generation's closed form
// equals the explicit loop over its steps.
TEST(InferenceVariants, LatentAttentionClosedForms) {
  const int64_t h = 64, a = 8, dn = 16, dr = 8, dv = 12, rq = 48, rkv = 32,
                f = 128, d = dn + dr;
  for (bool queryLatent : {true, false})
    for (int64_t t : {1, 2, 4}) {
      ModelSpec model = modelOf(
          {"mla", h, a, a, d, f, ActivationKind::SwiGLU, NormKind::RMSNorm});
      blueprint::test::useLatentAttention(
          model, {queryLatent ? std::optional<int64_t>(rq) : std::nullopt, rkv,
                  dn, dr, dv});
      const int64_t b = 3, P = 20, G = 9, at = a / t;
      InferenceSpec inference = inferenceFor(b, P, G);
      inference.kvCacheType = DataType::FP8;
      MappingSpec mapping = mappingFor(t);
      SCOPED_TRACE(label(model, inference, mapping) +
                   (queryLatent ? " q_lora" : " no q_lora"));
      // Per token: the query path, kv_a_proj, out_proj and the MLP.
      int64_t query =
          queryLatent ? 2 * h * rq + 2 * rq * at * d : 2 * h * at * d;
      int64_t shared = query + 2 * h * (rkv + dr) + 2 * at * dv * h +
                       2 * h * 2 * (f / t) + 2 * (f / t) * h;
      int64_t keyValueUp = 2 * rkv * at * (dn + dv);
      int64_t cachePosition = rkv + dr; // fp8: one byte each

      BlockWork prefill = prefillOf(model, inference, mapping);
      EXPECT_EQ(summaryOf(prefill).at(Phase::Prefill, Engine::Matmul).ops,
                b * P * (shared + keyValueUp) + 2 * b * at * P * P * (d + dv));
      EXPECT_EQ(writesOf(prefill, "kv_cache"), b * P * cachePosition);
      EXPECT_EQ(prefill.find("q_absorb", Phase::Prefill), nullptr);

      for (int64_t L : {P + 1, P + G - 1}) {
        BlockWork step = stepOf(model, inference, mapping, L);
        // Absorbed: W_UK into the query (2 a_t d_n r_kv per token), scores
        // over r_kv + d_r per cached position, the context over r_kv, W_UV
        // after (2 a_t r_kv d_v per token); no kv_b_proj.
        int64_t absorbed = 2 * at * dn * rkv + 2 * at * rkv * dv;
        int64_t attention = 2 * at * L * (rkv + dr) + 2 * at * L * rkv;
        EXPECT_EQ(summaryOf(step).at(Phase::Decode, Engine::Matmul).ops,
                  b * (shared + absorbed + attention));
        EXPECT_EQ(step.find("kv_b_proj", Phase::Decode), nullptr);
        const Invocation *scores = step.find("qk_matmul", Phase::Decode);
        ASSERT_NE(scores, nullptr);
        EXPECT_EQ(scores->ops, 2 * b * at * L * (rkv + dr));
        EXPECT_EQ(writesOf(step, "kv_cache"), b * cachePosition);
        // The scores read the whole compressed cache, the context its
        // latent part again (bytes are unfused).
        EXPECT_EQ(readsOf(step, "kv_cache"),
                  b * L * cachePosition + b * L * rkv);
        EXPECT_EQ(valueOr(kvCacheBytesPerRank(model, inference, mapping, L),
                          int64_t(-1)),
                  b * L * cachePosition);
      }

      llvm::Expected<GenerationWork> generation =
          deriveInferenceGeneration(model, inference, mapping);
      ASSERT_TRUE(static_cast<bool>(generation))
          << llvm::toString(generation.takeError());
      ExplicitDecodeSum sum = sumDecodeSteps(model, inference, mapping);
      for (size_t engine = 0; engine < kNumEngines; ++engine)
        expectTotalsEq(generation->decodeByEngine[engine], sum.byEngine[engine],
                       stringifyEnum(static_cast<Engine>(engine)));
      expectTotalsEq(generation->decode, sum.decode, "decode");
      int64_t contexts = 0;
      for (int64_t L = P + 1; L <= P + G - 1; ++L)
        contexts += L;
      // The reported cache reads are what the steps' invocations read: the
      // whole compressed cache for the scores, its latent again for the
      // context, b L (2 r_kv + d_r) bytes per step (docs/Inference.md).
      EXPECT_EQ(generation->kvCacheReadBytes, sum.cacheReads);
      EXPECT_EQ(generation->kvCacheReadBytes, b * (2 * rkv + dr) * contexts);
      EXPECT_EQ(generation->finalKvCacheBytes, b * (P + G - 1) * cachePosition);
      EXPECT_EQ(generation->kvCacheWriteBytes, b * (P + G - 1) * cachePosition);
    }
}

// A window at least as long as every context changes nothing: the same
// invocations as full attention; a shorter one bounds the prefill's scores
// to P x w per head: QK^T and probs x V are 2 x 2 b (a/t) P w d.
TEST(InferencePrefill, SlidingWindowBoundsTheScores) {
  for (const Shape &shape : kShapes)
    for (int64_t t : {1, 8}) {
      int64_t prompt = 64;
      ModelSpec full = modelOf(shape);
      InferenceSpec inference = inferenceFor(4, prompt, 1);
      MappingSpec mapping = mappingFor(t);
      SCOPED_TRACE(label(full, inference, mapping));
      ModelSpec wide = full;
      wide.attentionWindow = prompt;
      EXPECT_EQ(prefillOf(full, inference, mapping).invocations,
                prefillOf(wide, inference, mapping).invocations);
      ModelSpec windowed = full;
      windowed.attentionWindow = 16;
      WorkSummary fullSummary = summaryOf(prefillOf(full, inference, mapping));
      WorkSummary windowedSummary =
          summaryOf(prefillOf(windowed, inference, mapping));
      int64_t b = 4, a = shape.heads, d = shape.headDim;
      EXPECT_EQ(fullSummary.of(Engine::Matmul).ops -
                    windowedSummary.of(Engine::Matmul).ops,
                2 * 2 * b * (a / t) * prompt * (prompt - 16) * d);
    }
}

// One generated token comes from the prefill alone: no decode step.
TEST(InferenceGeneration, OneTokenNeedsNoDecodeStep) {
  ModelSpec model = modelOf(kShapes[2]);
  InferenceSpec inference = inferenceFor(2, 10, 1);
  MappingSpec mapping = mappingFor(2);
  llvm::Expected<GenerationWork> generation =
      deriveInferenceGeneration(model, inference, mapping);
  ASSERT_TRUE(static_cast<bool>(generation))
      << llvm::toString(generation.takeError());
  EXPECT_EQ(generation->decodeSteps, 0);
  EXPECT_GT(generation->firstContext, generation->lastContext);
  expectTotalsEq(generation->decode, WorkTotals(), "decode");
  expectTotalsEq(generation->total, generation->prefill.total(), "total");
  EXPECT_EQ(generation->kvCacheReadBytes, 0);
  EXPECT_EQ(
      generation->weightReadBytes,
      valueOr(weightBytesPerRank(model, inference, mapping), int64_t(-1)));
  EXPECT_EQ(
      generation->finalKvCacheBytes,
      valueOr(kvCacheBytesPerRank(model, inference, mapping, 10), int64_t(-1)));
}

//===----------------------------------------------------------------------===//
// Composition rules
//===----------------------------------------------------------------------===//

std::vector<std::string> rulesOf(const std::vector<RuleViolation> &violations) {
  std::vector<std::string> rules;
  for (const RuleViolation &violation : violations)
    rules.push_back(violation.rule);
  return rules;
}

std::vector<std::string> messagesOf(const std::vector<RuleViolation> &found) {
  std::vector<std::string> messages;
  for (const RuleViolation &violation : found)
    messages.push_back(violation.rule + ": " + violation.message);
  return messages;
}

TEST(InferenceRules, SizesArePositive) {
  std::vector<RuleViolation> found = checkInference(inferenceFor(0, -1, 0));
  EXPECT_EQ(messagesOf(found),
            (std::vector<std::string>{
                "transformer_inference_c1: batch must be positive, got 0",
                "transformer_inference_c1: prompt_length must be positive, "
                "got -1",
                "transformer_inference_c1: generated_tokens must be positive, "
                "got 0"}));
  EXPECT_TRUE(checkInference(inferenceFor(1, 1, 1)).empty());
}

TEST(InferenceRules, EachCompositionRule) {
  ModelSpec model = modelOf(kShapes[2]); // h 64, a = g = 8, f 256, vocab 1024
  InferenceSpec valid = inferenceFor(8, 100, 28);
  EXPECT_TRUE(
      checkInferenceComposition(model, valid, mappingFor(8, 4, 2)).empty());

  auto only = [&](const ModelSpec &m, const InferenceSpec &inference,
                  const MappingSpec &mapping) {
    return messagesOf(checkInferenceComposition(m, inference, mapping));
  };
  using Messages = std::vector<std::string>;
  EXPECT_EQ(only(model, valid, mappingFor(1, 1, 3)),
            (Messages{"decoder_inference_c1: batch = 8 is not divisible by "
                      "dp = 3"}));
  EXPECT_EQ(only(model, valid, mappingFor(1, 3, 1)),
            (Messages{"decoder_inference_c2: blocks = 8 is not divisible by "
                      "pp = 3"}));

  ModelSpec split = model;
  split.heads = 12;
  split.kvHeads = 12;
  split.hidden = 1020;
  split.headDim = 85;
  split.ffnHidden = 4100;
  split.vocab = 1001;
  EXPECT_EQ(
      only(split, valid, mappingFor(8)),
      (Messages{"decoder_inference_c3: heads = 12 is not divisible by tp = 8",
                "decoder_inference_c4: kv_heads = 12 is not divisible by "
                "tp = 8",
                "decoder_inference_c5: hidden = 1020 is not divisible by "
                "tp = 8",
                "decoder_inference_c6: ffn_hidden = 4100 is not divisible by "
                "tp = 8",
                "decoder_inference_c7: vocab = 1001 is not divisible by "
                "tp = 8"}));

  EXPECT_EQ(only(model, inferenceFor(8, 4000, 97), mappingFor(1)),
            (Messages{"decoder_inference_c8: prompt_length + "
                      "generated_tokens = 4000 + 97 = 4097 exceeds "
                      "max_positions = 4096"}));
  EXPECT_TRUE(only(model, inferenceFor(8, 4000, 96), mappingFor(1)).empty());
  EXPECT_EQ(only(model, inferenceFor(8, std::numeric_limits<int64_t>::max(), 1),
                 mappingFor(1)),
            (Messages{"decoder_inference_c8: prompt_length + "
                      "generated_tokens overflows a 64-bit integer"}));

  for (RecomputePolicy policy :
       {RecomputePolicy::Selective, RecomputePolicy::Full}) {
    MappingSpec mapping = mappingFor(2);
    mapping.recompute = policy;
    EXPECT_EQ(only(model, valid, mapping),
              (Messages{"decoder_inference_c9: inference has no backward "
                        "pass: recompute must be none, got " +
                        stringifyEnum(policy).str()}));
  }

  MappingSpec interleaved = mappingFor(1, 2, 1);
  interleaved.virtualStages = 2;
  interleaved.schedule = PipelineSchedule::Interleaved1F1B;
  EXPECT_TRUE(checkMapping(interleaved).empty());
  EXPECT_EQ(only(model, valid, interleaved),
            (Messages{"decoder_inference_c10: inference runs no interleaved "
                      "pipeline schedule: virtual_stages must be 1, got 2"}));

  MappingSpec sequenceParallel = mappingFor(4);
  sequenceParallel.tpComm = TPCommMode::ReduceScatterAllGather;
  EXPECT_EQ(only(model, valid, sequenceParallel),
            (Messages{"decoder_inference_c11: tp_comm = "
                      "reduce_scatter_all_gather with tp = 4: a decode "
                      "step's single position per sequence cannot be split "
                      "by sequence parallelism; inference needs "
                      "all_reduce"}));
}

// The TP rules are the training rules' (one helper), under their own labels
// and with the same messages.
TEST(InferenceRules, TensorParallelRulesMatchTraining) {
  ModelSpec model = modelOf(kShapes[2]);
  model.kvHeads = 2;
  TrainingSpec training;
  training.globalBatch = 8;
  training.microBatch = 1;
  std::vector<RuleViolation> trainingFound =
      checkTrainingComposition(model, training, mappingFor(4));
  std::vector<RuleViolation> inferenceFound =
      checkInferenceComposition(model, inferenceFor(8, 10, 10), mappingFor(4));
  EXPECT_EQ(rulesOf(trainingFound),
            (std::vector<std::string>{"decoder_training_c5"}));
  EXPECT_EQ(rulesOf(inferenceFound),
            (std::vector<std::string>{"decoder_inference_c4"}));
  ASSERT_EQ(trainingFound.size(), 1u);
  ASSERT_EQ(inferenceFound.size(), 1u);
  EXPECT_EQ(trainingFound[0].message, inferenceFound[0].message);
}

TEST(InferenceRules, CompositionQuotientsOverGrid) {
  ModelSpec model = modelOf(kShapes[2]);
  for (int64_t tp : {1, 2, 4, 8, 16})
    for (int64_t pp : {1, 2, 3, 8})
      for (int64_t dp : {1, 2, 3, 8}) {
        InferenceSpec inference = inferenceFor(24, 100, 10);
        MappingSpec mapping = mappingFor(tp, pp, dp);
        bool integral = 24 % dp == 0 && 8 % pp == 0 && 8 % tp == 0;
        std::optional<InferenceComposition> composition =
            composeInference(model, inference, mapping);
        ASSERT_EQ(composition.has_value(), integral)
            << "tp=" << tp << " pp=" << pp << " dp=" << dp;
        if (!composition)
          continue;
        EXPECT_EQ(composition->localBatch * dp, 24);
        EXPECT_EQ(composition->blocksPerStage * pp, 8);
      }
  // A broken contract is not composed either.
  EXPECT_FALSE(composeInference(model, inferenceFor(0, 1, 1), mappingFor(1)));
  ModelSpec broken = model;
  broken.hidden = 0;
  EXPECT_FALSE(composeInference(broken, inferenceFor(1, 1, 1), mappingFor(1)));
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

template <typename T> std::string errorOf(llvm::Expected<T> expected) {
  if (expected) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(expected.takeError());
}

TEST(InferenceDiagnostics, SpecThatDoesNotComposeIsRejected) {
  ModelSpec model = modelOf(kShapes[2]);
  MappingSpec mapping = mappingFor(16);
  InferenceSpec inference = inferenceFor(2, 5000, 1);
  for (const std::string &message :
       {errorOf(deriveInferencePrefill(model, inference, mapping)),
        errorOf(deriveInferenceDecodeStep(model, inference, mapping, 1)),
        errorOf(deriveInferenceGeneration(model, inference, mapping)),
        errorOf(kvCacheBytesPerRank(model, inference, mapping, 1)),
        errorOf(weightBytesPerRank(model, inference, mapping))}) {
    EXPECT_NE(message.find("the specification does not compose"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("[decoder_inference_c3] heads = 8 is not "
                           "divisible by tp = 16"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("[decoder_inference_c8]"), std::string::npos)
        << message;
  }
  std::string contract =
      errorOf(deriveInferencePrefill(model, inferenceFor(0, 1, 1), mapping));
  EXPECT_NE(contract.find("[transformer_inference_c1] batch must be positive"),
            std::string::npos)
      << contract;
  // The composition rules run only on valid contracts.
  EXPECT_EQ(contract.find("decoder_inference"), std::string::npos) << contract;
}

TEST(InferenceDiagnostics, ContextLengthOutsideThePositionTable) {
  ModelSpec model = modelOf(kShapes[2]);
  InferenceSpec inference = inferenceFor(2, 10, 5);
  for (int64_t context : {int64_t(0), int64_t(-3), kMaxPositions + 1}) {
    std::string message = errorOf(
        deriveInferenceDecodeStep(model, inference, mappingFor(1), context));
    EXPECT_NE(message.find("deriveInferenceDecodeStep: context length " +
                           std::to_string(context) +
                           " must be in [1, max_positions = 4096]"),
              std::string::npos)
        << message;
    EXPECT_NE(
        errorOf(kvCacheBytesPerRank(model, inference, mappingFor(1), context))
            .find("kvCacheBytesPerRank: context length"),
        std::string::npos);
  }
}

TEST(InferenceDiagnostics, OverflowNamesTheQuantity) {
  ModelSpec model = modelOf(kShapes[2]);
  model.hidden = int64_t(1) << 40;
  model.headDim = model.hidden / model.heads;
  model.ffnHidden = 4 * model.hidden;
  InferenceSpec inference = inferenceFor(2, 16, 2);
  std::string message =
      errorOf(deriveInferencePrefill(model, inference, mappingFor(1)));
  EXPECT_NE(message.find("deriveInferencePrefill: 64-bit overflow computing "
                         "qkv_proj prefill ops"),
            std::string::npos)
      << message;
  message =
      errorOf(deriveInferenceDecodeStep(model, inference, mappingFor(1), 16));
  EXPECT_NE(message.find("deriveInferenceDecodeStep: 64-bit overflow "
                         "computing qkv_proj decode ops"),
            std::string::npos)
      << message;

  // Every step fits; their sum over the generation does not.
  ModelSpec small = modelOf(kShapes[2]);
  small.seqLength = 256;
  small.maxPositions = 256;
  InferenceSpec huge = inferenceFor(int64_t(1) << 40, 16, 200);
  llvm::Expected<BlockWork> last =
      deriveInferenceDecodeStep(small, huge, mappingFor(1), 215);
  ASSERT_TRUE(static_cast<bool>(last)) << llvm::toString(last.takeError());
  ASSERT_TRUE(static_cast<bool>(summarize(*last)));
  message = errorOf(deriveInferenceGeneration(small, huge, mappingFor(1)));
  EXPECT_NE(message.find("deriveInferenceGeneration: 64-bit overflow "
                         "computing decode matmul ops"),
            std::string::npos)
      << message;
}

TEST(InferenceDiagnostics, Spellings) {
  EXPECT_EQ(stringifyEnum(Phase::Prefill), "prefill");
  EXPECT_EQ(stringifyEnum(Phase::Decode), "decode");
  EXPECT_EQ(stringifyEnum(Cadence::PerGeneration), "per_generation");
  EXPECT_EQ(stringifyEnum(Cadence::PerDecodeStep), "per_decode_step");
  EXPECT_EQ(symbolizeEnum<Phase>("decode"), Phase::Decode);
  EXPECT_EQ(symbolizeEnum<Cadence>("per_decode_step"), Cadence::PerDecodeStep);
  EXPECT_EQ(opcount::kUnmaskedSoftmaxForwardPerElement, 6);
}

} // namespace

// The context length of the last decode step is computed with overflow
// checks: a contract that breaks decoder_inference_c8 by overflowing gets a
// diagnostic, never a negative length.
TEST(InferenceDiagnostics, DecodeContextOverflowIsReported) {
  InferenceSpec huge = inferenceFor(2, std::numeric_limits<int64_t>::max(), 2);
  llvm::Expected<std::optional<int64_t>> context = defaultDecodeContext(huge);
  ASSERT_FALSE(static_cast<bool>(context));
  EXPECT_EQ(llvm::toString(context.takeError()),
            "defaultDecodeContext: 64-bit overflow computing prompt_length + "
            "generated_tokens - 1");
  std::optional<std::string> violation = decodeContextViolation(huge, 3);
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find("64-bit overflow"), std::string::npos)
      << *violation;
  // In range, the last step's context is prompt + generated - 1.
  llvm::Expected<std::optional<int64_t>> last =
      defaultDecodeContext(inferenceFor(2, 8, 4));
  ASSERT_TRUE(static_cast<bool>(last));
  EXPECT_EQ(**last, 11);
}
