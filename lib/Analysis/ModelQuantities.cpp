//===- ModelQuantities.cpp - Model-level quantities of a training run -----===//
//
// One function per formula, each naming its source; the model is Megatron-LM
// GPT (MLM2019, MLM2021) as trained in Korthikanti et al. 2022 ("SeqSel",
// arXiv:2205.05198). docs/ModelSummary.md tabulates every quantity and term.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/ModelSummary.h"

#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/ExpertParallel.h"
#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Workload/Primitives.h"
#include "Blueprint/Workload/WholeRun.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace blueprint;
using namespace blueprint::analysis;
namespace primitive = workload::primitive;
using workload::Cadence;
using workload::CollectiveFacts;
using workload::CollectiveKind;
using workload::Engine;
using workload::Invocation;
using workload::OverflowGuard;
using workload::Phase;
using workload::PipelineSchedule;
using workload::ReductionKind;
using workload::TensorAccess;

//===----------------------------------------------------------------------===//
// Exact wide counts
//===----------------------------------------------------------------------===//

llvm::APInt WideGuard::record(llvm::APInt value, bool overflow,
                              llvm::StringRef what) {
  if (!overflow)
    return value;
  if (!failure)
    failure = (what + " overflows 128 bits").str();
  return llvm::APInt(kBits, 0);
}

llvm::APInt WideGuard::count(int64_t value, llvm::StringRef what) {
  if (value >= 0)
    return llvm::APInt(kBits, static_cast<uint64_t>(value));
  if (!failure)
    failure = (what + " is negative").str();
  return llvm::APInt(kBits, 0);
}

llvm::APInt WideGuard::mul(const llvm::APInt &lhs, const llvm::APInt &rhs,
                           llvm::StringRef what) {
  bool overflow = false;
  llvm::APInt result = lhs.umul_ov(rhs, overflow);
  return record(std::move(result), overflow, what);
}

llvm::APInt WideGuard::add(const llvm::APInt &lhs, const llvm::APInt &rhs,
                           llvm::StringRef what) {
  bool overflow = false;
  llvm::APInt result = lhs.uadd_ov(rhs, overflow);
  return record(std::move(result), overflow, what);
}

llvm::APInt WideGuard::product(std::initializer_list<int64_t> factors,
                               llvm::StringRef what) {
  llvm::APInt result(kBits, 1);
  for (int64_t factor : factors)
    result = mul(result, count(factor, what), what);
  return result;
}

std::string analysis::toDecimal(const llvm::APInt &count) {
  return llvm::toString(count, /*Radix=*/10, /*Signed=*/false);
}

//===----------------------------------------------------------------------===//
// Formulas
//===----------------------------------------------------------------------===//

int64_t analysis::inFlightChunks(PipelineSchedule schedule,
                                 int64_t microbatches, int64_t stages,
                                 int64_t virtualStages) {
  switch (schedule) {
  case PipelineSchedule::GPipe:
    return microbatches;
  case PipelineSchedule::OneFOneB:
  // ZB-H1 runs 1F1B's forwards and input-gradient passes; the deferred
  // weight-gradient passes free no stashed activation of the forward.
  case PipelineSchedule::ZeroBubbleH1:
    return std::min(microbatches, stages);
  case PipelineSchedule::Interleaved1F1B: {
    // (v+1)pp - 1 <= 2 * pp * v <= 2 * blocks: it cannot overflow, while
    // m * v can only exceed it.
    int64_t held = (virtualStages + 1) * stages - 1;
    std::optional<int64_t> chunks =
        llvm::checkedMul(microbatches, virtualStages);
    return chunks ? std::min(*chunks, held) : held;
  }
  }
  llvm_unreachable("unknown pipeline schedule");
}

double analysis::bubbleStageSlots(PipelineSchedule schedule, int64_t stages,
                                  int64_t virtualStages) {
  double idle = static_cast<double>(stages - 1);
  return schedule == PipelineSchedule::Interleaved1F1B
             ? idle / static_cast<double>(virtualStages)
             : idle;
}

double analysis::pointToPointSeconds(int64_t bytes,
                                     double bandwidthBytesPerSecond,
                                     double latencySeconds) {
  return static_cast<double>(bytes) / bandwidthBytesPerSecond + latencySeconds;
}

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Six significant digits, as the estimate's provenance.
std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.6g", value);
  return text;
}

std::string milliseconds(double seconds) {
  return formatNumber(seconds * 1e3) + " ms";
}

/// Master weights, Adam's m and v: the optimizer state adamw_step reads and
/// writes per parameter (BlockWork.cpp, deriveOptimizerWork).
constexpr int64_t kOptimizerValuesPerParameter = 3;

} // namespace

llvm::Expected<workload::BlockWork>
analysis::deriveLogitsWork(const workload::ModelSpec &model,
                           const workload::TrainingSpec &training,
                           const workload::MappingSpec &mapping) {
  if (!workload::composeTraining(model, training, mapping))
    return failure("deriveLogitsWork: the model, training and mapping "
                   "contracts do not compose");
  // The LM head GEMMs have one formula, the last stage's (EdgeWork.h):
  // forward, activation_grad and weight_grad of lm_head_logits, 2*b*s*h*V/t
  // each, over every token (under sequence parallelism Megatron all-gathers
  // the final hidden states first).
  llvm::Expected<workload::BlockWork> head =
      workload::deriveHeadWork(model, training, mapping);
  if (!head)
    return head.takeError();
  workload::BlockWork work;
  work.cadence = head->cadence;
  for (Invocation &invocation : head->invocations)
    if (invocation.primitive == primitive::kLMHeadLogits)
      work.invocations.push_back(std::move(invocation));
  return work;
}

//===----------------------------------------------------------------------===//
// Model-level quantities
//===----------------------------------------------------------------------===//

