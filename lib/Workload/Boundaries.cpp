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
    return std::nullopt;
  }
  llvm_unreachable("unknown BoundaryRole");
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

  // Parameters: column-parallel weights split their output dimension,
  // row-parallel weights their input dimension; row-parallel biases and norm
  // parameters are replicated.
  int64_t qkvColumns = guard.mul(
      guard.add(model.heads, guard.mul(2, model.kvHeads, "qkv heads"),
                "qkv heads"),
      model.headDim, "qkv columns");
  int64_t attentionWidth = guard.mul(model.heads, model.headDim,
                                     "attention width");
  int64_t fc1Columns =
      model.activation == ActivationKind::SwiGLU
          ? guard.mul(2, model.ffnHidden, "fc1 columns")
          : model.ffnHidden;
  struct Parameter {
    const char *name;
    std::vector<int64_t> shape;
    std::optional<unsigned> split;
  };
  std::vector<Parameter> parameters = {
      {"norm1_gamma", {model.hidden}, std::nullopt},
      {"w_qkv", {model.hidden, qkvColumns}, 1},
      {"b_qkv", {qkvColumns}, 0},
      {"w_out", {attentionWidth, model.hidden}, 0},
      {"b_out", {model.hidden}, std::nullopt},
      {"norm2_gamma", {model.hidden}, std::nullopt},
      {"w_fc1", {model.hidden, fc1Columns}, 1},
      {"b_fc1", {fc1Columns}, 0},
      {"w_fc2", {model.ffnHidden, model.hidden}, 0},
      {"b_fc2", {model.hidden}, std::nullopt}};
  if (model.norm == NormKind::LayerNorm) {
    parameters.push_back({"norm1_beta", {model.hidden}, std::nullopt});
    parameters.push_back({"norm2_beta", {model.hidden}, std::nullopt});
  }
  for (const Parameter &parameter : parameters)
    add(parameter.name, BoundaryRole::Parameter, parameter.shape,
        training.weightType, parameter.split);

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
  for (const Parameter &parameter : parameters)
    add("d_" + std::string(parameter.name), BoundaryRole::ParameterGrad,
        parameter.shape, training.gradientType, parameter.split);

  if (guard.failed())
    return llvm::createStringError("blockBoundaries: %s overflows a 64-bit "
                                   "integer",
                                   guard.overflowedQuantity().str().c_str());
  return tensors;
}
