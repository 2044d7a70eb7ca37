//===- BlockWork.cpp - Exact work of one decoder block --------------------===//
//
// One function per formula, each naming its source. The block is Megatron-LM's
// pre-norm GPT layer with its tensor parallelism (Shoeybi et al. 2019,
// "MLM2019"), FLOP and parameter counts (Narayanan et al. 2021, "MLM2021"),
// and the activation-memory accounting, sequence parallelism and selective
// recompute of Korthikanti et al. 2022 ("SeqSel", arXiv:2205.05198).
// docs/WorkAlgebra.md is the table of what is emitted. The forward is shared
// with inference (ForwardBuilder.cpp); this file adds recompute, backward,
// the optimizer and the parameter count.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/ContextParallel.h"
#include "Blueprint/Workload/Primitives.h"
#include "ForwardBuilder.h"
#include "Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>
#include <tuple>

using namespace blueprint::workload;
using namespace blueprint::workload::detail;

namespace {
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
         lhs.collective == rhs.collective && lhs.gemms == rhs.gemms &&
         lhs.gemmCover == rhs.gemmCover && lhs.cause == rhs.cause;
}

std::optional<std::string>
blueprint::workload::matmulShapeViolation(Engine engine, int64_t ops,
                                          llvm::ArrayRef<MatmulShape> gemms,
                                          GemmCover cover) {
  if (engine != Engine::Matmul)
    return gemms.empty() ? std::nullopt
                         : std::optional<std::string>(
                               "only matmul work carries GEMM shapes, but " +
                               stringifyEnum(engine).str() + " work has " +
                               std::to_string(gemms.size()));
  if (gemms.empty())
    return std::string("matmul work carries the shape of its GEMMs");
  OverflowGuard guard;
  int64_t total = 0;
  for (const MatmulShape &gemm : gemms) {
    if (gemm.batch <= 0 || gemm.m < 0 || gemm.n < 0 || gemm.k < 0)
      return "GEMM [batch " + std::to_string(gemm.batch) + ", M " +
             std::to_string(gemm.m) + ", N " + std::to_string(gemm.n) + ", K " +
             std::to_string(gemm.k) +
             "] needs a positive batch and non-negative extents";
    int64_t gemmOps =
        guard.product({2, gemm.batch, gemm.m, gemm.n, gemm.k}, "GEMM ops");
    total = guard.add(total, gemmOps, "the sum of 2 * batch * M * N * K");
  }
  if (guard.failed())
    return "64-bit overflow computing " + guard.overflowedQuantity().str();
  if (cover == GemmCover::AtMostOps && total > ops)
    return "the GEMMs' 2 * batch * M * N * K sum to " + std::to_string(total) +
           ", more than ops = " + std::to_string(ops);
  if (cover == GemmCover::AllOps && total != ops)
    return "ops = " + std::to_string(ops) +
           " but the GEMMs' 2 * batch * M * N * K sum to " +
           std::to_string(total);
  return std::nullopt;
}

std::vector<int64_t>
blueprint::workload::flattenGemms(llvm::ArrayRef<MatmulShape> gemms) {
  std::vector<int64_t> flat;
  for (const MatmulShape &gemm : gemms)
    flat.insert(flat.end(), {gemm.batch, gemm.m, gemm.n, gemm.k});
  return flat;
}