namespace {

/// The first stage's gradients as the DP all-reduce sees them: padded to a
/// multiple of dp elements, as Megatron-LM pads its gradient buffers.
int64_t paddedStageElements(int64_t parameters, int64_t dp,
                            OverflowGuard &guard) {
  int64_t perRank = parameters / dp + (parameters % dp != 0);
  return guard.mul(perRank, dp, "padded gradient elements");
}

/// The first stage's gradients of one data-parallel group: their elements
/// on one rank, the ranks that sum them, and the mesh axes those span.
struct GradientGroup {
  int64_t elements = 0;
  int64_t ranks = 1;
  llvm::StringRef axis;
  std::vector<std::string> innerAxes;
};

/// The first stage's gradient groups: every parameter over the dp ranks at
/// ep = 1; at ep > 1 the dense parameters over the dp ranks (mesh axes edp
/// x ep) and the routed experts' over the edp ranks alone
/// (get_expert_data_parallel_group, docs/WholeRun.md), as the whole run's
/// buckets.
std::vector<GradientGroup>
gradientGroups(const ParameterCounts &parameters,
               const workload::MappingSpec &mapping) {
  if (mapping.ep == 1)
    return {{parameters.firstStagePerRank,
             mapping.dp,
             workload::kDataParallelAxis,
             {}}};
  return {{parameters.firstStagePerRank - parameters.firstStageExpertsPerRank,
           mapping.dp,
           workload::kExpertDataParallelAxis,
           {workload::kExpertParallelAxis.str()}},
          {parameters.firstStageExpertsPerRank,
           mapping.dp / mapping.ep,
           workload::kExpertDataParallelAxis,
           {}}};
}

Invocation dataParallelAllReduce(const GradientGroup &group,
                                 const workload::TrainingSpec &training,
                                 OverflowGuard &guard) {
  int64_t gradientBytes = workload::bytesOf(training.gradientType);
  int64_t paddedElements =
      paddedStageElements(group.elements, group.ranks, guard);
  Invocation allReduce = workload::collectiveInvocation(
      primitive::kDPGradAllReduce, Phase::WeightGrad, CollectiveKind::AllReduce,
      group.ranks,
      guard.mul(paddedElements, gradientBytes, "data-parallel message bytes"),
      gradientBytes, primitive::kDPGradAllReduce,
      "data parallelism: the first stage's gradients are summed over the "
      "DP replicas once per iteration");
  allReduce.collective->innerAxes = group.innerAxes;
  return allReduce;
}

llvm::Expected<CommunicationVolume>
volumeOf(const Invocation &invocation, int64_t times, OverflowGuard &guard) {
  llvm::Expected<int64_t> transfer =
      workload::minimumTransferBytes(*invocation.collective);
  if (!transfer)
    return transfer.takeError();
  CommunicationVolume volume;
  volume.messageBytes = guard.mul(invocation.collective->messageBytes, times,
                                  invocation.primitive + " message bytes");
  volume.transferBytes =
      guard.mul(*transfer, times, invocation.primitive + " transfer bytes");
  return volume;
}

void accumulate(CommunicationVolume &total, const CommunicationVolume &part,
                OverflowGuard &guard, llvm::StringRef what) {
  total.messageBytes = guard.add(total.messageBytes, part.messageBytes, what);
  total.transferBytes =
      guard.add(total.transferBytes, part.transferBytes, what);
}

/// One block kind's share of the model summary's closed forms.
struct KindTerms {
  workload::BlockKind kind = workload::BlockKind::Dense;
  /// Blocks of the kind in the model, on the first stage and in its first
  /// chunk.
  int64_t modelBlocks = 0;
  int64_t stageBlocks = 0;
  int64_t chunkBlocks = 0;
  /// One block of the kind: unsharded, on one TP rank, and what one token
  /// passes through.
  int64_t perBlock = 0;
  int64_t perBlockPerRank = 0;
  /// At ep > 1 the routed experts' part of perBlockPerRank; 0 at ep = 1.
  int64_t expertsPerBlockPerRank = 0;
  int64_t activePerBlock = 0;
  /// One block of the kind's per-micro-batch and per-iteration work on one
  /// rank, and its stash per micro-batch.
  workload::WorkSummary block{workload::Cadence::PerMicroBatch};
  workload::WorkSummary iteration{workload::Cadence::PerIteration};
  int64_t stash = 0;
};

/// The terms of the block kind `kind`: the plan's work when it is the
/// plan's kind, else the kind's block derived from the contracts
/// (deriveBlockWork and deriveOptimizerWork, as the whole run derives its
/// templates). A model of one kind has every block of it on the first
/// stage's pipeline.blocksPerStage; one that mixes kinds (one chunk per
/// stage) the first chunk's blocks of the kind.
llvm::Expected<KindTerms> kindTerms(const PlanWork &work,
                                    workload::BlockKind kind,
                                    const workload::WorkSummary &planBlock,
                                    const workload::WorkSummary &planIteration,
                                    const PipelineShape &pipeline, bool mixed) {
  const workload::ModelSpec &model = work.model;
  KindTerms terms;
  terms.kind = kind;
  terms.modelBlocks = workload::blocksOfKind(model, kind, 0, model.blocks);
  terms.chunkBlocks =
      mixed ? workload::blocksOfKind(model, kind, 0, pipeline.blocksPerChunk)
            : pipeline.blocksPerChunk;
  terms.stageBlocks = mixed ? terms.chunkBlocks : pipeline.blocksPerStage;
  workload::MappingSpec unsharded = work.mapping;
  unsharded.tp = 1;
  unsharded.pp = 1;
  unsharded.ep = 1;
  llvm::Expected<int64_t> perBlock =
      workload::blockParametersPerRank(model, kind, unsharded);
  if (!perBlock)
    return perBlock.takeError();
  llvm::Expected<int64_t> perBlockPerRank =
      workload::blockParametersPerRank(model, kind, work.mapping);
  if (!perBlockPerRank)
    return perBlockPerRank.takeError();
  llvm::Expected<int64_t> active = workload::activeBlockParameters(model, kind);
  if (!active)
    return active.takeError();
  llvm::Expected<int64_t> expertsPerRank =
      workload::blockExpertParametersPerRank(model, kind, work.mapping);
  if (!expertsPerRank)
    return expertsPerRank.takeError();
  terms.perBlock = *perBlock;
  terms.perBlockPerRank = *perBlockPerRank;
  terms.expertsPerBlockPerRank = *expertsPerRank;
  terms.activePerBlock = *active;
  if (kind == workload::representativeBlockKind(model)) {
    terms.block = planBlock;
    terms.iteration = planIteration;
  } else {
    llvm::Expected<workload::BlockWork> block =
        workload::deriveBlockWork(model, kind, work.training, work.mapping);
    if (!block)
      return block.takeError();
    llvm::Expected<workload::BlockWork> step =
        workload::deriveOptimizerWork(model, kind, work.training, work.mapping);
    if (!step)
      return step.takeError();
    llvm::Expected<workload::WorkSummary> blockSummary =
        workload::summarize(*block);
    if (!blockSummary)
      return blockSummary.takeError();
    llvm::Expected<workload::WorkSummary> stepSummary =
        workload::summarize(*step);
    if (!stepSummary)
      return stepSummary.takeError();
    terms.block = std::move(*blockSummary);
    terms.iteration = std::move(*stepSummary);
  }
  terms.stash = terms.block.total().stashBytes;
  return terms;
}

} // namespace

