//===- Spec.cpp - Contracts and their composition rules -------------------===//
//
// The composition rules of docs/TransformerSpec.md. Each rule has a label
// (`transformer_model_c1`, `decoder_training_c3`, ...) that the diagnostic, the
// documentation and the negative test cite.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Spec.h"

#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/ContextParallel.h"
#include "Blueprint/Workload/ExpertParallel.h"
#include "Blueprint/Workload/Pipeline.h"
#include "Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>
#include <tuple>

#include "Blueprint/Workload/WorkloadEnums.cpp.inc"

using namespace blueprint::workload;

int64_t blueprint::workload::bytesOf(DataType type) {
  switch (type) {
  case DataType::F32:
    return 4;
  case DataType::BF16:
  case DataType::F16:
    return 2;
  case DataType::FP8:
    return 1;
  }
  llvm_unreachable("unknown DataType");
}

using blueprint::workload::detail::RuleSink;

void blueprint::workload::detail::requireTensorParallelSplits(
    RuleSink &sink, const ModelSpec &model, int64_t tp,
    const TensorParallelRuleLabels &labels) {
  sink.requireDivides(model.heads, "heads", tp, "tp", labels.heads);
  sink.requireDivides(model.kvHeads, "kv_heads", tp, "tp", labels.kvHeads);
  sink.requireDivides(model.hidden, "hidden", tp, "tp", labels.hidden);
  sink.requireDivides(model.ffnHidden, "ffn_hidden", tp, "tp",
                      labels.ffnHidden);
  if (!labels.vocab.empty())
    sink.requireDivides(model.vocab, "vocab", tp, "tp", labels.vocab);
  // Every expert is tensor-parallel like the dense MLP (expert parallelism
  // 1): fc1 column-parallel and fc2 row-parallel over expert_ffn_hidden.
  if (model.moe)
    sink.requireDivides(model.moe->expertFfnHidden, "expert_ffn_hidden", tp,
                        "tp", "decoder_moe_c3");
}

void blueprint::workload::detail::requireContextParallelSplits(
    RuleSink &sink, const ModelSpec &model, const MappingSpec &mapping) {
  if (mapping.cp == 1)
    return;
  // Causal load balancing (Megatron-LM get_batch_on_this_cp_rank,
  // TransformerEngine's ring attention): 2 * cp equal chunks, rank i holding
  // chunks i and 2 * cp - 1 - i.
  OverflowGuard guard;
  int64_t chunks = guard.mul(2, mapping.cp, "2 * cp");
  if (guard.failed())
    sink.fail("context_parallel_c1", "2 * cp overflows a 64-bit integer");
  else
    sink.requireDivides(model.seqLength, "seq_length", chunks,
                        "2 * cp (the load-balanced chunks)",
                        "context_parallel_c1");
  // Megatron allows sequence parallelism with context parallelism: the SP
  // shard is 1/tp of each CP rank's seq_length / cp tokens.
  if (!guard.failed() && mapping.tpComm == TPCommMode::ReduceScatterAllGather &&
      model.seqLength % chunks == 0)
    sink.requireDivides(model.seqLength / mapping.cp,
                        "seq_length / cp (tp_comm = "
                        "reduce_scatter_all_gather)",
                        mapping.tp, "tp", "context_parallel_c2");
  sink.require(!model.attentionWindow, "context_parallel_c3",
               "cp = " + llvm::Twine(mapping.cp) + " with attention_window = " +
                   llvm::Twine(model.attentionWindow.value_or(0)) +
                   ": context parallelism is defined for full causal "
                   "attention; a sliding window needs cp = 1");
}

