//===- BlockWorkTest.cpp - The work algebra of one decoder block ----------===//
//
// Closed forms over grids of shapes, TP degrees, TP modes and recompute
// policies; the SeqSel paper's Table 2 and the Calculon runs read from
// test/reference (BLUEPRINT_REFERENCE_DIR) and compared exactly, with every
// definitional difference stated where it is allowed.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Primitives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "ReferenceCases.h"
#include "SmallRuns.h"

#include "gtest/gtest.h"

#include <array>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#ifndef BLUEPRINT_REFERENCE_DIR
#error "BLUEPRINT_REFERENCE_DIR must name the test/reference directory"
#endif

using namespace blueprint::workload;

namespace {

//===----------------------------------------------------------------------===//
// Specs
//===----------------------------------------------------------------------===//

/// A GPT block shape: heads*head_dim = hidden, ffn = 4*hidden.
struct GptShape {
  const char *name;
  int64_t hidden;
  int64_t heads;
  int64_t seq;
  int64_t microBatch;
};

/// The paper's models (SeqSel Table 3) and small shapes; every head count
/// and sequence length is divisible by 8 so tp in {1,2,4,8} is valid in
/// both TP modes.
const GptShape kShapes[] = {
    {"22B", 6144, 64, 2048, 4},     {"175B", 12288, 96, 2048, 1},
    {"530B", 20480, 128, 2048, 1},  {"1T", 25600, 160, 2048, 1},
    {"tiny", 64, 8, 16, 2},         {"small", 256, 16, 64, 3},
    {"wide-head", 1024, 8, 128, 1},
};
const int64_t kTensorParallel[] = {1, 2, 4, 8};
const TPCommMode kModes[] = {TPCommMode::AllReduce,
                             TPCommMode::ReduceScatterAllGather};
const RecomputePolicy kPolicies[] = {
    RecomputePolicy::None, RecomputePolicy::Selective, RecomputePolicy::Full};

ModelSpec gptModel(const GptShape &shape) {
  ModelSpec model;
  model.hidden = shape.hidden;
  model.heads = shape.heads;
  model.kvHeads = shape.heads;
  model.headDim = shape.hidden / shape.heads;
  model.ffnHidden = 4 * shape.hidden;
  model.seqLength = shape.seq;
  model.maxPositions = shape.seq;
  model.vocab = 1024;
  model.blocks = 4;
  return model;
}

TrainingSpec trainingFor(int64_t microBatch) {
  TrainingSpec training;
  training.globalBatch = microBatch;
  training.microBatch = microBatch;
  return training;
}

MappingSpec mappingFor(int64_t tp, TPCommMode mode, RecomputePolicy policy) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.world = tp;
  mapping.tpComm = mode;
  mapping.recompute = policy;
  return mapping;
}

std::string label(const ModelSpec &model, const MappingSpec &mapping) {
  return "h=" + std::to_string(model.hidden) +
         " a=" + std::to_string(model.heads) +
         " s=" + std::to_string(model.seqLength) +
         " tp=" + std::to_string(mapping.tp) + " " +
         stringifyEnum(mapping.tpComm).str() +
         " recompute=" + stringifyEnum(mapping.recompute).str();
}

/// The derived work; a derivation error fails the calling test.
BlockWork derive(const ModelSpec &model, const TrainingSpec &training,
                 const MappingSpec &mapping) {
  llvm::Expected<BlockWork> work = deriveBlockWork(model, training, mapping);
  if (!work) {
    ADD_FAILURE() << label(model, mapping) << ": "
                  << llvm::toString(work.takeError());
    return {};
  }
  return std::move(*work);
}

WorkSummary summarizeOrFail(const BlockWork &work) {
  llvm::Expected<WorkSummary> summary = summarize(work);
  if (!summary) {
    ADD_FAILURE() << llvm::toString(summary.takeError());
    return {};
  }
  return *summary;
}

int64_t transferOrFail(const CollectiveFacts &facts) {
  llvm::Expected<int64_t> bytes = minimumTransferBytes(facts);
  if (!bytes) {
    ADD_FAILURE() << llvm::toString(bytes.takeError());
    return -1;
  }
  return *bytes;
}

/// Calls `check(shape, tp, mode, policy)` over the whole grid.
template <typename Check> void forEachConfiguration(Check check) {
  for (const GptShape &shape : kShapes)
    for (int64_t tp : kTensorParallel)
      for (TPCommMode mode : kModes)
        for (RecomputePolicy policy : kPolicies)
          check(shape, tp, mode, policy);
}

/// Sum of minimum transfer bytes over the collectives of `phase`.
int64_t transferIn(const WorkSummary &summary, Phase phase) {
  return summary.at(phase, Engine::Collective).minimumTransferBytes;
}

/// Number of collectives of `kind` in `phase`.
int64_t countCollectives(const BlockWork &work, Phase phase,
                         CollectiveKind kind) {
  return llvm::count_if(work.invocations, [&](const Invocation &invocation) {
    return invocation.phase == phase && invocation.collective &&
           invocation.collective->kind == kind;
  });
}

//===----------------------------------------------------------------------===//
// Vector work: the declared per-element counts, in closed form
//===----------------------------------------------------------------------===//

// The training block's LayerNorm, GeLU, softmax and dropout invocations are
// their per-element (and per-row) counts of BlockWork.h's opcount times the
// elements each traverses on one TP rank, over the whole grid: norms,
// hidden dropouts and residuals on the rank's rows (b*s, or b*s/t under
// sequence parallelism), the activation on b*s*f/t elements, softmax and
// attention dropout on the b*(a/t)*s*s scores.
TEST(BlockWorkVector, ClosedFormsOverGrid) {
  forEachConfiguration([](const GptShape &shape, int64_t t, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(shape);
    MappingSpec mapping = mappingFor(t, mode, policy);
    BlockWork work = derive(model, trainingFor(shape.microBatch), mapping);
    std::string where = label(model, mapping);
    int64_t b = shape.microBatch, s = shape.seq, h = shape.hidden;
    int64_t a = shape.heads, f = model.ffnHidden;
    bool sp = mode == TPCommMode::ReduceScatterAllGather && t > 1;
    int64_t rows = sp ? b * s / t : b * s;
    int64_t scores = b * (a / t) * s * s;
    int64_t scoreRows = b * (a / t) * s;
    auto ops = [&](llvm::StringRef primitive, Phase phase) -> int64_t {
      const Invocation *invocation = work.find(primitive, phase);
      EXPECT_NE(invocation, nullptr) << where << " " << primitive.str();
      return invocation ? invocation->ops : -1;
    };
    for (llvm::StringRef norm : {"norm1", "norm2"}) {
      EXPECT_EQ(ops(norm, Phase::Forward),
                rows * (opcount::kLayerNormForwardPerElement * h +
                        opcount::kLayerNormForwardPerRow))
          << where << " " << norm.str();
      EXPECT_EQ(ops(norm, Phase::ActivationGrad),
                rows * (opcount::kLayerNormInputGradPerElement * h +
                        opcount::kLayerNormInputGradPerRow))
          << where << " " << norm.str();
      EXPECT_EQ(ops(norm, Phase::WeightGrad),
                rows * h * opcount::kLayerNormParamGradPerElement)
          << where << " " << norm.str();
    }
    EXPECT_EQ(ops("activation", Phase::Forward),
              opcount::kGeLUForwardPerElement * b * s * f / t)
        << where;
    EXPECT_EQ(ops("activation", Phase::ActivationGrad),
              opcount::kGeLUInputGradPerElement * b * s * f / t)
        << where;
    EXPECT_EQ(ops("softmax", Phase::Forward),
              opcount::kSoftmaxForwardPerElement * scores +
                  opcount::kSoftmaxForwardPerRow * scoreRows)
        << where;
    EXPECT_EQ(ops("softmax", Phase::ActivationGrad),
              opcount::kSoftmaxInputGradPerElement * scores)
        << where;
    EXPECT_EQ(ops("attn_dropout", Phase::Forward),
              opcount::kDropoutForwardPerElement * scores)
        << where;
    EXPECT_EQ(ops("attn_dropout", Phase::ActivationGrad),
              opcount::kDropoutInputGradPerElement * scores)
        << where;
    for (llvm::StringRef dropout : {"attn_residual_dropout", "mlp_dropout"}) {
      EXPECT_EQ(ops(dropout, Phase::Forward),
                opcount::kDropoutForwardPerElement * rows * h)
          << where << " " << dropout.str();
      EXPECT_EQ(ops(dropout, Phase::ActivationGrad),
                opcount::kDropoutInputGradPerElement * rows * h)
          << where << " " << dropout.str();
    }
    // Recompute clones the forward's counts (selective: the attention
    // core; full: everything).
    if (policy != RecomputePolicy::None) {
      EXPECT_EQ(ops("softmax", Phase::Recompute),
                ops("softmax", Phase::Forward))
          << where;
      EXPECT_EQ(ops("attn_dropout", Phase::Recompute),
                ops("attn_dropout", Phase::Forward))
          << where;
    }
  });
}

//===----------------------------------------------------------------------===//
// Matmul work: MLM2021 App. / SeqSel App. A closed forms
//===----------------------------------------------------------------------===//

TEST(BlockWorkMatmul, ClosedFormsOverGrid) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(gpt);
    MappingSpec mapping = mappingFor(tp, mode, policy);
    BlockWork work = derive(model, trainingFor(gpt.microBatch), mapping);
    WorkSummary summary = summarizeOrFail(work);
    int64_t b = gpt.microBatch, s = gpt.seq, h = gpt.hidden;
    int64_t linears = 24 * b * s * h * h / tp;
    int64_t attentionCore = 4 * b * s * s * h / tp;
    int64_t forward = linears + attentionCore;
    SCOPED_TRACE(label(model, mapping));

    EXPECT_EQ(summary.at(Phase::Forward, Engine::Matmul).ops, forward);
    // The backward is twice the forward: input gradients of every matmul,
    // weight gradients of the linears.
    EXPECT_EQ(summary.at(Phase::ActivationGrad, Engine::Matmul).ops +
                  summary.at(Phase::WeightGrad, Engine::Matmul).ops,
              2 * forward);
    EXPECT_EQ(summary.at(Phase::WeightGrad, Engine::Matmul).ops, linears);
    int64_t recompute = summary.at(Phase::Recompute, Engine::Matmul).ops;
    switch (policy) {
    case RecomputePolicy::None:
      EXPECT_EQ(recompute, 0);
      break;
    case RecomputePolicy::Selective:
      EXPECT_EQ(recompute, attentionCore);
      break;
    case RecomputePolicy::Full:
      EXPECT_EQ(recompute, forward);
      break;
    }
  });
}

TEST(BlockWorkRecompute, FullClonesEveryForwardInvocation) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    if (policy != RecomputePolicy::Full)
      return;
    ModelSpec model = gptModel(gpt);
    MappingSpec mapping = mappingFor(tp, mode, policy);
    BlockWork work = derive(model, trainingFor(gpt.microBatch), mapping);
    SCOPED_TRACE(label(model, mapping));
    int64_t forwardCount = 0;
    for (const Invocation &forward : work.invocations) {
      if (forward.phase != Phase::Forward)
        continue;
      ++forwardCount;
      Phase clonePhase = forward.engine == Engine::Collective
                             ? Phase::Recommunication
                             : Phase::Recompute;
      const Invocation *clone = work.find(forward.primitive, clonePhase);
      ASSERT_NE(clone, nullptr) << forward.primitive;
      EXPECT_EQ(clone->engine, forward.engine);
      EXPECT_EQ(clone->ops, forward.ops);
      EXPECT_EQ(clone->reads, forward.reads);
      EXPECT_EQ(clone->writes, forward.writes);
      EXPECT_EQ(clone->collective, forward.collective);
      EXPECT_EQ(clone->stashBytes, 0);
      EXPECT_NE(clone->cause.find("full recompute"), std::string::npos);
    }
    // Nothing else is recomputed: one forward, exactly.
    WorkSummary summary = summarizeOrFail(work);
    int64_t computeForward =
        forwardCount -
        summary.at(Phase::Forward, Engine::Collective).invocations;
    EXPECT_EQ(summary.of(Phase::Recompute).invocations, computeForward);
    for (Engine engine : {Engine::Matmul, Engine::Vector}) {
      EXPECT_EQ(summary.at(Phase::Recompute, engine).ops,
                summary.at(Phase::Forward, engine).ops);
      EXPECT_EQ(summary.at(Phase::Recompute, engine).readBytes,
                summary.at(Phase::Forward, engine).readBytes);
      EXPECT_EQ(summary.at(Phase::Recompute, engine).writeBytes,
                summary.at(Phase::Forward, engine).writeBytes);
    }
  });
}

