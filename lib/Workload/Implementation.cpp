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

constexpr std::array<Implementation, 6> kAll = {
    Implementation::FlashAttention,
    Implementation::FusedSoftmax,
    Implementation::FusedBiasGelu,
    Implementation::FusedBiasDropoutAdd,
    Implementation::MegatronFloat16Optimizer,
    Implementation::MegatronUnfusedAttentionGlue};

/// The row-parallel tails of a block, each in the order the forward emits
/// it (ForwardBuilder::rowParallelTail): what Megatron-LM's
/// bias_dropout_add runs as one kernel after out_proj and after fc2.
constexpr std::array<std::array<llvm::StringLiteral, 3>, 2> kRowParallelTails =
    {{{primitive::kOutProjBias, primitive::kAttnResidualDropout,
       primitive::kAttnResidual},
      {primitive::kFC2Bias, primitive::kMLPDropout, primitive::kMLPResidual}}};

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

using TaskFilter = llvm::function_ref<bool(const Invocation &)>;

/// The tensors of `tasks` that only the pattern's tasks (`inPattern`)
/// touch: written and read by them and read by no other task (for the
/// attention core S, P, the dropped P, the dropout mask and their
/// gradients). A fused kernel keeps them on chip. A tensor no task reads
/// (the block output) leaves the kernel.
llvm::StringSet<> internalTensors(llvm::ArrayRef<Invocation> tasks,
                                  TaskFilter inPattern) {
  llvm::StringSet<> written, readInside, readOutside;
  for (const Invocation &task : tasks) {
    bool member = inPattern(task);
    if (member)
      for (const TensorAccess &access : task.writes)
        written.insert(access.tensor);
    for (const TensorAccess &access : task.reads)
      (member ? readInside : readOutside).insert(access.tensor);
  }
  llvm::StringSet<> internal;
  for (const auto &entry : written)
    if (readInside.contains(entry.getKey()) &&
        !readOutside.contains(entry.getKey()))
      internal.insert(entry.getKey());
  return internal;
}

/// The indices of the tasks `inPattern` selects, grouped by phase, phases
/// in order of first appearance and tasks in plan order.
std::vector<std::pair<Phase, std::vector<size_t>>>
groupByPhase(llvm::ArrayRef<Invocation> tasks, TaskFilter inPattern) {
  std::vector<std::pair<Phase, std::vector<size_t>>> groups;
  for (size_t index = 0; index < tasks.size(); ++index) {
    const Invocation &task = tasks[index];
    if (!inPattern(task))
      continue;
    auto group = llvm::find_if(
        groups, [&](const auto &entry) { return entry.first == task.phase; });
    if (group == groups.end())
      groups.push_back({task.phase, {index}});
    else
      group->second.push_back(index);
  }
  return groups;
}

bool isAttentionCoreTask(const Invocation &task) {
  return primitive::isAttentionCore(task.primitive);
}

bool isAdamWStep(llvm::StringRef primitive) {
  return primitive == primitive::kAdamWStep ||
         primitive == primitive::kEdgeAdamWStep;
}

/// The bytes `list` holds of `tensor`; fails naming `what` when it holds
/// none.
llvm::Expected<int64_t> bytesOfTensor(llvm::ArrayRef<TensorAccess> list,
                                      llvm::StringRef tensor,
                                      llvm::StringRef what) {
  for (const TensorAccess &access : list)
    if (access.tensor == tensor)
      return access.bytes;
  return fail("apply_implementation_c5: megatron-float16-optimizer: the "
              "AdamW step " +
              what + " no '" + tensor + "' (deriveAdamWStep)");
}

/// Adds `bytes` to `tensor`'s entry of `list`, appending it when absent: the
/// step's passes read and write the same tensors several times.
void addBytes(OverflowGuard &guard, std::vector<TensorAccess> &list,
              llvm::StringRef tensor, int64_t bytes) {
  for (TensorAccess &access : list)
    if (access.tensor == tensor) {
      access.bytes = guard.add(access.bytes, bytes, tensor + " bytes");
      return;
    }
  list.push_back({tensor.str(), bytes});
}

/// Whether `task` is forward or recompute work of row-parallel tail
/// `tail`.
bool isTailTask(const std::array<llvm::StringLiteral, 3> &tail,
                const Invocation &task) {
  return isForwardKind(task.phase) && llvm::is_contained(tail, task.primitive);
}

