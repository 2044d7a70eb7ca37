//===- Implementation.cpp - Implementation transformations ----------------===//
//
// The rules of docs/Estimate.md "Implementation transformations".
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Implementation.h"

#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <array>

using namespace blueprint;
using namespace blueprint::workload;

namespace {

constexpr std::array<Implementation, 3> kAll = {Implementation::FlashAttention,
                                                Implementation::FusedSoftmax,
                                                Implementation::FusedBiasGelu};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

bool isForwardKind(Phase phase) {
  return phase == Phase::Forward || phase == Phase::Recompute;
}

/// Appends `access` unless a tensor of its name is listed already: a fused
/// kernel moves each tensor between memory and chip once.
void addOnce(std::vector<TensorAccess> &list, const TensorAccess &access) {
  if (llvm::none_of(list, [&](const TensorAccess &entry) {
        return entry.tensor == access.tensor;
      }))
    list.push_back(access);
}

/// The tensors of `tasks` that only the attention core touches: written by
/// a core task and read by no other task (S, P, the dropped P, the dropout
/// mask and their gradients). A fused kernel keeps them on chip.
llvm::StringSet<> internalTensors(llvm::ArrayRef<Invocation> tasks) {
  llvm::StringSet<> written, readOutside;
  for (const Invocation &task : tasks) {
    bool core = primitive::isAttentionCore(task.primitive);
    for (const TensorAccess &access : core ? task.writes : task.reads)
      (core ? written : readOutside).insert(access.tensor);
  }
  llvm::StringSet<> internal;
  for (const auto &entry : written)
    if (!readOutside.contains(entry.getKey()))
      internal.insert(entry.getKey());
  return internal;
}

} // namespace

llvm::StringRef workload::nameOf(Implementation implementation) {
  switch (implementation) {
  case Implementation::FlashAttention:
    return "flash-attention";
  case Implementation::FusedSoftmax:
    return "fused-softmax";
  case Implementation::FusedBiasGelu:
    return "fused-bias-gelu";
  }
  llvm_unreachable("unknown implementation");
}

llvm::Expected<Implementation>
workload::parseImplementation(llvm::StringRef name) {
  for (Implementation implementation : kAll)
    if (nameOf(implementation) == name)
      return implementation;
  return fail("apply_implementation_c1: unknown implementation '" + name +
              "' (known: flash-attention, fused-softmax, fused-bias-gelu)");
}

llvm::StringRef workload::causeOf(Implementation implementation) {
  switch (implementation) {
  case Implementation::FlashAttention:
    return "FlashAttention (Dao et al., NeurIPS 2022, Alg. 1-4; Megatron-LM "
           "--use-flash-attn): tiled attention keeps S and P on chip, stores "
           "only O and the fp32 logsumexp, and its backward recomputes S, P "
           "and the dropout mask; executed ops keep the dense s^2 count, an "
           "upper bound under causal masking (the kernel skips tiles above "
           "the diagonal, a tile-size fact)";
  case Implementation::FusedSoftmax:
    return "Megatron-LM FusedScaleMaskSoftmax "
           "(megatron/core/fusions/fused_softmax.py): scale, mask and softmax "
           "in one kernel";
  case Implementation::FusedBiasGelu:
    return "Megatron-LM bias_gelu_impl "
           "(megatron/core/fusions/fused_bias_gelu.py): bias-add and GeLU in "
           "one kernel";
  }
  llvm_unreachable("unknown implementation");
}

bool workload::isFusedBy(Implementation implementation,
                         llvm::StringRef primitive) {
  return implementation == Implementation::FlashAttention &&
         primitive::isAttentionCore(primitive);
}

llvm::Expected<ImplementationDelta>
workload::deltaOf(llvm::ArrayRef<InvocationFigures> parts,
                  const InvocationFigures &executed) {
  OverflowGuard guard;
  ImplementationDelta delta;
  for (const InvocationFigures &part : parts) {
    delta.semanticOps = guard.add(delta.semanticOps, part.ops, "semantic ops");
    delta.semanticRead =
        guard.add(delta.semanticRead, part.readBytes, "semantic read bytes");
    delta.semanticWrite =
        guard.add(delta.semanticWrite, part.writeBytes, "semantic write bytes");
    delta.semanticStash =
        guard.add(delta.semanticStash, part.stashBytes, "semantic stash bytes");
  }
  if (guard.failed())
    return guard.error("implementation delta");
  delta.executedOps = executed.ops;
  delta.executedRead = executed.readBytes;
  delta.executedWrite = executed.writeBytes;
  delta.executedStash = executed.stashBytes;
  return delta;
}