std::optional<std::vector<MatmulShape>>
blueprint::workload::unflattenGemms(llvm::ArrayRef<int64_t> flat) {
  if (flat.size() % 4 != 0)
    return std::nullopt;
  std::vector<MatmulShape> gemms;
  for (size_t at = 0; at < flat.size(); at += 4)
    gemms.push_back({flat[at], flat[at + 1], flat[at + 2], flat[at + 3]});
  return gemms;
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

llvm::Expected<InvocationFigures>
blueprint::workload::figuresOf(const Invocation &invocation) {
  InvocationFigures figures;
  figures.primitive = invocation.primitive;
  figures.phase = invocation.phase;
  figures.engine = invocation.engine;
  figures.ops = invocation.ops;
  figures.stashBytes = invocation.stashBytes;
  figures.collective = invocation.collective;
  figures.gemms.assign(invocation.gemms.begin(), invocation.gemms.end());
  figures.gemmCover = invocation.gemmCover;
  OverflowGuard guard;
  llvm::StringRef phase = stringifyEnum(invocation.phase);
  figures.readBytes =
      sumBytes(guard, invocation.reads,
               llvm::Twine(invocation.primitive) + " " + phase + " read bytes");
  figures.writeBytes = sumBytes(guard, invocation.writes,
                                llvm::Twine(invocation.primitive) + " " +
                                    phase + " write bytes");
  if (guard.failed())
    return guard.error("summarize");
  return figures;
}

/// Adds one invocation's figures to `totals`, each sum through
/// `add(total, term, quantity)`, which checks it; `quantity` completes the
/// name of the total for a diagnostic.
template <typename CheckedAdd>
static void accumulate(WorkTotals &totals, const InvocationFigures &figures,
                       int64_t transferBytes, CheckedAdd add) {
  totals.invocations = add(totals.invocations, 1, " invocation count");
  totals.ops = add(totals.ops, figures.ops, " ops");
  totals.readBytes = add(totals.readBytes, figures.readBytes, " read bytes");
  totals.writeBytes =
      add(totals.writeBytes, figures.writeBytes, " write bytes");
  if (figures.collective)
    totals.messageBytes =
        add(totals.messageBytes, figures.collective->messageBytes,
            " message bytes");
  totals.minimumTransferBytes =
      add(totals.minimumTransferBytes, transferBytes, " transfer bytes");
  totals.stashBytes =
      add(totals.stashBytes, figures.stashBytes, " stash bytes");
}

llvm::Error WorkSummary::add(const InvocationFigures &figures) {
  int64_t transferBytes = 0;
  if (figures.collective) {
    llvm::Expected<int64_t> transfer =
        minimumTransferBytes(*figures.collective);
    if (!transfer)
      return transfer.takeError();
    transferBytes = *transfer;
  }
  auto phaseIndex = static_cast<size_t>(figures.phase);
  auto engineIndex = static_cast<size_t>(figures.engine);
  // Only unverified IR (or a caller's cast) can hold another value.
  if (phaseIndex >= kNumPhases || engineIndex >= kNumEngines)
    return makeError("summarize: phase " + llvm::Twine(phaseIndex) +
                     " or engine " + llvm::Twine(engineIndex) + " of '" +
                     figures.primitive + "' is no case");
  std::array<WorkTotals *, 4> totals = {&byPhaseEngine[phaseIndex][engineIndex],
                                        &byPhase[phaseIndex],
                                        &byEngine[engineIndex], &overall};

  // Sums that fit, the rule, are added without naming anything (this runs
  // for every op of every stage); the totals change only if all fit.
  bool overflowed = false;
  auto unnamedAdd = [&](int64_t total, int64_t term, const char *) {
    int64_t sum;
    overflowed |= llvm::AddOverflow(total, term, sum);
    return sum;
  };
  std::array<WorkTotals, 4> sums;
  for (auto [sum, target] : llvm::zip(sums, totals)) {
    sum = *target;
    accumulate(sum, figures, transferBytes, unnamedAdd);
  }
  if (!overflowed) {
    for (auto [sum, target] : llvm::zip(sums, totals))
      *target = sum;
    return llvm::Error::success();
  }

  // Some sum overflows: the same sums again, checked one by one, name the
  // first total that overflows.
  OverflowGuard guard;
  auto namedAdd = [&guard](const llvm::Twine &scope) {
    return [&guard, &scope](int64_t total, int64_t term, const char *quantity) {
      return guard.add(total, term, scope + quantity);
    };
  };
  llvm::StringRef phase = stringifyEnum(figures.phase);
  llvm::StringRef engine = stringifyEnum(figures.engine);
  accumulate(sums[0] = *totals[0], figures, transferBytes,
             namedAdd(phase + " " + engine));
  accumulate(sums[1] = *totals[1], figures, transferBytes, namedAdd(phase));
  accumulate(sums[2] = *totals[2], figures, transferBytes, namedAdd(engine));
  accumulate(sums[3] = *totals[3], figures, transferBytes,
             namedAdd("block total"));
  return guard.error("summarize");
}

llvm::Error WorkSummary::addScaled(const WorkSummary &other, int64_t times,
                                   llvm::StringRef what) {
  OverflowGuard guard;
  auto scaledAdd = [&](WorkTotals &total, const WorkTotals &term) {
    // A term of zeros adds nothing and cannot overflow (most phase and
    // engine cells of a template are empty).
    if (term.isZero())
      return;
    auto add = [&](int64_t &sum, int64_t value, const char *quantity) {
      int64_t scaled = guard.mul(value, times, what + quantity);
      sum = guard.add(sum, scaled, what + quantity);
    };
    add(total.invocations, term.invocations, " invocation count");
    add(total.ops, term.ops, " ops");
    add(total.readBytes, term.readBytes, " read bytes");
    add(total.writeBytes, term.writeBytes, " write bytes");
    add(total.messageBytes, term.messageBytes, " message bytes");
    add(total.minimumTransferBytes, term.minimumTransferBytes,
        " transfer bytes");
    add(total.stashBytes, term.stashBytes, " stash bytes");
  };
  WorkSummary result = *this;
  for (size_t phase = 0; phase < kNumPhases; ++phase) {
    for (size_t engine = 0; engine < kNumEngines; ++engine)
      scaledAdd(result.byPhaseEngine[phase][engine],
                other.byPhaseEngine[phase][engine]);
    scaledAdd(result.byPhase[phase], other.byPhase[phase]);
  }
  for (size_t engine = 0; engine < kNumEngines; ++engine)
    scaledAdd(result.byEngine[engine], other.byEngine[engine]);
  scaledAdd(result.overall, other.overall);
  if (guard.failed())
    return guard.error("summarize");
  *this = result;
  return llvm::Error::success();
}

llvm::Expected<WorkSummary>
blueprint::workload::summarize(const BlockWork &work) {
  WorkSummary summary(work.cadence);
  for (const Invocation &invocation : work.invocations) {
    llvm::Expected<InvocationFigures> figures = figuresOf(invocation);
    if (!figures)
      return figures.takeError();
    if (llvm::Error error = summary.add(*figures))
      return std::move(error);
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
    return guard.error("minimumTransferBytes");
  return bytes;
}

bool blueprint::workload::collectiveReduces(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
  case CollectiveKind::ReduceScatter:
    return true;
  case CollectiveKind::AllGather:
  case CollectiveKind::AllToAll:
    return false;
  }
  llvm_unreachable("unknown CollectiveKind");
}

std::optional<std::string> blueprint::workload::collectiveBytesViolation(
    const CollectiveFacts &facts, int64_t readBytes, int64_t writeBytes) {
  int64_t message = facts.messageBytes;
  int64_t shard = message / facts.participants;
  int64_t expectedRead =
      facts.kind == CollectiveKind::AllGather ? shard : message;
  int64_t expectedWrite =
      facts.kind == CollectiveKind::ReduceScatter ? shard : message;
  if (readBytes == expectedRead && writeBytes == expectedWrite)
    return std::nullopt;
  return (stringifyEnum(facts.kind) + " of message " + llvm::Twine(message) +
          " over " + llvm::Twine(facts.participants) +
          " participants: each reads " + llvm::Twine(expectedRead) +
          " bytes and writes " + llvm::Twine(expectedWrite) +
          ", but this one reads " + llvm::Twine(readBytes) + " and writes " +
          llvm::Twine(writeBytes))
      .str();
}

ExpertRouting blueprint::workload::balancedRouting(const MixtureOfExperts &moe,
                                                   int64_t tokens,
                                                   int64_t routerCalls,
                                                   OverflowGuard &guard) {
  ExpertRouting routing;
  int64_t callPairs = guard.mul(moe.expertsPerToken, tokens / routerCalls,
                                "token-expert pairs");
  int64_t experts = moe.experts;
  // Within one router call r experts receive q + 1 pairs, the other E - r
  // receive q.
  int64_t quotient = callPairs / experts;
  int64_t remainder = callPairs % experts;
  routing.capacity = callPairs;
  if (moe.capacityFactorPercent) {
    int64_t scaled = guard.mul(*moe.capacityFactorPercent, callPairs,
                               "capacity_factor_percent * token-expert pairs");
    int64_t slots = guard.mul(100, experts, "100 * experts");
    int64_t rounded = guard.add(scaled, slots - 1, "capacity rounding");
    if (!guard.failed())
      routing.capacity = rounded / slots;
  }
  int64_t heavier = guard.mul(
      remainder, std::min(quotient + 1, routing.capacity), "processed pairs");
  int64_t lighter =
      guard.mul(experts - remainder, std::min(quotient, routing.capacity),
                "processed pairs");
  int64_t callProcessed = guard.add(heavier, lighter, "processed pairs");
  routing.pairs = guard.mul(routerCalls, callPairs, "token-expert pairs");
  routing.processed = guard.mul(routerCalls, callProcessed, "processed pairs");
  routing.dropped = routing.pairs - routing.processed;
  routing.activeExperts = std::min(experts, routing.pairs);
  // Each call gives its r ceilings to the next r experts in turn, so over
  // the calls the t r ceilings spread as evenly as one call's pairs: t r mod
  // E experts take one more than the others. An expert's rows are t floors
  // plus its ceilings times what a ceiling adds (1, or 0 when the capacity
  // binds at the floor).
  int64_t floorRows =
      guard.mul(routerCalls, std::min(quotient, routing.capacity),
                "processed pairs of an expert");
  int64_t ceilingExtra = std::min(quotient + 1, routing.capacity) -
                         std::min(quotient, routing.capacity);
  int64_t ceilings = guard.mul(routerCalls, remainder, "ceiling loads");
  int64_t lighterRows =
      guard.add(floorRows, (ceilings / experts) * ceilingExtra,
                "processed pairs of an expert");
  int64_t heavierRows = lighterRows + ceilingExtra;
  int64_t heavierExperts = ceilingExtra ? ceilings % experts : 0;
  if (guard.failed())
    return routing;
  if (heavierExperts > 0)
    routing.loads.push_back({heavierExperts, heavierRows});
  if (lighterRows > 0)
    routing.loads.push_back({experts - heavierExperts, lighterRows});
  return routing;
}

namespace {

/// trainingForwardRun with, for an MoE block at ep > 1, the expert-parallel
/// shape and the dispatcher's collectives it derives (ExpertParallel.h).
llvm::Expected<ForwardRun> expertParallelRun(const ModelSpec &model,
                                             const TrainingSpec &training,
                                             const MappingSpec &mapping) {
  ForwardRun run = trainingForwardRun(model, training, mapping.recompute);
  if (!model.moe || mapping.ep == 1)
    return run;
  llvm::Expected<ExpertParallelShape> shape =
      expertParallelShape(model, training, mapping);
  if (!shape)
    return shape.takeError();
  llvm::Expected<std::vector<ExpertParallelTransfer>> dispatch =
      expertParallelDispatch(model, training, mapping);
  if (!dispatch)
    return dispatch.takeError();
  run.expertParallel = *shape;
  run.expertDispatch = std::move(*dispatch);
  return run;
}

/// Builds the invocations of one block on one TP rank in execution order:
/// the shared forward, then recompute and backward.
class BlockBuilder : ForwardBuilder {
public:
  BlockBuilder(const ModelSpec &model, const TrainingSpec &training,
               const MappingSpec &mapping, const ForwardRun &run)
      : ForwardBuilder(model, mapping, run), training(training),
        gradBytes(bytesOf(training.gradientType)) {}

  llvm::Expected<BlockWork> build();

private:
  TensorAccess gradient(llvm::StringRef name, int64_t elements) {
    return {name.str(), guard.mul(elements, gradBytes, name + " bytes")};
  }

  void recomputeFullForward(size_t forwardEnd);
  void recomputeAttentionCore(size_t forwardEnd);
  void backwardMlp();
  /// The dense MLP's backward from the gradient of its output, fc2 to fc1.
  void backwardDenseMlp(llvm::StringRef biasedGrad);
  /// The backward of `mlp` from `outputGrad`, the gradient of its output:
  /// fc2's input and weight gradients, the activation's, fc1's input
  /// gradient, what `beforeFc1WeightGrad` emits (the tensor-parallel
  /// collectives of d_x_norm2 and x_norm2), fc1's weight gradient and, if
  /// it has one, fc1's bias gradient.
  void mlpBackward(
      const MlpLinears &mlp, llvm::StringRef outputGrad,
      llvm::function_ref<void()> beforeFc1WeightGrad,
      llvm::function_ref<void()> beforeActivationGrad = [] {});
  /// Under tp > 1 the reduction of the partial sums of an MLP's input
  /// gradient `inputGrad` (d_x_norm2 for the dense MLP and the routed
  /// experts) over the TP group by `collectivePrimitive`: a reduce-scatter
  /// under SP, else an all-reduce.
  void reduceMlpInputGradient(llvm::StringRef collectivePrimitive,
                              llvm::StringRef inputGrad);
  /// Under SP the re-gather of x_norm2 for `whose` weight gradient (only
  /// the shard is kept).
  void regatherMlpInput(llvm::StringRef whose);
  /// The MoE block's backward from the gradient of its output, the mirror
  /// of forwardExperts: combine, experts, permute, the reduction of
  /// d_x_norm2 and of the routing gradient, then the router.
  void backwardExperts(llvm::StringRef biasedGrad);
  /// The dispatcher's part of backwardExperts at ep > 1, in reverse of
  /// forwardExpertParallel: the unpermute's gather, the combine's
  /// all-to-all (and TP all-gather), the experts' backward with the
  /// probabilities' gradient, the TP reduce-scatters, the dispatch's
  /// all-to-alls of the token and probability gradients, the permute's
  /// scatter-add.
  void backwardExpertParallel(llvm::StringRef biasedGrad);
  /// The all-gather dispatcher's part of backwardExperts at ep = 1: the
  /// combine, the experts, the permute and the TP reduction of d_x_norm2.
  void backwardGatheredExperts(llvm::StringRef biasedGrad);
  /// The mirror of forwardSharedExperts: under SP the shared experts' own
  /// all-gather of the output gradient, their MLP's backward with its own
  /// reduction of d_shared_expert_in and re-gather of x_norm2.
  void backwardSharedExperts(llvm::StringRef biasedGrad);
  /// The backward of a row-parallel tail (rowParallelTail) from
  /// `outputGrad`, the gradient its residual add passes on, in reverse: the
  /// hidden dropout's input gradient (`dropped` names what it masks) and the
  /// bias gradient d_`bias`. Returns the gradient of what the tail's
  /// dropout read: d_`biased`, or d_`partial` without row-parallel biases,
  /// or `outputGrad` itself without hidden dropout.
  std::string
  rowParallelTailBackward(llvm::StringRef outputGrad, llvm::StringRef partial,
                          llvm::StringRef biased,
                          llvm::StringRef dropoutPrimitive,
                          llvm::StringRef dropoutMask, llvm::StringRef dropped,
                          llvm::StringRef biasPrimitive, llvm::StringRef bias);
  void backwardAttentionProjection();
  void backwardAttentionCore();
  void backwardAttentionInput();
  void backwardLatentAttentionInput();
  void backwardBlockInput();
  /// One linear of multi-head latent attention's input whose backward
  /// backwardLatentLinear emits.
  struct LatentLinear {
    llvm::StringRef projection;
    /// The forward input (inputWidth columns) and weight.
    llvm::StringRef input;
    int64_t inputWidth = 0;
    llvm::StringRef weight;
    int64_t outputCols = 0;
    /// The gradients of its outputs.
    std::vector<TensorAccess> outputGrads;
    /// Whether the input gradient adds to one already there (d_x_norm1 of
    /// the second projection reading x_norm1).
    bool accumulate = false;
    /// A column-parallel up-projection's collectives under tp > 1: the
    /// reduce-scatter of its input gradient and the re-gather of its input
    /// for the weight gradient; both empty for a duplicated
    /// down-projection, which runs on the rank's rows.
    llvm::StringRef reduction;
    llvm::StringRef regather;
  };
  /// The input gradient, the up-projection's collectives and the weight
  /// gradient of `linear`.
  void backwardLatentLinear(const LatentLinear &linear);
  /// Emits the key/value exchange transfer of `phase` and `tensor`
  /// (contextParallelExchange), if the block has one: none at cp = 1.
  void exchange(Phase phase, llvm::StringRef tensor);

  const TrainingSpec &training;
  int64_t gradBytes;
  /// The block's key/value exchange over the cp ranks, in execution order.
  std::vector<ContextParallelTransfer> transfers;
};

void BlockBuilder::exchange(Phase phase, llvm::StringRef tensor) {
  for (const ContextParallelTransfer &transfer : transfers)
    if (transfer.phase == phase && transfer.tensor == tensor)
      work.invocations.push_back(
          contextParallelInvocation(transfer, training.activationType));
}

/// Whether `invocation` is the key/value exchange (the one collective over
/// the cp axis).
static bool isContextParallelExchange(const Invocation &invocation) {
  return invocation.collective &&
         invocation.collective->axis == kContextParallelAxis;
}

/// Full recompute (SeqSel Sec. 5, Table 2; MLM2021): the whole block forward
/// is rerun from the checkpointed input before its backward, including its
/// TP collectives, which are recommunication. Megatron's checkpoint reruns
/// the layer's forward function as a whole, so the paper's "one extra
/// forward pass" is exact.
void BlockBuilder::recomputeFullForward(size_t forwardEnd) {
  for (size_t index = 0; index < forwardEnd; ++index) {
    // The exchange's rerun is its own transfer, with TransformerEngine's
    // cause rather than a tensor-parallel one.
    if (isContextParallelExchange(work.invocations[index])) {
      exchange(Phase::Recommunication, "kv");
      continue;
    }
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
  // Under context parallelism the recomputed core needs every rank's keys
  // and values again: the exchange reruns first.
  exchange(Phase::Recommunication, "kv");
  for (size_t index = 0; index < forwardEnd; ++index) {
    if (!primitive::isAttentionCore(work.invocations[index].primitive))
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

std::string BlockBuilder::rowParallelTailBackward(
    llvm::StringRef outputGrad, llvm::StringRef partial, llvm::StringRef biased,
    llvm::StringRef dropoutPrimitive, llvm::StringRef dropoutMask,
    llvm::StringRef dropped, llvm::StringRef biasPrimitive,
    llvm::StringRef bias) {
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, outputGrad);
  std::string biasedGrad = outputGrad.str();
  if (training.hiddenDropout) {
    biasedGrad = ("d_" + rowParallelOutput(partial, biased)).str();
    emit({dropoutPrimitive,
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps((dropoutPrimitive + " input-gradient ops").str(),
                         rowElements, opcount::kDropoutInputGradPerElement),
          {activation(outputGrad, rowElements), mask(dropoutMask, rowElements)},
          {activation(biasedGrad, rowElements)},
          "backward of " + dropoutPrimitive + ": " + dropped +
              " masked and scaled"});
  }
  if (model.hasOutputAndMLPBiases()) {
    std::string biasGrad = ("d_" + bias).str();
    emit({biasPrimitive,
          Phase::WeightGrad,
          Engine::Vector,
          elementwiseOps((biasPrimitive + " gradient ops").str(), rowElements,
                         opcount::kBiasGradPerElement),
          {activation(biasedGrad, rowElements),
           gradient(biasGrad, shape.hidden)},
          {gradient(biasGrad, shape.hidden)},
          "backward of " + biasPrimitive +
              ": bias gradient, the column sums of " + biasedGrad +
              " accumulated into the gradient buffer"});
  }
  return biasedGrad;
}

/// MLP half of the backward, in reverse.
void BlockBuilder::backwardMlp() {
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, "d_y");

  // The residual add passes d_y unchanged to the dropout and to h_attn.
  std::string biasedGrad = rowParallelTailBackward(
      /*outputGrad=*/"d_y", /*partial=*/"mlp_proj", /*biased=*/"mlp_out",
      /*dropoutPrimitive=*/primitive::kMLPDropout,
      /*dropoutMask=*/"mlp_dropout_mask", /*dropped=*/"the output gradient",
      /*biasPrimitive=*/primitive::kFC2Bias, /*bias=*/"b_fc2");
  if (model.moe && model.moe->sharedExperts > 0)
    backwardSharedExperts(biasedGrad);
  // At ep > 1 the rank's rows go to the dispatcher as they are: the TP
  // all-gather is the backward of its reduce-scatter (backwardExpertParallel).
  if (!run.expertParallel)
    gatherSequenceShards(
        primitive::kMLPTPG, Phase::ActivationGrad, biasedGrad,
        "sequence parallelism (SeqSel Sec. 4.2.2, g-bar backward): "
        "all-gather the sequence-sharded " +
            biasedGrad +
            (model.moe ? " for the experts' backward"
                       : " for the fc2 backward"));
  if (model.moe)
    backwardExperts(biasedGrad);
  else
    backwardDenseMlp(biasedGrad);

  normBackward(primitive::kNorm2, "h_attn", "x_norm2", gradBytes);
  emit({primitive::kMLPResidual,
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("mlp_residual gradient ops", rowElements,
                       opcount::kResidualGradPerElement),
        {activation("d_h_attn", rowElements), activation("d_y", rowElements)},
        {activation("d_h_attn", rowElements)},
        "backward of mlp_residual: the skip-path gradient d_y is added to the "
        "gradient of h_attn returned through norm2"});
}

void BlockBuilder::backwardDenseMlp(llvm::StringRef biasedGrad) {
  mlpBackward(denseMlp(), biasedGrad, [&] {
    reduceMlpInputGradient(primitive::kMLPTPF, "d_x_norm2");
    regatherMlpInput("the fc1");
  });
}

void BlockBuilder::reduceMlpInputGradient(llvm::StringRef collectivePrimitive,
                                          llvm::StringRef inputGrad) {
  if (!hasCollectives())
    return;
  if (shape.sequenceParallel)
    tpCollective(collectivePrimitive, Phase::ActivationGrad,
                 CollectiveKind::ReduceScatter, inputGrad,
                 "sequence parallelism (SeqSel Sec. 4.2.2, g backward): "
                 "reduce-scatter the partial sums of " +
                     inputGrad + " onto the sequence shards");
  else
    tpCollective(collectivePrimitive, Phase::ActivationGrad,
                 CollectiveKind::AllReduce, inputGrad,
                 "tensor parallelism (MLM2019 Sec. 3, f backward): "
                 "all-reduce the partial sums of " +
                     inputGrad);
}

void BlockBuilder::regatherMlpInput(llvm::StringRef whose) {
  gatherSequenceShards(
      primitive::kFC1WgradGather, Phase::Recommunication, "x_norm2",
      "sequence-parallel all-gather of x_norm2 redone in "
      "backward for " +
          whose + " weight gradient (only the shard is stashed)");
}

void BlockBuilder::mlpBackward(
    const MlpLinears &mlp, llvm::StringRef outputGrad,
    llvm::function_ref<void()> beforeFc1WeightGrad,
    llvm::function_ref<void()> beforeActivationGrad) {
  std::string inputGrad =
      mlp.inputGrad.empty() ? ("d_" + mlp.input).str() : mlp.inputGrad.str();
  std::string actGrad = ("d_" + mlp.actOut).str();
  std::string fc1Grad = ("d_" + mlp.fc1Out).str();
  std::string fc1WeightGrad = ("d_" + mlp.fc1Weight).str();
  std::string fc2WeightGrad = ("d_" + mlp.fc2Weight).str();
  std::string fc1InputGradOps = (mlp.fc1 + " input-gradient ops").str();
  std::string fc1WeightGradOps = (mlp.fc1 + " weight-gradient ops").str();
  std::string fc2InputGradOps = (mlp.fc2 + " input-gradient ops").str();
  std::string fc2WeightGradOps = (mlp.fc2 + " weight-gradient ops").str();
  int64_t rowElements = elements({mlp.rows, shape.hidden}, outputGrad);
  int64_t fc1Elements = elements({mlp.rows, mlp.fc1Cols}, fc1Grad);
  int64_t actElements = elements({mlp.rows, mlp.ffnCols}, actGrad);
  int64_t fc1Weights =
      elements({mlp.weightCopies, shape.hidden, mlp.fc1Cols}, mlp.fc1Weight);
  int64_t fc2Weights =
      elements({mlp.weightCopies, mlp.ffnCols, shape.hidden}, mlp.fc2Weight);

  emit(
      {mlp.fc2,
       Phase::ActivationGrad,
       Engine::Matmul,
       groupedLinearOps(fc2InputGradOps, mlp.rowGroups,
                        [&](const ExpertLoad &group) {
                          return linearOps(fc2InputGradOps, group.rows,
                                           shape.hidden, mlp.ffnCols,
                                           group.experts);
                        }),
       {activation(outputGrad, rowElements), weight(mlp.fc2Weight, fc2Weights)},
       {activation(actGrad, actElements)},
       "backward of " + mlp.fc2 + ": input gradient " + actGrad + " = " +
           outputGrad + " " + mlp.fc2Weight + "^T by " + mlp.what});
  emit({mlp.fc2,
        Phase::WeightGrad,
        Engine::Matmul,
        groupedLinearOps(fc2WeightGradOps, mlp.rowGroups,
                         [&](const ExpertLoad &group) {
                           return linearOps(fc2WeightGradOps, mlp.ffnCols,
                                            group.rows, shape.hidden,
                                            group.experts);
                         }),
        {activation(mlp.actOut, actElements),
         activation(outputGrad, rowElements),
         gradient(fc2WeightGrad, fc2Weights)},
        {gradient(fc2WeightGrad, fc2Weights)},
        "backward of " + mlp.fc2 + ": weight gradient " + mlp.actOut + "^T " +
            outputGrad + " by " + mlp.what +
            ", accumulated into the gradient buffer"});

  beforeActivationGrad();
  activationBackward(mlp.activation, mlp.fc1Out, mlp.actOut, fc1Elements,
                     actElements);

  emit({mlp.fc1,
        Phase::ActivationGrad,
        Engine::Matmul,
        groupedLinearOps(fc1InputGradOps, mlp.rowGroups,
                         [&](const ExpertLoad &group) {
                           return linearOps(fc1InputGradOps, group.rows,
                                            mlp.fc1Cols, shape.hidden,
                                            group.experts);
                         }),
        {activation(fc1Grad, fc1Elements), weight(mlp.fc1Weight, fc1Weights)},
        {activation(inputGrad, rowElements)},
        "backward of " + mlp.fc1 + ": input gradient " + fc1Grad + " " +
            mlp.fc1Weight + "^T by " + mlp.what +
            " (partial sums when tp > 1)"});
  beforeFc1WeightGrad();
  emit({mlp.fc1,
        Phase::WeightGrad,
        Engine::Matmul,
        groupedLinearOps(fc1WeightGradOps, mlp.rowGroups,
                         [&](const ExpertLoad &group) {
                           return linearOps(fc1WeightGradOps, shape.hidden,
                                            group.rows, mlp.fc1Cols,
                                            group.experts);
                         }),
        {activation(mlp.input, rowElements), activation(fc1Grad, fc1Elements),
         gradient(fc1WeightGrad, fc1Weights)},
        {gradient(fc1WeightGrad, fc1Weights)},
        "backward of " + mlp.fc1 + ": weight gradient " + mlp.input + "^T " +
            fc1Grad + " by " + mlp.what +
            ", accumulated into the gradient buffer"});
  if (mlp.fc1Bias)
    emit({primitive::kFC1Bias,
          Phase::WeightGrad,
          Engine::Vector,
          elementwiseOps("fc1_bias gradient ops", fc1Elements,
                         opcount::kBiasGradPerElement),
          {activation(fc1Grad, fc1Elements), gradient("d_b_fc1", mlp.fc1Cols)},
          {gradient("d_b_fc1", mlp.fc1Cols)},
          "backward of fc1_bias: the fc1 bias gradient, the column sums of " +
              fc1Grad + " accumulated into the gradient buffer"});
}

void BlockBuilder::backwardSharedExperts(llvm::StringRef biasedGrad) {
  gatherSequenceShards(
      primitive::kSharedExpertTPG, Phase::ActivationGrad, biasedGrad,
      "sequence parallelism (SeqSel Sec. 4.2.2, g-bar backward): "
      "the shared experts' own all-gather of the sequence-sharded " +
          biasedGrad);
  mlpBackward(sharedExperts(), biasedGrad, [&] {
    reduceMlpInputGradient(primitive::kSharedExpertTPF, "d_shared_expert_in");
    regatherMlpInput("the shared experts' fc1");
  });
}

void BlockBuilder::backwardExpertParallel(llvm::StringRef biasedGrad) {
  const ExpertParallelShape &parallel = *run.expertParallel;
  Phase phase = Phase::ActivationGrad;
  int64_t localRows = elements({shape.localTokens, shape.hidden}, "d_mlp_proj");
  int64_t localRouting = routingElements(shape.localTokens, "routing_map");
  int64_t rankRows =
      elements({parallel.rankPairs, shape.hidden}, "d_expert_out");
  emit({primitive::kMoEUnpermute,
        phase,
        Engine::Vector,
        0,
        {activation(biasedGrad, localRows), mask("routing_map", localRouting)},
        {activation("d_expert_out", rankRows)},
        "backward of moe_unpermute: each pair's row of " + biasedGrad +
            " gathered in expert order (a copy)"});
  expertParallelCollective(primitive::kMoECombineExchange, phase,
                           "d_combined_tokens");
  if (shape.tp > 1)
    expertParallelCollective(primitive::kMoECombineTPReduceScatter, phase,
                             "d_expert_output");
  int64_t activationElements = elements(
      {parallel.processedPairs, shape.expertFfnCols}, "d_expert_act_out");
  mlpBackward(
      expertParallelExperts(), "d_expert_out", [] {},
      [&] {
        emit({primitive::kExpertProbs,
              phase,
              Engine::Vector,
              parallel.probabilityBackwardOps,
              {activation("d_expert_act_out", activationElements),
               activation("expert_act_out", activationElements),
               activation("permuted_probs", parallel.processedPairs)},
              {activation("d_expert_act_out", activationElements),
               activation("d_permuted_probs", parallel.processedPairs)},
              "backward of expert_probs: the activation's output gradient "
              "times each pair's probability, and each pair's probability "
              "gradient, a dot product over the activation output "
              "(weighted_swiglu_back; partial sums when tp > 1)"});
      });
  // The probability gradients first, as Megatron launches them (td.py
  // token_dispatch: "probs A2A -> tokens A2A").
  if (shape.tp > 1) {
    expertParallelCollective(primitive::kMoEDispatchProbsTPGather, phase,
                             "d_global_probs");
    expertParallelCollective(primitive::kMoEDispatchTPGather, phase,
                             "d_global_input_tokens");
  }
  expertParallelCollective(primitive::kMoEDispatchProbs, phase,
                           "d_permuted_probs");
  expertParallelCollective(primitive::kMoEDispatch, phase, "d_permuted_tokens");
  emit({primitive::kMoEPermute,
        phase,
        Engine::Vector,
        elementwiseOps("moe_permute input-gradient ops", rankRows,
                       opcount::kPermuteInputGradPerElement),
        {activation("d_permuted_tokens", rankRows),
         activation("d_permuted_probs", parallel.rankPairs),
         mask("routing_map", localRouting)},
        {activation("d_x_norm2", localRows),
         activation("d_routing_probs", localRouting)},
        "backward of moe_permute: each of the rank's pairs' gradient "
        "scatter-added into its token's row of d_x_norm2, and each pair's "
        "probability gradient scattered into its (token, expert) slot of "
        "d_routing_probs (one pair per slot: no adds)"});
}

void BlockBuilder::backwardGatheredExperts(llvm::StringRef biasedGrad) {
  ExpertRouting pairs = routing();
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "d_mlp_out");
  int64_t routingAll = routingElements(shape.tokens, "d_routing_probs");
  int64_t pairRows = elements({pairs.processed, shape.hidden}, "d_expert_out");

  // One kernel, both gradients of the combine (Megatron-Core's unpermute
  // backward): each pair's output gradient and its routing-probability
  // gradient.
  int64_t inputGradOps =
      elementwiseOps("moe_combine input-gradient ops", pairRows,
                     opcount::kCombineInputGradPerElement);
  int64_t probabilityGradOps =
      elementwiseOps("moe_combine probability-gradient ops", pairRows,
                     opcount::kCombineWeightGradPerElement);
  emit({primitive::kMoECombine,
        Phase::ActivationGrad,
        Engine::Vector,
        guard.add(inputGradOps, probabilityGradOps,
                  "moe_combine input-gradient ops"),
        {activation(biasedGrad, fullElements),
         activation("expert_out", pairRows),
         activation("routing_probs", routingAll),
         mask("routing_map", routingAll)},
        {activation("d_expert_out", pairRows),
         activation("d_routing_probs", routingAll)},
        "backward of moe_combine: each pair's output gradient, its token's " +
            biasedGrad +
            " times the pair's routing probability, and its probability "
            "gradient, the dot product of that " +
            biasedGrad +
            " with the expert's output (partial sums when tp > 1)"});

  mlpBackward(routedExperts(pairs), "d_expert_out", [] {});

  emit({primitive::kMoEPermute,
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("moe_permute input-gradient ops", pairRows,
                       opcount::kPermuteInputGradPerElement),
        {activation("d_permuted_tokens", pairRows),
         mask("routing_map", routingAll)},
        {activation("d_x_norm2", fullElements)},
        "backward of moe_permute: each pair's gradient scatter-added into its "
        "token's row of d_x_norm2"});

  reduceMlpInputGradient(primitive::kMLPTPF, "d_x_norm2");
}

void BlockBuilder::backwardExperts(llvm::StringRef biasedGrad) {
  const MixtureOfExperts &moe = *model.moe;
  int64_t experts = moe.experts;
  if (run.expertParallel)
    backwardExpertParallel(biasedGrad);
  else
    backwardGatheredExperts(biasedGrad);
  if (moe.sharedExperts > 0) {
    int64_t rowElements =
        elements({shape.localTokens, shape.hidden}, "d_shared_expert_in");
    emit({primitive::kSharedExpertAdd,
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("shared_expert_add gradient ops", rowElements,
                         opcount::kResidualGradPerElement),
          {activation("d_x_norm2", rowElements),
           activation("d_shared_expert_in", rowElements)},
          {activation("d_x_norm2", rowElements)},
          "backward of shared_expert_add: the shared experts' reduced input "
          "gradient added to the routed experts' d_x_norm2 (the add's own "
          "gradient passes d_mlp_proj unchanged to both)"});
  }

  int64_t localInput = elements({shape.localTokens, shape.hidden}, "x_norm2");
  int64_t localRouting = routingElements(shape.localTokens, "d_router_logits");
  // At ep > 1 the probability gradients came back through the dispatch's
  // all-to-all onto the rank's own rows (backwardExpertParallel).
  if (hasCollectives() && !run.expertParallel) {
    tpCollectiveOver(primitive::kRoutingProbsTPF, Phase::ActivationGrad,
                     CollectiveKind::ReduceScatter, "d_routing_probs", experts,
                     "sequence parallelism: reduce-scatter the partial sums "
                     "of d_routing_probs onto the sequence shards (the "
                     "backward of their all-gather)");
  }

  // Under sigmoid_group_limited the gradient also passes the routed scaling
  // (one multiply per selected expert), then the renormalisation and the
  // gather onto the sigmoid scores; none flows through the bias or the
  // selection (transformers' get_topk_indices runs under no_grad).
  bool groupLimited = moe.router == RouterKind::SigmoidGroupLimited;
  int64_t perSelected = groupLimited
                            ? opcount::kTopKRenormaliseInputGradPerSelected +
                                  opcount::kRoutedScalingPerSelected
                            : opcount::kTopKRenormaliseInputGradPerSelected;
  int64_t perRow = guard.mul(moe.expertsPerToken, perSelected,
                             "top-k renormalisation gradient");
  emit({primitive::kRouterTopK,
        Phase::ActivationGrad,
        Engine::Vector,
        rowwiseOps("router_topk input-gradient ops", shape.localTokens,
                   /*width=*/0, /*perElement=*/0, perRow),
        {activation("d_routing_probs", localRouting),
         activation("routing_probs", localRouting),
         activation("router_scores", localRouting),
         mask("routing_map", localRouting)},
        {activation("d_router_scores", localRouting)},
        llvm::Twine("backward of router_topk: the gradient through ") +
            (groupLimited ? "the routed scaling and " : "") +
            "the renormalisation onto the selected experts' scores (zero "
            "elsewhere); the scores give the renormalisation's sum"});
  if (groupLimited)
    emit({primitive::kRouterSigmoid,
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("router_sigmoid input-gradient ops", localRouting,
                         opcount::kSigmoidInputGradPerElement),
          {activation("router_scores", localRouting),
           activation("d_router_scores", localRouting)},
          {activation("d_router_logits", localRouting)},
          "backward of router_sigmoid: gradient with respect to "
          "router_logits"});
  else
    emit({primitive::kRouterSoftmax,
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("router_softmax input-gradient ops", localRouting,
                         opcount::kRouterSoftmaxInputGradPerElement),
          {activation("router_scores", localRouting),
           activation("d_router_scores", localRouting)},
          {activation("d_router_logits", localRouting)},
          "backward of router_softmax: gradient with respect to "
          "router_logits"});
  int64_t routerWeights = elements({shape.hidden, experts}, "w_router");
  emit(
      {primitive::kRouter,
       Phase::ActivationGrad,
       Engine::Matmul,
       linearOps("router input-gradient ops", shape.localTokens, experts,
                 shape.hidden),
       {activation("d_router_logits", localRouting),
        weight("w_router", routerWeights), activation("d_x_norm2", localInput)},
       {activation("d_x_norm2", localInput)},
       "backward of router: input gradient d_router_logits W_router^T on "
       "this rank's rows, added to the experts' d_x_norm2"});
  emit({primitive::kRouter,
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("router weight-gradient ops", shape.hidden, shape.localTokens,
                  experts),
        {activation("x_norm2", localInput),
         activation("d_router_logits", localRouting),
         gradient("d_w_router", routerWeights)},
        {gradient("d_w_router", routerWeights)},
        llvm::Twine("backward of router: weight gradient x_norm2^T "
                    "d_router_logits over this rank's rows") +
            (hasCollectives() ? " (a partial sum under sequence parallelism, "
                                "all-reduced by sp_param_grad_sync)"
                              : "") +
            ", accumulated into the gradient buffer"});
}

/// Attention output projection backward, in reverse: hidden dropout, bias,
/// the SP all-gather of the gradient, out_proj.
void BlockBuilder::backwardAttentionProjection() {
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "d_attn_out");
  int64_t qElements = elements({shape.tokens, shape.contextCols}, "d_context");

  // The residual add passes d_h_attn unchanged to the dropout and to x.
  std::string biasedGrad = rowParallelTailBackward(
      /*outputGrad=*/"d_h_attn", /*partial=*/"attn_proj",
      /*biased=*/"attn_out",
      /*dropoutPrimitive=*/primitive::kAttnResidualDropout,
      /*dropoutMask=*/"attn_residual_dropout_mask",
      /*dropped=*/"the gradient of h_attn",
      /*biasPrimitive=*/primitive::kOutProjBias, /*bias=*/"b_out");
  gatherSequenceShards(
      primitive::kAttnTPG, Phase::ActivationGrad, biasedGrad,
      "sequence parallelism (SeqSel Sec. 4.2.2, g-bar backward): "
      "all-gather the sequence-sharded " +
          biasedGrad + " for the out_proj backward");

  int64_t weightElements = elements({shape.contextCols, shape.hidden}, "w_out");
  emit({primitive::kOutProj,
        Phase::ActivationGrad,
        Engine::Matmul,
        linearOps("out_proj input-gradient ops", shape.tokens, shape.hidden,
                  shape.contextCols),
        {activation(biasedGrad, fullElements), weight("w_out", weightElements)},
        {activation("d_context", qElements)},
        "backward of out_proj: input gradient d_context = " + biasedGrad +
            " W_out^T"});
  emit({primitive::kOutProj,
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("out_proj weight-gradient ops", shape.contextCols,
                  shape.tokens, shape.hidden),
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
  int64_t contextElements =
      elements({shape.tokens, shape.contextCols}, "d_context");
  int64_t scoreElements = this->scoreElements("d_scores");
  llvm::StringRef attended =
      training.attentionDropout ? "probs_dropped" : "probs";
  std::string attendedGrad = ("d_" + attended).str();
  bool latent = model.hasLatentAttention();

  // d_probs[q, keys] = d_context V^T over the value width, then
  // d_v[keys, dv] = probs^T d_context over the queries. Each count writes
  // the guard: one statement each, in this order.
  WorkCount probsGradOps =
      attentionMatmul("attn_v_matmul input-gradient ops", shape.queries,
                      shape.attendedKeys, shape.valueHeadDim);
  WorkCount valuesGradOps =
      attentionMatmul("attn_v_matmul input-gradient ops", shape.attendedKeys,
                      shape.valueHeadDim, shape.queries);
  emit({primitive::kAttnVMatmul,
        Phase::ActivationGrad,
        Engine::Matmul,
        bothGemms("attn_v_matmul input-gradient ops", std::move(probsGradOps),
                  std::move(valuesGradOps)),
        {activation("d_context", contextElements), newValues("v"),
         activation(attended, scoreElements)},
        {activation(attendedGrad, scoreElements), newValues("d_v")},
        "backward of attn_v_matmul: " + attendedGrad +
            " = d_context V^T and d_v = " + attended +
            (latent ? "^T d_context"
                    : "^T d_context (summed over the query heads sharing a "
                      "key/value head)")});
  if (training.attentionDropout)
    emit({primitive::kAttnDropout,
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("attn_dropout input-gradient ops", scoreElements,
                         opcount::kDropoutInputGradPerElement),
          {activation("d_probs_dropped", scoreElements),
           mask("attn_dropout_mask", scoreElements)},
          {activation("d_probs", scoreElements)},
          "backward of attn_dropout: d_probs_dropped masked and scaled"});
  emit({primitive::kSoftmax,
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("softmax input-gradient ops", scoreElements,
                       opcount::kSoftmaxInputGradPerElement),
        {activation("probs", scoreElements),
         activation("d_probs", scoreElements)},
        {activation("d_scores", scoreElements)},
        "backward of softmax: gradient of the scaled, masked scores from the "
        "softmax output"});
  // d_q[q, d] = d_scores K over the attended keys, then d_k[keys, d] =
  // d_scores^T Q over the queries: one statement each, in this order.
  WorkCount queriesGradOps =
      attentionMatmul("qk_matmul input-gradient ops", shape.queries,
                      shape.headDim, shape.attendedKeys);
  WorkCount keysGradOps =
      attentionMatmul("qk_matmul input-gradient ops", shape.attendedKeys,
                      shape.headDim, shape.queries);
  WorkCount scoreOps =
      bothGemms("qk_matmul input-gradient ops", std::move(queriesGradOps),
                std::move(keysGradOps));
  std::vector<TensorAccess> reads = {activation("d_scores", scoreElements),
                                     activation("q", qElements)};
  llvm::append_range(reads, newKeys(""));
  std::vector<TensorAccess> writes = {activation("d_q", qElements)};
  llvm::append_range(writes, newKeys("d_"));
  emit({primitive::kQKMatmul, Phase::ActivationGrad, Engine::Matmul,
        std::move(scoreOps), std::move(reads), std::move(writes),
        latent ? "backward of qk_matmul: d_q = d_scores K and d_k = "
                 "d_scores^T Q, the shared rotary key's d_k_rope summed over "
                 "this rank's heads"
               : "backward of qk_matmul: d_q = d_scores K and d_k = "
                 "d_scores^T Q"});
}

/// Attention input backward, in reverse: the inverse rotation of d_q and
/// d_k under rotary embeddings, qkv_proj, the TP reduction of its input
/// gradient, the SP re-gather for its weight gradient, norm1 and the
/// residual fork at the block input.
void BlockBuilder::backwardAttentionInput() {
  int64_t qElements = elements({shape.tokens, shape.qCols}, "d_q");
  int64_t kvElements = elements({shape.tokens, shape.kvCols}, "d_k");
  if (model.positionEmbedding == PositionEmbedding::Rotary)
    rotary(Phase::ActivationGrad, "d_",
           "backward of rotary: d_q and d_k rotated back by their positions' "
           "angles (the transposed rotation)");
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "d_x_norm1");
  int64_t weightElements = elements({shape.hidden, shape.qkvCols}, "w_qkv");

  emit({primitive::kQKVProj,
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
      tpCollective(primitive::kAttnTPF, Phase::ActivationGrad,
                   CollectiveKind::ReduceScatter, "d_x_norm1",
                   "sequence parallelism (SeqSel Sec. 4.2.2, g backward): "
                   "reduce-scatter the partial sums of d_x_norm1 onto the "
                   "sequence shards");
      tpCollective(primitive::kQKVWgradGather, Phase::Recommunication,
                   CollectiveKind::AllGather, "x_norm1",
                   "sequence-parallel all-gather of x_norm1 redone in "
                   "backward for the qkv_proj weight gradient (only the "
                   "shard is stashed)");
    } else {
      tpCollective(primitive::kAttnTPF, Phase::ActivationGrad,
                   CollectiveKind::AllReduce, "d_x_norm1",
                   "tensor parallelism (MLM2019 Sec. 3, f backward): "
                   "all-reduce the partial sums of d_x_norm1");
    }
  }
  emit({primitive::kQKVProj,
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
  if (model.hasQKVBias()) {
    int64_t qkvElements = elements({shape.tokens, shape.qkvCols}, "d_qkv");
    emit({primitive::kQKVBias,
          Phase::WeightGrad,
          Engine::Vector,
          elementwiseOps("qkv_bias gradient ops", qkvElements,
                         opcount::kBiasGradPerElement),
          {activation("d_q", qElements), activation("d_k", kvElements),
           activation("d_v", kvElements), gradient("d_b_qkv", shape.qkvCols)},
          {gradient("d_b_qkv", shape.qkvCols)},
          "backward of qkv_bias: the qkv_proj bias gradient, the column sums "
          "of d_q, d_k, d_v accumulated into the gradient buffer"});
  }

  backwardBlockInput();
}

/// Multi-head latent attention's input backward, in reverse of
/// latentAttentionInput (docs/WorkAlgebra.md, "Multi-head latent
/// attention"): the inverse rotation, the column-parallel up-projections
/// with the reduce-scatters of their input gradients and the re-gathers of
/// their inputs under tp > 1 (which implies sequence parallelism,
/// decoder_training_c14), the reduce-scatter of the shared rotary key's
/// gradient (a partial sum over each rank's heads), the latent norms, the
/// duplicated down-projections on the sequence shard, norm1 and the
/// residual fork.
void BlockBuilder::backwardLatentAttentionInput() {
  rotary(Phase::ActivationGrad, "d_",
         "backward of rotary: d_q_rope and d_k_rope rotated back by their "
         "positions' angles (the transposed rotation)");
  int64_t kvRank = *model.kvLoraRank;
  int64_t ropeDim = shape.rotaryDim;
  int64_t kvbCols = shape.keyValueUpCols;
  std::vector<TensorAccess> keyValueGrads = {newKeys("d_").front(),
                                             newValues("d_v")};
  backwardLatentLinear({primitive::kKVBProj, "kv_latent_norm", kvRank, "w_kv_b",
                        kvbCols, std::move(keyValueGrads),
                        /*accumulate=*/false, primitive::kKVLatentTPF,
                        primitive::kKVBWgradGather});
  std::vector<TensorAccess> queryGrads = {
      activation("d_q", elements({shape.tokens, shape.qCols}, "d_q"))};
  if (model.qLoraRank)
    backwardLatentLinear({primitive::kQBProj, "q_latent_norm", *model.qLoraRank,
                          "w_q_b", shape.qCols, std::move(queryGrads),
                          /*accumulate=*/false, primitive::kQLatentTPF,
                          primitive::kQBWgradGather});
  else
    backwardLatentLinear({primitive::kQProj, "x_norm1", shape.hidden, "w_q",
                          shape.qCols, std::move(queryGrads),
                          /*accumulate=*/false, primitive::kAttnTPF,
                          primitive::kQWgradGather});
  if (hasCollectives())
    tpCollectiveOver(primitive::kKRopeTPF, Phase::ActivationGrad,
                     CollectiveKind::ReduceScatter, "d_k_rope", ropeDim,
                     "sequence parallelism: reduce-scatter the shared rotary "
                     "key's gradient d_k_rope, a partial sum over each rank's "
                     "heads, onto the sequence shards");

  normBackwardOver(primitive::kKVANorm, "kv_latent", "kv_latent_norm", kvRank,
                   gradBytes);
  int64_t kvaCols = shape.latentCacheCols;
  std::vector<TensorAccess> latentGrads = {
      activation("d_kv_latent",
                 elements({shape.localTokens, kvRank}, "d_kv_latent")),
      activation("d_k_rope",
                 elements({shape.localTokens, ropeDim}, "d_k_rope"))};
  // Without a query latent, q_proj's input gradient is already in
  // d_x_norm1, which kv_a_proj's adds to.
  backwardLatentLinear({primitive::kKVAProj, "x_norm1", shape.hidden, "w_kv_a",
                        kvaCols, std::move(latentGrads),
                        /*accumulate=*/!model.qLoraRank, "", ""});
  if (model.qLoraRank) {
    int64_t qRank = *model.qLoraRank;
    normBackwardOver(primitive::kQANorm, "q_latent", "q_latent_norm", qRank,
                     gradBytes);
    std::vector<TensorAccess> queryLatentGrads = {activation(
        "d_q_latent", elements({shape.localTokens, qRank}, "d_q_latent"))};
    backwardLatentLinear({primitive::kQAProj, "x_norm1", shape.hidden, "w_q_a",
                          qRank, std::move(queryLatentGrads),
                          /*accumulate=*/true, "", ""});
  }
  backwardBlockInput();
}

void BlockBuilder::backwardLatentLinear(const LatentLinear &linear) {
  bool upProjection = !linear.reduction.empty();
  int64_t rows = upProjection ? shape.tokens : shape.localTokens;
  std::string inputGrad = ("d_" + linear.input).str();
  int64_t inputElements = elements({rows, linear.inputWidth}, linear.input);
  int64_t weightElements =
      elements({linear.inputWidth, linear.outputCols}, linear.weight);
  std::string gradName = ("d_" + linear.weight).str();
  WorkCount ops = linearOps((linear.projection + " input-gradient ops").str(),
                            rows, linear.outputCols, linear.inputWidth);
  std::vector<TensorAccess> reads = linear.outputGrads;
  reads.push_back(weight(linear.weight, weightElements));
  if (linear.accumulate)
    reads.push_back(activation(inputGrad, inputElements));
  emit({linear.projection,
        Phase::ActivationGrad,
        Engine::Matmul,
        ops,
        std::move(reads),
        {activation(inputGrad, inputElements)},
        "backward of " + linear.projection + ": input gradient " + inputGrad +
            (upProjection ? " (partial sums when tp > 1)"
                          : " on this rank's rows") +
            (linear.accumulate ? ", added to the one already there" : "")});
  if (upProjection && hasCollectives()) {
    tpCollectiveOver(linear.reduction, Phase::ActivationGrad,
                     CollectiveKind::ReduceScatter, inputGrad,
                     linear.inputWidth,
                     "sequence parallelism: reduce-scatter the partial sums "
                     "of " +
                         inputGrad + " onto the sequence shards");
    tpCollectiveOver(linear.regather, Phase::Recommunication,
                     CollectiveKind::AllGather, linear.input, linear.inputWidth,
                     "sequence-parallel all-gather of " + linear.input +
                         " redone in backward for the " + linear.projection +
                         " weight gradient (only the shard is stashed)");
  }
  ops = linearOps((linear.projection + " weight-gradient ops").str(),
                  linear.inputWidth, rows, linear.outputCols);
  reads = {activation(linear.input, inputElements)};
  llvm::append_range(reads, linear.outputGrads);
  reads.push_back(gradient(gradName, weightElements));
  emit({linear.projection,
        Phase::WeightGrad,
        Engine::Matmul,
        ops,
        std::move(reads),
        {gradient(gradName, weightElements)},
        "backward of " + linear.projection + ": weight gradient " +
            linear.input + "^T times its output gradients" +
            (upProjection ? ""
                          : " over this rank's rows (a partial sum under "
                            "sequence parallelism, all-reduced by "
                            "sp_param_grad_sync)") +
            ", accumulated into the gradient buffer"});
}

/// The block input's backward: norm1 and the residual fork at x.
void BlockBuilder::backwardBlockInput() {
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, "d_x");
  normBackward(primitive::kNorm1, "x", "x_norm1", gradBytes);
  emit({primitive::kAttnResidual,
        Phase::ActivationGrad,
        Engine::Vector,
        elementwiseOps("attn_residual gradient ops", rowElements,
                       opcount::kResidualGradPerElement),
        {activation("d_x", rowElements), activation("d_h_attn", rowElements)},
        {activation("d_x", rowElements)},
        "backward of attn_residual: the skip-path gradient d_h_attn is added "
        "to the gradient of x returned through norm1"});
}

llvm::Expected<BlockWork> BlockBuilder::build() {
  work.cadence = Cadence::PerMicroBatch;
  llvm::Expected<std::vector<ContextParallelTransfer>> exchanged =
      contextParallelExchange(model, training, mapping);
  if (!exchanged)
    return exchanged.takeError();
  transfers = std::move(*exchanged);
  if (model.hasLatentAttention())
    latentAttentionInput(/*upProjectKeys=*/true);
  else
    attentionInput();
  // TransformerEngine gathers the keys and values (rotated) of every cp
  // rank inside the attention call, before the scores.
  exchange(Phase::Forward, "kv");
  std::vector<TensorAccess> keys = newKeys("");
  TensorAccess values = newValues("v");
  attentionCore(std::move(keys), std::move(values));
  attentionOutput();
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
  // The attention backward gathers the keys and values again and
  // reduce-scatters their gradients to the ranks that own them.
  exchange(Phase::ActivationGrad, "kv");
  backwardAttentionCore();
  exchange(Phase::ActivationGrad, "d_kv");
  if (model.hasLatentAttention())
    backwardLatentAttentionInput();
  else
    backwardAttentionInput();
  return finish("deriveBlockWork");
}

/// Parameter counts of one block on one TP rank, by tensor.
struct RankParameters {
  int64_t total = 0;
  /// Parameters replicated across TP ranks whose gradients are partial under
  /// sequence parallelism: norm parameters, row-parallel biases and, under
  /// multi-head latent attention, the duplicated down-projections and latent
  /// norms.
  int64_t sequenceParallel = 0;
  /// At ep > 1 the rank's routed experts' parameters (part of total): their
  /// gradients reduce over the expert-data-parallel ranks only
  /// (docs/WorkAlgebra.md, "Expert parallelism", "Gradients and ZeRO").
  int64_t expertParallel = 0;
};

/// Parameters of one norm over `width` features: gamma, and beta under
/// LayerNorm.
int64_t normParameters(const ModelSpec &model, int64_t width,
                       OverflowGuard &guard) {
  return model.norm == NormKind::LayerNorm
             ? guard.mul(2, width, "norm parameters")
             : width;
}

/// Multi-head latent attention on one TP rank: the sum over
/// latentAttentionTensors, the duplicated tensors (down-projections and
/// latent norms) also counted as sequence-parallel.
RankParameters latentAttentionParameters(const ModelSpec &model,
                                         const RankColumns &columns,
                                         OverflowGuard &guard) {
  RankParameters parameters;
  for (const ParameterTensor &tensor : latentAttentionTensors(model, columns)) {
    int64_t count = 1;
    for (int64_t size : tensor.shape)
      count = guard.mul(count, size, llvm::Twine(tensor.name) + " parameters");
    if (!tensor.split)
      parameters.sequenceParallel =
          guard.add(parameters.sequenceParallel, count, "MLA parameters");
    parameters.total = guard.add(parameters.total, count, "MLA parameters");
  }
  return parameters;
}

/// Multi-head (or grouped-query) attention on one TP rank: qkv_proj
/// column-parallel with its bias, out_proj row-parallel with its bias
/// replicated.
int64_t multiHeadAttentionParameters(const ModelSpec &model,
                                     const RankColumns &columns,
                                     OverflowGuard &guard) {
  int64_t qkv = guard.add(
      guard.mul(model.hidden, columns.qkvCols, "w_qkv parameters"),
      model.hasQKVBias() ? columns.qkvCols : 0, "qkv_proj parameters");
  int64_t out = guard.add(
      guard.mul(columns.qCols, model.hidden, "w_out parameters"),
      model.hasOutputAndMLPBiases() ? model.hidden : 0, "out_proj parameters");
  return guard.add(qkv, out, "attention parameters");
}

/// Megatron's partitioning (MLM2019 Sec. 3; parameter count MLM2021 Eq. 2
/// per layer: 12h^2 + 13h): column-parallel qkv_proj and fc1 weights
/// and biases split over tp, row-parallel out_proj and fc2 weights split,
/// their biases and the norm parameters replicated. The model's linear_bias
/// says which biases exist (add_bias_linear, add_qkv_bias).
RankParameters rankParameters(const ModelSpec &model,
                              const MappingSpec &mapping,
                              OverflowGuard &guard) {
  RankColumns columns = makeRankColumns(model, mapping.tp, guard);
  int64_t hidden = model.hidden;
  bool projectionBiases = model.hasOutputAndMLPBiases();
  int64_t normParams = normParameters(model, hidden, guard);
  int64_t bothNorms = guard.mul(2, normParams, "norm parameters");
  // Megatron-Core marks the duplicated MLA tensors sequence_parallel
  // (TELinear, parallel_mode="duplicated"), so their gradients join the
  // norms' TP all-reduce.
  RankParameters attention;
  if (model.hasLatentAttention())
    attention = latentAttentionParameters(model, columns, guard);
  else
    attention.total = multiHeadAttentionParameters(model, columns, guard);
  int64_t mlp = 0;
  int64_t router = 0;
  RankParameters parameters;
  if (model.moe) {
    // Every rank holds a 1/tp slice of E / ep experts (Megatron-Core
    // MoELayer num_local_experts, expert_parallel_c3) and the whole router,
    // duplicated like the norms (Megatron-Core TopKRouter); MoE blocks have
    // no MLP biases (decoder_moe_c5).
    int64_t experts = model.moe->experts;
    int64_t perExpert = expertParametersPerRank(model, columns, guard);
    mlp = guard.mul(experts / mapping.ep, perExpert, "expert parameters");
    if (mapping.ep > 1)
      parameters.expertParallel = mlp;
    mlp = guard.add(mlp, sharedExpertParametersPerRank(model, columns, guard),
                    "expert parameters");
    router = guard.mul(hidden, experts, "w_router parameters");
  } else {
    int64_t fc1 =
        guard.add(guard.mul(hidden, columns.fc1Cols, "w_fc1 parameters"),
                  projectionBiases ? columns.fc1Cols : 0, "fc1 parameters");
    int64_t fc2 =
        guard.add(guard.mul(columns.ffnCols, hidden, "w_fc2 parameters"),
                  projectionBiases ? hidden : 0, "fc2 parameters");
    mlp = guard.add(fc1, fc2, "MLP parameters");
  }
  int64_t rowParallelBiases =
      projectionBiases ? guard.mul(2, hidden, "row-parallel bias parameters")
                       : 0;
  parameters.sequenceParallel =
      guard.add(bothNorms, rowParallelBiases, "sequence-parallel parameters");
  parameters.sequenceParallel =
      guard.add(parameters.sequenceParallel, attention.sequenceParallel,
                "sequence-parallel parameters");
  parameters.sequenceParallel = guard.add(parameters.sequenceParallel, router,
                                          "sequence-parallel parameters");
  for (int64_t count : {attention.total, mlp, bothNorms, router})
    parameters.total = guard.add(parameters.total, count, "block parameters");
  return parameters;
}

} // namespace

llvm::Expected<BlockWork>
blueprint::workload::deriveBlockWork(const ModelSpec &model,
                                     const TrainingSpec &training,
                                     const MappingSpec &mapping) {
  if (llvm::Error error =
          checkTrainingComposes(model, training, mapping, "deriveBlockWork"))
    return error;
  llvm::Expected<ForwardRun> run = expertParallelRun(model, training, mapping);
  if (!run)
    return run.takeError();
  return BlockBuilder(model, training, mapping, *run).build();
}

llvm::Expected<BlockWork> blueprint::workload::detail::deriveComposingBlockWork(
    const ModelSpec &model, BlockKind kind, const TrainingSpec &training,
    const MappingSpec &mapping) {
  ModelSpec block = blockModelOf(model, kind);
  llvm::Expected<ForwardRun> run = expertParallelRun(block, training, mapping);
  if (!run)
    return run.takeError();
  return BlockBuilder(block, training, mapping, *run).build();
}

llvm::Expected<BlockWork>
blueprint::workload::deriveBlockWork(const ModelSpec &model, BlockKind kind,
                                     const TrainingSpec &training,
                                     const MappingSpec &mapping) {
  if (llvm::Error error =
          checkTrainingComposes(model, training, mapping, "deriveBlockWork"))
    return error;
  return deriveComposingBlockWork(model, kind, training, mapping);
}

/// A key of exactly as many parts as BlockWorkMemo::Key holds (a std::array
/// would fill a missing one with zero).
template <typename... Parts>
static std::array<int64_t, sizeof...(Parts)> keyOfParts(Parts... parts) {
  return {static_cast<int64_t>(parts)...};
}

BlockWorkInputs
blueprint::workload::blockWorkInputsOf(const ModelSpec &model,
                                       const TrainingSpec &training,
                                       const MappingSpec &mapping) {
  // Every field of the two contracts named (a structured binding names
  // exactly the fields), so a field added to either does not compile here
  // until it is keyed or said unread.
  //
  // What deriveComposingBlockWork reads besides the model: the training
  // contract but global_batch (which only the check of() runs first reads:
  // a block's work is per micro-batch), and of the mapping what BlockBuilder
  // and ForwardBuilder (tp, cp, tp_comm, recompute, ep), the context-parallel
  // exchange (cp, cp_comm, recompute, tp) and, for a model with experts at
  // ep != 1 only, the expert-parallel shape and dispatch read (those, and
  // dp, whose dp / ep the shape stores though no invocation reads it; the
  // dp % ep rule is the composition check's): expertParallelRun returns
  // before them otherwise. The optimizer state's type is held though no
  // block reads it: the key errs finer, never coarser. Unread: global_batch,
  // pp, the world, the virtual stages, the schedule, the layout, ZeRO, the
  // buckets and the overlaps, which place and split the block's
  // invocations into a run's templates afterwards.
  [[maybe_unused]] const auto &[globalBatch, microBatch, activationType,
                                weightType, gradientType, optimizerStateType,
                                attentionDropout, hiddenDropout] = training;
  [[maybe_unused]] const auto &[tp, pp, dp, world, virtualStages, tpComm,
                                recompute, schedule, pipelineLayout, zeroStage,
                                bucketBytes, cp, cpComm, ep, overlapTPComm,
                                overlapDPGradReduce, overlapP2PComm] = mapping;
  bool expertParallel = model.moe && ep != 1;
  return keyOfParts(microBatch, activationType, weightType, gradientType,
                    optimizerStateType, attentionDropout, hiddenDropout, tp, cp,
                    cpComm, tpComm, recompute, ep, expertParallel ? dp : 0);
}

BlockWorkMemo::Key BlockWorkMemo::keyOf(const ModelSpec &model, BlockKind kind,
                                        const TrainingSpec &training,
                                        const MappingSpec &mapping) {
  BlockWorkInputs inputs = blockWorkInputsOf(model, training, mapping);
  static_assert(std::tuple_size_v<Key> ==
                    std::tuple_size_v<BlockWorkInputs> + 1,
                "the kind, then the inputs");
  Key key;
  key.front() = static_cast<int64_t>(kind);
  llvm::copy(inputs, key.begin() + 1);
  return key;
}

llvm::Expected<std::shared_ptr<const BlockWork>>
BlockWorkMemo::of(const ModelSpec &model, BlockKind kind,
                  const TrainingSpec &training, const MappingSpec &mapping) {
  if (llvm::Error error =
          checkTrainingComposes(model, training, mapping, "deriveBlockWork"))
    return error;
  return composingOf(model, kind, training, mapping);
}

llvm::Expected<std::shared_ptr<const BlockWork>>
BlockWorkMemo::composingOf(const ModelSpec &model, BlockKind kind,
                           const TrainingSpec &training,
                           const MappingSpec &mapping) {
  Key key = keyOf(model, kind, training, mapping);
  if (std::optional<std::shared_ptr<const BlockWork>> kept =
          works.find(model, key))
    return std::move(*kept);
  llvm::Expected<BlockWork> work =
      deriveComposingBlockWork(model, kind, training, mapping);
  if (!work)
    return work.takeError();
  auto shared = std::make_shared<const BlockWork>(std::move(*work));
  works.insert(model, std::move(key), shared);
  return shared;
}

llvm::Expected<std::shared_ptr<const BlockWork>>
blueprint::workload::detail::ComposingBlockWorks::of(
    BlockWorkMemo *memo, const ModelSpec &model, BlockKind kind,
    const TrainingSpec &training, const MappingSpec &mapping) {
  if (memo)
    return memo->composingOf(model, kind, training, mapping);
  llvm::Expected<BlockWork> work =
      deriveComposingBlockWork(model, kind, training, mapping);
  if (!work)
    return work.takeError();
  return std::make_shared<const BlockWork>(std::move(*work));
}

llvm::Expected<int64_t>
blueprint::workload::blockParametersPerRank(const ModelSpec &model,
                                            const MappingSpec &mapping) {
  RuleSink sink;
  sink.append(checkModel(model));
  sink.requirePositive(mapping.tp, "tp", "transformer_mapping_c1");
  // A block's parameters involve no vocabulary.
  if (mapping.tp > 0)
    requireTensorParallelSplits(
        sink, model, mapping.tp,
        {/*heads=*/"decoder_training_c4", /*kvHeads=*/"decoder_training_c5",
         /*hidden=*/"decoder_training_c6",
         /*ffnHidden=*/"decoder_training_c7", /*vocab=*/""});
  // The count of the representative block kind (an MoE model's MoE block);
  // the overload with a kind counts the other.
  if (sink.empty())
    sink.append(checkDerivedBlocks(model, mapping));
  if (!sink.empty())
    return violationsError("blockParametersPerRank: invalid model or tp:",
                           sink.take());
  OverflowGuard guard;
  RankParameters parameters = rankParameters(model, mapping, guard);
  if (guard.failed())
    return guard.error("blockParametersPerRank");
  return parameters.total;
}

llvm::Expected<int64_t> blueprint::workload::blockParametersPerRank(
    const ModelSpec &model, BlockKind kind, const MappingSpec &mapping) {
  llvm::Expected<int64_t> checked = blockParametersPerRank(model, mapping);
  if (!checked || kind == representativeBlockKind(model))
    return checked;
  return blockParametersPerRank(blockModelOf(model, kind), mapping);
}

llvm::Expected<int64_t> blueprint::workload::blockExpertParametersPerRank(
    const ModelSpec &model, BlockKind kind, const MappingSpec &mapping) {
  llvm::Expected<int64_t> checked =
      blockParametersPerRank(model, kind, mapping);
  if (!checked)
    return checked.takeError();
  OverflowGuard guard;
  int64_t experts =
      rankParameters(blockModelOf(model, kind), mapping, guard).expertParallel;
  if (guard.failed())
    return guard.error("blockExpertParametersPerRank");
  return experts;
}

llvm::Expected<int64_t>
blueprint::workload::activeBlockParameters(const ModelSpec &model,
                                           BlockKind kind) {
  MappingSpec unsharded;
  unsharded.tp = 1;
  llvm::Expected<int64_t> whole =
      blockParametersPerRank(model, kind, unsharded);
  if (!whole || kind == BlockKind::Dense)
    return whole;
  // The E - k routed experts a token is not sent to; the router, the
  // shared experts and everything outside the MLP stay.
  OverflowGuard guard;
  RankColumns columns = makeRankColumns(model, /*tp=*/1, guard);
  int64_t perExpert = expertParametersPerRank(model, columns, guard);
  int64_t idle = guard.mul(model.moe->experts - model.moe->expertsPerToken,
                           perExpert, "idle expert parameters");
  if (guard.failed())
    return guard.error("activeBlockParameters");
  return *whole - idle;
}

/// Why sp_param_grad_sync exists: which replicated parameters' gradients
/// it all-reduces.
static std::string sequenceParallelSyncCause(const ModelSpec &model) {
  std::string replicated = "norm and row-parallel bias gradients are";
  if (model.hasLatentAttention() && model.moe)
    replicated = "the gradients of the norms, of multi-head latent "
                 "attention's duplicated down-projections and of the "
                 "duplicated router are";
  else if (model.hasLatentAttention())
    replicated = "the gradients of the norms and of multi-head latent "
                 "attention's duplicated down-projections are";
  else if (model.moe)
    replicated = "the gradients of the norms and of the duplicated router "
                 "are";
  return "sequence parallelism: " + replicated +
         " partial sums over each rank's sequence shard and are all-reduced "
         "across the TP group once per iteration";
}

/// Mixed-precision AdamW over the rank's block parameters (optimizer state
/// master weights, m and v at optimizer_state_type, as in MLM2021 and SeqSel
/// Fig. 1): reads master weights, m, v and the accumulated gradient; writes
/// master weights, m, v, the low-precision weight copy and the zeroed
/// gradient buffer for the next iteration's accumulation. Gradient clipping
/// and loss scaling are not in the spec and not counted.
/// The optimizer work of a block of `model` under `mapping`, whose
/// composition the caller checked: for a block kind, the whole model's
/// (a dense block of an MoE model at ep > 1 is not a dense model at
/// ep > 1, which expert_parallel_c2 refuses).
static llvm::Expected<BlockWork> optimizerWorkOf(const ModelSpec &model,
                                                 const TrainingSpec &training,
                                                 const MappingSpec &mapping) {
  OverflowGuard guard;
  RankParameters parameters = rankParameters(model, mapping, guard);
  int64_t gradBytes = bytesOf(training.gradientType);

  BlockWork work;
  work.cadence = Cadence::PerIteration;
  int64_t tp = mapping.tp;
  if (tp > 1 && mapping.tpComm == TPCommMode::ReduceScatterAllGather) {
    // Each rank saw only its sequence shard, so the gradients of the
    // replicated parameters are partial sums. Megatron-LM all-reduces the
    // parameters marked sequence_parallel across the TP group once per
    // iteration (finalize_model_grads, _allreduce_layernorm_grads).
    int64_t count = parameters.sequenceParallel;
    work.invocations.push_back(collectiveInvocation(
        primitive::kSPParamGradSync, Phase::WeightGrad,
        CollectiveKind::AllReduce, tp,
        guard.mul(count, gradBytes, "d_sequence_parallel_params bytes"),
        gradBytes, "d_sequence_parallel_params",
        sequenceParallelSyncCause(model)));
  }

  if (guard.failed())
    return guard.error("deriveOptimizerWork");
  llvm::Expected<Invocation> step = deriveAdamWStep(
      parameters.total, training, primitive::kAdamWStep,
      "mixed-precision AdamW step over this rank's block parameters, once "
      "per iteration; the gradient buffer is zeroed for the next "
      "iteration's accumulation");
  if (!step)
    return step.takeError();
  work.invocations.push_back(std::move(*step));

  for (const Invocation &invocation : work.invocations) {
    sumBytes(guard, invocation.reads, invocation.primitive + " read bytes");
    sumBytes(guard, invocation.writes, invocation.primitive + " write bytes");
  }
  if (guard.failed())
    return guard.error("deriveOptimizerWork");
  return work;
}

llvm::Expected<BlockWork>
blueprint::workload::deriveOptimizerWork(const ModelSpec &model,
                                         const TrainingSpec &training,
                                         const MappingSpec &mapping) {
  if (llvm::Error error = checkTrainingComposes(model, training, mapping,
                                                "deriveOptimizerWork"))
    return error;
  return optimizerWorkOf(model, training, mapping);
}

llvm::Expected<BlockWork>
blueprint::workload::deriveOptimizerWork(const ModelSpec &model, BlockKind kind,
                                         const TrainingSpec &training,
                                         const MappingSpec &mapping) {
  if (llvm::Error error = checkTrainingComposes(model, training, mapping,
                                                "deriveOptimizerWork"))
    return error;
  return deriveComposingOptimizerWork(model, kind, training, mapping);
}

llvm::Expected<BlockWork>
blueprint::workload::detail::deriveComposingOptimizerWork(
    const ModelSpec &model, BlockKind kind, const TrainingSpec &training,
    const MappingSpec &mapping) {
  return optimizerWorkOf(blockModelOf(model, kind), training, mapping);
}

Invocation blueprint::workload::collectiveInvocation(
    llvm::StringRef primitive, Phase phase, CollectiveKind kind,
    int64_t participants, int64_t messageBytes, int64_t elementBytes,
    llvm::StringRef tensor, llvm::StringRef cause) {
  Invocation invocation;
  invocation.primitive = primitive.str();
  invocation.phase = phase;
  invocation.engine = Engine::Collective;
  bool reduces = collectiveReduces(kind);
  invocation.ops =
      reduces ? messageBytes / elementBytes / participants * (participants - 1)
              : 0;
  int64_t shard = messageBytes / participants;
  invocation.reads = {
      {tensor.str(), kind == CollectiveKind::AllGather ? shard : messageBytes}};
  invocation.writes = {{tensor.str(), kind == CollectiveKind::ReduceScatter
                                          ? shard
                                          : messageBytes}};
  CollectiveFacts facts;
  facts.kind = kind;
  facts.reduction = reduces ? ReductionKind::Sum : ReductionKind::None;
  facts.participants = participants;
  facts.messageBytes = messageBytes;
  invocation.collective = std::move(facts);
  invocation.cause = cause.str();
  return invocation;
}

llvm::Expected<Invocation> blueprint::workload::deriveAdamWStep(
    int64_t parameters, const TrainingSpec &training, llvm::StringRef primitive,
    llvm::StringRef cause) {
  OverflowGuard guard;
  int64_t stateBytes = bytesOf(training.optimizerStateType);
  int64_t gradBytes = bytesOf(training.gradientType);
  int64_t weightBytes = bytesOf(training.weightType);
  auto bytes = [&](llvm::StringRef name, int64_t width) {
    return TensorAccess{name.str(),
                        guard.mul(parameters, width, name + " bytes")};
  };
  Invocation step;
  step.primitive = primitive.str();
  step.phase = Phase::Optimizer;
  step.engine = Engine::Vector;
  step.ops = guard.mul(parameters, opcount::kAdamWPerParameter,
                       step.primitive + " ops");
  step.reads = {bytes("params_master", stateBytes), bytes("adam_m", stateBytes),
                bytes("adam_v", stateBytes), bytes("d_params", gradBytes)};
  step.writes = {bytes("params_master", stateBytes),
                 bytes("adam_m", stateBytes), bytes("adam_v", stateBytes),
                 bytes("params", weightBytes), bytes("d_params", gradBytes)};
  step.cause = cause.str();
  sumBytes(guard, step.reads, step.primitive + " read bytes");
  sumBytes(guard, step.writes, step.primitive + " write bytes");
  if (guard.failed())
    return guard.error("deriveAdamWStep");
  return step;
}

/// The values 0 .. N-1 of a generated enum, which are all its cases.
template <typename EnumT, size_t N> static std::array<EnumT, N> enumValues() {
  std::array<EnumT, N> values;
  for (size_t i = 0; i < N; ++i)
    values[i] = static_cast<EnumT>(i);
  return values;
}

std::array<Phase, kNumPhases> blueprint::workload::allPhases() {
  return enumValues<Phase, kNumPhases>();
}

std::array<Engine, kNumEngines> blueprint::workload::allEngines() {
  return enumValues<Engine, kNumEngines>();
}

std::array<Cadence, kNumCadences> blueprint::workload::allCadences() {
  return enumValues<Cadence, kNumCadences>();
}
