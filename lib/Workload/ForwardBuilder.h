//===- ForwardBuilder.h - What the work derivations share -------*- C++ -*-===//
//
// Private to BlueprintWorkload: what its derivations of a rank's work share.
//
// - The contracts' checks, and the composing derivations: each public
//   derivation of a rank's training work checks that the contracts compose
//   and then runs its composing derivation (deriveComposing...,
//   ComposingBlockWorks for a memo's block works), which a whole run calls
//   directly after its one check (WholeRun.cpp).
// - The forward of one decoder block. Training (BlockWork.cpp) and inference
//   (Inference.cpp) run the same forward on one TP rank: the same norms,
//   projections, attention core, MLP and tensor-parallel collectives, with
//   the same primitive ids, tensor names and formulas. They differ only in
//   the run: how many sequences, how many new positions each processes and
//   how many it attends to, the phase, the datatypes, the dropouts, and what
//   the forward keeps for a backward pass. ForwardBuilder emits the shared
//   invocations for a ForwardRun; the training builder adds recompute and
//   backward, the inference builder the KV cache.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_LIB_WORKLOAD_FORWARDBUILDER_H
#define BLUEPRINT_LIB_WORKLOAD_FORWARDBUILDER_H

#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/ExpertParallel.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace blueprint::workload::detail {

/// Bytes of one value of the rotary cos/sin table: fp32, as Megatron's
/// RotaryEmbedding computes its frequencies (inv_freq is float32).
inline constexpr int64_t kRotaryTableBytes = 4;

llvm::Error makeError(const llvm::Twine &message);

/// `preamble` followed by every violation as " [label] message;".
llvm::Error violationsError(const llvm::Twine &preamble,
                            const std::vector<RuleViolation> &violations);

/// Success when `violations` is empty, otherwise "`who`: the specification
/// does not compose:" and every broken rule with its label.
llvm::Error runError(llvm::StringRef who, const RunViolations &violations);

/// runError of checkTrainingRun: what every derivation of a rank's
/// training work (block, edges, optimizer) checks first.
llvm::Error checkTrainingComposes(const ModelSpec &model,
                                  const TrainingSpec &training,
                                  const MappingSpec &mapping,
                                  llvm::StringRef who);

/// The derivations of a rank's training work after checkTrainingComposes:
/// each public derivation (deriveBlockWork, deriveOptimizerWork,
/// deriveEmbeddingWork, deriveHeadWork, deriveEdgeOptimizerWork,
/// blockBoundaries, BlockWorkMemo::of) is the check and then one of these
/// (the memo's is BlockWorkMemo::composingOf, which ComposingBlockWorks
/// opens to the run builder). For contracts that
/// compose only (checkTrainingRun finds no violation): a whole run checks
/// its contracts once (composeTraining) and then derives every part with
/// these, which would only check the same contracts again.
llvm::Expected<BlockWork> deriveComposingBlockWork(const ModelSpec &model,
                                                   BlockKind kind,
                                                   const TrainingSpec &training,
                                                   const MappingSpec &mapping);
llvm::Expected<BlockWork>
deriveComposingOptimizerWork(const ModelSpec &model, BlockKind kind,
                             const TrainingSpec &training,
                             const MappingSpec &mapping);
llvm::Expected<BlockWork>
deriveComposingEmbeddingWork(const ModelSpec &model,
                             const TrainingSpec &training,
                             const MappingSpec &mapping);
llvm::Expected<BlockWork> deriveComposingHeadWork(const ModelSpec &model,
                                                  const TrainingSpec &training,
                                                  const MappingSpec &mapping);
llvm::Expected<BlockWork> deriveComposingEdgeOptimizerWork(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping, bool firstStage, bool lastStage);
llvm::Expected<std::vector<BoundaryTensor>>
deriveComposingBlockBoundaries(const ModelSpec &model,
                               const TrainingSpec &training,
                               const MappingSpec &mapping);
/// The activation boundary `name` of role `role` (activation_in, _out,
/// activation_grad_in, _out) of a block of composing contracts, as
/// deriveComposingBlockBoundaries gives it: b x s x h at the activation
/// type, split along the sequence under sequence parallelism and s / cp
/// tokens per rank at cp > 1. A whole run's pipeline messages carry the
/// output's, without the rest of the boundaries.
BoundaryTensor blockActivationBoundary(std::string name, BoundaryRole role,
                                       const ModelSpec &model,
                                       const TrainingSpec &training,
                                       const MappingSpec &mapping);

