//===- MixtureOfExpertsTest.cpp - The work of an MoE block ----------------===//
//
// The training and inference work of a block whose MLP is a mixture of
// experts (docs/WorkAlgebra.md, "Mixture-of-experts") against closed forms
// written here: the routing by an explicit assignment loop, every MoE
// primitive's operations and weight reads by hand, the parameters by
// tensor.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Primitives.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace blueprint::workload;

namespace {

/// The routing the test expects: pair i goes to expert i mod E (a balanced
/// assignment), each expert processes at most `capacity` of its pairs.
struct CountedRouting {
  int64_t processed = 0;
  int64_t active = 0;
};

CountedRouting countRouting(int64_t experts, int64_t k, int64_t tokens,
                            std::optional<int64_t> capacityPercent) {
  std::vector<int64_t> load(experts, 0);
  for (int64_t pair = 0; pair < k * tokens; ++pair)
    ++load[pair % experts];
  int64_t capacity = k * tokens;
  if (capacityPercent) {
    // ceil(C k T / (100 E)) by counting up.
    capacity = 0;
    while (capacity * 100 * experts < *capacityPercent * k * tokens)
      ++capacity;
  }
  CountedRouting counted;
  for (int64_t received : load) {
    counted.processed += std::min(received, capacity);
    counted.active += received > 0 ? 1 : 0;
  }
  return counted;
}

TEST(MixtureOfExperts, BalancedRoutingMatchesAnAssignmentLoop) {
  for (int64_t experts : {2, 3, 8, 16})
    for (int64_t k : {1, 2, 3})
      for (int64_t tokens : {1, 2, 5, 64, 1000})
        for (std::optional<int64_t> capacity :
             {std::optional<int64_t>(), std::optional<int64_t>(50),
              std::optional<int64_t>(100), std::optional<int64_t>(125)}) {
          if (k > experts)
            continue;
          MixtureOfExperts moe;
          moe.experts = experts;
          moe.expertsPerToken = k;
          moe.capacityFactorPercent = capacity;
          OverflowGuard guard;
          ExpertRouting routing = balancedRouting(moe, tokens, 1, guard);
          ASSERT_FALSE(guard.failed());
          CountedRouting counted = countRouting(experts, k, tokens, capacity);
          std::string where =
              "E=" + std::to_string(experts) + " k=" + std::to_string(k) +
              " T=" + std::to_string(tokens) +
              " C=" + (capacity ? std::to_string(*capacity) : "none");
          EXPECT_EQ(routing.pairs, k * tokens) << where;
          EXPECT_EQ(routing.processed, counted.processed) << where;
          EXPECT_EQ(routing.dropped, k * tokens - counted.processed) << where;
          EXPECT_EQ(routing.activeExperts, counted.active) << where;
          // Dropless and C >= 100 drop nothing under balanced routing.
          if (!capacity || *capacity >= 100) {
            EXPECT_EQ(routing.dropped, 0) << where;
          }
        }
}

/// The per-expert loads the test expects over `calls` router calls of
/// tokens/calls tokens: pair j of the micro-batch (counted across the calls)
/// goes to expert j mod E, each call caps every expert at its own capacity;
/// then the experts of equal nonzero load grouped, the more loaded first.
std::vector<ExpertLoad> countLoads(int64_t experts, int64_t k, int64_t tokens,
                                   int64_t calls,
                                   std::optional<int64_t> capacityPercent) {
  int64_t callPairs = k * (tokens / calls);
  int64_t capacity = callPairs;
  if (capacityPercent) {
    capacity = 0;
    while (capacity * 100 * experts < *capacityPercent * callPairs)
      ++capacity;
  }
  std::vector<int64_t> rows(experts, 0);
  for (int64_t call = 0; call < calls; ++call) {
    std::vector<int64_t> load(experts, 0);
    for (int64_t pair = call * callPairs; pair < (call + 1) * callPairs; ++pair)
      ++load[pair % experts];
    for (int64_t expert = 0; expert < experts; ++expert)
      rows[expert] += std::min(load[expert], capacity);
  }
  std::sort(rows.rbegin(), rows.rend());
  std::vector<ExpertLoad> loads;
  for (int64_t received : rows) {
    if (received == 0)
      break;
    if (!loads.empty() && loads.back().rows == received)
      ++loads.back().experts;
    else
      loads.push_back({1, received});
  }
  return loads;
}

// The grouped GEMM's row groups (ExpertRouting::loads) are the per-expert
// loads of the assignment loop, over one or several router calls, with and
// without a binding capacity; they cover the processed pairs and the active
// experts.
TEST(MixtureOfExperts, ExpertLoadsMatchAnAssignmentLoop) {
  for (int64_t experts : {3, 6, 8})
    for (int64_t k : {1, 2})
      for (int64_t calls : {1, 2, 3})
        for (int64_t tokens : {calls, 2 * calls, 5 * calls, 64 * calls})
          for (std::optional<int64_t> capacity :
               {std::optional<int64_t>(), std::optional<int64_t>(50),
                std::optional<int64_t>(125)}) {
            MixtureOfExperts moe;
            moe.experts = experts;
            moe.expertsPerToken = k;
            moe.capacityFactorPercent = capacity;
            OverflowGuard guard;
            ExpertRouting routing = balancedRouting(moe, tokens, calls, guard);
            ASSERT_FALSE(guard.failed());
            std::vector<ExpertLoad> expected =
                countLoads(experts, k, tokens, calls, capacity);
            std::string where =
                "E=" + std::to_string(experts) + " k=" + std::to_string(k) +
                " T=" + std::to_string(tokens) +
                " calls=" + std::to_string(calls) +
                " C=" + (capacity ? std::to_string(*capacity) : "none");
            ASSERT_EQ(routing.loads.size(), expected.size()) << where;
            int64_t rows = 0, active = 0;
            for (size_t group = 0; group < expected.size(); ++group) {
              EXPECT_EQ(routing.loads[group].experts, expected[group].experts)
                  << where << " group " << group;
              EXPECT_EQ(routing.loads[group].rows, expected[group].rows)
                  << where << " group " << group;
              rows += routing.loads[group].experts * routing.loads[group].rows;
              active += routing.loads[group].experts;
            }
            EXPECT_EQ(rows, routing.processed) << where;
            EXPECT_EQ(active, routing.activeExperts) << where;
          }
}

// Capacity per router call (Megatron-Core's topk_softmax_with_capacity):
// E = 3, k = 1, T = 4 over 2 sequence shards at C = 50. Each shard routes 2
// pairs to 2 of the 3 experts, one each, under a capacity of
// ceil(0.5 * 2 / 3) = 1: both processed, 4 in all. One call over the 4
// tokens would give loads 2, 1, 1 under a capacity of ceil(0.5 * 4 / 3) = 1
// and process 3.
TEST(MixtureOfExperts, CapacityIsPerRouterCall) {
  MixtureOfExperts moe;
  moe.experts = 3;
  moe.expertsPerToken = 1;
  moe.capacityFactorPercent = 50;
  OverflowGuard guard;
  ExpertRouting sharded = balancedRouting(moe, 4, 2, guard);
  EXPECT_EQ(sharded.pairs, 4);
  EXPECT_EQ(sharded.capacity, 1);
  EXPECT_EQ(sharded.processed, 4);
  EXPECT_EQ(sharded.dropped, 0);
  EXPECT_EQ(sharded.activeExperts, 3);
  ExpertRouting whole = balancedRouting(moe, 4, 1, guard);
  EXPECT_EQ(whole.processed, 3);
  EXPECT_EQ(whole.dropped, 1);
  EXPECT_FALSE(guard.failed());
}

/// h = 64, a = 4 (d = 16), s = 32, RMSNorm, no biases, E = 8, k = 2,
/// expert_ffn_hidden = 96.
ModelSpec smallMoE(ActivationKind activation, std::optional<int64_t> capacity) {
  ModelSpec model;
  model.hidden = 64;
  model.heads = 4;
  model.kvHeads = 4;
  model.headDim = 16;
  model.ffnHidden = 256;
  model.seqLength = 32;
  model.maxPositions = 64;
  model.vocab = 128;
  model.blocks = 4;
  model.norm = NormKind::RMSNorm;
  model.activation = activation;
  model.linearBias = LinearBias::None;
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 96;
  moe.capacityFactorPercent = capacity;
  model.moe = moe;
  return model;
}

/// Sum of ops and of the bytes read of `tensor` over the invocations of
/// `primitive` in `phase`.
struct Observed {
  int64_t ops = 0;
  int64_t invocations = 0;
  int64_t tensorReads = 0;
};

Observed observe(const BlockWork &work, llvm::StringRef primitive, Phase phase,
                 llvm::StringRef tensor = "") {
  Observed observed;
  for (const Invocation &invocation : work.invocations) {
    if (invocation.primitive != primitive || invocation.phase != phase)
      continue;
    observed.ops += invocation.ops;
    ++observed.invocations;
    for (const TensorAccess &read : invocation.reads)
      if (read.tensor == tensor)
        observed.tensorReads += read.bytes;
  }
  return observed;
}

/// One micro-batch of 2 sequences on tp ranks, sequence parallel under
/// tp > 1 (decoder_moe_c2), no recompute.
TrainingSpec twoSequences() {
  TrainingSpec training;
  training.globalBatch = 2;
  training.microBatch = 2;
  return training;
}
MappingSpec tensorParallel(int64_t tp) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.world = tp;
  mapping.tpComm =
      tp > 1 ? TPCommMode::ReduceScatterAllGather : TPCommMode::AllReduce;
  mapping.recompute = RecomputePolicy::None;
  return mapping;
}