/// The groups of each row-parallel tail, per forward-kind phase, that hold
/// two tasks or more: what one bias_dropout_add kernel replaces.
std::vector<std::vector<size_t>>
rowParallelTailGroups(llvm::ArrayRef<Invocation> tasks) {
  std::vector<std::vector<size_t>> tails;
  for (const auto &tail : kRowParallelTails)
    for (auto &[phase, members] : groupByPhase(
             tasks, [&](const Invocation &t) { return isTailTask(tail, t); }))
      if (members.size() >= 2)
        tails.push_back(std::move(members));
  // Plan order of the first task, so the fusions are listed as the tails run.
  llvm::sort(tails, [](const std::vector<size_t> &left,
                       const std::vector<size_t> &right) {
    return left.front() < right.front();
  });
  return tails;
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
  case Implementation::FusedBiasDropoutAdd:
    return "fused-bias-dropout-add";
  case Implementation::MegatronFloat16Optimizer:
    return "megatron-float16-optimizer";
  case Implementation::MegatronUnfusedAttentionGlue:
    return "megatron-unfused-attention-glue";
  }
  llvm_unreachable("unknown implementation");
}

namespace {

/// Rule apply_implementation_c8 over every transformation a plan would
/// carry. FlashAttention runs no baddbmm/bmm core, so the glue's core
/// kernels (the context copy, the alpha scalings) do not exist beside it,
/// and the runs the glue models (Megatron-LM cfd2e21, de7dc40) had no
/// FlashAttention (docs/Estimate.md, "megatron-unfused-attention-glue").
llvm::Error checkCombination(llvm::ArrayRef<Implementation> carried) {
  if (llvm::is_contained(carried, Implementation::FlashAttention) &&
      llvm::is_contained(carried, Implementation::MegatronUnfusedAttentionGlue))
    return fail("apply_implementation_c8: '" +
                nameOf(Implementation::MegatronUnfusedAttentionGlue) +
                "' models the kernels around the unfused attention core, "
                "which '" +
                nameOf(Implementation::FlashAttention) +
                "' replaces: a plan carries one or the other");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<Implementation>>
workload::parseImplementations(llvm::ArrayRef<std::string> names) {
  std::vector<Implementation> list;
  for (const std::string &name : names) {
    llvm::Expected<Implementation> implementation = parseImplementation(name);
    if (!implementation)
      return implementation.takeError();
    if (llvm::is_contained(list, *implementation))
      return fail("apply_implementation_c1: '" + name + "' is listed twice");
    list.push_back(*implementation);
  }
  if (llvm::Error error = checkCombination(list))
    return std::move(error);
  return list;
}

llvm::Error
workload::checkAgainstApplied(llvm::ArrayRef<Implementation> list,
                              llvm::ArrayRef<Implementation> applied) {
  for (Implementation implementation : list)
    if (addsKernels(implementation) &&
        llvm::is_contained(applied, implementation))
      return fail("apply_implementation_c1: '" + nameOf(implementation) +
                  "' is already applied to this plan by an earlier pass: "
                  "applying it again would add its kernels twice");
  std::vector<Implementation> carried(applied.begin(), applied.end());
  llvm::append_range(carried, list);
  return checkCombination(carried);
}

std::string workload::knownImplementations() {
  std::string names;
  for (Implementation implementation : kAll)
    names += (names.empty() ? "" : ", ") + nameOf(implementation).str();
  return names;
}

llvm::Expected<Implementation>
workload::parseImplementation(llvm::StringRef name) {
  for (Implementation implementation : kAll)
    if (nameOf(implementation) == name)
      return implementation;
  return fail("apply_implementation_c1: unknown implementation '" + name +
              "' (known: " + knownImplementations() + ")");
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

  case Implementation::FusedBiasDropoutAdd:
    return "Megatron-LM bias_dropout_add_fused_train "
           "(megatron/model/transformer.py, --bias-dropout-fusion, on by "
           "default): a torch.jit.script function the PyTorch fuser runs as "
           "one kernel, which reads the row-parallel output, its bias and the "
           "residual once and writes the block's running sum and the dropout "
           "mask; the backward stays autograd's unfused kernels";
  case Implementation::MegatronFloat16Optimizer:
    return "Megatron-LM Float16OptimizerWithFloat16Params.step "
           "(megatron/optimizer/optimizer.py at de7dc40 and cfd2e21, "
           "--fp16/--bf16, --clip-grad 1.0 by default) after the local DDP's "
           "gradient scaling: separate passes over the rank's parameters, "
           "the gradient buffer divided by the data-parallel size before its "
           "all-reduce, at dp = 1 too (LocalDDP.allreduce_gradients, "
           "megatron/model/distributed.py), "
           "the float16 gradients copied to fp32 main "
           "gradients, unscaled and checked for inf/nan under a loss scale, "
           "their L2 norm for clipping (clip_grad_norm_fp32, apex "
           "multi_tensor_l2norm), apex FusedAdam over fp32 (reads p, g, m, v; "
           "writes p, m, v), the main parameters copied to the float16 model "
           "parameters, the gradient buffer zeroed (zero_grad_buffer); the "
           "clipping's rescale runs only when the norm exceeds the bound and "
           "is not counted";
  case Implementation::MegatronUnfusedAttentionGlue:
    return "Megatron-LM cfd2e21 runs the attention's glue as kernels of "
           "their own: the QKV bias added after the GEMM (megatron/mpu/"
           "layers.py 237-239, query_key_value without skip_bias_add, "
           "megatron/model/transformer.py 340-344), the context layer's "
           "permute(2, 0, 1, 3).contiguous() copy (transformer.py 301), in "
           "the backward autograd's split_backward concatenating the Q, K, "
           "V gradients (megatron/mpu/utils.py 46, called at transformer.py "
           "436) and baddbmm's scaling of both operand gradients by alpha = "
           "1/norm_factor (transformer.py 247-251); each reads and writes its "
           "tensor once";
  }
  llvm_unreachable("unknown implementation");
}

bool workload::isFusedBy(Implementation implementation,
                         llvm::StringRef primitive) {
  switch (implementation) {
  case Implementation::FlashAttention:
    return primitive::isAttentionCore(primitive);
  case Implementation::FusedBiasDropoutAdd:
    return llvm::any_of(kRowParallelTails, [&](const auto &tail) {
      return llvm::is_contained(tail, primitive);
    });
  case Implementation::MegatronFloat16Optimizer:
    return isAdamWStep(primitive);
  case Implementation::FusedSoftmax:
  case Implementation::FusedBiasGelu:
  case Implementation::MegatronUnfusedAttentionGlue:
    return false;
  }
  llvm_unreachable("unknown implementation");
}

bool workload::addsKernels(Implementation implementation) {
  return implementation == Implementation::MegatronUnfusedAttentionGlue;
}

std::string workload::alphaScaleKernelOf(llvm::StringRef tensor) {
  return (tensor + kAlphaScaleSuffix).str();
}

bool workload::isAddedBy(Implementation implementation,
                         llvm::StringRef primitive,
                         llvm::ArrayRef<llvm::StringRef> writes) {
  if (!addsKernels(implementation))
    return false;
  return primitive == kQKVBiasAdd || primitive == kContextPermuteCopy ||
         primitive == kQKVGradConcat ||
         (writes.size() == 1 && primitive == alphaScaleKernelOf(writes[0]));
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
  std::vector<std::pair<Phase, std::vector<size_t>>> groups =
      groupByPhase(tasks, isAttentionCoreTask);
  for (const auto &[phase, members] : groups)
    if (!isForwardKind(phase) && phase != Phase::ActivationGrad)
      return fail("apply_implementation_c3: attention-core task '" +
                  tasks[members.front()].primitive + "' of phase " +
                  stringifyEnum(phase) +
                  " is neither forward, recompute nor activation_grad work");
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

  llvm::StringSet<> internal = internalTensors(tasks, isAttentionCoreTask);
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
      fusion.extraOps = recomputeOps;
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

  case Implementation::FusedBiasDropoutAdd:
    if (!rowParallelTailGroups(tasks).empty())
      return std::nullopt;
    return std::string(
        "no forward or recompute phase has two tasks of a row-parallel tail "
        "(bias add, hidden dropout, residual add)");

  case Implementation::MegatronFloat16Optimizer:
    if (llvm::any_of(tasks, [](const Invocation &t) {
          return isAdamWStep(t.primitive);
        }))
      return std::nullopt;
    return std::string("no AdamW step (adamw_step, edge_adamw_step)");

  case Implementation::MegatronUnfusedAttentionGlue:
    if (llvm::any_of(tasks, [](const Invocation &t) {
          return t.primitive == primitive::kQKVProj ||
                 t.primitive == primitive::kAttnVMatmul ||
                 t.primitive == primitive::kQKMatmul;
        }))
      return std::nullopt;
    return std::string("no qkv_proj, attn_v_matmul or qk_matmul task");
  }
  llvm_unreachable("unknown implementation");
}