llvm::Expected<ModelQuantities>
analysis::deriveModelQuantities(const PlanWork &work) {
  const workload::ModelSpec &model = work.model;
  const workload::TrainingSpec &training = work.training;
  const workload::MappingSpec &mapping = work.mapping;
  std::optional<workload::TrainingComposition> composition =
      workload::composeTraining(model, training, mapping);
  if (!composition)
    return failure("the model, training and mapping contracts do not compose");
  if (work.perMicroBatch.cadence != Cadence::PerMicroBatch ||
      work.perIteration.cadence != Cadence::PerIteration)
    return failure("the block work must be split into per-micro-batch and "
                   "per-iteration work");
  if (work.perMicroBatch.invocations.empty())
    return failure("the plan holds no per-micro-batch work");
  if (work.blockOutputBytesPerRank <= 0)
    return failure("the block output buffer must have a positive size, got " +
                   llvm::Twine(work.blockOutputBytesPerRank));
  llvm::Expected<workload::WorkSummary> block =
      workload::summarize(work.perMicroBatch);
  if (!block)
    return block.takeError();
  llvm::Expected<workload::WorkSummary> iteration =
      workload::summarize(work.perIteration);
  if (!iteration)
    return iteration.takeError();

  ModelQuantities result;
  OverflowGuard guard;
  int64_t tp = mapping.tp, pp = mapping.pp, dp = mapping.dp;
  int64_t v = mapping.virtualStages;
  int64_t m = composition->microbatches;

  PipelineShape &pipeline = result.pipeline;
  pipeline.schedule = mapping.schedule;
  pipeline.microbatches = m;
  pipeline.stages = pp;
  pipeline.virtualStages = v;
  // The per-rank quantities are the first stage's: its chunk's blocks. With
  // interleaving, the in-flight chunks of an uneven layout have different
  // sizes, which no single count states (the whole-run program,
  // docs/WholeRun.md, derives any layout).
  // A model that mixes block kinds has chunks of different kinds on one
  // stage under interleaving, which no single chunk count states either.
  workload::PipelineLayout layout = workload::layoutOf(model, mapping);
  std::vector<workload::BlockKind> kinds = workload::blockKindsOf(model);
  bool mixed = kinds.size() > 1;
  if ((!layout.isUniform() || mixed) && v != 1)
    return failure("the model summary's closed forms hold an uneven "
                   "pipeline_layout and a model that mixes block kinds only "
                   "with one model chunk per stage; virtual_stages = " +
                   llvm::Twine(v));
  pipeline.blocksPerChunk = layout.chunkBlocks.front();
  pipeline.blocksPerStage =
      guard.mul(pipeline.blocksPerChunk, v, "blocks per stage");
  pipeline.inFlightChunks = inFlightChunks(mapping.schedule, m, pp, v);
  pipeline.bubbleStageSlots = bubbleStageSlots(mapping.schedule, pp, v);

  // Every quantity below is a sum over the model's block kinds (one kind
  // but for a model that mixes dense and MoE blocks, docs/WholeRun.md,
  // "Block kinds") of that kind's block count times one block's quantity.
  // The plan holds the block of the representative kind; the other kind's
  // block is derived from the same contracts by the functions that built
  // the plan.
  llvm::SmallVector<KindTerms, 2> terms;
  for (workload::BlockKind kind : kinds) {
    llvm::Expected<KindTerms> term =
        kindTerms(work, kind, *block, *iteration, pipeline, mixed);
    if (!term)
      return term.takeError();
    terms.push_back(std::move(*term));
  }

  // Parameters: MLM2021 Eq. 2 per block (blockParametersPerRank), with the
  // edges of Megatron GPT (edgeParametersPerRank): a vocabulary-parallel
  // word embedding that the LM head reuses or an output layer of its own, a
  // learned position table or none, one final norm. The whole model is one
  // unsharded stage.
  ParameterCounts &parameters = result.parameters;
  workload::MappingSpec unsharded = mapping;
  unsharded.tp = 1;
  unsharded.pp = 1;
  llvm::Expected<workload::EdgeParameters> edges =
      workload::edgeParametersPerRank(model, unsharded);
  if (!edges)
    return edges.takeError();
  llvm::Expected<workload::EdgeParameters> edgesPerRank =
      workload::edgeParametersPerRank(model, mapping);
  if (!edgesPerRank)
    return edgesPerRank.takeError();
  workload::BlockKind planKind = workload::representativeBlockKind(model);
  // One checked step per statement: which quantity an overflow names must
  // not depend on the order a compiler evaluates call arguments in.
  int64_t blockParameters = 0, stageBlockParameters = 0, chunkStash = 0;
  std::optional<int64_t> active;
  if (model.moe)
    active = 0;
  for (const KindTerms &term : terms) {
    if (term.kind == planKind) {
      parameters.perBlock = term.perBlock;
      parameters.perBlockPerRank = term.perBlockPerRank;
      result.activations.perBlockPerMicroBatch = term.stash;
    } else {
      parameters.denseBlocks = term.modelBlocks;
      parameters.perDenseBlock = term.perBlock;
      parameters.perDenseBlockPerRank = term.perBlockPerRank;
      result.activations.perDenseBlockPerMicroBatch = term.stash;
    }
    int64_t ofKind =
        guard.mul(term.modelBlocks, term.perBlock, "block parameters");
    blockParameters = guard.add(blockParameters, ofKind, "block parameters");
    int64_t onStage = guard.mul(term.stageBlocks, term.perBlockPerRank,
                                "first-stage block parameters");
    stageBlockParameters = guard.add(stageBlockParameters, onStage,
                                     "first-stage block parameters");
    int64_t expertsOnStage =
        guard.mul(term.stageBlocks, term.expertsPerBlockPerRank,
                  "first-stage expert parameters");
    parameters.firstStageExpertsPerRank =
        guard.add(parameters.firstStageExpertsPerRank, expertsOnStage,
                  "first-stage expert parameters");
    int64_t chunk =
        guard.mul(term.chunkBlocks, term.stash, "first-stage activation bytes");
    chunkStash = guard.add(chunkStash, chunk, "first-stage activation bytes");
    if (active) {
      int64_t passed =
          guard.mul(term.modelBlocks, term.activePerBlock, "active parameters");
      active = guard.add(*active, passed, "active parameters");
    }
  }
  parameters.wordEmbedding = edges->wordEmbedding;
  parameters.positionEmbedding = edges->positionEmbedding;
  parameters.outputLayer = edges->outputLayer;
  parameters.finalNorm = edges->finalNorm;
  int64_t withEmbeddings =
      guard.add(blockParameters, edges->firstStageTotal, "model parameters");
  parameters.model =
      guard.add(withEmbeddings, edges->lastStageTotal, "model parameters");
  // A token passes through every edge parameter (the embedding table as
  // Mixtral's and DeepSeek-V3's published active counts take it).
  if (active) {
    active = guard.add(*active, edges->firstStageTotal, "active parameters");
    parameters.active =
        guard.add(*active, edges->lastStageTotal, "active parameters");
  }
  int64_t firstStageEdges = edgesPerRank->firstStageTotal;
  // Without a pipeline the one stage is also the last: it holds the final
  // norm and the output layer too.
  if (pipeline.stages == 1)
    firstStageEdges = guard.add(firstStageEdges, edgesPerRank->lastStageTotal,
                                "first-stage edge parameters");
  parameters.firstStagePerRank = guard.add(
      stageBlockParameters, firstStageEdges, "first-stage parameters");
  parameters.lastStageEdgesPerRank = edgesPerRank->lastStageTotal;

  // Training state of one first-stage rank.
  StateBytes &state = result.state;
  int64_t weightBytes = workload::bytesOf(training.weightType);
  int64_t gradientBytes = workload::bytesOf(training.gradientType);
  int64_t optimizerBytes = guard.mul(
      kOptimizerValuesPerParameter,
      workload::bytesOf(training.optimizerStateType), "optimizer bytes");
  state.weights =
      guard.mul(parameters.firstStagePerRank, weightBytes, "weight bytes");
  state.gradients =
      guard.mul(parameters.firstStagePerRank, gradientBytes, "gradient bytes");
  state.optimizerState = guard.mul(parameters.firstStagePerRank, optimizerBytes,
                                   "optimizer state bytes");
  // A rank's ZeRO shard: 1/ranks of each gradient group, padded.
  std::vector<GradientGroup> groups = gradientGroups(parameters, mapping);
  int64_t shardElements = 0;
  for (const GradientGroup &group : groups) {
    int64_t padded = paddedStageElements(group.elements, group.ranks, guard);
    shardElements = guard.add(shardElements, padded / group.ranks,
                              "sharded optimizer elements");
  }
  state.optimizerStateSharded =
      guard.mul(shardElements, optimizerBytes, "sharded optimizer state bytes");
  int64_t stateBytesPerParameter =
      guard.add(weightBytes, gradientBytes, "state bytes");
  stateBytesPerParameter =
      guard.add(stateBytesPerParameter, optimizerBytes, "state bytes");
  state.blockStates = guard.mul(stageBlockParameters, stateBytesPerParameter,
                                "block state bytes");

  // Activations: the plan's stash per block times the blocks of the chunks
  // in flight on the first stage (SeqSel Sec. 4.2.3).
  ActivationBytes &activations = result.activations;
  activations.firstStage = guard.mul(pipeline.inFlightChunks, chunkStash,
                                     "first-stage activation bytes");

  // FLOPs: every (TP rank, block, micro-batch, DP replica) runs the plan's
  // per-rank matmul ops once; the LM head once per (TP rank, micro-batch,
  // DP replica).
  llvm::Expected<workload::BlockWork> logits =
      deriveLogitsWork(model, training, mapping);
  if (!logits)
    return logits.takeError();
  llvm::Expected<workload::WorkSummary> logitsSummary =
      workload::summarize(*logits);
  if (!logitsSummary)
    return logitsSummary.takeError();
  if (guard.failed())
    return guard.error("deriveModelQuantities");
  WideGuard wide;
  IterationFlops &flops = result.flops;
  flops.blocks = wide.count(0, "block model FLOPs");
  flops.recompute = wide.count(0, "recompute FLOPs");
  for (const KindTerms &term : terms) {
    int64_t modelOpsPerRank = 0;
    for (Phase phase :
         {Phase::Forward, Phase::ActivationGrad, Phase::WeightGrad})
      modelOpsPerRank =
          guard.add(modelOpsPerRank, term.block.at(phase, Engine::Matmul).ops,
                    "block matmul ops");
    int64_t recomputeOpsPerRank =
        term.block.at(Phase::Recompute, Engine::Matmul).ops;
    if (guard.failed())
      return guard.error("deriveModelQuantities");
    llvm::APInt blocks = wide.product(
        {modelOpsPerRank, tp, term.modelBlocks, m, dp}, "block model FLOPs");
    flops.blocks = wide.add(flops.blocks, blocks, "block model FLOPs");
    llvm::APInt recompute = wide.product(
        {recomputeOpsPerRank, tp, term.modelBlocks, m, dp}, "recompute FLOPs");
    flops.recompute = wide.add(flops.recompute, recompute, "recompute FLOPs");
  }
  flops.logits = wide.product(
      {logitsSummary->of(Engine::Matmul).ops, tp, m, dp}, "logits FLOPs");
  flops.model = wide.add(flops.blocks, flops.logits, "model FLOPs");
  flops.hardware = wide.add(flops.model, flops.recompute, "hardware FLOPs");
  if (wide.failed())
    return failure("deriveModelQuantities: " + wide.failureMessage());

  // Communication of one rank of the first stage, over its blocks of each
  // kind: a uniform layout gives every stage as many blocks, but a mixed
  // model's first stage holds its dense blocks (docs/ModelSummary.md).
  IterationCommunication &communication = result.communication;
  CommunicationVolume &tensorParallel = communication.tensorParallel;
  for (const KindTerms &term : terms) {
    const workload::WorkTotals &blockCollectives =
        term.block.of(Engine::Collective);
    const workload::WorkTotals &iterationCollectives =
        term.iteration.of(Engine::Collective);
    int64_t blockRuns =
        guard.mul(term.stageBlocks, m, "block runs per iteration");
    int64_t blockMessageBytes =
        guard.mul(blockCollectives.messageBytes, blockRuns, "TP message bytes");
    int64_t iterationMessageBytes =
        guard.mul(iterationCollectives.messageBytes, term.stageBlocks,
                  "TP message bytes");
    int64_t messageBytes =
        guard.add(blockMessageBytes, iterationMessageBytes, "TP message bytes");
    int64_t blockTransferBytes = guard.mul(
        blockCollectives.minimumTransferBytes, blockRuns, "TP transfer bytes");
    int64_t iterationTransferBytes =
        guard.mul(iterationCollectives.minimumTransferBytes, term.stageBlocks,
                  "TP transfer bytes");
    int64_t transferBytes = guard.add(
        blockTransferBytes, iterationTransferBytes, "TP transfer bytes");
    // At ep > 1 the MoE blocks' dispatcher collectives over ep are their
    // own row: the block's collectives less them are tensor-parallel.
    CommunicationVolume dispatcher;
    if (term.kind == workload::BlockKind::Expert && work.mapping.ep > 1) {
      llvm::Expected<std::vector<workload::ExpertParallelTransfer>> transfers =
          workload::expertParallelDispatch(work.model, work.training,
                                           work.mapping);
      if (!transfers)
        return transfers.takeError();
      for (const workload::ExpertParallelTransfer &transfer : *transfers)
        if (transfer.axes.front() == workload::kExpertParallelAxis)
          accumulate(
              dispatcher,
              {guard.mul(transfer.messageBytes, blockRuns, "EP message bytes"),
               guard.mul(transfer.sentBytes, blockRuns, "EP transfer bytes")},
              guard, "EP bytes");
      accumulate(communication.expertParallel, dispatcher, guard, "EP bytes");
    }
    accumulate(
        tensorParallel,
        {guard.sub(messageBytes, dispatcher.messageBytes, "TP message bytes"),
         guard.sub(transferBytes, dispatcher.transferBytes,
                   "TP transfer bytes")},
        guard, "TP bytes");
  }

  communication.pipelineBoundaryBytes = work.blockOutputBytesPerRank;
  bool scattered = workload::scattersPipelineMessages(mapping);
  if (scattered && work.blockOutputBytesPerRank % tp != 0)
    return failure(
        "the block output of " + llvm::Twine(work.blockOutputBytesPerRank) +
        " bytes does not split into tp = " + llvm::Twine(tp) + " slices");
  communication.pipelineSendBytes = scattered
                                        ? work.blockOutputBytesPerRank / tp
                                        : work.blockOutputBytesPerRank;
  if (pp > 1) {
    communication.pipelineMessages =
        guard.product({2, m, v}, "pipeline messages");
    int64_t pipelineBytes =
        guard.mul(communication.pipelineMessages,
                  communication.pipelineSendBytes, "pipeline bytes");
    communication.pipeline = {pipelineBytes, pipelineBytes};
    if (scattered) {
      llvm::Expected<CommunicationVolume> gathers =
          volumeOf(workload::pipelineGather(
                       training, mapping, work.blockOutputBytesPerRank,
                       workload::PipelineMessage::Activation),
                   communication.pipelineMessages, guard);
      if (!gathers)
        return gathers.takeError();
      accumulate(tensorParallel, *gathers, guard, "TP bytes");
    }
  }
  // Only tied embeddings have two copies on two stages to keep equal.
  if (pp > 1 && model.tiedEmbeddings) {
    llvm::Expected<Invocation> embeddingSync =
        workload::embeddingGradSync(model, training, mapping);
    if (!embeddingSync)
      return embeddingSync.takeError();
    llvm::Expected<CommunicationVolume> sync =
        volumeOf(*embeddingSync, 1, guard);
    if (!sync)
      return sync.takeError();
    communication.embeddingGradSync = *sync;
  }
  // Each gradient group of more than one rank (at ep = dp the experts'
  // gradients have no reduction).
  for (const GradientGroup &group : groups) {
    if (group.ranks == 1)
      continue;
    Invocation allReduce = dataParallelAllReduce(group, training, guard);
    llvm::Expected<CommunicationVolume> reduced = volumeOf(allReduce, 1, guard);
    if (!reduced)
      return reduced.takeError();
    accumulate(communication.dataParallel, *reduced, guard,
               "data-parallel bytes");
    // The distributed optimizer reduce-scatters the gradients and
    // all-gathers the updated weights: the same transfer as the all-reduce
    // when weights and gradients have one width.
    int64_t padded = paddedStageElements(group.elements, group.ranks, guard);
    for (auto [kind, width] :
         {std::pair(CollectiveKind::ReduceScatter, gradientBytes),
          std::pair(CollectiveKind::AllGather, weightBytes)}) {
      Invocation half = workload::collectiveInvocation(
          primitive::kDPShardedOptimizer, Phase::WeightGrad, kind, group.ranks,
          guard.mul(padded, width, "sharded optimizer bytes"), width,
          primitive::kDPShardedOptimizer, "distributed optimizer");
      llvm::Expected<CommunicationVolume> volume = volumeOf(half, 1, guard);
      if (!volume)
        return volume.takeError();
      accumulate(communication.dataParallelSharded, *volume, guard,
                 "sharded optimizer bytes");
    }
  }
  if (guard.failed())
    return guard.error("deriveModelQuantities");
  return result;
}

