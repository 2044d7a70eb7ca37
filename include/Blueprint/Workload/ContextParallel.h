//===- ContextParallel.h - Closed forms of context parallelism --*- C++ -*-===//
//
// The per-rank quantities of a context-parallel (cp > 1) training block, as
// decided in docs/TransformerSpec.md, "Context parallelism": the tokens each
// cp rank holds under causal load balancing, the query-key pairs its
// attention computes, and the key/value exchange over the `cp` axis (ring or
// all-gather, per TransformerEngine). Every count is exact and checked; an
// overflow or a broken precondition is an llvm::Error naming the quantity or
// the rule. At cp = 1 the shape is today's (s tokens, s^2 pairs) and there is
// no exchange.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_CONTEXTPARALLEL_H
#define BLUEPRINT_WORKLOAD_CONTEXTPARALLEL_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// What one cp rank holds of every sequence of s tokens.
struct ContextParallelShape {
  /// Tokens of one load-balanced chunk, s / (2 cp); the sequence itself at
  /// cp = 1, where nothing is cut.
  int64_t chunkTokens = 0;
  /// Tokens of the rank, s / cp (chunks i and 2 cp - 1 - i of rank i): the
  /// rows of every token-proportional primitive.
  int64_t rankTokens = 0;
  /// Query-key pairs the rank's attention computes per head and sequence,
  /// s^2 (cp + 1) / (2 cp^2) = 2 c^2 (cp + 1) for c = s / (2 cp): a 2c x 2c
  /// causal block at ring step 0 and 2 c^2 at each of the cp - 1 others
  /// (causal blocks are computed in full with a mask, as at cp = 1).
  int64_t scorePairs = 0;
};

/// The shape of a sequence of `seqLength` tokens on one of `cp` ranks.
/// Fails naming context_parallel_c1 unless cp > 0 and, for cp > 1, 2 * cp
/// divides seqLength; fails naming the quantity on a 64-bit overflow.
llvm::Expected<ContextParallelShape> contextParallelShape(int64_t seqLength,
                                                          int64_t cp);

/// contextParallelShape for a sequence and a cp > 1 a composition has
/// checked (context_parallel_c1: 2 * cp divides seqLength); an overflow is
/// recorded in `guard`. The one computation both forms share.
ContextParallelShape contextParallelShape(int64_t seqLength, int64_t cp,
                                          OverflowGuard &guard);

/// One collective of the key/value exchange of one block, per micro-batch,
/// on one cp rank. Both cp_comm modes are expressed as the collectives over
/// the `cp` axis whose traffic equals TransformerEngine's
/// (docs/TransformerSpec.md, "Context parallelism", and docs/DistSpec.md):
/// a ring of cp - 1 point-to-point steps sends exactly the bytes of a ring
/// all-gather, and the backward's accumulating dK,dV ring is a ring
/// reduce-scatter. The modes differ in what the attention call holds live
/// and in the TransformerEngine function the collective comes from.
struct ContextParallelTransfer {
  /// Forward, Recommunication (the recomputed attention core runs its
  /// exchange again) or ActivationGrad (the backward).
  Phase phase = Phase::Forward;
  /// "kv" (keys and values) or "d_kv" (their gradients).
  std::string tensor;
  /// AllGather for "kv", ReduceScatter (a sum) for "d_kv".
  CollectiveKind collective = CollectiveKind::AllGather;
  /// The cp ranks.
  int64_t participants = 0;
  /// The logical tensor over all cp ranks, cp times the rank's keys and
  /// values b (s / cp) (kv_heads / tp) (head_dim + v_head_dim) at the
  /// activation type (v_head_dim = head_dim without latent attention)
  /// (CollectiveFacts' convention).
  int64_t messageBytes = 0;
  /// Bytes each rank sends: (cp - 1) times the rank's keys and values, the
  /// ring's cp - 1 steps and the ring collective's (n - 1) M / n alike.
  int64_t sentBytes = 0;
  /// Arithmetic operations on the rank: the reduce-scatter's sums,
  /// (cp - 1) adds per element of the rank's shard (the tensor-parallel
  /// collectives' convention); 0 for an all-gather.
  int64_t ops = 0;
  /// Bytes of the exchanged tensor the attention call holds live at once:
  /// under all_gather the gathered s-token tensor (messageBytes); under ring
  /// the rank's own block and the one in flight (2 x the rank's bytes,
  /// TransformerEngine's two alternating p2p_comm_buffers).
  int64_t attentionLiveBytes = 0;
  /// Whether the transfer is point-to-point sends (cp_comm = ring:
  /// TransformerEngine's flash_attn_p2p_communicate, batch_isend_irecv), not
  /// a collective call (cp_comm = all_gather: all_gather_into_tensor and
  /// reduce_scatter_tensor) (CollectiveFacts::pointToPoint).
  bool pointToPoint = false;
  /// One sentence naming the TransformerEngine function of the mode.
  std::string cause;
};

/// The key/value exchange of one block per micro-batch on one rank, in
/// execution order: an all-gather of K,V forward (again in recompute when
/// the policy recomputes the attention core), again backward, and a
/// reduce-scatter of dK,dV. Empty at cp = 1. Fails if the shape fails or a
/// byte count overflows.
llvm::Expected<std::vector<ContextParallelTransfer>>
contextParallelExchange(const ModelSpec &model, const TrainingSpec &training,
                        const MappingSpec &mapping);

/// `transfer` as an invocation of the block over the cp axis
/// (CollectiveFacts::axis = kContextParallelAxis): primitive cp_kv_gather
/// (all-gather of "kv") or cp_dkv_reduce_scatter (reduce-scatter of
/// "d_kv"), the transfer's phase, participants, message bytes, ops and
/// cause; it reads and writes the tensor in both shardings
/// (collectiveInvocation) at the activation type.
Invocation contextParallelInvocation(const ContextParallelTransfer &transfer,
                                     DataType activationType);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_CONTEXTPARALLEL_H