llvm::Expected<std::vector<Fusion>>
workload::fuseBiasDropoutAdd(llvm::ArrayRef<Invocation> tasks) {
  llvm::StringSet<> internal = internalTensors(tasks, [](const Invocation &t) {
    return llvm::any_of(kRowParallelTails,
                        [&](const auto &tail) { return isTailTask(tail, t); });
  });
  OverflowGuard guard;
  std::vector<Fusion> fusions;
  for (std::vector<size_t> &members : rowParallelTailGroups(tasks)) {
    Fusion fusion;
    fusion.implementation = Implementation::FusedBiasDropoutAdd;
    Invocation &fused = fusion.executed;
    fused.primitive = kBiasDropoutAdd.str();
    fused.phase = tasks[members.front()].phase;
    fused.engine = Engine::Vector;
    fused.cause = causeOf(Implementation::FusedBiasDropoutAdd).str();
    llvm::StringSet<> writtenInKernel;
    for (size_t index : members) {
      const Invocation &task = tasks[index];
      fused.ops = guard.add(fused.ops, task.ops, "fused ops");
      // The row-parallel output, the bias and the residual: each read once,
      // from memory only when an earlier task of the kernel did not make it.
      for (const TensorAccess &access : task.reads)
        if (!writtenInKernel.contains(access.tensor))
          addOnce(fused.reads, access);
      for (const TensorAccess &access : task.writes) {
        writtenInKernel.insert(access.tensor);
        if (!internal.contains(access.tensor))
          addOnce(fused.writes, access);
      }
      // The dropout mask the backward reads.
      for (const TensorAccess &access : task.stashed)
        addOnce(fused.stashed, access);
    }
    for (const TensorAccess &access : fused.stashed)
      fused.stashBytes = guard.add(fused.stashBytes, access.bytes, "stash");
    if (guard.failed())
      return guard.error("fused-bias-dropout-add");
    fusion.originals = std::move(members);
    fusions.push_back(std::move(fusion));
  }
  return fusions;
}