void blueprint::workload::detail::requireExpertParallelSplits(
    RuleSink &sink, const ModelSpec &model, const MappingSpec &mapping) {
  if (mapping.ep == 1)
    return;
  // Megatron-LM needs ep | dp * cp (parallel_state.initialize_model_parallel:
  // expert_data_parallel_size = dp * cp / ep for expert_tp = tp); with cp = 1
  // (expert_parallel_c5) that is ep | dp: the mesh splits dp into edp x ep.
  sink.requireDivides(mapping.dp, "dp", mapping.ep, "ep", "expert_parallel_c1");
  // Megatron folds cp into the expert grid (its expert RankGenerator has
  // cp = 1, so an EP group takes the CP ranks first); a mesh with cp as its
  // own axis would place the EP groups elsewhere, and with them the network
  // tier the estimate costs the all-to-alls on.
  sink.require(mapping.cp == 1, "expert_parallel_c5",
               "ep = " + llvm::Twine(mapping.ep) +
                   " with cp = " + llvm::Twine(mapping.cp) +
                   ": Megatron-LM places expert-parallel groups over the "
                   "context-parallel ranks first, which the mesh [pp, edp, "
                   "ep, tp] does not model; expert parallelism needs cp = 1");
  sink.require(model.moe.has_value(), "expert_parallel_c2",
               "ep = " + llvm::Twine(mapping.ep) +
                   " needs a model with experts (moe): expert parallelism "
                   "splits the experts of the MoE layers");
  // Each EP rank holds E / ep whole experts (Megatron-Core
  // MoELayer: num_local_experts = num_moe_experts / ep_size).
  if (model.moe)
    sink.requireDivides(model.moe->experts, "experts", mapping.ep, "ep",
                        "expert_parallel_c3");
}

namespace {

/// One optional dimension of multi-head latent attention, by its contract
/// name.
struct LatentAttentionField {
  const char *name = "";
  std::optional<int64_t> value = std::nullopt;
  /// Whether MLA is undefined without it (every field but q_lora_rank,
  /// whose absence is a plain query projection).
  bool required = false;
};

std::array<LatentAttentionField, 5>
latentAttentionFields(const ModelSpec &model) {
  return {{{"q_lora_rank", model.qLoraRank, false},
           {"kv_lora_rank", model.kvLoraRank, true},
           {"qk_nope_head_dim", model.qkNopeHeadDim, true},
           {"qk_rope_head_dim", model.qkRopeHeadDim, true},
           {"v_head_dim", model.vHeadDim, true}}};
}

/// transformer_model_c6-c10: an MLA model gives its four defining
/// dimensions together, and the rest of the model agrees with DeepSeek-V2's
/// definition (Sec. 2.1): rotary positions on a decoupled key, one key and
/// value per query head, head_dim the query/key width, no biases.
void checkLatentAttention(RuleSink &sink, const ModelSpec &model) {
  if (std::optional<RuleViolation> partial =
          checkLatentAttentionFields(model)) {
    sink.fail(partial->rule, partial->message);
    return;
  }
  if (!model.hasLatentAttention())
    return;
  sink.require(model.positionEmbedding == PositionEmbedding::Rotary,
               "transformer_model_c7",
               "multi-head latent attention (kv_lora_rank) needs "
               "position_embedding = rotary, got " +
                   stringifyEnum(model.positionEmbedding) +
                   ": its positions are the decoupled rotary query and key");
  sink.require(model.kvHeads == model.heads, "transformer_model_c8",
               "multi-head latent attention (kv_lora_rank) needs kv_heads = "
               "heads, got kv_heads = " +
                   llvm::Twine(model.kvHeads) +
                   " and heads = " + llvm::Twine(model.heads) +
                   ": every head's key and value come from the shared latent");
  std::optional<int64_t> queryKeyWidth =
      llvm::checkedAdd(*model.qkNopeHeadDim, *model.qkRopeHeadDim);
  if (!queryKeyWidth)
    sink.fail("transformer_model_c9",
              "qk_nope_head_dim + qk_rope_head_dim overflows a 64-bit "
              "integer");
  else
    sink.require(model.headDim == *queryKeyWidth, "transformer_model_c9",
                 "head_dim = " + llvm::Twine(model.headDim) +
                     " differs from qk_nope_head_dim + qk_rope_head_dim = " +
                     llvm::Twine(*model.qkNopeHeadDim) + " + " +
                     llvm::Twine(*model.qkRopeHeadDim) + " = " +
                     llvm::Twine(*queryKeyWidth) +
                     ", the query/key head width of multi-head latent "
                     "attention");
  sink.require(model.linearBias == LinearBias::None, "transformer_model_c10",
               "multi-head latent attention (kv_lora_rank) needs linear_bias "
               "= none, got " +
                   stringifyEnum(model.linearBias) +
                   ": DeepSeek's projections carry no bias");
}

} // namespace

