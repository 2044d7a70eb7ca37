//===- WholeRun.cpp - The work of one whole training iteration ------------===//
//
// docs/WholeRun.md states what each stage runs and why; this file is its
// one implementation.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/WholeRun.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/Plan.h"
#include "Blueprint/Workload/Primitives.h"
#include "ForwardBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <tuple>

using namespace blueprint::workload;

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "deriveWholeRun: " + message);
}

std::string RunShape::rangeText() const {
  return (llvm::Twine(inference() ? "a step of the generation (0.."
                                  : "a micro-batch of the iteration (0..") +
          llvm::Twine(microbatches - 1) + ")")
      .str();
}

std::optional<RunShape>
blueprint::workload::runShapeOf(const ModelSpec &model,
                                const MappingSpec &mapping,
                                const std::optional<TrainingSpec> &training,
                                const std::optional<InferenceSpec> &inference) {
  if (training.has_value() == inference.has_value())
    return std::nullopt;
  if (inference) {
    if (!composeInference(model, *inference, mapping))
      return std::nullopt;
    return RunShape{inference->generatedTokens, layoutOf(model, mapping),
                    mapping.schedule, inference->promptLength, model};
  }
  std::optional<TrainingComposition> composition =
      composeTraining(model, *training, mapping);
  if (!composition)
    return std::nullopt;
  return RunShape{composition->microbatches, layoutOf(model, mapping),
                  mapping.schedule, std::nullopt, model};
}

std::string blueprint::workload::describeMessage(PipelineMessage message,
                                                 int64_t microBatch,
                                                 int64_t chunk) {
  return (stringifyEnum(message) + " of micro-batch " +
          llvm::Twine(microBatch) + " leaving model chunk " +
          llvm::Twine(chunk))
      .str();
}

bool blueprint::workload::scattersPipelineMessages(const MappingSpec &mapping) {
  return mapping.pp > 1 && mapping.tp > 1 &&
         mapping.tpComm == TPCommMode::AllReduce;
}

llvm::Expected<Invocation>
blueprint::workload::embeddingGradSync(const ModelSpec &model,
                                       const TrainingSpec &training,
                                       const MappingSpec &mapping) {
  OverflowGuard guard;
  int64_t gradientBytes = bytesOf(training.gradientType);
  int64_t message =
      guard.product({model.vocab / mapping.tp, model.hidden, gradientBytes},
                    "embedding gradient bytes");
  if (guard.failed())
    return guard.error("embeddingGradSync");
  return collectiveInvocation(
      primitive::kEmbeddingGradSync, Phase::WeightGrad,
      CollectiveKind::AllReduce, /*participants=*/2, message, gradientBytes,
      primitive::kEmbeddingGradSync,
      "tied embeddings: the first stage's word embedding and the last "
      "stage's LM head are one parameter, so their gradients are summed");
}

Invocation blueprint::workload::pipelineGather(const TrainingSpec &training,
                                               const MappingSpec &mapping,
                                               int64_t messageBytes,
                                               PipelineMessage message) {
  bool forward = message == PipelineMessage::Activation;
  return collectiveInvocation(
      primitive::kPipelineGather,
      forward ? Phase::Forward : Phase::ActivationGrad,
      CollectiveKind::AllGather, mapping.tp, messageBytes,
      bytesOf(training.activationType), primitive::kPipelineGather,
      "scatter/gather: the receiving stage all-gathers the 1/t slices of a "
      "TP-replicated pipeline message");
}

namespace {

/// Which template each kind of block work goes to.
struct BlockTemplates {
  std::optional<size_t> forward;
  std::optional<size_t> backward;
  std::optional<size_t> inputGrad;
  std::optional<size_t> weightGrad;
  std::optional<size_t> step;
};

/// The templates of the model's edges: the embeddings on the first model
/// chunk, the final norm, LM head and loss on the last, and their
/// once-per-iteration steps (on the first and last stage; one at pp = 1).
struct EdgeTemplates {
  std::optional<size_t> embeddingForward;
  std::optional<size_t> embeddingBackward;
  std::optional<size_t> headForward;
  std::optional<size_t> headBackward;
  std::optional<size_t> firstStageStep;
  std::optional<size_t> lastStageStep;
};

/// A run's templates and which of them each role is: what a memo hit gives
/// a run.
struct DerivedTemplates {
  RunTemplateList templates;
  /// Indexed by BlockKind.
  std::array<BlockTemplates, 2> blocks;
  EdgeTemplates edges;
};

} // namespace

struct RunTemplatesMemo::Entries {
  /// The lists derived for `model` under `training` and `mapping` by an
  /// earlier run, or none.
  std::optional<DerivedTemplates> find(const ModelSpec &model,
                                       const TrainingSpec &training,
                                       const MappingSpec &mapping) {
    return lists.find(model, keyOf(model, training, mapping));
  }

  /// Keeps `derived`, the templates of `model` under `training` and
  /// `mapping`, which find() did not have.
  void insert(const ModelSpec &model, const TrainingSpec &training,
              const MappingSpec &mapping, DerivedTemplates derived) {
    lists.insert(model, keyOf(model, training, mapping), std::move(derived));
  }

  /// What placing the block works into templates reads of the mapping
  /// besides what the works read: whether the schedule is ZB-H1
  /// (buildBlockTemplates), whether pp = 1 (buildEdgeTemplates) and whether
  /// the optimizer is sharded (keptInStep).
  using Placing = std::array<int64_t, 3>;
  /// blockWorkInputsOf (every kind's works), then Placing.
  using Key = std::array<int64_t, std::tuple_size_v<BlockWorkInputs> +
                                      std::tuple_size_v<Placing>>;
  static Key keyOf(const ModelSpec &model, const TrainingSpec &training,
                   const MappingSpec &mapping) {
    // Every field of the mapping named (a structured binding names exactly
    // the fields), so a field added to it does not compile here until
    // placing is said to read it or not (blockWorkInputsOf does the same
    // for the works).
    [[maybe_unused]] const auto &[tp, pp, dp, world, virtualStages, tpComm,
                                  recompute, schedule, pipelineLayout,
                                  zeroStage, bucketBytes, cp, cpComm, ep,
                                  overlapTPComm, overlapDPGradReduce,
                                  overlapP2PComm] = mapping;
    Placing placing = {schedule == PipelineSchedule::ZeroBubbleH1, pp == 1,
                       mapping.shardsOptimizer()};
    Key key;
    llvm::copy(placing, llvm::copy(blockWorkInputsOf(model, training, mapping),
                                   key.begin()));
    return key;
  }

  /// Where the templates a run derives take their block works from.
  BlockWorkMemo blockWorks;
  ModelMemo<Key, DerivedTemplates> lists{kEntries};
};

RunTemplatesMemo::RunTemplatesMemo() : impl(std::make_unique<Entries>()) {}
RunTemplatesMemo::~RunTemplatesMemo() = default;
size_t RunTemplatesMemo::shared() const { return impl->lists.shared(); }

namespace {

/// Builds the stage sequences of one run, of contracts that compose: its
/// one caller checks them first (composeTraining), so it derives the parts
/// without checking them again (ForwardBuilder.h, the deriveComposing...
/// derivations).
class RunBuilder {
public:
  RunBuilder(const ModelSpec &model, const TrainingSpec &training,
             const MappingSpec &mapping, RunTemplatesMemo *templatesMemo,
             WholeRun &run)
      : model(model), training(training), mapping(mapping),
        templatesMemo(templatesMemo), run(run) {}

  /// Builds only what each stage holds for the whole run
  /// (deriveRunPersistentState): the stages' parameters, buffers and
  /// buckets, by the code build() runs for them.
  llvm::Error buildPersistentState() {
    if (llvm::Error error = deriveStageParameters())
      return error;
    for (int64_t stage = 0; stage < mapping.pp; ++stage) {
      StageProgram program;
      program.stage = stage;
      current = &program;
      holdPersistentState(stage);
      run.stages.push_back(std::move(program));
    }
    if (guard.failed())
      return guard.error("deriveWholeRun");
    return llvm::Error::success();
  }

