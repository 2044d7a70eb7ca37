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
enum class Implementation {
  FlashAttention,
  FusedSoftmax,
  FusedBiasGelu,
  FusedBiasDropoutAdd,
  MegatronFloat16Optimizer,
  MegatronUnfusedAttentionGlue
};

/// The transformation's name in `--apply-implementation=` lists.
llvm::StringRef nameOf(Implementation implementation);

/// The transformation named `name`; an unknown name is rule
/// `apply_implementation_c1`, whose message lists the known names.
llvm::Expected<Implementation> parseImplementation(llvm::StringRef name);

/// The transformations `names` lists, in order; an unknown name or one
/// listed twice is rule `apply_implementation_c1`, flash-attention with
/// megatron-unfused-attention-glue rule `apply_implementation_c8`.
llvm::Expected<std::vector<Implementation>>
parseImplementations(llvm::ArrayRef<std::string> names);

/// Whether `list` may transform a plan that the transformations `applied`
/// (named by its tasks' `implementation`) have already transformed in an
/// earlier pass: a kernel-adding one applied again is rule
/// `apply_implementation_c1` (its kernels would be added twice), and the
/// two together must satisfy `apply_implementation_c8`.
llvm::Error checkAgainstApplied(llvm::ArrayRef<Implementation> list,
                                llvm::ArrayRef<Implementation> applied);

/// Every transformation's name, comma-separated, for diagnostics.
std::string knownImplementations();

/// The primitive id of FlashAttention's fused task, in every phase.
inline constexpr llvm::StringLiteral kFlashAttention = "flash_attention";
/// The tensor FlashAttention adds: the fp32 logsumexp L of every score row
/// (FlashAttention-2, Dao 2023, Alg. 1 and 2; the NeurIPS 2022 paper's
/// Alg. 2 keeps the row max m and sum l, which L = m + log l replaces).
inline constexpr llvm::StringLiteral kAttentionLogsumexp = "attn_logsumexp";
/// Bytes of one logsumexp element: FlashAttention keeps L in fp32.
inline constexpr int64_t kLogsumexpElementBytes = 4;
/// The primitive id of the fused bias-dropout-add task (Megatron-LM's
/// bias_dropout_add_fused_train), in the forward and recompute phases.
inline constexpr llvm::StringLiteral kBiasDropoutAdd = "bias_dropout_add";

/// The primitive ids of the block's and the edges' optimizer steps as
/// Megatron-LM's Float16OptimizerWithFloat16Params executes them
/// (megatron-float16-optimizer).
inline constexpr llvm::StringLiteral kMegatronOptimizerStep =
    "megatron_optimizer_step";
inline constexpr llvm::StringLiteral kEdgeMegatronOptimizerStep =
    "edge_megatron_optimizer_step";
/// The fp32 main gradients Megatron-LM's mixed-precision optimizer copies
/// float16 model gradients into (_copy_model_grads_to_main_grads).
inline constexpr llvm::StringLiteral kMainGrads = "main_grads";
/// Operations per gradient element of the local DDP's scaling of the
/// gradient buffer by 1/dp (LocalDDP.allreduce_gradients,
/// megatron/model/distributed.py: one division).
inline constexpr int64_t kDdpGradScaleOpsPerParameter = 1;
/// Operations per gradient element of the grad-norm pass (apex
/// multi_tensor_l2norm: square and accumulate).
inline constexpr int64_t kGradNormOpsPerParameter = 2;
/// Operations per gradient element of the unscale pass
/// (torch._amp_foreach_non_finite_check_and_unscale_: the finiteness test
/// and the multiplication by the inverse loss scale).
inline constexpr int64_t kUnscaleOpsPerParameter = 2;

/// Whether a task of `primitive` belongs to the pattern `implementation`
/// fuses: an attention-core task for FlashAttention; a row-parallel tail's
/// bias add, hidden dropout or residual add for fused-bias-dropout-add; an
/// AdamW step (block or edge) for megatron-float16-optimizer;
/// fused-softmax and fused-bias-gelu fuse nothing (absentPattern), so no
/// task is theirs.
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
  /// Operations the kernel executes beyond the originals': FlashAttention's
  /// backward recomputes S = QK^T, P and the dropout mask; Megatron-LM's
  /// optimizer step adds the clipping norm and, under loss scaling, the
  /// unscale.
  int64_t extraOps = 0;
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

