//===- Implementation.cpp - Implementation transformation rules -----------===//
//
// docs/Estimate.md, "Implementation transformations", states every formula
// here and its source.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Implementation.h"

#include "Blueprint/Workload/Checked.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace blueprint;
using namespace blueprint::workload;

namespace {

/// The attention core's primitives, in forward order (FlashAttention's
/// Algorithm 1: S = QK^T, P = softmax(S), dropout, O = PV).
constexpr llvm::StringLiteral kCore[] = {"qk_matmul", "softmax", "attn_dropout",
                                         "attn_v_matmul"};
/// What the fused backward recomputes (Algorithm 2: S, P and the dropout
/// mask from its random-number state).
constexpr llvm::StringLiteral kRecomputedInBackward[] = {"qk_matmul", "softmax",
                                                         "attn_dropout"};

/// The score-shaped tensors (s x s per local head) the fused kernels keep
/// on chip instead of in memory.
constexpr llvm::StringLiteral kOnChip[] = {
    "scores",   "probs",   "probs_dropped",  "attn_dropout_mask",
    "d_scores", "d_probs", "d_probs_dropped"};

/// Bytes of one fp32 log-sum-exp statistic per query row.
constexpr int64_t kStatisticBytes = 4;

bool isCore(llvm::StringRef primitive) {
  return llvm::is_contained(kCore, primitive);
}

bool isOnChip(llvm::StringRef tensor) {
  return llvm::is_contained(kOnChip, tensor);
}

/// Sums the bytes of `accesses` not kept on chip, each tensor once (a
/// tensor two fused invocations read is loaded once).
void addOffChip(llvm::ArrayRef<TensorAccess> accesses, llvm::StringSet<> &seen,
                int64_t &bytes, OverflowGuard &guard) {
  for (const TensorAccess &access : accesses)
    if (!isOnChip(access.tensor) && seen.insert(access.tensor).second)
      bytes = guard.add(bytes, access.bytes, "fused kernel traffic");
}

struct PhaseCore {
  std::vector<const Invocation *> invocations;
  int64_t ops = 0;
  int64_t traffic = 0;
  int64_t stash = 0;
  /// Off-chip bytes of the fused kernel's reads and writes, before the
  /// statistics.
  int64_t fusedTraffic = 0;
  /// Off-chip stashed bytes (q, k, v), before the statistics.
  int64_t fusedStash = 0;
};

PhaseCore coreOf(const BlockWork &work, Phase phase, OverflowGuard &guard) {
  PhaseCore core;
  llvm::StringSet<> read, written, stashed;
  for (const Invocation &invocation : work.invocations) {
    if (invocation.phase != phase || !isCore(invocation.primitive))
      continue;
    core.invocations.push_back(&invocation);
    core.ops = guard.add(core.ops, invocation.ops, "attention core ops");
    int64_t bytes = guard.add(invocation.readBytes(), invocation.writeBytes(),
                              "attention core traffic");
    core.traffic = guard.add(core.traffic, bytes, "attention core traffic");
    core.stash =
        guard.add(core.stash, invocation.stashBytes, "attention core stash");
    addOffChip(invocation.reads, read, core.fusedTraffic, guard);
    addOffChip(invocation.writes, written, core.fusedTraffic, guard);
    addOffChip(invocation.stashed, stashed, core.fusedStash, guard);
  }
  return core;
}

std::vector<std::string> namesOf(const PhaseCore &core) {
  std::vector<std::string> names;
  for (const Invocation *invocation : core.invocations)
    names.push_back(invocation->primitive);
  return names;
}

} // namespace

llvm::Expected<int64_t>
workload::flashAttentionStatisticRows(const ModelSpec &model,
                                      const TrainingSpec &training,
                                      const MappingSpec &mapping) {
  OverflowGuard guard;
  int64_t rows = guard.product({training.microBatch, model.heads / mapping.tp,
                                model.seqLength / mapping.cp},
                               "b x (a/t) x (s/cp)");
  if (guard.failed())
    return guard.error(kFlashAttention);
  return rows;
}