  /// Builds the run; without `microBatchSteps`, only its parts
  /// (deriveRunParts).
  llvm::Error build(bool microBatchSteps) {
    if (llvm::Error error = buildTemplates())
      return error;
    if (llvm::Error error = deriveMessageBytes())
      return error;
    if (llvm::Error error = deriveStageParameters())
      return error;
    addSharedWorks();
    std::vector<StageOrder> orders;
    if (microBatchSteps)
      orders = generateStageOrders(mapping.schedule, mapping.pp,
                                   mapping.virtualStages, run.microbatches);
    for (int64_t stage = 0; stage < mapping.pp; ++stage) {
      StageProgram program;
      program.stage = stage;
      current = &program;
      gate.reset();
      joining.reset();
      // A slot is at most a receive, its gather, a parameter gather, two
      // edges, the instance and a send.
      if (microBatchSteps)
        program.steps.reserve(orders[stage].size() * 7);
      if (microBatchSteps)
        for (const ScheduleSlot &slot : orders[stage])
          addSlot(stage, slot);
      if (llvm::Error error = addStep(stage))
        return error;
      run.stages.push_back(std::move(program));
    }
    if (guard.failed())
      return guard.error("deriveWholeRun");
    return llvm::Error::success();
  }

private:
  size_t addTemplate(llvm::StringRef name, ModelPart part, PipelinePass pass,
                     std::vector<Invocation> invocations) {
    RunTemplate result;
    result.name = name.str();
    result.part = part;
    result.pass = pass;
    result.work.cadence = pass == PipelinePass::Step ? Cadence::PerIteration
                                                     : Cadence::PerMicroBatch;
    result.work.invocations = std::move(invocations);
    templates.push_back(std::move(result));
    return templates.size() - 1;
  }

  /// The templates of each block kind the model has, then the edges': an
  /// earlier run's when the memo holds them.
  llvm::Error buildTemplates() {
    if (!templatesMemo)
      return deriveTemplates(/*blockWorks=*/nullptr);
    RunTemplatesMemo::Entries &memo = templatesMemo->entries();
    if (std::optional<DerivedTemplates> derived =
            memo.find(model, training, mapping)) {
      run.templates = std::move(derived->templates);
      blockTemplates = derived->blocks;
      edges = derived->edges;
      return llvm::Error::success();
    }
    if (llvm::Error error = deriveTemplates(&memo.blockWorks))
      return error;
    memo.insert(model, training, mapping,
                DerivedTemplates{run.templates, blockTemplates, edges});
    return llvm::Error::success();
  }

  llvm::Error deriveTemplates(BlockWorkMemo *blockWorks) {
    std::vector<BlockKind> kinds = blockKindsOf(model);
    for (BlockKind kind : kinds)
      if (llvm::Error error = buildBlockTemplates(
              kind, blockTemplatePrefix(model, kind), blockWorks))
        return error;
    if (llvm::Error error = buildEdgeTemplates())
      return error;
    run.templates = RunTemplateList(std::move(templates));
    return llvm::Error::success();
  }

  /// The per-micro-batch work of a block of `kind` split by pass: forward,
  /// and the rest as one backward or, under ZB-H1, as the input-gradient
  /// pass and the weight-gradient pass (weight gradients and the re-gathers
  /// that serve them, Qi et al. 2023's "W"), then its once-per-iteration
  /// step. The names are `prefix` + block_forward, ...: a model of one block
  /// kind has today's names, the MoE blocks of a model that mixes kinds
  /// moe_block_forward, ... (docs/WholeRun.md, "Block kinds").
  llvm::Error buildBlockTemplates(BlockKind kind, llvm::StringRef prefix,
                                  BlockWorkMemo *blockWorks) {
    BlockTemplates &blocks = blockTemplates[static_cast<size_t>(kind)];
    auto name = [&](llvm::StringRef pass) { return (prefix + pass).str(); };
    llvm::Expected<std::shared_ptr<const BlockWork>> block =
        detail::ComposingBlockWorks::of(blockWorks, model, kind, training,
                                        mapping);
    if (!block)
      return block.takeError();
    // The work may be shared with other runs (BlockWorkMemo): it is read,
    // never moved from.
    const std::vector<Invocation> &work = (*block)->invocations;
    std::vector<std::pair<Phase, Cadence>> keys;
    for (const Invocation &invocation : work)
      keys.push_back({invocation.phase, Cadence::PerMicroBatch});
    std::vector<Stage> stages = assignStages(keys);
    // Each invocation is copied once, into the one template that runs it:
    // ZB-H1 splits the backward into its two passes and has no backward
    // template.
    bool zeroBubble = mapping.schedule == PipelineSchedule::ZeroBubbleH1;
    std::vector<Invocation> forward, backward, inputGrad, weightGrad;
    forward.reserve(work.size());
    (zeroBubble ? inputGrad : backward).reserve(work.size());
    for (size_t i = 0; i < work.size(); ++i) {
      if (stages[i] == Stage::Forward) {
        forward.push_back(work[i]);
        continue;
      }
      if (!zeroBubble) {
        backward.push_back(work[i]);
        continue;
      }
      bool servesWeightGrad =
          work[i].phase == Phase::WeightGrad ||
          (work[i].phase == Phase::Recommunication && i + 1 < work.size() &&
           work[i + 1].phase == Phase::WeightGrad);
      (servesWeightGrad ? weightGrad : inputGrad).push_back(work[i]);
    }
    blocks.forward = addTemplate(name("block_forward"), ModelPart::Block,
                                 PipelinePass::Forward, std::move(forward));
    if (zeroBubble) {
      blocks.inputGrad =
          addTemplate(name("block_input_grad"), ModelPart::Block,
                      PipelinePass::InputGrad, std::move(inputGrad));
      blocks.weightGrad =
          addTemplate(name("block_weight_grad"), ModelPart::Block,
                      PipelinePass::WeightGrad, std::move(weightGrad));
    } else {
      blocks.backward =
          addTemplate(name("block_backward"), ModelPart::Block,
                      PipelinePass::Backward, std::move(backward));
    }

    // The once-per-iteration block work. With a sharded optimizer
    // (zero_stage >= 1) the AdamW step covers the rank's shard of the
    // stage's flat gradient buffer, which no single block's step is: the
    // stage runs it itself (addStep).
    llvm::Expected<BlockWork> step =
        detail::deriveComposingOptimizerWork(model, kind, training, mapping);
    if (!step)
      return step.takeError();
    std::vector<Invocation> stepWork;
    for (Invocation &invocation : step->invocations)
      if (keptInStep(invocation))
        stepWork.push_back(std::move(invocation));
    if (!stepWork.empty())
      blocks.step = addTemplate(name("block_step"), ModelPart::Block,
                                PipelinePass::Step, std::move(stepWork));
    return llvm::Error::success();
  }

  /// Whether an invocation of a step stays in its template: the optimizer
  /// step does not when the stage steps its shard itself (zero_stage >= 1).
  bool keptInStep(const Invocation &invocation) const {
    return !sharded() || invocation.phase != Phase::Optimizer;
  }
  bool sharded() const { return mapping.shardsOptimizer(); }

  /// `invocation`, a collective over the ranks holding the same parameters
  /// (MappingSpec::gradientReplicas): the data-parallel axis, and inside it
  /// the context-parallel axis at cp > 1; at ep > 1 the data-parallel axis
  /// is edp x ep.
  Invocation overReplicas(Invocation invocation) const {
    invocation.collective->axis = dataParallelAxis().str();
    if (mapping.ep > 1)
      invocation.collective->innerAxes.push_back(kExpertParallelAxis.str());
    if (mapping.cp > 1)
      invocation.collective->innerAxes.push_back(kContextParallelAxis.str());
    return invocation;
  }

  /// `invocation`, a collective over the ranks holding the same routed
  /// experts at ep > 1 (MappingSpec::expertGradientReplicas): the
  /// expert-data-parallel axis alone (get_expert_data_parallel_group).
  Invocation overExpertReplicas(Invocation invocation) const {
    invocation.collective->axis = kExpertDataParallelAxis.str();
    return invocation;
  }

  /// The outermost mesh axis of the data-parallel ranks: dp, or edp at
  /// ep > 1 (docs/DistSpec.md, "The ep and edp mesh axes").
  llvm::StringRef dataParallelAxis() const {
    return mapping.ep > 1 ? kExpertDataParallelAxis : kDataParallelAxis;
  }

