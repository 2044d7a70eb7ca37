//===- BlockWork.h - Exact work of one decoder block ------------*- C++ -*-===//
//
// The work algebra of one pre-norm GPT decoder block on one tensor-parallel
// rank: every primitive invocation with its phase, engine class, exact
// operation count, logical tensor reads and writes, the activation memory it
// stashes for the backward pass and, for collectives, the kind, reduction,
// participants and logical message bytes. Every count is an exact int64_t
// computed through OverflowGuard; an overflow is an llvm::Error naming the
// quantity. docs/WorkAlgebra.md tabulates the invocations, their formulas and
// their provenance.
//
// The enums used here (Phase, Engine, CollectiveKind, ReductionKind,
// Cadence) are generated from WorkloadEnums.td together with
// stringifyEnum/symbolizeEnum.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_BLOCKWORK_H
#define BLUEPRINT_WORKLOAD_BLOCKWORK_H

#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// Declared operation counts of the Vector primitives, per element of the
/// tensor they traverse (and, for row-wise reductions, per row). Each is
/// derived from the primitive's defining equations, counting one operation
/// per elementwise add, subtract, multiply, divide, compare, select,
/// transcendental function (exp, tanh, sqrt, rsqrt) or random draw; a
/// multiply-add counts 2 as everywhere else; dtype conversions count 0 (they
/// are part of the load or store). A sum over n values into an accumulator
/// counts n adds, the convention under which a length-n dot product is 2n.
/// docs/WorkAlgebra.md repeats the derivations.
namespace opcount {
/// LayerNorm forward, per element: mean sum 1, centre x-mu 1, square 1,
/// variance sum 1, normalise *rstd 1, scale *gamma 1, shift +beta 1.
inline constexpr int64_t kLayerNormForwardPerElement = 7;
/// LayerNorm forward, per row: mu = sum/h 1, var = sum/h 1, +eps 1, rsqrt 1.
inline constexpr int64_t kLayerNormForwardPerRow = 4;
/// LayerNorm input gradient dx = rstd*(g - mean(g) - xhat*mean(g*xhat)) with
/// g = gamma*dy, per element: xhat = (x-mu)*rstd 2, g 1, sum g 1, g*xhat 1,
/// sum g*xhat 1, xhat*mean 1, g-mean 1, subtract 1, *rstd 1.
inline constexpr int64_t kLayerNormInputGradPerElement = 10;
/// LayerNorm input gradient, per row: the two means (sum/h) 2.
inline constexpr int64_t kLayerNormInputGradPerRow = 2;
/// LayerNorm parameter gradients dgamma += sum dy*xhat, dbeta += sum dy, per
/// element: xhat 2, dy*xhat 1, accumulate dgamma 1, accumulate dbeta 1.
inline constexpr int64_t kLayerNormParamGradPerElement = 5;
/// RMSNorm forward, per element: square 1, sum 1, normalise 1, scale 1.
inline constexpr int64_t kRMSNormForwardPerElement = 4;
/// RMSNorm forward, per row: mean-square = sum/h 1, +eps 1, rsqrt 1.
inline constexpr int64_t kRMSNormForwardPerRow = 3;
/// RMSNorm input gradient dx = rstd*(g - xhat*mean(g*xhat)), g = gamma*dy, per
/// element: xhat 1, g 1, g*xhat 1, sum 1, xhat*mean 1, subtract 1, *rstd 1.
inline constexpr int64_t kRMSNormInputGradPerElement = 7;
/// RMSNorm input gradient, per row: mean = sum/h 1.
inline constexpr int64_t kRMSNormInputGradPerRow = 1;
/// RMSNorm parameter gradient dgamma += sum dy*xhat, per element: xhat 1,
/// dy*xhat 1, accumulate 1.
inline constexpr int64_t kRMSNormParamGradPerElement = 3;
/// Scale, causal mask and softmax forward, per score element: scale 1, mask
/// select 1, running max 1, subtract max 1, exp 1, sum 1, normalise 1.
inline constexpr int64_t kSoftmaxForwardPerElement = 7;
/// Softmax forward, per row: reciprocal of the sum 1.
inline constexpr int64_t kSoftmaxForwardPerRow = 1;
/// Softmax input gradient dx = scale*y*(dy - sum(dy*y)), per element: dy*y 1,
/// sum 1, subtract 1, *y 1, *scale 1. Masked positions have y = 0, so the
/// mask needs no work backward.
inline constexpr int64_t kSoftmaxInputGradPerElement = 5;
/// Dropout forward, per element: random draw 1, compare with the keep
/// probability 1, select-and-scale by 1/(1-p) 1.
inline constexpr int64_t kDropoutForwardPerElement = 3;
/// Dropout input gradient, per element: select-and-scale by the mask 1.
inline constexpr int64_t kDropoutInputGradPerElement = 1;
/// GeLU (tanh form 0.5x(1+tanh(k(x+cx^3)))), per element: x^2 1, x^3 1,
/// c*x^3 1, +x 1, *k 1, tanh 1, 1+t 1, x*(.) 1, 0.5*(.) 1.
inline constexpr int64_t kGeLUForwardPerElement = 9;
/// GeLU input gradient dy*(0.5(1+t) + 0.5x(1-t^2)k(1+3cx^2)), per element:
/// recompute t 6, 1+t 1, 0.5*(.) 1, t^2 1, 1-t^2 1, 3c*x^2 1, 1+(.) 1, k*(.) 1,
/// (1-t^2)*(.) 1, x*(.) 1, 0.5*(.) 1, sum 1, *dy 1.
inline constexpr int64_t kGeLUInputGradPerElement = 18;
/// ReLU max(x, 0), per element: compare-select 1.
inline constexpr int64_t kReLUForwardPerElement = 1;
/// ReLU input gradient, per element: select dy where x > 0 1.
inline constexpr int64_t kReLUInputGradPerElement = 1;
/// SwiGLU silu(a)*g = a/(1+exp(-a))*g, per output element: negate 1, exp 1,
/// 1+(.) 1, a/(.) 1, *g 1.
inline constexpr int64_t kSwiGLUForwardPerElement = 5;
/// SwiGLU input gradients, per output element: sigma = 1/(1+exp(-a)) 4,
/// silu = a*sigma 1, dg = dy*silu 1, dy*g 1, silu' = sigma(1+a(1-sigma)) 4,
/// da = (dy*g)*silu' 1.
inline constexpr int64_t kSwiGLUInputGradPerElement = 12;
/// Rotary position embedding (Su et al. 2021, Eq. 34; Megatron-LM
/// _rotate_half / _apply_rotary_pos_emb_bshd: t*cos + rotate_half(t)*sin),
/// per element of q and k: each pair (x1, x2) becomes (x1 cos - x2 sin,
/// x2 cos + x1 sin), two multiplies and one add or subtract per output
/// element; the negation of rotate_half folds into the subtract. The
/// inverse rotation of the gradients (cos, -sin) costs the same.
inline constexpr int64_t kRotaryPerElement = 3;
/// Bias add after a row-parallel reduction, per element: add 1.
inline constexpr int64_t kBiasAddPerElement = 1;
/// Bias gradient db += sum over rows of dy, per element of dy: accumulate 1.
inline constexpr int64_t kBiasGradPerElement = 1;
/// Residual add, per element: add 1.
inline constexpr int64_t kResidualAddPerElement = 1;
/// Residual backward: the skip-path gradient is added to the gradient coming
/// back through the branch where the residual stream forks, per element: 1.
inline constexpr int64_t kResidualGradPerElement = 1;
/// AdamW (decoupled weight decay), per parameter: m = b1*m + (1-b1)*g 3,
/// v = b2*v + (1-b2)*g*g 4, mhat = m*c1 1, vhat = v*c2 1, sqrt(vhat)+eps 2,
/// mhat/(.) 1, +lambda*w 2, w -= lr*(.) 2. The per-step scalars (1-b1,
/// bias corrections c1, c2) are computed once per tensor, not per parameter.
inline constexpr int64_t kAdamWPerParameter = 16;
/// Router softmax over the E expert logits of a token (no scale, no mask),
/// per logit: running max 1, subtract max 1, exp 1, sum 1, normalise 1.
inline constexpr int64_t kRouterSoftmaxForwardPerElement = 5;
/// Router softmax forward, per token: reciprocal of the sum 1.
inline constexpr int64_t kRouterSoftmaxForwardPerRow = 1;
/// Router softmax input gradient dx = y*(dy - sum(dy*y)), per logit: dy*y 1,
/// sum 1, subtract 1, *y 1.
inline constexpr int64_t kRouterSoftmaxInputGradPerElement = 4;
/// Top-k selection as k passes of an E-wide max over the candidates not yet
/// taken, per candidate per pass: compare-select 1.
inline constexpr int64_t kTopKPerCandidatePerPass = 1;
/// Top-k renormalisation w_i = p_i / sum_j p_j, per selected expert: the sum
/// 1 (k - 1 additions, counted as k onto an initial zero) and the division
/// 1.
inline constexpr int64_t kTopKRenormalisePerSelected = 2;
/// Renormalisation input gradient dp_i = (dw_i - sum_j w_j dw_j) / S, per
/// selected expert: w_j*dw_j 1, sum 1, subtract 1, divide 1.
inline constexpr int64_t kTopKRenormaliseInputGradPerSelected = 4;
/// DeepSeek-V3's router (router = sigmoid_group_limited; DeepSeek-V3 Sec.
/// 2.1.2, Eqs. 12-16; transformers' DeepseekV3TopkRouter.forward and
/// get_topk_indices). Sigmoid scores s = 1/(1+exp(-x)), per logit: negate
/// 1, exp 1, add 1, reciprocal 1 (as SwiGLU's sigma).
inline constexpr int64_t kSigmoidPerElement = 4;
/// Sigmoid input gradient dx = dy*s*(1-s), per logit: 1-s 1, s*(.) 1,
/// dy*(.) 1.
inline constexpr int64_t kSigmoidInputGradPerElement = 3;
/// Group-limited selection, per expert score of a token: the score-
/// correction bias add 1; the group score's top-2 as two passes over the
/// group's candidates 2 (kTopKPerCandidatePerPass each); the masked_fill
/// zeroing the experts of the unselected groups 1. The k passes of the
/// final top-k come on top (kTopKPerCandidatePerPass per pass).
inline constexpr int64_t kGroupLimitedSelectPerElement = 4;
/// Per group of a token: the sum of its two best scores, counted as two
/// additions onto zero (as kTopKRenormalisePerSelected's sum). The
/// router_groups_per_token passes of the group top-k come on top
/// (kTopKPerCandidatePerPass per group per pass).
inline constexpr int64_t kGroupScorePerGroup = 2;
/// The 1e-20 added to the renormalisation's denominator, per token: 1.
inline constexpr int64_t kRenormaliseEpsilonPerRow = 1;
/// The multiply by routed_scaling_factor, per selected expert, forward and
/// backward alike: 1.
inline constexpr int64_t kRoutedScalingPerSelected = 1;
/// Combine, per element of each processed token-expert pair's output: the
/// multiply by the routing weight 1 and the scatter-add into the token's
/// output 1 (Megatron-Core unpermute: probs times the permuted tokens,
/// scatter_add into zeros).
inline constexpr int64_t kCombinePerElement = 2;
/// Combine input gradient of the expert outputs, per element of each pair:
/// the token's output gradient times the routing weight 1.
inline constexpr int64_t kCombineInputGradPerElement = 1;
/// Combine gradient of the routing weights, per element of each pair: the
/// multiply-add of the output gradient and the expert output onto the
/// pair's gradient 2 (a length-h dot product, linearOps' convention).
inline constexpr int64_t kCombineWeightGradPerElement = 2;
/// Unpermute of the input gradient, per element of each pair: the
/// scatter-add of the pair's gradient into its token's row 1.
inline constexpr int64_t kPermuteInputGradPerElement = 1;
} // namespace opcount