llvm::Expected<std::vector<Fusion>>
workload::fuseFlashAttention(llvm::ArrayRef<Invocation> tasks,
                             int64_t scoreRows) {
  // The core's tasks of each phase, phases in order of first appearance.
  std::vector<std::pair<Phase, std::vector<size_t>>> groups;
  for (size_t index = 0; index < tasks.size(); ++index) {
    const Invocation &task = tasks[index];
    if (!primitive::isAttentionCore(task.primitive))
      continue;
    if (!isForwardKind(task.phase) && task.phase != Phase::ActivationGrad)
      return fail("apply_implementation_c3: attention-core task '" +
                  task.primitive + "' of phase " + stringifyEnum(task.phase) +
                  " is neither forward, recompute nor activation_grad work");
    auto group = llvm::find_if(
        groups, [&](const auto &entry) { return entry.first == task.phase; });
    if (group == groups.end())
      groups.push_back({task.phase, {index}});
    else
      group->second.push_back(index);
  }
  if (groups.empty())
    return std::vector<Fusion>();

  // Every phase has QK^T, softmax and P·V (dropout only with attention
  // dropout), so the fused kernel computes the same attention.
  for (const auto &[phase, members] : groups)
    for (llvm::StringRef required :
         {primitive::kQKMatmul, primitive::kSoftmax, primitive::kAttnVMatmul})
      if (llvm::none_of(members, [&](size_t index) {
            return tasks[index].primitive == required;
          }))
        return fail("apply_implementation_c4: the attention core of phase " +
                    stringifyEnum(phase) + " has no '" + required +
                    "' task, so FlashAttention cannot replace it");
  auto forward = llvm::find_if(
      groups, [](const auto &entry) { return entry.first == Phase::Forward; });
  if (forward == groups.end())
    return fail("apply_implementation_c4: the attention core has no forward "
                "phase");

  OverflowGuard guard;
  int64_t logsumexpBytes =
      guard.mul(scoreRows, kLogsumexpElementBytes, "logsumexp bytes");
  // Alg. 4's inner loop recomputes S = tau·Q·K^T, P and the
  // dropout mask of each tile: the forward's QK^T, softmax and dropout.
  int64_t recomputeOps = 0;
  std::vector<MatmulShape> recomputedGemms;
  for (size_t index : forward->second)
    if (tasks[index].primitive != primitive::kAttnVMatmul) {
      recomputeOps =
          guard.add(recomputeOps, tasks[index].ops, "recomputed ops");
      llvm::append_range(recomputedGemms, tasks[index].gemms);
    }
  if (guard.failed())
    return guard.error("flash-attention");
  TensorAccess logsumexp{kAttentionLogsumexp.str(), logsumexpBytes};

  llvm::StringSet<> internal = internalTensors(tasks);
  llvm::StringSet<> writtenByCore;
  for (const Invocation &task : tasks)
    if (primitive::isAttentionCore(task.primitive))
      for (const TensorAccess &access : task.writes)
        writtenByCore.insert(access.tensor);
  // O: what the forward core writes for the rest of the block.
  std::vector<TensorAccess> output;
  for (size_t index : forward->second)
    for (const TensorAccess &access : tasks[index].writes)
      if (!internal.contains(access.tensor))
        addOnce(output, access);

  std::vector<Fusion> fusions;
  for (const auto &[phase, members] : groups) {
    Fusion fusion;
    fusion.originals = members;
    Invocation &fused = fusion.executed;
    fused.primitive = kFlashAttention.str();
    fused.phase = phase;
    fused.engine = Engine::Matmul;
    // Its ops also count the softmax and dropout between its GEMMs.
    fused.gemmCover = GemmCover::AtMostOps;
    fused.cause = causeOf(Implementation::FlashAttention).str();
    bool stashedScores = false;
    for (size_t index : members) {
      const Invocation &task = tasks[index];
      fused.ops = guard.add(fused.ops, task.ops, "fused ops");
      // The kernel runs every GEMM of the tasks it replaces, in plan order.
      llvm::append_range(fused.gemms, task.gemms);
      // Q, K, V (forward), dO, Q, K, V (backward): each read once.
      for (const TensorAccess &access : task.reads)
        if (!writtenByCore.contains(access.tensor))
          addOnce(fused.reads, access);
      for (const TensorAccess &access : task.writes)
        if (!internal.contains(access.tensor))
          addOnce(fused.writes, access);
      for (const TensorAccess &access : task.stashed) {
        if (internal.contains(access.tensor))
          stashedScores = true;
        else
          addOnce(fused.stashed, access);
      }
    }
    if (isForwardKind(phase)) {
      // The forward writes L next to O (FlashAttention-2 Alg. 1).
      addOnce(fused.writes, logsumexp);
      // The unfused forward kept S-sized tensors for the backward; the fused
      // one keeps L instead (with recompute, neither is kept).
      if (phase == Phase::Forward && stashedScores)
        addOnce(fused.stashed, logsumexp);
    } else {
      // Alg. 4 reads O and L besides Q, K, V and dO.
      for (const TensorAccess &access : output)
        addOnce(fused.reads, access);
      addOnce(fused.reads, logsumexp);
      fusion.recomputeOps = recomputeOps;
      fused.ops = guard.add(fused.ops, recomputeOps, "fused ops");
      llvm::append_range(fused.gemms, recomputedGemms);
    }
    for (const TensorAccess &access : fused.stashed)
      fused.stashBytes = guard.add(fused.stashBytes, access.bytes, "stash");
    if (guard.failed())
      return guard.error("flash-attention");
    fusions.push_back(std::move(fusion));
  }
  return fusions;
}

std::optional<std::string>
workload::absentPattern(Implementation implementation,
                        llvm::ArrayRef<Invocation> tasks) {
  switch (implementation) {
  case Implementation::FlashAttention:
    if (llvm::any_of(tasks, [](const Invocation &task) {
          return primitive::isAttentionCore(task.primitive);
        }))
      return std::nullopt;
    return std::string("the plan has no attention-core task");
  case Implementation::FusedSoftmax:
    return std::string(
        "the algebra's softmax task already applies the 1/sqrt(d) scale and "
        "the index-generated mask (docs/WorkAlgebra.md, 'Bytes are "
        "unfused'): scale, mask and softmax are one task whose "
        "intermediates are never written");
  case Implementation::FusedBiasGelu:
    return std::string(
        "no bias-add task precedes the activation: the algebra adds the fc1 "
        "bias inside the fc1 task, which writes the activation's input once");
  }
  llvm_unreachable("unknown implementation");
}