  /// The edges' per-micro-batch work split into forward and the rest (the
  /// edges' backward runs whole, also in ZB-H1's input-gradient pass), and
  /// their steps.
  llvm::Error buildEdgeTemplates() {
    auto split = [&](llvm::Expected<BlockWork> work, ModelPart part,
                     llvm::StringRef prefix, std::optional<size_t> &forward,
                     std::optional<size_t> &backward) -> llvm::Error {
      if (!work)
        return work.takeError();
      std::vector<Invocation> forwardWork, backwardWork;
      for (Invocation &invocation : work->invocations)
        (invocation.phase == Phase::Forward ? forwardWork : backwardWork)
            .push_back(std::move(invocation));
      if (!forwardWork.empty())
        forward = addTemplate((prefix + "_forward").str(), part,
                              PipelinePass::Forward, std::move(forwardWork));
      if (!backwardWork.empty())
        backward = addTemplate((prefix + "_backward").str(), part,
                               PipelinePass::Backward, std::move(backwardWork));
      return llvm::Error::success();
    };
    if (llvm::Error error = split(
            detail::deriveComposingEmbeddingWork(model, training, mapping),
            ModelPart::Embedding, "embedding", edges.embeddingForward,
            edges.embeddingBackward))
      return error;
    if (llvm::Error error = split(
            detail::deriveComposingHeadWork(model, training, mapping),
            ModelPart::Head, "head", edges.headForward, edges.headBackward))
      return error;
    auto step = [&](bool first, bool last, ModelPart part, llvm::StringRef name,
                    std::optional<size_t> &index) -> llvm::Error {
      llvm::Expected<BlockWork> work = detail::deriveComposingEdgeOptimizerWork(
          model, training, mapping, first, last);
      if (!work)
        return work.takeError();
      std::vector<Invocation> kept;
      for (Invocation &invocation : work->invocations)
        if (keptInStep(invocation))
          kept.push_back(std::move(invocation));
      if (!kept.empty())
        index = addTemplate(name, part, PipelinePass::Step, std::move(kept));
      return llvm::Error::success();
    };
    if (mapping.pp == 1)
      return step(true, true, ModelPart::Embedding, "edge_step",
                  edges.firstStageStep);
    if (llvm::Error error = step(true, false, ModelPart::Embedding,
                                 "embedding_step", edges.firstStageStep))
      return error;
    return step(false, true, ModelPart::Head, "head_step", edges.lastStageStep);
  }

  /// What each rank sends per pipeline message: the block output (or its
  /// gradient, the same shape) it holds, or 1/t of it when scattered.
  llvm::Error deriveMessageBytes() {
    // The output boundary alone: the block's other boundaries (its
    // parameters, their gradients and optimizer state) are not a message's,
    // and the run's parameters are counted, and their overflows reported,
    // by deriveStageParameters.
    llvm::Expected<int64_t> bytes = bytesPerRank(
        detail::blockActivationBoundary("y", BoundaryRole::ActivationOut, model,
                                        training, mapping),
        mapping.tp, mapping.cp);
    if (!bytes)
      return bytes.takeError();
    heldBytes = *bytes;
    if (heldBytes <= 0)
      return failure("the block has no output activation");
    scattered = scattersPipelineMessages(mapping);
    if (scattered && heldBytes % mapping.tp != 0)
      return failure("the block output of " + llvm::Twine(heldBytes) +
                     " bytes does not split into tp = " +
                     llvm::Twine(mapping.tp) + " slices");
    sendBytes = scattered ? heldBytes / mapping.tp : heldBytes;
    run.messageBytes = sendBytes;
    return llvm::Error::success();
  }

  /// The per-micro-batch works, once each (WholeRun::works): the gather of
  /// each kind of scattered message, and under ZeRO-3 the parameter gather
  /// of each chunk for the forward and for the backward.
  void addSharedWorks() {
    auto add = [&](Invocation invocation, llvm::StringRef axis) {
      RunWork work{std::make_shared<const Invocation>(std::move(invocation)),
                   Cadence::PerMicroBatch,
                   axis.str(),
                   {},
                   run.works.size()};
      run.works.push_back(std::move(work));
      return run.works.size() - 1;
    };
    if (scattered)
      for (PipelineMessage message :
           {PipelineMessage::Activation, PipelineMessage::ActivationGrad})
        messageGathers[static_cast<size_t>(message)] =
            add(pipelineGather(training, mapping, heldBytes, message),
                kTensorParallelAxis);
    if (mapping.zeroStage != 3 || mapping.gradientReplicas() == 1)
      return;
    int64_t weightBytes = bytesOf(training.weightType);
    for (int64_t chunk = 0; chunk < run.layout.chunks(); ++chunk)
      for (bool backward : {false, true})
        parameterGathers.push_back(
            add(overReplicas(collectiveInvocation(
                    primitive::kFSDPParamGather,
                    backward ? Phase::Recommunication : Phase::Forward,
                    CollectiveKind::AllGather, mapping.gradientReplicas(),
                    guard.mul(chunkParameters[chunk], weightBytes,
                              "fsdp_param_gather bytes"),
                    weightBytes, "params",
                    backward
                        ? "ZeRO-3: the backward gathers the chunk's parameters "
                          "again from their data-parallel shards"
                        : "ZeRO-3: the forward gathers the chunk's parameters "
                          "from their data-parallel shards")),
                dataParallelAxis()));
  }

  /// The parameters one rank of each stage holds, as gradient units in the
  /// order backward produces them (the stage's last block first): the
  /// buckets are cut from this list.
  llvm::Error deriveStageParameters() {
    // At ep > 1 a block's routed experts are units of their own (their
    // gradients reduce over edp only); perBlock holds the rest.
    std::array<int64_t, 2> perBlock{};
    std::array<int64_t, 2> perBlockExperts{};
    for (BlockKind kind : blockKindsOf(model)) {
      llvm::Expected<int64_t> parameters =
          blockParametersPerRank(model, kind, mapping);
      if (!parameters)
        return parameters.takeError();
      llvm::Expected<int64_t> experts =
          blockExpertParametersPerRank(model, kind, mapping);
      if (!experts)
        return experts.takeError();
      perBlock[static_cast<size_t>(kind)] = *parameters - *experts;
      perBlockExperts[static_cast<size_t>(kind)] = *experts;
    }
    llvm::Expected<EdgeParameters> edge = edgeParametersPerRank(model, mapping);
    if (!edge)
      return edge.takeError();
    const PipelineLayout &layout = run.layout;
    int64_t last = mapping.pp - 1;
    stageUnits.assign(mapping.pp, {});
    stageExpertUnits.assign(mapping.pp, {});
    stageUnitBlocks.assign(mapping.pp, {});
    stageExpertUnitBlocks.assign(mapping.pp, {});
    // The last stage's backward starts with the head: the final norm and
    // the output layer it holds apart from the word embedding.
    stageUnits[last].push_back(edge->lastStageTotal);
    stageUnitBlocks[last].push_back(kHeadUnit);
    for (int64_t stage = 0; stage < mapping.pp; ++stage)
      for (int64_t virtualIndex = mapping.virtualStages; virtualIndex-- > 0;) {
        int64_t chunk = layout.chunkAt(stage, virtualIndex);
        int64_t first = layout.firstBlock(chunk);
        for (int64_t block = first + layout.chunkBlocks[chunk];
             block-- > first;) {
          size_t kind = static_cast<size_t>(blockKindOf(model, block));
          stageUnits[stage].push_back(perBlock[kind]);
          stageUnitBlocks[stage].push_back(block);
          if (perBlockExperts[kind] > 0) {
            stageExpertUnits[stage].push_back(perBlockExperts[kind]);
            stageExpertUnitBlocks[stage].push_back(block);
          }
        }
      }
    // The first stage's backward ends with the embeddings.
    int64_t embedding = edge->firstStageTotal;
    stageUnits[0].push_back(embedding);
    stageUnitBlocks[0].push_back(kEmbeddingUnit);
    // What ZeRO-3 gathers for a pass through a chunk: its blocks' and
    // edges' parameters, padded like the buckets.
    chunkParameters.assign(layout.chunks(), 0);
    for (int64_t chunk = 0; chunk < layout.chunks(); ++chunk) {
      int64_t first = layout.firstBlock(chunk);
      int64_t elements = sumOverBlocks(model, perBlock, first,
                                       first + layout.chunkBlocks[chunk], guard,
                                       "chunk parameters");
      if (chunk == 0)
        elements = guard.add(elements, embedding, "chunk parameters");
      if (chunk == layout.chunks() - 1)
        elements =
            guard.add(elements, stageUnits[last].front(), "chunk parameters");
      chunkParameters[chunk] =
          paddedToRanks(elements, mapping.gradientReplicas());
    }
    return llvm::Error::success();
  }