TEST(BlockWorkRecompute, SelectiveClonesOnlyTheAttentionCore) {
  for (bool attentionDropout : {true, false}) {
    const GptShape &gpt = kShapes[4];
    ModelSpec model = gptModel(gpt);
    TrainingSpec training = trainingFor(gpt.microBatch);
    training.attentionDropout = attentionDropout;
    for (int64_t tp : kTensorParallel) {
      for (TPCommMode mode : kModes) {
        MappingSpec mapping = mappingFor(tp, mode, RecomputePolicy::Selective);
        BlockWork work = derive(model, training, mapping);
        std::set<std::string> recomputed;
        for (const Invocation &invocation : work.invocations) {
          if (invocation.phase != Phase::Recompute)
            continue;
          recomputed.insert(invocation.primitive);
          const Invocation *forward =
              work.find(invocation.primitive, Phase::Forward);
          ASSERT_NE(forward, nullptr);
          EXPECT_EQ(invocation.ops, forward->ops);
          EXPECT_NE(invocation.cause.find("selective recompute of the "
                                          "attention core"),
                    std::string::npos);
        }
        std::set<std::string> expected = {"qk_matmul", "softmax",
                                          "attn_v_matmul"};
        if (attentionDropout)
          expected.insert("attn_dropout");
        EXPECT_EQ(recomputed, expected) << label(model, mapping);
        // Selective recompute never recommunicates beyond SP's re-gathers.
        int64_t recommunicated =
            llvm::count_if(work.invocations, [](const Invocation &invocation) {
              return invocation.phase == Phase::Recommunication;
            });
        bool regathers = tp > 1 && mode == TPCommMode::ReduceScatterAllGather;
        EXPECT_EQ(recommunicated, regathers ? 2 : 0);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Tensor-parallel collectives
//===----------------------------------------------------------------------===//

TEST(BlockWorkCollectives, KindsCountsAndMessages) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(gpt);
    MappingSpec mapping = mappingFor(tp, mode, policy);
    BlockWork work = derive(model, trainingFor(gpt.microBatch), mapping);
    SCOPED_TRACE(label(model, mapping));
    int64_t message = gpt.microBatch * gpt.seq * gpt.hidden * 2;
    int64_t collectives = 0;
    for (const Invocation &invocation : work.invocations) {
      if (!invocation.collective)
        continue;
      ++collectives;
      EXPECT_EQ(invocation.collective->participants, tp);
      EXPECT_EQ(invocation.collective->messageBytes, message);
    }
    if (tp == 1) {
      EXPECT_EQ(collectives, 0);
      return;
    }
    bool full = policy == RecomputePolicy::Full;
    if (mode == TPCommMode::AllReduce) {
      EXPECT_EQ(
          countCollectives(work, Phase::Forward, CollectiveKind::AllReduce), 2);
      EXPECT_EQ(countCollectives(work, Phase::ActivationGrad,
                                 CollectiveKind::AllReduce),
                2);
      EXPECT_EQ(countCollectives(work, Phase::Recommunication,
                                 CollectiveKind::AllReduce),
                full ? 2 : 0);
      EXPECT_EQ(collectives, full ? 6 : 4);
    } else {
      EXPECT_EQ(
          countCollectives(work, Phase::Forward, CollectiveKind::AllGather), 2);
      EXPECT_EQ(
          countCollectives(work, Phase::Forward, CollectiveKind::ReduceScatter),
          2);
      EXPECT_EQ(countCollectives(work, Phase::ActivationGrad,
                                 CollectiveKind::AllGather),
                2);
      EXPECT_EQ(countCollectives(work, Phase::ActivationGrad,
                                 CollectiveKind::ReduceScatter),
                2);
      // The weight-gradient re-gathers, plus the forward's under full
      // recompute.
      EXPECT_EQ(countCollectives(work, Phase::Recommunication,
                                 CollectiveKind::AllGather),
                full ? 4 : 2);
      EXPECT_EQ(countCollectives(work, Phase::Recommunication,
                                 CollectiveKind::ReduceScatter),
                full ? 2 : 0);
      EXPECT_EQ(collectives, full ? 14 : 10);
    }
  });
}

TEST(BlockWorkCollectives, AllReduceTrafficEqualsReduceScatterPlusAllGather) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    if (mode != TPCommMode::AllReduce)
      return;
    ModelSpec model = gptModel(gpt);
    TrainingSpec training = trainingFor(gpt.microBatch);
    MappingSpec allReduce = mappingFor(tp, mode, policy);
    MappingSpec sequenceParallel =
        mappingFor(tp, TPCommMode::ReduceScatterAllGather, policy);
    WorkSummary ar = summarizeOrFail(derive(model, training, allReduce));
    WorkSummary sp = summarizeOrFail(derive(model, training, sequenceParallel));
    SCOPED_TRACE(label(model, allReduce));
    for (Phase phase : {Phase::Forward, Phase::ActivationGrad}) {
      EXPECT_EQ(transferIn(ar, phase), transferIn(sp, phase));
      // Same reduction arithmetic: all-reduce = reduce-scatter + all-gather.
      EXPECT_EQ(ar.at(phase, Engine::Collective).ops,
                sp.at(phase, Engine::Collective).ops);
    }
    // MLM2021 Sec. 3.2: 4 all-reduces of b*s*h elements per block, each
    // 2(t-1)/t of the message per rank.
    int64_t message = gpt.microBatch * gpt.seq * gpt.hidden * 2;
    EXPECT_EQ(transferIn(ar, Phase::Forward) +
                  transferIn(ar, Phase::ActivationGrad),
              8 * message / tp * (tp - 1));
  });
}

TEST(BlockWorkCollectives, MinimumTransferBytes) {
  CollectiveFacts facts;
  facts.participants = 4;
  facts.messageBytes = 64;
  facts.kind = CollectiveKind::AllReduce;
  EXPECT_EQ(transferOrFail(facts), 96);
  facts.kind = CollectiveKind::ReduceScatter;
  EXPECT_EQ(transferOrFail(facts), 48);
  facts.kind = CollectiveKind::AllGather;
  facts.reduction = ReductionKind::None;
  EXPECT_EQ(transferOrFail(facts), 48);
  facts.participants = 1;
  EXPECT_EQ(transferOrFail(facts), 0);

  facts.participants = 3;
  llvm::Expected<int64_t> indivisible = minimumTransferBytes(facts);
  ASSERT_FALSE(static_cast<bool>(indivisible));
  EXPECT_NE(llvm::toString(indivisible.takeError()).find("not divisible"),
            std::string::npos);
  facts.participants = 0;
  llvm::Expected<int64_t> empty = minimumTransferBytes(facts);
  ASSERT_FALSE(static_cast<bool>(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("participants"),
            std::string::npos);
}

TEST(BlockWorkCollectives, TensorParallelOneIsIdenticalInBothModes) {
  for (const GptShape &gpt : kShapes) {
    for (RecomputePolicy policy : kPolicies) {
      for (bool dropout : {true, false}) {
        ModelSpec model = gptModel(gpt);
        TrainingSpec training = trainingFor(gpt.microBatch);
        training.attentionDropout = dropout;
        training.hiddenDropout = dropout;
        BlockWork allReduce = derive(
            model, training, mappingFor(1, TPCommMode::AllReduce, policy));
        BlockWork sequenceParallel =
            derive(model, training,
                   mappingFor(1, TPCommMode::ReduceScatterAllGather, policy));
        ASSERT_EQ(allReduce.invocations.size(),
                  sequenceParallel.invocations.size());
        for (size_t index = 0; index < allReduce.invocations.size(); ++index)
          EXPECT_EQ(allReduce.invocations[index],
                    sequenceParallel.invocations[index])
              << gpt.name << " " << allReduce.invocations[index].primitive;
      }
    }
  }
}

TEST(BlockWorkCollectives, SequenceParallelShardsTheReplicatedVectorWork) {
  const char *replicated[] = {
      "norm1", "out_proj_bias", "attn_residual_dropout", "attn_residual",
      "norm2", "fc2_bias",      "mlp_dropout",           "mlp_residual"};
  for (const GptShape &gpt : kShapes) {
    for (int64_t tp : kTensorParallel) {
      ModelSpec model = gptModel(gpt);
      TrainingSpec training = trainingFor(gpt.microBatch);
      BlockWork ar =
          derive(model, training,
                 mappingFor(tp, TPCommMode::AllReduce, RecomputePolicy::None));
      BlockWork sp = derive(model, training,
                            mappingFor(tp, TPCommMode::ReduceScatterAllGather,
                                       RecomputePolicy::None));
      for (const char *primitive : replicated) {
        for (Phase phase : {Phase::Forward, Phase::ActivationGrad}) {
          const Invocation *arInvocation = ar.find(primitive, phase);
          const Invocation *spInvocation = sp.find(primitive, phase);
          if (!arInvocation) {
            EXPECT_EQ(spInvocation, nullptr);
            continue;
          }
          ASSERT_NE(spInvocation, nullptr) << primitive;
          EXPECT_EQ(spInvocation->ops * tp, arInvocation->ops)
              << gpt.name << " tp=" << tp << " " << primitive;
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Activation memory: SeqSel Table 2
//===----------------------------------------------------------------------===//

/// SeqSel Table 2 in bytes at 2-byte activations and 1-byte masks, with the
/// full-recompute row under SP taken as the sequence-sharded checkpoint
/// 2sbh/t (docs/WorkAlgebra.md).
int64_t table2Bytes(const GptShape &gpt, int64_t t, TPCommMode mode,
                    RecomputePolicy policy) {
  int64_t sbh = gpt.seq * gpt.microBatch * gpt.hidden;
  int64_t scores = 5 * gpt.heads * gpt.seq * gpt.seq * gpt.microBatch / t;
  bool sp = mode == TPCommMode::ReduceScatterAllGather;
  switch (policy) {
  case RecomputePolicy::None:
    return (sp ? 34 * sbh / t : 10 * sbh + 24 * sbh / t) + scores;
  case RecomputePolicy::Selective:
    return sp ? 34 * sbh / t : 10 * sbh + 24 * sbh / t;
  case RecomputePolicy::Full:
    return sp ? 2 * sbh / t : 2 * sbh;
  }
  return -1;
}

TEST(BlockWorkStash, Table2ClosedFormsOverGrid) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(gpt);
    MappingSpec mapping = mappingFor(tp, mode, policy);
    WorkSummary summary =
        summarizeOrFail(derive(model, trainingFor(gpt.microBatch), mapping));
    EXPECT_EQ(summary.total().stashBytes, table2Bytes(gpt, tp, mode, policy))
        << label(model, mapping);
    EXPECT_EQ(summary.of(Phase::Forward).stashBytes,
              summary.total().stashBytes);
  });
}

TEST(BlockWorkStash, AttributionToForwardInvocations) {
  const GptShape &gpt = kShapes[5];
  BlockWork work =
      derive(gptModel(gpt), trainingFor(gpt.microBatch),
             mappingFor(1, TPCommMode::AllReduce, RecomputePolicy::None));
  std::map<std::string, std::vector<std::string>> stashed;
  for (const Invocation &invocation : work.invocations) {
    int64_t sum = 0;
    for (const TensorAccess &tensor : invocation.stashed) {
      stashed[invocation.primitive].push_back(tensor.tensor);
      sum += tensor.bytes;
    }
    EXPECT_EQ(sum, invocation.stashBytes) << invocation.primitive;
    if (invocation.phase != Phase::Forward) {
      EXPECT_EQ(invocation.stashBytes, 0) << invocation.primitive;
    }
  }
  std::map<std::string, std::vector<std::string>> expected = {
      {"norm1", {"x"}},
      {"qkv_proj", {"x_norm1"}},
      {"qk_matmul", {"q", "k"}},
      {"softmax", {"probs"}},
      {"attn_dropout", {"attn_dropout_mask"}},
      {"attn_v_matmul", {"probs_dropped", "v"}},
      {"out_proj", {"context"}},
      {"attn_residual_dropout", {"attn_residual_dropout_mask"}},
      {"norm2", {"h_attn"}},
      {"fc1", {"x_norm2"}},
      {"activation", {"fc1_out"}},
      {"fc2", {"act_out"}},
      {"mlp_dropout", {"mlp_dropout_mask"}},
  };
  EXPECT_EQ(stashed, expected);
}

TEST(BlockWorkStash, DisabledDropoutsStashNoMasks) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(gpt);
    TrainingSpec training = trainingFor(gpt.microBatch);
    training.attentionDropout = false;
    training.hiddenDropout = false;
    MappingSpec mapping = mappingFor(tp, mode, policy);
    BlockWork work = derive(model, training, mapping);
    SCOPED_TRACE(label(model, mapping));
    for (const Invocation &invocation : work.invocations) {
      EXPECT_EQ(invocation.primitive.find("dropout"), std::string::npos);
      for (const auto *accesses :
           {&invocation.reads, &invocation.writes, &invocation.stashed})
        for (const TensorAccess &tensor : *accesses)
          EXPECT_EQ(tensor.tensor.find("mask"), std::string::npos);
    }
    // Table 2 without the two sbh masks, the as^2b mask and the 2as^2b
    // dropout output.
    int64_t t = tp;
    bool sp = mode == TPCommMode::ReduceScatterAllGather;
    int64_t sbh = gpt.seq * gpt.microBatch * gpt.hidden;
    int64_t asb = gpt.heads * gpt.seq * gpt.seq * gpt.microBatch;
    int64_t expected = 0;
    switch (policy) {
    case RecomputePolicy::None:
      expected = (sp ? 32 * sbh / t : 8 * sbh + 24 * sbh / t) + 2 * asb / t;
      break;
    case RecomputePolicy::Selective:
      expected = sp ? 32 * sbh / t : 8 * sbh + 24 * sbh / t;
      break;
    case RecomputePolicy::Full:
      expected = sp ? 2 * sbh / t : 2 * sbh;
      break;
    }
    EXPECT_EQ(summarizeOrFail(work).total().stashBytes, expected);
    EXPECT_EQ(summarizeOrFail(work).at(Phase::Forward, Engine::Matmul).ops,
              (24 * sbh * gpt.hidden + 4 * asb / gpt.heads * gpt.hidden) / t);
  });
}

