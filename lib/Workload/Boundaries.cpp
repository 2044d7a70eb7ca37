//===- Boundaries.cpp - The tensors crossing a block's boundary -----------===//

#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"
#include "ForwardBuilder.h"

using namespace blueprint::workload;
using namespace blueprint::workload::detail;

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

/// The block's parameters: column-parallel weights split their output
/// dimension, row-parallel weights their input dimension; row-parallel
/// biases and norm parameters are replicated. The biases are those the
/// model's linear_bias keeps.
static std::vector<BoundaryTensor>
blockParameters(const ModelSpec &model, DataType weightType,
                OverflowGuard &guard) {
  // Whole tensors: the columns of a single TP rank.
  RankColumns columns = makeRankColumns(model, /*tp=*/1, guard);
  std::vector<BoundaryTensor> parameters;
  auto add = [&](const char *name, std::vector<int64_t> shape,
                 std::optional<unsigned> split) {
    parameters.push_back(
        {name, BoundaryRole::Parameter, std::move(shape), weightType, split});
  };
  add("norm1_gamma", {model.hidden}, std::nullopt);
  if (model.hasLatentAttention()) {
    for (ParameterTensor &tensor : latentAttentionTensors(model, columns))
      add(tensor.name, std::move(tensor.shape), tensor.split);
  } else {
    add("w_qkv", {model.hidden, columns.qkvCols}, 1);
    if (model.hasQKVBias())
      add("b_qkv", {columns.qkvCols}, 0);
    add("w_out", {columns.qCols, model.hidden}, 0);
  }
  bool projectionBiases = model.hasOutputAndMLPBiases();
  if (projectionBiases)
    add("b_out", {model.hidden}, std::nullopt);
  add("norm2_gamma", {model.hidden}, std::nullopt);
  if (model.moe) {
    // The router duplicated, every expert split like the dense MLP
    // (expert parallelism 1); no MLP biases (decoder_moe_c5).
    int64_t experts = model.moe->experts;
    add("w_router", {model.hidden, experts}, std::nullopt);
    add("w_expert_fc1", {experts, model.hidden, columns.expertFc1Cols}, 2);
    add("w_expert_fc2", {experts, model.moe->expertFfnHidden, model.hidden}, 1);
    if (model.moe->sharedExperts > 0) {
      // One MLP of the shared experts' width, split like the dense MLP.
      add("w_shared_expert_fc1", {model.hidden, columns.sharedFc1Cols}, 1);
      add("w_shared_expert_fc2", {columns.sharedFfnCols, model.hidden}, 0);
    }
  } else {
    add("w_fc1", {model.hidden, columns.fc1Cols}, 1);
    if (projectionBiases)
      add("b_fc1", {columns.fc1Cols}, 0);
    add("w_fc2", {model.ffnHidden, model.hidden}, 0);
    if (projectionBiases)
      add("b_fc2", {model.hidden}, std::nullopt);
  }
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
blueprint::workload::bytesPerRank(const BoundaryTensor &tensor, int64_t tp,
                                  int64_t cp) {
  OverflowGuard guard;
  int64_t shards =
      guard.mul(tensor.tpSplitDim ? tp : 1, tensor.cpSplitDim ? cp : 1,
                tensor.name + " shards");
  if (guard.failed())
    return guard.error("bytesPerRank");
  return shardBytes(tensor.shape, bytesOf(tensor.type), shards, tensor.name);
}

llvm::Expected<std::vector<BoundaryTensor>>
blueprint::workload::blockBoundaries(const ModelSpec &model,
                                     const TrainingSpec &training,
                                     const MappingSpec &mapping) {
  if (llvm::Error error =
          checkTrainingComposes(model, training, mapping, "blockBoundaries"))
    return std::move(error);
  return deriveComposingBlockBoundaries(model, training, mapping);
}

BoundaryTensor blueprint::workload::detail::blockActivationBoundary(
    std::string name, BoundaryRole role, const ModelSpec &model,
    const TrainingSpec &training, const MappingSpec &mapping) {
  bool sequenceParallel = mapping.tpComm == TPCommMode::ReduceScatterAllGather;
  std::optional<unsigned> sequenceDim =
      sequenceParallel ? std::optional<unsigned>(1) : std::nullopt;
  // At cp > 1 each rank holds its s / cp tokens of every activation.
  std::optional<unsigned> contextDim =
      mapping.cp > 1 ? std::optional<unsigned>(1) : std::nullopt;
  return {std::move(name),
          role,
          {training.microBatch, model.seqLength, model.hidden},
          training.activationType,
          sequenceDim,
          contextDim};
}

llvm::Expected<std::vector<BoundaryTensor>>
blueprint::workload::detail::deriveComposingBlockBoundaries(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping) {
  OverflowGuard guard;
  std::vector<BoundaryTensor> tensors;
  auto addActivation = [&](std::string name, BoundaryRole role) {
    tensors.push_back(blockActivationBoundary(std::move(name), role, model,
                                              training, mapping));
  };
  auto add = [&](std::string name, BoundaryRole role,
                 std::vector<int64_t> shape, DataType type,
                 std::optional<unsigned> split) {
    tensors.push_back({std::move(name), role, std::move(shape), type, split});
  };
  addActivation("x", BoundaryRole::ActivationIn);
  addActivation("d_y", BoundaryRole::ActivationGradIn);

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

  addActivation("y", BoundaryRole::ActivationOut);
  addActivation("d_x", BoundaryRole::ActivationGradOut);
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
  // window's under a sliding window: a rolling buffer), laid out as
  // kvCacheLayout says.
  int64_t context = guard.add(inference.promptLength, inference.generatedTokens,
                              "cached positions");
  int64_t positions =
      model.attendedKeys(guard.sub(context, 1, "cached positions"));
  KVCacheLayout cache =
      kvCacheLayout(model, makeRankColumns(model, /*tp=*/1, guard));
  for (const char *name : cache.tensors)
    tensors.push_back({name,
                       BoundaryRole::KVCache,
                       {composition->localBatch, positions, cache.columns},
                       inference.kvCacheType,
                       cache.split});
  if (guard.failed())
    return guard.error("inferenceBoundaries");
  return tensors;
}
