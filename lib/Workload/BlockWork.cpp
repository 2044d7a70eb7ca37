//===- BlockWork.cpp - Exact work of one decoder block --------------------===//
//
// One function per formula, each naming its source. The block is Megatron-LM's
// pre-norm GPT layer with its tensor parallelism (Shoeybi et al. 2019,
// "MLM2019"), FLOP and parameter counts (Narayanan et al. 2021, "MLM2021"),
// and the activation-memory accounting, sequence parallelism and selective
// recompute of Korthikanti et al. 2022 ("SeqSel", arXiv:2205.05198).
// docs/WorkAlgebra.md is the table of what is emitted.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <tuple>

using namespace blueprint::workload;

namespace {
/// Checked sum of the bytes of `accesses`; `what` names the sum.
int64_t sumBytes(OverflowGuard &guard,
                 const std::vector<TensorAccess> &accesses,
                 llvm::StringRef what) {
  int64_t total = 0;
  for (const TensorAccess &access : accesses)
    total = guard.add(total, access.bytes, what);
  return total;
}

/// The sum behind readBytes()/writeBytes(). Their precondition (the sum
/// fits) holds for every derived invocation; breaking it is a programming
/// error, reported rather than answered with a wrapped number.
int64_t preconditionedSum(const std::vector<TensorAccess> &accesses,
                          llvm::StringRef which) {
  OverflowGuard guard;
  int64_t total = sumBytes(guard, accesses, which);
  if (guard.failed())
    llvm::report_fatal_error("Invocation::" + which +
                             " overflows int64_t; summarize() gives checked "
                             "totals");
  return total;
}
} // namespace

int64_t Invocation::readBytes() const {
  return preconditionedSum(reads, "readBytes()");
}
int64_t Invocation::writeBytes() const {
  return preconditionedSum(writes, "writeBytes()");
}

bool blueprint::workload::operator==(const Invocation &lhs,
                                     const Invocation &rhs) {
  return lhs.primitive == rhs.primitive && lhs.phase == rhs.phase &&
         lhs.engine == rhs.engine && lhs.ops == rhs.ops &&
         lhs.reads == rhs.reads && lhs.writes == rhs.writes &&
         lhs.stashBytes == rhs.stashBytes && lhs.stashed == rhs.stashed &&
         lhs.collective == rhs.collective && lhs.cause == rhs.cause;
}

const Invocation *BlockWork::find(llvm::StringRef primitive,
                                  Phase phase) const {
  for (const Invocation &invocation : invocations)
    if (invocation.primitive == primitive && invocation.phase == phase)
      return &invocation;
  return nullptr;
}