/// The block works a whole run derives its parts from, after its one
/// composition check. Only the library sees its definition: a client of
/// BlockWorkMemo goes through of(), which checks the contracts first.
class ComposingBlockWorks {
public:
  /// memo->of(model, kind, training, mapping) without its composition
  /// check, or without a memo deriveComposingBlockWork's derivation (then
  /// held by the caller alone).
  static llvm::Expected<std::shared_ptr<const BlockWork>>
  of(BlockWorkMemo *memo, const ModelSpec &model, BlockKind kind,
     const TrainingSpec &training, const MappingSpec &mapping);
};

/// Checked sum of the bytes of `accesses`; `what` names the sum.
int64_t sumBytes(OverflowGuard &guard,
                 const std::vector<TensorAccess> &accesses,
                 const llvm::Twine &what);

/// Column counts of one block's linears on one TP rank. Every division is
/// exact once heads, kv_heads and ffn_hidden are divisible by tp (the
/// tensor-parallel rules of every composition).
struct RankColumns {
  /// Query and key/value heads of this rank.
  int64_t heads = 0;
  int64_t kvHeads = 0;
  /// Queries heads*head_dim/tp, keys and values each kv_heads*head_dim/tp
  /// (grouped-query attention), and their concatenation.
  int64_t qCols = 0;
  int64_t kvCols = 0;
  int64_t qkvCols = 0;
  /// The activation output ffn/tp and the fc1 output, twice that for SwiGLU
  /// (gate and up projection).
  int64_t ffnCols = 0;
  int64_t fc1Cols = 0;
  /// This rank's values and the attention context out_proj reads:
  /// kvCols and qCols under multi-head attention, heads * v_head_dim each
  /// under multi-head latent attention.
  int64_t valueCols = 0;
  int64_t contextCols = 0;
  /// Multi-head latent attention only: the compressed cache's columns per
  /// position, kv_lora_rank + qk_rope_head_dim (the latent and the shared
  /// rotary key, kv_a_proj's output, whole on every rank), and kv_b_proj's
  /// output columns, heads * (qk_nope_head_dim + v_head_dim).
  int64_t latentCacheCols = 0;
  int64_t keyValueUpCols = 0;
  /// Mixture-of-experts only: one expert's activation output
  /// expert_ffn_hidden/tp and its fc1 output, twice that for SwiGLU (every
  /// expert tensor-parallel like the dense MLP, expert parallelism 1).
  int64_t expertFfnCols = 0;
  int64_t expertFc1Cols = 0;
  /// Mixture-of-experts with shared experts only: the shared experts' one
  /// MLP (Megatron-Core SharedExpertMLP, of width shared_experts *
  /// expert_ffn_hidden) on this rank, its activation output width/tp and
  /// its fc1 output, twice that for SwiGLU; 0 without shared experts.
  int64_t sharedFfnCols = 0;
  int64_t sharedFc1Cols = 0;
};

/// Column counts of one TP rank of tp. Under multi-head latent attention the
/// dense-only qkvCols and kvCols stay 0 (the block has no qkv_proj), so an
/// overflow is named after a tensor the block has.
RankColumns makeRankColumns(const ModelSpec &model, int64_t tp,
                            OverflowGuard &guard);

/// Parameters of the shared experts' MLP held by one TP rank: its slices of
/// w_shared_expert_fc1 [h, c_s/tp] and w_shared_expert_fc2 [f_s/tp, h],
/// h x (sharedFc1Cols + sharedFfnCols); 0 without shared experts.
int64_t sharedExpertParametersPerRank(const ModelSpec &model,
                                      const RankColumns &columns,
                                      OverflowGuard &guard);

/// Parameters of one expert held by one TP rank: its slices of w_expert_fc1
/// [h, c1/tp] and w_expert_fc2 [f_e/tp, h], h x (expertFc1Cols +
/// expertFfnCols). What every expert a forward routes a pair to reads.
int64_t expertParametersPerRank(const ModelSpec &model,
                                const RankColumns &columns,
                                OverflowGuard &guard);

