//===- ModelSummary.h - Model-level quantities of a run ---------*- C++ -*-===//
//
// What the exact work of one block implies for the whole model and one
// training iteration: parameter counts with the embeddings and the tied LM
// head, the weight, gradient, optimizer-state and activation bytes one rank
// of the first pipeline stage holds, the model and hardware FLOPs of an
// iteration, the tensor-, pipeline- and data-parallel communication of a
// rank, and the iteration time composed from the block estimate
// (lib/Estimate, as `--estimate`) and the pipeline schedule, term by term.
//
// The block's work is what a portable plan holds (one block, one
// micro-batch, one rank); everything model-level is derived from it and the
// contracts here, one function per formula with its source
// (docs/ModelSummary.md). Per-rank counts are exact int64_t computed through
// OverflowGuard; the global FLOPs of an iteration reach 1e19-1e20 and are
// exact 128-bit integers (WideGuard). Times are doubles.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_ANALYSIS_MODELSUMMARY_H
#define BLUEPRINT_ANALYSIS_MODELSUMMARY_H

#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Estimate/Time.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Spec.h"
#include "Blueprint/Workload/WholeRun.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::analysis {

//===----------------------------------------------------------------------===//
// Exact wide counts
//===----------------------------------------------------------------------===//

/// Exact non-negative 128-bit arithmetic for the global totals of an
/// iteration. Like workload::OverflowGuard it remembers the first overflow
/// with the name of the quantity; results after an overflow are meaningless.
class WideGuard {
public:
  static constexpr unsigned kBits = 128;

  /// `value` as a 128-bit count; a negative value is recorded as an error.
  llvm::APInt count(int64_t value, llvm::StringRef what);
  llvm::APInt mul(const llvm::APInt &lhs, const llvm::APInt &rhs,
                  llvm::StringRef what);
  llvm::APInt add(const llvm::APInt &lhs, const llvm::APInt &rhs,
                  llvm::StringRef what);
  /// Product of non-negative 64-bit factors, checked at every step.
  llvm::APInt product(std::initializer_list<int64_t> factors,
                      llvm::StringRef what);

  bool failed() const { return failure.has_value(); }
  /// What failed first: "<quantity> overflows 128 bits" or "<quantity> is
  /// negative".
  llvm::StringRef failureMessage() const {
    return failure ? llvm::StringRef(*failure) : llvm::StringRef();
  }

private:
  llvm::APInt record(llvm::APInt value, bool overflow, llvm::StringRef what);

  std::optional<std::string> failure;
};

/// The decimal digits of an unsigned count.
std::string toDecimal(const llvm::APInt &count);

//===----------------------------------------------------------------------===//
// Input: what a portable plan holds
//===----------------------------------------------------------------------===//

/// The block work of one training plan and the contracts it carries.
struct PlanWork {
  workload::ModelSpec model;
  workload::TrainingSpec training;
  workload::MappingSpec mapping;
  /// The plan's per-micro-batch tasks: one block, one micro-batch, one rank.
  workload::BlockWork perMicroBatch;
  /// The plan's per-iteration tasks: one block, one rank.
  workload::BlockWork perIteration;
  /// Bytes one rank holds of the block's output activation (the plan's
  /// boundary buffer written by forward work): what each rank of a pipeline
  /// stage hands to the next stage per micro-batch.
  int64_t blockOutputBytesPerRank = 0;
};

//===----------------------------------------------------------------------===//
// Formulas
//===----------------------------------------------------------------------===//

/// Micro-batch chunks whose activations the first pipeline stage holds at
/// once (a chunk is one micro-batch through one model chunk of
/// blocks/(pp*v) blocks), from Megatron-LM's schedules
/// (megatron/schedules.py): GPipe runs every forward first, m; 1F1B warms
/// up with pp-1 forwards and holds one more in the steady state,
/// min(m, pp); interleaved 1F1B warms up with 2(pp-1) + (v-1)pp chunk
/// forwards out of m*v and holds one more, min(m*v, (v+1)pp - 1). For
/// m >= pp this is pp*v * (1 + (pp-1)/(pp*v)) chunks: SeqSel Sec. 4.2.3's
/// interleaving factor 1 + (p-1)/(p*m), whose m is the number of model
/// chunks v. `stages` and `virtualStages` are those of a composing mapping
/// (pp*v divides the blocks).
int64_t inFlightChunks(workload::PipelineSchedule schedule,
                       int64_t microbatches, int64_t stages,
                       int64_t virtualStages);