llvm::Expected<std::vector<Fusion>>
workload::megatronOptimizerSteps(llvm::ArrayRef<Invocation> tasks,
                                 bool lossScaling) {
  std::vector<Fusion> fusions;
  for (size_t index = 0; index < tasks.size(); ++index) {
    const Invocation &step = tasks[index];
    if (!isAdamWStep(step.primitive))
      continue;
    // deriveAdamWStep's tensors: P·e_o of each fp32 state tensor, P·e_g of
    // the accumulated gradient, P·e_w of the model parameters.
    llvm::Expected<int64_t> master =
        bytesOfTensor(step.reads, "params_master", "reads");
    if (!master)
      return master.takeError();
    llvm::Expected<int64_t> grads =
        bytesOfTensor(step.reads, "d_params", "reads");
    if (!grads)
      return grads.takeError();
    llvm::Expected<int64_t> weights =
        bytesOfTensor(step.writes, "params", "writes");
    if (!weights)
      return weights.takeError();
    if (step.ops % opcount::kAdamWPerParameter != 0)
      return fail("apply_implementation_c5: megatron-float16-optimizer: " +
                  step.primitive + " ops " + llvm::Twine(step.ops) +
                  " are not " + llvm::Twine(opcount::kAdamWPerParameter) +
                  " per parameter (deriveAdamWStep)");
    int64_t parameters = step.ops / opcount::kAdamWPerParameter;
    // Float16OptimizerWithFloat16Params is the step of 16-bit (fp16 or
    // bf16) model parameters with fp32 main parameters and Adam state;
    // fp32 weights run Megatron-LM's FP32Optimizer, whose passes differ.
    // parameters <= INT64_MAX / 16, so 4 * parameters cannot overflow.
    if (*weights != 2 * parameters || *master != 4 * parameters)
      return fail("apply_implementation_c6: megatron-float16-optimizer: " +
                  step.primitive + " steps " + llvm::Twine(parameters) +
                  " parameters of " + llvm::Twine(*weights) +
                  " bytes with main parameters of " + llvm::Twine(*master) +
                  " bytes; Megatron-LM's Float16OptimizerWithFloat16Params "
                  "steps 16-bit parameters (2 bytes each) with fp32 main "
                  "parameters and state (4 bytes each)");

    OverflowGuard guard;
    Fusion fusion;
    fusion.implementation = Implementation::MegatronFloat16Optimizer;
    fusion.originals = {index};
    Invocation &executed = fusion.executed;
    executed.primitive = step.primitive == primitive::kEdgeAdamWStep
                             ? kEdgeMegatronOptimizerStep.str()
                             : kMegatronOptimizerStep.str();
    executed.phase = step.phase;
    executed.engine = step.engine;
    executed.cause = causeOf(Implementation::MegatronFloat16Optimizer).str();
    // The fp32 main gradients are a copy of the float16 model gradients
    // (model_param.main_grad.float()); an fp32 gradient buffer is used as
    // it is (.float() of an fp32 tensor is the tensor).
    bool copiesGrads = *grads != *master;
    llvm::StringRef mainGrads = copiesGrads ? kMainGrads : "d_params";
    // First the local DDP's scaling of the gradient buffer by 1/dp, which
    // train_step runs before the step at every dp, 1 included
    // (allreduce_gradients, megatron/model/distributed.py 195-203 at
    // cfd2e21: `buffer_.data /= mpu.get_data_parallel_world_size()`).
    addBytes(guard, executed.reads, "d_params", *grads);
    addBytes(guard, executed.writes, "d_params", *grads);
    if (copiesGrads) {
      addBytes(guard, executed.reads, "d_params", *grads);
      addBytes(guard, executed.writes, kMainGrads, *master);
    }
    int64_t scaleOps =
        guard.mul(parameters, kDdpGradScaleOpsPerParameter, "DDP scale ops");
    int64_t normOps =
        guard.mul(parameters, kGradNormOpsPerParameter, "grad-norm ops");
    int64_t extraOps = guard.add(scaleOps, normOps, "extra ops");
    if (lossScaling) {
      addBytes(guard, executed.reads, mainGrads, *master);
      addBytes(guard, executed.writes, mainGrads, *master);
      extraOps = guard.add(
          extraOps,
          guard.mul(parameters, kUnscaleOpsPerParameter, "unscale ops"),
          "extra ops");
    }
    // The L2 norm for clipping, then FusedAdam: reads p, g, m, v, writes
    // p, m, v (apex csrc/multi_tensor_adam.cu).
    addBytes(guard, executed.reads, mainGrads, *master);
    addBytes(guard, executed.reads, "params_master", *master);
    addBytes(guard, executed.reads, mainGrads, *master);
    for (const char *state : {"adam_m", "adam_v"}) {
      llvm::Expected<int64_t> bytes = bytesOfTensor(step.reads, state, "reads");
      if (!bytes)
        return bytes.takeError();
      addBytes(guard, executed.reads, state, *bytes);
      addBytes(guard, executed.writes, state, *bytes);
    }
    addBytes(guard, executed.writes, "params_master", *master);
    // The main parameters copied into the model parameters, then the
    // gradient buffer zeroed for the next iteration's accumulation.
    addBytes(guard, executed.reads, "params_master", *master);
    addBytes(guard, executed.writes, "params", *weights);
    addBytes(guard, executed.writes, "d_params", *grads);
    fusion.extraOps = extraOps;
    executed.ops = guard.add(step.ops, extraOps, "executed ops");
    if (guard.failed())
      return guard.error("megatron-float16-optimizer");
    fusions.push_back(std::move(fusion));
  }
  return fusions;
}

