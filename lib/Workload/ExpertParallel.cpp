//===- ExpertParallel.cpp - Closed forms of expert parallelism ------------===//
//
// docs/WorkAlgebra.md, "Expert parallelism: the derivation that lifts
// `expert_parallel_c4`", derives every formula here with its provenance
// (Megatron-LM d98e8a6: parallel_state.py for the groups, moe_layer.py for
// the local experts, token_dispatcher.py for MoEAlltoAllTokenDispatcher,
// experts.py and fused_bias_swiglu.py for the probabilities).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ExpertParallel.h"

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"

#include "ForwardBuilder.h"

#include <tuple>

using namespace blueprint::workload;

namespace {

/// The first broken precondition of expertParallelShape, by rule; success
/// when the run composes as the shape needs.
llvm::Error checkExpertParallelRun(const ModelSpec &model,
                                   const MappingSpec &mapping) {
  auto broken = [](llvm::StringRef rule, const llvm::Twine &what) {
    return detail::makeError("expert parallel shape: [" + rule + "] " + what);
  };
  if (!model.moe)
    return broken("expert_parallel_c2", "the model has no experts (moe)");
  // The routing divides by the experts and the router calls: the model's
  // own MoE rules first (an unverified spec reaches this public API).
  // Over the model's own blocks: with first_dense_blocks, one block would
  // leave none with experts (transformer_model_c15).
  std::vector<RuleViolation> moeRules =
      checkMixtureOfExperts(*model.moe, model.blocks);
  if (!moeRules.empty())
    return broken(moeRules.front().rule, moeRules.front().message);
  if (mapping.ep <= 0 || mapping.dp % mapping.ep != 0)
    return broken("expert_parallel_c1",
                  "dp = " + llvm::Twine(mapping.dp) +
                      " is not divisible by ep = " + llvm::Twine(mapping.ep));
  if (model.moe->experts % mapping.ep != 0)
    return broken("expert_parallel_c3",
                  "experts = " + llvm::Twine(model.moe->experts) +
                      " is not divisible by ep = " + llvm::Twine(mapping.ep));
  if (mapping.ep > 1 && mapping.cp != 1)
    return broken("expert_parallel_c5",
                  "cp = " + llvm::Twine(mapping.cp) +
                      " with ep = " + llvm::Twine(mapping.ep));
  if (mapping.tp <= 0)
    return broken("transformer_mapping_c1",
                  "tp = " + llvm::Twine(mapping.tp) + " is not positive");
  for (auto [rule, field, value] :
       {std::tuple{"decoder_training_c4", "heads", model.heads},
        std::tuple{"decoder_training_c5", "kv_heads", model.kvHeads},
        std::tuple{"decoder_training_c7", "ffn_hidden", model.ffnHidden},
        std::tuple{"decoder_moe_c3", "expert_ffn_hidden",
                   model.moe->expertFfnHidden}})
    if (value % mapping.tp != 0)
      return broken(rule,
                    llvm::Twine(field) + " = " + llvm::Twine(value) +
                        " is not divisible by tp = " + llvm::Twine(mapping.tp));
  if (mapping.tp > 1 && mapping.tpComm != TPCommMode::ReduceScatterAllGather)
    return broken("decoder_moe_c2",
                  "tp = " + llvm::Twine(mapping.tp) +
                      " needs tp_comm = reduce_scatter_all_gather");
  if (model.seqLength % mapping.tp != 0)
    return broken("decoder_training_c9",
                  "seq_length = " + llvm::Twine(model.seqLength) +
                      " is not divisible by tp = " + llvm::Twine(mapping.tp));
  return llvm::Error::success();
}

/// Router calls per micro-batch on one rank's TP group: one per sequence
/// shard under sequence parallelism, else one.
int64_t routerCallsOf(const MappingSpec &mapping) {
  return mapping.tpComm == TPCommMode::ReduceScatterAllGather ? mapping.tp : 1;
}

/// The balanced routing of one rank's micro-batch, one router call per
/// sequence shard: today's (ForwardBuilder::routing at cp = 1).
ExpertRouting rankRouting(const ModelSpec &model, const TrainingSpec &training,
                          const MappingSpec &mapping, OverflowGuard &guard) {
  int64_t tokens =
      guard.mul(training.microBatch, model.seqLength, "micro-batch tokens");
  return balancedRouting(*model.moe, tokens, routerCallsOf(mapping), guard);
}

} // namespace