/// Idle time of a pipeline iteration in units of one stage's per-micro-batch
/// work (MLM2021 Sec. 2.2): pp-1 for GPipe and 1F1B, (pp-1)/v for
/// interleaved 1F1B, whose stage slots are v chunks long.
double bubbleStageSlots(workload::PipelineSchedule schedule, int64_t stages,
                        int64_t virtualStages);

/// A point-to-point send of M bytes on one link: M / B + alpha (Hockney,
/// "The communication challenge for MPP", Parallel Computing 1994). No
/// per-call latency: NCCL's send/recv bypass the tuning model whose baseLat
/// a collective call pays (docs/Estimate.md, "Per-call latency").
double pointToPointSeconds(int64_t bytes, double bandwidthBytesPerSecond,
                           double latencySeconds);

/// The LM head's logits GEMMs for one micro-batch on one rank of the last
/// stage: Megatron GPT's output layer multiplies the final hidden states
/// [b*s, h] by the word-embedding table it shares with the input, split
/// over the TP ranks by vocabulary ([h, V/t]): forward, activation_grad and
/// weight_grad, 2*b*s*h*V/t each (SeqSel Eq. 7's 6BshV per iteration).
llvm::Expected<workload::BlockWork>
deriveLogitsWork(const workload::ModelSpec &model,
                 const workload::TrainingSpec &training,
                 const workload::MappingSpec &mapping);

//===----------------------------------------------------------------------===//
// Model-level quantities
//===----------------------------------------------------------------------===//

struct PipelineShape {
  workload::PipelineSchedule schedule = workload::PipelineSchedule::OneFOneB;
  int64_t microbatches = 0;
  int64_t stages = 0;
  int64_t virtualStages = 0;
  int64_t blocksPerStage = 0;
  int64_t blocksPerChunk = 0;
  /// inFlightChunks() on the first stage.
  int64_t inFlightChunks = 0;
  /// bubbleStageSlots().
  double bubbleStageSlots = 0;
};

/// Parameter counts (MLM2021 Eq. 2 with the embeddings of Megatron GPT).
struct ParameterCounts {
  /// One block, unsharded (blockParametersPerRank at tp = 1); of a model
  /// with experts, one MoE block.
  int64_t perBlock = 0;
  /// One block on one TP rank.
  int64_t perBlockPerRank = 0;
  /// A model that mixes block kinds (docs/WholeRun.md, "Block kinds"): its
  /// dense blocks, one unsharded and one on one TP rank; 0 otherwise.
  int64_t denseBlocks = 0;
  int64_t perDenseBlock = 0;
  int64_t perDenseBlockPerRank = 0;
  /// A model with experts: the parameters one token passes through
  /// (activeBlockParameters over every block, plus the edges); none
  /// without experts.
  std::optional<int64_t> active;
  /// V*h, vocabulary-parallel; the LM head reuses it when tied.
  int64_t wordEmbedding = 0;
  /// max_positions*h, learned absolute positions, replicated over TP; 0
  /// under rotary embeddings.
  int64_t positionEmbedding = 0;
  /// h*V, the untied LM head weight; 0 when tied.
  int64_t outputLayer = 0;
  /// The norm after the last block: 2h for LayerNorm, h for RMSNorm.
  int64_t finalNorm = 0;
  /// The sum over block kinds of blocks of the kind * its block's
  /// parameters, + wordEmbedding + positionEmbedding + outputLayer +
  /// finalNorm: the pipeline's own edge parameters (edgeParametersPerRank)
  /// of one unsharded stage.
  int64_t model = 0;
  /// One rank of the first stage: its blocks' share, V*h/t of the word
  /// embedding and the whole position embedding; with pp = 1, where the
  /// first stage is also the last, the last stage's edges too.
  int64_t firstStagePerRank = 0;
  /// At ep > 1 the routed experts' part of firstStagePerRank (their
  /// gradients reduce and their ZeRO state shards over edp, the rest over
  /// dp; docs/WholeRun.md); 0 at ep = 1.
  int64_t firstStageExpertsPerRank = 0;
  /// The edges one rank of the last stage holds: the final norm and the
  /// output layer (h*V/t untied or, at pp > 1, the tied copy).
  int64_t lastStageEdgesPerRank = 0;
};