//===----------------------------------------------------------------------===//
// Reference data: SeqSel Table 2 and Calculon (test/reference)
//===----------------------------------------------------------------------===//

/// expected.per_block_per_microbatch_per_gpu.<quantity>.value, if present.
std::optional<int64_t> perBlockValue(const llvm::json::Object &reference,
                                     llvm::StringRef quantity) {
  const llvm::json::Object *expected = reference.getObject("expected");
  const llvm::json::Object *perBlock =
      expected ? expected->getObject("per_block_per_microbatch_per_gpu")
               : nullptr;
  const llvm::json::Object *entry =
      perBlock ? perBlock->getObject(quantity) : nullptr;
  if (!entry)
    return std::nullopt;
  const llvm::json::Value *value = entry->get("value");
  return value ? value->getAsInteger() : std::nullopt;
}

/// The spec of a reference case: the case's model, workload and mapping.
/// Vocabulary does not enter block work; Calculon models none, so a value
/// the TP degree divides is used when the case has none.
struct ReferenceSpec {
  std::string name;
  ModelSpec model;
  TrainingSpec training;
  MappingSpec mapping;
};

ReferenceSpec referenceSpec(const llvm::json::Object &reference) {
  ReferenceSpec spec;
  spec.name = reference.getString("name").value_or("").str();
  const llvm::json::Object &model = *reference.getObject("model");
  const llvm::json::Object &workload = *reference.getObject("workload");
  const llvm::json::Object &mapping = *reference.getObject("mapping");
  spec.mapping.tp = blueprint::test::referenceInteger(mapping, "tp");
  spec.mapping.pp = blueprint::test::referenceInteger(mapping, "pp");
  spec.mapping.dp = blueprint::test::referenceInteger(mapping, "dp");
  spec.mapping.world = spec.mapping.tp * spec.mapping.pp * spec.mapping.dp;
  std::optional<int64_t> interleaving =
      mapping.getInteger("pipeline_interleaving");
  if (const llvm::json::Object *calculon = mapping.getObject("calculon"))
    interleaving = calculon->getInteger("pipeline_interleaving");
  spec.mapping.virtualStages = interleaving.value_or(1);
  spec.mapping.schedule = spec.mapping.virtualStages > 1
                              ? PipelineSchedule::Interleaved1F1B
                              : PipelineSchedule::OneFOneB;
  spec.mapping.tpComm = mapping.getBoolean("sequence_parallel").value_or(false)
                            ? TPCommMode::ReduceScatterAllGather
                            : TPCommMode::AllReduce;
  std::optional<RecomputePolicy> policy = symbolizeEnum<RecomputePolicy>(
      mapping.getString("recompute").value_or(""));
  EXPECT_TRUE(policy.has_value()) << spec.name;
  spec.mapping.recompute = policy.value_or(RecomputePolicy::None);

  spec.model.hidden = blueprint::test::referenceInteger(model, "hidden");
  spec.model.heads = blueprint::test::referenceInteger(model, "attn_heads");
  spec.model.kvHeads = spec.model.heads;
  spec.model.headDim = blueprint::test::referenceInteger(model, "head_dim");
  spec.model.ffnHidden = blueprint::test::referenceInteger(model, "ffn");
  spec.model.seqLength = blueprint::test::referenceInteger(model, "seq");
  spec.model.maxPositions = spec.model.seqLength;
  spec.model.vocab = model.getInteger("vocab").value_or(spec.mapping.tp);
  spec.model.blocks = blueprint::test::referenceInteger(model, "layers");

  spec.training.globalBatch =
      blueprint::test::referenceInteger(workload, "global_batch");
  spec.training.microBatch =
      blueprint::test::referenceInteger(workload, "micro_batch");
  int64_t dtypeBytes =
      blueprint::test::referenceInteger(workload, "dtype_bytes");
  EXPECT_EQ(dtypeBytes, 2) << spec.name << ": 16-bit training expected";
  spec.training.activationType = DataType::BF16;
  return spec;
}

TEST(BlockWorkReference, SeqSelTable2Exact) {
  std::set<std::string> covered;
  for (const llvm::json::Value &value :
       blueprint::test::loadReferenceCases("seqsel_paper.json")) {
    const llvm::json::Object &reference = *value.getAsObject();
    if (reference.getString("group") != "seqsel_table2_formula")
      continue;
    ReferenceSpec spec = referenceSpec(reference);
    SCOPED_TRACE(spec.name);
    covered.insert(spec.name);
    BlockWork work = derive(spec.model, spec.training, spec.mapping);
    WorkSummary summary = summarizeOrFail(work);

    EXPECT_EQ(summary.total().stashBytes,
              perBlockValue(reference, "activation_bytes"));
    EXPECT_EQ(summary.at(Phase::Forward, Engine::Matmul).ops,
              perBlockValue(reference, "fwd_flops"));
    EXPECT_EQ(summary.at(Phase::ActivationGrad, Engine::Matmul).ops +
                  summary.at(Phase::WeightGrad, Engine::Matmul).ops,
              perBlockValue(reference, "bwd_flops"));
    EXPECT_EQ(summary.at(Phase::Recompute, Engine::Matmul).ops,
              perBlockValue(reference, "recompute_flops"));
    // Ring wire volume per device, forward + backward, without
    // recommunication: the algorithm-independent minimum.
    if (std::optional<int64_t> wire =
            perBlockValue(reference, "tp_wire_bytes_fwd_plus_bwd")) {
      EXPECT_EQ(transferIn(summary, Phase::Forward) +
                    transferIn(summary, Phase::ActivationGrad),
                *wire);
    }
  }
  // Five Table 2 rows and full recompute for each of the four models.
  for (const char *model : {"22B", "175B", "530B", "1T"})
    for (const char *row :
         {"no_parallelism", "tp", "tp_sp", "tp_sel", "tp_sp_sel", "full"})
      EXPECT_EQ(covered.count(std::string("paper/seqsel_table2/") + model +
                              "/" + row),
                1u)
          << model << "/" << row;
}

TEST(BlockWorkReference, CalculonWithDefinitionalDifferences) {
  int64_t checked = 0;
  for (const llvm::json::Value &value :
       blueprint::test::loadReferenceCases("calculon_seqsel.json")) {
    const llvm::json::Object &reference = *value.getAsObject();
    ReferenceSpec spec = referenceSpec(reference);
    SCOPED_TRACE(spec.name);
    ++checked;
    BlockWork work = derive(spec.model, spec.training, spec.mapping);
    WorkSummary summary = summarizeOrFail(work);
    RecomputePolicy policy = spec.mapping.recompute;

    EXPECT_EQ(summary.at(Phase::Forward, Engine::Matmul).ops,
              perBlockValue(reference, "fwd_matmul_flops"));
    EXPECT_EQ(summary.at(Phase::ActivationGrad, Engine::Matmul).ops +
                  summary.at(Phase::WeightGrad, Engine::Matmul).ops,
              perBlockValue(reference, "bwd_matmul_flops"));

    // Reference README def. 3: Calculon's attn_only recompute omits the
    // probs x V matmul that SeqSel Eq. 8 (and Blueprint) recompute.
    int64_t recompute = summary.at(Phase::Recompute, Engine::Matmul).ops;
    std::optional<int64_t> calculonRecompute =
        perBlockValue(reference, "recompute_matmul_flops");
    if (policy == RecomputePolicy::Selective) {
      const Invocation *attendValues =
          work.find("attn_v_matmul", Phase::Recompute);
      ASSERT_NE(attendValues, nullptr);
      EXPECT_EQ(recompute - attendValues->ops, calculonRecompute);
    } else {
      EXPECT_EQ(recompute, calculonRecompute);
    }

    // Def. 5: every TP collective carries the full b*s*h*e tensor.
    EXPECT_EQ(summary.at(Phase::Forward, Engine::Collective).messageBytes,
              perBlockValue(reference, "tp_comm_bytes_fwd"));
    EXPECT_EQ(
        summary.at(Phase::ActivationGrad, Engine::Collective).messageBytes,
        perBlockValue(reference, "tp_comm_bytes_bwd"));
    EXPECT_EQ(
        summary.at(Phase::Recommunication, Engine::Collective).messageBytes,
        perBlockValue(reference, "tp_recomm_bytes"));

    // Def. 4: Calculon equals Table 2 except TP-only selective, where it
    // drops the 2sbh qkv_proj input; full recompute is its checkpoint.
    int64_t stash = summary.total().stashBytes;
    bool sequenceParallel =
        spec.mapping.tpComm == TPCommMode::ReduceScatterAllGather;
    if (policy == RecomputePolicy::Full) {
      EXPECT_EQ(perBlockValue(reference, "activation_bytes"), 0);
      EXPECT_EQ(stash, perBlockValue(reference, "activation_checkpoint_bytes"));
    } else if (policy == RecomputePolicy::Selective && !sequenceParallel) {
      const Invocation *qkv = work.find("qkv_proj", Phase::Forward);
      ASSERT_NE(qkv, nullptr);
      EXPECT_EQ(stash - qkv->stashBytes,
                perBlockValue(reference, "activation_bytes"));
    } else {
      EXPECT_EQ(stash, perBlockValue(reference, "activation_bytes"));
    }

    // Def. 2: Calculon models no biases. Blueprint holds the column-parallel
    // qkv_proj and fc1 biases (sharded) and the two row-parallel biases.
    llvm::Expected<int64_t> parameters =
        blockParametersPerRank(spec.model, spec.mapping);
    ASSERT_TRUE(static_cast<bool>(parameters))
        << llvm::toString(parameters.takeError());
    int64_t h = spec.model.hidden, t = spec.mapping.tp;
    EXPECT_EQ(*parameters - (3 * h / t + 4 * h / t + 2 * h),
              perBlockValue(reference, "weight_params"));
  }
  EXPECT_GT(checked, 0);
}

//===----------------------------------------------------------------------===//
// Model variants: grouped-query attention, heads*head_dim != hidden, SwiGLU
//===----------------------------------------------------------------------===//

TEST(BlockWorkVariants, GroupedQueryAttentionClosedForms) {
  ModelSpec model;
  model.hidden = 256;
  model.heads = 16;
  model.kvHeads = 4;
  model.headDim = 32; // heads * head_dim = 512 != hidden
  model.ffnHidden = 1024;
  model.seqLength = 64;
  model.maxPositions = 64;
  model.vocab = 1024;
  model.blocks = 2;
  int64_t b = 2, s = 64, h = 256, a = 16, g = 4, d = 32, f = 1024;
  for (int64_t t : {1, 2, 4}) {
    for (TPCommMode mode : kModes) {
      MappingSpec mapping = mappingFor(t, mode, RecomputePolicy::None);
      BlockWork work = derive(model, trainingFor(b), mapping);
      WorkSummary summary = summarizeOrFail(work);
      SCOPED_TRACE(label(model, mapping));
      int64_t qkv = 2 * b * s * h * (a + 2 * g) * d / t;
      int64_t core = 2 * 2 * b * (a / t) * s * s * d;
      int64_t out = 2 * b * s * (a * d / t) * h;
      int64_t mlp = 2 * 2 * b * s * h * f / t;
      EXPECT_EQ(summary.at(Phase::Forward, Engine::Matmul).ops,
                qkv + core + out + mlp);
      // Keys are read once per key/value head, not once per query head.
      const Invocation *scores = work.find("qk_matmul", Phase::Forward);
      ASSERT_NE(scores, nullptr);
      EXPECT_EQ(scores->readBytes(), 2 * b * s * (a + g) * d / t);

      bool sp = mode == TPCommMode::ReduceScatterAllGather;
      int64_t rows = sp ? b * s / t : b * s;
      int64_t scoreElements = b * (a / t) * s * s;
      int64_t expectedStash =
          2 * rows * h * 4              // x, x_norm1, h_attn, x_norm2
          + 2 * b * s * (a + g) * d / t // q, k
          + 5 * scoreElements           // probs, its mask, probs_dropped
          + 2 * b * s * g * d / t       // v
          + 2 * b * s * a * d / t       // context
          + 2 * rows * h                // two hidden dropout masks
          + 2 * 2 * b * s * f / t;      // fc1_out, act_out
      EXPECT_EQ(summary.total().stashBytes, expectedStash);

      llvm::Expected<int64_t> parameters =
          blockParametersPerRank(model, mapping);
      ASSERT_TRUE(static_cast<bool>(parameters));
      EXPECT_EQ(*parameters, h * (a + 2 * g) * d / t + (a + 2 * g) * d / t +
                                 (a * d / t) * h + h + h * f / t + f / t +
                                 f / t * h + h + 4 * h);
    }
  }
}