//===----------------------------------------------------------------------===//
// Iteration time
//===----------------------------------------------------------------------===//

namespace {

/// A network tier bound to a mesh axis, with its bandwidth at a message size.
struct BoundTier {
  const estimate::NetworkTier *tier = nullptr;
  /// bandwidth * efficiency(bytes).
  double bandwidth = 0;
  /// estimate::effectiveTierBandwidth's provenance.
  std::string bandwidthText;
};

/// The tier `binding` gives `axis`, for messages of `bytes`. The estimate of
/// the block has already checked that every bound tier exists and spans
/// its axis.
llvm::Expected<BoundTier>
boundTier(llvm::StringRef axis, int64_t axisSize, int64_t bytes,
          llvm::StringRef what, const estimate::SystemProfile &profile,
          const estimate::NetworkTierBinding &binding) {
  auto bound = binding.tierOfAxis.find(axis.str());
  if (bound == binding.tierOfAxis.end())
    return failure(what + " span mesh axis '" + axis + "' (" +
                   llvm::Twine(axisSize) +
                   " ranks), which the binding does not bind; bind it to a "
                   "network tier, e.g. binding=" +
                   axis + ":infiniband");
  BoundTier result;
  result.tier = profile.tier(bound->second);
  estimate::TierBandwidth bandwidth =
      estimate::effectiveTierBandwidth(*result.tier, bytes);
  result.bandwidth = bandwidth.bytesPerSecond;
  result.bandwidthText = bandwidth.provenance;
  return result;
}

double secondsOf(const estimate::EstimateReport &report, size_t first,
                 size_t count) {
  double seconds = 0;
  for (size_t i = first; i < first + count; ++i)
    seconds += report.tasks[i].seconds;
  return seconds;
}

} // namespace