  /// Appends a step of `action` (a RunInstance, RunMessage or RunWork)
  /// depending on the stage's last gating step; every step but a send
  /// gates what follows.
  template <typename ActionT> void append(ActionT &&action, bool gates = true);

  void addSlot(int64_t stage, const ScheduleSlot &slot) {
    const PipelineLayout &layout = run.layout;
    int64_t chunk = layout.chunkAt(stage, slot.virtualIndex);
    int64_t last = layout.chunks() - 1;
    // The chunk's blocks run one instance per segment of one block kind, in
    // block order for the forward and backwards otherwise.
    auto instances = [&](std::optional<size_t> BlockTemplates::*pass) {
      appendBlockInstances(chunk, slot.microBatch, pass,
                           slot.pass != PipelinePass::Forward);
    };
    // An edge runs once per micro-batch on its chunk, without blocks.
    auto edge = [&](std::optional<size_t> templateIndex) {
      if (!templateIndex)
        return;
      RunInstance result;
      result.templateIndex = *templateIndex;
      result.chunk = chunk;
      result.microBatch = slot.microBatch;
      append(result);
    };
    switch (slot.pass) {
    case PipelinePass::Forward:
      if (chunk > 0)
        receive(PipelineMessage::Activation, slot.microBatch, chunk - 1);
      gatherParameters(chunk, /*backward=*/false);
      if (chunk == 0)
        edge(edges.embeddingForward);
      instances(&BlockTemplates::forward);
      if (chunk == last)
        edge(edges.headForward);
      else
        send(PipelineMessage::Activation, slot.microBatch, chunk,
             layout.stageOf(chunk + 1));
      return;
    case PipelinePass::Backward:
    case PipelinePass::InputGrad:
      if (chunk < last)
        receive(PipelineMessage::ActivationGrad, slot.microBatch, chunk + 1);
      gatherParameters(chunk, /*backward=*/true);
      if (chunk == last)
        edge(edges.headBackward);
      instances(slot.pass == PipelinePass::Backward
                    ? &BlockTemplates::backward
                    : &BlockTemplates::inputGrad);
      if (chunk > 0)
        send(PipelineMessage::ActivationGrad, slot.microBatch, chunk,
             layout.stageOf(chunk - 1));
      else
        edge(edges.embeddingBackward);
      return;
    case PipelinePass::WeightGrad:
      instances(&BlockTemplates::weightGrad);
      return;
    case PipelinePass::Step:
    case PipelinePass::Prefill:
    case PipelinePass::Decode:
      break;
    }
    llvm_unreachable("a training stage order holds no step or inference pass");
  }

  /// The instances of template `pass` of each block kind that run the
  /// blocks of `chunk`, one per segment (blockSegmentsOf), last segment
  /// first when `reversed`.
  void appendBlockInstances(int64_t chunk, std::optional<int64_t> microBatch,
                            std::optional<size_t> BlockTemplates::*pass,
                            bool reversed) {
    // Every pass of every micro-batch runs its chunk's segments: each
    // chunk's are found once (no chunk is empty, so none has no segment).
    if (chunkSegments.empty())
      chunkSegments.resize(static_cast<size_t>(run.layout.chunks()));
    std::vector<BlockSegment> &segments =
        chunkSegments[static_cast<size_t>(chunk)];
    if (segments.empty()) {
      int64_t first = run.layout.firstBlock(chunk);
      segments =
          blockSegmentsOf(model, first, first + run.layout.chunkBlocks[chunk]);
    }
    auto appendSegment = [&](const BlockSegment &segment) {
      RunInstance instance;
      instance.templateIndex =
          *(blockTemplates[static_cast<size_t>(segment.kind)].*pass);
      instance.chunk = chunk;
      instance.microBatch = microBatch;
      instance.hasBlocks = true;
      instance.firstBlock = segment.first;
      instance.endBlock = segment.end;
      append(instance);
    };
    if (reversed)
      llvm::for_each(llvm::reverse(segments), appendSegment);
    else
      llvm::for_each(segments, appendSegment);
  }

  void send(PipelineMessage message, int64_t microBatch, int64_t chunk,
            int64_t peer) {
    append(RunMessage{true, message, microBatch, chunk, peer, sendBytes},
           /*gates=*/false);
  }

  /// Receives the message `chunk` sends, and reassembles it when scattered.
  void receive(PipelineMessage message, int64_t microBatch, int64_t chunk) {
    append(RunMessage{false, message, microBatch, chunk,
                      run.layout.stageOf(chunk), sendBytes});
    if (scattered)
      append(run.works[*messageGathers[static_cast<size_t>(message)]]);
  }

  /// What one rank of `stage` holds for the whole run, into `current`: its
  /// parameters, its buffers and its gradient buckets (what
  /// persistentBytesOf reads), with where each bucket closes.
  void holdPersistentState(int64_t stage) {
    current->bucketElements = bucketElements(
        stageUnits[stage], mapping.gradientReplicas(), current->bucketUnitEnds);
    current->expertBucketElements = bucketElements(
        stageExpertUnits[stage], mapping.expertGradientReplicas(),
        current->expertBucketUnitEnds);
    for (const std::vector<int64_t> *units :
         {&stageUnits[stage], &stageExpertUnits[stage]})
      for (int64_t unit : *units)
        current->parameters =
            guard.add(current->parameters, unit, "stage parameters");
    const PipelineLayout &layout = run.layout;
    for (int64_t virtualIndex = 0; virtualIndex < mapping.virtualStages;
         ++virtualIndex) {
      int64_t chunk = layout.chunkAt(stage, virtualIndex);
      int64_t first = layout.firstBlock(chunk);
      int64_t buffers = bufferElementsOf(
          model, first, first + layout.chunkBlocks[chunk], guard);
      current->bufferElements =
          guard.add(current->bufferElements, buffers, "stage buffer elements");
    }
  }