// Multi-head latent attention's parameters per TP rank, DeepSeek-V3's
// attention (Hugging Face checkpoint, per layer): q_a_proj 7168 x 1536,
// q_a_layernorm 1536, q_b_proj 1536 x 128 (128 + 64), kv_a_proj_with_mqa
// 7168 x (512 + 64), kv_a_layernorm 512, kv_b_proj 512 x 128 (128 + 128),
// o_proj 128 x 128 x 7168: 187,107,328. The down-projections and their
// norms are replicated on every TP rank, the up-projections and o_proj are
// split over heads; the block adds two RMSNorms and a dense SwiGLU MLP of
// DeepSeek-V3's first three layers (intermediate_size 18432).
TEST(BlockWorkVariants, LatentAttentionParameters) {
  ModelSpec model = blueprint::test::deepSeekV3AttentionModel();

  const int64_t h = 7168, a = 128, qr = 1536, kvr = 512, nope = 128, rope = 64,
                v = 128, f = 18432;
  const int64_t replicatedAttention = h * qr + qr + h * (kvr + rope) + kvr;
  const int64_t splitAttention =
      qr * a * (nope + rope) + kvr * a * (nope + v) + a * v * h;
  EXPECT_EQ(replicatedAttention + splitAttention, 187107328);
  const int64_t mlp = 3 * h * f;
  for (int64_t t : {1, 8}) {
    SCOPED_TRACE("tp = " + std::to_string(t));
    MappingSpec mapping;
    mapping.tp = t;
    mapping.world = t;
    llvm::Expected<int64_t> parameters = blockParametersPerRank(model, mapping);
    ASSERT_TRUE(static_cast<bool>(parameters))
        << llvm::toString(parameters.takeError());
    EXPECT_EQ(*parameters,
              replicatedAttention + splitAttention / t + 2 * h + mlp / t);
  }

  // Without a query latent the query is one column-parallel projection.
  ModelSpec plainQuery = model;
  plainQuery.qLoraRank = std::nullopt;
  MappingSpec mapping;
  mapping.tp = 8;
  mapping.world = 8;
  llvm::Expected<int64_t> parameters =
      blockParametersPerRank(plainQuery, mapping);
  ASSERT_TRUE(static_cast<bool>(parameters))
      << llvm::toString(parameters.takeError());
  EXPECT_EQ(*parameters,
            h * (kvr + rope) + kvr +
                (h * a * (nope + rope) + kvr * a * (nope + v) + a * v * h) / 8 +
                2 * h + mlp / 8);

  // Under tensor parallelism MLA needs sequence parallelism
  // (decoder_training_c14).
  TrainingSpec training;
  training.globalBatch = 8;
  training.microBatch = 1;
  llvm::Expected<BlockWork> work = deriveBlockWork(model, training, mapping);
  ASSERT_FALSE(static_cast<bool>(work));
  EXPECT_EQ(llvm::toString(work.takeError()),
            "deriveBlockWork: the specification does not compose: "
            "[decoder_training_c14] multi-head latent attention "
            "(kv_lora_rank) under tp = 8 needs tp_comm = "
            "reduce_scatter_all_gather (sequence parallelism), got "
            "all_reduce: its duplicated down-projections run on each rank's "
            "sequence shard;");
}

// Under LayerNorm each latent norm adds a beta of its width (Hugging Face
// DeepseekV3 uses RMSNorm; the contract allows either): DeepSeek-V3's
// attention with LayerNorm holds q_lora_rank + kv_lora_rank more replicated
// parameters than with RMSNorm, besides the block norms' 2h betas, and the
// boundaries list q_a_norm_beta and kv_a_norm_beta.
TEST(BlockWorkVariants, LatentAttentionLayerNormBetas) {
  ModelSpec model = blueprint::test::deepSeekV3AttentionModel();
  model.norm = NormKind::LayerNorm;
  const int64_t h = 7168, a = 128, qr = 1536, kvr = 512, nope = 128, rope = 64,
                v = 128, f = 18432;
  // Gamma and beta of each latent norm and of norm1, norm2.
  const int64_t replicated =
      h * qr + 2 * qr + h * (kvr + rope) + 2 * kvr + 2 * (2 * h);
  const int64_t split =
      qr * a * (nope + rope) + kvr * a * (nope + v) + a * v * h + 3 * h * f;
  for (int64_t t : {1, 8}) {
    SCOPED_TRACE("tp = " + std::to_string(t));
    MappingSpec mapping = mappingFor(
        t, t > 1 ? TPCommMode::ReduceScatterAllGather : TPCommMode::AllReduce,
        RecomputePolicy::None);
    EXPECT_EQ(cantFail(blockParametersPerRank(model, mapping)),
              replicated + split / t);
    std::set<std::string> names;
    for (const BoundaryTensor &tensor :
         cantFail(blockBoundaries(model, trainingFor(8), mapping)))
      names.insert(tensor.name);
    EXPECT_EQ(names.count("q_a_norm_beta"), 1u);
    EXPECT_EQ(names.count("kv_a_norm_beta"), 1u);
  }
}

// An MLA dimension near INT64_MAX fails with a named overflow diagnostic,
// never a wrapped count: kv_lora_rank + qk_rope_head_dim, the compressed
// cache's width and kv_a_proj's output, is the first quantity past the
// range.
TEST(BlockWorkVariants, LatentAttentionOverflowIsNamed) {
  ModelSpec model = blueprint::test::deepSeekV3AttentionModel();
  model.qLoraRank = std::nullopt;
  model.kvLoraRank = std::numeric_limits<int64_t>::max() - 8;
  MappingSpec mapping =
      mappingFor(1, TPCommMode::AllReduce, RecomputePolicy::None);
  llvm::Expected<int64_t> parameters = blockParametersPerRank(model, mapping);
  ASSERT_FALSE(static_cast<bool>(parameters));
  EXPECT_EQ(llvm::toString(parameters.takeError()),
            "blockParametersPerRank: 64-bit overflow computing compressed "
            "KV-cache columns");
}

/// A small MLA model: a = 8 heads of qk_nope 16 + qk_rope 8, v_head_dim 12,
/// latents r_q = 48 and r_kv = 32, hidden 64.
ModelSpec latentModel(bool queryLatent) {
  ModelSpec model;
  model.hidden = 64;
  model.heads = 8;
  model.ffnHidden = 128;
  model.seqLength = 32;
  model.maxPositions = 32;
  model.vocab = 256;
  model.blocks = 2;
  model.norm = NormKind::RMSNorm;
  model.activation = ActivationKind::SwiGLU;
  blueprint::test::useLatentAttention(
      model,
      {queryLatent ? std::optional<int64_t>(48) : std::nullopt, 32, 16, 8, 12});
  return model;
}

// Multi-head latent attention's work on one TP rank, each primitive against
// its hand-derived closed form (docs/WorkAlgebra.md, "Multi-head latent
// attention"): T = b s tokens, T_l = T/t the rank's sequence shard (t > 1
// implies sequence parallelism), a_t = a/t heads.
TEST(BlockWorkVariants, LatentAttentionClosedForms) {
  const int64_t b = 2, s = 32, h = 64, a = 8, dn = 16, dr = 8, dv = 12, rq = 48,
                rkv = 32, f = 128;
  const int64_t dqk = dn + dr;
  for (bool queryLatent : {true, false})
    for (int64_t t : {1, 2, 4})
      for (RecomputePolicy recompute : kPolicies) {
        ModelSpec model = latentModel(queryLatent);
        MappingSpec mapping = mappingFor(
            t,
            t > 1 ? TPCommMode::ReduceScatterAllGather : TPCommMode::AllReduce,
            recompute);
        SCOPED_TRACE(label(model, mapping) +
                     (queryLatent ? " q_lora" : " no q_lora"));
        TrainingSpec training = trainingFor(b);
        training.attentionDropout = false;
        training.hiddenDropout = false;
        BlockWork work = derive(model, training, mapping);
        WorkSummary summary = summarizeOrFail(work);
        int64_t T = b * s, Tl = T / t, at = a / t;
        auto ops = [&](llvm::StringRef primitive, Phase phase) -> int64_t {
          const Invocation *invocation = work.find(primitive, phase);
          EXPECT_NE(invocation, nullptr) << primitive.str();
          return invocation ? invocation->ops : -1;
        };
        // Forward linears: duplicated down-projections over T_l rows,
        // column-parallel up-projections and the row-parallel out_proj over
        // T rows.
        int64_t kvDown = 2 * Tl * h * (rkv + dr);
        int64_t queryProjections = queryLatent
                                       ? 2 * Tl * h * rq + 2 * T * rq * at * dqk
                                       : 2 * T * h * at * dqk;
        int64_t kvUp = 2 * T * rkv * at * (dn + dv);
        int64_t out = 2 * T * at * dv * h;
        int64_t scores = 2 * b * at * s * s * dqk;
        int64_t context = 2 * b * at * s * s * dv;
        int64_t mlp = 2 * T * h * 2 * (f / t) + 2 * T * (f / t) * h;
        EXPECT_EQ(ops("kv_a_proj", Phase::Forward), kvDown);
        EXPECT_EQ(ops("kv_b_proj", Phase::Forward), kvUp);
        EXPECT_EQ(ops("qk_matmul", Phase::Forward), scores);
        EXPECT_EQ(ops("attn_v_matmul", Phase::Forward), context);
        EXPECT_EQ(ops("out_proj", Phase::Forward), out);
        if (queryLatent) {
          EXPECT_EQ(ops("q_a_proj", Phase::Forward), 2 * Tl * h * rq);
          EXPECT_EQ(ops("q_b_proj", Phase::Forward), 2 * T * rq * at * dqk);
          EXPECT_EQ(work.find("q_proj", Phase::Forward), nullptr);
        } else {
          EXPECT_EQ(ops("q_proj", Phase::Forward), 2 * T * h * at * dqk);
          EXPECT_EQ(work.find("q_a_proj", Phase::Forward), nullptr);
        }
        EXPECT_EQ(work.find("qkv_proj", Phase::Forward), nullptr);
        int64_t linears = kvDown + queryProjections + kvUp + out + mlp;
        EXPECT_EQ(summary.at(Phase::Forward, Engine::Matmul).ops,
                  linears + scores + context);
        // Backward: every linear once for its input and once for its weight
        // gradient, the attention matmuls twice each.
        EXPECT_EQ(summary.at(Phase::ActivationGrad, Engine::Matmul).ops,
                  linears + 2 * (scores + context));
        EXPECT_EQ(summary.at(Phase::WeightGrad, Engine::Matmul).ops, linears);
        int64_t recomputed =
            recompute == RecomputePolicy::Full ? linears + scores + context
            : recompute == RecomputePolicy::Selective ? scores + context
                                                      : 0;
        EXPECT_EQ(summary.at(Phase::Recompute, Engine::Matmul).ops, recomputed);
        // Rotary: the rope part of a_t query heads and the one shared key.
        EXPECT_EQ(ops("rotary", Phase::Forward),
                  opcount::kRotaryPerElement * T * (at * dr + dr));
        EXPECT_EQ(ops("rotary", Phase::ActivationGrad),
                  opcount::kRotaryPerElement * T * (at * dr + dr));
        // The latent norms over the rank's rows.
        EXPECT_EQ(ops("kv_a_norm", Phase::Forward),
                  Tl * (rkv * opcount::kRMSNormForwardPerElement +
                        opcount::kRMSNormForwardPerRow));

        // Collectives (bf16 activations): the forward all-gathers of the
        // normed latents (or x_norm1) and the shared rotary key, the
        // reduce-scatters of their gradients, the re-gathers for the
        // up-projections' weight gradients, and the dense tails.
        const WorkTotals &collectives = summary.of(Engine::Collective);
        int64_t queryInput = queryLatent ? rq : h;
        int64_t latentMessages = 2 * T * (queryInput + rkv + dr);
        int64_t regathers = 2 * T * (queryInput + rkv);
        // attn_tp_g, mlp_tp_f and mlp_tp_g forward and backward, and the
        // fc1 re-gather; full recompute redoes the forward ones.
        int64_t denseTails = 7 * 2 * T * h;
        int64_t recommunicated = recompute == RecomputePolicy::Full
                                     ? latentMessages + 3 * 2 * T * h
                                     : 0;
        EXPECT_EQ(collectives.messageBytes,
                  t == 1 ? 0
                         : 2 * latentMessages + regathers + denseTails +
                               recommunicated);
        // The shared rotary key's gradient is reduce-scattered: a partial
        // sum over the rank's heads.
        const Invocation *keyReduction =
            work.find("k_rope_tp_f", Phase::ActivationGrad);
        if (t == 1) {
          EXPECT_EQ(keyReduction, nullptr);
        } else {
          ASSERT_NE(keyReduction, nullptr);
          EXPECT_EQ(keyReduction->collective->kind,
                    CollectiveKind::ReduceScatter);
          EXPECT_EQ(keyReduction->collective->messageBytes, 2 * T * dr);
          EXPECT_EQ(keyReduction->ops, T * dr / t * (t - 1));
        }

        // The stash (bf16): x; x_norm1, the latents and their norms on the
        // rank's rows; q, k_nope, k_rope, v and the context over T rows;
        // probs only without recompute (no dropout here); the MLP's as in a
        // dense block.
        int64_t kept = Tl * h /*x_norm1*/ +
                       Tl * rkv * 2 /*kv_latent, its norm*/ +
                       (queryLatent ? Tl * rq * 2 : 0) + T * at * dqk /*q*/ +
                       T * at * dn /*k_nope*/ + T * dr /*k_rope*/ +
                       T * at * dv /*v*/ + T * at * dv /*context*/ +
                       Tl * h /*x_norm2*/ + T * 2 * (f / t) /*fc1_out*/ +
                       T * (f / t) /*act_out*/ + Tl * h /*h_attn*/;
        int64_t probs = b * at * s * s;
        int64_t stash = recompute == RecomputePolicy::Full ? Tl * h
                        : recompute == RecomputePolicy::Selective
                            ? Tl * h + kept
                            : Tl * h + kept + probs;
        EXPECT_EQ(summary.total().stashBytes, 2 * stash);

        // The optimizer: the duplicated down-projections and latent norms
        // join the norms' sequence-parallel all-reduce (bf16 gradients).
        int64_t duplicated =
            h * (rkv + dr) + rkv + (queryLatent ? h * rq + rq : 0);
        int64_t split = (queryLatent ? rq : h) * at * dqk +
                        rkv * at * (dn + dv) + at * dv * h;
        BlockWork optimizer =
            cantFail(deriveOptimizerWork(model, training, mapping));
        const Invocation *sync =
            optimizer.find("sp_param_grad_sync", Phase::WeightGrad);
        if (t == 1) {
          EXPECT_EQ(sync, nullptr);
        } else {
          ASSERT_NE(sync, nullptr);
          EXPECT_EQ(sync->collective->messageBytes, 2 * (2 * h + duplicated));
        }
        const Invocation *step = optimizer.find("adamw_step", Phase::Optimizer);
        ASSERT_NE(step, nullptr);
        EXPECT_EQ(step->ops, opcount::kAdamWPerParameter *
                                 (duplicated + split + 2 * h + 3 * h * f / t));
      }
}

