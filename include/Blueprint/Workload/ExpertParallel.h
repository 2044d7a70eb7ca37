//===- ExpertParallel.h - Closed forms of expert parallelism ----*- C++ -*-===//
//
// The per-rank quantities of an expert-parallel (ep > 1) training MoE block,
// as derived in docs/WorkAlgebra.md, "Expert parallelism: the derivation that
// lifts `expert_parallel_c4`" (Megatron-LM d98e8a6,
// MoEAlltoAllTokenDispatcher): the experts a rank holds, the groups its
// gradients reduce over, the pairs it routes and processes, the dispatcher's
// collectives in execution order, and the routing probabilities' work in the
// experts. Every count is exact and checked; an overflow or a broken
// precondition is an llvm::Error naming the quantity or the rule. At ep = 1
// the shape is today's (every expert on every rank) and there is no
// all-to-all: ep = 1 keeps the all-gather dispatcher.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_EXPERTPARALLEL_H
#define BLUEPRINT_WORKLOAD_EXPERTPARALLEL_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// What one rank of an expert-parallel training MoE block holds and routes,
/// per block and micro-batch.
struct ExpertParallelShape {
  /// n_e = E / ep: the experts the rank holds, each a 1/tp slice
  /// (Megatron-Core MoELayer num_local_experts).
  int64_t localExperts = 0;
  /// d_e = dp / ep (cp = 1): the expert-data-parallel ranks over which the
  /// expert gradients reduce and the expert ZeRO state shards
  /// (get_expert_data_parallel_group); the dense ones use all dp.
  int64_t expertDataParallel = 0;
  /// Parameters of the rank's experts in one MoE block, n_e (h c + f_t h)
  /// (c = 2 f_t under SwiGLU, else f_t; f_t = expert_ffn_hidden / tp).
  int64_t expertParameters = 0;
  /// P_l: the pairs the rank's own router call keeps (k T_l, T_l = b s / tp
  /// under sequence parallelism, fewer when the capacity drops), the rows of
  /// the permute, the all-to-alls and the unpermute.
  int64_t rankPairs = 0;
  /// P_x = tp P_l: the pairs the rank's n_e experts process after the TP
  /// all-gather under balanced routing (e P_l n_e / E = P_l from the EP
  /// group, times the tp ranks): today's processed pairs, so the expert
  /// GEMMs are today's on n_e experts' weights.
  int64_t processedPairs = 0;
  /// The GEMM row groups of the rank's routed experts (ExpertRouting::loads'
  /// convention): the P_x balanced pairs spread over the n_e local experts,
  /// the floor or the ceiling of P_x / n_e each (one group of n_e experts
  /// of P_x / n_e rows when n_e divides P_x; min(n_e, P_x) experts read
  /// their weights).
  std::vector<ExpertLoad> expertLoads;
  /// The routing probabilities applied in the experts (d98e8a6's
  /// placement): forward P_x f_t multiplies of the activation output and
  /// the unpermute's P_l h scatter-adds; backward 3 P_x f_t (g x
  /// probability, and the length-f_t dot products of each pair's
  /// probability gradient, matmul convention), the recomputed activation
  /// the fused kernel's backward needs not included.
  int64_t probabilityForwardOps = 0;
  /// The two parts of probabilityForwardOps: the activation output's
  /// multiplies P_x f_t (in the experts) and the unpermute's scatter-adds
  /// P_l h.
  int64_t activationProbabilityOps = 0;
  int64_t unpermuteOps = 0;
  int64_t probabilityBackwardOps = 0;
};

/// The shape of one rank of the run's MoE blocks. Fails naming the rule for
/// a model without experts (expert_parallel_c2), ep not dividing dp (c1) or
/// the experts (c3), cp > 1 (c5), tp not dividing expert_ffn_hidden
/// (decoder_moe_c3), tp > 1 without sequence parallelism (decoder_moe_c2),
/// tp not dividing the micro-batch's tokens (decoder_training_c9) and ep
/// not dividing P_l (expert_parallel_c7, the equal chunks of the
/// all-to-all); fails naming the quantity on a 64-bit overflow.
llvm::Expected<ExpertParallelShape>
expertParallelShape(const ModelSpec &model, const TrainingSpec &training,
                    const MappingSpec &mapping);