const WorkTotals &WorkSummary::at(Phase phase, Engine engine) const {
  return byPhaseEngine[static_cast<size_t>(phase)][static_cast<size_t>(engine)];
}
const WorkTotals &WorkSummary::of(Phase phase) const {
  return byPhase[static_cast<size_t>(phase)];
}
const WorkTotals &WorkSummary::of(Engine engine) const {
  return byEngine[static_cast<size_t>(engine)];
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

static llvm::Error overflowError(llvm::StringRef who,
                                 const OverflowGuard &guard) {
  return makeError(who + ": 64-bit overflow computing " +
                   guard.overflowedQuantity() +
                   "; exact counts of this block do not fit in int64_t");
}

/// Adds `invocation` to `totals`; `scope` names the totals in diagnostics.
static void accumulate(OverflowGuard &guard, WorkTotals &totals,
                       const Invocation &invocation, int64_t readBytes,
                       int64_t writeBytes, int64_t transferBytes,
                       llvm::StringRef scope) {
  auto name = [&](llvm::StringRef field) {
    return (scope + " " + field).str();
  };
  totals.invocations =
      guard.add(totals.invocations, 1, name("invocation count"));
  totals.ops = guard.add(totals.ops, invocation.ops, name("ops"));
  totals.readBytes = guard.add(totals.readBytes, readBytes, name("read bytes"));
  totals.writeBytes =
      guard.add(totals.writeBytes, writeBytes, name("write bytes"));
  if (invocation.collective)
    totals.messageBytes =
        guard.add(totals.messageBytes, invocation.collective->messageBytes,
                  name("message bytes"));
  totals.minimumTransferBytes = guard.add(
      totals.minimumTransferBytes, transferBytes, name("transfer bytes"));
  totals.stashBytes =
      guard.add(totals.stashBytes, invocation.stashBytes, name("stash bytes"));
}

llvm::Expected<WorkSummary>
blueprint::workload::summarize(const BlockWork &work) {
  WorkSummary summary;
  summary.workCadence = work.cadence;
  OverflowGuard guard;
  for (const Invocation &invocation : work.invocations) {
    std::string label =
        (invocation.primitive + " " + stringifyEnum(invocation.phase)).str();
    int64_t readBytes =
        sumBytes(guard, invocation.reads, label + " read bytes");
    int64_t writeBytes =
        sumBytes(guard, invocation.writes, label + " write bytes");
    int64_t transferBytes = 0;
    if (invocation.collective) {
      llvm::Expected<int64_t> transfer =
          minimumTransferBytes(*invocation.collective);
      if (!transfer)
        return transfer.takeError();
      transferBytes = *transfer;
    }
    std::string phase = stringifyEnum(invocation.phase).str();
    std::string engine = stringifyEnum(invocation.engine).str();
    auto phaseIndex = static_cast<size_t>(invocation.phase);
    auto engineIndex = static_cast<size_t>(invocation.engine);
    accumulate(guard, summary.byPhaseEngine[phaseIndex][engineIndex],
               invocation, readBytes, writeBytes, transferBytes,
               phase + " " + engine);
    accumulate(guard, summary.byPhase[phaseIndex], invocation, readBytes,
               writeBytes, transferBytes, phase);
    accumulate(guard, summary.byEngine[engineIndex], invocation, readBytes,
               writeBytes, transferBytes, engine);
    accumulate(guard, summary.overall, invocation, readBytes, writeBytes,
               transferBytes, "block total");
    if (guard.failed())
      return overflowError("summarize", guard);
  }
  return summary;
}

/// Bandwidth lower bound of a collective over n ranks with logical message M
/// (Patarasuk & Yuan 2009 for all-reduce; Chan et al. 2007): every rank must
/// receive the (n-1)/n of M it lacks for all-gather, must send the (n-1)/n of
/// its partial sums the others reduce for reduce-scatter, and both for
/// all-reduce (= reduce-scatter + all-gather).
llvm::Expected<int64_t>
blueprint::workload::minimumTransferBytes(const CollectiveFacts &facts) {
  int64_t n = facts.participants;
  int64_t message = facts.messageBytes;
  if (n <= 0)
    return makeError("minimumTransferBytes: participants must be positive, "
                     "got " +
                     llvm::Twine(n));
  if (message < 0)
    return makeError("minimumTransferBytes: message bytes must be "
                     "non-negative, got " +
                     llvm::Twine(message));
  if (message % n != 0)
    return makeError(
        "minimumTransferBytes: message bytes " + llvm::Twine(message) +
        " are not divisible by the participants " + llvm::Twine(n));
  OverflowGuard guard;
  // (n-1) * (M/n) <= M never overflows; the all-reduce doubling can.
  int64_t oneWay = (message / n) * (n - 1);
  int64_t bytes = facts.kind == CollectiveKind::AllReduce
                      ? guard.mul(2, oneWay, "all-reduce transfer bytes")
                      : oneWay;
  if (guard.failed())
    return overflowError("minimumTransferBytes", guard);
  return bytes;
}

/// Success when the three contracts compose (composeTraining), otherwise an
/// error listing every broken rule with its label.
static llvm::Error checkComposes(const ModelSpec &model,
                                 const TrainingSpec &training,
                                 const MappingSpec &mapping,
                                 llvm::StringRef who) {
  if (composeTraining(model, training, mapping))
    return llvm::Error::success();
  std::vector<RuleViolation> violations = checkModel(model);
  llvm::append_range(violations, checkTraining(training));
  llvm::append_range(violations, checkMapping(mapping));
  if (violations.empty())
    violations = checkTrainingComposition(model, training, mapping);
  std::string message = (who + ": the specification does not compose:").str();
  for (const RuleViolation &violation : violations)
    message += " [" + violation.rule + "] " + violation.message + ";";
  return makeError(message);
}

namespace {

/// Column counts of one block's linears on one TP rank. Every division is
/// exact once heads, kv_heads and ffn_hidden are divisible by tp
/// (decoder_training_c4, c5, c7).
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
};

RankColumns makeRankColumns(const ModelSpec &model, int64_t tp,
                            OverflowGuard &guard) {
  RankColumns columns;
  columns.heads = model.heads / tp;
  columns.kvHeads = model.kvHeads / tp;
  columns.qCols = guard.mul(columns.heads, model.headDim, "query columns");
  columns.kvCols =
      guard.mul(columns.kvHeads, model.headDim, "key/value columns");
  columns.qkvCols = guard.add(columns.qCols,
                              guard.mul(2, columns.kvCols, "key/value columns"),
                              "qkv_proj output columns");
  columns.ffnCols = model.ffnHidden / tp;
  columns.fc1Cols = model.activation == ActivationKind::SwiGLU
                        ? guard.mul(2, columns.ffnCols, "fc1 output columns")
                        : columns.ffnCols;
  return columns;
}

/// Exact dimensions of one block on one TP rank for one micro-batch. Under
/// sequence parallelism seq_length is divisible by tp (decoder_training_c9).
struct RankShape : RankColumns {
  int64_t tp = 1;
  bool sequenceParallel = false;
  int64_t batch = 0;
  int64_t seq = 0;
  int64_t hidden = 0;
  int64_t headDim = 0;
  /// b*s: the rows M of every linear (all-gathered under SP).
  int64_t tokens = 0;
  /// Rows of norms, dropouts, residuals and row-parallel biases: b*s, or
  /// the rank's sequence shard b*s/tp under sequence parallelism.
  int64_t localTokens = 0;
};

RankShape makeRankShape(const ModelSpec &model, const TrainingSpec &training,
                        const MappingSpec &mapping, OverflowGuard &guard) {
  RankShape shape;
  static_cast<RankColumns &>(shape) = makeRankColumns(model, mapping.tp, guard);
  shape.tp = mapping.tp;
  shape.sequenceParallel = mapping.tpComm == TPCommMode::ReduceScatterAllGather;
  shape.batch = training.microBatch;
  shape.seq = model.seqLength;
  shape.hidden = model.hidden;
  shape.headDim = model.headDim;
  shape.tokens = guard.mul(training.microBatch, model.seqLength, "tokens b*s");
  shape.localTokens =
      shape.sequenceParallel ? shape.tokens / mapping.tp : shape.tokens;
  return shape;
}

/// The declared per-element count of the MLP activation, per output element
/// (opcount); SwiGLU's output has ffn columns, its input twice that.
int64_t activationOpsPerElement(ActivationKind kind, bool inputGradient) {
  switch (kind) {
  case ActivationKind::GeLU:
    return inputGradient ? opcount::kGeLUInputGradPerElement
                         : opcount::kGeLUForwardPerElement;
  case ActivationKind::ReLU:
    return inputGradient ? opcount::kReLUInputGradPerElement
                         : opcount::kReLUForwardPerElement;
  case ActivationKind::SwiGLU:
    return inputGradient ? opcount::kSwiGLUInputGradPerElement
                         : opcount::kSwiGLUForwardPerElement;
  }
  llvm_unreachable("unknown ActivationKind");
}

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

/// Builds the invocations of one block on one TP rank in execution order.
class BlockBuilder {
public:
  BlockBuilder(const ModelSpec &model, const TrainingSpec &training,
               const MappingSpec &mapping)
      : model(model), training(training), mapping(mapping),
        shape(makeRankShape(model, training, mapping, guard)),
        actBytes(bytesOf(training.activationType)),
        weightBytes(bytesOf(training.weightType)),
        gradBytes(bytesOf(training.gradientType)) {}

  llvm::Expected<BlockWork> build();

private:
  // Tensor accesses at their datatype; `name` also names the byte count.
  TensorAccess activation(llvm::StringRef name, int64_t elements) {
    return {name.str(), guard.mul(elements, actBytes, (name + " bytes").str())};
  }
  TensorAccess weight(llvm::StringRef name, int64_t elements) {
    return {name.str(),
            guard.mul(elements, weightBytes, (name + " bytes").str())};
  }
  TensorAccess gradient(llvm::StringRef name, int64_t elements) {
    return {name.str(),
            guard.mul(elements, gradBytes, (name + " bytes").str())};
  }
  /// A dropout mask: one byte per element (SeqSel Sec. 4.1).
  TensorAccess mask(llvm::StringRef name, int64_t elements) {
    return {name.str(), elements};
  }

  int64_t elements(std::initializer_list<int64_t> factors,
                   llvm::StringRef what) {
    return guard.product(factors, (what + " elements").str());
  }

  /// What emit({}) records. Braced initialisation evaluates its clauses left
  /// to right, so the first overflowing quantity, and thus the diagnostic,
  /// does not depend on the compiler's argument evaluation order. The cause
  /// Twine is consumed within the emitting full-expression.
  struct InvocationSpec {
    llvm::StringRef primitive;
    Phase phase;
    Engine engine;
    int64_t ops;
    std::vector<TensorAccess> reads;
    std::vector<TensorAccess> writes;
    llvm::Twine cause;
  };

  Invocation &emit(InvocationSpec spec) {
    Invocation invocation;
    invocation.primitive = spec.primitive.str();
    invocation.phase = spec.phase;
    invocation.engine = spec.engine;
    invocation.ops = spec.ops;
    invocation.reads = std::move(spec.reads);
    invocation.writes = std::move(spec.writes);
    invocation.cause = spec.cause.str();
    work.invocations.push_back(std::move(invocation));
    return work.invocations.back();
  }

  /// Keeps `tensor` for the backward pass if the recompute policy does.
  void stash(Invocation &invocation, TensorAccess tensor, StashRole role) {
    bool kept = false;
    switch (mapping.recompute) {
    case RecomputePolicy::None:
      kept = true;
      break;
    case RecomputePolicy::Selective:
      kept = role != StashRole::AttentionCore;
      break;
    case RecomputePolicy::Full:
      kept = role == StashRole::BlockInput;
      break;
    }
    if (!kept)
      return;
    invocation.stashBytes = guard.add(invocation.stashBytes, tensor.bytes,
                                      invocation.primitive + " stash bytes");
    invocation.stashed.push_back(std::move(tensor));
  }

  // Operation counts, one formula each.

  /// Linear Y[M,K] = X[M,N] W[N,K]: 2MNK (MLM2021 App.; SeqSel App. A). The
  /// same count holds for the input gradient dX = dY W^T and the weight
  /// gradient dW += X^T dY. Each output is a length-N (resp. M) chain of
  /// multiply-adds onto an initial value: the column-parallel bias in the
  /// forward, the accumulated gradient in the weight gradient.
  int64_t linearOps(llvm::StringRef what, int64_t m, int64_t n, int64_t k) {
    return guard.product({2, m, n, k}, what);
  }
  /// One attention batched matmul, QK^T or probs x V: 2 b (heads/t) s^2 d
  /// (SeqSel App. A: 2Bs^2h each, divided by t).
  int64_t attentionMatmulOps(llvm::StringRef what) {
    return guard.product(
        {2, shape.batch, shape.heads, shape.seq, shape.seq, shape.headDim},
        what);
  }
  /// A row-wise Vector primitive: rows * (perElement * width + perRow).
  int64_t rowwiseOps(llvm::StringRef what, int64_t rows, int64_t width,
                     int64_t perElement, int64_t perRow) {
    int64_t elementOps = guard.product({rows, width, perElement}, what);
    return guard.add(elementOps, guard.mul(rows, perRow, what), what);
  }
  /// An elementwise Vector primitive: count * perElement.
  int64_t elementwiseOps(llvm::StringRef what, int64_t count,
                         int64_t perElement) {
    return guard.mul(count, perElement, what);
  }
  /// Additions of a sum-reduction of tp partial tensors of E elements:
  /// (tp-1)E in all, (tp-1)E/tp per rank; all-reduce and reduce-scatter
  /// alike. E is divisible by tp (hidden is).
  int64_t reductionOps(llvm::StringRef what, int64_t elementCount) {
    return guard.mul(elementCount / shape.tp, shape.tp - 1, what);
  }

  /// A TP collective over the block's b*s*h activation (or gradient)
  /// `tensor`. Message bytes are the full logical tensor (Calculon's
  /// convention, reference README def. 5). Local reads and writes are the
  /// rank's input and output buffers.
  void tpCollective(llvm::StringRef primitive, Phase phase, CollectiveKind kind,
                    llvm::StringRef tensor, const llvm::Twine &cause) {
    int64_t full = elements({shape.tokens, shape.hidden}, tensor);
    int64_t shard = full / shape.tp;
    bool reduces = kind != CollectiveKind::AllGather;
    int64_t ops =
        reduces ? reductionOps((primitive + " reduction ops").str(), full) : 0;
    int64_t readElements = kind == CollectiveKind::AllGather ? shard : full;
    int64_t writeElements =
        kind == CollectiveKind::ReduceScatter ? shard : full;
    Invocation &invocation = emit({primitive,
                                   phase,
                                   Engine::Collective,
                                   ops,
                                   {activation(tensor, readElements)},
                                   {activation(tensor, writeElements)},
                                   cause});
    CollectiveFacts facts;
    facts.kind = kind;
    facts.reduction = reduces ? ReductionKind::Sum : ReductionKind::None;
    facts.participants = shape.tp;
    facts.messageBytes =
        guard.mul(full, actBytes, (primitive + " message bytes").str());
    invocation.collective = facts;
  }

  bool hasCollectives() const { return shape.tp > 1; }

  // The block, in execution order.
  void norm(llvm::StringRef primitive, llvm::StringRef input,
            llvm::StringRef output, StashRole inputRole);
  void normBackward(llvm::StringRef primitive, llvm::StringRef input,
                    llvm::StringRef output);
  void forwardAttention();
  void forwardMlp();
  void rowParallelTail(llvm::StringRef prefix, llvm::StringRef biasPrimitive,
                       llvm::StringRef partial, llvm::StringRef bias,
                       llvm::StringRef biased, bool dropout,
                       llvm::StringRef dropoutPrimitive,
                       llvm::StringRef dropoutMask, llvm::StringRef dropped,
                       llvm::StringRef residualPrimitive, llvm::StringRef skip,
                       llvm::StringRef residualOutput);
  void recomputeFullForward(size_t forwardEnd);
  void recomputeAttentionCore(size_t forwardEnd);
  void backwardMlp();
  void backwardAttentionProjection();
  void backwardAttentionCore();
  void backwardAttentionInput();
  llvm::Error verifyByteSums();

  const ModelSpec &model;
  const TrainingSpec &training;
  const MappingSpec &mapping;
  OverflowGuard guard;
  RankShape shape;
  int64_t actBytes;
  int64_t weightBytes;
  int64_t gradBytes;
  BlockWork work;
};

/// LayerNorm or RMSNorm forward over the rank's rows; its backward needs the
/// input (SeqSel Sec. 4.1: "LayerNorm ... inputs 2sbh each"). The per-row
/// statistics (mean, rstd) are ignored in the stash, as in the paper.
void BlockBuilder::norm(llvm::StringRef primitive, llvm::StringRef input,
                        llvm::StringRef output, StashRole inputRole) {
  bool layerNorm = model.norm == NormKind::LayerNorm;
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, input);
  int64_t ops = rowwiseOps((primitive + " forward ops").str(),
                           shape.localTokens, shape.hidden,
                           layerNorm ? opcount::kLayerNormForwardPerElement
                                     : opcount::kRMSNormForwardPerElement,
                           layerNorm ? opcount::kLayerNormForwardPerRow
                                     : opcount::kRMSNormForwardPerRow);
  std::vector<TensorAccess> reads = {
      activation(input, rowElements),
      weight((primitive + "_gamma").str(), shape.hidden)};
  if (layerNorm)
    reads.push_back(weight((primitive + "_beta").str(), shape.hidden));
  Invocation &invocation =
      emit({primitive,
            Phase::Forward,
            Engine::Vector,
            ops,
            std::move(reads),
            {activation(output, rowElements)},
            "forward of " + primitive + ": " + stringifyEnum(model.norm) +
                " of " + input + " over the hidden dimension"});
  stash(invocation, activation(input, rowElements), inputRole);
}