// Sliding-window attention (Mistral 7B, Sec. 2): each of the s queries of a
// sequence holds a score row of w keys, so QK^T and probs x V are
// 2 b (a/t) s w d each way (twice that backward, again under selective
// recompute) and the softmax, its dropout and their stash shrink from s^2
// to s w per head (their stash only without recompute: selective and full
// recompute keep no score); everything outside the attention core is
// unchanged. A window of s keys is full attention.
TEST(BlockWorkVariants, SlidingWindowClosedForms) {
  ModelSpec model;
  model.hidden = 256;
  model.heads = 16;
  model.kvHeads = 4;
  model.headDim = 32;
  model.ffnHidden = 1024;
  model.seqLength = 64;
  model.maxPositions = 128;
  model.vocab = 1024;
  model.blocks = 2;
  int64_t b = 2, s = 64, a = 16, d = 32, w = 24;
  for (int64_t t : {1, 2, 4})
    for (TPCommMode mode : kModes)
      for (RecomputePolicy recompute :
           {RecomputePolicy::None, RecomputePolicy::Selective,
            RecomputePolicy::Full}) {
        MappingSpec mapping = mappingFor(t, mode, recompute);
        ModelSpec windowed = model;
        windowed.attentionWindow = w;
        ModelSpec whole = model;
        whole.attentionWindow = s;
        SCOPED_TRACE(label(windowed, mapping));
        BlockWork full = derive(model, trainingFor(b), mapping);
        BlockWork banded = derive(windowed, trainingFor(b), mapping);
        EXPECT_EQ(derive(whole, trainingFor(b), mapping).invocations,
                  full.invocations);
        WorkSummary fullSummary = summarizeOrFail(full);
        WorkSummary bandedSummary = summarizeOrFail(banded);
        int64_t coreSaved = 2 * b * (a / t) * s * (s - w) * d;
        EXPECT_EQ(fullSummary.at(Phase::Forward, Engine::Matmul).ops -
                      bandedSummary.at(Phase::Forward, Engine::Matmul).ops,
                  2 * coreSaved);
        EXPECT_EQ(
            fullSummary.at(Phase::ActivationGrad, Engine::Matmul).ops -
                bandedSummary.at(Phase::ActivationGrad, Engine::Matmul).ops,
            4 * coreSaved);
        EXPECT_EQ(fullSummary.at(Phase::WeightGrad, Engine::Matmul).ops,
                  bandedSummary.at(Phase::WeightGrad, Engine::Matmul).ops);
        // Selective recompute reruns the attention core, full recompute the
        // whole forward: both rerun QK^T and probs x V over the band.
        EXPECT_EQ(fullSummary.at(Phase::Recompute, Engine::Matmul).ops -
                      bandedSummary.at(Phase::Recompute, Engine::Matmul).ops,
                  recompute == RecomputePolicy::None ? 0 : 2 * coreSaved);
        const Invocation *softmax = banded.find("softmax", Phase::Forward);
        ASSERT_NE(softmax, nullptr);
        EXPECT_EQ(softmax->ops, b * (a / t) * s *
                                    (w * opcount::kSoftmaxForwardPerElement +
                                     opcount::kSoftmaxForwardPerRow));
        // probs, the dropout mask and probs_dropped: 5 bytes per score.
        int64_t savedScores = b * (a / t) * s * (s - w);
        EXPECT_EQ(fullSummary.total().stashBytes -
                      bandedSummary.total().stashBytes,
                  recompute == RecomputePolicy::None ? 5 * savedScores : 0);
      }
}

TEST(BlockWorkVariants, SwiGLUClosedForms) {
  for (const GptShape &gpt : kShapes) {
    ModelSpec model = gptModel(gpt);
    model.activation = ActivationKind::SwiGLU;
    model.norm = NormKind::RMSNorm;
    int64_t b = gpt.microBatch, s = gpt.seq, h = gpt.hidden;
    int64_t f = model.ffnHidden;
    for (int64_t t : kTensorParallel) {
      MappingSpec mapping =
          mappingFor(t, TPCommMode::AllReduce, RecomputePolicy::None);
      BlockWork work = derive(model, trainingFor(b), mapping);
      WorkSummary summary = summarizeOrFail(work);
      SCOPED_TRACE(label(model, mapping));
      // fc1 produces gate and up projection: 2f columns.
      int64_t forward = (8 * b * s * h * h + 4 * b * s * s * h +
                         2 * b * s * h * 2 * f + 2 * b * s * f * h) /
                        t;
      EXPECT_EQ(summary.at(Phase::Forward, Engine::Matmul).ops, forward);
      EXPECT_EQ(summary.at(Phase::ActivationGrad, Engine::Matmul).ops +
                    summary.at(Phase::WeightGrad, Engine::Matmul).ops,
                2 * forward);
      const Invocation *gate = work.find("activation", Phase::Forward);
      ASSERT_NE(gate, nullptr);
      EXPECT_EQ(gate->ops, opcount::kSwiGLUForwardPerElement * b * s * f / t);
      EXPECT_EQ(gate->stashBytes, 2 * b * s * 2 * f / t);
      const Invocation *gateGrad =
          work.find("activation", Phase::ActivationGrad);
      ASSERT_NE(gateGrad, nullptr);
      EXPECT_EQ(gateGrad->ops,
                opcount::kSwiGLUInputGradPerElement * b * s * f / t);
      // RMSNorm: gamma only.
      const Invocation *norm = work.find("norm1", Phase::Forward);
      ASSERT_NE(norm, nullptr);
      EXPECT_EQ(norm->ops, b * s *
                               (opcount::kRMSNormForwardPerElement * h +
                                opcount::kRMSNormForwardPerRow));
      EXPECT_EQ(norm->reads.size(), 2u);
      // Table 2 with a 2 x 2sbf/t activation input instead of 8sbh/t.
      int64_t sbh = s * b * h;
      EXPECT_EQ(summary.total().stashBytes,
                10 * sbh + (16 * sbh + 2 * s * b * 2 * f) / t +
                    5 * gpt.heads * s * s * b / t);
    }
  }
}

// linear_bias: `qkv` keeps only b_qkv (Qwen2), `none` drops every bias
// (Llama). The GEMMs keep their 2MNK; the bias parameters, their reads, the
// row-parallel bias adds and the bias gradients go, and the SP gradient
// sync loses the two row-parallel biases.
TEST(BlockWorkVariants, LinearBiasKeepsOrDropsTheBiases) {
  const LinearBias kBiases[] = {LinearBias::All, LinearBias::QKVOnly,
                                LinearBias::None};
  for (const GptShape &gpt : kShapes) {
    for (int64_t t : kTensorParallel) {
      for (TPCommMode mode : kModes) {
        ModelSpec all = gptModel(gpt);
        MappingSpec mapping = mappingFor(t, mode, RecomputePolicy::None);
        TrainingSpec training = trainingFor(gpt.microBatch);
        WorkSummary withAll = summarizeOrFail(derive(all, training, mapping));
        int64_t b = gpt.microBatch, s = gpt.seq, h = gpt.hidden;
        bool sp = mode == TPCommMode::ReduceScatterAllGather && t > 1;
        int64_t rows = sp ? b * s / t : b * s;
        for (LinearBias bias : kBiases) {
          ModelSpec model = all;
          model.linearBias = bias;
          SCOPED_TRACE(label(model, mapping) +
                       " linear_bias=" + stringifyEnum(bias).str());
          bool qkvBias = bias != LinearBias::None;
          bool projectionBiases = bias == LinearBias::All;
          int64_t expected = 12 * h * h / t + (qkvBias ? 3 * h / t : 0) +
                             (projectionBiases ? 4 * h / t + 2 * h : 0) + 4 * h;
          llvm::Expected<int64_t> parameters =
              blockParametersPerRank(model, mapping);
          ASSERT_TRUE(static_cast<bool>(parameters));
          EXPECT_EQ(*parameters, expected);
          BlockWork work = derive(model, training, mapping);
          WorkSummary summary = summarizeOrFail(work);
          for (const char *primitive : {"out_proj_bias", "fc2_bias"})
            EXPECT_EQ(work.find(primitive, Phase::Forward) != nullptr,
                      projectionBiases)
                << primitive;
          for (const char *primitive :
               {"out_proj_bias", "fc2_bias", "fc1_bias"})
            EXPECT_EQ(work.find(primitive, Phase::WeightGrad) != nullptr,
                      projectionBiases)
                << primitive;
          EXPECT_EQ(work.find("qkv_bias", Phase::WeightGrad) != nullptr,
                    qkvBias);
          // Matmul counts are 2MNK with or without a bias.
          for (Phase phase :
               {Phase::Forward, Phase::ActivationGrad, Phase::WeightGrad})
            EXPECT_EQ(summary.at(phase, Engine::Matmul).ops,
                      withAll.at(phase, Engine::Matmul).ops);
          // What goes: two bias adds forward (T'h each); the bias
          // gradients: b_out and b_fc2 over T'h, b_fc1 over T*4h/t, b_qkv
          // over T*3h/t.
          int64_t forwardDropped = projectionBiases ? 0 : 2 * rows * h;
          int64_t gradDropped =
              (projectionBiases ? 0 : 2 * rows * h + b * s * 4 * h / t) +
              (qkvBias ? 0 : b * s * 3 * h / t);
          EXPECT_EQ(summary.at(Phase::Forward, Engine::Vector).ops,
                    withAll.at(Phase::Forward, Engine::Vector).ops -
                        forwardDropped);
          EXPECT_EQ(summary.at(Phase::WeightGrad, Engine::Vector).ops,
                    withAll.at(Phase::WeightGrad, Engine::Vector).ops -
                        gradDropped);
          auto readsTensor = [&](const char *primitive, const char *tensor) {
            const Invocation *invocation = work.find(primitive, Phase::Forward);
            return invocation && llvm::any_of(invocation->reads,
                                              [&](const TensorAccess &access) {
                                                return access.tensor == tensor;
                                              });
          };
          EXPECT_EQ(readsTensor("qkv_proj", "b_qkv"), qkvBias);
          EXPECT_EQ(readsTensor("fc1", "b_fc1"), projectionBiases);
          // Without the row-parallel bias the dropout takes the reduced
          // projection itself and names its output after it.
          EXPECT_TRUE(readsTensor("attn_residual_dropout",
                                  projectionBiases ? "attn_out" : "attn_proj"));
          EXPECT_TRUE(readsTensor("attn_residual", projectionBiases
                                                       ? "attn_out_dropped"
                                                       : "attn_proj_dropped"));
          EXPECT_TRUE(readsTensor("mlp_residual", projectionBiases
                                                      ? "mlp_out_dropped"
                                                      : "mlp_proj_dropped"));
          const Invocation *outGrad =
              work.find("out_proj", Phase::ActivationGrad);
          ASSERT_NE(outGrad, nullptr);
          EXPECT_EQ(outGrad->reads.front().tensor,
                    projectionBiases ? "d_attn_out" : "d_attn_proj");
          const Invocation *fc2Grad = work.find("fc2", Phase::ActivationGrad);
          ASSERT_NE(fc2Grad, nullptr);
          EXPECT_EQ(fc2Grad->reads.front().tensor,
                    projectionBiases ? "d_mlp_out" : "d_mlp_proj");

          llvm::Expected<BlockWork> optimizer =
              deriveOptimizerWork(model, training, mapping);
          ASSERT_TRUE(static_cast<bool>(optimizer));
          const Invocation *sync =
              optimizer->find("sp_param_grad_sync", Phase::WeightGrad);
          ASSERT_EQ(sync != nullptr, sp);
          if (sp) {
            EXPECT_EQ(sync->collective->messageBytes,
                      (4 * h + (projectionBiases ? 2 * h : 0)) * 2);
          }
          const Invocation *step =
              optimizer->find("adamw_step", Phase::Optimizer);
          ASSERT_NE(step, nullptr);
          EXPECT_EQ(step->ops, opcount::kAdamWPerParameter * expected);
        }
      }
    }
  }
}