std::vector<RuleViolation>
blueprint::workload::checkModel(const ModelSpec &model) {
  RuleSink sink;
  const char *positive = "transformer_model_c1";
  sink.requirePositive(model.hidden, "hidden", positive);
  sink.requirePositive(model.heads, "heads", positive);
  sink.requirePositive(model.kvHeads, "kv_heads", positive);
  sink.requirePositive(model.headDim, "head_dim", positive);
  sink.requirePositive(model.ffnHidden, "ffn_hidden", positive);
  sink.requirePositive(model.seqLength, "seq_length", positive);
  sink.requirePositive(model.maxPositions, "max_positions", positive);
  sink.requirePositive(model.vocab, "vocab", positive);
  sink.requirePositive(model.blocks, "blocks", positive);
  if (model.attentionWindow)
    sink.requirePositive(*model.attentionWindow, "attention_window", positive);
  for (const LatentAttentionField &field : latentAttentionFields(model))
    if (field.value)
      sink.requirePositive(*field.value, field.name, positive);
  if (!sink.empty())
    return sink.take();
  // Grouped-query attention shares each key/value head among an equal number
  // of query heads.
  sink.requireDivides(model.heads, "heads", model.kvHeads, "kv_heads",
                      "transformer_model_c2");
  sink.require(model.seqLength <= model.maxPositions, "transformer_model_c3",
               "seq_length = " + llvm::Twine(model.seqLength) +
                   " exceeds max_positions = " +
                   llvm::Twine(model.maxPositions));
  if (model.attentionWindow)
    sink.require(
        *model.attentionWindow <= model.maxPositions, "transformer_model_c5",
        "attention_window = " + llvm::Twine(*model.attentionWindow) +
            " exceeds max_positions = " + llvm::Twine(model.maxPositions) +
            ": a window longer than every sequence never slides");
  checkLatentAttention(sink, model);
  if (model.moe)
    sink.append(checkMixtureOfExperts(*model.moe, model.blocks));
  return sink.take();
}

int64_t MixtureOfExperts::expertBlocks(int64_t blocks) const {
  if (firstDenseBlocks < 0 || layerFrequency <= 0 || firstDenseBlocks >= blocks)
    return 0;
  // Multiples of layerFrequency in [firstDenseBlocks, blocks - 1]: those up
  // to blocks - 1 minus those below firstDenseBlocks.
  int64_t below = firstDenseBlocks / layerFrequency +
                  (firstDenseBlocks % layerFrequency != 0 ? 1 : 0);
  return (blocks - 1) / layerFrequency + 1 - below;
}

/// The router rules transformer_model_c17 to c19 (docs/TransformerSpec.md,
/// "Mixture-of-experts"): DeepSeek-V3's group-limited routing scores each of
/// the router_groups groups by the sum of its two best biased scores, keeps
/// the router_groups_per_token best groups and picks the k experts among
/// theirs (transformers' DeepseekV3TopkRouter.get_topk_indices).
static void checkRouter(RuleSink &sink, const MixtureOfExperts &moe) {
  const char *positive = "transformer_model_c17";
  sink.requirePositive(moe.routerGroups, "router_groups", positive);
  sink.requirePositive(moe.routerGroupsPerToken, "router_groups_per_token",
                       positive);
  if (moe.routerGroups <= 0 || moe.routerGroupsPerToken <= 0)
    return;
  if (moe.router == RouterKind::SoftmaxTopK) {
    sink.require(
        moe.routerGroups == 1 && moe.routerGroupsPerToken == 1, positive,
        "router = softmax_topk has no expert groups: router_groups "
        "= " +
            llvm::Twine(moe.routerGroups) + " and router_groups_per_token = " +
            llvm::Twine(moe.routerGroupsPerToken) + " must be 1");
    return;
  }
  if (moe.experts < 2 || moe.expertsPerToken <= 0)
    return;
  const char *groups = "transformer_model_c18";
  sink.require(moe.experts % moe.routerGroups == 0 &&
                   moe.experts / moe.routerGroups >= 2,
               groups,
               "router_groups = " + llvm::Twine(moe.routerGroups) +
                   " must divide experts = " + llvm::Twine(moe.experts) +
                   " into groups of at least 2 experts: a group's score is "
                   "the sum of its two best scores");
  sink.require(
      moe.routerGroupsPerToken <= moe.routerGroups, groups,
      "router_groups_per_token = " + llvm::Twine(moe.routerGroupsPerToken) +
          " exceeds router_groups = " + llvm::Twine(moe.routerGroups));
  if (!sink.empty())
    return;
  // groups_per_token <= groups and groups * (E / groups) = E: no overflow.
  int64_t candidates =
      moe.routerGroupsPerToken * (moe.experts / moe.routerGroups);
  sink.require(moe.expertsPerToken <= candidates, "transformer_model_c19",
               "experts_per_token = " + llvm::Twine(moe.expertsPerToken) +
                   " exceeds the " + llvm::Twine(candidates) +
                   " experts of the router_groups_per_token = " +
                   llvm::Twine(moe.routerGroupsPerToken) +
                   " selected groups of " +
                   llvm::Twine(moe.experts / moe.routerGroups) + " experts");
}