/// One parameter tensor of a block on one TP rank: its shape there and the
/// dimension split over the TP ranks, none when every rank holds it whole.
struct ParameterTensor {
  const char *name = "";
  std::vector<int64_t> shape{};
  std::optional<unsigned> split = std::nullopt;
};

/// Multi-head latent attention's parameter tensors on the rank `columns`
/// describes (Hugging Face DeepseekV3Attention for the tensors, Megatron-LM
/// MLASelfAttention for the split): the down-projections q_a and kv_a and
/// the latent norms (gamma, and beta under LayerNorm) duplicated on every
/// rank, the up-projections q_b (or q_proj without a query latent) and kv_b
/// column-parallel over heads, out_proj row-parallel over
/// heads * v_head_dim. No biases (transformer_model_c10). The one table
/// blockParametersPerRank and the boundaries both derive from.
std::vector<ParameterTensor> latentAttentionTensors(const ModelSpec &model,
                                                    const RankColumns &columns);

/// The KV cache of one block on the rank `columns` describes.
struct KVCacheLayout {
  /// The cache tensors, each [batch, positions, columns].
  std::vector<const char *> tensors{};
  int64_t columns = 0;
  /// The dimension split over TP ranks: the key/value heads' (2), none for
  /// the compressed cache every head reads whole.
  std::optional<unsigned> split = std::nullopt;
  /// Columns per cached position the unfused decode step reads: its scores
  /// kernel (qk_matmul) and its context kernel (attn_v_matmul). The keys
  /// and the values under multi-head attention; the whole compressed cache,
  /// then its latent part again, under multi-head latent attention.
  int64_t scoreReadCols = 0;
  int64_t contextReadCols = 0;
};

/// k_cache and v_cache of kv_heads/tp x head_dim each, or under multi-head
/// latent attention one kv_cache of kv_lora_rank + qk_rope_head_dim
/// (DeepSeek-V2 Sec. 2.1.2) held whole by every TP rank.
KVCacheLayout kvCacheLayout(const ModelSpec &model, const RankColumns &columns);

/// The declared per-element count of the MLP activation, per output element
/// (opcount); SwiGLU's output has ffn columns, its input twice that.
int64_t activationOpsPerElement(ActivationKind kind, bool inputGradient);

/// The primitive ids and tensor names of one MLP of a block: fc1, its
/// activation and fc2; fc1's input, fc1's and the activation's outputs,
/// fc2's output; the two weights.
struct MlpTensors {
  llvm::StringRef fc1;
  llvm::StringRef activation;
  llvm::StringRef fc2;
  llvm::StringRef input;
  llvm::StringRef fc1Out;
  llvm::StringRef actOut;
  llvm::StringRef output;
  llvm::StringRef fc1Weight;
  llvm::StringRef fc2Weight;
  /// The gradient fc1's backward writes; empty for "d_" + input.
  llvm::StringRef inputGrad = {};
};

/// Which stashed tensors a recompute policy keeps (SeqSel Sec. 4.1, 5).
enum class StashRole {
  /// The block input x: the only tensor full recompute checkpoints.
  BlockInput,
  /// Kept by none and selective recompute.
  Kept,
  /// Inside the attention core (softmax output, attention dropout mask and
  /// output): recomputed, not kept, under selective recompute.
  AttentionCore,
};

/// What one derivation of a block's forward runs on.
struct ForwardRun {
  /// The phase of every forward invocation: forward (training), prefill or
  /// decode (inference).
  Phase phase = Phase::Forward;
  /// Sequences b on this data-parallel rank.
  int64_t batch = 0;
  /// New positions each sequence processes, the rows per sequence of every
  /// linear: the sequence length, the prompt length, or 1 in a decode step.
  int64_t queries = 0;
  /// Positions each new position attends to: the sequence length, the
  /// prompt length, or the context length of a decode step.
  int64_t keys = 0;
  /// Every query attends to a prefix of the keys, so the scores carry a
  /// causal mask (training, prefill); a decode step's one query sees every
  /// key and needs none.
  bool causalMask = true;
  DataType activationType = DataType::BF16;
  DataType weightType = DataType::BF16;
  bool attentionDropout = false;
  bool hiddenDropout = false;
  /// The recompute policy that decides what the forward keeps for the
  /// backward pass; std::nullopt when there is no backward pass (inference)
  /// and nothing is kept.
  std::optional<RecomputePolicy> stashFor;
  /// A training run at ep > 1: the rank's expert-parallel shape and the
  /// MoEAlltoAllTokenDispatcher's collectives in execution order
  /// (expertParallelShape, expertParallelDispatch). std::nullopt at ep = 1,
  /// which keeps the all-gather dispatcher (docs/WorkAlgebra.md, "Expert
  /// parallelism").
  std::optional<ExpertParallelShape> expertParallel;
  std::vector<ExpertParallelTransfer> expertDispatch;
};

