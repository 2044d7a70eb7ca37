//===- Spec.h - Plain model, workload and mapping contracts -----*- C++ -*-===//
//
// The three independent contracts of a decoder-only Transformer training run
// as plain data: the model (dimensions and semantics), the training workload
// (batch and datatypes) and the mapping (TP x PP x DP, recompute, schedule).
// The `transformer` dialect attributes convert to and from these; the work
// algebra and the composition rules consume them. No MLIR types appear here so
// the algebra stays a plain, fast, unit-testable library.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_SPEC_H
#define BLUEPRINT_WORKLOAD_SPEC_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

// The closed vocabularies (NormKind, ActivationKind, DataType, TPCommMode,
// CPCommMode, RecomputePolicy, PipelineSchedule, Phase, Engine, CollectiveKind,
// ReductionKind) with stringifyEnum/symbolizeEnum, generated from
// WorkloadEnums.td.
#include "Blueprint/Workload/WorkloadEnums.h.inc"

namespace blueprint::workload {

/// Bytes per element of a datatype.
int64_t bytesOf(DataType type);

/// Mixture-of-experts MLPs (docs/TransformerSpec.md): in every MoE block a
/// router (a matmul hidden -> experts logits, softmax, top-k) sends each
/// token to `expertsPerToken` of `experts` routed experts, every token also
/// passes through `sharedExperts` always-active experts, and the expert
/// outputs are combined weighted by the router's probabilities. Every expert
/// is a gated or plain MLP of the model's activation and width
/// `expertFfnHidden`.
struct MixtureOfExperts {
  /// Routed experts E.
  int64_t experts = 0;
  /// Experts each token is routed to, k (top-k).
  int64_t expertsPerToken = 0;
  /// The FFN width of one expert (Mixtral's = ffn_hidden, DeepSeek-V3's
  /// moe_intermediate_size).
  int64_t expertFfnHidden = 0;
  /// Always-active experts of width expertFfnHidden every token passes
  /// through besides its k routed ones (DeepSeek-V3: 1).
  int64_t sharedExperts = 0;
  /// Block i (from 0) is an MoE block when i >= firstDenseBlocks and
  /// layerFrequency divides i (DeepSeek-V3's first_k_dense_replace and
  /// moe_layer_freq, Megatron-LM's --moe-layer-freq); the others keep the
  /// dense MLP of width ffn_hidden.
  int64_t firstDenseBlocks = 0;
  int64_t layerFrequency = 1;
  /// Capacity factor C in percent: each expert processes at most
  /// ceil(C * k * tokens / (100 * E)) tokens and drops the rest; none is
  /// dropless routing.
  std::optional<int64_t> capacityFactorPercent = std::nullopt;
  /// The declared load of the most loaded expert over the balanced load k *
  /// tokens / E, in percent (100: balanced).
  int64_t imbalancePercent = 100;
  /// How the router picks a token's experts. Under sigmoid_group_limited
  /// (DeepSeek-V3) the E experts form routerGroups groups of E /
  /// routerGroups, a token's experts come from its routerGroupsPerToken best
  /// groups (n_group, topk_group), and the selection adds a score-correction
  /// bias of E elements per MoE block (a buffer, not a parameter); the
  /// gathered sigmoid scores are renormalised and multiplied by the routed
  /// scaling factor, whose value changes no count. Both group counts are 1
  /// under softmax_topk.
  RouterKind router = RouterKind::SoftmaxTopK;
  int64_t routerGroups = 1;
  int64_t routerGroupsPerToken = 1;