/// One logical tensor read or written by an invocation, at the bytes this
/// rank touches (its shard, at the tensor's datatype). Names are logical and
/// mode independent ("x_norm1", "w_qkv", "probs", ...); gradients are
/// prefixed "d_". A collective reads and writes the same logical tensor in
/// two shardings (partial sums -> replicated, shard -> gathered, ...).
struct TensorAccess {
  std::string tensor;
  int64_t bytes = 0;
};

inline bool operator==(const TensorAccess &lhs, const TensorAccess &rhs) {
  return lhs.tensor == rhs.tensor && lhs.bytes == rhs.bytes;
}
inline bool operator!=(const TensorAccess &lhs, const TensorAccess &rhs) {
  return !(lhs == rhs);
}

/// A collective as upstream MLIR's `shard` dialect sees it.
struct CollectiveFacts {
  CollectiveKind kind = CollectiveKind::AllReduce;
  ReductionKind reduction = ReductionKind::Sum;
  int64_t participants = 0;
  /// The full logical (unsharded) tensor in bytes, e.g. b*s*h*e for the
  /// block's TP collectives: Calculon's convention (reference README,
  /// definition 5), neither the shard nor the wire volume.
  int64_t messageBytes = 0;
  /// The mesh axis of a block collective's participants: the tensor axis for
  /// every tensor-parallel collective, the context axis (kContextParallelAxis)
  /// for the key/value exchange; the outermost axis of a collective over
  /// several. A `dist` collective reports the first of its `axes`.
  std::string axis = kTensorParallelAxis.str();
  /// The mesh axes inside `axis` the collective also spans, outermost
  /// first: `cp` for the data-parallel gradient reduction and the ZeRO
  /// collectives at cp > 1 (docs/WholeRun.md); empty for one axis. The
  /// participants are the product of the axes' sizes.
  std::vector<std::string> innerAxes = {};
  /// How the transfer is issued: true when the implementation sends it as
  /// point-to-point sends and receives, not as one collective call (the
  /// context-parallel exchanges under cp_comm = ring, TransformerEngine's
  /// batch_isend_irecv ring). Such a transfer pays no call latency
  /// (docs/Estimate.md, "Per-call latency").
  bool pointToPoint = false;
};