/// The forward of a training micro-batch: b = micro_batch sequences of
/// seq_length positions, each attending causally to its own sequence, with
/// the training's datatypes and dropouts, kept for the backward as
/// `stashFor` decides (the mapping's recompute policy for the layers; none
/// for the edges, which Megatron's activation recompute never covers).
ForwardRun trainingForwardRun(const ModelSpec &model,
                              const TrainingSpec &training,
                              RecomputePolicy stashFor);

/// Exact dimensions of one block on one TP rank for one run. Under sequence
/// parallelism the tokens are divisible by tp (decoder_training_c9).
struct RankShape : RankColumns {
  int64_t tp = 1;
  bool sequenceParallel = false;
  int64_t batch = 0;
  /// The run's queries per sequence, or under context parallelism the
  /// rank's s / cp of them.
  int64_t queries = 0;
  int64_t keys = 0;
  /// Keys each query's score row holds: `keys`, or the model's attention
  /// window when that is shorter (ModelSpec::attendedKeys); under context
  /// parallelism the rank's score pairs per query row, s (cp + 1) / (2 cp)
  /// (contextParallelShape), so that queries x attendedKeys are its pairs.
  int64_t attendedKeys = 0;
  int64_t hidden = 0;
  int64_t headDim = 0;
  /// b * queries: the rows M of every linear (all-gathered under SP).
  int64_t tokens = 0;
  /// Rows of norms, dropouts, residuals and row-parallel biases: the tokens,
  /// or the rank's sequence shard tokens/tp under sequence parallelism.
  int64_t localTokens = 0;
  /// The width of a value head: head_dim, or v_head_dim under multi-head
  /// latent attention.
  int64_t valueHeadDim = 0;
  /// The rotated width of a query or key head, and the columns of this
  /// rank's rotated queries and keys per token: head_dim and qCols + kvCols,
  /// or under multi-head latent attention qk_rope_head_dim and
  /// heads/tp * qk_rope_head_dim + qk_rope_head_dim (the one shared rotary
  /// key).
  int64_t rotaryDim = 0;
  int64_t rotatedCols = 0;
  /// The context-parallel degree: 1, or the cp ranks a training sequence is
  /// cut over (then `queries` and `attendedKeys` are the rank's).
  int64_t cp = 1;
};

/// Emits the forward invocations of one block on one TP rank, in execution
/// order, into `work`. Every count goes through `guard`; derived builders
/// call finish() to turn the first overflow into an error.
class ForwardBuilder {
protected:
  ForwardBuilder(const ModelSpec &model, const MappingSpec &mapping,
                 const ForwardRun &run);

  // Tensor accesses at their datatype; `name` also names the byte count.
  TensorAccess activation(llvm::StringRef name, int64_t elements);
  TensorAccess weight(llvm::StringRef name, int64_t elements);
  /// A dropout mask: one byte per element (SeqSel Sec. 4.1).
  TensorAccess mask(llvm::StringRef name, int64_t elements) {
    return {name.str(), elements};
  }

  int64_t elements(std::initializer_list<int64_t> factors,
                   llvm::StringRef what);

  /// The operations of an invocation and, for a matmul, the GEMMs they
  /// are (matmulShapeViolation holds for what linearOps, attentionMatmul
  /// and bothGemms return); a plain count converts for every other engine.
  struct WorkCount {
    WorkCount(int64_t ops) : ops(ops) {}
    WorkCount(int64_t ops, std::vector<MatmulShape> gemms)
        : ops(ops), gemms(std::move(gemms)) {}
    int64_t ops;
    std::vector<MatmulShape> gemms;
  };