/// The ops and invocations a primitive has in a phase.
struct Expected {
  llvm::StringRef primitive;
  Phase phase;
  int64_t ops;
  int64_t invocations;
};

void expectRows(const BlockWork &work, llvm::ArrayRef<Expected> expected,
                const std::string &where) {
  for (const Expected &row : expected) {
    Observed observed = observe(work, row.primitive, row.phase);
    EXPECT_EQ(observed.ops, row.ops) << where << " " << row.primitive.str()
                                     << " " << stringifyEnum(row.phase).str();
    EXPECT_EQ(observed.invocations, row.invocations)
        << where << " " << row.primitive.str() << " "
        << stringifyEnum(row.phase).str();
  }
}

TEST(MixtureOfExperts, TrainingWorkMatchesClosedForms) {
  for (ActivationKind activation :
       {ActivationKind::SwiGLU, ActivationKind::GeLU})
    for (int64_t tp : {1, 2})
      for (std::optional<int64_t> capacity :
           {std::optional<int64_t>(), std::optional<int64_t>(50)}) {
        ModelSpec model = smallMoE(activation, capacity);
        llvm::Expected<BlockWork> derived =
            deriveBlockWork(model, twoSequences(), tensorParallel(tp));
        ASSERT_TRUE(static_cast<bool>(derived))
            << llvm::toString(derived.takeError());
        const BlockWork &work = *derived;
        std::string where =
            stringifyEnum(activation).str() + " tp=" + std::to_string(tp) +
            " C=" + (capacity ? std::to_string(*capacity) : "none");

        bool swiglu = activation == ActivationKind::SwiGLU;
        int64_t h = 64, E = 8, k = 2, f = 96 / tp;
        int64_t fc1 = swiglu ? 2 * f : f;
        int64_t T = 2 * 32, Tl = T / tp;
        // Each of the tp sequence shards is one router call with its own
        // capacity.
        CountedRouting counted = countRouting(E, k, T, capacity);
        int64_t P = tp * countRouting(E, k, Tl, capacity).processed;
        int64_t A = counted.active;
        int64_t actForward = swiglu ? 5 : 9, actBackward = swiglu ? 12 : 18;
        // A capacity of 50% keeps ceil(0.5 * 2 * 64 / 8) = 8 of each
        // expert's 16 pairs.
        EXPECT_EQ(P, capacity ? 64 : 128) << where;

        const Expected expected[] = {
            {primitive::kRouter, Phase::Forward, 2 * Tl * h * E, 1},
            {primitive::kRouter, Phase::ActivationGrad, 2 * Tl * E * h, 1},
            {primitive::kRouter, Phase::WeightGrad, 2 * h * Tl * E, 1},
            {primitive::kRouterSoftmax, Phase::Forward, Tl * (5 * E + 1), 1},
            {primitive::kRouterSoftmax, Phase::ActivationGrad, Tl * E * 4, 1},
            {primitive::kRouterTopK, Phase::Forward, Tl * (k * E + 2 * k), 1},
            {primitive::kRouterTopK, Phase::ActivationGrad, Tl * 4 * k, 1},
            {primitive::kMoEPermute, Phase::Forward, 0, 1},
            {primitive::kMoEPermute, Phase::ActivationGrad, P * h, 1},
            {primitive::kExpertFC1, Phase::Forward, 2 * P * h * fc1, 1},
            {primitive::kExpertFC1, Phase::ActivationGrad, 2 * P * fc1 * h, 1},
            {primitive::kExpertFC1, Phase::WeightGrad, 2 * h * P * fc1, 1},
            {primitive::kExpertActivation, Phase::Forward, P * f * actForward,
             1},
            {primitive::kExpertActivation, Phase::ActivationGrad,
             P * f * actBackward, 1},
            {primitive::kExpertFC2, Phase::Forward, 2 * P * f * h, 1},
            {primitive::kExpertFC2, Phase::ActivationGrad, 2 * P * h * f, 1},
            {primitive::kExpertFC2, Phase::WeightGrad, 2 * f * P * h, 1},
            // Weighting and summing forward; the experts' and the
            // probabilities' gradients backward.
            {primitive::kMoECombine, Phase::Forward, 2 * P * h, 1},
            {primitive::kMoECombine, Phase::ActivationGrad, P * h + 2 * P * h,
             1},
            // Three all-gathers forward and two reduce-scatters backward
            // under sequence parallelism, none at tp = 1.
            {primitive::kRoutingMapTPF, Phase::Forward, 0, tp > 1 ? 1 : 0},
            {primitive::kRoutingProbsTPF, Phase::Forward, 0, tp > 1 ? 1 : 0},
            {primitive::kRoutingProbsTPF, Phase::ActivationGrad,
             T * E / tp * (tp - 1), tp > 1 ? 1 : 0},
            {primitive::kMLPTPF, Phase::Forward, 0, tp > 1 ? 1 : 0},
            {primitive::kMLPTPF, Phase::ActivationGrad, T * h / tp * (tp - 1),
             tp > 1 ? 1 : 0},
            // The dense MLP is gone, and so is its re-gather: the permuted
            // tokens are kept.
            {primitive::kFC1, Phase::Forward, 0, 0},
            {primitive::kFC2, Phase::Forward, 0, 0},
            {primitive::kFC1WgradGather, Phase::Recommunication, 0, 0},
        };
        expectRows(work, expected, where);
        // Each expert that receives a token reads its weights once, bf16.
        EXPECT_EQ(
            observe(work, primitive::kExpertFC1, Phase::Forward, "w_expert_fc1")
                .tensorReads,
            A * h * fc1 * 2)
            << where;
        EXPECT_EQ(
            observe(work, primitive::kExpertFC2, Phase::Forward, "w_expert_fc2")
                .tensorReads,
            A * f * h * 2)
            << where;
        // The routing gathers: the one-byte map and the bf16 probabilities.
        for (const Invocation &invocation : work.invocations) {
          if (invocation.primitive == primitive::kRoutingMapTPF) {
            ASSERT_TRUE(invocation.collective);
            EXPECT_EQ(invocation.collective->messageBytes, T * E) << where;
          }
          if (invocation.primitive == primitive::kRoutingProbsTPF) {
            ASSERT_TRUE(invocation.collective);
            EXPECT_EQ(invocation.collective->messageBytes, T * E * 2) << where;
          }
        }
        // The stash without recompute, the MoE part by hand (bf16, the map
        // one byte): x_norm2's shard (router), the scores, the local
        // probabilities and map (top-k), the permuted tokens, the experts'
        // fc1 and activation outputs, the expert outputs and, when
        // gathered, the whole probabilities and map (combine).
        int64_t moeStash = 2 * Tl * h + 2 * Tl * E + 2 * Tl * E + Tl * E +
                           2 * P * h + 2 * P * fc1 + 2 * P * f + 2 * P * h +
                           (tp > 1 ? 2 * T * E + T * E : 0);
        int64_t observedStash = 0;
        for (const Invocation &invocation : work.invocations)
          if (invocation.phase == Phase::Forward &&
              (invocation.primitive.rfind("router", 0) == 0 ||
               invocation.primitive.rfind("expert", 0) == 0 ||
               invocation.primitive.rfind("moe_", 0) == 0))
            observedStash += invocation.stashBytes;
        EXPECT_EQ(observedStash, moeStash) << where;
      }
}

