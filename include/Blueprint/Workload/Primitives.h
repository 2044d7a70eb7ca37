//===- Primitives.h - The primitive ids of the work algebra -----*- C++ -*-===//
//
// One table of every primitive id a derivation emits (docs/WorkAlgebra.md,
// docs/Inference.md, docs/ModelSummary.md). Derivations name primitives by
// these constants, never by string literals, so a misspelt id is a compile
// error rather than a silently different task; and what selective recompute
// clones is a property of this table, which the recompute observer reads
// too.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_PRIMITIVES_H
#define BLUEPRINT_WORKLOAD_PRIMITIVES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace blueprint::workload::primitive {

// X(constant, id): every primitive, in the order a training block emits
// them, then inference's, then the model level's, then the model edges'
// (EdgeWork.h), then those multi-head latent attention's block emits in
// place of qkv_proj and its collectives, then those a mixture-of-experts
// block emits in place of the dense MLP.
#define BLUEPRINT_WORKLOAD_PRIMITIVES(X)                                       \
  X(kNorm1, "norm1")                                                           \
  X(kAttnTPF, "attn_tp_f")                                                     \
  X(kQKVProj, "qkv_proj")                                                      \
  X(kRotary, "rotary")                                                         \
  X(kQKMatmul, "qk_matmul")                                                    \
  X(kSoftmax, "softmax")                                                       \
  X(kAttnDropout, "attn_dropout")                                              \
  X(kAttnVMatmul, "attn_v_matmul")                                             \
  X(kOutProj, "out_proj")                                                      \
  X(kAttnTPG, "attn_tp_g")                                                     \
  X(kOutProjBias, "out_proj_bias")                                             \
  X(kAttnResidualDropout, "attn_residual_dropout")                             \
  X(kAttnResidual, "attn_residual")                                            \
  X(kNorm2, "norm2")                                                           \
  X(kMLPTPF, "mlp_tp_f")                                                       \
  X(kFC1, "fc1")                                                               \
  X(kActivation, "activation")                                                 \
  X(kFC2, "fc2")                                                               \
  X(kMLPTPG, "mlp_tp_g")                                                       \
  X(kFC2Bias, "fc2_bias")                                                      \
  X(kMLPDropout, "mlp_dropout")                                                \
  X(kMLPResidual, "mlp_residual")                                              \
  X(kFC1WgradGather, "fc1_wgrad_gather")                                       \
  X(kFC1Bias, "fc1_bias")                                                      \
  X(kQKVWgradGather, "qkv_wgrad_gather")                                       \
  X(kQKVBias, "qkv_bias")                                                      \
  X(kSPParamGradSync, "sp_param_grad_sync")                                    \
  X(kAdamWStep, "adamw_step")                                                  \
  X(kKVCacheWrite, "kv_cache_write")                                           \
  X(kLMHeadLogits, "lm_head_logits")                                           \
  X(kPipelineGather, "pipeline_gather")                                        \
  X(kDPGradAllReduce, "dp_grad_allreduce")                                     \
  X(kEmbeddingGradSync, "embedding_grad_sync")                                 \
  X(kDPShardedOptimizer, "dp_sharded_optimizer")                               \
  X(kDPGradReduceScatter, "dp_grad_reduce_scatter")                            \
  X(kDPParamAllGather, "dp_param_all_gather")                                  \
  X(kFSDPParamGather, "fsdp_param_gather")                                     \
  X(kWordEmbedding, "word_embedding")                                          \
  X(kEmbeddingTPG, "embedding_tp_g")                                           \
  X(kPositionEmbedding, "position_embedding")                                  \
  X(kEmbeddingDropout, "embedding_dropout")                                    \
  X(kEmbeddingSPScatter, "embedding_sp_scatter")                               \
  X(kFinalNorm, "final_norm")                                                  \
  X(kLMHeadTPF, "lm_head_tp_f")                                                \
  X(kLMHeadWgradGather, "lm_head_wgrad_gather")                                \
  X(kCrossEntropyMax, "cross_entropy_max")                                     \
  X(kLossMaxAllReduce, "loss_max_allreduce")                                   \
  X(kCrossEntropyExp, "cross_entropy_exp")                                     \
  X(kLossTargetAllReduce, "loss_target_allreduce")                             \
  X(kLossSumAllReduce, "loss_sum_allreduce")                                   \
  X(kCrossEntropy, "cross_entropy")                                            \
  X(kLossAverage, "loss_average")                                              \
  X(kFinalNormGradSync, "final_norm_grad_sync")                                \
  X(kEdgeAdamWStep, "edge_adamw_step")                                         \
  X(kQAProj, "q_a_proj")                                                       \
  X(kQANorm, "q_a_norm")                                                       \
  X(kKVAProj, "kv_a_proj")                                                     \
  X(kKVANorm, "kv_a_norm")                                                     \
  X(kQLatentTPF, "q_latent_tp_f")                                              \
  X(kKVLatentTPF, "kv_latent_tp_f")                                            \
  X(kKRopeTPF, "k_rope_tp_f")                                                  \
  X(kQBProj, "q_b_proj")                                                       \
  X(kQProj, "q_proj")                                                          \
  X(kKVBProj, "kv_b_proj")                                                     \
  X(kKVBWgradGather, "kv_b_wgrad_gather")                                      \
  X(kQBWgradGather, "q_b_wgrad_gather")                                        \
  X(kQWgradGather, "q_wgrad_gather")                                           \
  X(kQAbsorb, "q_absorb")                                                      \
  X(kVAbsorb, "v_absorb")                                                      \
  X(kRouter, "router")                                                         \
  X(kRouterSoftmax, "router_softmax")                                          \
  X(kRouterSigmoid, "router_sigmoid")                                          \
  X(kRouterTopK, "router_topk")                                                \
  X(kRoutingProbsTPF, "routing_probs_tp_f")                                    \
  X(kRoutingMapTPF, "routing_map_tp_f")                                        \
  X(kMoEPermute, "moe_permute")                                                \
  X(kExpertFC1, "expert_fc1")                                                  \
  X(kExpertActivation, "expert_activation")                                    \
  X(kExpertFC2, "expert_fc2")                                                  \
  X(kMoECombine, "moe_combine")                                                \
  X(kMoETokenCounts, "moe_token_counts")                                       \
  X(kMoEDispatch, "moe_dispatch")                                              \
  X(kMoEDispatchProbs, "moe_dispatch_probs")                                   \
  X(kMoEDispatchTPGather, "moe_dispatch_tp_gather")                            \
  X(kMoEDispatchProbsTPGather, "moe_dispatch_probs_tp_gather")                 \
  X(kExpertProbs, "expert_probs")                                              \
  X(kMoECombineTPReduceScatter, "moe_combine_tp_reduce_scatter")               \
  X(kMoECombineExchange, "moe_combine_exchange")                               \
  X(kMoEUnpermute, "moe_unpermute")                                            \
  X(kCPKVGather, "cp_kv_gather")                                               \
  X(kCPDKVReduceScatter, "cp_dkv_reduce_scatter")                              \
  X(kSharedExpertFC1, "shared_expert_fc1")                                     \
  X(kSharedExpertActivation, "shared_expert_activation")                       \
  X(kSharedExpertFC2, "shared_expert_fc2")                                     \
  X(kSharedExpertTPF, "shared_expert_tp_f")                                    \
  X(kSharedExpertTPG, "shared_expert_tp_g")                                    \
  X(kSharedExpertAdd, "shared_expert_add")

#define BLUEPRINT_WORKLOAD_PRIMITIVE_CONSTANT(constant, id)                    \
  inline constexpr llvm::StringLiteral constant = id;
BLUEPRINT_WORKLOAD_PRIMITIVES(BLUEPRINT_WORKLOAD_PRIMITIVE_CONSTANT)
#undef BLUEPRINT_WORKLOAD_PRIMITIVE_CONSTANT

/// Every primitive id of the table, in its order.
llvm::ArrayRef<llvm::StringLiteral> all();

/// The attention core (SeqSel Sec. 5): QK^T, softmax, attention dropout and
/// probs x V, what selective recompute reruns before its backward.
inline constexpr llvm::StringLiteral kAttentionCore[] = {
    kQKMatmul, kSoftmax, kAttnDropout, kAttnVMatmul};

/// Whether `id` is a primitive of the attention core.
bool isAttentionCore(llvm::StringRef id);

} // namespace blueprint::workload::primitive

#endif // BLUEPRINT_WORKLOAD_PRIMITIVES_H