  /// What emit({}) records. Braced initialisation evaluates its clauses left
  /// to right, so the first overflowing quantity, and thus the diagnostic,
  /// does not depend on the compiler's argument evaluation order. The cause
  /// Twine is consumed within the emitting full-expression.
  struct InvocationSpec {
    llvm::StringRef primitive;
    Phase phase;
    Engine engine;
    WorkCount ops;
    std::vector<TensorAccess> reads;
    std::vector<TensorAccess> writes;
    llvm::Twine cause;
  };

  Invocation &emit(InvocationSpec spec);

  /// Keeps `tensor` for the backward pass if the run's recompute policy
  /// does; a run without a backward pass keeps nothing.
  void stash(Invocation &invocation, TensorAccess tensor, StashRole role);

  // Operation counts, one formula each.

  /// "<primitive> <phase> ops": the quantity a forward count is named by.
  std::string opsName(llvm::StringRef primitive) const;
  /// Linear Y[M,K] = X[M,N] W[N,K]: 2MNK (MLM2021 App.; SeqSel App. A). The
  /// same count holds for the input gradient dX = dY W^T and the weight
  /// gradient dW += X^T dY. Each output is a length-N (resp. M) chain of
  /// multiply-adds onto an initial value: the column-parallel bias in the
  /// forward, the accumulated gradient in the weight gradient.
  /// Its GEMM is {1, M, K, N} in MatmulShape's names (N here is the
  /// contraction).
  /// `batch` such GEMMs (the experts of one load group) count `batch` times.
  WorkCount linearOps(llvm::StringRef what, int64_t m, int64_t n, int64_t k,
                      int64_t batch = 1);
  /// One linear over `rowGroups` (`linear` at each group's rows and
  /// experts, in order): the ops summed, the GEMMs listed.
  WorkCount
  groupedLinearOps(llvm::StringRef what, llvm::ArrayRef<ExpertLoad> rowGroups,
                   llvm::function_ref<WorkCount(const ExpertLoad &)> linear);
  /// One attention batched matmul over the b (heads/t) heads of this rank,
  /// each an [m, n] output with contraction length k: 2 b (heads/t) m n k.
  /// QK^T is m = q queries, n = the attended keys, k = the query/key head
  /// width; probs x V is m = q, n = the value head width, k = the attended
  /// keys (SeqSel App. A: 2Bs^2h each at q = k = s, divided by t). The
  /// backward's two GEMMs per matmul transpose these (bothGemms).
  WorkCount attentionMatmul(llvm::StringRef what, int64_t m, int64_t n,
                            int64_t k);
  /// `batch` GEMMs of one shape (MatmulShape): 2 batch M N K.
  WorkCount gemm(llvm::StringRef what, MatmulShape shape);
  /// Two GEMMs one invocation runs (an attention matmul's backward): the
  /// ops summed, the shapes in order.
  WorkCount bothGemms(llvm::StringRef what, WorkCount first, WorkCount second);
  /// Elements of this rank's attention scores (or probabilities, or their
  /// gradients): b (heads/t) q k for k attended keys per query.
  int64_t scoreElements(llvm::StringRef what);
  /// A row-wise Vector primitive: rows * (perElement * width + perRow).
  int64_t rowwiseOps(llvm::StringRef what, int64_t rows, int64_t width,
                     int64_t perElement, int64_t perRow);
  /// An elementwise Vector primitive: count * perElement.
  int64_t elementwiseOps(llvm::StringRef what, int64_t count,
                         int64_t perElement);
  /// Additions of a sum-reduction of tp partial tensors of E elements:
  /// (tp-1)E in all, (tp-1)E/tp per rank; all-reduce and reduce-scatter
  /// alike. E is divisible by tp (hidden is).
  int64_t reductionOps(llvm::StringRef what, int64_t elementCount);