/// The output projection or FC2 tail after its row-parallel partial sums:
/// the TP reduction (MLM2019 g: all-reduce; SeqSel g-bar: reduce-scatter),
/// the bias (added after the reduction so it is added once), the hidden
/// dropout and the residual add. Under SP these run on the sequence shard.
void BlockBuilder::rowParallelTail(
    llvm::StringRef prefix, llvm::StringRef biasPrimitive,
    llvm::StringRef partial, llvm::StringRef bias, llvm::StringRef biased,
    bool dropout, llvm::StringRef dropoutPrimitive, llvm::StringRef dropoutMask,
    llvm::StringRef dropped, llvm::StringRef residualPrimitive,
    llvm::StringRef skip, llvm::StringRef residualOutput) {
  std::string collective = (prefix + "_tp_g").str();
  if (hasCollectives()) {
    if (shape.sequenceParallel)
      tpCollective(collective, Phase::Forward, CollectiveKind::ReduceScatter,
                   partial,
                   "sequence parallelism (SeqSel Sec. 4.2.2, g-bar): "
                   "reduce-scatter the partial sums of " +
                       partial + " onto each rank's sequence shard");
    else
      tpCollective(collective, Phase::Forward, CollectiveKind::AllReduce,
                   partial,
                   "tensor parallelism (MLM2019 Sec. 3, g): all-reduce the "
                   "row-parallel partial sums of " +
                       partial);
  }
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, partial);
  emit({biasPrimitive,
        Phase::Forward,
        Engine::Vector,
        elementwiseOps((biasPrimitive + " forward ops").str(), rowElements,
                       opcount::kBiasAddPerElement),
        {activation(partial, rowElements), weight(bias, shape.hidden)},
        {activation(biased, rowElements)},
        "forward of " + biasPrimitive +
            ": the row-parallel bias is added after the reduction, once"});
  llvm::StringRef residualInput = biased;
  if (dropout) {
    Invocation &invocation = emit(
        {dropoutPrimitive,
         Phase::Forward,
         Engine::Vector,
         elementwiseOps((dropoutPrimitive + " forward ops").str(), rowElements,
                        opcount::kDropoutForwardPerElement),
         {activation(biased, rowElements)},
         {activation(dropped, rowElements), mask(dropoutMask, rowElements)},
         "forward of " + dropoutPrimitive + ": hidden dropout on " + biased +
             " before the residual add"});
    stash(invocation, mask(dropoutMask, rowElements), StashRole::Kept);
    residualInput = dropped;
  }
  emit({residualPrimitive,
        Phase::Forward,
        Engine::Vector,
        elementwiseOps((residualPrimitive + " forward ops").str(), rowElements,
                       opcount::kResidualAddPerElement),
        {activation(skip, rowElements), activation(residualInput, rowElements)},
        {activation(residualOutput, rowElements)},
        "forward of " + residualPrimitive + ": residual add " + skip + " + " +
            residualInput});
}