// Without the hidden dropout the residual adds read the reduced
// projections directly.
TEST(BlockWorkVariants, NoBiasNoDropoutResidualReadsTheProjection) {
  ModelSpec model = gptModel(kShapes[4]);
  model.linearBias = LinearBias::None;
  TrainingSpec training = trainingFor(2);
  training.hiddenDropout = false;
  BlockWork work =
      derive(model, training,
             mappingFor(2, TPCommMode::AllReduce, RecomputePolicy::None));
  const Invocation *attention = work.find("attn_residual", Phase::Forward);
  const Invocation *mlp = work.find("mlp_residual", Phase::Forward);
  ASSERT_NE(attention, nullptr);
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ(attention->reads.back().tensor, "attn_proj");
  EXPECT_EQ(mlp->reads.back().tensor, "mlp_proj");
  const Invocation *outGrad = work.find("out_proj", Phase::ActivationGrad);
  ASSERT_NE(outGrad, nullptr);
  EXPECT_EQ(outGrad->reads.front().tensor, "d_h_attn");
}

// Rotary embeddings: a Vector invocation after qkv_proj rotating this
// rank's q and k, 3 ops per element, reading the fp32 cos/sin table of s
// positions x head_dim; the same count backward on d_q and d_k. Nothing is
// stashed for it; full recompute reruns it, selective does not.
TEST(BlockWorkVariants, RotaryRotatesQueriesAndKeys) {
  forEachConfiguration([](const GptShape &gpt, int64_t t, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec learned = gptModel(gpt);
    learned.kvHeads = gpt.heads / 2 >= t ? gpt.heads / 2 : gpt.heads;
    ModelSpec model = learned;
    model.positionEmbedding = PositionEmbedding::Rotary;
    MappingSpec mapping = mappingFor(t, mode, policy);
    TrainingSpec training = trainingFor(gpt.microBatch);
    SCOPED_TRACE(label(model, mapping));
    BlockWork work = derive(model, training, mapping);
    WorkSummary summary = summarizeOrFail(work);
    WorkSummary withoutRotary =
        summarizeOrFail(derive(learned, training, mapping));
    int64_t b = gpt.microBatch, s = gpt.seq, d = model.headDim;
    int64_t rotated = b * s * (model.heads + model.kvHeads) * d / t;
    int64_t table = s * d * 4;
    for (Phase phase : {Phase::Forward, Phase::ActivationGrad}) {
      const Invocation *rotary = work.find("rotary", phase);
      ASSERT_NE(rotary, nullptr);
      EXPECT_EQ(rotary->engine, Engine::Vector);
      EXPECT_EQ(rotary->ops, 3 * rotated);
      EXPECT_EQ(rotary->ops, opcount::kRotaryPerElement * rotated);
      EXPECT_EQ(rotary->readBytes(), 2 * rotated + table);
      EXPECT_EQ(rotary->writeBytes(), 2 * rotated);
      EXPECT_EQ(rotary->stashBytes, 0);
    }
    // Right after qkv_proj, before the attention core.
    size_t qkv = 0;
    while (work.invocations[qkv].primitive != "qkv_proj")
      ++qkv;
    EXPECT_EQ(work.invocations[qkv + 1].primitive, "rotary");
    EXPECT_EQ(work.find("rotary", Phase::Recompute) != nullptr,
              policy == RecomputePolicy::Full);
    EXPECT_EQ(summary.total().stashBytes, withoutRotary.total().stashBytes);
    int64_t reruns = policy == RecomputePolicy::Full ? 1 : 0;
    EXPECT_EQ(summary.total().ops,
              withoutRotary.total().ops + (2 + reruns) * 3 * rotated);
    EXPECT_EQ(summary.of(Engine::Matmul).ops,
              withoutRotary.of(Engine::Matmul).ops);
  });
}

//===----------------------------------------------------------------------===//
// Optimizer (per iteration)
//===----------------------------------------------------------------------===//