TEST(MixtureOfExperts, FullRecomputeRerunsTheRouterAndTheExperts) {
  ModelSpec model = smallMoE(ActivationKind::SwiGLU, std::nullopt);
  TrainingSpec training;
  training.globalBatch = 2;
  training.microBatch = 2;
  MappingSpec mapping;
  mapping.tp = 2;
  mapping.world = 2;
  mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  for (RecomputePolicy policy :
       {RecomputePolicy::Selective, RecomputePolicy::Full}) {
    mapping.recompute = policy;
    BlockWork work = cantFail(deriveBlockWork(model, training, mapping));
    bool full = policy == RecomputePolicy::Full;
    for (llvm::StringRef id :
         {primitive::kRouter, primitive::kExpertFC1, primitive::kMoECombine})
      EXPECT_EQ(observe(work, id, Phase::Recompute).invocations, full ? 1 : 0)
          << id.str();
    EXPECT_EQ(observe(work, primitive::kRoutingProbsTPF, Phase::Recommunication)
                  .invocations,
              full ? 1 : 0);
  }
}

/// Serving 2 prompts of 16 positions, generating 8 tokens each.
InferenceSpec twoPrompts() {
  InferenceSpec inference;
  inference.batch = 2;
  inference.promptLength = 16;
  inference.generatedTokens = 8;
  return inference;
}