/// Attention half of the forward (SeqSel Sec. 4.1, Fig. 2 and 5).
void BlockBuilder::forwardAttention() {
  norm("norm1", "x", "x_norm1", StashRole::BlockInput);
  if (hasCollectives() && shape.sequenceParallel)
    tpCollective("attn_tp_f", Phase::Forward, CollectiveKind::AllGather,
                 "x_norm1",
                 "sequence parallelism (SeqSel Sec. 4.2.2, g): all-gather the "
                 "sequence-sharded x_norm1 so qkv_proj sees the whole "
                 "sequence");

  int64_t inputElements = elements({shape.tokens, shape.hidden}, "x_norm1");
  int64_t stashedInput = elements({shape.localTokens, shape.hidden}, "x_norm1");
  int64_t qElements = elements({shape.tokens, shape.qCols}, "q");
  int64_t kvElements = elements({shape.tokens, shape.kvCols}, "k");
  int64_t scoreElements =
      elements({shape.batch, shape.heads, shape.seq, shape.seq}, "scores");
  int64_t scoreRows =
      elements({shape.batch, shape.heads, shape.seq}, "score rows");

  Invocation *invocation = &emit(
      {"qkv_proj",
       Phase::Forward,
       Engine::Matmul,
       linearOps("qkv_proj forward ops", shape.tokens, shape.hidden,
                 shape.qkvCols),
       {activation("x_norm1", inputElements),
        weight("w_qkv", elements({shape.hidden, shape.qkvCols}, "w_qkv")),
        weight("b_qkv", shape.qkvCols)},
       {activation("q", qElements), activation("k", kvElements),
        activation("v", kvElements)},
       "forward of qkv_proj: column-parallel projection of x_norm1 to this "
       "rank's query, key and value heads, bias included"});
  // Under SP the sequence shard is kept and re-gathered for the weight
  // gradient (qkv_wgrad_gather), SeqSel Sec. 4.2.2.
  stash(*invocation, activation("x_norm1", stashedInput), StashRole::Kept);

  invocation = &emit(
      {"qk_matmul",
       Phase::Forward,
       Engine::Matmul,
       attentionMatmulOps("qk_matmul forward ops"),
       {activation("q", qElements), activation("k", kvElements)},
       {activation("scores", scoreElements)},
       "forward of qk_matmul: attention scores Q K^T of this rank's heads"});
  stash(*invocation, activation("q", qElements), StashRole::Kept);
  stash(*invocation, activation("k", kvElements), StashRole::Kept);

  invocation = &emit(
      {"softmax",
       Phase::Forward,
       Engine::Vector,
       rowwiseOps("softmax forward ops", scoreRows, shape.seq,
                  opcount::kSoftmaxForwardPerElement,
                  opcount::kSoftmaxForwardPerRow),
       {activation("scores", scoreElements)},
       {activation("probs", scoreElements)},
       "forward of softmax: scale by 1/sqrt(head_dim), causal mask (generated "
       "from indices, nothing read) and softmax over each score row"});
  stash(*invocation, activation("probs", scoreElements),
        StashRole::AttentionCore);

  llvm::StringRef attended = "probs";
  if (training.attentionDropout) {
    invocation = &emit(
        {"attn_dropout",
         Phase::Forward,
         Engine::Vector,
         elementwiseOps("attn_dropout forward ops", scoreElements,
                        opcount::kDropoutForwardPerElement),
         {activation("probs", scoreElements)},
         {activation("probs_dropped", scoreElements),
          mask("attn_dropout_mask", scoreElements)},
         "forward of attn_dropout: dropout on the attention probabilities"});
    stash(*invocation, mask("attn_dropout_mask", scoreElements),
          StashRole::AttentionCore);
    attended = "probs_dropped";
  }

  invocation =
      &emit({"attn_v_matmul",
             Phase::Forward,
             Engine::Matmul,
             attentionMatmulOps("attn_v_matmul forward ops"),
             {activation(attended, scoreElements), activation("v", kvElements)},
             {activation("context", qElements)},
             "forward of attn_v_matmul: attention-weighted values " + attended +
                 " x V"});
  // Without attention dropout, `probs` is already stashed by softmax.
  if (training.attentionDropout)
    stash(*invocation, activation("probs_dropped", scoreElements),
          StashRole::AttentionCore);
  stash(*invocation, activation("v", kvElements), StashRole::Kept);

  invocation = &emit(
      {"out_proj",
       Phase::Forward,
       Engine::Matmul,
       linearOps("out_proj forward ops", shape.tokens, shape.qCols,
                 shape.hidden),
       {activation("context", qElements),
        weight("w_out", elements({shape.qCols, shape.hidden}, "w_out"))},
       {activation("attn_proj", inputElements)},
       "forward of out_proj: row-parallel output projection of this rank's "
       "heads (partial sums when tp > 1)"});
  stash(*invocation, activation("context", qElements), StashRole::Kept);

  rowParallelTail(/*prefix=*/"attn", /*biasPrimitive=*/"out_proj_bias",
                  /*partial=*/"attn_proj", /*bias=*/"b_out",
                  /*biased=*/"attn_out", /*dropout=*/training.hiddenDropout,
                  /*dropoutPrimitive=*/"attn_residual_dropout",
                  /*dropoutMask=*/"attn_residual_dropout_mask",
                  /*dropped=*/"attn_out_dropped",
                  /*residualPrimitive=*/"attn_residual", /*skip=*/"x",
                  /*residualOutput=*/"h_attn");
}