std::vector<RuleViolation>
blueprint::workload::checkMixtureOfExperts(const MixtureOfExperts &moe,
                                           int64_t blocks) {
  RuleSink sink;
  sink.require(moe.experts >= 2, "transformer_model_c11",
               "experts must be at least 2 (one expert is a dense MLP), got " +
                   llvm::Twine(moe.experts));
  sink.requirePositive(moe.expertsPerToken, "experts_per_token",
                       "transformer_model_c12");
  if (moe.expertsPerToken > 0 && moe.experts >= 2)
    sink.require(moe.expertsPerToken <= moe.experts, "transformer_model_c13",
                 "experts_per_token = " + llvm::Twine(moe.expertsPerToken) +
                     " exceeds experts = " + llvm::Twine(moe.experts) +
                     ": top-k routing picks k distinct experts");
  const char *sizes = "transformer_model_c14";
  sink.requirePositive(moe.expertFfnHidden, "expert_ffn_hidden", sizes);
  sink.requirePositive(moe.layerFrequency, "moe_layer_frequency", sizes);
  sink.require(moe.sharedExperts >= 0, sizes,
               "shared_experts must not be negative, got " +
                   llvm::Twine(moe.sharedExperts));
  sink.require(moe.firstDenseBlocks >= 0, sizes,
               "first_dense_blocks must not be negative, got " +
                   llvm::Twine(moe.firstDenseBlocks));
  if (moe.capacityFactorPercent)
    sink.requirePositive(*moe.capacityFactorPercent, "capacity_factor_percent",
                         sizes);
  checkRouter(sink, moe);
  if (!sink.empty())
    return sink.take();
  sink.require(
      moe.expertBlocks(blocks) > 0, "transformer_model_c15",
      "no block has experts: first_dense_blocks = " +
          llvm::Twine(moe.firstDenseBlocks) +
          " and moe_layer_frequency = " + llvm::Twine(moe.layerFrequency) +
          " leave all " + llvm::Twine(blocks) + " blocks dense");
  // The most loaded expert carries imbalance/100 * k * tokens / E tokens: at
  // least the balanced load and at most every token once.
  OverflowGuard guard;
  int64_t bound = guard.mul(moe.imbalancePercent, moe.expertsPerToken,
                            "expert_imbalance_percent * experts_per_token");
  int64_t all = guard.mul(100, moe.experts, "100 * experts");
  if (guard.failed()) {
    sink.require(
        false, "transformer_model_c16",
        "expert_imbalance_percent = " + llvm::Twine(moe.imbalancePercent) +
            ": " + guard.overflowedQuantity() + " overflows a 64-bit integer");
    return sink.take();
  }
  sink.require(
      moe.imbalancePercent >= 100 && bound <= all, "transformer_model_c16",
      "expert_imbalance_percent = " + llvm::Twine(moe.imbalancePercent) +
          " must lie in [100, 100 * experts / experts_per_token] = "
          "[100, " +
          llvm::Twine(all / moe.expertsPerToken) +
          "]: the worst expert carries at least the balanced load "
          "and at most every token");
  return sink.take();
}