// DeepSeek-V3's router (router = sigmoid_group_limited) on the small MoE
// block: E = 8 experts in G = 4 groups of 2, the best Kg = 2 groups kept,
// k = 2. Per token forward: sigmoid 4 E; the selection E (1 bias + 2
// group top-2 passes + 1 mask + k top-k passes) + G (2 sum + Kg group
// top-k passes) + k (2 renormalisation + 1 scaling) + 1 epsilon =
// 8 x 6 + 4 x 4 + 6 + 1 = 71. Backward: the scaling and renormalisation
// gradients 5 k = 10 per token, the sigmoid's 3 E; no softmax at all.
TEST(MixtureOfExperts, GroupLimitedRouterMatchesClosedForms) {
  for (int64_t tp : {1, 2}) {
    ModelSpec model = smallMoE(ActivationKind::SwiGLU, std::nullopt);
    model.moe->router = RouterKind::SigmoidGroupLimited;
    model.moe->routerGroups = 4;
    model.moe->routerGroupsPerToken = 2;
    ASSERT_TRUE(checkModel(model).empty());
    BlockWork work =
        cantFail(deriveBlockWork(model, twoSequences(), tensorParallel(tp)));
    int64_t h = 64, E = 8, k = 2, G = 4, Kg = 2, Tl = 2 * 32 / tp;
    EXPECT_EQ(E * (1 + 2 + 1 + k) + G * (2 + Kg) + k * 3 + 1, 71);
    const Expected expected[] = {
        {primitive::kRouter, Phase::Forward, 2 * Tl * h * E, 1},
        {primitive::kRouterSigmoid, Phase::Forward, Tl * 4 * E, 1},
        {primitive::kRouterTopK, Phase::Forward, Tl * 71, 1},
        {primitive::kRouterTopK, Phase::ActivationGrad, Tl * 5 * k, 1},
        {primitive::kRouterSigmoid, Phase::ActivationGrad, Tl * 3 * E, 1},
        {primitive::kRouter, Phase::ActivationGrad, 2 * Tl * E * h, 1},
        {primitive::kRouterSoftmax, Phase::Forward, 0, 0},
        {primitive::kRouterSoftmax, Phase::ActivationGrad, 0, 0},
    };
    expectRows(work, expected, "tp=" + std::to_string(tp));
    // The selection reads the E-value bias, bf16.
    EXPECT_EQ(observe(work, primitive::kRouterTopK, Phase::Forward,
                      "e_score_correction_bias")
                  .tensorReads,
              E * 2);
  }
  // Serving: a decode step of b = 2 tokens routes them the same way, and
  // the resident weights include the bias (E bf16 values).
  ModelSpec model = smallMoE(ActivationKind::SwiGLU, std::nullopt);
  MappingSpec single = tensorParallel(1);
  InferenceSpec inference = twoPrompts();
  int64_t softmaxWeights =
      cantFail(weightBytesPerRank(model, inference, single));
  model.moe->router = RouterKind::SigmoidGroupLimited;
  model.moe->routerGroups = 4;
  model.moe->routerGroupsPerToken = 2;
  BlockWork decode =
      cantFail(deriveInferenceDecodeStep(model, inference, single, 20));
  EXPECT_EQ(observe(decode, primitive::kRouterSigmoid, Phase::Decode).ops,
            2 * 4 * 8);
  EXPECT_EQ(observe(decode, primitive::kRouterTopK, Phase::Decode).ops, 2 * 71);
  EXPECT_EQ(cantFail(weightBytesPerRank(model, inference, single)),
            softmaxWeights + 8 * 2);
}