/// MLP half of the forward (SeqSel Sec. 4.1, Fig. 4 and 5).
void BlockBuilder::forwardMlp() {
  norm("norm2", "h_attn", "x_norm2", StashRole::Kept);
  if (hasCollectives() && shape.sequenceParallel)
    tpCollective("mlp_tp_f", Phase::Forward, CollectiveKind::AllGather,
                 "x_norm2",
                 "sequence parallelism (SeqSel Sec. 4.2.2, g): all-gather the "
                 "sequence-sharded x_norm2 so fc1 sees the whole sequence");

  int64_t inputElements = elements({shape.tokens, shape.hidden}, "x_norm2");
  int64_t stashedInput = elements({shape.localTokens, shape.hidden}, "x_norm2");
  int64_t fc1Elements = elements({shape.tokens, shape.fc1Cols}, "fc1_out");
  int64_t actElements = elements({shape.tokens, shape.ffnCols}, "act_out");

  Invocation *invocation = &emit(
      {"fc1",
       Phase::Forward,
       Engine::Matmul,
       linearOps("fc1 forward ops", shape.tokens, shape.hidden, shape.fc1Cols),
       {activation("x_norm2", inputElements),
        weight("w_fc1", elements({shape.hidden, shape.fc1Cols}, "w_fc1")),
        weight("b_fc1", shape.fc1Cols)},
       {activation("fc1_out", fc1Elements)},
       "forward of fc1: column-parallel MLP up-projection of x_norm2, bias "
       "included"});
  stash(*invocation, activation("x_norm2", stashedInput), StashRole::Kept);

  invocation =
      &emit({"activation",
             Phase::Forward,
             Engine::Vector,
             elementwiseOps("activation forward ops", actElements,
                            activationOpsPerElement(model.activation,
                                                    /*inputGradient=*/false)),
             {activation("fc1_out", fc1Elements)},
             {activation("act_out", actElements)},
             "forward of activation: " + stringifyEnum(model.activation) +
                 " of fc1_out"});
  stash(*invocation, activation("fc1_out", fc1Elements), StashRole::Kept);

  invocation = &emit(
      {"fc2",
       Phase::Forward,
       Engine::Matmul,
       linearOps("fc2 forward ops", shape.tokens, shape.ffnCols, shape.hidden),
       {activation("act_out", actElements),
        weight("w_fc2", elements({shape.ffnCols, shape.hidden}, "w_fc2"))},
       {activation("mlp_proj", inputElements)},
       "forward of fc2: row-parallel MLP down-projection (partial sums when "
       "tp > 1)"});
  stash(*invocation, activation("act_out", actElements), StashRole::Kept);

  rowParallelTail(/*prefix=*/"mlp", /*biasPrimitive=*/"fc2_bias",
                  /*partial=*/"mlp_proj", /*bias=*/"b_fc2",
                  /*biased=*/"mlp_out", /*dropout=*/training.hiddenDropout,
                  /*dropoutPrimitive=*/"mlp_dropout",
                  /*dropoutMask=*/"mlp_dropout_mask",
                  /*dropped=*/"mlp_out_dropped",
                  /*residualPrimitive=*/"mlp_residual", /*skip=*/"h_attn",
                  /*residualOutput=*/"y");
}

/// Full recompute (SeqSel Sec. 5, Table 2; MLM2021): the whole block forward
/// is rerun from the checkpointed input before its backward, including its
/// TP collectives, which are recommunication. Megatron's checkpoint reruns
/// the layer's forward function as a whole, so the paper's "one extra
/// forward pass" is exact.
void BlockBuilder::recomputeFullForward(size_t forwardEnd) {
  for (size_t index = 0; index < forwardEnd; ++index) {
    Invocation clone = work.invocations[index];
    bool collective = clone.engine == Engine::Collective;
    clone.phase = collective ? Phase::Recommunication : Phase::Recompute;
    clone.cause =
        collective ? "full recompute reruns the block forward, redoing the "
                     "tensor-parallel collective " +
                         clone.primitive
                   : "full recompute of the block forward: " + clone.primitive;
    clone.stashBytes = 0;
    clone.stashed.clear();
    work.invocations.push_back(std::move(clone));
  }
}

/// Selective recompute (SeqSel Sec. 5, Eq. 8): the attention core QK^T,
/// softmax, attention dropout and probs x V is rerun from the kept Q, K, V
/// just before its backward. Calculon's attn_only omits probs x V
/// (reference README def. 3).
void BlockBuilder::recomputeAttentionCore(size_t forwardEnd) {
  for (size_t index = 0; index < forwardEnd; ++index) {
    llvm::StringRef primitive = work.invocations[index].primitive;
    if (primitive != "qk_matmul" && primitive != "softmax" &&
        primitive != "attn_dropout" && primitive != "attn_v_matmul")
      continue;
    Invocation clone = work.invocations[index];
    clone.phase = Phase::Recompute;
    clone.cause =
        "selective recompute of the attention core: " + clone.primitive;
    clone.stashBytes = 0;
    clone.stashed.clear();
    work.invocations.push_back(std::move(clone));
  }
}

/// Norm backward: input gradient (ActivationGrad) and gamma/beta gradients
/// accumulated into the gradient buffer (WeightGrad).
void BlockBuilder::normBackward(llvm::StringRef primitive,
                                llvm::StringRef input, llvm::StringRef output) {
  bool layerNorm = model.norm == NormKind::LayerNorm;
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, input);
  std::string gamma = (primitive + "_gamma").str();
  std::string beta = (primitive + "_beta").str();
  std::string outputGrad = ("d_" + output).str();
  std::string inputGrad = ("d_" + input).str();
  emit({primitive,
        Phase::ActivationGrad,
        Engine::Vector,
        rowwiseOps((primitive + " input-gradient ops").str(), shape.localTokens,
                   shape.hidden,
                   layerNorm ? opcount::kLayerNormInputGradPerElement
                             : opcount::kRMSNormInputGradPerElement,
                   layerNorm ? opcount::kLayerNormInputGradPerRow
                             : opcount::kRMSNormInputGradPerRow),
        {activation(input, rowElements), activation(outputGrad, rowElements),
         weight(gamma, shape.hidden)},
        {activation(inputGrad, rowElements)},
        "backward of " + primitive + ": gradient with respect to " + input});

  std::vector<TensorAccess> paramGrads = {gradient("d_" + gamma, shape.hidden)};
  if (layerNorm)
    paramGrads.push_back(gradient("d_" + beta, shape.hidden));
  std::vector<TensorAccess> reads = {activation(input, rowElements),
                                     activation(outputGrad, rowElements)};
  llvm::append_range(reads, paramGrads);
  emit({primitive, Phase::WeightGrad, Engine::Vector,
        elementwiseOps((primitive + " parameter-gradient ops").str(),
                       rowElements,
                       layerNorm ? opcount::kLayerNormParamGradPerElement
                                 : opcount::kRMSNormParamGradPerElement),
        std::move(reads), std::move(paramGrads),
        "backward of " + primitive +
            ": norm parameter gradients accumulated over this rank's rows"});
}