llvm::Expected<IterationTime>
analysis::composeIterationTime(const PlanWork &work,
                               const ModelQuantities &quantities,
                               const estimate::SystemProfile &profile,
                               const estimate::NetworkTierBinding &binding) {
  const workload::MappingSpec &mapping = work.mapping;
  const PipelineShape &pipeline = quantities.pipeline;
  const IterationCommunication &communication = quantities.communication;
  IterationTime time;
  // ZB-H1's bubble depends on how long the deferred weight-gradient passes
  // are against the other passes, and an uneven layout's on its slowest
  // stage: no multiple of the first stage's slot states either.
  if (mapping.schedule == PipelineSchedule::ZeroBubbleH1)
    return failure("the closed-form iteration time has no zero_bubble_h1 "
                   "bubble term: its bubble is not a multiple of a stage "
                   "slot");
  if (!workload::layoutOf(work.model, mapping).isUniform())
    return failure("the closed-form iteration time composes the first "
                   "stage's slot; an uneven pipeline_layout has stages of "
                   "different lengths");
  if (workload::blockKindsOf(work.model).size() > 1)
    return failure("the closed-form iteration time composes the first "
                   "stage's slot of one block kind; a model that mixes dense "
                   "and MoE blocks has blocks of two (the whole-run "
                   "program's critical path times it)");

  // The block, exactly as --estimate costs it; this also checks the binding
  // against the profile and the mesh.
  estimate::EstimateInput blockInput =
      estimate::makeEstimateInput(work.training, mapping);
  if (llvm::Error error = estimate::appendWork(blockInput, work.perMicroBatch))
    return std::move(error);
  if (llvm::Error error = estimate::appendWork(blockInput, work.perIteration))
    return std::move(error);
  llvm::Expected<estimate::EstimateReport> block =
      estimate::estimateWork(blockInput, profile, binding);
  if (!block)
    return block.takeError();
  time.block = std::move(*block);
  double blockSeconds = time.block.block.combined;
  double blockIterationSeconds =
      time.block.secondsByCadence[static_cast<size_t>(Cadence::PerIteration)];
  double blocksPerStage = static_cast<double>(pipeline.blocksPerStage);
  double m = static_cast<double>(pipeline.microbatches);
  time.stageSlotSeconds = blocksPerStage * blockSeconds;

  // Model-level work the estimator costs like the block's: the model's
  // edges as the algebra derives them (EdgeWork.h: the last stage's final
  // norm, LM head, vocabulary-parallel cross-entropy and loss with their TP
  // collectives; the first stage's embeddings with theirs), the receiver's
  // all-gather of a scattered pipeline message, the DP all-reduce.
  llvm::Expected<workload::BlockWork> head =
      workload::deriveHeadWork(work.model, work.training, mapping);
  if (!head)
    return head.takeError();
  llvm::Expected<workload::BlockWork> embedding =
      workload::deriveEmbeddingWork(work.model, work.training, mapping);
  if (!embedding)
    return embedding.takeError();
  estimate::EstimateInput modelInput =
      estimate::makeEstimateInput(work.training, mapping);
  if (llvm::Error error = estimate::appendWork(modelInput, *head))
    return std::move(error);
  if (llvm::Error error = estimate::appendWork(modelInput, *embedding))
    return std::move(error);
  size_t headTasks = head->invocations.size();
  size_t embeddingTasks = embedding->invocations.size();
  bool scattered = workload::scattersPipelineMessages(mapping);
  if (scattered)
    if (llvm::Error error = estimate::appendInvocation(
            modelInput,
            workload::pipelineGather(work.training, mapping,
                                     communication.pipelineBoundaryBytes,
                                     workload::PipelineMessage::Activation),
            Cadence::PerMicroBatch))
      return std::move(error);
  size_t reductions = 0;
  for (const GradientGroup &group :
       gradientGroups(quantities.parameters, mapping)) {
    if (group.ranks == 1)
      continue;
    OverflowGuard guard;
    Invocation allReduce = dataParallelAllReduce(group, work.training, guard);
    if (guard.failed())
      return guard.error("composeIterationTime");
    if (llvm::Error error = estimate::appendInvocation(
            modelInput, allReduce, Cadence::PerIteration, group.axis))
      return std::move(error);
    ++reductions;
  }
  llvm::Expected<estimate::EstimateReport> modelReport =
      estimate::estimateWork(modelInput, profile, binding);
  if (!modelReport)
    return modelReport.takeError();
  time.headSeconds = secondsOf(*modelReport, 0, headTasks);
  time.embeddingSeconds = secondsOf(*modelReport, headTasks, embeddingTasks);
  size_t next = headTasks + embeddingTasks;
  double gatherSeconds = scattered ? modelReport->tasks[next++].seconds : 0;
  double dataParallelSeconds = 0;
  for (size_t reduction = 0; reduction < reductions; ++reduction)
    dataParallelSeconds += modelReport->tasks[next + reduction].seconds;

  // Pipeline messages and the tied-embedding gradient all-reduce cross the
  // pp axis.
  std::string messageText = "no pipeline";
  std::string embeddingText = pipeline.stages == 1
                                  ? "no pipeline"
                                  : "untied embeddings: the output layer is a "
                                    "parameter of its own";
  double embeddingSeconds = 0;
  if (pipeline.stages > 1) {
    llvm::Expected<BoundTier> sendTier = boundTier(
        workload::kPipelineParallelAxis, pipeline.stages,
        communication.pipelineSendBytes, "pipeline messages", profile, binding);
    if (!sendTier)
      return sendTier.takeError();
    double latency = sendTier->tier->latencySeconds.value;
    double sendSeconds = pointToPointSeconds(communication.pipelineSendBytes,
                                             sendTier->bandwidth, latency);
    time.pipelineMessageSeconds = sendSeconds + gatherSeconds;
    messageText = "point-to-point send_bytes " +
                  std::to_string(communication.pipelineSendBytes) + " / " +
                  sendTier->bandwidthText + " + network_tiers[" +
                  sendTier->tier->name + "].latency_seconds " +
                  formatNumber(latency) + " = " + milliseconds(sendSeconds);
    if (scattered)
      messageText += ", then the receiver's ring all_gather of " +
                     std::to_string(communication.pipelineBoundaryBytes) +
                     " bytes over mesh axis 'tp' " +
                     milliseconds(gatherSeconds);
  }
  if (pipeline.stages > 1 && work.model.tiedEmbeddings) {
    int64_t syncBytes = communication.embeddingGradSync.messageBytes;
    llvm::Expected<BoundTier> syncTier =
        boundTier(workload::kPipelineParallelAxis, pipeline.stages, syncBytes,
                  "tied-embedding gradient all-reduces", profile, binding);
    if (!syncTier)
      return syncTier.takeError();
    // One NCCL all-reduce call of the first and last stage.
    CollectiveFacts sync;
    sync.kind = CollectiveKind::AllReduce;
    sync.participants = 2;
    sync.messageBytes = syncBytes;
    bool paysCall = estimate::paysCallLatency(sync);
    embeddingSeconds = estimate::ringAllReduceSeconds(
        2, syncBytes, syncTier->bandwidth, syncTier->tier->latencySeconds.value,
        paysCall ? syncTier->tier->callLatencySecondsOrZero() : 0);
    embeddingText =
        "ring all_reduce of the first and last stage (2 ranks): "
        "2*(2-1)/2 * message_bytes " +
        std::to_string(syncBytes) + " / " + syncTier->bandwidthText +
        " + 2*(2-1) * network_tiers[" + syncTier->tier->name +
        "].latency_seconds " +
        formatNumber(syncTier->tier->latencySeconds.value) +
        (paysCall ? estimate::callLatencyProvenance(*syncTier->tier) : "");
  }

  std::string slotText =
      "stage slot " + milliseconds(time.stageSlotSeconds) +
      " = blocks per stage " + std::to_string(pipeline.blocksPerStage) +
      " * block per micro-batch " + milliseconds(blockSeconds);
  double v = static_cast<double>(pipeline.virtualStages);
  // Blocking p2p (the default) holds a stage for each of its sends, every
  // one on the path: 2(m v + pp - 1). Overlapped (overlap_p2p_comm), only
  // the transfers a receiver waits for are: at least the fill's pp - 1
  // forward hops and the drain's pp - 1 backward hops, the lower bound this
  // composition charges (docs/ModelSummary.md, "Against the whole-run
  // critical path").
  double hops = static_cast<double>(pipeline.stages - 1);
  double messages = pipeline.stages == 1     ? 0
                    : mapping.overlapP2PComm ? 2 * hops
                                             : 2 * (m * v + hops);
  std::string messagesRule =
      mapping.overlapP2PComm
          ? "2*(pp-1) = " + formatNumber(messages) +
                " messages of the fill and drain (overlap_p2p_comm: the "
                "other sends run beside compute) on the critical path * "
          : "2*(m*v + pp-1) = " + formatNumber(messages) +
                " messages on the critical path * ";
  std::string bubbleRule =
      pipeline.schedule == PipelineSchedule::Interleaved1F1B
          ? "(pp-1)/v = " + std::to_string(pipeline.stages - 1) + "/" +
                std::to_string(pipeline.virtualStages)
          : "pp-1 = " + std::to_string(pipeline.stages - 1);
  // The micro-batches whose embeddings lie on the critical path. Without a
  // pipeline the one stage embeds every micro-batch. With one, the last
  // stage is the slowest (it adds the head): plain 1F1B's path crosses the
  // first stage once forward (the first micro-batch's fill) and once
  // backward (the last one's drain). Interleaved 1F1B's fill runs the
  // chunk-0 forwards of micro-batches 0..pp-1 back to back on the first
  // device before micro-batch 0 returns to it for chunk 1; with Megatron's
  // blocking p2p (each of those forwards also holds the device for its
  // send) that run outlasts micro-batch 0's stage-hopping path by pp-1
  // embedding forwards, and the drain mirrors it: pp micro-batches
  // (docs/ModelSummary.md, "Iteration time").
  int64_t embeddedMicrobatches =
      pipeline.stages == 1 ? pipeline.microbatches
      : pipeline.schedule == PipelineSchedule::Interleaved1F1B ? pipeline.stages
                                                               : 1;
  std::string embeddedText =
      pipeline.stages == 1 ? "m " + std::to_string(pipeline.microbatches) + " *"
      : pipeline.schedule == PipelineSchedule::Interleaved1F1B
          ? "pp " + std::to_string(pipeline.stages) +
                " micro-batches (the interleaved fill's first-device run and "
                "its drain) of"
          : std::string("one micro-batch (pipeline fill and drain) of");
  time.terms = {
      {"microbatches", m * time.stageSlotSeconds,
       "m " + std::to_string(pipeline.microbatches) + " * " + slotText},
      {"bubble", pipeline.bubbleStageSlots * time.stageSlotSeconds,
       bubbleRule + " stage slots of " + milliseconds(time.stageSlotSeconds) +
           " (" + workload::stringifyEnum(pipeline.schedule).str() + ")"},
      {"pipeline_transfers", messages * time.pipelineMessageSeconds,
       pipeline.stages > 1
           ? messagesRule + milliseconds(time.pipelineMessageSeconds) + " (" +
                 messageText + ")"
           : messageText},
      {"lm_head", m * time.headSeconds,
       "m " + std::to_string(pipeline.microbatches) +
           " * the last stage's final norm, logits GEMMs, cross-entropy and "
           "loss with their tp collectives " +
           milliseconds(time.headSeconds)},
      {"embedding", embeddedMicrobatches * time.embeddingSeconds,
       embeddedText +
           " the first stage's embeddings with their tp "
           "collectives " +
           milliseconds(time.embeddingSeconds)},
      {primitive::kEmbeddingGradSync.str(), embeddingSeconds, embeddingText},
      {primitive::kDPGradAllReduce.str(), dataParallelSeconds,
       mapping.dp == 1 ? "dp = 1"
       : mapping.ep == 1
           ? "ring all_reduce of the first stage's gradients over mesh axis "
             "'dp'"
           : "ring all_reduces of the first stage's dense gradients over mesh "
             "axes 'edp' x 'ep' and of its expert gradients over 'edp' (none "
             "at edp = 1)"},
      {"optimizer_step", blocksPerStage * blockIterationSeconds,
       "blocks per stage " + std::to_string(pipeline.blocksPerStage) +
           " * the block's per-iteration work " +
           milliseconds(blockIterationSeconds)}};
  for (const IterationTerm &term : time.terms)
    time.totalSeconds += term.seconds;

  const estimate::ComputeRate *peak =
      profile.rate(estimate::Capability::Matmul, work.training.activationType);
  // estimateWork costed the block's matmuls, so the rate exists.
  time.peakField = "compute.matmul." +
                   workload::stringifyEnum(work.training.activationType).str() +
                   ".peak_ops_per_second";
  time.peakOpsPerSecond = peak->peakOpsPerSecond.value;
  std::optional<Utilization> utilization = flopsUtilization(
      RunFlops{quantities.flops.model, quantities.flops.hardware},
      time.totalSeconds, mapping.world, profile, work.training.activationType);
  time.modelFlopsUtilization = utilization->model;
  time.hardwareFlopsUtilization = utilization->hardware;
  return time;
}

