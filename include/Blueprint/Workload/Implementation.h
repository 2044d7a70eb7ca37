//===- Implementation.h - Implementation transformations -------*- C++ -*-===//
//
// Target-specific implementations as explicit, source-linked rewrites of a
// plan's task facts (MISSION seed 004, docs/Estimate.md "Implementation
// transformations"): which tasks one fused kernel replaces and what that
// kernel executes. Plain C++ over workload::Invocation, so the pass
// (--apply-implementation) and a search can call the same rules.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_IMPLEMENTATION_H
#define BLUEPRINT_WORKLOAD_IMPLEMENTATION_H

#include "Blueprint/Workload/BlockWork.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// The implementation transformations, in the order the pass applies them.
enum class Implementation { FlashAttention, FusedSoftmax, FusedBiasGelu };

/// The transformation's name in `--apply-implementation=` lists.
llvm::StringRef nameOf(Implementation implementation);

/// The transformation named `name`; an unknown name is rule
/// `apply_implementation_c1`, whose message lists the known names.
llvm::Expected<Implementation> parseImplementation(llvm::StringRef name);

/// The primitive id of FlashAttention's fused task, in every phase.
inline constexpr llvm::StringLiteral kFlashAttention = "flash_attention";
/// The tensor FlashAttention adds: the fp32 logsumexp L of every score row
/// (FlashAttention-2, Dao 2023, Alg. 1 and 2; the NeurIPS 2022 paper's
/// Alg. 2 keeps the row max m and sum l, which L = m + log l replaces).
inline constexpr llvm::StringLiteral kAttentionLogsumexp = "attn_logsumexp";
/// Bytes of one logsumexp element: FlashAttention keeps L in fp32.
inline constexpr int64_t kLogsumexpElementBytes = 4;

/// Whether a task of `primitive` belongs to the pattern `implementation`
/// fuses: an attention-core task for FlashAttention; fused-softmax and
/// fused-bias-gelu fuse nothing (absentPattern), so no task is theirs.
bool isFusedBy(Implementation implementation, llvm::StringRef primitive);

/// One fused task: the tasks it replaces and what it executes.
struct Fusion {
  Implementation implementation = Implementation::FlashAttention;
  /// Indices into the task list, in plan order.
  std::vector<size_t> originals;
  /// The fused task's executed facts: `primitive`, phase, engine, ops,
  /// the GEMMs it runs (the originals' in order, then in the backward the
  /// recomputed QK^T; their ops are at most `ops`: gemmCover AtMostOps) and
  /// the bytes it reads, writes and stashes per tensor, with its `cause`.
  Invocation executed;
  /// Operations the kernel executes beyond the originals' (FlashAttention's
  /// backward recomputes S = QK^T, P and the dropout mask).
  int64_t recomputeOps = 0;
};

/// Semantic (the originals') against executed (the fused task's) figures.
struct ImplementationDelta {
  int64_t semanticOps = 0, executedOps = 0;
  int64_t semanticRead = 0, executedRead = 0;
  int64_t semanticWrite = 0, executedWrite = 0;
  int64_t semanticStash = 0, executedStash = 0;
};

/// The delta of a fused task whose originals have `parts`; fails on
/// overflow.
llvm::Expected<ImplementationDelta>
deltaOf(llvm::ArrayRef<InvocationFigures> parts,
        const InvocationFigures &executed);

/// The one-sentence cause of a transformation's deltas, with its source.
llvm::StringRef causeOf(Implementation implementation);

/// FlashAttention (Dao et al., NeurIPS 2022, Alg. 1-4) over the
/// per-micro-batch tasks of one block of a training plan, in plan order:
/// the attention core of each phase (QK^T, softmax, dropout, P·V forward or
/// recompute; their activation gradients) becomes one fused task.
/// `scoreRows` = b·(a/t)·s/cp, the rows of the score matrix on this rank,
/// each with one fp32 logsumexp. Returns no fusion when the tasks hold no
/// attention core; fails (naming the rule) on an incomplete core.
llvm::Expected<std::vector<Fusion>>
fuseFlashAttention(llvm::ArrayRef<Invocation> tasks, int64_t scoreRows);

/// Why `implementation` finds nothing to fuse in `tasks` (docs/Estimate.md):
/// FusedSoftmax and FusedBiasGelu are already single tasks in the algebra,
/// and FlashAttention without an attention core. std::nullopt when
/// fuseFlashAttention has work to do.
std::optional<std::string> absentPattern(Implementation implementation,
                                         llvm::ArrayRef<Invocation> tasks);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_IMPLEMENTATION_H