  bool operator==(const MixtureOfExperts &other) const {
    return experts == other.experts &&
           expertsPerToken == other.expertsPerToken &&
           expertFfnHidden == other.expertFfnHidden &&
           sharedExperts == other.sharedExperts &&
           firstDenseBlocks == other.firstDenseBlocks &&
           layerFrequency == other.layerFrequency &&
           capacityFactorPercent == other.capacityFactorPercent &&
           imbalancePercent == other.imbalancePercent &&
           router == other.router && routerGroups == other.routerGroups &&
           routerGroupsPerToken == other.routerGroupsPerToken;
  }
  /// How many of `blocks` blocks have the MoE MLP (closed form of counting
  /// the expert blocks over 0..blocks-1); 0 when the fields are not valid.
  int64_t expertBlocks(int64_t blocks) const;
  /// Whether the router keeps a score-correction bias (sigmoid_group_limited).
  bool hasScoreCorrectionBias() const {
    return router == RouterKind::SigmoidGroupLimited;
  }
  /// Elements of one MoE block's score-correction bias: E under
  /// sigmoid_group_limited, else 0. A buffer the router reads, updated
  /// outside backpropagation: no gradient, no optimizer state.
  int64_t scoreCorrectionBiasElements() const {
    return hasScoreCorrectionBias() ? experts : 0;
  }
};

struct ModelSpec {
  int64_t hidden = 0;
  int64_t heads = 0;
  /// Key/value heads; equal to `heads` without grouped-query attention.
  int64_t kvHeads = 0;
  /// Per-head dimension; hidden / heads unless the model says otherwise.
  int64_t headDim = 0;
  int64_t ffnHidden = 0;
  int64_t seqLength = 0;
  /// Rows of the learned position-embedding table (>= seqLength).
  int64_t maxPositions = 0;
  int64_t vocab = 0;
  int64_t blocks = 0;
  NormKind norm = NormKind::LayerNorm;
  ActivationKind activation = ActivationKind::GeLU;
  /// Which linear layers add a bias (docs/TransformerSpec.md).
  LinearBias linearBias = LinearBias::All;
  /// A learned absolute position table, or rotary embeddings on q and k.
  PositionEmbedding positionEmbedding = PositionEmbedding::Learned;
  /// Whether the LM head uses the word-embedding table as its weight.
  bool tiedEmbeddings = true;
  /// Sliding-window attention: each query attends to at most this many
  /// keys, itself and the ones before it; none is full causal attention.
  std::optional<int64_t> attentionWindow = std::nullopt;
  /// Multi-head latent attention (MLA, DeepSeek-V2 Sec. 2.1): each token's
  /// keys and values are compressed into a kvLoraRank latent shared by every
  /// head, plus one rotary key of qkRopeHeadDim shared by every head; its
  /// queries into a qLoraRank latent, or projected directly when that is
  /// none. A query/key head is qkNopeHeadDim + qkRopeHeadDim wide (headDim),
  /// a value head vHeadDim. All none: multi-head attention.
  std::optional<int64_t> qLoraRank = std::nullopt;
  std::optional<int64_t> kvLoraRank = std::nullopt;
  std::optional<int64_t> qkNopeHeadDim = std::nullopt;
  std::optional<int64_t> qkRopeHeadDim = std::nullopt;
  std::optional<int64_t> vHeadDim = std::nullopt;
  /// Mixture-of-experts MLPs; none is a dense model.
  std::optional<MixtureOfExperts> moe = std::nullopt;