TEST(BlockWorkOptimizer, AdamWOverTheRankParameters) {
  for (const GptShape &gpt : kShapes) {
    for (int64_t t : kTensorParallel) {
      for (TPCommMode mode : kModes) {
        ModelSpec model = gptModel(gpt);
        TrainingSpec training = trainingFor(gpt.microBatch);
        MappingSpec mapping = mappingFor(t, mode, RecomputePolicy::None);
        SCOPED_TRACE(label(model, mapping));
        int64_t h = gpt.hidden;
        int64_t expectedParameters = 12 * h * h / t + 7 * h / t + 2 * h + 4 * h;
        if (t == 1) {
          EXPECT_EQ(expectedParameters, 12 * h * h + 13 * h); // Eq. 2
        }
        llvm::Expected<int64_t> parameters =
            blockParametersPerRank(model, mapping);
        ASSERT_TRUE(static_cast<bool>(parameters));
        EXPECT_EQ(*parameters, expectedParameters);

        llvm::Expected<BlockWork> work =
            deriveOptimizerWork(model, training, mapping);
        ASSERT_TRUE(static_cast<bool>(work))
            << llvm::toString(work.takeError());
        EXPECT_EQ(work->cadence, Cadence::PerIteration);
        const Invocation *step = work->find("adamw_step", Phase::Optimizer);
        ASSERT_NE(step, nullptr);
        EXPECT_EQ(step->engine, Engine::Vector);
        int64_t p = expectedParameters;
        EXPECT_EQ(step->ops, opcount::kAdamWPerParameter * p);
        // fp32 master, m, v read and written; bf16 gradient read and
        // zeroed; bf16 weight copy written.
        EXPECT_EQ(step->readBytes(), p * (3 * 4 + 2));
        EXPECT_EQ(step->writeBytes(), p * (3 * 4 + 2 + 2));

        const Invocation *sync =
            work->find("sp_param_grad_sync", Phase::WeightGrad);
        bool sp = mode == TPCommMode::ReduceScatterAllGather && t > 1;
        ASSERT_EQ(sync != nullptr, sp);
        if (sp) {
          ASSERT_TRUE(sync->collective.has_value());
          EXPECT_EQ(sync->collective->kind, CollectiveKind::AllReduce);
          EXPECT_EQ(sync->collective->messageBytes, (4 * h + 2 * h) * 2);
        }
        EXPECT_EQ(work->invocations.size(), sp ? 2u : 1u);

        // The per-micro-batch work has no optimizer phase.
        WorkSummary block = summarizeOrFail(derive(model, training, mapping));
        EXPECT_EQ(block.cadence(), Cadence::PerMicroBatch);
        EXPECT_EQ(block.of(Phase::Optimizer).invocations, 0);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Well-formedness, totals, diagnostics
//===----------------------------------------------------------------------===//

TEST(BlockWorkStructure, EveryInvocationIsWellFormed) {
  forEachConfiguration([](const GptShape &gpt, int64_t tp, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(gpt);
    MappingSpec mapping = mappingFor(tp, mode, policy);
    BlockWork work = derive(model, trainingFor(gpt.microBatch), mapping);
    SCOPED_TRACE(label(model, mapping));
    EXPECT_EQ(work.cadence, Cadence::PerMicroBatch);
    std::set<std::pair<std::string, Phase>> seen;
    for (const Invocation &invocation : work.invocations) {
      EXPECT_TRUE(seen.insert({invocation.primitive, invocation.phase}).second)
          << "duplicate " << invocation.primitive << " "
          << stringifyEnum(invocation.phase).str();
      EXPECT_FALSE(invocation.cause.empty()) << invocation.primitive;
      EXPECT_GE(invocation.ops, 0);
      EXPECT_FALSE(invocation.reads.empty()) << invocation.primitive;
      EXPECT_FALSE(invocation.writes.empty()) << invocation.primitive;
      bool collective = invocation.engine == Engine::Collective;
      ASSERT_EQ(invocation.collective.has_value(), collective)
          << invocation.primitive;
      if (collective) {
        EXPECT_EQ(invocation.collective->reduction == ReductionKind::None,
                  invocation.collective->kind == CollectiveKind::AllGather);
        EXPECT_NE(invocation.phase, Phase::Recompute);
        EXPECT_GT(transferOrFail(*invocation.collective), 0);
      } else {
        EXPECT_NE(invocation.phase, Phase::Recommunication);
      }
    }
  });
}

TEST(BlockWorkStructure, SummaryTotalsAreConsistent) {
  const GptShape &gpt = kShapes[0];
  BlockWork work = derive(
      gptModel(gpt), trainingFor(gpt.microBatch),
      mappingFor(8, TPCommMode::ReduceScatterAllGather, RecomputePolicy::Full));
  WorkSummary summary = summarizeOrFail(work);
  const Phase phases[] = {Phase::Forward,        Phase::Recompute,
                          Phase::ActivationGrad, Phase::WeightGrad,
                          Phase::Optimizer,      Phase::Recommunication};
  const Engine engines[] = {Engine::Matmul, Engine::Vector, Engine::Collective};
  WorkTotals overall;
  for (Phase phase : phases) {
    WorkTotals phaseTotals;
    for (Engine engine : engines) {
      const WorkTotals &cell = summary.at(phase, engine);
      phaseTotals.ops += cell.ops;
      phaseTotals.readBytes += cell.readBytes;
      phaseTotals.writeBytes += cell.writeBytes;
      phaseTotals.messageBytes += cell.messageBytes;
      phaseTotals.invocations += cell.invocations;
    }
    EXPECT_EQ(summary.of(phase).ops, phaseTotals.ops);
    EXPECT_EQ(summary.of(phase).readBytes, phaseTotals.readBytes);
    EXPECT_EQ(summary.of(phase).writeBytes, phaseTotals.writeBytes);
    EXPECT_EQ(summary.of(phase).messageBytes, phaseTotals.messageBytes);
    EXPECT_EQ(summary.of(phase).invocations, phaseTotals.invocations);
    overall.ops += phaseTotals.ops;
    overall.invocations += phaseTotals.invocations;
  }
  EXPECT_EQ(summary.total().ops, overall.ops);
  EXPECT_EQ(summary.total().invocations,
            static_cast<int64_t>(work.invocations.size()));
  int64_t engineOps = 0;
  for (Engine engine : engines)
    engineOps += summary.of(engine).ops;
  EXPECT_EQ(engineOps, summary.total().ops);
  int64_t reads = 0;
  for (const Invocation &invocation : work.invocations)
    reads += invocation.readBytes();
  EXPECT_EQ(summary.total().readBytes, reads);
}

TEST(BlockWorkDiagnostics, OverflowNamesTheQuantity) {
  ModelSpec model = gptModel(kShapes[4]);
  model.hidden = int64_t(1) << 40;
  model.headDim = model.hidden / model.heads;
  model.ffnHidden = 4 * model.hidden;
  TrainingSpec training = trainingFor(2);
  MappingSpec mapping =
      mappingFor(1, TPCommMode::AllReduce, RecomputePolicy::None);
  llvm::Expected<BlockWork> work = deriveBlockWork(model, training, mapping);
  ASSERT_FALSE(static_cast<bool>(work));
  // The first quantity that overflows in program order, whatever the
  // compiler (utils/check-evaluation-order.py keeps it so).
  std::string message = llvm::toString(work.takeError());
  EXPECT_EQ(message,
            "deriveBlockWork: 64-bit overflow computing qkv_proj forward ops");

  llvm::Expected<BlockWork> optimizer =
      deriveOptimizerWork(model, training, mapping);
  ASSERT_FALSE(static_cast<bool>(optimizer));
  message = llvm::toString(optimizer.takeError());
  EXPECT_NE(message.find("w_qkv parameters"), std::string::npos) << message;

  BlockWork huge;
  for (int copy = 0; copy < 2; ++copy) {
    Invocation invocation;
    invocation.primitive = "big" + std::to_string(copy);
    invocation.engine = Engine::Matmul;
    invocation.ops = std::numeric_limits<int64_t>::max();
    huge.invocations.push_back(invocation);
  }
  llvm::Expected<WorkSummary> summary = summarize(huge);
  ASSERT_FALSE(static_cast<bool>(summary));
  message = llvm::toString(summary.takeError());
  EXPECT_NE(message.find("forward matmul ops"), std::string::npos) << message;

  // A failed add leaves every total as it was.
  WorkSummary partial;
  InvocationFigures big;
  big.primitive = "big";
  big.engine = Engine::Matmul;
  big.ops = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(llvm::toString(partial.add(big)), "");
  message = llvm::toString(partial.add(big));
  EXPECT_NE(message.find("forward matmul ops"), std::string::npos) << message;
  EXPECT_EQ(partial.total().ops, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(partial.total().invocations, 1);

  // A phase that is no case is an error, not an index past the totals.
  InvocationFigures stray;
  stray.primitive = "stray";
  stray.phase = static_cast<Phase>(kNumPhases);
  message = llvm::toString(WorkSummary().add(stray));
  EXPECT_NE(message.find("of 'stray' is no case"), std::string::npos)
      << message;
}

// Every primitive a derivation emits is in the one table of ids, and what
// selective recompute clones is exactly the table's attention core.
TEST(BlockWorkStructure, EveryPrimitiveIsInTheTable) {
  llvm::ArrayRef<llvm::StringLiteral> table = primitive::all();
  llvm::StringSet<> distinct;
  for (llvm::StringRef id : table)
    EXPECT_TRUE(distinct.insert(id).second) << "'" << id.str() << "' twice";
  forEachConfiguration([&](const GptShape &shape, int64_t t, TPCommMode mode,
                           RecomputePolicy policy) {
    ModelSpec model = gptModel(shape);
    TrainingSpec training = trainingFor(shape.microBatch);
    MappingSpec mapping = mappingFor(t, mode, policy);
    std::string where = label(model, mapping);
    for (const BlockWork &work :
         {derive(model, training, mapping),
          cantFail(deriveOptimizerWork(model, training, mapping))})
      for (const Invocation &invocation : work.invocations) {
        EXPECT_TRUE(llvm::is_contained(table, invocation.primitive))
            << where << ": '" << invocation.primitive << "'";
        if (invocation.phase == Phase::Recompute &&
            policy == RecomputePolicy::Selective) {
          EXPECT_TRUE(primitive::isAttentionCore(invocation.primitive))
              << where << ": '" << invocation.primitive << "'";
        }
      }
  });
}

// Each participant reads its input buffer and writes its output buffer:
// all-reduce M and M, reduce-scatter M and M/n, all-gather M/n and M. Every
// derived collective satisfies it, and a mismatch is named.
TEST(BlockWorkCollectives, BytesFitTheMessage) {
  forEachConfiguration([](const GptShape &shape, int64_t t, TPCommMode mode,
                          RecomputePolicy policy) {
    ModelSpec model = gptModel(shape);
    TrainingSpec training = trainingFor(shape.microBatch);
    MappingSpec mapping = mappingFor(t, mode, policy);
    for (const BlockWork &work :
         {derive(model, training, mapping),
          cantFail(deriveOptimizerWork(model, training, mapping))})
      for (const Invocation &invocation : work.invocations) {
        if (!invocation.collective)
          continue;
        EXPECT_EQ(collectiveBytesViolation(*invocation.collective,
                                           invocation.readBytes(),
                                           invocation.writeBytes()),
                  std::nullopt)
            << label(model, mapping) << " " << invocation.primitive;
      }
  });
  CollectiveFacts gather{CollectiveKind::AllGather, ReductionKind::None, 4, 64};
  EXPECT_EQ(collectiveBytesViolation(gather, 16, 64), std::nullopt);
  EXPECT_EQ(collectiveBytesViolation(gather, 64, 64),
            "all_gather of message 64 over 4 participants: each reads 16 "
            "bytes and writes 64, but this one reads 64 and writes 64");
  CollectiveFacts scatter{CollectiveKind::ReduceScatter, ReductionKind::Sum, 4,
                          64};
  EXPECT_EQ(collectiveBytesViolation(scatter, 64, 16), std::nullopt);
  EXPECT_NE(collectiveBytesViolation(scatter, 64, 64), std::nullopt);
  CollectiveFacts reduce{CollectiveKind::AllReduce, ReductionKind::Sum, 4, 64};
  EXPECT_EQ(collectiveBytesViolation(reduce, 64, 64), std::nullopt);
  EXPECT_NE(collectiveBytesViolation(reduce, 64, 16), std::nullopt);
}

// A boundary's bytes per rank: its global bytes over the shards its TP split
// makes; an overflow or an uneven split is an error, never a wrapped or
// truncated size.
TEST(BlockWorkBoundaries, BytesPerRank) {
  BoundaryTensor x{
      "x", BoundaryRole::ActivationIn, {2, 32, 64}, DataType::BF16, 1};
  EXPECT_EQ(cantFail(bytesPerRank(x, 4)), 2 * 32 * 64 * 2 / 4);
  BoundaryTensor gamma{
      "g", BoundaryRole::Parameter, {64}, DataType::F32, std::nullopt};
  EXPECT_EQ(cantFail(bytesPerRank(gamma, 4)), 64 * 4);
  EXPECT_EQ(llvm::toString(
                shardBytes({int64_t(1) << 40, int64_t(1) << 40}, 2, 1, "huge")
                    .takeError()),
            "shardBytes: 64-bit overflow computing huge bytes");
  EXPECT_EQ(llvm::toString(shardBytes({6}, 1, 4, "odd").takeError()),
            "shardBytes: odd of 6 bytes does not split into 4 shards");
}

// Multi-head latent attention under a sliding window of w keys: the scores
// hold w keys per query, so QK^T is 2 b a s w d and probs x V 2 b a s w d_v;
// a decode step past the window attends to the rolling buffer's w cached
// latents.
TEST(BlockWorkVariants, LatentAttentionUnderASlidingWindow) {
  const int64_t b = 2, s = 32, a = 8, d = 24, dv = 12, rkv = 32, dr = 8, w = 16;
  ModelSpec model = latentModel(/*queryLatent=*/true);
  model.attentionWindow = w;
  BlockWork work =
      derive(model, trainingFor(b),
             mappingFor(1, TPCommMode::AllReduce, RecomputePolicy::None));
  const Invocation *scores = work.find("qk_matmul", Phase::Forward);
  const Invocation *context = work.find("attn_v_matmul", Phase::Forward);
  ASSERT_NE(scores, nullptr);
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(scores->ops, 2 * b * a * s * w * d);
  EXPECT_EQ(context->ops, 2 * b * a * s * w * dv);

  InferenceSpec inference;
  inference.batch = b;
  inference.promptLength = 20;
  inference.generatedTokens = 8;
  BlockWork step = cantFail(deriveInferenceDecodeStep(
      model, inference,
      mappingFor(1, TPCommMode::AllReduce, RecomputePolicy::None), 25));
  const Invocation *decodeScores = step.find("qk_matmul", Phase::Decode);
  ASSERT_NE(decodeScores, nullptr);
  EXPECT_EQ(decodeScores->ops, 2 * b * a * w * (rkv + dr));
}

// Multi-head latent attention's boundary parameters are its tensors, the
// down-projections and latent norms duplicated on every TP rank: over the
// ranks' shards they hold exactly blockParametersPerRank. Served, the block
// keeps one compressed cache of kv_lora_rank + qk_rope_head_dim per
// position, which no TP split divides.
TEST(BlockWorkBoundaries, LatentAttentionParameters) {
  for (bool queryLatent : {true, false})
    for (int64_t t : {1, 2, 4}) {
      ModelSpec model = latentModel(queryLatent);
      MappingSpec mapping = mappingFor(
          t, t > 1 ? TPCommMode::ReduceScatterAllGather : TPCommMode::AllReduce,
          RecomputePolicy::None);
      SCOPED_TRACE(label(model, mapping));
      std::vector<BoundaryTensor> tensors =
          cantFail(blockBoundaries(model, trainingFor(2), mapping));
      int64_t parameterBytes = 0;
      std::set<std::string> names;
      for (const BoundaryTensor &tensor : tensors)
        if (tensor.role == BoundaryRole::Parameter) {
          parameterBytes += cantFail(bytesPerRank(tensor, t));
          names.insert(tensor.name);
        }
      EXPECT_EQ(parameterBytes,
                2 * cantFail(blockParametersPerRank(model, mapping)));
      EXPECT_EQ(names.count("w_q_a"), queryLatent ? 1u : 0u);
      EXPECT_EQ(names.count("w_q"), queryLatent ? 0u : 1u);
      EXPECT_EQ(names.count("w_qkv"), 0u);

      InferenceSpec inference;
      inference.batch = 4;
      inference.promptLength = 10;
      inference.generatedTokens = 6;
      MappingSpec serving =
          mappingFor(t, TPCommMode::AllReduce, RecomputePolicy::None);
      std::vector<BoundaryTensor> served =
          cantFail(inferenceBoundaries(model, inference, serving));
      std::vector<const BoundaryTensor *> caches;
      for (const BoundaryTensor &tensor : served)
        if (tensor.role == BoundaryRole::KVCache)
          caches.push_back(&tensor);
      ASSERT_EQ(caches.size(), 1u);
      EXPECT_EQ(caches.front()->name, "kv_cache");
      EXPECT_EQ(caches.front()->shape,
                (std::vector<int64_t>{4, 10 + 6 - 1, 32 + 8}));
      EXPECT_EQ(cantFail(bytesPerRank(*caches.front(), t)), 4 * 15 * 40 * 2);
    }
}

TEST(BlockWorkDiagnostics, SpecThatDoesNotComposeIsRejected) {
  ModelSpec model = gptModel(kShapes[4]);
  model.heads = 6; // not divisible by tp = 4
  model.kvHeads = 6;
  llvm::Expected<BlockWork> work = deriveBlockWork(
      model, trainingFor(2),
      mappingFor(4, TPCommMode::AllReduce, RecomputePolicy::None));
  ASSERT_FALSE(static_cast<bool>(work));
  std::string message = llvm::toString(work.takeError());
  EXPECT_NE(message.find("decoder_training_c4"), std::string::npos) << message;

  ModelSpec valid = gptModel(kShapes[4]);
  MappingSpec unsplittable =
      mappingFor(8, TPCommMode::ReduceScatterAllGather, RecomputePolicy::None);
  valid.seqLength = 12; // not divisible by tp = 8 under SP
  valid.maxPositions = 12;
  llvm::Expected<BlockWork> sequence =
      deriveBlockWork(valid, trainingFor(2), unsplittable);
  ASSERT_FALSE(static_cast<bool>(sequence));
  message = llvm::toString(sequence.takeError());
  EXPECT_NE(message.find("decoder_training_c9"), std::string::npos) << message;
}

TEST(BlockWorkDiagnostics, Spellings) {
  EXPECT_EQ(stringifyEnum(Phase::Forward), "forward");
  EXPECT_EQ(stringifyEnum(Phase::Recompute), "recompute");
  EXPECT_EQ(stringifyEnum(Phase::ActivationGrad), "activation_grad");
  EXPECT_EQ(stringifyEnum(Phase::WeightGrad), "weight_grad");
  EXPECT_EQ(stringifyEnum(Phase::Optimizer), "optimizer");
  EXPECT_EQ(stringifyEnum(Phase::Recommunication), "recommunication");
  EXPECT_EQ(stringifyEnum(Engine::Matmul), "matmul");
  EXPECT_EQ(stringifyEnum(Engine::Vector), "vector");
  EXPECT_EQ(stringifyEnum(Engine::Collective), "collective");
  EXPECT_EQ(stringifyEnum(CollectiveKind::AllReduce), "all_reduce");
  EXPECT_EQ(stringifyEnum(CollectiveKind::ReduceScatter), "reduce_scatter");
  EXPECT_EQ(stringifyEnum(CollectiveKind::AllGather), "all_gather");
  EXPECT_EQ(stringifyEnum(ReductionKind::Sum), "sum");
  EXPECT_EQ(stringifyEnum(ReductionKind::None), "none");
  EXPECT_EQ(stringifyEnum(Cadence::PerMicroBatch), "per_micro_batch");
  EXPECT_EQ(stringifyEnum(Cadence::PerIteration), "per_iteration");
}

// A model whose blocks mix kinds counts each kind's parameters: its dense
// blocks as the same model without experts (the dense MLP of ffn_hidden),
// its MoE blocks as the same model with experts in every block; without a
// kind, the count is the MoE block's (representativeBlockKind).
TEST(BlockParameters, MixedBlockKindsCountEachKind) {
  ModelSpec model = gptModel(kShapes[4]);
  model.linearBias = LinearBias::None;
  MappingSpec mapping =
      mappingFor(2, TPCommMode::AllReduce, RecomputePolicy::None);
  llvm::Expected<int64_t> dense = blockParametersPerRank(model, mapping);
  ASSERT_TRUE(static_cast<bool>(dense)) << llvm::toString(dense.takeError());
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = model.ffnHidden / 2;
  model.moe = moe;
  llvm::Expected<int64_t> uniform = blockParametersPerRank(model, mapping);
  ASSERT_TRUE(static_cast<bool>(uniform))
      << llvm::toString(uniform.takeError());
  model.moe->firstDenseBlocks = 1;
  for (BlockKind kind : {BlockKind::Dense, BlockKind::Expert}) {
    llvm::Expected<int64_t> count =
        blockParametersPerRank(model, kind, mapping);
    ASSERT_TRUE(static_cast<bool>(count)) << llvm::toString(count.takeError());
    EXPECT_EQ(*count, kind == BlockKind::Dense ? *dense : *uniform);
  }
  llvm::Expected<int64_t> representative =
      blockParametersPerRank(model, mapping);
  ASSERT_TRUE(static_cast<bool>(representative));
  EXPECT_EQ(*representative, *uniform);
}

// WorkSummary::addScaled skips a term whose totals are all zero: a term with
// any one field non-zero must not be skipped.
TEST(WorkSummaryTest, AddScaledSkipsOnlyAllZeroTerms) {
  constexpr std::array<int64_t WorkTotals::*, 7> fields = {
      &WorkTotals::invocations,  &WorkTotals::ops,
      &WorkTotals::readBytes,    &WorkTotals::writeBytes,
      &WorkTotals::messageBytes, &WorkTotals::minimumTransferBytes,
      &WorkTotals::stashBytes};
  static_assert(fields.size() * sizeof(int64_t) == sizeof(WorkTotals),
                "this test lists every field of WorkTotals");
  EXPECT_TRUE(WorkTotals().isZero());
  for (int64_t WorkTotals::*field : fields) {
    WorkTotals totals;
    totals.*field = 1;
    EXPECT_FALSE(totals.isZero());
  }

  // An invocation with only stash bytes: every total but the invocation
  // count and the stash is zero, and both are scaled.
  InvocationFigures figures;
  figures.primitive = "stash_only";
  figures.phase = Phase::Forward;
  figures.engine = Engine::Vector;
  figures.stashBytes = 5;
  WorkSummary once;
  ASSERT_FALSE(static_cast<bool>(once.add(figures)));
  WorkSummary scaled;
  ASSERT_FALSE(static_cast<bool>(scaled.addScaled(once, 3, "test")));
  for (const WorkTotals *totals :
       {&scaled.total(), &scaled.of(Phase::Forward), &scaled.of(Engine::Vector),
        &scaled.at(Phase::Forward, Engine::Vector)}) {
    EXPECT_EQ(totals->invocations, 1 * 3);
    EXPECT_EQ(totals->stashBytes, 5 * 3);
    EXPECT_EQ(totals->ops, 0);
  }
  // Every other cell stays zero.
  EXPECT_TRUE(scaled.at(Phase::Forward, Engine::Collective).isZero());
}

} // namespace

//===----------------------------------------------------------------------===//
// BlockWorkMemo
//===----------------------------------------------------------------------===//

namespace {

/// memo.of(...) for a block of `kind` of `run`; its error fails the test.
std::shared_ptr<const BlockWork> memoized(BlockWorkMemo &memo,
                                          const blueprint::test::RunSpecs &run,
                                          BlockKind kind = BlockKind::Dense) {
  std::shared_ptr<const BlockWork> work = blueprint::test::valueOrFail(
      memo.of(run.model, kind, run.training, run.mapping));
  EXPECT_NE(work, nullptr);
  return work;
}

/// deriveBlockWork for a block of `kind` of `run`.
BlockWork derived(const blueprint::test::RunSpecs &run,
                  BlockKind kind = BlockKind::Dense) {
  return blueprint::test::valueOrFail(
      deriveBlockWork(run.model, kind, run.training, run.mapping));
}

} // namespace

// Runs that differ only in axes the key omits (pp, the virtual stages, the
// schedule, dp at ep = 1, ZeRO, the buckets, the overlaps) share one
// derivation: the hit hands out the same work, not a copy, and it is what
// each run's own derivation gives.
TEST(BlockWorkMemo, SharesAcrossTheAxesABlockDoesNotRead) {
  using blueprint::test::smallRun;
  BlockWorkMemo memo;
  blueprint::test::RunSpecs first =
      smallRun(PipelineSchedule::OneFOneB, /*pp=*/2, /*microbatches=*/4);
  std::shared_ptr<const BlockWork> work = memoized(memo, first);
  EXPECT_EQ(memo.shared(), 0u);
  EXPECT_EQ(work->invocations, derived(first).invocations);

  blueprint::test::RunSpecs other =
      smallRun(PipelineSchedule::Interleaved1F1B, /*pp=*/4, /*microbatches=*/8);
  other.mapping.dp = 4;
  other.mapping.world = 2 * 4 * 4;
  other.training.globalBatch = 2 * 4 * 8;
  other.mapping.zeroStage = 1;
  other.mapping.bucketBytes = 4096;
  other.mapping.overlapDPGradReduce = true;
  other.mapping.overlapTPComm = true;
  other.mapping.overlapP2PComm = true;
  EXPECT_EQ(memoized(memo, other), work);
  EXPECT_EQ(memo.shared(), 1u);
  EXPECT_EQ(derived(other).invocations, work->invocations);
}

// Runs that differ in an axis the key holds get their own derivation, and
// a different work (another object, with other invocations): the key is not
// coarser than what the block reads. One
// row per part of the key (each of them changes the small run's work), and
// two of the model's fields besides its width, so that dropping any of
// them from the key or from the model's comparison fails here.
TEST(BlockWorkMemo, DerivesAgainForTheAxesABlockReads) {
  using blueprint::test::RunSpecs;
  using blueprint::test::smallRun;
  using blueprint::test::withExperts;
  BlockWorkMemo memo;
  RunSpecs base = smallRun(PipelineSchedule::OneFOneB, /*pp=*/2,
                           /*microbatches=*/4);
  RunSpecs contextParallel = base;
  contextParallel.mapping.cp = 2;
  contextParallel.mapping.world = 2 * 2 * 2 * 2;
  RunSpecs experts = withExperts(base, /*ep=*/2);
  // Experts over 2 of 4 data-parallel ranks: another ep keeps dp (which the
  // key holds at ep != 1) and changes ep alone.
  RunSpecs expertsOnWiderData = experts;
  expertsOnWiderData.mapping.dp = 4;
  expertsOnWiderData.mapping.world = 2 * 2 * 4;
  expertsOnWiderData.training.globalBatch = 2 * 4 * 4;

  struct Row {
    const char *axis;
    /// The run the row's differs from in that axis alone.
    const RunSpecs *reference;
    BlockKind referenceKind;
    /// Changes that axis.
    std::function<void(RunSpecs &)> change;
    BlockKind kind = BlockKind::Dense;
  };
  const Row rows[] = {
      {"recompute", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.mapping.recompute = RecomputePolicy::Full; }},
      {"tp_comm", &base, BlockKind::Dense,
       [](RunSpecs &run) {
         run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
       }},
      {"tp", &base, BlockKind::Dense,
       [](RunSpecs &run) {
         run.mapping.tp = 4;
         run.mapping.world = 4 * 2 * 2;
       }},
      {"micro_batch", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.training.microBatch = 1; }},
      {"activation_type", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.training.activationType = DataType::F32; }},
      {"weight_type", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.training.weightType = DataType::F32; }},
      {"gradient_type", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.training.gradientType = DataType::BF16; }},
      {"attention_dropout", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.training.attentionDropout = false; }},
      {"hidden_dropout", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.training.hiddenDropout = false; }},
      {"cp", &base, BlockKind::Dense,
       [](RunSpecs &run) {
         run.mapping.cp = 2;
         run.mapping.world = 2 * 2 * 2 * 2;
       }},
      {"cp_comm", &contextParallel, BlockKind::Dense,
       [](RunSpecs &run) { run.mapping.cpComm = CPCommMode::AllGather; }},
      {"the model's width", &base, BlockKind::Dense,
       [](RunSpecs &run) {
         run.model.hidden = 128;
         run.model.headDim = 32;
       }},
      {"the model's attention window", &base, BlockKind::Dense,
       [](RunSpecs &run) { run.model.attentionWindow = 16; }},
      {"the block kind", &experts, BlockKind::Dense, [](RunSpecs &) {},
       BlockKind::Expert},
      {"ep", &expertsOnWiderData, BlockKind::Expert,
       [](RunSpecs &run) { run.mapping.ep = 4; }, BlockKind::Expert},
      {"the experts per token", &experts, BlockKind::Expert,
       [](RunSpecs &run) { run.model.moe->expertsPerToken = 1; },
       BlockKind::Expert},
  };
  // Held across the rows, in which the memo forgets it.
  std::shared_ptr<const BlockWork> first = memoized(memo, base);
  for (const Row &row : rows) {
    std::shared_ptr<const BlockWork> reference =
        memoized(memo, *row.reference, row.referenceKind);
    RunSpecs run = *row.reference;
    row.change(run);
    size_t shared = memo.shared();
    std::shared_ptr<const BlockWork> own = memoized(memo, run, row.kind);
    EXPECT_EQ(memo.shared(), shared) << row.axis;
    EXPECT_NE(own, reference) << row.axis;
    // Compared as a whole (a failure names the axis, not the bytes).
    EXPECT_TRUE(own->invocations == derived(run, row.kind).invocations)
        << row.axis;
    EXPECT_TRUE(own->invocations != reference->invocations) << row.axis;
  }
  // Back to the first model after the experts': its entries were
  // forgotten with the model, so it is derived again, into a new work; a
  // work handed out before stays whole while its holder keeps it.
  size_t shared = memo.shared();
  std::shared_ptr<const BlockWork> again = memoized(memo, base);
  EXPECT_EQ(memo.shared(), shared);
  EXPECT_NE(again, first);
  EXPECT_EQ(again->invocations, derived(base).invocations);
  EXPECT_EQ(first->invocations, again->invocations);
}

