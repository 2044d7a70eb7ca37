//===- Boundaries.cpp - The tensors crossing a block's boundary -----------===//

#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"

using namespace blueprint::workload;

std::optional<Phase> blueprint::workload::producingPhase(BoundaryRole role) {
  switch (role) {
  case BoundaryRole::ActivationOut:
    return Phase::Forward;
  case BoundaryRole::ActivationGradOut:
    return Phase::ActivationGrad;
  case BoundaryRole::ParameterGrad:
    return Phase::WeightGrad;
  case BoundaryRole::ActivationIn:
  case BoundaryRole::ActivationGradIn:
  case BoundaryRole::Parameter:
  case BoundaryRole::OptimizerState:
  case BoundaryRole::KVCache:
    return std::nullopt;
  }
  llvm_unreachable("unknown BoundaryRole");
}

/// Multi-head latent attention's tensors (BlockWork.cpp,
/// latentAttentionParameters): the down-projections and the latent norms
/// duplicated on every TP rank, the up-projections column-parallel, w_out
/// row-parallel over heads * v_head_dim.
template <typename Add>
static void addLatentAttentionParameters(const ModelSpec &model,
                                         OverflowGuard &guard, Add add) {
  int64_t queryColumns =
      guard.mul(model.heads, model.headDim, "MLA query columns");
  int64_t keyValueHeadWidth = guard.add(*model.qkNopeHeadDim, *model.vHeadDim,
                                        "MLA key/value head width");
  int64_t keyValueColumns =
      guard.mul(model.heads, keyValueHeadWidth, "MLA key/value columns");
  int64_t latentColumns =
      guard.add(*model.kvLoraRank, *model.qkRopeHeadDim, "kv_a output columns");
  int64_t valueColumns =
      guard.mul(model.heads, *model.vHeadDim, "MLA value columns");
  bool layerNorm = model.norm == NormKind::LayerNorm;
  if (model.qLoraRank) {
    add("w_q_a", {model.hidden, *model.qLoraRank}, std::nullopt);
    add("q_a_norm_gamma", {*model.qLoraRank}, std::nullopt);
    if (layerNorm)
      add("q_a_norm_beta", {*model.qLoraRank}, std::nullopt);
    add("w_q_b", {*model.qLoraRank, queryColumns}, 1);
  } else {
    add("w_q", {model.hidden, queryColumns}, 1);
  }
  add("w_kv_a", {model.hidden, latentColumns}, std::nullopt);
  add("kv_a_norm_gamma", {*model.kvLoraRank}, std::nullopt);
  if (layerNorm)
    add("kv_a_norm_beta", {*model.kvLoraRank}, std::nullopt);
  add("w_kv_b", {*model.kvLoraRank, keyValueColumns}, 1);
  add("w_out", {valueColumns, model.hidden}, 0);
}

/// The block's parameters: column-parallel weights split their output
/// dimension, row-parallel weights their input dimension; row-parallel
/// biases and norm parameters are replicated. The biases are those the
/// model's linear_bias keeps.
static std::vector<BoundaryTensor>
blockParameters(const ModelSpec &model, DataType weightType,
                OverflowGuard &guard) {
  int64_t keyValueHeads = guard.mul(2, model.kvHeads, "qkv heads");
  int64_t qkvHeads = guard.add(model.heads, keyValueHeads, "qkv heads");
  int64_t qkvColumns = guard.mul(qkvHeads, model.headDim, "qkv columns");
  int64_t attentionWidth =
      guard.mul(model.heads, model.headDim, "attention width");
  int64_t fc1Columns = model.activation == ActivationKind::SwiGLU
                           ? guard.mul(2, model.ffnHidden, "fc1 columns")
                           : model.ffnHidden;
  std::vector<BoundaryTensor> parameters;
  auto add = [&](const char *name, std::vector<int64_t> shape,
                 std::optional<unsigned> split) {
    parameters.push_back(
        {name, BoundaryRole::Parameter, std::move(shape), weightType, split});
  };
  add("norm1_gamma", {model.hidden}, std::nullopt);
  if (model.hasLatentAttention())
    addLatentAttentionParameters(model, guard, add);
  else {
    add("w_qkv", {model.hidden, qkvColumns}, 1);
    if (model.hasQKVBias())
      add("b_qkv", {qkvColumns}, 0);
    add("w_out", {attentionWidth, model.hidden}, 0);
  }
  bool projectionBiases = model.hasOutputAndMLPBiases();
  if (projectionBiases)
    add("b_out", {model.hidden}, std::nullopt);
  add("norm2_gamma", {model.hidden}, std::nullopt);
  add("w_fc1", {model.hidden, fc1Columns}, 1);
  if (projectionBiases)
    add("b_fc1", {fc1Columns}, 0);
  add("w_fc2", {model.ffnHidden, model.hidden}, 0);
  if (projectionBiases)
    add("b_fc2", {model.hidden}, std::nullopt);
  if (model.norm == NormKind::LayerNorm) {
    add("norm1_beta", {model.hidden}, std::nullopt);
    add("norm2_beta", {model.hidden}, std::nullopt);
  }
  return parameters;
}