std::vector<RuleViolation>
blueprint::workload::checkTraining(const TrainingSpec &training) {
  RuleSink sink;
  sink.requirePositive(training.globalBatch, "global_batch",
                       "transformer_training_c1");
  sink.requirePositive(training.microBatch, "micro_batch",
                       "transformer_training_c1");
  return sink.take();
}

std::vector<RuleViolation>
blueprint::workload::checkMapping(const MappingSpec &mapping) {
  RuleSink sink;
  const char *positive = "transformer_mapping_c1";
  sink.requirePositive(mapping.tp, "tp", positive);
  sink.requirePositive(mapping.pp, "pp", positive);
  sink.requirePositive(mapping.dp, "dp", positive);
  sink.requirePositive(mapping.world, "world", positive);
  sink.requirePositive(mapping.virtualStages, "virtual_stages", positive);
  sink.requirePositive(mapping.cp, "cp", positive);
  sink.requirePositive(mapping.ep, "ep", positive);
  if (!sink.empty())
    return sink.take();

  OverflowGuard guard;
  int64_t product = guard.product(
      {mapping.tp, mapping.cp, mapping.pp, mapping.dp}, "tp * cp * pp * dp");
  sink.require(!guard.failed(), "transformer_mapping_c2",
               "tp * cp * pp * dp overflows a 64-bit integer");
  if (!guard.failed())
    sink.require(
        product == mapping.world, "transformer_mapping_c2",
        "world = " + llvm::Twine(mapping.world) +
            " differs from tp * cp * pp * dp = " + llvm::Twine(mapping.tp) +
            " * " + llvm::Twine(mapping.cp) + " * " + llvm::Twine(mapping.pp) +
            " * " + llvm::Twine(mapping.dp) + " = " + llvm::Twine(product));

  bool interleaved = mapping.schedule == PipelineSchedule::Interleaved1F1B;
  if (interleaved) {
    sink.require(mapping.virtualStages >= 2, "transformer_mapping_c3",
                 "schedule interleaved_one_f_one_b needs virtual_stages >= 2, "
                 "got " +
                     llvm::Twine(mapping.virtualStages));
    sink.require(mapping.pp >= 2, "transformer_mapping_c4",
                 "schedule interleaved_one_f_one_b needs pp >= 2, got " +
                     llvm::Twine(mapping.pp));
  } else {
    sink.require(mapping.virtualStages == 1, "transformer_mapping_c3",
                 "schedule " + stringifyEnum(mapping.schedule) +
                     " has no virtual stages: virtual_stages must be 1, got " +
                     llvm::Twine(mapping.virtualStages));
  }
  sink.require(mapping.zeroStage >= 0 && mapping.zeroStage <= 3,
               "transformer_mapping_c5",
               "zero_stage must be 0, 1, 2 or 3, got " +
                   llvm::Twine(mapping.zeroStage));
  sink.require(mapping.bucketBytes >= 0, "transformer_mapping_c6",
               "bucket_bytes must not be negative, got " +
                   llvm::Twine(mapping.bucketBytes));
  return sink.take();
}

