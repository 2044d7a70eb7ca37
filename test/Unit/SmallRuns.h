//===- SmallRuns.h - The small whole runs the unit tests derive -*- C++ -*-===//
//
// The 8-block model of docs/WholeRun.md's examples on tp 2, dp 2: small
// enough to derive a run in microseconds, large enough for every schedule,
// layout and ZeRO stage to differ; the tests' unwrapping of results; and
// the profile they cost on.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_TEST_UNIT_SMALLRUNS_H
#define BLUEPRINT_TEST_UNIT_SMALLRUNS_H

#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <optional>
#include <string>

namespace blueprint::test {

struct RunSpecs {
  workload::ModelSpec model;
  workload::TrainingSpec training;
  workload::MappingSpec mapping;
};

/// The small model under `schedule` on pp stages (two model chunks per
/// stage when interleaved), tp 2, dp 2, with `microbatches` micro-batches
/// of 2 sequences per DP rank and fp32 gradients.
inline RunSpecs smallRun(workload::PipelineSchedule schedule, int64_t pp,
                         int64_t microbatches) {
  RunSpecs run;
  run.model.hidden = 64;
  run.model.heads = 4;
  run.model.kvHeads = 4;
  run.model.headDim = 16;
  run.model.ffnHidden = 256;
  run.model.seqLength = 32;
  run.model.maxPositions = 32;
  run.model.vocab = 128;
  run.model.blocks = 8;
  run.training.microBatch = 2;
  run.training.gradientType = workload::DataType::F32;
  run.mapping.schedule = schedule;
  run.mapping.pp = pp;
  run.mapping.virtualStages =
      schedule == workload::PipelineSchedule::Interleaved1F1B ? 2 : 1;
  run.mapping.tp = 2;
  run.mapping.dp = 2;
  run.mapping.world = 4 * pp;
  run.training.globalBatch = 2 * 2 * microbatches;
  return run;
}

/// `run` as a mixture of experts, its experts over `ep` ranks: 8 experts, 2
/// per token, an expert FFN of 64, RMSNorm, SwiGLU and no linear biases
/// (Megatron-Core's MoE blocks), under sequence parallelism, which a MoE
/// block needs (decoder_moe_c2, and at ep > 1 and tp > 1 the dispatcher).
inline RunSpecs withExperts(RunSpecs run, int64_t ep) {
  workload::MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 64;
  run.model.moe = moe;
  run.model.norm = workload::NormKind::RMSNorm;
  run.model.activation = workload::ActivationKind::SwiGLU;
  run.model.linearBias = workload::LinearBias::None;
  run.mapping.ep = ep;
  run.mapping.tpComm = workload::TPCommMode::ReduceScatterAllGather;
  return run;
}

/// "<schedule> pp=.. v=.. zero=.. m=.." for failure messages.
inline std::string describeRun(const RunSpecs &run) {
  return workload::stringifyEnum(run.mapping.schedule).str() +
         " pp=" + std::to_string(run.mapping.pp) +
         " v=" + std::to_string(run.mapping.virtualStages) +
         " dp=" + std::to_string(run.mapping.dp) +
         " zero=" + std::to_string(run.mapping.zeroStage) + " m=" +
         std::to_string(run.training.globalBatch /
                        (run.training.microBatch * run.mapping.dp));
}

/// The value of `value`, or a default one after recording its error as a
/// test failure.
template <typename T> T valueOrFail(llvm::Expected<T> value) {
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return T();
  }
  return std::move(*value);
}

/// The bundled A100 profile (profiles/a100-80gb.json), loaded once.
inline const estimate::SystemProfile &a100Profile() {
  static const estimate::SystemProfile profile = valueOrFail(
      estimate::loadSystemProfile(BLUEPRINT_PROFILES_DIR "/a100-80gb.json"));
  return profile;
}

/// Multi-head latent attention's dimensions (DeepSeek-V2 Sec. 2.1).
struct LatentDims {
  std::optional<int64_t> qLoraRank;
  int64_t kvLoraRank = 0;
  int64_t qkNopeHeadDim = 0;
  int64_t qkRopeHeadDim = 0;
  int64_t vHeadDim = 0;
};

/// `model` with multi-head latent attention of `dims` and what its rules
/// need (transformer_model_c7-c10): rotary positions, a key/value head per
/// head, head_dim = qk_nope_head_dim + qk_rope_head_dim, no biases.
inline void useLatentAttention(workload::ModelSpec &model,
                               const LatentDims &dims) {
  model.positionEmbedding = workload::PositionEmbedding::Rotary;
  model.linearBias = workload::LinearBias::None;
  model.kvHeads = model.heads;
  model.headDim = dims.qkNopeHeadDim + dims.qkRopeHeadDim;
  model.qLoraRank = dims.qLoraRank;
  model.kvLoraRank = dims.kvLoraRank;
  model.qkNopeHeadDim = dims.qkNopeHeadDim;
  model.qkRopeHeadDim = dims.qkRopeHeadDim;
  model.vHeadDim = dims.vHeadDim;
}

/// DeepSeek-V3's attention (Hugging Face config.json: hidden 7168, 128
/// heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128,
/// qk_rope_head_dim 64, v_head_dim 128) on the dense SwiGLU block of its
/// first three layers (intermediate_size 18432), RMSNorm, 8 blocks.
inline workload::ModelSpec deepSeekV3AttentionModel() {
  workload::ModelSpec model;
  model.hidden = 7168;
  model.heads = 128;
  model.ffnHidden = 18432;
  model.seqLength = 4096;
  model.maxPositions = 4096;
  model.vocab = 129280;
  model.blocks = 8;
  model.norm = workload::NormKind::RMSNorm;
  model.activation = workload::ActivationKind::SwiGLU;
  useLatentAttention(model, {1536, 512, 128, 64, 128});
  return model;
}

} // namespace blueprint::test

#endif // BLUEPRINT_TEST_UNIT_SMALLRUNS_H