TEST(MixtureOfExperts, DecodeReadsOnlyTheExpertsItsTokensReach) {
  ModelSpec model = smallMoE(ActivationKind::SwiGLU, std::nullopt);
  InferenceSpec inference = twoPrompts();
  MappingSpec mapping;
  mapping.tp = 2;
  mapping.world = 2;
  int64_t h = 64, f = 48, fc1 = 96, E = 8, k = 2;
  // A decode step routes k b = 4 pairs: 4 of the 8 experts read weights.
  BlockWork decode =
      cantFail(deriveInferenceDecodeStep(model, inference, mapping, 20));
  int64_t pairs = k * 2;
  EXPECT_EQ(
      observe(decode, primitive::kExpertFC1, Phase::Decode, "w_expert_fc1")
          .tensorReads,
      pairs * h * fc1 * 2);
  EXPECT_EQ(observe(decode, primitive::kExpertFC1, Phase::Decode).ops,
            2 * pairs * h * fc1);
  EXPECT_EQ(observe(decode, primitive::kExpertFC2, Phase::Decode).ops,
            2 * pairs * f * h);
  // Without sequence parallelism every rank routes every token itself.
  EXPECT_EQ(observe(decode, primitive::kRouter, Phase::Decode).ops,
            2 * 2 * h * E);
  EXPECT_EQ(
      observe(decode, primitive::kRoutingProbsTPF, Phase::Decode).invocations,
      0);
  // The prefill routes k b P = 64 pairs: every expert reads its weights.
  BlockWork prefill =
      cantFail(deriveInferencePrefill(model, inference, mapping));
  int64_t T = 2 * 16;
  EXPECT_EQ(
      observe(prefill, primitive::kExpertFC2, Phase::Prefill, "w_expert_fc2")
          .tensorReads,
      E * f * h * 2);
  EXPECT_EQ(observe(prefill, primitive::kExpertFC1, Phase::Prefill).ops,
            2 * k * T * h * fc1);
  EXPECT_EQ(observe(prefill, primitive::kMoECombine, Phase::Prefill).ops,
            2 * k * T * h);

  // The generation's weight reads are the steps': per rank, qkv_proj
  // h x 3h/2 = 6144, out_proj h x h/2 = 2048, two RMSNorm gammas 128 and
  // the router h x E = 512 make 8832 non-expert parameters; an expert's
  // slice is h x fc1 + f x h = 6144 + 3072 = 9216. The prefill reads all 8
  // experts, each of the 7 decode steps 4, at 2 bytes a parameter.
  int64_t nonExpert = 6144 + 2048 + 128 + 512;
  int64_t expert = 9216;
  int64_t prefillBytes = (nonExpert + 8 * expert) * 2;
  int64_t stepBytes = (nonExpert + 4 * expert) * 2;
  EXPECT_EQ(cantFail(weightReadBytesPerRank(model, inference, mapping, 16)),
            prefillBytes);
  EXPECT_EQ(cantFail(weightReadBytesPerRank(model, inference, mapping, 1)),
            stepBytes);
  GenerationWork generation =
      cantFail(deriveInferenceGeneration(model, inference, mapping));
  EXPECT_EQ(generation.weightReadBytes, 165120 + 7 * 91392);
  EXPECT_EQ(generation.weightReadBytes, prefillBytes + 7 * stepBytes);
}