std::optional<RuleViolation>
blueprint::workload::checkExpertParallelPairs(const ModelSpec &model,
                                              const TrainingSpec &training,
                                              const MappingSpec &mapping) {
  if (!model.moe || mapping.ep <= 1)
    return std::nullopt;
  OverflowGuard guard;
  ExpertRouting routing = rankRouting(model, training, mapping, guard);
  if (guard.failed())
    return RuleViolation{"expert_parallel_c7",
                         "the rank's token-expert pairs (experts_per_token * "
                         "micro_batch * seq_length) overflow a 64-bit "
                         "integer"};
  int64_t calls = routerCallsOf(mapping);
  int64_t rankPairs = routing.processed / calls;
  if (rankPairs % mapping.ep == 0)
    return std::nullopt;
  const MixtureOfExperts &moe = *model.moe;
  std::string derivation =
      ("experts_per_token " + llvm::Twine(moe.expertsPerToken) +
       " * micro_batch " + llvm::Twine(training.microBatch) + " * seq_length " +
       llvm::Twine(model.seqLength) + " / tp " + llvm::Twine(calls))
          .str();
  int64_t routedPairs = routing.pairs / calls;
  if (routedPairs != rankPairs)
    derivation += (" = " + llvm::Twine(routedPairs) +
                   " routed, capped by capacity_factor_percent " +
                   llvm::Twine(moe.capacityFactorPercent.value_or(0)))
                      .str();
  return RuleViolation{
      "expert_parallel_c7",
      ("the rank's kept token-expert pairs P_l = " + llvm::Twine(rankPairs) +
       " (" + derivation +
       "), the rows of its all-to-alls over ep, are not divisible by ep = " +
       llvm::Twine(mapping.ep))
          .str()};
}

llvm::Expected<ExpertParallelShape>
blueprint::workload::expertParallelShape(const ModelSpec &model,
                                         const TrainingSpec &training,
                                         const MappingSpec &mapping) {
  if (llvm::Error broken = checkExpertParallelRun(model, mapping))
    return std::move(broken);
  // dist_collective_c4: the all-to-all's chunks are equal, P_l / ep pairs to
  // each EP rank, when ep divides P_l (balanced routing then places the
  // heavier experts' extra pairs evenly over the ranks).
  if (std::optional<RuleViolation> unequal =
          checkExpertParallelPairs(model, training, mapping))
    return detail::makeError("expert parallel shape: [" + unequal->rule + "] " +
                             unequal->message);
  OverflowGuard guard;
  ExpertParallelShape shape;
  shape.localExperts = model.moe->experts / mapping.ep;
  shape.expertDataParallel = mapping.dp / mapping.ep;
  detail::RankColumns columns =
      detail::makeRankColumns(model, mapping.tp, guard);
  shape.expertParameters =
      guard.mul(shape.localExperts,
                detail::expertParametersPerRank(model, columns, guard),
                "local expert parameters");
  shape.processedPairs = rankRouting(model, training, mapping, guard).processed;
  shape.rankPairs = shape.processedPairs / routerCallsOf(mapping);
  int64_t lighterRows = shape.processedPairs / shape.localExperts;
  int64_t heavierExperts = shape.processedPairs % shape.localExperts;
  if (heavierExperts > 0)
    shape.expertLoads.push_back({heavierExperts, lighterRows + 1});
  if (lighterRows > 0)
    shape.expertLoads.push_back(
        {shape.localExperts - heavierExperts, lighterRows});
  int64_t activationMultiplies =
      guard.mul(shape.processedPairs, columns.expertFfnCols,
                "probability multiplies P_x f_t");
  shape.activationProbabilityOps = activationMultiplies;
  shape.unpermuteOps =
      guard.mul(shape.rankPairs, model.hidden, "unpermute scatter-adds P_l h");
  shape.probabilityForwardOps =
      guard.add(shape.activationProbabilityOps, shape.unpermuteOps,
                "probability forward ops");
  shape.probabilityBackwardOps =
      guard.mul(3, activationMultiplies, "probability backward ops 3 P_x f_t");
  if (guard.failed())
    return guard.error("expert parallel shape");
  return shape;
}