  /// Whether a learned position table exists (max_positions rows).
  bool hasPositionTable() const {
    return positionEmbedding == PositionEmbedding::Learned;
  }
  /// Whether attention is multi-head latent attention (transformer_model_c6:
  /// kv_lora_rank comes with the other MLA dimensions).
  bool hasLatentAttention() const { return kvLoraRank.has_value(); }
  /// Whether qkv_proj adds a bias (b_qkv): `all` and `qkv`.
  bool hasQKVBias() const { return linearBias != LinearBias::None; }
  /// Whether fc1 and the two row-parallel projections (out_proj, fc2) add a
  /// bias (b_fc1, b_out, b_fc2): `all` only.
  bool hasOutputAndMLPBiases() const { return linearBias == LinearBias::All; }
  /// Keys a query at the end of a sequence of `length` tokens attends to:
  /// `length`, or the window when that is shorter.
  int64_t attendedKeys(int64_t length) const {
    return attentionWindow && *attentionWindow < length ? *attentionWindow
                                                        : length;
  }
};

/// Whether every field of `a` and `b` is equal (the memos of a search hold
/// the derivations of one model).
bool sameModel(const ModelSpec &a, const ModelSpec &b);

struct TrainingSpec {
  int64_t globalBatch = 0;
  int64_t microBatch = 0;
  DataType activationType = DataType::BF16;
  DataType weightType = DataType::BF16;
  DataType gradientType = DataType::BF16;
  DataType optimizerStateType = DataType::F32;
  bool attentionDropout = true;
  bool hiddenDropout = true;
};

/// The axes of the logical mesh, one per parallel degree of the mapping.
inline constexpr llvm::StringLiteral kTensorParallelAxis = "tp";
inline constexpr llvm::StringLiteral kPipelineParallelAxis = "pp";
inline constexpr llvm::StringLiteral kDataParallelAxis = "dp";
/// The context-parallel ranks a training sequence is cut over: the block's
/// key/value exchange runs over it, and with the data-parallel axis it
/// spans the ranks whose gradients are reduced (docs/WholeRun.md). A mesh
/// names it only at cp > 1 (between the data-parallel axes and tp).
inline constexpr llvm::StringLiteral kContextParallelAxis = "cp";
/// At ep > 1 the data-parallel axis splits into the expert-data-parallel
/// axis and the expert-parallel axis, edp x ep = dp (the mesh ["pp", "edp",
/// "ep", "tp"], docs/WorkAlgebra.md, "Expert parallelism"): the token
/// all-to-alls run over "ep", the expert gradients reduce over "edp".
inline constexpr llvm::StringLiteral kExpertDataParallelAxis = "edp";
inline constexpr llvm::StringLiteral kExpertParallelAxis = "ep";

struct MappingSpec {
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t dp = 1;
  int64_t world = 1;
  int64_t virtualStages = 1;
  TPCommMode tpComm = TPCommMode::AllReduce;
  RecomputePolicy recompute = RecomputePolicy::None;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  /// Blocks of each model chunk in model order (pp * virtual_stages
  /// entries, docs/WholeRun.md); empty for the uniform layout of
  /// blocks / (pp * virtual_stages) blocks per chunk.
  std::vector<int64_t> pipelineLayout;
  /// ZeRO stage of the data-parallel ranks: 0 none, 1 optimizer state
  /// sharded (Megatron-LM's distributed optimizer), 2 and gradients, 3 and
  /// parameters (FSDP).
  int64_t zeroStage = 0;
  /// Gradient bytes per data-parallel reduction bucket; 0 is one bucket.
  int64_t bucketBytes = 0;
  /// Context-parallel degree: ranks that split every sequence into 2 * cp
  /// load-balanced chunks (docs/TransformerSpec.md, "Context parallelism").
  int64_t cp = 1;
  /// How the cp ranks exchange keys and values.
  CPCommMode cpComm = CPCommMode::Ring;
  /// Expert-parallel degree: the data-parallel ranks of an MoE layer that
  /// split its experts, E / ep each (Megatron-LM
  /// `--expert-model-parallel-size`, carved out of dp; each expert stays
  /// tensor-parallel over tp). docs/TransformerSpec.md, "Expert
  /// parallelism": the contract and its rules `expert_parallel_c1` ..
  /// `c6`; training runs need ep = 1 until its work is derived (`c4`),
  /// serving runs need ep = 1 (`c6`), and ep > 1 needs cp = 1 (`c5`).
  int64_t ep = 1;
  /// Tensor-parallel communication overlapped with compute: in the
  /// backward of a column-parallel linear the input-gradient all-reduce or
  /// reduce-scatter runs under the weight-gradient GEMM and the sequence-
  /// parallel re-gather of its input under the input-gradient GEMM
  /// (Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication,
  /// docs/Estimate.md, "Overlap"). A time option: no work changes.
  bool overlapTPComm = false;
  /// Data-parallel gradient reduction overlapped with backward: each
  /// bucket's all-reduce (or ZeRO's reduce-scatter) is issued once the last
  /// micro-batch's backward has produced its gradients and gates only the
  /// optimizer step (Megatron-Core DDP `overlap_grad_reduce`,
  /// docs/Estimate.md, "Overlap"). A time option: no work changes; not
  /// under ZeRO-3 (decoder_training_c17).
  bool overlapDPGradReduce = false;
  /// Pipeline sends overlapped with compute: a send costs its stage nothing
  /// and its message arrives a transfer after the send starts. Off, a send
  /// holds its stage for its transfer (Megatron-LM's blocking
  /// `batch_isend_irecv(...).wait()` without `--overlap-p2p-communication`,
  /// docs/Estimate.md, "Overlap"). A time option: no work changes.
  bool overlapP2PComm = false;

