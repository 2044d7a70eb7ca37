//===- Implementation.h - Implementation transformation rules ---*- C++ -*-===//
//
// The rules of an implementation transformation (seed 004: a target-specific
// implementation changes physical traffic or executed operations only
// through an explicit, source-linked transformation): what fusing a block's
// tasks into one kernel changes in its derived work, phase by phase, as
// exact integers. docs/Estimate.md, "Implementation transformations", states
// the formulas and their sources. Plain C++: no IR.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_IMPLEMENTATION_H
#define BLUEPRINT_WORKLOAD_IMPLEMENTATION_H

#include "Blueprint/Workload/BlockWork.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace blueprint::workload {

/// The name of the FlashAttention transformation.
inline constexpr llvm::StringLiteral kFlashAttention = "flash-attention";
/// Its sources, cited wherever a delta is reported.
inline constexpr llvm::StringLiteral kFlashAttentionSource =
    "Dao et al., FlashAttention (arXiv:2205.14135) Algorithms 1 and 2 "
    "(forward, backward with recomputation); Dao, FlashAttention-2 "
    "(arXiv:2307.08691) Sec. 4.1 (operation count)";

/// What one implementation transformation changes in one phase of one
/// block's work on one rank (per micro-batch). In every phase
/// executedOps = semanticOps + recomputedOps.
struct ImplementationDelta {
  /// The transformation's name, e.g. kFlashAttention.
  std::string implementation;
  Phase phase = Phase::Forward;
  /// The primitives the fused kernel replaces, in derivation order.
  std::vector<std::string> fused;
  /// The operations of the replaced invocations that are the model's own
  /// work (forward and backward phases; 0 in the recompute phase).
  int64_t semanticOps = 0;
  /// The operations the fused kernel executes.
  int64_t executedOps = 0;
  /// executedOps - semanticOps: work the kernel recomputes (positive), or
  /// recompute the transformation makes redundant (negative).
  int64_t recomputedOps = 0;
  /// Bytes read and written by the replaced invocations minus those of the
  /// fused kernel; negative when the kernel moves more.
  int64_t trafficRemovedBytes = 0;
  /// Bytes stashed by the replaced invocations minus those the fused kernel
  /// stashes; negative when the kernel stashes more.
  int64_t stashRemovedBytes = 0;
  /// One sentence: why the numbers changed.
  std::string cause;
};

/// The query rows of every local head of one micro-batch on one rank,
/// b x (a/t) x (s/cp): the rows FlashAttention keeps one fp32 log-sum-exp
/// for. Fails on overflow.
llvm::Expected<int64_t>
flashAttentionStatisticRows(const ModelSpec &model,
                            const TrainingSpec &training,
                            const MappingSpec &mapping);

/// The deltas of FlashAttention on `work`, one per phase with attention
/// core work: forward (one fused kernel), recompute (selective recompute of
/// the core becomes redundant; full recompute reruns the fused forward) and
/// activation_grad (one fused kernel that recomputes the scores and the
/// softmax, Algorithm 2). `statisticRows` is the number of query rows of
/// every local head, b x (a/t) x s_q: the kernel writes one fp32
/// log-sum-exp per row. Fails, naming the primitive, when `work` has no
/// attention core to fuse (qk_matmul, softmax and attn_v_matmul in the
/// forward) and on overflow.
llvm::Expected<std::vector<ImplementationDelta>>
flashAttentionDeltas(const BlockWork &work, int64_t statisticRows);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_IMPLEMENTATION_H