TEST(MixtureOfExperts, ParametersCountEveryExpertAndTheRouter) {
  for (ActivationKind activation :
       {ActivationKind::SwiGLU, ActivationKind::GeLU})
    for (int64_t tp : {1, 2, 4}) {
      ModelSpec model = smallMoE(activation, std::nullopt);
      MappingSpec mapping;
      mapping.tp = tp;
      mapping.world = tp;
      mapping.tpComm =
          tp > 1 ? TPCommMode::ReduceScatterAllGather : TPCommMode::AllReduce;
      int64_t h = 64, E = 8, f = 96;
      int64_t fc1 = activation == ActivationKind::SwiGLU ? 2 * f : f;
      // qkv and out_proj (a d = h) split, two RMSNorms and the router
      // whole, every expert's fc1 and fc2 split.
      int64_t expected =
          (3 * h * h + h * h) / tp + 2 * h + h * E + E * (h * fc1 + f * h) / tp;
      EXPECT_EQ(cantFail(blockParametersPerRank(model, mapping)), expected)
          << "tp=" << tp;

      TrainingSpec training;
      training.globalBatch = 2;
      training.microBatch = 2;
      training.gradientType = DataType::F32;
      training.optimizerStateType = DataType::F32;
      BlockWork optimizer =
          cantFail(deriveOptimizerWork(model, training, mapping));
      const Invocation *sync =
          optimizer.find(primitive::kSPParamGradSync, Phase::WeightGrad);
      if (tp == 1) {
        EXPECT_EQ(sync, nullptr);
      } else {
        // The norms and the duplicated router, f32 gradients.
        ASSERT_NE(sync, nullptr);
        EXPECT_EQ(sync->collective->messageBytes, 4 * (2 * h + h * E));
      }
      // The boundary's parameter tensors split over tp sum to the count.
      std::vector<BoundaryTensor> boundary =
          cantFail(blockBoundaries(model, training, mapping));
      int64_t perRank = 0;
      for (const BoundaryTensor &tensor : boundary)
        if (tensor.role == BoundaryRole::Parameter)
          perRank += cantFail(bytesPerRank(tensor, tp)) / 2;
      EXPECT_EQ(perRank, expected) << "tp=" << tp;
    }
}