double analysis::unsignedToDouble(const llvm::APInt &value) {
  // Not APInt::roundToDouble: LLVM 22's multi-word path misplaces the
  // leading bit of a value of 65 active bits (2.2216e19, MLM2021's 530B
  // hardware FLOPs per iteration, comes out as 6.29e19); APFloat's
  // conversion rounds to nearest for every width.
  llvm::APFloat converted(llvm::APFloat::IEEEdouble());
  converted.convertFromAPInt(value, /*IsSigned=*/false,
                             llvm::APFloat::rmNearestTiesToEven);
  return converted.convertToDouble();
}

std::optional<Utilization>
analysis::flopsUtilization(const RunFlops &flops, double seconds,
                           int64_t world, const estimate::SystemProfile &profile,
                           workload::DataType computeType) {
  const estimate::ComputeRate *peak =
      profile.rate(estimate::Capability::Matmul, computeType);
  if (!peak)
    return std::nullopt;
  double capacity =
      seconds * static_cast<double>(world) * peak->peakOpsPerSecond.value;
  return Utilization{unsignedToDouble(flops.model) / capacity,
                     unsignedToDouble(flops.hardware) / capacity};
}

namespace {

/// The attention core's matmul operations (qk_matmul, attn_v_matmul) one
/// rank runs for one block and micro-batch in its forward and backward
/// passes (not the recompute), as deriveBlockWork counts them under
/// `mapping`. Every block has the same attention, so one block stands for
/// all of them.
llvm::Expected<int64_t>
attentionCoreOpsPerBlock(const workload::ModelSpec &model,
                         const workload::TrainingSpec &training,
                         const workload::MappingSpec &mapping) {
  llvm::Expected<workload::BlockWork> block =
      workload::deriveBlockWork(model, training, mapping);
  if (!block)
    return block.takeError();
  workload::OverflowGuard guard;
  int64_t ops = 0;
  for (const workload::Invocation &invocation : block->invocations)
    if (invocation.engine == workload::Engine::Matmul &&
        invocation.phase != workload::Phase::Recompute &&
        workload::primitive::isAttentionCore(invocation.primitive))
      ops = guard.add(ops, invocation.ops, "attention core matmul ops");
  if (guard.failed())
    return guard.error("the attention core");
  return ops;
}

/// The attention core's forward and backward matmul operations of the run
/// under `mapping`, over every rank: one block's per rank x tp x dp x cp x
/// blocks x micro-batches.
llvm::Expected<llvm::APInt>
runAttentionCoreOps(const workload::ModelSpec &model,
                    const workload::TrainingSpec &training,
                    const workload::MappingSpec &mapping, WideGuard &wide) {
  llvm::Expected<int64_t> perBlock =
      attentionCoreOpsPerBlock(model, training, mapping);
  if (!perBlock)
    return perBlock.takeError();
  int64_t microbatches =
      training.globalBatch / mapping.dp / training.microBatch;
  return wide.product({*perBlock, mapping.tp, mapping.dp, mapping.cp,
                       model.blocks, microbatches},
                      "attention core FLOPs");
}

} // namespace