  /// The once-per-iteration work of a stage (Megatron-LM's
  /// finalize_model_grads, then the optimizer step): the data-parallel
  /// gradient reduction bucket by bucket, the blocks' own step work, and
  /// with a sharded optimizer the step over the rank's shard and the
  /// all-gather of the updated parameters.
  llvm::Error addStep(int64_t stage) {
    int64_t replicas = mapping.gradientReplicas();
    int64_t expertReplicas = mapping.expertGradientReplicas();
    holdPersistentState(stage);
    const std::vector<int64_t> &buckets = current->bucketElements;
    const std::vector<size_t> &unitEnds = current->bucketUnitEnds;
    const std::vector<int64_t> &expertBuckets = current->expertBucketElements;
    int64_t gradientBytes = bytesOf(training.gradientType);
    int64_t weightBytes = bytesOf(training.weightType);
    bool sharded = this->sharded();
    int64_t shardElements = 0;
    // Under overlap_dp_grad_reduce each bucket's reduction is issued when
    // the last micro-batch's backward has produced the bucket, after the
    // previous bucket's (one communication stream), and the step after the
    // reductions waits for the backward and the last of them.
    bool overlapped = mapping.overlapDPGradReduce && replicas > 1;
    std::vector<UnitReady> ready;
    std::vector<UnitReady> expertReady;
    if (overlapped && !current->steps.empty()) {
      llvm::Expected<std::vector<UnitReady>> units =
          unitReadiness(stage, stageUnitBlocks[stage]);
      if (!units)
        return units.takeError();
      ready = std::move(*units);
      llvm::Expected<std::vector<UnitReady>> expertUnits =
          unitReadiness(stage, stageExpertUnitBlocks[stage]);
      if (!expertUnits)
        return expertUnits.takeError();
      expertReady = std::move(*expertUnits);
    }
    // The dense buckets over every data-parallel rank, then at ep > 1 the
    // expert buckets over the expert-data-parallel ranks (Megatron-Core's
    // DDP keeps the expert parameters in buffers of their own,
    // expert_parallel_buffers); an expert shard is the whole bucket at
    // edp = 1, which has no reduction.
    std::vector<BucketReduction> reductions;
    std::vector<BucketReduction> expertReductions;
    if (replicas > 1) {
      shardElements =
          pendingReductions(buckets, unitEnds, ready, replicas,
                            /*experts=*/false, reductions, shardElements);
      shardElements =
          pendingReductions(expertBuckets, current->expertBucketUnitEnds,
                            expertReady, expertReplicas,
                            /*experts=*/true, expertReductions, shardElements);
    }
    // Overlapped, the one stream issues the two kinds' buckets in the order
    // backward completes them (each kind keeps its own order; a dense
    // bucket first on a tie); otherwise the dense buckets, then the expert
    // ones.
    // An explicit merge (review s34/ep3, finding 8): std::merge does not
    // fix which range's element its comparator receives first.
    std::vector<BucketReduction> ordered;
    auto dense = reductions.begin();
    auto expert = expertReductions.begin();
    while (dense != reductions.end() || expert != expertReductions.end()) {
      bool expertFirst =
          expert != expertReductions.end() &&
          (dense == reductions.end() || (expert->ready && dense->ready &&
                                         dense->ready->later(*expert->ready)));
      ordered.push_back(expertFirst ? *expert++ : *dense++);
    }
    std::optional<size_t> previousReduction;
    for (const BucketReduction &pending : ordered) {
      int64_t ranks = pending.experts ? expertReplicas : replicas;
      int64_t message = guard.mul(pending.elements, gradientBytes,
                                  "data-parallel gradient bucket bytes");
      Invocation reduction =
          sharded ? collectiveInvocation(
                        primitive::kDPGradReduceScatter, Phase::WeightGrad,
                        CollectiveKind::ReduceScatter, ranks, message,
                        gradientBytes, "d_params",
                        pending.experts
                            ? "distributed optimizer: each "
                              "expert-data-parallel rank receives the sum of "
                              "its shard of the expert bucket's gradients"
                            : "distributed optimizer: each data-parallel rank "
                              "receives the sum of its shard of the bucket's "
                              "gradients")
                  : collectiveInvocation(
                        primitive::kDPGradAllReduce, Phase::WeightGrad,
                        CollectiveKind::AllReduce, ranks, message,
                        gradientBytes, "d_params",
                        pending.experts
                            ? "expert parallelism: the expert bucket's "
                              "gradients are summed over the "
                              "expert-data-parallel replicas"
                            : "data parallelism: the bucket's gradients are "
                              "summed over the data-parallel replicas");
      RunWork work{std::make_shared<const Invocation>(
                       pending.experts
                           ? overExpertReplicas(std::move(reduction))
                           : overReplicas(std::move(reduction))),
                   Cadence::PerIteration,
                   pending.experts ? kExpertDataParallelAxis.str()
                                   : dataParallelAxis().str(),
                   {},
                   std::nullopt};
      if (!overlapped) {
        append(std::move(work));
        continue;
      }
      RunStep step;
      step.action = std::move(work);
      if (previousReduction)
        step.deps.push_back(*previousReduction);
      if (pending.ready) {
        step.deps.push_back(pending.ready->position);
        const auto &instance = std::get<RunInstance>(
            current->steps[pending.ready->position].action);
        if (pending.ready->blocks < instance.repetitions())
          step.readyBlocks = pending.ready->blocks;
      }
      current->steps.push_back(std::move(step));
      previousReduction = current->steps.size() - 1;
    }
    joining = previousReduction;
    // The tied word embedding's two copies, on the first and the last
    // stage, sum their gradients; an untied output layer is a parameter of
    // its own.
    int64_t lastStage = mapping.pp - 1;
    if (model.tiedEmbeddings && mapping.pp > 1 &&
        (stage == 0 || stage == lastStage)) {
      llvm::Expected<Invocation> sync =
          embeddingGradSync(model, training, mapping);
      if (!sync)
        return sync.takeError();
      // Its facts name the axis its op spans, as the RunWork does.
      sync->collective->axis = kPipelineParallelAxis.str();
      append(RunWork{std::make_shared<const Invocation>(std::move(*sync)),
                     Cadence::PerIteration,
                     std::string(kPipelineParallelAxis),
                     {0, lastStage},
                     std::nullopt});
    }
    // Every block kind has a step or none does: both keep the AdamW step
    // unless the stage steps its shard, and then neither keeps one without
    // sequence parallelism. Stated, not assumed: a kind without a step
    // beside one with a step would leave its layers without instances.
    std::vector<BlockKind> kinds = blockKindsOf(model);
    bool stepped =
        blockTemplates[static_cast<size_t>(kinds.front())].step.has_value();
    for (BlockKind kind : kinds)
      if (blockTemplates[static_cast<size_t>(kind)].step.has_value() != stepped)
        return llvm::createStringError(
            "whole run: the dense and the mixture-of-experts block disagree "
            "on whether the block keeps a step of its own");
    if (stepped)
      for (int64_t virtualIndex = 0; virtualIndex < mapping.virtualStages;
           ++virtualIndex)
        appendBlockInstances(run.layout.chunkAt(stage, virtualIndex),
                             std::nullopt, &BlockTemplates::step,
                             /*reversed=*/false);
    auto edgeStep = [&](std::optional<size_t> templateIndex, int64_t chunk) {
      if (!templateIndex)
        return;
      RunInstance instance;
      instance.templateIndex = *templateIndex;
      instance.chunk = chunk;
      append(instance);
    };
    if (stage == 0)
      edgeStep(edges.firstStageStep, 0);
    if (stage == lastStage && mapping.pp > 1)
      edgeStep(edges.lastStageStep, run.layout.chunks() - 1);
    if (!sharded)
      return llvm::Error::success();
    llvm::Expected<Invocation> step = deriveAdamWStep(
        shardElements, training, primitive::kDPShardedOptimizer,
        mapping.ep > 1
            ? "distributed optimizer: the AdamW step over this rank's 1/dp "
              "shard of the stage's dense gradient buckets and 1/edp shard "
              "of its expert buckets"
        : mapping.cp == 1
            ? "distributed optimizer: the AdamW step over this rank's 1/dp "
              "shard of the stage's gradient buckets"
            : "distributed optimizer: the AdamW step over this rank's "
              "1/(dp x cp) shard of the stage's gradient buckets");
    if (!step)
      return step.takeError();
    append(RunWork{std::make_shared<const Invocation>(std::move(*step)),
                   Cadence::PerIteration,
                   "",
                   {},
                   std::nullopt});
    // Under ZeRO-3 the parameters stay sharded: the passes gather them.
    if (mapping.zeroStage == 3)
      return llvm::Error::success();
    for (int64_t elements : buckets)
      append(RunWork{
          std::make_shared<const Invocation>(overReplicas(collectiveInvocation(
              primitive::kDPParamAllGather, Phase::Optimizer,
              CollectiveKind::AllGather, replicas,
              guard.mul(elements, weightBytes,
                        "data-parallel parameter bucket bytes"),
              weightBytes, "params",
              "distributed optimizer: every data-parallel rank "
              "gathers the updated parameters of the bucket"))),
          Cadence::PerIteration,
          dataParallelAxis().str(),
          {},
          std::nullopt});
    if (expertReplicas > 1)
      for (int64_t elements : expertBuckets)
        append(RunWork{
            std::make_shared<const Invocation>(
                overExpertReplicas(collectiveInvocation(
                    primitive::kDPParamAllGather, Phase::Optimizer,
                    CollectiveKind::AllGather, expertReplicas,
                    guard.mul(elements, weightBytes,
                              "expert parameter bucket bytes"),
                    weightBytes, "params",
                    "distributed optimizer: every expert-data-parallel rank "
                    "gathers the updated expert parameters of the bucket"))),
            Cadence::PerIteration,
            kExpertDataParallelAxis.str(),
            {},
            std::nullopt});
    return llvm::Error::success();
  }