/// Bytes one rank of the first pipeline stage holds for training state.
struct StateBytes {
  int64_t weights = 0;
  int64_t gradients = 0;
  /// fp32 master weights, Adam m and v: 3 values of optimizer_state_type
  /// per parameter (what adamw_step reads and writes).
  int64_t optimizerState = 0;
  /// The same sharded over the DP ranks (Megatron-LM's distributed
  /// optimizer, ZeRO stage 1): ceil(parameters/dp) per rank.
  int64_t optimizerStateSharded = 0;
  /// Weights, gradients and optimizer state of the stage's blocks alone,
  /// without the embeddings (SeqSel Fig. 1's "parameters and optimizer").
  int64_t blockStates = 0;
};

/// Activation bytes stashed for the backward pass.
struct ActivationBytes {
  /// One block, one micro-batch, one rank: the plan's stashed bytes (of a
  /// model with experts, of an MoE block).
  int64_t perBlockPerMicroBatch = 0;
  /// A model that mixes block kinds: the same of a dense block; 0
  /// otherwise.
  int64_t perDenseBlockPerMicroBatch = 0;
  /// One rank of the first stage: inFlightChunks * the sum over block kinds
  /// of the chunk's blocks of the kind * their stash per micro-batch. The
  /// embedding's dropout mask and the output layer's activations (SeqSel
  /// Sec. 4.3) are not included.
  int64_t firstStage = 0;
};

/// Matmul FLOPs of one iteration over every rank (a multiply-add is 2).
struct IterationFlops {
  /// forward + activation_grad + weight_grad matmul ops of one block on one
  /// rank x tp x blocks x microbatches x dp.
  llvm::APInt blocks;
  /// recompute matmul ops, counted the same way.
  llvm::APInt recompute;
  /// The LM head's logits GEMMs: 6BshV.
  llvm::APInt logits;
  /// blocks + logits (SeqSel Eq. 7).
  llvm::APInt model;
  /// model + recompute: what the hardware executes (the LM head is not
  /// recomputed).
  llvm::APInt hardware;
};

/// Bytes of some communication: logical messages (the full tensors) and
/// what one rank must send (the algorithm-independent lower bound,
/// workload::minimumTransferBytes).
struct CommunicationVolume {
  int64_t messageBytes = 0;
  int64_t transferBytes = 0;
};