/// MLP half of the backward, in reverse.
void BlockBuilder::backwardMlp() {
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, "d_y");
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "d_mlp_out");
  int64_t fc1Elements = elements({shape.tokens, shape.fc1Cols}, "d_fc1_out");
  int64_t actElements = elements({shape.tokens, shape.ffnCols}, "d_act_out");

  // The residual add passes d_y unchanged to the dropout and to h_attn.
  llvm::StringRef biasedGrad = "d_y";
  if (training.hiddenDropout) {
    emit({"mlp_dropout",
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("mlp_dropout input-gradient ops", rowElements,
                         opcount::kDropoutInputGradPerElement),
          {activation("d_y", rowElements),
           mask("mlp_dropout_mask", rowElements)},
          {activation("d_mlp_out", rowElements)},
          "backward of mlp_dropout: the output gradient masked and scaled"});
    biasedGrad = "d_mlp_out";
  }
  emit(
      {"fc2_bias",
       Phase::WeightGrad,
       Engine::Vector,
       elementwiseOps("fc2_bias gradient ops", rowElements,
                      opcount::kBiasGradPerElement),
       {activation(biasedGrad, rowElements), gradient("d_b_fc2", shape.hidden)},
       {gradient("d_b_fc2", shape.hidden)},
       "backward of fc2_bias: bias gradient, the column sums of " + biasedGrad +
           " accumulated into the gradient buffer"});
  if (hasCollectives() && shape.sequenceParallel)
    tpCollective("mlp_tp_g", Phase::ActivationGrad, CollectiveKind::AllGather,
                 biasedGrad,
                 "sequence parallelism (SeqSel Sec. 4.2.2, g-bar backward): "
                 "all-gather the sequence-sharded " +
                     biasedGrad + " for the fc2 backward");

  emit({"fc2",
        Phase::ActivationGrad,
        Engine::Matmul,
        linearOps("fc2 input-gradient ops", shape.tokens, shape.hidden,
                  shape.ffnCols),
        {activation(biasedGrad, fullElements),
         weight("w_fc2", elements({shape.ffnCols, shape.hidden}, "w_fc2"))},
        {activation("d_act_out", actElements)},
        "backward of fc2: input gradient d_act_out = " + biasedGrad +
            " W_fc2^T"});
  emit({"fc2",
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("fc2 weight-gradient ops", shape.ffnCols, shape.tokens,
                  shape.hidden),
        {activation("act_out", actElements),
         activation(biasedGrad, fullElements),
         gradient("d_w_fc2",
                  elements({shape.ffnCols, shape.hidden}, "d_w_fc2"))},
        {gradient("d_w_fc2",
                  elements({shape.ffnCols, shape.hidden}, "d_w_fc2"))},
        "backward of fc2: weight gradient act_out^T " + biasedGrad +
            " accumulated into the gradient buffer"});

  emit({"activation",
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("activation input-gradient ops", actElements,
                       activationOpsPerElement(model.activation,
                                               /*inputGradient=*/true)),
        {activation("fc1_out", fc1Elements),
         activation("d_act_out", actElements)},
        {activation("d_fc1_out", fc1Elements)},
        "backward of activation: gradient with respect to fc1_out"});

  emit({"fc1",
        Phase::ActivationGrad,
        Engine::Matmul,
        linearOps("fc1 input-gradient ops", shape.tokens, shape.fc1Cols,
                  shape.hidden),
        {activation("d_fc1_out", fc1Elements),
         weight("w_fc1", elements({shape.hidden, shape.fc1Cols}, "w_fc1"))},
        {activation("d_x_norm2", fullElements)},
        "backward of fc1: input gradient d_fc1_out W_fc1^T (partial sums when "
        "tp > 1)"});
  if (hasCollectives()) {
    if (shape.sequenceParallel) {
      tpCollective("mlp_tp_f", Phase::ActivationGrad,
                   CollectiveKind::ReduceScatter, "d_x_norm2",
                   "sequence parallelism (SeqSel Sec. 4.2.2, g backward): "
                   "reduce-scatter the partial sums of d_x_norm2 onto the "
                   "sequence shards");
      tpCollective("fc1_wgrad_gather", Phase::Recommunication,
                   CollectiveKind::AllGather, "x_norm2",
                   "sequence-parallel all-gather of x_norm2 redone in "
                   "backward for the fc1 weight gradient (only the shard is "
                   "stashed)");
    } else {
      tpCollective("mlp_tp_f", Phase::ActivationGrad, CollectiveKind::AllReduce,
                   "d_x_norm2",
                   "tensor parallelism (MLM2019 Sec. 3, f backward): "
                   "all-reduce the partial sums of d_x_norm2");
    }
  }
  emit({"fc1",
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("fc1 weight-gradient ops", shape.hidden, shape.tokens,
                  shape.fc1Cols),
        {activation("x_norm2", fullElements),
         activation("d_fc1_out", fc1Elements),
         gradient("d_w_fc1",
                  elements({shape.hidden, shape.fc1Cols}, "d_w_fc1"))},
        {gradient("d_w_fc1",
                  elements({shape.hidden, shape.fc1Cols}, "d_w_fc1"))},
        "backward of fc1: weight gradient x_norm2^T d_fc1_out accumulated "
        "into the gradient buffer"});
  emit({"fc1_bias",
        Phase::WeightGrad,
        Engine::Vector,
        elementwiseOps("fc1_bias gradient ops", fc1Elements,
                       opcount::kBiasGradPerElement),
        {activation("d_fc1_out", fc1Elements),
         gradient("d_b_fc1", shape.fc1Cols)},
        {gradient("d_b_fc1", shape.fc1Cols)},
        "backward of fc1_bias: the fc1 bias gradient, the column sums of "
        "d_fc1_out accumulated into the gradient buffer"});

  normBackward("norm2", "h_attn", "x_norm2");
  emit({"mlp_residual",
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("mlp_residual gradient ops", rowElements,
                       opcount::kResidualGradPerElement),
        {activation("d_h_attn", rowElements), activation("d_y", rowElements)},
        {activation("d_h_attn", rowElements)},
        "backward of mlp_residual: the skip-path gradient d_y is added to the "
        "gradient of h_attn returned through norm2"});
}

/// Attention output projection backward, in reverse: hidden dropout, bias,
/// the SP all-gather of the gradient, out_proj.
void BlockBuilder::backwardAttentionProjection() {
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, "d_h_attn");
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "d_attn_out");
  int64_t qElements = elements({shape.tokens, shape.qCols}, "d_context");

  // The residual add passes d_h_attn unchanged to the dropout and to x.
  llvm::StringRef biasedGrad = "d_h_attn";
  if (training.hiddenDropout) {
    emit({"attn_residual_dropout",
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("attn_residual_dropout input-gradient ops",
                         rowElements, opcount::kDropoutInputGradPerElement),
          {activation("d_h_attn", rowElements),
           mask("attn_residual_dropout_mask", rowElements)},
          {activation("d_attn_out", rowElements)},
          "backward of attn_residual_dropout: the gradient of h_attn masked "
          "and scaled"});
    biasedGrad = "d_attn_out";
  }
  emit(
      {"out_proj_bias",
       Phase::WeightGrad,
       Engine::Vector,
       elementwiseOps("out_proj_bias gradient ops", rowElements,
                      opcount::kBiasGradPerElement),
       {activation(biasedGrad, rowElements), gradient("d_b_out", shape.hidden)},
       {gradient("d_b_out", shape.hidden)},
       "backward of out_proj_bias: bias gradient, the column sums of " +
           biasedGrad + " accumulated into the gradient buffer"});
  if (hasCollectives() && shape.sequenceParallel)
    tpCollective("attn_tp_g", Phase::ActivationGrad, CollectiveKind::AllGather,
                 biasedGrad,
                 "sequence parallelism (SeqSel Sec. 4.2.2, g-bar backward): "
                 "all-gather the sequence-sharded " +
                     biasedGrad + " for the out_proj backward");

  int64_t weightElements = elements({shape.qCols, shape.hidden}, "w_out");
  emit({"out_proj",
        Phase::ActivationGrad,
        Engine::Matmul,
        linearOps("out_proj input-gradient ops", shape.tokens, shape.hidden,
                  shape.qCols),
        {activation(biasedGrad, fullElements), weight("w_out", weightElements)},
        {activation("d_context", qElements)},
        "backward of out_proj: input gradient d_context = " + biasedGrad +
            " W_out^T"});
  emit({"out_proj",
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("out_proj weight-gradient ops", shape.qCols, shape.tokens,
                  shape.hidden),
        {activation("context", qElements), activation(biasedGrad, fullElements),
         gradient("d_w_out", weightElements)},
        {gradient("d_w_out", weightElements)},
        "backward of out_proj: weight gradient context^T " + biasedGrad +
            " accumulated into the gradient buffer"});
}