  /// `elements` padded to a multiple of `replicas` (dp * cp, or edp for the
  /// expert buckets), as Megatron-LM pads its gradient and parameter
  /// buffers so every rank's shard is equal.
  int64_t paddedToRanks(int64_t elements, int64_t replicas) {
    int64_t perRank = elements / replicas + (elements % replicas != 0);
    return guard.mul(perRank, replicas, "padded elements");
  }

  /// ZeRO-3 (FSDP): before a forward or backward pass through `chunk` the
  /// rank all-gathers the chunk's parameters from their dp shards, and
  /// frees them after (FSDP's reshard-after-forward default, DeepSpeed's
  /// stage 3 without prefetch caching).
  void gatherParameters(int64_t chunk, bool backward) {
    if (parameterGathers.empty())
      return;
    append(run.works[parameterGathers[static_cast<size_t>(chunk) * 2 +
                                      (backward ? 1 : 0)]]);
  }

  /// The buckets' elements, each padded to a multiple of `replicas` (dp * cp,
  /// or edp for the expert buckets; Megatron-LM pads its gradient buffers
  /// so every rank's shard is equal): units are
  /// added in backward order and a bucket is closed once it holds at least
  /// bucket_bytes (Megatron-LM's DDP bucketing; a unit is never split). No
  /// bucket_bytes is one bucket.
  /// `ends` receives, for each bucket, the number of units it and the
  /// buckets before it hold.
  std::vector<int64_t> bucketElements(llvm::ArrayRef<int64_t> units,
                                      int64_t replicas,
                                      std::vector<size_t> &ends) {
    int64_t gradientBytes = bytesOf(training.gradientType);
    std::vector<int64_t> buckets;
    int64_t open = 0;
    size_t taken = 0;
    auto close = [&] {
      buckets.push_back(paddedToRanks(open, replicas));
      ends.push_back(taken);
      open = 0;
    };
    for (int64_t unit : units) {
      ++taken;
      open = guard.add(open, unit, "gradient bucket elements");
      int64_t bytes = guard.mul(open, gradientBytes, "gradient bucket bytes");
      if (mapping.bucketBytes > 0 && bytes >= mapping.bucketBytes)
        close();
    }
    if (open > 0)
      close();
    return buckets;
  }

  /// Where the last micro-batch's backward has produced a gradient unit:
  /// after the first `blocks` blocks of the instance at `position` (1 for
  /// an edge instance).
  struct UnitReady {
    size_t position = 0;
    int64_t blocks = 0;
    /// Whether this point comes after `other` on the stage.
    bool later(const UnitReady &other) const {
      return std::tie(position, blocks) >
             std::tie(other.position, other.blocks);
    }
  };

  /// For each gradient unit of `stage` (`units`: stageUnitBlocks or
  /// stageExpertUnitBlocks), the point
  /// of the stage's steps where its gradients are complete: the last
  /// instance that writes its weight gradients (the backward, or ZB-H1's
  /// weight-gradient pass), after the blocks that instance runs before it
  /// (a backward instance runs its blocks from the last; Megatron-Core's
  /// per-parameter hooks mark a parameter ready when its gradient is
  /// accumulated, megatron/core/distributed/distributed_data_parallel.py,
  /// `_make_backward_post_hook`).
  llvm::Expected<std::vector<UnitReady>>
  unitReadiness(int64_t stage, llvm::ArrayRef<int64_t> units) {
    std::vector<std::optional<UnitReady>> found(units.size());
    llvm::DenseMap<int64_t, size_t> unitOf;
    for (auto [index, block] : llvm::enumerate(units))
      unitOf[block] = index;
    auto mark = [&](int64_t unitBlock, UnitReady point) {
      auto unit = unitOf.find(unitBlock);
      if (unit != unitOf.end() && !found[unit->second])
        found[unit->second] = point;
    };
    for (size_t position = current->steps.size(); position-- > 0;) {
      const auto *instance =
          std::get_if<RunInstance>(&current->steps[position].action);
      if (!instance || !instance->microBatch)
        continue;
      const RunTemplate &runTemplate = run.templates[instance->templateIndex];
      if (llvm::none_of(runTemplate.work.invocations,
                        [](const Invocation &invocation) {
                          return invocation.phase == Phase::WeightGrad;
                        }))
        continue;
      if (runTemplate.part == ModelPart::Head)
        mark(kHeadUnit, {position, 1});
      else if (runTemplate.part == ModelPart::Embedding)
        mark(kEmbeddingUnit, {position, 1});
      else
        for (int64_t block = instance->firstBlock; block < instance->endBlock;
             ++block)
          mark(block, {position, instance->endBlock - block});
    }
    std::vector<UnitReady> result;
    for (const std::optional<UnitReady> &point : found) {
      if (!point)
        return llvm::createStringError(
            "whole run: stage " + llvm::Twine(stage) +
            " holds a gradient unit that no backward instance produces");
      result.push_back(*point);
    }
    return result;
  }

  /// A gradient bucket's reduction still to issue: its kind, its elements
  /// and, under overlap_dp_grad_reduce, where backward completes it.
  struct BucketReduction {
    bool experts = false;
    int64_t elements = 0;
    std::optional<UnitReady> ready;
  };

  /// Adds `buckets` (closed after `ends` units; `ready`, when not empty,
  /// each unit's readiness) to `reductions` unless `ranks` is 1, and
  /// returns `shardElements` plus a rank's 1/`ranks` shard of them.
  int64_t pendingReductions(llvm::ArrayRef<int64_t> buckets,
                            llvm::ArrayRef<size_t> ends,
                            llvm::ArrayRef<UnitReady> ready, int64_t ranks,
                            bool experts,
                            std::vector<BucketReduction> &reductions,
                            int64_t shardElements) {
    for (auto [index, elements] : llvm::enumerate(buckets)) {
      shardElements = guard.add(shardElements, elements / ranks,
                                "sharded optimizer parameters");
      if (ranks == 1)
        continue;
      BucketReduction pending{experts, elements, std::nullopt};
      if (!ready.empty()) {
        size_t first = index == 0 ? 0 : ends[index - 1];
        UnitReady latest = ready[first];
        for (size_t unit = first + 1; unit < ends[index]; ++unit)
          if (ready[unit].later(latest))
            latest = ready[unit];
        pending.ready = latest;
      }
      reductions.push_back(pending);
    }
    return shardElements;
  }

  /// The unit of the head and of the embeddings in stageUnitBlocks.
  static constexpr int64_t kHeadUnit = -1;
  static constexpr int64_t kEmbeddingUnit = -2;

  const ModelSpec &model;
  const TrainingSpec &training;
  const MappingSpec &mapping;
  /// Where the templates (and on a miss the block works) come from when
  /// given: the same templates, derived once per what they read.
  RunTemplatesMemo *templatesMemo;
  WholeRun &run;
  OverflowGuard guard;
  /// The run's templates while deriveTemplates builds them.
  std::vector<RunTemplate> templates;
  /// The templates of each block kind, indexed by BlockKind.
  std::array<BlockTemplates, 2> blockTemplates;
  EdgeTemplates edges;
  int64_t heldBytes = 0;
  int64_t sendBytes = 0;
  bool scattered = false;
  std::vector<std::vector<int64_t>> stageUnits;
  /// What each unit of stageUnits is: a block's index, kHeadUnit or
  /// kEmbeddingUnit.
  std::vector<std::vector<int64_t>> stageUnitBlocks;
  /// At ep > 1 the routed experts' parameters of each stage's MoE blocks,
  /// in backward order: the expert buckets are cut from this list.
  std::vector<std::vector<int64_t>> stageExpertUnits;
  /// What each unit of stageExpertUnits is: a block's index.
  std::vector<std::vector<int64_t>> stageExpertUnitBlocks;
  std::vector<int64_t> chunkParameters;
  /// Indices into run.works: the gather of each scattered message kind,
  /// and the ZeRO-3 gathers of each chunk (forward, then backward).
  std::array<std::optional<size_t>, 3> messageGathers;
  std::vector<size_t> parameterGathers;
  /// Each chunk's block segments (blockSegmentsOf), once appendBlockInstances
  /// first needs them.
  std::vector<std::vector<BlockSegment>> chunkSegments;
  StageProgram *current = nullptr;
  std::optional<size_t> gate;
  /// The last overlapped gradient reduction, which the next step waits for
  /// besides the gate (overlap_dp_grad_reduce).
  std::optional<size_t> joining;
};

template <typename ActionT>
void RunBuilder::append(ActionT &&action, bool gates) {
  // Built in place: a run has thousands of steps, and moving each into the
  // stage's vector moved its action and dependencies once more; the action
  // is made in the step's variant, not moved there from another variant.
  RunStep &step = current->steps.emplace_back();
  step.action.emplace<std::decay_t<ActionT>>(std::forward<ActionT>(action));
  if (gate)
    step.deps.push_back(*gate);
  if (joining)
    step.deps.push_back(*joining);
  joining.reset();
  if (gates)
    gate = current->steps.size() - 1;
}

/// How much of a training run deriveTrainingRun derives.
enum class RunDepth {
  /// The stages' persistent state (deriveRunPersistentState).
  PersistentState,
  /// The parts (deriveRunParts).
  Parts,
  /// The whole run (deriveWholeRun).
  Whole,
};

} // namespace