  /// The ranks holding the same parameters of a stage, dp * cp: every
  /// parameter is replicated over the context-parallel ranks, so gradients
  /// are reduced and ZeRO shards over them all (Megatron-Core's
  /// `get_data_parallel_group(with_context_parallel=True)`,
  /// docs/WholeRun.md). Bounded by world, whose product
  /// transformer_mapping_c2 checks.
  int64_t gradientReplicas() const { return dp * cp; }

  /// Whether each gradient replica steps its shard of the optimizer state
  /// (ZeRO >= 1 over more than one replica): the stage then runs the
  /// sharded step itself, and no block or edge template holds an AdamW step.
  bool shardsOptimizer() const {
    return zeroStage >= 1 && gradientReplicas() > 1;
  }
  /// Whether a stage keeps only its shard of the gradients across
  /// iterations (ZeRO-2/3 over more than one replica): each bucket's full
  /// gradients then live from the first backward to their reduce-scatter,
  /// its shard from there to the sharded step, and no gradient buffer
  /// persists.
  bool shardsGradients() const {
    return zeroStage >= 2 && gradientReplicas() > 1;
  }

  /// The degree of the mesh axis named `axis`: tp, pp, cp, and the
  /// data-parallel ranks as dp at ep = 1 or as edp = dp / ep and ep at
  /// ep > 1 (Megatron-Core's expert grid, dist_program_c10); none for any
  /// other name.
  std::optional<int64_t> axisDegree(llvm::StringRef axis) const {
    if (axis == kTensorParallelAxis)
      return tp;
    if (axis == kPipelineParallelAxis)
      return pp;
    if (axis == kContextParallelAxis)
      return cp;
    if (ep <= 1)
      return axis == kDataParallelAxis ? std::optional<int64_t>(dp)
                                       : std::nullopt;
    if (axis == kExpertDataParallelAxis)
      return dp / ep;
    if (axis == kExpertParallelAxis)
      return ep;
    return std::nullopt;
  }
  /// The ranks holding the same routed experts of an MoE block, dp * cp /
  /// ep (Megatron-Core's expert-data-parallel group; cp = 1 at ep > 1 by
  /// expert_parallel_c5): the expert gradients reduce and their ZeRO state
  /// shards over them. gradientReplicas() at ep = 1.
  int64_t expertGradientReplicas() const { return dp * cp / ep; }
};

/// One broken composition rule: its label (as cited in docs/ and tests) and a
/// message naming the fields and their values.
struct RuleViolation {
  std::string rule;
  std::string message;
};

/// The broken rules of one run, by contract. A composition rule assumes the
/// contracts it composes are valid (it divides by their degrees), so the
/// composition is checked only when the model, workload and mapping
/// contracts' own rules all hold. This is the one statement of "check the
/// contracts, then their composition" that the op verifiers, the importers
/// and the work algebra share.
struct RunViolations {
  std::vector<RuleViolation> model;
  /// The training or inference contract's own rules.
  std::vector<RuleViolation> workload;
  std::vector<RuleViolation> mapping;
  std::vector<RuleViolation> composition;