/// Attention core backward, in reverse: two batched matmuls for each of
/// probs x V and QK^T (SeqSel App. A: backward is twice the forward), and
/// the dropout and softmax gradients.
void BlockBuilder::backwardAttentionCore() {
  int64_t qElements = elements({shape.tokens, shape.qCols}, "d_q");
  int64_t kvElements = elements({shape.tokens, shape.kvCols}, "d_k");
  int64_t scoreElements =
      elements({shape.batch, shape.heads, shape.seq, shape.seq}, "d_scores");
  llvm::StringRef attended =
      training.attentionDropout ? "probs_dropped" : "probs";
  std::string attendedGrad = ("d_" + attended).str();

  emit(
      {"attn_v_matmul",
       Phase::ActivationGrad,
       Engine::Matmul,
       guard.mul(2, attentionMatmulOps("attn_v_matmul input-gradient ops"),
                 "attn_v_matmul input-gradient ops"),
       {activation("d_context", qElements), activation("v", kvElements),
        activation(attended, scoreElements)},
       {activation(attendedGrad, scoreElements), activation("d_v", kvElements)},
       "backward of attn_v_matmul: " + attendedGrad +
           " = d_context V^T and d_v = " + attended +
           "^T d_context (summed over the query heads sharing a key/value "
           "head)"});
  if (training.attentionDropout)
    emit({"attn_dropout",
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("attn_dropout input-gradient ops", scoreElements,
                         opcount::kDropoutInputGradPerElement),
          {activation("d_probs_dropped", scoreElements),
           mask("attn_dropout_mask", scoreElements)},
          {activation("d_probs", scoreElements)},
          "backward of attn_dropout: d_probs_dropped masked and scaled"});
  emit({"softmax",
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("softmax input-gradient ops", scoreElements,
                       opcount::kSoftmaxInputGradPerElement),
        {activation("probs", scoreElements),
         activation("d_probs", scoreElements)},
        {activation("d_scores", scoreElements)},
        "backward of softmax: gradient of the scaled, masked scores from the "
        "softmax output"});
  emit({"qk_matmul",
        Phase::ActivationGrad,
        Engine::Matmul,
        guard.mul(2, attentionMatmulOps("qk_matmul input-gradient ops"),
                  "qk_matmul input-gradient ops"),
        {activation("d_scores", scoreElements), activation("q", qElements),
         activation("k", kvElements)},
        {activation("d_q", qElements), activation("d_k", kvElements)},
        "backward of qk_matmul: d_q = d_scores K and d_k = d_scores^T Q"});
}

/// Attention input backward, in reverse: qkv_proj, the TP reduction of its
/// input gradient, the SP re-gather for its weight gradient, norm1 and the
/// residual fork at the block input.
void BlockBuilder::backwardAttentionInput() {
  int64_t qElements = elements({shape.tokens, shape.qCols}, "d_q");
  int64_t kvElements = elements({shape.tokens, shape.kvCols}, "d_k");
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "d_x_norm1");
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, "d_x");
  int64_t weightElements = elements({shape.hidden, shape.qkvCols}, "w_qkv");

  emit({"qkv_proj",
        Phase::ActivationGrad,
        Engine::Matmul,
        linearOps("qkv_proj input-gradient ops", shape.tokens, shape.qkvCols,
                  shape.hidden),
        {activation("d_q", qElements), activation("d_k", kvElements),
         activation("d_v", kvElements), weight("w_qkv", weightElements)},
        {activation("d_x_norm1", fullElements)},
        "backward of qkv_proj: input gradient [d_q d_k d_v] W_qkv^T (partial "
        "sums when tp > 1)"});
  if (hasCollectives()) {
    if (shape.sequenceParallel) {
      tpCollective("attn_tp_f", Phase::ActivationGrad,
                   CollectiveKind::ReduceScatter, "d_x_norm1",
                   "sequence parallelism (SeqSel Sec. 4.2.2, g backward): "
                   "reduce-scatter the partial sums of d_x_norm1 onto the "
                   "sequence shards");
      tpCollective("qkv_wgrad_gather", Phase::Recommunication,
                   CollectiveKind::AllGather, "x_norm1",
                   "sequence-parallel all-gather of x_norm1 redone in "
                   "backward for the qkv_proj weight gradient (only the "
                   "shard is stashed)");
    } else {
      tpCollective("attn_tp_f", Phase::ActivationGrad,
                   CollectiveKind::AllReduce, "d_x_norm1",
                   "tensor parallelism (MLM2019 Sec. 3, f backward): "
                   "all-reduce the partial sums of d_x_norm1");
    }
  }
  emit({"qkv_proj",
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("qkv_proj weight-gradient ops", shape.hidden, shape.tokens,
                  shape.qkvCols),
        {activation("x_norm1", fullElements), activation("d_q", qElements),
         activation("d_k", kvElements), activation("d_v", kvElements),
         gradient("d_w_qkv", weightElements)},
        {gradient("d_w_qkv", weightElements)},
        "backward of qkv_proj: weight gradient x_norm1^T [d_q d_k d_v] "
        "accumulated into the gradient buffer"});
  int64_t qkvElements = elements({shape.tokens, shape.qkvCols}, "d_qkv");
  emit({"qkv_bias",
        Phase::WeightGrad,
        Engine::Vector,
        elementwiseOps("qkv_bias gradient ops", qkvElements,
                       opcount::kBiasGradPerElement),
        {activation("d_q", qElements), activation("d_k", kvElements),
         activation("d_v", kvElements), gradient("d_b_qkv", shape.qkvCols)},
        {gradient("d_b_qkv", shape.qkvCols)},
        "backward of qkv_bias: the qkv_proj bias gradient, the column sums "
        "of d_q, d_k, d_v accumulated into the gradient buffer"});

  normBackward("norm1", "x", "x_norm1");
  emit({"attn_residual",
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("attn_residual gradient ops", rowElements,
                       opcount::kResidualGradPerElement),
        {activation("d_x", rowElements), activation("d_h_attn", rowElements)},
        {activation("d_x", rowElements)},
        "backward of attn_residual: the skip-path gradient d_h_attn is added "
        "to the gradient of x returned through norm1"});
}

/// Makes readBytes()/writeBytes() safe: every invocation's byte sums fit.
llvm::Error BlockBuilder::verifyByteSums() {
  for (const Invocation &invocation : work.invocations) {
    std::string label =
        (invocation.primitive + " " + stringifyEnum(invocation.phase)).str();
    sumBytes(guard, invocation.reads, label + " read bytes");
    sumBytes(guard, invocation.writes, label + " write bytes");
  }
  if (guard.failed())
    return overflowError("deriveBlockWork", guard);
  return llvm::Error::success();
}

llvm::Expected<BlockWork> BlockBuilder::build() {
  work.cadence = Cadence::PerMicroBatch;
  forwardAttention();
  forwardMlp();
  size_t forwardEnd = work.invocations.size();
  if (mapping.recompute == RecomputePolicy::Full)
    recomputeFullForward(forwardEnd);
  backwardMlp();
  backwardAttentionProjection();
  // Megatron recomputes the checkpointed core attention when autograd
  // reaches it, after the output projection's backward.
  if (mapping.recompute == RecomputePolicy::Selective)
    recomputeAttentionCore(forwardEnd);
  backwardAttentionCore();
  backwardAttentionInput();
  if (guard.failed())
    return overflowError("deriveBlockWork", guard);
  if (llvm::Error error = verifyByteSums())
    return error;
  return std::move(work);
}

/// Parameter counts of one block on one TP rank, by tensor.
struct RankParameters {
  int64_t total = 0;
  /// Parameters replicated across TP ranks whose gradients are partial under
  /// sequence parallelism: norm parameters and row-parallel biases.
  int64_t sequenceParallel = 0;
};