llvm::Expected<int64_t>
blueprint::workload::shardBytes(llvm::ArrayRef<int64_t> shape,
                                int64_t elementBytes, int64_t shards,
                                llvm::StringRef what) {
  OverflowGuard guard;
  int64_t bytes = elementBytes;
  for (int64_t size : shape)
    bytes = guard.mul(bytes, size, what + " bytes");
  if (guard.failed())
    return guard.error("shardBytes");
  if (shards <= 0 || bytes % shards != 0)
    return llvm::createStringError(
        ("shardBytes: " + what + " of " + llvm::Twine(bytes) +
         " bytes does not split into " + llvm::Twine(shards) + " shards")
            .str());
  return bytes / shards;
}

llvm::Expected<int64_t>
blueprint::workload::bytesPerRank(const BoundaryTensor &tensor, int64_t tp) {
  return shardBytes(tensor.shape, bytesOf(tensor.type),
                    tensor.tpSplitDim ? tp : 1, tensor.name);
}

llvm::Expected<std::vector<BoundaryTensor>>
blueprint::workload::blockBoundaries(const ModelSpec &model,
                                     const TrainingSpec &training,
                                     const MappingSpec &mapping) {
  if (!composeTraining(model, training, mapping))
    return llvm::createStringError(
        "blockBoundaries: the model, training and mapping do not compose");
  OverflowGuard guard;
  std::vector<BoundaryTensor> tensors;
  bool sequenceParallel = mapping.tpComm == TPCommMode::ReduceScatterAllGather;
  std::optional<unsigned> sequenceDim =
      sequenceParallel ? std::optional<unsigned>(1) : std::nullopt;
  std::vector<int64_t> activationShape = {training.microBatch, model.seqLength,
                                          model.hidden};
  auto add = [&](std::string name, BoundaryRole role,
                 std::vector<int64_t> shape, DataType type,
                 std::optional<unsigned> split) {
    tensors.push_back({std::move(name), role, std::move(shape), type, split});
  };
  add("x", BoundaryRole::ActivationIn, activationShape,
      training.activationType, sequenceDim);
  add("d_y", BoundaryRole::ActivationGradIn, activationShape,
      training.activationType, sequenceDim);

  std::vector<BoundaryTensor> parameters = blockParameters(model, training.weightType, guard);
  for (const BoundaryTensor &parameter : parameters)
    tensors.push_back(parameter);

  // Optimizer state: each rank's flat vector of the block parameters it
  // holds, side by side over the TP ranks.
  llvm::Expected<int64_t> perRank = blockParametersPerRank(model, mapping);
  if (!perRank)
    return perRank.takeError();
  int64_t flat = guard.mul(*perRank, mapping.tp, "optimizer state elements");
  for (const char *state : {"params_master", "adam_m", "adam_v"})
    add(state, BoundaryRole::OptimizerState, {flat},
        training.optimizerStateType, 0);

  add("y", BoundaryRole::ActivationOut, activationShape,
      training.activationType, sequenceDim);
  add("d_x", BoundaryRole::ActivationGradOut, activationShape,
      training.activationType, sequenceDim);
  for (const BoundaryTensor &parameter : parameters)
    add("d_" + parameter.name, BoundaryRole::ParameterGrad, parameter.shape,
        training.gradientType, parameter.tpSplitDim);

  if (guard.failed())
    return guard.error("blockBoundaries");
  return tensors;
}

llvm::Expected<std::vector<BoundaryTensor>>
blueprint::workload::inferenceBoundaries(const ModelSpec &model,
                                         const InferenceSpec &inference,
                                         const MappingSpec &mapping) {
  std::optional<InferenceComposition> composition =
      composeInference(model, inference, mapping);
  if (!composition)
    return llvm::createStringError(
        "inferenceBoundaries: the model, inference and mapping do not "
        "compose");
  OverflowGuard guard;
  std::vector<BoundaryTensor> tensors =
      blockParameters(model, inference.weightType, guard);
  // The cache at the end of the generation: every prompt position and every
  // fed-back token, prompt_length + generated_tokens - 1 positions (the
  // window's under a sliding window: a rolling buffer), each with this
  // block's key/value heads (split over the TP ranks).
  int64_t context = guard.add(inference.promptLength, inference.generatedTokens,
                              "cached positions");
  int64_t positions =
      model.attendedKeys(guard.sub(context, 1, "cached positions"));
  if (model.hasLatentAttention()) {
    // One compressed cache of the normed latent and the rotated shared key,
    // which every head and so every TP rank reads whole.
    int64_t width = guard.add(*model.kvLoraRank, *model.qkRopeHeadDim,
                              "compressed KV-cache width");
    tensors.push_back({"kv_cache",
                       BoundaryRole::KVCache,
                       {composition->localBatch, positions, width},
                       inference.kvCacheType,
                       std::nullopt});
  } else {
    int64_t width = guard.mul(model.kvHeads, model.headDim, "kv width");
    for (const char *cache : {"k_cache", "v_cache"})
      tensors.push_back({cache,
                         BoundaryRole::KVCache,
                         {composition->localBatch, positions, width},
                         inference.kvCacheType,
                         2});
  }
  if (guard.failed())
    return guard.error("inferenceBoundaries");
  return tensors;
}