  /// A TP collective over the block's tokens x hidden activation (or
  /// gradient) `tensor`. Message bytes are the full logical tensor
  /// (Calculon's convention, reference README def. 5). Local reads and
  /// writes are the rank's input and output buffers.
  void tpCollective(llvm::StringRef primitive, Phase phase, CollectiveKind kind,
                    llvm::StringRef tensor, const llvm::Twine &cause);
  /// Under sequence parallelism (tp > 1), the all-gather of the
  /// sequence-sharded `tensor` over the TP ranks before a column-parallel
  /// linear's forward (SeqSel Sec. 4.2.2, g) or a row-parallel linear's
  /// backward (g-bar backward); nothing otherwise. The one statement of that
  /// gather for attention, the dense MLP, the shared experts, the MLP input's
  /// backward re-gather, and the model edges (LM head input, d_embeddings).
  void gatherSequenceShards(llvm::StringRef primitive, Phase phase,
                            llvm::StringRef tensor, const llvm::Twine &cause);
  /// The same over a tokens x `width` tensor (a latent of multi-head latent
  /// attention); E = tokens * width is divisible by tp under sequence
  /// parallelism (decoder_training_c9).
  void tpCollectiveOver(llvm::StringRef primitive, Phase phase,
                        CollectiveKind kind, llvm::StringRef tensor,
                        int64_t width, const llvm::Twine &cause);
  /// The same at `elementBytes` per element (a one-byte routing map).
  void tpCollectiveOf(llvm::StringRef primitive, Phase phase,
                      CollectiveKind kind, llvm::StringRef tensor,
                      int64_t width, int64_t elementBytes,
                      const llvm::Twine &cause);

  bool hasCollectives() const { return shape.tp > 1; }