// Shared experts (Megatron-Core SharedExpertMLP, Hugging Face
// DeepseekV3MoE.shared_experts): one MLP of S * f columns on every one of
// the T tokens, split over tp like the dense MLP, with its own collectives
// (under SP an all-gather of x_norm2 and a reduce-scatter of its output;
// backward the mirror), its reduced output added to the reduced routed one.
// Every count by hand at S = 2, f = 96: width 192, f_s = 192 / tp per rank.
TEST(MixtureOfExperts, SharedExpertsMatchClosedForms) {
  for (ActivationKind activation :
       {ActivationKind::SwiGLU, ActivationKind::GeLU})
    for (int64_t tp : {1, 2}) {
      ModelSpec model = smallMoE(activation, std::nullopt);
      model.moe->sharedExperts = 2;
      TrainingSpec training = twoSequences();
      MappingSpec mapping = tensorParallel(tp);
      BlockWork work = cantFail(deriveBlockWork(model, training, mapping));
      std::string where =
          stringifyEnum(activation).str() + " tp=" + std::to_string(tp);

      bool swiglu = activation == ActivationKind::SwiGLU;
      int64_t h = 64, E = 8, k = 2, T = 2 * 32;
      int64_t fs = 2 * 96 / tp, fc1s = swiglu ? 2 * fs : fs;
      int64_t f = 96 / tp, fc1 = swiglu ? 2 * f : f;
      int64_t actForward = swiglu ? 5 : 9, actBackward = swiglu ? 12 : 18;
      const Expected expected[] = {
          {primitive::kSharedExpertFC1, Phase::Forward, 2 * T * h * fc1s, 1},
          {primitive::kSharedExpertFC1, Phase::ActivationGrad, 2 * T * fc1s * h,
           1},
          {primitive::kSharedExpertFC1, Phase::WeightGrad, 2 * h * T * fc1s, 1},
          {primitive::kSharedExpertActivation, Phase::Forward,
           T * fs * actForward, 1},
          {primitive::kSharedExpertActivation, Phase::ActivationGrad,
           T * fs * actBackward, 1},
          {primitive::kSharedExpertFC2, Phase::Forward, 2 * T * fs * h, 1},
          {primitive::kSharedExpertFC2, Phase::ActivationGrad, 2 * T * h * fs,
           1},
          {primitive::kSharedExpertFC2, Phase::WeightGrad, 2 * fs * T * h, 1},
          // The routed experts are unchanged: dropless k T pairs.
          {primitive::kExpertFC1, Phase::Forward, 2 * k * T * h * fc1, 1},
          // Under SP (tp = 2) each MLP reduces its own partial sums: the
          // routed output's and d_x_norm2's reduce-scatters (mlp_tp_g,
          // mlp_tp_f) and the shared MLP's (shared_expert_tp_g forward,
          // shared_expert_tp_f backward), each T h (tp - 1) / tp adds; the
          // all-gathers (x_norm2 forward, the output gradient backward)
          // are one per MLP too. Only the shared fc1's weight gradient
          // re-gathers x_norm2 (the routed experts keep their rows).
          {primitive::kMLPTPF, Phase::Forward, 0, tp > 1 ? 1 : 0},
          {primitive::kMLPTPF, Phase::ActivationGrad, T * h / tp * (tp - 1),
           tp > 1 ? 1 : 0},
          {primitive::kMLPTPG, Phase::Forward, T * h / tp * (tp - 1),
           tp > 1 ? 1 : 0},
          {primitive::kMLPTPG, Phase::ActivationGrad, 0, tp > 1 ? 1 : 0},
          {primitive::kSharedExpertTPF, Phase::Forward, 0, tp > 1 ? 1 : 0},
          {primitive::kSharedExpertTPF, Phase::ActivationGrad,
           T * h / tp * (tp - 1), tp > 1 ? 1 : 0},
          {primitive::kSharedExpertTPG, Phase::Forward, T * h / tp * (tp - 1),
           tp > 1 ? 1 : 0},
          {primitive::kSharedExpertTPG, Phase::ActivationGrad, 0,
           tp > 1 ? 1 : 0},
          {primitive::kFC1WgradGather, Phase::Recommunication, 0,
           tp > 1 ? 1 : 0},
          // The add of the two reduced outputs on the rank's T / tp rows,
          // and of the two reduced input gradients.
          {primitive::kSharedExpertAdd, Phase::Forward, T / tp * h, 1},
          {primitive::kSharedExpertAdd, Phase::ActivationGrad, T / tp * h, 1},
      };
      expectRows(work, expected, where);
      // Each shared collective carries the whole T x h bf16 tensor.
      for (const Invocation &invocation : work.invocations)
        if (invocation.primitive == primitive::kSharedExpertTPF ||
            invocation.primitive == primitive::kSharedExpertTPG) {
          ASSERT_TRUE(invocation.collective.has_value()) << where;
          EXPECT_EQ(invocation.collective->messageBytes, T * h * 2) << where;
        }
      // The weights once per micro-batch, bf16; the add reads the rank's
      // rows of both reduced outputs.
      EXPECT_EQ(observe(work, primitive::kSharedExpertFC1, Phase::Forward,
                        "w_shared_expert_fc1")
                    .tensorReads,
                h * fc1s * 2)
          << where;
      EXPECT_EQ(observe(work, primitive::kSharedExpertFC2, Phase::Forward,
                        "w_shared_expert_fc2")
                    .tensorReads,
                fs * h * 2)
          << where;
      EXPECT_EQ(observe(work, primitive::kSharedExpertAdd, Phase::Forward,
                        "shared_expert_out")
                    .tensorReads,
                T / tp * h * 2)
          << where;
      EXPECT_EQ(
          observe(work, primitive::kSharedExpertAdd, Phase::Forward, "mlp_proj")
              .tensorReads,
          T / tp * h * 2)
          << where;
      // The stash: fc1's and the activation's outputs (x_norm2's shard is
      // the router's already).
      int64_t sharedStash = 0;
      for (const Invocation &invocation : work.invocations)
        if (invocation.phase == Phase::Forward &&
            invocation.primitive.rfind("shared_expert", 0) == 0)
          sharedStash += invocation.stashBytes;
      EXPECT_EQ(sharedStash, 2 * T * fc1s + 2 * T * fs) << where;

      // Parameters: the block of ParametersCountEveryExpertAndTheRouter
      // plus the shared MLP's h x (c_s + f_s) slice; the boundary agrees.
      int64_t expectedParameters = (3 * h * h + h * h) / tp + 2 * h + h * E +
                                   E * (h * fc1 + f * h) + h * (fc1s + fs);
      EXPECT_EQ(cantFail(blockParametersPerRank(model, mapping)),
                expectedParameters)
          << where;
      std::vector<BoundaryTensor> boundary =
          cantFail(blockBoundaries(model, training, mapping));
      int64_t perRank = 0;
      for (const BoundaryTensor &tensor : boundary)
        if (tensor.role == BoundaryRole::Parameter)
          perRank += cantFail(bytesPerRank(tensor, tp)) / 2;
      EXPECT_EQ(perRank, expectedParameters) << where;

      // Selective recompute (SeqSel Sec. 5) recomputes only the attention
      // core: the shared MLP keeps its stash, and the router's shard of
      // x_norm2 is the block's only x_norm2 stash.
      mapping.recompute = RecomputePolicy::Selective;
      BlockWork selective = cantFail(deriveBlockWork(model, training, mapping));
      int64_t selectiveSharedStash = 0, xNorm2Stashes = 0, xNorm2Bytes = 0;
      for (const Invocation &invocation : selective.invocations) {
        if (invocation.phase != Phase::Forward)
          continue;
        if (invocation.primitive.rfind("shared_expert", 0) == 0)
          selectiveSharedStash += invocation.stashBytes;
        for (const TensorAccess &stashed : invocation.stashed)
          if (stashed.tensor == "x_norm2") {
            ++xNorm2Stashes;
            xNorm2Bytes += stashed.bytes;
            EXPECT_EQ(invocation.primitive, primitive::kRouter) << where;
          }
      }
      EXPECT_EQ(selectiveSharedStash, 2 * T * fc1s + 2 * T * fs) << where;
      EXPECT_EQ(xNorm2Stashes, 1) << where;
      EXPECT_EQ(xNorm2Bytes, T / tp * h * 2) << where;

      // Full recompute reruns the shared MLP with the rest of the forward.
      mapping.recompute = RecomputePolicy::Full;
      BlockWork recomputed =
          cantFail(deriveBlockWork(model, training, mapping));
      EXPECT_EQ(
          observe(recomputed, primitive::kSharedExpertFC2, Phase::Recompute)
              .ops,
          2 * T * fs * h)
          << where;
    }
}