inline bool operator==(const CollectiveFacts &lhs, const CollectiveFacts &rhs) {
  return lhs.kind == rhs.kind && lhs.reduction == rhs.reduction &&
         lhs.participants == rhs.participants &&
         lhs.messageBytes == rhs.messageBytes && lhs.axis == rhs.axis &&
         lhs.innerAxes == rhs.innerAxes && lhs.pointToPoint == rhs.pointToPoint;
}
inline bool operator!=(const CollectiveFacts &lhs, const CollectiveFacts &rhs) {
  return !(lhs == rhs);
}

/// The shape of one general matrix multiply run `batch` times: C[M,N] (+)=
/// A[M,K] B[K,N], M and N the output's rows and columns, K the contraction
/// length, as cuBLAS and NVIDIA's "Matrix Multiplication Background User's
/// Guide" name them. It performs 2 * batch * M * N * K operations (a
/// multiply-add is 2). A linear X[rows,in] W[in,out] is {1, rows, out, in};
/// an attention batched matmul runs batch = b * heads GEMMs.
struct MatmulShape {
  int64_t batch = 1;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

inline bool operator==(const MatmulShape &lhs, const MatmulShape &rhs) {
  return lhs.batch == rhs.batch && lhs.m == rhs.m && lhs.n == rhs.n &&
         lhs.k == rhs.k;
}
inline bool operator!=(const MatmulShape &lhs, const MatmulShape &rhs) {
  return !(lhs == rhs);
}

/// How much of a matmul's `ops` its GEMMs make: all of them (every derived
/// invocation), or at most all (the fused kernel of an implementation
/// transformation, pplan_task_c10, whose ops also count the vector work it
/// runs between its GEMMs: FlashAttention's softmax and dropout).
enum class GemmCover { AllOps, AtMostOps };

/// Why `gemms` are not the GEMMs of an invocation of `engine` with `ops`
/// operations, or std::nullopt when they are: a matmul invocation runs at
/// least one GEMM, every other engine none; every extent is non-negative
/// and the batch positive; and ops = sum of 2 * batch * M * N * K (ops >=
/// the sum under GemmCover::AtMostOps), computed with overflow checks (an
/// overflow is a violation). The one statement of the invariant the
/// workload, dist_task_c2, pplan_task_c9 and the tile model check.
std::optional<std::string>
matmulShapeViolation(Engine engine, int64_t ops,
                     llvm::ArrayRef<MatmulShape> gemms,
                     GemmCover cover = GemmCover::AllOps);

/// The flat [batch, M, N, K, batch, M, N, K, ...] form of `gemms` the IR's
/// `gemm` attribute carries, and back (std::nullopt unless the length is a
/// multiple of 4).
std::vector<int64_t> flattenGemms(llvm::ArrayRef<MatmulShape> gemms);
std::optional<std::vector<MatmulShape>>
unflattenGemms(llvm::ArrayRef<int64_t> flat);

/// One primitive invocation of a block.
struct Invocation {
  /// Stable snake_case id of the primitive (docs/WorkAlgebra.md). Unique per
  /// phase within a BlockWork; recompute clones keep their forward's id.
  std::string primitive;
  Phase phase = Phase::Forward;
  Engine engine = Engine::Vector;
  /// Exact arithmetic operations on this rank (a multiply-add is 2).
  int64_t ops = 0;
  std::vector<TensorAccess> reads;
  std::vector<TensorAccess> writes;
  /// Activation memory this forward invocation keeps alive until the
  /// block's backward pass: the tensors of `stashed`, each attributed to the
  /// first forward invocation whose backward reads it. Zero for every other
  /// phase (what recompute produces is consumed within the block's backward
  /// and is working memory, not stash).
  int64_t stashBytes = 0;
  std::vector<TensorAccess> stashed;
  /// Present exactly when engine == Engine::Collective.
  std::optional<CollectiveFacts> collective;
  /// The GEMMs of a matmul invocation, in the order its cause names them
  /// (an attention backward runs two); empty for every other engine.
  /// matmulShapeViolation states the invariant with `ops` under
  /// `gemmCover`.
  std::vector<MatmulShape> gemms;
  /// AtMostOps exactly for the fused kernel of an implementation
  /// transformation (Fusion::executed, a pplan.task with `implementation`),
  /// whose ops also count the vector work between its GEMMs.
  GemmCover gemmCover = GemmCover::AllOps;
  /// One sentence: why this invocation exists.
  std::string cause;