  // The forward, in execution order.
  void norm(llvm::StringRef primitive, llvm::StringRef input,
            llvm::StringRef output, StashRole inputRole);
  /// A norm over `width` features of this rank's rows (the latents of
  /// multi-head latent attention); norm() is the one over hidden.
  void normOver(llvm::StringRef primitive, llvm::StringRef input,
                llvm::StringRef output, int64_t width,
                llvm::StringRef dimension, StashRole inputRole);
  /// The norm's backward: its input gradient (activation_grad) and its
  /// parameter gradients, `gradientBytes` per element, accumulated over this
  /// rank's rows (weight_grad).
  void normBackward(llvm::StringRef primitive, llvm::StringRef input,
                    llvm::StringRef output, int64_t gradientBytes);
  void normBackwardOver(llvm::StringRef primitive, llvm::StringRef input,
                        llvm::StringRef output, int64_t width,
                        int64_t gradientBytes);
  void attentionInput();
  /// The attention input of multi-head latent attention (DeepSeek-V2
  /// Sec. 2.1; Megatron-Core MLASelfAttention): norm1, the replicated
  /// down-projections q_a_proj and kv_a_proj on this rank's rows, the latent
  /// norms, under sequence parallelism the all-gathers of the normed latents
  /// and of the shared rotary key, the column-parallel up-projections
  /// q_b_proj (or q_proj) and kv_b_proj, and the rotary embedding of the
  /// rotary parts of q and k.
  /// `upProjectKeys` false leaves out kv_b_proj: the absorbed decode step
  /// attends to the cached latent instead of per-head keys and values.
  void latentAttentionInput(bool upProjectKeys);
  /// The query/key columns of this rank without their rotary part:
  /// heads/tp * qk_nope_head_dim (multi-head latent attention).
  int64_t latentKeyCols();
  /// The rotary embedding over this rank's rotated queries and keys
  /// (rotated(prefix)) in `phase`: forward or its transposed rotation.
  void rotary(Phase phase, llvm::StringRef prefix, const llvm::Twine &cause);
  /// The tensors rotary embeddings rotate, each name prefixed by `prefix`
  /// ("" or "d_"): q and k, or under multi-head latent attention the rotary
  /// parts q_rope and the shared k_rope.
  std::vector<TensorAccess> rotated(llvm::StringRef prefix);
  /// The keys the run's new positions produced, each name prefixed by
  /// `prefix`: k, or under multi-head latent attention k_nope (this rank's
  /// heads) and the shared rotary key k_rope.
  std::vector<TensorAccess> newKeys(llvm::StringRef prefix);
  /// The values the run's new positions produced (valueCols per token).
  TensorAccess newValues(llvm::StringRef name);
  /// The keys (or values) `name` that qkv_proj produced for the run's new
  /// positions, at the activation type.
  TensorAccess newKeysOrValues(llvm::StringRef name);
  void attentionCore(std::vector<TensorAccess> keys, TensorAccess values);
  /// What the attention core reads and writes: the queries and keys of the
  /// scores over scoreWidth columns per head, the values and the context
  /// over valueWidth (head_dim each under multi-head attention; the latent
  /// widths in multi-head latent attention's absorbed decode).
  struct AttentionOperands {
    std::vector<TensorAccess> queries;
    std::vector<TensorAccess> keys;
    TensorAccess values;
    int64_t scoreWidth = 0;
    int64_t valueWidth = 0;
    TensorAccess context;
    std::string scoreCause;
  };
  /// The attention core of attentionCore over explicit operands.
  void attentionCoreOf(AttentionOperands operands);
  std::string softmaxCause() const;
  void attentionOutput();
  /// norm2, the dense MLP or the MoE block's experts, and the row-parallel
  /// tail into the residual stream.
  void forwardMlp();
  void forwardDenseMlp();
  /// The MLP activation `primitive` of `input` (fc1's output, twice the
  /// columns under SwiGLU) into `output`; keeps its input.
  void activationForward(llvm::StringRef primitive, llvm::StringRef input,
                         llvm::StringRef output, int64_t inputElements,
                         int64_t outputElements);
  /// Its input gradient: d_`input` from d_`output` and the kept input.
  void activationBackward(llvm::StringRef primitive, llvm::StringRef input,
                          llvm::StringRef output, int64_t inputElements,
                          int64_t outputElements);
  /// One MLP on this rank, fc1 (column-parallel), its activation and fc2
  /// (row-parallel) over `rows` token rows of width h: the dense MLP, the
  /// routed experts over their token-expert pairs, or the shared experts.
  /// The one statement of the MLP's linears, forward and backward.
  struct MlpLinears : MlpTensors {
    int64_t rows = 0;
    /// The GEMMs' row groups: one group of `rows` for the dense MLP and the
    /// shared experts; the routed experts' loads (ExpertRouting::loads), one
    /// batch of per-expert GEMMs per group of equal rows.
    std::vector<ExpertLoad> rowGroups;
    int64_t fc1Cols = 0;
    int64_t ffnCols = 0;
    /// The weight copies fc1 and fc2 read: 1, or the routed experts that
    /// receive a pair.
    int64_t weightCopies = 1;
    /// The rows of `input` fc1 keeps for the backward (the rank's sequence
    /// shard of x_norm2 for the dense MLP); none when another invocation
    /// keeps that input already.
    std::optional<int64_t> stashedInputRows = std::nullopt;
    /// Whether fc1 adds its bias b_fc1 (the dense MLP under linear_bias =
    /// all; experts have none, decoder_moe_c5).
    bool fc1Bias = false;
    /// What the MLP is, for the causes ("the MLP", "the shared experts").
    std::string what;
  };
  /// The MLP's forward: fc1, the activation and fc2.
  void mlpForward(
      const MlpLinears &mlp,
      llvm::function_ref<void()> afterActivation = [] {});
  /// The linears of `tensors` over `rows` token rows, fc1 `fc1Cols` and
  /// fc2 `ffnCols` columns wide, one weight copy, no bias, no stashed input:
  /// what the dense MLP, the routed and the shared experts share.
  static MlpLinears mlpLinears(const MlpTensors &tensors, int64_t rows,
                               int64_t fc1Cols, int64_t ffnCols,
                               std::string what);
  /// The dense MLP's linears.
  MlpLinears denseMlp();
  /// The routed experts' linears over `pairs` (A experts read, P rows).
  MlpLinears routedExperts(const ExpertRouting &pairs);
  /// At ep > 1 the rank's n_e local experts on the P_x pairs they receive
  /// (ExpertParallelShape::processedPairs, expertLoads).
  MlpLinears expertParallelExperts();
  /// The shared experts' linears: one MLP of shared_experts *
  /// expert_ffn_hidden columns on every token (T rows), accumulating into
  /// the combined routed output mlp_proj.
  MlpLinears sharedExperts();
  /// The MoE block's MLP (docs/WorkAlgebra.md, "Mixture-of-experts"): the
  /// router on this rank's rows, the all-gathers of the routing and of
  /// x_norm2 under sequence parallelism, the permute into expert order, the
  /// experts' fc1, activation and fc2 on their token rows, the combine,
  /// and the shared experts' MLP on every token.
  void forwardExperts();
  /// forwardExperts at ep > 1 after the router: the counts' all-gather, the
  /// permute of the rank's P_l pairs, the all-to-alls over ["ep"] (and the
  /// TP gathers at tp > 1), the n_e local experts on P_x pairs with the
  /// probabilities applied to their activation output, the TP
  /// reduce-scatter, the combine's all-to-all and the unpermute.
  void forwardExpertParallel(int64_t localInput, int64_t localRouting);
  /// The dispatcher's collective of `tensor` in `phase` as the invocation
  /// `primitive`, its figures those of expertParallelDispatch.
  void expertParallelCollective(llvm::StringRef primitive, Phase phase,
                                llvm::StringRef tensor);
  /// The softmax router's scores and top-k on this rank's rows (Mixtral,
  /// Megatron-Core TopKRouter), over `localRouting` score elements.
  void forwardSoftmaxRouting(int64_t localRouting);
  /// DeepSeek-V3's sigmoid scores and group-limited top-k on this rank's
  /// rows (router = sigmoid_group_limited).
  void forwardGroupLimitedRouting(int64_t localRouting);
  /// The shared experts after the routed output's reduction, on Megatron-Core
  /// SharedExpertMLP's schedule: their own all-gather of x_norm2 under
  /// sequence parallelism, their MLP into shared_expert_out, its own
  /// reduction, and the add onto the reduced routed output mlp_proj.
  void forwardSharedExperts();
  /// The balanced routing of this run's tokens, one router call per
  /// sequence shard (each rank routes its localTokens).
  ExpertRouting routing() {
    return balancedRouting(*model.moe, shape.tokens,
                           shape.tokens / shape.localTokens, guard);
  }
  /// Elements of the routing probabilities (or the routing map) over `rows`
  /// tokens: rows x E.
  int64_t routingElements(int64_t rows, llvm::StringRef what) {
    return elements({rows, model.moe->experts}, what);
  }
  /// The reduction of a row-parallel linear's partial sums `partial` over
  /// the TP group: a reduce-scatter onto the sequence shards under sequence
  /// parallelism, else an all-reduce; nothing without collectives.
  void reduceRowParallel(llvm::StringRef collectivePrimitive,
                         llvm::StringRef partial);
  /// What follows a row-parallel linear's reduction: its bias, hidden
  /// dropout and residual add. The dropout writes "<input>_dropped".
  void rowParallelTail(llvm::StringRef biasPrimitive, llvm::StringRef partial,
                       llvm::StringRef bias, llvm::StringRef biased,
                       llvm::StringRef dropoutPrimitive,
                       llvm::StringRef dropoutMask,
                       llvm::StringRef residualPrimitive, llvm::StringRef skip,
                       llvm::StringRef residualOutput);
  /// What a row-parallel tail passes on to its dropout or residual add: the
  /// biased output, or without row-parallel biases the reduced projection
  /// `partial` itself.
  llvm::StringRef rowParallelOutput(llvm::StringRef partial,
                                    llvm::StringRef biased) const {
    return model.hasOutputAndMLPBiases() ? biased : partial;
  }
  /// The cos/sin table of rotary embeddings for the run's new positions:
  /// rotaryDim/2 angles each with a cos and a sin, rotaryDim fp32 values per
  /// position (docs/WorkAlgebra.md, "Rotary embeddings").
  TensorAccess rotaryTable();
  /// Rotating (or inversely rotating the gradients of) this rank's rotated
  /// queries and keys over the run's tokens: kRotaryPerElement * tokens *
  /// rotatedCols.
  int64_t rotaryOps(llvm::StringRef what);

  /// The work, or an error naming `who` and the first overflowing quantity.
  /// Also makes readBytes()/writeBytes() safe: every invocation's byte sums
  /// are checked to fit.
  llvm::Expected<BlockWork> finish(llvm::StringRef who);

  const ModelSpec &model;
  const MappingSpec &mapping;
  const ForwardRun run;
  OverflowGuard guard;
  RankShape shape;
  int64_t actBytes;
  int64_t weightBytes;
  BlockWork work;
};

} // namespace blueprint::workload::detail

#endif // BLUEPRINT_LIB_WORKLOAD_FORWARDBUILDER_H