/// Megatron's partitioning (MLM2019 Sec. 3; parameter count MLM2021 Eq. 2
/// per layer: 12h^2 + 13h): column-parallel qkv_proj and fc1 weights
/// and biases split over tp, row-parallel out_proj and fc2 weights split,
/// their biases and the norm parameters replicated.
RankParameters rankParameters(const ModelSpec &model, int64_t tp,
                              OverflowGuard &guard) {
  RankColumns columns = makeRankColumns(model, tp, guard);
  int64_t hidden = model.hidden;
  int64_t normParams = model.norm == NormKind::LayerNorm
                           ? guard.mul(2, hidden, "norm parameters")
                           : hidden;
  int64_t bothNorms = guard.mul(2, normParams, "norm parameters");
  int64_t qkv =
      guard.add(guard.mul(hidden, columns.qkvCols, "w_qkv parameters"),
                columns.qkvCols, "qkv_proj parameters");
  int64_t out = guard.add(guard.mul(columns.qCols, hidden, "w_out parameters"),
                          hidden, "out_proj parameters");
  int64_t fc1 =
      guard.add(guard.mul(hidden, columns.fc1Cols, "w_fc1 parameters"),
                columns.fc1Cols, "fc1 parameters");
  int64_t fc2 =
      guard.add(guard.mul(columns.ffnCols, hidden, "w_fc2 parameters"), hidden,
                "fc2 parameters");
  RankParameters parameters;
  parameters.sequenceParallel =
      guard.add(bothNorms, guard.mul(2, hidden, "row-parallel bias parameters"),
                "sequence-parallel parameters");
  for (int64_t count : {qkv, out, fc1, fc2, bothNorms})
    parameters.total = guard.add(parameters.total, count, "block parameters");
  return parameters;
}

} // namespace

llvm::Expected<BlockWork>
blueprint::workload::deriveBlockWork(const ModelSpec &model,
                                     const TrainingSpec &training,
                                     const MappingSpec &mapping) {
  if (llvm::Error error =
          checkComposes(model, training, mapping, "deriveBlockWork"))
    return error;
  return BlockBuilder(model, training, mapping).build();
}

llvm::Expected<int64_t>
blueprint::workload::blockParametersPerRank(const ModelSpec &model,
                                            const MappingSpec &mapping) {
  std::vector<RuleViolation> violations = checkModel(model);
  if (mapping.tp <= 0)
    violations.push_back(
        {"transformer_mapping_c1",
         "tp must be positive, got " + std::to_string(mapping.tp)});
  else
    for (auto [value, name, rule] :
         {std::tuple<int64_t, llvm::StringRef, llvm::StringRef>{
              model.heads, "heads", "decoder_training_c4"},
          {model.kvHeads, "kv_heads", "decoder_training_c5"},
          {model.hidden, "hidden", "decoder_training_c6"},
          {model.ffnHidden, "ffn_hidden", "decoder_training_c7"}})
      if (value % mapping.tp != 0)
        violations.push_back({rule.str(), (name + " = " + llvm::Twine(value) +
                                           " is not divisible by tp = " +
                                           llvm::Twine(mapping.tp))
                                              .str()});
  if (!violations.empty()) {
    std::string message = "blockParametersPerRank: invalid model or tp:";
    for (const RuleViolation &violation : violations)
      message += " [" + violation.rule + "] " + violation.message + ";";
    return makeError(message);
  }
  OverflowGuard guard;
  RankParameters parameters = rankParameters(model, mapping.tp, guard);
  if (guard.failed())
    return overflowError("blockParametersPerRank", guard);
  return parameters.total;
}

/// Mixed-precision AdamW over the rank's block parameters (optimizer state
/// master weights, m and v at optimizer_state_type, as in MLM2021 and SeqSel
/// Fig. 1): reads master weights, m, v and the accumulated gradient; writes
/// master weights, m, v, the low-precision weight copy and the zeroed
/// gradient buffer for the next iteration's accumulation. Gradient clipping
/// and loss scaling are not in the spec and not counted.
llvm::Expected<BlockWork>
blueprint::workload::deriveOptimizerWork(const ModelSpec &model,
                                         const TrainingSpec &training,
                                         const MappingSpec &mapping) {
  if (llvm::Error error =
          checkComposes(model, training, mapping, "deriveOptimizerWork"))
    return error;
  OverflowGuard guard;
  RankParameters parameters = rankParameters(model, mapping.tp, guard);
  int64_t stateBytes = bytesOf(training.optimizerStateType);
  int64_t gradBytes = bytesOf(training.gradientType);
  int64_t weightBytes = bytesOf(training.weightType);
  auto bytes = [&](llvm::StringRef name, int64_t elements, int64_t width) {
    return TensorAccess{name.str(),
                        guard.mul(elements, width, (name + " bytes").str())};
  };

  BlockWork work;
  work.cadence = Cadence::PerIteration;
  int64_t tp = mapping.tp;
  if (tp > 1 && mapping.tpComm == TPCommMode::ReduceScatterAllGather) {
    // Each rank saw only its sequence shard, so the gradients of the
    // replicated parameters are partial sums. Megatron-LM all-reduces the
    // parameters marked sequence_parallel across the TP group once per
    // iteration (finalize_model_grads, _allreduce_layernorm_grads).
    int64_t count = parameters.sequenceParallel;
    Invocation sync;
    sync.primitive = "sp_param_grad_sync";
    sync.phase = Phase::WeightGrad;
    sync.engine = Engine::Collective;
    sync.ops = guard.mul(count / tp, tp - 1, "sp_param_grad_sync ops");
    sync.reads = {bytes("d_sequence_parallel_params", count, gradBytes)};
    sync.writes = {bytes("d_sequence_parallel_params", count, gradBytes)};
    CollectiveFacts facts;
    facts.kind = CollectiveKind::AllReduce;
    facts.reduction = ReductionKind::Sum;
    facts.participants = tp;
    facts.messageBytes = sync.reads.front().bytes;
    sync.collective = facts;
    sync.cause = "sequence parallelism: norm and row-parallel bias gradients "
                 "are partial sums over each rank's sequence shard and are "
                 "all-reduced across the TP group once per iteration";
    work.invocations.push_back(std::move(sync));
  }

  int64_t count = parameters.total;
  Invocation step;
  step.primitive = "adamw_step";
  step.phase = Phase::Optimizer;
  step.engine = Engine::Vector;
  step.ops = guard.mul(count, opcount::kAdamWPerParameter, "adamw_step ops");
  step.reads = {bytes("params_master", count, stateBytes),
                bytes("adam_m", count, stateBytes),
                bytes("adam_v", count, stateBytes),
                bytes("d_params", count, gradBytes)};
  step.writes = {
      bytes("params_master", count, stateBytes),
      bytes("adam_m", count, stateBytes), bytes("adam_v", count, stateBytes),
      bytes("params", count, weightBytes), bytes("d_params", count, gradBytes)};
  step.cause = "mixed-precision AdamW step over this rank's block parameters, "
               "once per iteration; the gradient buffer is zeroed for the "
               "next iteration's accumulation";
  work.invocations.push_back(std::move(step));

  for (const Invocation &invocation : work.invocations) {
    sumBytes(guard, invocation.reads, invocation.primitive + " read bytes");
    sumBytes(guard, invocation.writes, invocation.primitive + " write bytes");
  }
  if (guard.failed())
    return overflowError("deriveOptimizerWork", guard);
  return work;
}