// With experts at ep > 1 the key holds dp (the expert-parallel shape stores
// dp / ep, though no invocation reads it: the key errs finer, never
// coarser): a run at another dp is derived again, and gets its own work; a
// composition error is the one deriveBlockWork reports.
TEST(BlockWorkMemo, ExpertParallelKeysDataParallel) {
  using blueprint::test::smallRun;
  using blueprint::test::withExperts;
  BlockWorkMemo memo;
  blueprint::test::RunSpecs base = withExperts(
      smallRun(PipelineSchedule::OneFOneB, /*pp=*/2, /*microbatches=*/4),
      /*ep=*/2);
  std::shared_ptr<const BlockWork> narrow =
      memoized(memo, base, BlockKind::Expert);
  EXPECT_EQ(narrow->invocations, derived(base, BlockKind::Expert).invocations);
  blueprint::test::RunSpecs wider = base;
  wider.mapping.dp = 4;
  wider.mapping.world = 2 * 2 * 4;
  wider.training.globalBatch = 2 * 4 * 4;
  std::shared_ptr<const BlockWork> own =
      memoized(memo, wider, BlockKind::Expert);
  EXPECT_EQ(own->invocations, derived(wider, BlockKind::Expert).invocations);
  EXPECT_NE(own, narrow);
  EXPECT_EQ(memo.shared(), 0u);
  blueprint::test::RunSpecs broken = base;
  broken.mapping.world = 5;
  llvm::Expected<std::shared_ptr<const BlockWork>> failed =
      memo.of(broken.model, BlockKind::Expert, broken.training, broken.mapping);
  llvm::Expected<BlockWork> expected = deriveBlockWork(
      broken.model, BlockKind::Expert, broken.training, broken.mapping);
  ASSERT_FALSE(failed);
  ASSERT_FALSE(expected);
  EXPECT_EQ(llvm::toString(failed.takeError()),
            llvm::toString(expected.takeError()));
}