/// expert_parallel_c7 of a training run whose tensor-parallel and sequence
/// rules hold (decoder_training_c4 .. c9, decoder_moe_c2): the violation
/// when ep > 1 does not divide P_l (see ExpertParallelShape::rankPairs),
/// its message naming the fields P_l derives from, or when P_l overflows;
/// std::nullopt when it holds, at ep = 1 and without experts. The one
/// statement of the rule that checkTrainingComposition and
/// expertParallelShape share.
std::optional<RuleViolation>
checkExpertParallelPairs(const ModelSpec &model, const TrainingSpec &training,
                         const MappingSpec &mapping);

/// One collective of the MoEAlltoAllTokenDispatcher of one MoE block, per
/// micro-batch, on one rank.
struct ExpertParallelTransfer {
  /// Forward, Recommunication (full recompute reruns the block's forward)
  /// or ActivationGrad (the backward).
  Phase phase = Phase::Forward;
  /// The message, e.g. "permuted_tokens" or "d_global_input_tokens": one
  /// name per collective of a phase.
  std::string tensor;
  /// The block's tensor the collective reads and writes: one name along
  /// each chain from the permute through the experts to the unpermute
  /// ("permuted_tokens", "permuted_probs", "expert_out" and their "d_"
  /// gradients), so that workingSetBytes, which follows a tensor by its
  /// name, sees the chain as one tensor (review s34/ep3, finding 2).
  std::string carried;
  /// AllGather, ReduceScatter (a sum) or AllToAll.
  CollectiveKind collective = CollectiveKind::AllToAll;
  /// The mesh axes of the group, outermost first: {"ep"}, {"tp"} or
  /// {"ep", "tp"}.
  std::vector<std::string> axes;
  /// The group's ranks, the product of the axes' degrees.
  int64_t participants = 0;
  /// CollectiveFacts' convention: the logical tensor one participant holds,
  /// the gathered tensor of an all-gather, the unreduced tensor of a
  /// reduce-scatter, the whole send buffer of an all-to-all.
  int64_t messageBytes = 0;
  /// Bytes each rank sends, (n - 1) M / n.
  int64_t sentBytes = 0;
  /// The reduce-scatter's sums, (n - 1) adds per element of the rank's
  /// shard; 0 otherwise.
  int64_t ops = 0;
  /// One sentence naming the Megatron-LM step (token_dispatcher.py at
  /// d98e8a6).
  std::string cause;
};

/// The dispatcher's collectives of one MoE block per micro-batch on one
/// rank, in execution order. Forward (td.py 375-387): the all-gather of the
/// E per-expert token counts over ["ep", "tp"] (E int64 per rank,
/// `preprocess`), the all-to-all over ["ep"] of the permuted tokens (M_tok
/// = P_l h activation bytes) and of the permuted probabilities (M_prob =
/// P_l activation bytes); at tp > 1 the all-gather over ["tp"] of both
/// (k T h and k T activation bytes) and, after the experts, the
/// reduce-scatter over ["tp"] of their outputs (k T h); then the combine's
/// all-to-all over ["ep"] (M_tok). Under full recompute the whole forward
/// again as Recommunication. Backward, with equal messages: the combine's
/// all-to-all of the output gradient, at tp > 1 its all-gather over
/// ["tp"], the experts' backward, at tp > 1 the reduce-scatters over
/// ["tp"] of the probability and token gradients, then the dispatch's
/// all-to-alls of both, probabilities first (td.py token_dispatch's
/// backward launch order). Empty at ep = 1. Fails as expertParallelShape.
llvm::Expected<std::vector<ExpertParallelTransfer>>
expertParallelDispatch(const ModelSpec &model, const TrainingSpec &training,
                       const MappingSpec &mapping);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_EXPERTPARALLEL_H