  /// Sum of `reads` bytes. Precondition: fits in int64_t, which
  /// deriveBlockWork and deriveOptimizerWork verify for what they derive.
  int64_t readBytes() const;
  /// Sum of `writes` bytes, under the same precondition.
  int64_t writeBytes() const;
};

/// Field-wise equality, cause included.
bool operator==(const Invocation &lhs, const Invocation &rhs);
inline bool operator!=(const Invocation &lhs, const Invocation &rhs) {
  return !(lhs == rhs);
}

/// The invocations of one block on one TP rank, in a valid execution order
/// (every invocation after those producing what it reads); not a schedule.
struct BlockWork {
  /// Per micro-batch for deriveBlockWork, per iteration for
  /// deriveOptimizerWork.
  Cadence cadence = Cadence::PerMicroBatch;
  std::vector<Invocation> invocations;

  /// The invocation of `primitive` in `phase`, or nullptr.
  const Invocation *find(llvm::StringRef primitive, Phase phase) const;
};

/// What totals, demands and estimates read of one invocation: its figures,
/// with the tensor lists summed. An op of the IR gives them without
/// materialising an Invocation (figuresOf in WorkFactsInterface.h), which
/// is what keeps verifying and summarising a program cheap.
struct InvocationFigures {
  /// Names the invocation in diagnostics; refers to storage the caller keeps
  /// alive (the Invocation's string, or the op's attribute).
  llvm::StringRef primitive;
  Phase phase = Phase::Forward;
  Engine engine = Engine::Vector;
  int64_t ops = 0;
  int64_t readBytes = 0;
  int64_t writeBytes = 0;
  int64_t stashBytes = 0;
  std::optional<CollectiveFacts> collective;
  /// The invocation's GEMMs (Invocation::gemms, or an op's `gemm`).
  llvm::SmallVector<MatmulShape, 2> gemms;
  /// How much of `ops` they make (Invocation::gemmCover, or the op's).
  GemmCover gemmCover = GemmCover::AllOps;
};

/// The figures of `invocation`; fails if a byte sum overflows int64_t.
llvm::Expected<InvocationFigures> figuresOf(const Invocation &invocation);

/// Sums over a set of invocations.
struct WorkTotals {
  int64_t invocations = 0;
  int64_t ops = 0;
  int64_t readBytes = 0;
  int64_t writeBytes = 0;
  /// Sum of CollectiveFacts::messageBytes (logical tensor bytes).
  int64_t messageBytes = 0;
  /// Sum of minimumTransferBytes over the collectives: bytes each rank must
  /// send, for any algorithm.
  int64_t minimumTransferBytes = 0;
  int64_t stashBytes = 0;