llvm::Expected<std::vector<Fusion>>
workload::fusionsOf(Implementation implementation,
                    llvm::ArrayRef<Invocation> tasks,
                    const ImplementationContext &run) {
  switch (implementation) {
  case Implementation::FlashAttention:
    return fuseFlashAttention(tasks, run.scoreRows);
  case Implementation::FusedBiasDropoutAdd:
    return fuseBiasDropoutAdd(tasks);
  case Implementation::MegatronFloat16Optimizer:
    return megatronOptimizerSteps(tasks, run.lossScaling);
  case Implementation::FusedSoftmax:
  case Implementation::FusedBiasGelu:
  case Implementation::MegatronUnfusedAttentionGlue:
    return std::vector<Fusion>();
  }
  llvm_unreachable("unknown implementation");
}

namespace {

/// The elements of `access`, `activationBytes` each; a remainder is rule
/// apply_implementation_c7.
llvm::Expected<int64_t> elementsOf(const TensorAccess &access,
                                   int64_t activationBytes) {
  if (activationBytes <= 0 || access.bytes % activationBytes != 0)
    return fail("apply_implementation_c7: megatron-unfused-attention-glue: "
                "tensor '" +
                access.tensor + "' of " + llvm::Twine(access.bytes) +
                " bytes is not a whole number of " +
                llvm::Twine(activationBytes) + "-byte activation elements");
  return access.bytes / activationBytes;
}

/// A vector kernel of the glue next to task `anchor`.
AddedKernel glueKernel(size_t anchor, bool beforeAnchor, Phase phase,
                       llvm::StringRef primitive) {
  AddedKernel kernel;
  kernel.anchor = anchor;
  kernel.beforeAnchor = beforeAnchor;
  kernel.executed.primitive = primitive.str();
  kernel.executed.phase = phase;
  kernel.executed.engine = Engine::Vector;
  kernel.executed.cause =
      causeOf(Implementation::MegatronUnfusedAttentionGlue).str();
  return kernel;
}

} // namespace