/// deriveWholeRun, deriveRunParts or deriveRunPersistentState by `depth`.
static llvm::Expected<WholeRun> deriveTrainingRun(const ModelSpec &model,
                                                  const TrainingSpec &training,
                                                  const MappingSpec &mapping,
                                                  RunTemplatesMemo *templates,
                                                  RunDepth depth) {
  std::optional<TrainingComposition> composition =
      composeTraining(model, training, mapping);
  if (!composition)
    return failure("the model, training and mapping contracts do not compose");
  WholeRun run;
  run.layout = layoutOf(model, mapping);
  run.microbatches = composition->microbatches;
  run.schedule = mapping.schedule;
  RunBuilder builder(model, training, mapping, templates, run);
  if (llvm::Error error = depth == RunDepth::PersistentState
                              ? builder.buildPersistentState()
                              : builder.build(depth == RunDepth::Whole))
    return std::move(error);
  return run;
}

llvm::Expected<int64_t> blueprint::workload::stageExpertParameters(
    const ModelSpec &model, const MappingSpec &mapping, int64_t stage) {
  PipelineLayout layout = layoutOf(model, mapping);
  OverflowGuard guard;
  int64_t total = 0;
  for (int64_t virtualIndex = 0; virtualIndex < mapping.virtualStages;
       ++virtualIndex) {
    int64_t chunk = layout.chunkAt(stage, virtualIndex);
    int64_t first = layout.firstBlock(chunk);
    for (int64_t block = first; block < first + layout.chunkBlocks[chunk];
         ++block) {
      llvm::Expected<int64_t> experts = blockExpertParametersPerRank(
          model, blockKindOf(model, block), mapping);
      if (!experts)
        return experts.takeError();
      total = guard.add(total, *experts, "stage expert parameters");
    }
  }
  if (guard.failed())
    return guard.error("stage expert parameters");
  return total;
}

llvm::Expected<WholeRun> blueprint::workload::deriveWholeRun(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping, RunTemplatesMemo *templates) {
  return deriveTrainingRun(model, training, mapping, templates,
                           RunDepth::Whole);
}

llvm::Expected<WholeRun> blueprint::workload::deriveRunParts(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping, RunTemplatesMemo *templates) {
  return deriveTrainingRun(model, training, mapping, templates,
                           RunDepth::Parts);
}

llvm::Expected<std::vector<StageProgram>>
blueprint::workload::deriveRunPersistentState(const ModelSpec &model,
                                              const TrainingSpec &training,
                                              const MappingSpec &mapping) {
  llvm::Expected<WholeRun> run =
      deriveTrainingRun(model, training, mapping, /*templates=*/nullptr,
                        RunDepth::PersistentState);
  if (!run)
    return run.takeError();
  return std::move(run->stages);
}

llvm::Expected<WholeRun>
blueprint::workload::deriveInferenceRun(const ModelSpec &model,
                                        const InferenceSpec &inference,
                                        const MappingSpec &mapping) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "deriveInferenceRun: " + message);
  };
  std::optional<InferenceComposition> composition =
      composeInference(model, inference, mapping);
  if (!composition)
    return fail("the model, inference and mapping contracts do not compose");
  WholeRun run;
  run.layout = layoutOf(model, mapping);
  run.microbatches = inference.generatedTokens;
  run.schedule = mapping.schedule;
  run.inference = inference;
  run.kvCacheWindow = model.attentionWindow;

  // The templates of each block kind (named as buildBlockTemplates names
  // them): the prefill, then one per decode step; templateOf[kind][step]
  // is the index of step `step`'s.
  int64_t steps = inference.generatedTokens;
  std::vector<BlockKind> kinds = blockKindsOf(model);
  std::array<std::vector<size_t>, 2> templateOf;
  std::vector<RunTemplate> templates;
  for (BlockKind kind : kinds) {
    std::string prefix = blockTemplatePrefix(model, kind);
    ModelSpec block = blockModelOf(model, kind);
    std::vector<size_t> &indices = templateOf[static_cast<size_t>(kind)];
    llvm::Expected<BlockWork> prefill =
        deriveInferencePrefill(block, inference, mapping);
    if (!prefill)
      return prefill.takeError();
    indices.push_back(templates.size());
    templates.push_back(RunTemplate{prefix + "block_prefill", ModelPart::Block,
                                    PipelinePass::Prefill, std::nullopt,
                                    std::move(*prefill)});
    for (int64_t step = 1; step < steps; ++step) {
      int64_t context = inference.promptLength + step;
      llvm::Expected<BlockWork> decode =
          deriveInferenceDecodeStep(block, inference, mapping, context);
      if (!decode)
        return decode.takeError();
      indices.push_back(templates.size());
      templates.push_back(RunTemplate{
          prefix + "block_decode_" + std::to_string(context), ModelPart::Block,
          PipelinePass::Decode, context, std::move(*decode)});
    }
  }
  run.templates = RunTemplateList(std::move(templates));

  // What each rank sends: the block output it holds for the step (the
  // whole prompt in the prefill, one position per sequence in a decode
  // step), and the sampled token ids of its sequences.
  OverflowGuard guard;
  int64_t sequences = composition->localBatch;
  int64_t elementBytes = bytesOf(inference.activationType);
  int64_t prefillBytes = guard.product(
      {sequences, inference.promptLength, model.hidden, elementBytes},
      "prefill activation bytes");
  int64_t decodeBytes = guard.product({sequences, model.hidden, elementBytes},
                                      "decode activation bytes");
  int64_t tokenBytes = guard.mul(sequences, kTokenIdBytes, "token bytes");
  // The weights each rank of a stage holds: its blocks' share, and on the
  // first and last stage the edges' (held though an inference run states
  // no edge work: docs/Memory.md).
  std::array<int64_t, 2> blockParameters{};
  for (BlockKind kind : kinds) {
    llvm::Expected<int64_t> parameters =
        blockParametersPerRank(model, kind, mapping);
    if (!parameters)
      return parameters.takeError();
    blockParameters[static_cast<size_t>(kind)] = *parameters;
  }
  llvm::Expected<EdgeParameters> edge = edgeParametersPerRank(model, mapping);
  if (!edge)
    return edge.takeError();
  if (guard.failed())
    return guard.error("deriveInferenceRun");

  const PipelineLayout &layout = run.layout;
  int64_t last = mapping.pp - 1;
  for (int64_t stage = 0; stage < mapping.pp; ++stage) {
    StageProgram program;
    program.stage = stage;
    int64_t chunk = layout.chunkAt(stage, 0);
    int64_t firstBlock = layout.firstBlock(chunk);
    int64_t endBlock = firstBlock + layout.chunkBlocks[chunk];
    program.parameters = sumOverBlocks(model, blockParameters, firstBlock,
                                       endBlock, guard, "stage parameters");
    program.bufferElements =
        bufferElementsOf(model, firstBlock, endBlock, guard);
    if (stage == 0)
      program.parameters = guard.add(program.parameters, edge->firstStageTotal,
                                     "stage parameters");
    if (stage == last)
      program.parameters = guard.add(program.parameters, edge->lastStageTotal,
                                     "stage parameters");
    std::optional<size_t> gate;
    // Every step but a send gates what follows (sends are asynchronous).
    auto append = [&](RunStep::Action action, bool gates) {
      RunStep runStep;
      runStep.action = std::move(action);
      if (gate)
        runStep.deps.push_back(*gate);
      program.steps.push_back(std::move(runStep));
      if (gates)
        gate = program.steps.size() - 1;
    };
    std::vector<BlockSegment> segments =
        blockSegmentsOf(model, firstBlock, endBlock);
    for (int64_t step = 0; step < steps; ++step) {
      int64_t bytes = step == 0 ? prefillBytes : decodeBytes;
      // A decode step starts from the token the previous step sampled on
      // the last stage; any other stage from the block output of the one
      // before it.
      if (chunk > 0)
        append(RunMessage{false, PipelineMessage::Activation, step, chunk - 1,
                          layout.stageOf(chunk - 1), bytes},
               true);
      else if (step > 0 && last > 0)
        append(RunMessage{false, PipelineMessage::Token, step - 1, last,
                          layout.stageOf(last), tokenBytes},
               true);
      // One instance per segment of one block kind, in block order.
      for (const BlockSegment &segment : segments) {
        RunInstance instance;
        instance.templateIndex =
            templateOf[static_cast<size_t>(segment.kind)][step];
        instance.chunk = chunk;
        instance.microBatch = step;
        instance.hasBlocks = true;
        instance.firstBlock = segment.first;
        instance.endBlock = segment.end;
        append(instance, true);
      }
      if (chunk < last)
        append(RunMessage{true, PipelineMessage::Activation, step, chunk,
                          layout.stageOf(chunk + 1), bytes},
               false);
      else if (last > 0 && step + 1 < steps)
        append(RunMessage{true, PipelineMessage::Token, step, chunk,
                          layout.stageOf(0), tokenBytes},
               false);
    }
    run.stages.push_back(std::move(program));
  }
  if (guard.failed())
    return guard.error("deriveInferenceRun");
  return run;
}