llvm::Expected<std::vector<ImplementationDelta>>
workload::flashAttentionDeltas(const BlockWork &work, int64_t statisticRows) {
  const std::string who = kFlashAttention.str();
  for (llvm::StringRef required : {"qk_matmul", "softmax", "attn_v_matmul"})
    if (!work.find(required, Phase::Forward))
      return llvm::createStringError(
          who + ": the block has no forward '" + required.str() +
          "', so there is no attention core to fuse");
  if (statisticRows <= 0)
    return llvm::createStringError(
        who + ": the statistic rows b x (a/t) x s_q must be positive, got " +
        std::to_string(statisticRows));
  OverflowGuard guard;
  const int64_t statistics =
      guard.mul(statisticRows, kStatisticBytes, "log-sum-exp statistics bytes");
  // Full recompute reruns the whole block forward (every forward invocation
  // has a clone); selective recompute clones only the attention core.
  const bool fullRecompute =
      llvm::any_of(work.invocations, [](const Invocation &invocation) {
        return invocation.phase == Phase::Recompute &&
               !isCore(invocation.primitive);
      });
  // The output O the backward reads back (D = rowsum(dO o O)).
  int64_t outputBytes = 0;
  for (const TensorAccess &access :
       work.find("attn_v_matmul", Phase::Forward)->writes)
    if (access.tensor == "context")
      outputBytes = access.bytes;

  std::vector<ImplementationDelta> deltas;
  for (Phase phase :
       {Phase::Forward, Phase::Recompute, Phase::ActivationGrad}) {
    PhaseCore core = coreOf(work, phase, guard);
    if (core.invocations.empty())
      continue;
    ImplementationDelta delta;
    delta.implementation = who;
    delta.phase = phase;
    delta.fused = namesOf(core);
    int64_t fusedTraffic = core.fusedTraffic;
    int64_t fusedStash = 0;
    if (phase == Phase::Forward) {
      delta.semanticOps = core.ops;
      delta.executedOps = core.ops;
      fusedTraffic = guard.add(fusedTraffic, statistics, "fused traffic");
      // Under full recompute the rerun forward produces the statistics
      // again: the forward stashes nothing of the core.
      if (!fullRecompute)
        fusedStash = guard.add(core.fusedStash, statistics, "fused stash");
      delta.cause =
          "one fused kernel: S = QK^T, softmax, dropout and PV tile by tile "
          "on chip (Algorithm 1); only Q, K, V are read and O and one fp32 "
          "log-sum-exp per row written; the online-softmax rescaling is not "
          "counted (FlashAttention-2 Sec. 4.1 counts the two matmuls)";
    } else if (phase == Phase::Recompute && fullRecompute) {
      delta.executedOps = core.ops;
      delta.recomputedOps = core.ops;
      fusedTraffic = guard.add(fusedTraffic, statistics, "fused traffic");
      delta.cause = "full recompute reruns the fused forward kernel";
    } else if (phase == Phase::Recompute) {
      delta.recomputedOps = guard.sub(0, core.ops, "removed recompute");
      fusedTraffic = 0;
      delta.cause =
          "selective recompute of the attention core is redundant: the "
          "fused backward recomputes S and P itself (Megatron-LM: "
          "--use-flash-attn replaces core-attention recompute)";
    } else {
      delta.semanticOps = core.ops;
      int64_t recomputed = 0;
      for (llvm::StringRef primitive : kRecomputedInBackward)
        if (const Invocation *forward = work.find(primitive, Phase::Forward))
          recomputed =
              guard.add(recomputed, forward->ops, "backward recomputed ops");
      delta.recomputedOps = recomputed;
      delta.executedOps =
          guard.add(core.ops, recomputed, "fused backward executed ops");
      int64_t reread = guard.add(statistics, outputBytes, "O and statistics");
      fusedTraffic = guard.add(fusedTraffic, reread, "fused traffic");
      delta.cause =
          "one fused kernel recomputes S = QK^T, P and the dropout mask from "
          "Q, K and the row statistics (Algorithm 2) and reads O for "
          "rowsum(dO o O): the s x s gradients stay on chip";
    }
    delta.trafficRemovedBytes =
        guard.sub(core.traffic, fusedTraffic, "traffic removed");
    delta.stashRemovedBytes =
        guard.sub(core.stash, fusedStash, "stash removed");
    deltas.push_back(std::move(delta));
  }
  if (guard.failed())
    return guard.error(who);
  return deltas;
}