llvm::Expected<std::vector<AddedKernel>>
workload::megatronAttentionGlue(llvm::ArrayRef<Invocation> tasks,
                                int64_t activationBytes) {
  OverflowGuard guard;
  std::vector<AddedKernel> kernels;
  // The forward qkv_proj's outputs (q, k, v), whose gradients the
  // backward's split_backward concatenates.
  std::vector<std::string> qkvGradients;
  for (const Invocation &task : tasks)
    if (task.primitive == primitive::kQKVProj && task.phase == Phase::Forward)
      for (const TensorAccess &access : task.writes)
        qkvGradients.push_back("d_" + access.tensor);
  for (size_t index = 0; index < tasks.size(); ++index) {
    const Invocation &task = tasks[index];
    if (isForwardKind(task.phase) && task.primitive == primitive::kQKVProj) {
      auto bias = llvm::find_if(task.reads, [](const TensorAccess &access) {
        return access.tensor == "b_qkv";
      });
      if (bias == task.reads.end())
        continue;
      // mpu/layers.py 237-239: output = output + bias, a kernel of its own.
      AddedKernel kernel = glueKernel(index, false, task.phase, kQKVBiasAdd);
      for (const TensorAccess &access : task.writes) {
        llvm::Expected<int64_t> elements = elementsOf(access, activationBytes);
        if (!elements)
          return elements.takeError();
        kernel.executed.ops = guard.add(
            kernel.executed.ops,
            guard.mul(*elements, opcount::kBiasAddPerElement, "bias ops"),
            "qkv_bias_add ops");
        kernel.executed.reads.push_back(access);
        kernel.executed.writes.push_back(access);
      }
      kernel.executed.reads.push_back(*bias);
      kernels.push_back(std::move(kernel));
    } else if (isForwardKind(task.phase) &&
               task.primitive == primitive::kAttnVMatmul) {
      // transformer.py 301: permute(2, 0, 1, 3).contiguous(), a copy.
      AddedKernel kernel =
          glueKernel(index, false, task.phase, kContextPermuteCopy);
      kernel.executed.reads = task.writes;
      kernel.executed.writes = task.writes;
      kernels.push_back(std::move(kernel));
    } else if (task.phase == Phase::ActivationGrad &&
               task.primitive == primitive::kQKMatmul) {
      // baddbmm's backward: maybe_multiply(grad.bmm(...), alpha) for each
      // operand (transformer.py 247-251, alpha = 1/norm_factor != 1).
      for (const TensorAccess &access : task.writes) {
        llvm::Expected<int64_t> elements = elementsOf(access, activationBytes);
        if (!elements)
          return elements.takeError();
        AddedKernel kernel = glueKernel(index, false, task.phase,
                                        alphaScaleKernelOf(access.tensor));
        kernel.executed.ops =
            guard.mul(*elements, kAlphaScaleOpsPerElement, "alpha-scale ops");
        kernel.executed.reads = {access};
        kernel.executed.writes = {access};
        kernels.push_back(std::move(kernel));
      }
    } else if (task.phase == Phase::ActivationGrad &&
               task.primitive == primitive::kQKVProj) {
      // split_backward: at::cat of the Q, K, V gradients into the gradient
      // of qkv_proj's output (mpu/utils.py 46, transformer.py 436).
      AddedKernel kernel = glueKernel(index, true, task.phase, kQKVGradConcat);
      int64_t bytes = 0;
      for (const TensorAccess &access : task.reads)
        if (llvm::is_contained(qkvGradients, access.tensor)) {
          kernel.executed.reads.push_back(access);
          bytes = guard.add(bytes, access.bytes, "d_qkv bytes");
        }
      if (kernel.executed.reads.empty())
        continue;
      kernel.executed.writes = {{"d_qkv", bytes}};
      kernels.push_back(std::move(kernel));
    }
  }
  if (guard.failed())
    return guard.error("megatron-unfused-attention-glue");
  return kernels;
}