std::vector<RuleViolation> blueprint::workload::checkTrainingComposition(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping) {
  RuleSink sink;
  // local_batch = global_batch / dp
  sink.requireDivides(training.globalBatch, "global_batch", mapping.dp, "dp",
                      "decoder_training_c1");
  // microbatches = local_batch / micro_batch
  if (mapping.dp > 0 && training.globalBatch % mapping.dp == 0)
    sink.requireDivides(training.globalBatch / mapping.dp,
                        "local batch global_batch / dp", training.microBatch,
                        "micro_batch", "decoder_training_c2");
  // blocks_per_virtual_chunk = blocks / (pp * virtual_stages), unless the
  // mapping lays the blocks out explicitly.
  OverflowGuard guard;
  int64_t chunks =
      guard.mul(mapping.pp, mapping.virtualStages, "pp * virtual_stages");
  if (guard.failed())
    sink.fail("decoder_training_c3",
              "pp * virtual_stages overflows a 64-bit integer");
  else if (!mapping.pipelineLayout.empty())
    sink.append(
        checkPipelineLayout(mapping.pipelineLayout, model.blocks, chunks));
  else
    sink.requireDivides(model.blocks, "blocks", chunks,
                        "pp * virtual_stages", "decoder_training_c3");
  detail::requireTensorParallelSplits(
      sink, model, mapping.tp,
      {/*heads=*/"decoder_training_c4", /*kvHeads=*/"decoder_training_c5",
       /*hidden=*/"decoder_training_c6", /*ffnHidden=*/"decoder_training_c7",
       /*vocab=*/"decoder_training_c8"});
  // Sequence parallelism splits the sequence dimension across TP ranks;
  // under context parallelism, each CP rank's tokens (context_parallel_c2).
  if (mapping.tpComm == TPCommMode::ReduceScatterAllGather && mapping.cp == 1)
    sink.requireDivides(model.seqLength,
                        "seq_length (tp_comm = reduce_scatter_all_gather)",
                        mapping.tp, "tp", "decoder_training_c9");
  detail::requireContextParallelSplits(sink, model, mapping);
  // Without sequence parallelism the vocabulary-parallel cross-entropy
  // all-reduces one fp32 value per token of the rank over the TP ranks
  // (EdgeWork.cpp, the head), a message that must split into whole elements;
  // under sequence parallelism decoder_training_c9 / context_parallel_c2
  // imply it. Checked once seq_length / cp is whole (context_parallel_c1).
  bool wholeRankTokens =
      mapping.cp == 1 || (mapping.cp > 1 && mapping.cp <= model.seqLength / 2 &&
                          model.seqLength % (2 * mapping.cp) == 0);
  if (mapping.tpComm != TPCommMode::ReduceScatterAllGather && mapping.tp > 1 &&
      wholeRankTokens) {
    OverflowGuard tokensGuard;
    int64_t rankTokens =
        tokensGuard.mul(training.microBatch, model.seqLength / mapping.cp,
                        "micro_batch * seq_length / cp");
    if (tokensGuard.failed())
      sink.fail("decoder_training_c16",
                "micro_batch * seq_length / cp overflows a 64-bit integer");
    else
      sink.requireDivides(rankTokens,
                          "micro_batch * seq_length / cp (the tokens per "
                          "context-parallel rank without sequence "
                          "parallelism)",
                          mapping.tp, "tp", "decoder_training_c16");
  }
  detail::requireExpertParallelSplits(sink, model, mapping);
  // ZeRO-3 would gather each chunk's dense parameters over edp x ep and its
  // routed experts over edp before every pass: not derived.
  if (mapping.ep > 1)
    sink.require(mapping.zeroStage <= 2, "expert_parallel_c8",
                 "zero_stage = " + llvm::Twine(mapping.zeroStage) +
                     " with ep = " + llvm::Twine(mapping.ep) +
                     ": ZeRO-3's parameter gathers of expert-parallel blocks "
                     "(dense parameters over edp x ep, routed experts over "
                     "edp) are not derived; expert parallelism needs "
                     "zero_stage <= 2");
  // Megatron-Core's MLA runs its duplicated down-projections on the
  // sequence shard and reduces the shared rotary key's gradient only on the
  // sequence-parallel path (docs/WorkAlgebra.md, "Multi-head latent
  // attention").
  if (model.hasLatentAttention() && mapping.tp > 1)
    sink.require(mapping.tpComm == TPCommMode::ReduceScatterAllGather,
                 "decoder_training_c14",
                 "multi-head latent attention (kv_lora_rank) under tp = " +
                     llvm::Twine(mapping.tp) +
                     " needs tp_comm = reduce_scatter_all_gather (sequence "
                     "parallelism), got " +
                     stringifyEnum(mapping.tpComm) +
                     ": its duplicated down-projections run on each rank's "
                     "sequence shard");
  // Megatron-Core's MoELayer refuses to train experts under tensor
  // parallelism without sequence parallelism (docs/WorkAlgebra.md,
  // "Mixture-of-experts"); its router runs on the rank's sequence shard.
  if (model.moe && mapping.tp > 1)
    sink.require(
        mapping.tpComm == TPCommMode::ReduceScatterAllGather, "decoder_moe_c2",
        "mixture-of-experts training under tp = " + llvm::Twine(mapping.tp) +
            " needs tp_comm = reduce_scatter_all_gather (sequence "
            "parallelism), got " +
            stringifyEnum(mapping.tpComm) +
            ": the router runs on each rank's sequence shard");
  // The all-to-all over ep sends P_l / ep pairs to each EP rank
  // (dist_collective_c4: equal chunks); checked once the splits hold, so
  // that P_l is whole.
  if (sink.empty())
    if (std::optional<RuleViolation> unequal =
            checkExpertParallelPairs(model, training, mapping))
      sink.append({*unequal});
  if (model.hasLatentAttention() && mapping.tp > 0) {
    // sp_param_grad_sync all-reduces the sequence-parallel parameters'
    // gradients, a message that must split into whole elements over the TP
    // ranks. Its other terms are multiples of hidden (decoder_training_c4
    // family: tp divides hidden); what is left is the latent norms'
    // parameters, (q_lora_rank + kv_lora_rank) x (2 under LayerNorm).
    int64_t perFeature = model.norm == NormKind::LayerNorm ? 2 : 1;
    std::optional<int64_t> latentFeatures =
        llvm::checkedAdd(model.qLoraRank.value_or(0), *model.kvLoraRank);
    std::optional<int64_t> latentNorms =
        latentFeatures ? llvm::checkedMul(*latentFeatures, perFeature)
                       : std::nullopt;
    if (!latentNorms)
      sink.fail("decoder_training_c15",
                "the latent norms' parameters (q_lora_rank + "
                "kv_lora_rank) overflow a 64-bit integer");
    else
      sink.require(
          *latentNorms % mapping.tp == 0, "decoder_training_c15",
          "the latent norms' parameters, (q_lora_rank + "
          "kv_lora_rank) x " +
              llvm::Twine(perFeature) + " = " + llvm::Twine(*latentNorms) +
              ", are not divisible by tp = " + llvm::Twine(mapping.tp) +
              ": their gradients join sp_param_grad_sync, whose "
              "message splits evenly over the TP ranks");
  }
  // ZeRO-3 gathers every chunk's parameters over dp before each pass: an
  // overlapped reduction would share the data-parallel links with those
  // gathers, whose contention the critical path does not charge, and
  // Megatron-FSDP reduces per module rather than per DDP bucket
  // (docs/Estimate.md, "Overlap").
  sink.require(!mapping.overlapDPGradReduce || mapping.zeroStage != 3,
               "decoder_training_c17",
               "overlap_dp_grad_reduce (mapping.overlap.dp_grad_reduce) "
               "needs zero_stage 0, 1 or 2, got zero_stage = 3: ZeRO-3's "
               "per-pass parameter gathers over dp are not modelled beside "
               "an overlapped gradient reduction");
  // Megatron's interleaved schedule runs micro-batches in groups of pp.
  if (mapping.schedule == PipelineSchedule::Interleaved1F1B &&
      sink.empty()) {
    int64_t microbatches =
        training.globalBatch / mapping.dp / training.microBatch;
    sink.requireDivides(microbatches, "microbatches", mapping.pp, "pp",
                        "decoder_training_c10");
  }
  return sink.take();
}