// Serving: every decode step runs the shared experts on its b tokens and
// reads their weights, whatever the routing reaches.
TEST(MixtureOfExperts, DecodeReadsTheSharedExpertsEveryStep) {
  ModelSpec model = smallMoE(ActivationKind::SwiGLU, std::nullopt);
  model.moe->sharedExperts = 1;
  InferenceSpec inference = twoPrompts();
  MappingSpec mapping;
  mapping.tp = 2;
  mapping.world = 2;
  int64_t h = 64, fs = 48, fc1s = 96;
  BlockWork decode =
      cantFail(deriveInferenceDecodeStep(model, inference, mapping, 20));
  EXPECT_EQ(observe(decode, primitive::kSharedExpertFC1, Phase::Decode,
                    "w_shared_expert_fc1")
                .tensorReads,
            h * fc1s * 2);
  EXPECT_EQ(observe(decode, primitive::kSharedExpertFC2, Phase::Decode).ops,
            2 * 2 * fs * h);
  // Serving has no sequence parallelism: no gather of x_norm2, and the
  // shared MLP's own all-reduce of its b x h output (bf16), then the add of
  // the two reduced outputs on the b rows.
  EXPECT_EQ(
      observe(decode, primitive::kSharedExpertTPF, Phase::Decode).invocations,
      0);
  int64_t sharedReductions = 0;
  for (const Invocation &invocation : decode.invocations)
    if (invocation.primitive == primitive::kSharedExpertTPG) {
      ++sharedReductions;
      ASSERT_TRUE(invocation.collective.has_value());
      EXPECT_EQ(invocation.collective->kind, CollectiveKind::AllReduce);
      EXPECT_EQ(invocation.collective->messageBytes, 2 * h * 2);
    }
  EXPECT_EQ(sharedReductions, 1);
  EXPECT_EQ(observe(decode, primitive::kSharedExpertAdd, Phase::Decode).ops,
            2 * h);
  // A step reads the non-expert 8832 parameters of
  // DecodeReadsOnlyTheExpertsItsTokensReach, its 4 routed experts' 9216
  // each and the shared MLP's h x (fc1s + fs) = 9216, bf16.
  EXPECT_EQ(cantFail(weightReadBytesPerRank(model, inference, mapping, 1)),
            (8832 + 4 * 9216 + h * (fc1s + fs)) * 2);
}

} // namespace