/// Communication of one rank of a middle pipeline stage in one iteration.
struct IterationCommunication {
  /// The block's TP collectives x blocks per stage x micro-batches, its
  /// per-iteration collectives x blocks per stage, and the all-gathers that
  /// reassemble scattered pipeline messages.
  CommunicationVolume tensorParallel;
  /// At ep > 1: the MoE blocks' token dispatcher collectives over the ep
  /// axis (the token counts' all-gather over ep x tp and the all-to-alls
  /// over ep, workload::expertParallelDispatch) x MoE blocks per stage x
  /// micro-batches, which tensorParallel then leaves out; zero at ep = 1.
  CommunicationVolume expertParallel;
  /// The block output one rank holds (the plan's boundary buffer).
  int64_t pipelineBoundaryBytes = 0;
  /// What one rank sends per pipeline message: Megatron-LM's scatter/gather
  /// (MLM2021 Sec. 4.1) sends 1/t of a TP-replicated output and lets the
  /// receiver all-gather it; a sequence-parallel output is already 1/t.
  int64_t pipelineSendBytes = 0;
  /// Sends per rank per iteration: a forward activation and a backward
  /// gradient per micro-batch per model chunk, 2*m*v (0 without a
  /// pipeline).
  int64_t pipelineMessages = 0;
  /// pipelineMessages x pipelineSendBytes (a send is its own transfer).
  CommunicationVolume pipeline;
  /// The all-reduce of the tied word-embedding gradients between the first
  /// and the last stage (Megatron-LM `_allreduce_embedding_grads`), pp > 1.
  CommunicationVolume embeddingGradSync;
  /// The all-reduce of the first stage's gradients over the DP ranks.
  CommunicationVolume dataParallel;
  /// With the distributed optimizer: a reduce-scatter of the gradients and
  /// an all-gather of the updated weights.
  CommunicationVolume dataParallelSharded;
};

struct ModelQuantities {
  PipelineShape pipeline;
  ParameterCounts parameters;
  StateBytes state;
  ActivationBytes activations;
  IterationFlops flops;
  IterationCommunication communication;
};

/// Everything model-level that `work` implies. Fails if the contracts do
/// not compose, the tasks are not training work, or a count overflows.
llvm::Expected<ModelQuantities> deriveModelQuantities(const PlanWork &work);

//===----------------------------------------------------------------------===//
// Iteration time
//===----------------------------------------------------------------------===//

/// One term of the iteration time with the formula and values behind it.
struct IterationTerm {
  std::string name;
  double seconds = 0;
  std::string provenance;
};

struct IterationTime {
  /// The implementation transformations the block is costed under (the
  /// summary's implementations= option, docs/ModelSummary.md), in order;
  /// empty: the plan's semantic tasks as they stand.
  std::vector<std::string> implementations;
  /// The block's estimate (as `--estimate` prints it).
  estimate::EstimateReport block;
  /// blocks per stage x the block's per-micro-batch time.
  double stageSlotSeconds = 0;
  /// One pipeline message: the send and, for a scattered message, the
  /// receiver's all-gather (0 without a pipeline).
  double pipelineMessageSeconds = 0;
  /// The head of one micro-batch on the last stage (workload::deriveHeadWork:
  /// final norm, LM head, cross-entropy, loss and their TP collectives).
  double headSeconds = 0;
  /// The embeddings of one micro-batch on the first stage
  /// (workload::deriveEmbeddingWork).
  double embeddingSeconds = 0;
  /// In order: microbatches, bubble, pipeline_transfers, lm_head,
  /// embedding, embedding_grad_sync, dp_grad_allreduce, optimizer_step.
  std::vector<IterationTerm> terms;
  double totalSeconds = 0;
  /// The profile's matmul peak at the compute type (utilizations are
  /// against the peak, as SeqSel Table 5's).
  std::string peakField;
  double peakOpsPerSecond = 0;
  /// FLOPs / (totalSeconds x world x peak).
  double modelFlopsUtilization = 0;
  double hardwareFlopsUtilization = 0;
};

/// Composes the iteration time of `work` on `profile` under `binding`. The
/// pp and dp axes need a tier when their size exceeds 1; an unbound axis of
/// size 1 has no communication.
llvm::Expected<IterationTime>
composeIterationTime(const PlanWork &work, const ModelQuantities &quantities,
                     const estimate::SystemProfile &profile,
                     const estimate::NetworkTierBinding &binding);

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

/// The matmul FLOPs of a whole run over every rank: each stage's matmul
/// operations per rank x tp x dp x cp, summed over the stages. `hardware`
/// counts what runs. `model` leaves out the recompute passes (SeqSel's model
/// FLOPs) and, at cp > 1, counts the attention core as at cp = 1 (every s^2
/// score pair, not the (cp + 1) / (2 cp) the load-balanced ring computes):
/// the model's FLOPs do not depend on how context parallelism runs them.
struct RunFlops {
  llvm::APInt model;
  llvm::APInt hardware;
};