std::vector<RuleViolation> RunViolations::all() const {
  std::vector<RuleViolation> violations;
  for (const std::vector<RuleViolation> *part :
       {&model, &workload, &mapping, &composition})
    llvm::append_range(violations, *part);
  return violations;
}

RunViolations blueprint::workload::checkRun(
    const ModelSpec &model, std::vector<RuleViolation> workloadRules,
    const MappingSpec &mapping,
    llvm::function_ref<std::vector<RuleViolation>()> checkComposition) {
  RunViolations violations;
  violations.model = checkModel(model);
  violations.workload = std::move(workloadRules);
  violations.mapping = checkMapping(mapping);
  if (violations.empty())
    violations.composition = checkComposition();
  if (violations.empty())
    violations.composition = checkDerivedBlocks(model, mapping);
  return violations;
}

std::vector<RuleViolation>
blueprint::workload::checkDerivedBlocks(const ModelSpec &model,
                                        const MappingSpec &mapping) {
  RuleSink sink;
  if (!model.moe)
    return sink.take();
  sink.require(!model.hasOutputAndMLPBiases(), "decoder_moe_c5",
               "linear_bias = " + stringifyEnum(model.linearBias) +
                   " gives the experts' MLPs biases, whose work is not "
                   "derived yet: an MoE block needs linear_bias = none or "
                   "qkv");
  return sink.take();
}