llvm::Expected<std::vector<TemplateTotals>>
blueprint::workload::templateTotalsOf(llvm::ArrayRef<RunTemplate> templates) {
  std::vector<TemplateTotals> result;
  for (const RunTemplate &runTemplate : templates) {
    llvm::Expected<WorkSummary> summary = summarize(runTemplate.work);
    if (!summary)
      return summary.takeError();
    llvm::Expected<int64_t> written = kvCacheWriteBytesOf(runTemplate.work);
    if (!written)
      return written.takeError();
    result.push_back({*summary, *written});
  }
  return result;
}

llvm::Expected<StageTotals> blueprint::workload::stageTotalsOf(
    int64_t stage, llvm::ArrayRef<TemplateTotals> templates,
    const StageUsage &usage,
    llvm::function_ref<const Invocation &(size_t)> work) {
  StageTotals totals;
  totals.stage = stage;
  OverflowGuard guard;
  std::string what = "stage " + std::to_string(stage);
  for (const StageUsage::Messages &messages : usage.messages) {
    int64_t &count =
        messages.send ? totals.messagesSent : totals.messagesReceived;
    int64_t &bytes = messages.send ? totals.bytesSent : totals.bytesReceived;
    count = guard.add(count, messages.count, llvm::Twine(what) + " messages");
    bytes = guard.add(bytes,
                      guard.mul(messages.bytes, messages.count,
                                llvm::Twine(what) + " message bytes"),
                      llvm::Twine(what) + " message bytes");
  }
  for (const StageUsage::Work &stageWork : usage.works) {
    llvm::Expected<InvocationFigures> figures =
        figuresOf(work(stageWork.position));
    if (!figures)
      return figures.takeError();
    int64_t repetitions = stageWork.repetitions;
    if (repetitions == 1) {
      if (llvm::Error error = totals.work.add(*figures))
        return std::move(error);
      continue;
    }
    // Integer sums: a work run n times adds n times its figures.
    WorkSummary once(totals.work.cadence());
    if (llvm::Error error = once.add(*figures))
      return std::move(error);
    if (llvm::Error error = totals.work.addScaled(once, repetitions, what))
      return std::move(error);
  }
  // Integer sums do not depend on their order: each template's work is
  // added once, times the repetitions of all its instances.
  for (auto [index, count] : llvm::enumerate(usage.repetitions)) {
    if (count == 0)
      continue;
    for (WorkSummary *summary : {&totals.work, &totals.instanceWork})
      if (llvm::Error error =
              summary->addScaled(templates[index].work, count, what))
        return std::move(error);
    int64_t written = guard.mul(templates[index].kvCacheWrites, count,
                                llvm::Twine(what) + " KV-cache bytes");
    totals.kvCacheWriteBytes = guard.add(totals.kvCacheWriteBytes, written,
                                         llvm::Twine(what) + " KV-cache bytes");
  }
  if (guard.failed())
    return guard.error("summarizeWholeRun");
  return totals;
}

bool blueprint::workload::writesWeightGradients(
    const RunTemplate &runTemplate) {
  return runTemplate.pass != PipelinePass::Step &&
         llvm::any_of(runTemplate.work.invocations,
                      [](const Invocation &invocation) {
                        return invocation.phase == Phase::WeightGrad;
                      });
}

const RunInstance *
blueprint::workload::readyInstanceOf(const StageProgram &program,
                                     const RunStep &step) {
  return step.deps.empty() ? nullptr
                           : std::get_if<RunInstance>(
                                 &program.steps[step.deps.back()].action);
}

llvm::Expected<StageUsage>
blueprint::workload::stageUsageOf(const StageProgram &program,
                                  size_t templates) {
  StageUsage usage;
  usage.repetitions.assign(templates, 0);
  // Where each shared work is in usage.works.
  constexpr size_t kNoWork = ~size_t(0);
  std::vector<size_t> sharedAt;
  OverflowGuard guard;
  std::string what = "stage " + std::to_string(program.stage);
  for (auto [position, step] : llvm::enumerate(program.steps)) {
    if (const auto *instance = std::get_if<RunInstance>(&step.action)) {
      int64_t &count = usage.repetitions[instance->templateIndex];
      count = guard.add(count, instance->repetitions(),
                        llvm::Twine(what) + " instance repetitions");
    } else if (const auto *message = std::get_if<RunMessage>(&step.action)) {
      auto same = llvm::find_if(usage.messages, [&](const auto &messages) {
        return messages.send == message->send &&
               messages.bytes == message->bytes;
      });
      if (same == usage.messages.end())
        usage.messages.push_back({message->send, message->bytes, 1});
      else
        ++same->count;
    } else {
      // A shared work is counted at its first position.
      const std::optional<size_t> &shared =
          std::get<RunWork>(step.action).shared;
      if (shared) {
        if (sharedAt.size() <= *shared)
          sharedAt.resize(*shared + 1, kNoWork);
        if (sharedAt[*shared] != kNoWork) {
          ++usage.works[sharedAt[*shared]].repetitions;
          continue;
        }
        sharedAt[*shared] = usage.works.size();
      }
      usage.works.push_back({position, 1});
    }
  }
  if (guard.failed())
    return guard.error("summarizeWholeRun");
  return usage;
}

llvm::Expected<std::vector<StageTotals>>
blueprint::workload::summarizeWholeRun(const WholeRun &run) {
  llvm::Expected<std::vector<TemplateTotals>> templates =
      templateTotalsOf(run.templates);
  if (!templates)
    return templates.takeError();
  std::vector<StageTotals> result;
  for (const StageProgram &program : run.stages) {
    llvm::Expected<StageUsage> usage =
        stageUsageOf(program, run.templates.size());
    if (!usage)
      return usage.takeError();
    llvm::Expected<StageTotals> totals = stageTotalsOf(
        program.stage, *templates, *usage,
        [&](size_t position) -> const Invocation & {
          return *std::get<RunWork>(program.steps[position].action).invocation;
        });
    if (!totals)
      return totals.takeError();
    result.push_back(std::move(*totals));
  }
  return result;
}