/// Megatron-LM's fused bias-dropout-add (bias_dropout_add_fused_train,
/// megatron/model/transformer.py, --bias-dropout-fusion) over the tasks of
/// one block, in plan order: in each forward or recompute phase, each
/// row-parallel tail (out_proj_bias, attn_residual_dropout, attn_residual;
/// fc2_bias, mlp_dropout, mlp_residual) of at least two tasks becomes one
/// vector task that reads the tail's inputs once and writes its output and
/// the dropout mask; operations and stash are conserved. The backward is
/// not fused (docs/Estimate.md).
llvm::Expected<std::vector<Fusion>>
fuseBiasDropoutAdd(llvm::ArrayRef<Invocation> tasks);

/// Megatron-LM's mixed-precision optimizer step
/// (Float16OptimizerWithFloat16Params.step, megatron/optimizer/optimizer.py,
/// under --fp16 or --bf16 with --clip-grad > 0, its default 1.0) over each
/// AdamW step of `tasks` (adamw_step, edge_adamw_step): one task
/// megatron_optimizer_step per step that executes the passes the step runs
/// one after another, each reading and writing the rank's P parameters'
/// tensors: the local DDP's division of the gradient buffer by the
/// data-parallel size (at dp = 1 too), the copy of float16 model gradients into
/// fp32 main gradients (none when the gradients are fp32 already), the unscale
/// and inf/nan check when `lossScaling`, the gradient's L2 norm for clipping,
/// apex FusedAdam over the fp32 main parameters, gradients and m, v, the copy
/// of the main parameters into the float16 model parameters, and the zeroing of
/// the gradient buffer. Operations are the step's plus the scaling's, the
/// norm's and the unscale's (docs/Estimate.md, "megatron-float16-optimizer"). A
/// step without deriveAdamWStep's tensors or with ops not a multiple of 16 is
/// rule `apply_implementation_c5`; one whose parameters are not 2 bytes
/// each with 4-byte main parameters, `apply_implementation_c6`.
llvm::Expected<std::vector<Fusion>>
megatronOptimizerSteps(llvm::ArrayRef<Invocation> tasks, bool lossScaling);

/// The primitive ids of the kernels megatron-unfused-attention-glue adds
/// (Megatron-LM cfd2e21, docs/Estimate.md "megatron-unfused-attention-glue"):
/// the QKV bias added after its GEMM, the context layer's permute copy, the
/// concatenation of the Q, K, V gradients (split_backward) and, per operand
/// gradient of QK^T, its scaling by alpha = 1/norm_factor (baddbmm's
/// backward; 1/(sqrt(d) * layer_number) under query-key layer scaling).
inline constexpr llvm::StringLiteral kQKVBiasAdd = "qkv_bias_add";
inline constexpr llvm::StringLiteral kContextPermuteCopy =
    "context_permute_copy";
inline constexpr llvm::StringLiteral kQKVGradConcat = "qkv_grad_concat";
inline constexpr llvm::StringLiteral kAlphaScaleSuffix = "_alpha_scale";
/// The primitive id of the scaling of QK^T's operand gradient `tensor` by
/// alpha: `<tensor>_alpha_scale` (d_q_alpha_scale, d_k_alpha_scale).
std::string alphaScaleKernelOf(llvm::StringRef tensor);
/// Operations per element of baddbmm's backward scaling by alpha: one
/// multiplication.
inline constexpr int64_t kAlphaScaleOpsPerElement = 1;

/// One kernel a transformation adds beside the plan's tasks, replacing no
/// semantic work: a vector task placed right before or after its anchor.
struct AddedKernel {
  Implementation implementation = Implementation::MegatronUnfusedAttentionGlue;
  /// Index into the task list of the task it runs next to.
  size_t anchor = 0;
  /// Whether it runs before the anchor (the anchor reads what it writes).
  bool beforeAnchor = false;
  /// The kernel's facts, with its `cause`.
  Invocation executed;
};