RunViolations
blueprint::workload::checkTrainingRun(const ModelSpec &model,
                                      const TrainingSpec &training,
                                      const MappingSpec &mapping) {
  return checkRun(model, checkTraining(training), mapping, [&] {
    return checkTrainingComposition(model, training, mapping);
  });
}

std::variant<int64_t, RuleViolation>
blueprint::workload::implicitHeadDim(int64_t hidden, int64_t heads,
                                     std::optional<int64_t> qkNopeHeadDim,
                                     std::optional<int64_t> qkRopeHeadDim) {
  if (qkNopeHeadDim && qkRopeHeadDim) {
    if (*qkNopeHeadDim <= 0 || *qkRopeHeadDim <= 0)
      return int64_t(0);
    std::optional<int64_t> sum =
        llvm::checkedAdd(*qkNopeHeadDim, *qkRopeHeadDim);
    if (!sum)
      return RuleViolation{"transformer_model_c9",
                           "qk_nope_head_dim + qk_rope_head_dim overflows a "
                           "64-bit integer"};
    return *sum;
  }
  if (hidden <= 0 || heads <= 0)
    return int64_t(0);
  if (hidden % heads == 0)
    return hidden / heads;
  return RuleViolation{"transformer_model_c4",
                       "hidden = " + std::to_string(hidden) +
                           " is not divisible by heads = " +
                           std::to_string(heads) + " and no head_dim is given"};
}

std::optional<RuleViolation>
blueprint::workload::checkLatentAttentionFields(const ModelSpec &model) {
  std::array<LatentAttentionField, 5> fields = latentAttentionFields(model);
  // Every model is checked on every derivation: the lists are written only
  // for a model that breaks the rule.
  bool anyGiven = llvm::any_of(fields, [](const LatentAttentionField &field) {
    return field.value.has_value();
  });
  bool anyMissing = llvm::any_of(fields, [](const LatentAttentionField &field) {
    return !field.value.has_value() && field.required;
  });
  if (!anyGiven || !anyMissing)
    return std::nullopt;
  std::string given, missing;
  for (const LatentAttentionField &field : fields) {
    std::string &list = field.value ? given : missing;
    if (field.value || field.required)
      list += (list.empty() ? "" : ", ") + std::string(field.name);
  }
  return RuleViolation{"transformer_model_c6",
                       "multi-head latent attention needs kv_lora_rank, "
                       "qk_nope_head_dim, qk_rope_head_dim and v_head_dim "
                       "together; given " +
                           given + ", missing " + missing};
}

std::optional<TrainingComposition>
blueprint::workload::composeTraining(const ModelSpec &model,
                                     const TrainingSpec &training,
                                     const MappingSpec &mapping) {
  if (!checkTrainingRun(model, training, mapping).empty())
    return std::nullopt;
  TrainingComposition composition;
  composition.localBatch = training.globalBatch / mapping.dp;
  composition.microbatches = composition.localBatch / training.microBatch;
  if (mapping.pipelineLayout.empty())
    composition.blocksPerVirtualChunk =
        model.blocks / (mapping.pp * mapping.virtualStages);
  return composition;
}

bool blueprint::workload::sameModel(const ModelSpec &a, const ModelSpec &b) {
  // Every field named (a structured binding names exactly the fields), so a
  // field added to ModelSpec does not compile here until it is compared.
  auto fields = [](const ModelSpec &model) {
    const auto &[hidden, heads, kvHeads, headDim, ffnHidden, seqLength,
                 maxPositions, vocab, blocks, norm, activation, linearBias,
                 positionEmbedding, tiedEmbeddings, attentionWindow, qLoraRank,
                 kvLoraRank, qkNopeHeadDim, qkRopeHeadDim, vHeadDim, moe] =
        model;
    return std::tie(hidden, heads, kvHeads, headDim, ffnHidden, seqLength,
                    maxPositions, vocab, blocks, norm, activation, linearBias,
                    positionEmbedding, tiedEmbeddings, attentionWindow,
                    qLoraRank, kvLoraRank, qkNopeHeadDim, qkRopeHeadDim,
                    vHeadDim, moe);
  };
  return fields(a) == fields(b);
}