llvm::Expected<std::vector<ExpertParallelTransfer>>
blueprint::workload::expertParallelDispatch(const ModelSpec &model,
                                            const TrainingSpec &training,
                                            const MappingSpec &mapping) {
  llvm::Expected<ExpertParallelShape> shape =
      expertParallelShape(model, training, mapping);
  if (!shape)
    return shape.takeError();
  std::vector<ExpertParallelTransfer> transfers;
  if (mapping.ep == 1)
    return transfers;

  OverflowGuard guard;
  int64_t activationBytes = bytesOf(training.activationType);
  int64_t tokenBytes = guard.product(
      {shape->rankPairs, model.hidden, activationBytes}, "M_tok = P_l h a");
  int64_t probabilityBytes =
      guard.mul(shape->rankPairs, activationBytes, "M_prob = P_l a");
  // td.py preprocess: torch.sum of the routing map, E int64 counts per
  // rank, gathered over the TP x EP group.
  int64_t countParticipants =
      guard.mul(mapping.ep, mapping.tp, "ep * tp count participants");
  int64_t countBytes = guard.product({countParticipants, model.moe->experts, 8},
                                     "per-expert token counts ep tp E 8");
  int64_t gatheredTokenBytes =
      guard.mul(mapping.tp, tokenBytes, "TP-gathered tokens k T h a");
  int64_t gatheredProbabilityBytes = guard.mul(
      mapping.tp, probabilityBytes, "TP-gathered probabilities k T a");
  if (guard.failed())
    return guard.error("expert parallel dispatch");

  auto transfer = [&](Phase phase, llvm::StringRef tensor,
                      llvm::StringRef carried, CollectiveKind kind,
                      std::vector<std::string> axes, int64_t participants,
                      int64_t messageBytes, llvm::StringRef cause) {
    ExpertParallelTransfer message;
    message.phase = phase;
    message.tensor = tensor.str();
    message.carried = carried.str();
    message.collective = kind;
    message.axes = std::move(axes);
    message.participants = participants;
    message.messageBytes = messageBytes;
    int64_t shardBytes = messageBytes / participants;
    message.sentBytes = guard.mul(participants - 1, shardBytes,
                                  llvm::Twine(tensor) + " sent bytes");
    message.ops =
        collectiveReduces(kind)
            ? guard.mul(participants - 1, shardBytes / activationBytes,
                        llvm::Twine(tensor) + " reduction ops")
            : 0;
    message.cause = cause.str();
    transfers.push_back(std::move(message));
  };
  bool tensorParallel = mapping.tp > 1;
  auto forward = [&](Phase phase) {
    transfer(phase, "tokens_per_expert", "tokens_per_expert",
             CollectiveKind::AllGather,
             {kExpertParallelAxis.str(), kTensorParallelAxis.str()},
             countParticipants, countBytes,
             "MoEAlltoAllTokenDispatcher.preprocess: all-gather of the E "
             "per-expert token counts over the TP x EP group");
    transfer(phase, "permuted_tokens", "permuted_tokens",
             CollectiveKind::AllToAll, {kExpertParallelAxis.str()}, mapping.ep,
             tokenBytes,
             "token_dispatch: all-to-all of the permuted tokens over EP");
    transfer(phase, "permuted_probs", "permuted_probs",
             CollectiveKind::AllToAll, {kExpertParallelAxis.str()}, mapping.ep,
             probabilityBytes,
             "token_dispatch: all-to-all of the permuted probabilities over "
             "EP (applied in the experts)");
    if (tensorParallel) {
      transfer(phase, "global_input_tokens", "permuted_tokens",
               CollectiveKind::AllGather, {kTensorParallelAxis.str()},
               mapping.tp, gatheredTokenBytes,
               "dispatch_postprocess: all-gather of the received tokens over "
               "TP");
      transfer(phase, "global_probs", "permuted_probs",
               CollectiveKind::AllGather, {kTensorParallelAxis.str()},
               mapping.tp, gatheredProbabilityBytes,
               "dispatch_postprocess: all-gather of the received "
               "probabilities over TP");
      transfer(phase, "expert_output", "expert_out",
               CollectiveKind::ReduceScatter, {kTensorParallelAxis.str()},
               mapping.tp, gatheredTokenBytes,
               "combine_preprocess: reduce-scatter of the expert outputs' "
               "partial sums over TP");
    }
    transfer(phase, "combined_tokens", "expert_out", CollectiveKind::AllToAll,
             {kExpertParallelAxis.str()}, mapping.ep, tokenBytes,
             "token_combine: all-to-all of the expert outputs back over EP");
  };
  forward(Phase::Forward);
  // Full recompute checkpoints the whole layer (router and dispatcher
  // included) and reruns its forward; selective recompute none of it.
  if (mapping.recompute == RecomputePolicy::Full)
    forward(Phase::Recommunication);
  // Backward launch order (td.py token_dispatch, d98e8a6): "probs A2A ->
  // tokens A2A"; the probability gradient is ready after the activation's
  // backward, before fc1's input gradient, so each probability collective
  // precedes its token twin.
  transfer(Phase::ActivationGrad, "d_combined_tokens", "d_expert_out",
           CollectiveKind::AllToAll, {kExpertParallelAxis.str()}, mapping.ep,
           tokenBytes,
           "backward of token_combine: all-to-all of the output gradient "
           "over EP");
  if (tensorParallel) {
    transfer(Phase::ActivationGrad, "d_expert_output", "d_expert_out",
             CollectiveKind::AllGather, {kTensorParallelAxis.str()}, mapping.tp,
             gatheredTokenBytes,
             "backward of combine_preprocess's reduce-scatter: all-gather of "
             "the output gradient over TP");
    transfer(Phase::ActivationGrad, "d_global_probs", "d_permuted_probs",
             CollectiveKind::ReduceScatter, {kTensorParallelAxis.str()},
             mapping.tp, gatheredProbabilityBytes,
             "backward of dispatch_postprocess's all-gather: reduce-scatter "
             "of the probability gradients over TP");
    transfer(Phase::ActivationGrad, "d_global_input_tokens",
             "d_permuted_tokens", CollectiveKind::ReduceScatter,
             {kTensorParallelAxis.str()}, mapping.tp, gatheredTokenBytes,
             "backward of dispatch_postprocess's all-gather: reduce-scatter "
             "of the token gradients over TP");
  }
  transfer(Phase::ActivationGrad, "d_permuted_probs", "d_permuted_probs",
           CollectiveKind::AllToAll, {kExpertParallelAxis.str()}, mapping.ep,
           probabilityBytes,
           "backward of token_dispatch: all-to-all of the probability "
           "gradients over EP");
  transfer(Phase::ActivationGrad, "d_permuted_tokens", "d_permuted_tokens",
           CollectiveKind::AllToAll, {kExpertParallelAxis.str()}, mapping.ep,
           tokenBytes,
           "backward of token_dispatch: all-to-all of the token gradients "
           "over EP");
  if (guard.failed())
    return guard.error("expert parallel dispatch");
  return transfers;
}