/// What a transformation needs of the run beyond the tasks.
struct ImplementationContext {
  /// b·(a/t)·(s/cp), as fuseFlashAttention's `scoreRows`.
  int64_t scoreRows = 0;
  /// Whether the step unscales gradients by a loss scale: Megatron-LM builds
  /// a grad scaler for every --fp16 run (constant with --loss-scale, dynamic
  /// without) and none for --bf16 without --loss-scale
  /// (megatron/optimizer/__init__.py), so fp16 weights.
  bool lossScaling = false;
  /// Bytes of one activation element, TrainingSpec::activationType's: the
  /// element count of an added kernel's tensor is its bytes over this.
  int64_t activationBytes = 2;
};

/// The fusions `implementation` makes in `tasks` (the rule of its kind).
llvm::Expected<std::vector<Fusion>> fusionsOf(Implementation implementation,
                                              llvm::ArrayRef<Invocation> tasks,
                                              const ImplementationContext &run);

/// Megatron-LM's unfused kernels around the attention core (cfd2e21,
/// megatron/model/transformer.py and megatron/mpu/) over the tasks of one
/// block, in plan order: in each forward or recompute phase, after qkv_proj
/// (when it reads b_qkv) a bias add that reads q, k, v and b_qkv and writes
/// q, k, v, one operation per element; after attn_v_matmul a copy that
/// reads and writes its output, no operations; in activation_grad, after
/// qk_matmul one scaling per tensor it writes (reads and writes it, one
/// operation per element), and before qkv_proj a concatenation that reads
/// the gradients of the forward qkv_proj's outputs and writes them as one
/// tensor, no operations. A tensor whose bytes are not a multiple of the
/// activation element is rule `apply_implementation_c7`.
llvm::Expected<std::vector<AddedKernel>>
megatronAttentionGlue(llvm::ArrayRef<Invocation> tasks,
                      int64_t activationBytes);

/// The kernels `implementation` adds to `tasks` (none for a fusing
/// transformation).
llvm::Expected<std::vector<AddedKernel>>
addedKernelsOf(Implementation implementation, llvm::ArrayRef<Invocation> tasks,
               const ImplementationContext &run);

/// Whether `implementation` adds kernels instead of fusing tasks: its tasks
/// carry `implementation` with an empty `fuses` (pplan_task_c10).
bool addsKernels(Implementation implementation);

/// Whether a task named `primitive` that writes the tensors `writes` is a
/// kernel `implementation` adds (pplan_task_c10): for
/// megatron-unfused-attention-glue, qkv_bias_add, context_permute_copy,
/// qkv_grad_concat, or the alpha scaling of the one tensor it writes
/// (alphaScaleKernelOf); none for a fusing transformation.
bool isAddedBy(Implementation implementation, llvm::StringRef primitive,
               llvm::ArrayRef<llvm::StringRef> writes);

/// The score rows of one micro-batch on one rank, b·(a/t)·(s/cp), each with
/// one FlashAttention logsumexp element; fails on overflow.
llvm::Expected<int64_t> scoreRowsOf(int64_t microBatch, const ModelSpec &model,
                                    const MappingSpec &mapping);

/// The context of a training run of `model` under `mapping`; fails on
/// overflow.
llvm::Expected<ImplementationContext>
implementationContextOf(const TrainingSpec &training, const ModelSpec &model,
                        const MappingSpec &mapping);

/// The tasks of one block as they run under `list` (in order): each
/// transformation's fusions (fusionsOf) replace their originals by the
/// fused task at the last original's place; the other tasks keep theirs;
/// each added kernel (addedKernelsOf) is inserted next to its anchor.
/// What the pass --apply-implementation writes into a block-scope plan, for
/// callers without IR (the model summary's implementations= option).
llvm::Expected<std::vector<Invocation>>
applyImplementations(llvm::ArrayRef<Implementation> list,
                     std::vector<Invocation> tasks,
                     const ImplementationContext &run);

/// Why `implementation` finds nothing to fuse in `tasks` (docs/Estimate.md):
/// FusedSoftmax and FusedBiasGelu are already single tasks in the algebra,
/// FlashAttention without an attention core, FusedBiasDropoutAdd without a
/// row-parallel tail of two tasks or more, MegatronFloat16Optimizer without
/// an AdamW step, MegatronUnfusedAttentionGlue without qkv_proj,
/// attn_v_matmul or qk_matmul. std::nullopt when fusionsOf or
/// addedKernelsOf has work to do.
std::optional<std::string> absentPattern(Implementation implementation,
                                         llvm::ArrayRef<Invocation> tasks);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_IMPLEMENTATION_H