  /// Whether every total is zero: such a term adds nothing to any sum. It
  /// names every field, which the static_assert below keeps true.
  bool isZero() const {
    return invocations == 0 && ops == 0 && readBytes == 0 && writeBytes == 0 &&
           messageBytes == 0 && minimumTransferBytes == 0 && stashBytes == 0;
  }
};
// A field added to WorkTotals must be added to isZero(), or a term holding
// only that field would be skipped by WorkSummary::addScaled.
static_assert(sizeof(WorkTotals) == 7 * sizeof(int64_t),
              "WorkTotals::isZero() must name every field");

inline constexpr size_t kNumPhases = getMaxEnumValForPhase() + 1;
inline constexpr size_t kNumEngines = getMaxEnumValForEngine() + 1;
inline constexpr size_t kNumCadences = getMaxEnumValForCadence() + 1;

/// Every phase, engine and cadence, in declaration order: the one list
/// summaries, ledgers and reports iterate.
std::array<Phase, kNumPhases> allPhases();
std::array<Engine, kNumEngines> allEngines();
std::array<Cadence, kNumCadences> allCadences();

/// Totals of a BlockWork by (phase, engine), by phase, by engine and overall,
/// all computed with overflow checks by summarize().
class WorkSummary {
public:
  WorkSummary() = default;
  explicit WorkSummary(Cadence cadence) : workCadence(cadence) {}