llvm::Expected<RunFlops>
analysis::runFlopsOf(llvm::ArrayRef<workload::StageTotals> stages,
                     const workload::ModelSpec &model,
                     const std::optional<workload::TrainingSpec> &training,
                     const workload::MappingSpec &mapping) {
  WideGuard wide;
  RunFlops flops{wide.count(0, "model FLOPs"), wide.count(0, "hardware FLOPs")};
  for (const workload::StageTotals &stage : stages) {
    int64_t matmul = stage.work.of(workload::Engine::Matmul).ops;
    int64_t recompute =
        stage.work.at(workload::Phase::Recompute, workload::Engine::Matmul)
            .ops;
    // A stage's tp x dp x cp ranks each run its per-rank work (a cp rank
    // 1/cp of every sequence's tokens).
    llvm::APInt hardware = wide.product(
        {matmul, mapping.tp, mapping.dp, mapping.cp}, "hardware FLOPs");
    llvm::APInt recomputed = wide.product(
        {recompute, mapping.tp, mapping.dp, mapping.cp}, "recompute FLOPs");
    flops.hardware = wide.add(flops.hardware, hardware, "hardware FLOPs");
    flops.model = wide.add(flops.model, hardware - recomputed, "model FLOPs");
  }
  // The model's FLOPs do not depend on how context parallelism runs them:
  // the load-balanced ring computes (cp + 1) / (2 cp) of the s^2 score pairs
  // (docs/TransformerSpec.md), the model counts them all, as at cp = 1
  // (Narayanan et al. 2021, Sec. 5.1). Every other matmul's rows are the
  // rank's s / cp tokens, whose sum over the cp ranks is the cp = 1 count,
  // so only the attention core is exchanged for its cp = 1 count.
  if (training && mapping.cp > 1 && !wide.failed()) {
    workload::MappingSpec full = mapping;
    full.cp = 1;
    full.world = mapping.world / mapping.cp;
    llvm::Expected<llvm::APInt> executed =
        runAttentionCoreOps(model, *training, mapping, wide);
    if (!executed)
      return executed.takeError();
    llvm::Expected<llvm::APInt> modelCore =
        runAttentionCoreOps(model, *training, full, wide);
    if (!modelCore)
      return modelCore.takeError();
    if (!wide.failed())
      flops.model =
          wide.add(flops.model - *executed, *modelCore, "model FLOPs");
  }
  if (wide.failed())
    return llvm::createStringError("the run's " +
                                   wide.failureMessage().str());
  return flops;
}