llvm::Expected<std::vector<AddedKernel>>
workload::addedKernelsOf(Implementation implementation,
                         llvm::ArrayRef<Invocation> tasks,
                         const ImplementationContext &run) {
  if (!addsKernels(implementation))
    return std::vector<AddedKernel>();
  return megatronAttentionGlue(tasks, run.activationBytes);
}

llvm::Expected<int64_t> workload::scoreRowsOf(int64_t microBatch,
                                              const ModelSpec &model,
                                              const MappingSpec &mapping) {
  OverflowGuard guard;
  int64_t rows = guard.product(
      {microBatch, model.heads / mapping.tp, model.seqLength / mapping.cp},
      "score rows b*(a/t)*(s/cp)");
  if (guard.failed())
    return guard.error("flash-attention");
  return rows;
}

llvm::Expected<ImplementationContext>
workload::implementationContextOf(const TrainingSpec &training,
                                  const ModelSpec &model,
                                  const MappingSpec &mapping) {
  llvm::Expected<int64_t> rows =
      scoreRowsOf(training.microBatch, model, mapping);
  if (!rows)
    return rows.takeError();
  ImplementationContext run;
  run.scoreRows = *rows;
  run.lossScaling = training.weightType == DataType::F16;
  run.activationBytes = bytesOf(training.activationType);
  return run;
}

llvm::Expected<std::vector<Invocation>>
workload::applyImplementations(llvm::ArrayRef<Implementation> list,
                               std::vector<Invocation> tasks,
                               const ImplementationContext &run) {
  for (Implementation implementation : list) {
    if (absentPattern(implementation, tasks))
      continue;
    llvm::Expected<std::vector<Fusion>> fusions =
        fusionsOf(implementation, tasks, run);
    if (!fusions)
      return fusions.takeError();
    llvm::Expected<std::vector<AddedKernel>> added =
        addedKernelsOf(implementation, tasks, run);
    if (!added)
      return added.takeError();
    // The fusion, if any, whose originals hold each task.
    std::vector<const Fusion *> fusedBy(tasks.size(), nullptr);
    for (const Fusion &fusion : *fusions)
      for (size_t index : fusion.originals)
        fusedBy[index] = &fusion;
    std::vector<Invocation> transformed;
    auto addKernels = [&](size_t index, bool before) {
      for (const AddedKernel &kernel : *added)
        if (kernel.anchor == index && kernel.beforeAnchor == before)
          transformed.push_back(kernel.executed);
    };
    for (size_t index = 0; index < tasks.size(); ++index) {
      addKernels(index, true);
      if (!fusedBy[index])
        transformed.push_back(std::move(tasks[index]));
      else if (fusedBy[index]->originals.back() == index)
        transformed.push_back(fusedBy[index]->executed);
      addKernels(index, false);
    }
    tasks = std::move(transformed);
  }
  return tasks;
}