/// RunFlops of `stages` (summarizeWholeRun or a program's stage totals)
/// under `mapping`; an overflow of 128 bits is an error.
/// `training` is absent for an inference run (cp = 1). At cp > 1 the
/// attention core is read off deriveBlockWork at cp and at cp = 1.
llvm::Expected<RunFlops>
runFlopsOf(llvm::ArrayRef<workload::StageTotals> stages,
           const workload::ModelSpec &model,
           const std::optional<workload::TrainingSpec> &training,
           const workload::MappingSpec &mapping);

/// The fractions of the ranks' matmul peak some FLOPs use.
struct Utilization {
  double model = 0;
  double hardware = 0;
};

/// The unsigned `value` rounded to the nearest double, for every width.
double unsignedToDouble(const llvm::APInt &value);

/// `flops` / (seconds x world x `profile`'s matmul peak at `computeType`):
/// utilizations against the peak, as SeqSel Table 5 states them. None when
/// the profile declares no matmul rate at that type.
std::optional<Utilization> flopsUtilization(const RunFlops &flops,
                                            double seconds, int64_t world,
                                            const estimate::SystemProfile &profile,
                                            workload::DataType computeType);

/// What the model summary reads off a whole-run plan's graph
/// (docs/WholeRun.md), each checked equal to its closed form.
struct GraphFigures {
  /// Matmul operations of the forward, activation-gradient and
  /// weight-gradient passes over every stage and its tp x dp ranks: the
  /// closed forms' model FLOPs.
  llvm::APInt modelFlops;
  /// The recompute passes' matmul operations: the closed forms' recompute.
  llvm::APInt recomputeFlops;
  /// Pipeline bytes each rank of each stage sends in the iteration.
  std::vector<int64_t> pipelineBytesSent;
  /// Parameters one rank of the first stage steps (its optimizer
  /// operations / 16), without a sharded optimizer: the closed forms'
  /// first-stage parameters (and the final norm at pp = 1).
  std::optional<int64_t> firstStageParameters;
  /// Each stage's peak bytes per rank, from the plan's buffer lifetimes
  /// (docs/Memory.md), and the position of the worst.
  std::vector<int64_t> peakBytesPerStage;
  /// The most block activations the first stage holds at once, from its
  /// stash buffers: the closed forms' first-stage activations on a uniform
  /// layout outside ZB-H1.
  int64_t firstStageBlockActivations = 0;
  /// With a profile: the iteration time as the longest path through the
  /// plan's graph (docs/Memory.md, "Time"), the communication on it, and
  /// the model and hardware FLOPs utilization at that time.
  struct CriticalPathTime {
    estimate::Picoseconds iterationPicoseconds = 0;
    estimate::Picoseconds exposedCommunicationPicoseconds = 0;
    double modelFlopsUtilization = 0;
    double hardwareFlopsUtilization = 0;
  };
  std::optional<CriticalPathTime> time;
};

struct ModelSummary {
  std::string planName;
  workload::ModelSpec model;
  workload::MappingSpec mapping;
  ModelQuantities quantities;
  /// The closed-form composition, present when a profile was given (and,
  /// for a whole-run plan, when a closed form exists: a uniform layout
  /// outside ZB-H1).
  std::optional<IterationTime> time;
  /// Present when the plan is a whole-run plan.
  std::optional<GraphFigures> graph;
};

/// Writes the summary's attributes into the JSON object `json` is in
/// (docs/ModelSummary.md); 128-bit counts are exact JSON integers.
void writeModelSummaryAttributes(const ModelSummary &summary,
                                 llvm::json::OStream &json);

/// The summary as a text report: each quantity with its formula.
void printModelSummaryTable(const ModelSummary &summary,
                            llvm::raw_ostream &os);

} // namespace blueprint::analysis

#endif // BLUEPRINT_ANALYSIS_MODELSUMMARY_H