  bool empty() const {
    return model.empty() && workload.empty() && mapping.empty() &&
           composition.empty();
  }
  /// Every violation: model, workload, mapping, then composition.
  std::vector<RuleViolation> all() const;
};

/// Checks a run's model and mapping, the already-checked rules of its
/// workload contract, and, when those all hold, `checkComposition()`.
RunViolations
checkRun(const ModelSpec &model, std::vector<RuleViolation> workloadRules,
         const MappingSpec &mapping,
         llvm::function_ref<std::vector<RuleViolation>()> checkComposition);

/// checkRun for a training run (checkTraining, checkTrainingComposition).
RunViolations checkTrainingRun(const ModelSpec &model,
                               const TrainingSpec &training,
                               const MappingSpec &mapping);

/// The per-head dimension a model without an explicit `head_dim` has:
/// under multi-head latent attention (both qk_* dimensions given)
/// qk_nope_head_dim + qk_rope_head_dim, the width of its query and key heads
/// (or the violation of `transformer_model_c9` when the sum overflows);
/// otherwise hidden / heads (Megatron's kv_channels default), or the
/// violation of `transformer_model_c4` when heads does not divide hidden.
/// Sizes that are not positive are transformer_model_c1's to report: they
/// give 0 here.
std::variant<int64_t, RuleViolation>
implicitHeadDim(int64_t hidden, int64_t heads,
                std::optional<int64_t> qkNopeHeadDim,
                std::optional<int64_t> qkRopeHeadDim);

/// transformer_model_c6: the violation when some multi-head latent
/// attention field is given without kv_lora_rank, qk_nope_head_dim,
/// qk_rope_head_dim and v_head_dim all given, none otherwise. A partial MLA
/// spec leaves head_dim undefined, so the op verifiers report this alone
/// instead of transformer_model_c4.
std::optional<RuleViolation> checkLatentAttentionFields(const ModelSpec &model);

/// The integral quantities a valid training composition defines.
struct TrainingComposition {
  int64_t localBatch = 0;           // global_batch / dp
  int64_t microbatches = 0;         // global_batch / (dp * micro_batch)
  /// blocks / (pp * virtual_stages) under the uniform layout; 0 under an
  /// explicit pipeline_layout (workload::layoutOf gives each chunk's).
  int64_t blocksPerVirtualChunk = 0;
};

/// Rules that involve only the model contract (docs/TransformerSpec.md,
/// `transformer_model_c*`).
std::vector<RuleViolation> checkModel(const ModelSpec &model);
/// The model's mixture-of-experts rules (`transformer_model_c11` to `c16`)
/// for a model of `blocks` blocks; part of checkModel.
std::vector<RuleViolation> checkMixtureOfExperts(const MixtureOfExperts &moe,
                                                 int64_t blocks);
/// The mixture-of-experts blocks the work algebra does not derive yet, one
/// violation each: `decoder_moe_c5` for MLP biases (`decoder_moe_c1`,
/// blocks of both kinds, `decoder_moe_c4`, shared experts, and
/// `expert_parallel_c4`, experts split over ep > 1 ranks in training, are
/// retired: they are derived, docs/WholeRun.md "Block kinds" and
/// docs/WorkAlgebra.md "Mixture-of-experts" and "Expert parallelism"). Every
/// run and every per-block quantity (blockParametersPerRank) is refused through
/// this one check; empty for a dense model and for a model whose MoE blocks are
/// of the derived kind.
std::vector<RuleViolation> checkDerivedBlocks(const ModelSpec &model,
                                              const MappingSpec &mapping);
/// Rules that involve only the training-workload contract.
std::vector<RuleViolation> checkTraining(const TrainingSpec &training);
/// Rules that involve only the mapping contract.
std::vector<RuleViolation> checkMapping(const MappingSpec &mapping);
/// Rules that compose the three contracts (`decoder_training_c*`); assumes
/// each contract passed its own rules.
std::vector<RuleViolation> checkTrainingComposition(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping);

/// The composition's integral quantities, or std::nullopt if any rule fails.
std::optional<TrainingComposition>
composeTraining(const ModelSpec &model, const TrainingSpec &training,
                const MappingSpec &mapping);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_SPEC_H