  /// Adds one invocation to every total it belongs to; fails, naming the
  /// total, if one would overflow int64_t, or if its phase or engine is no
  /// case of its enum. A failed add leaves the totals as they were.
  llvm::Error add(const InvocationFigures &figures);
  /// Adds every total of `other` `times` over (a template's work run for
  /// several blocks or micro-batches); an overflow names `what` and leaves
  /// the totals as they were.
  llvm::Error addScaled(const WorkSummary &other, int64_t times,
                        llvm::StringRef what);

  const WorkTotals &at(Phase phase, Engine engine) const;
  const WorkTotals &of(Phase phase) const;
  const WorkTotals &of(Engine engine) const;
  const WorkTotals &total() const { return overall; }
  Cadence cadence() const { return workCadence; }

private:
  Cadence workCadence = Cadence::PerMicroBatch;
  std::array<std::array<WorkTotals, kNumEngines>, kNumPhases> byPhaseEngine{};
  std::array<WorkTotals, kNumPhases> byPhase{};
  std::array<WorkTotals, kNumEngines> byEngine{};
  WorkTotals overall;
};

/// Checked totals of `work`; an overflow names the total that overflowed.
llvm::Expected<WorkSummary> summarize(const BlockWork &work);

/// The forward, recompute, backward and recommunication work of one decoder
/// block for one micro-batch (b = micro_batch) on one TP rank
/// (Cadence::PerMicroBatch). Fails if the three contracts do not compose
/// (composeTraining) or if any count overflows int64_t.
llvm::Expected<BlockWork> deriveBlockWork(const ModelSpec &model,
                                          const TrainingSpec &training,
                                          const MappingSpec &mapping);

/// The once-per-iteration work of one block on one TP rank
/// (Cadence::PerIteration): under sequence parallelism with tp > 1 the
/// all-reduce of the gradients of the sequence-parallel parameters (norm
/// parameters and row-parallel biases), then the mixed-precision AdamW step
/// over the block parameters this rank holds.
llvm::Expected<BlockWork> deriveOptimizerWork(const ModelSpec &model,
                                              const TrainingSpec &training,
                                              const MappingSpec &mapping);

/// A collective as an invocation: over `participants` ranks, it reads and
/// writes `tensor` in both shardings (collectiveBytesViolation holds), and a
/// reduction of n partial tensors of E elements adds (n-1)E/n per rank
/// (docs/WorkAlgebra.md). Preconditions: participants > 0 divides messageBytes,
/// elementBytes > 0.
Invocation collectiveInvocation(llvm::StringRef primitive, Phase phase,
                                CollectiveKind kind, int64_t participants,
                                int64_t messageBytes, int64_t elementBytes,
                                llvm::StringRef tensor, llvm::StringRef cause);

/// The mixed-precision AdamW step over `parameters` parameters of one rank
/// (master weights, m and v at optimizer_state_type): reads master weights,
/// m, v and the accumulated gradient; writes master weights, m, v, the
/// low-precision weight copy and the zeroed gradient buffer. The one
/// statement of the optimizer step that block, edge and sharded steps share.
llvm::Expected<Invocation> deriveAdamWStep(int64_t parameters,
                                           const TrainingSpec &training,
                                           llvm::StringRef primitive,
                                           llvm::StringRef cause);

/// `experts` experts that each process `rows` token-expert pairs over a
/// micro-batch: one batch of equal GEMMs in the experts' grouped GEMM.
struct ExpertLoad {
  int64_t experts = 0;
  int64_t rows = 0;
};

/// How balanced routing spreads the token-expert pairs of one MoE block
/// over its experts (docs/WorkAlgebra.md, "Mixture-of-experts"): k * tokens
/// pairs, each expert receiving the floor or the ceiling of
/// k * tokens / E, at most `capacity` of them processed.
struct ExpertRouting {
  /// k * tokens.
  int64_t pairs = 0;
  /// Pairs an expert may process in one router call of T' tokens,
  /// ceil(C * k * T' / (100 * E)) under a capacity factor C; k * T' when
  /// routing is dropless.
  int64_t capacity = 0;
  /// Pairs the experts process: sum over experts of min(load, capacity).
  int64_t processed = 0;
  /// Pairs dropped by the capacity, pairs - processed.
  int64_t dropped = 0;
  /// Experts that receive at least one pair and read their weights:
  /// min(E, pairs).
  int64_t activeExperts = 0;
  /// The processed pairs per expert over all router calls, experts of equal
  /// load in one group (at most two groups, none empty, the more loaded
  /// first): sum of experts * rows = processed, sum of experts over the
  /// groups = activeExperts (docs/WorkAlgebra.md, "Mixture-of-experts").
  std::vector<ExpertLoad> loads;
};

/// The balanced routing of `tokens` tokens over the experts of `moe` by
/// `routerCalls` router calls of tokens/routerCalls tokens each (the t
/// sequence shards under sequence parallelism, else 1), each capping every
/// expert at its own capacity as Megatron-Core's topk_softmax_with_capacity
/// does; every count goes through `guard`. routerCalls divides tokens.
ExpertRouting balancedRouting(const MixtureOfExperts &moe, int64_t tokens,
                              int64_t routerCalls, OverflowGuard &guard);

/// Parameters of one block held by one TP rank: column-parallel weights and
/// biases (qkv_proj, fc1; under multi-head latent attention q_b_proj or
/// q_proj and kv_b_proj) and row-parallel weights (out_proj, fc2) divided by
/// tp; row-parallel biases, norm parameters and, under multi-head latent
/// attention, the down-projections and latent norms replicated. At tp = 1 with
/// LayerNorm, GeLU, heads*head_dim = hidden and ffn = 4*hidden this is the
/// paper's 12h^2 + 13h.
llvm::Expected<int64_t> blockParametersPerRank(const ModelSpec &model,
                                               const MappingSpec &mapping);

/// Whether a collective of `kind` reduces (all-reduce, reduce-scatter) or
/// only moves data (all-gather, all-to-all).
bool collectiveReduces(CollectiveKind kind);

/// Bytes each participant must send for `facts`, for any algorithm (the
/// bandwidth lower bound): all-reduce 2(n-1)M/n, reduce-scatter,
/// all-gather and all-to-all (n-1)M/n (an all-to-all participant keeps one
/// of its n chunks and sends the others), with M the logical message bytes.
/// Fails unless participants > 0, M >= 0 and n divides M (which holds for every
/// collective derived from a valid spec).
llvm::Expected<int64_t> minimumTransferBytes(const CollectiveFacts &facts);

/// Why a collective's local read and write bytes do not fit its message, if
/// they do not. Each participant reads its input buffer and writes its
/// output buffer: an all-reduce reads and writes the whole logical message
/// M, a reduce-scatter reads M and writes its shard M/n, an all-gather reads
/// its shard M/n and writes M, an all-to-all reads and writes its whole
/// buffer M. Precondition: participants > 0 divide M.
std::optional<std::string>
collectiveBytesViolation(const CollectiveFacts &facts, int64_t readBytes,
                         int64_t writeBytes);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_BLOCKWORK_H
