//===- WholeRun.h - The work of one whole training iteration ----*- C++ -*-===//
//
// One training iteration of every pipeline stage, micro-batch and model
// chunk, in the compact form the whole-run `dist.program` materialises
// (docs/WholeRun.md): each piece of work once, as a template (a block's
// forward, backward, ... or its once-per-iteration step), and for each stage
// the sequence of what its ranks run: template instances for a micro-batch
// and a range of blocks, pipeline sends and receives, and stage-level work
// (data-parallel gradient reductions, the sharded optimizer step). TP and DP
// ranks are not cloned: every rank of a stage runs its stage's sequence on
// its own shard. The pass and a search read the same derivation, and the
// totals of a run are computed here once, for both.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_WHOLERUN_H
#define BLUEPRINT_WORKLOAD_WHOLERUN_H

#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Pipeline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace blueprint::workload {

/// The work of one model part in one pass (or the once-per-iteration step),
/// on one rank, for one block (a block template) or once (an edge).
struct RunTemplate {
  /// Symbol of the template in the IR, e.g. "block_forward".
  std::string name;
  ModelPart part = ModelPart::Block;
  PipelinePass pass = PipelinePass::Forward;
  /// The context length L of a decode template (pass decode), none for
  /// any other.
  std::optional<int64_t> context;
  BlockWork work;
};

/// A stage runs template `templateIndex` for one micro-batch (none for a
/// step) of model chunk `chunk`, once per block of [firstBlock, endBlock)
/// (a block template) or once (an edge template: firstBlock = endBlock = 0).
struct RunInstance {
  size_t templateIndex = 0;
  int64_t chunk = 0;
  std::optional<int64_t> microBatch;
  bool hasBlocks = false;
  int64_t firstBlock = 0;
  int64_t endBlock = 0;

  int64_t repetitions() const { return hasBlocks ? endBlock - firstBlock : 1; }
};

/// A pipeline send or receive (docs/WholeRun.md): the message is named by
/// what it carries, its micro-batch and the model chunk that sends it.
struct RunMessage {
  bool send = true;
  PipelineMessage message = PipelineMessage::Activation;
  int64_t microBatch = 0;
  int64_t chunk = 0;
  /// The stage it goes to (a send) or comes from (a receive).
  int64_t peer = 0;
  /// Bytes each rank of the sending stage sends to its counterpart.
  int64_t bytes = 0;
};

/// Work a stage runs itself, once per iteration or for one micro-batch: a
/// collective over one mesh axis (optionally a group of its positions), or
/// a stage-level task.
struct RunWork {
  /// Immutable and shared, not copied: every step that runs a shared work
  /// holds the invocation of WholeRun::works[*shared] (thousands of steps
  /// in a run of many micro-batches; a copy would allocate its strings and
  /// access lists each time).
  std::shared_ptr<const Invocation> invocation;
  Cadence cadence = Cadence::PerIteration;
  /// The mesh axis a collective runs over.
  std::string axis;
  /// For a collective over some positions of `axis` only.
  std::vector<int64_t> group;
  /// For per-micro-batch work (a scattered message's gather, a ZeRO-3
  /// parameter gather): its index in WholeRun::works, the one copy every
  /// step that runs it repeats.
  std::optional<size_t> shared;
};

/// One step of a stage's sequence and the earlier steps of the same stage
/// it depends on (a send gates nothing: sends are asynchronous).
struct RunStep {
  using Action = std::variant<RunInstance, RunMessage, RunWork>;
  Action action;
  llvm::SmallVector<size_t, 2> deps;
  /// Under overlap_dp_grad_reduce, a gradient bucket's reduction that is
  /// ready inside a block instance: it waits for the first `readyBlocks`
  /// blocks of the instance deps.back() (fewer than its repetitions), not
  /// for all of it (docs/WholeRun.md, "Dependencies").
  std::optional<int64_t> readyBlocks;
};

struct StageProgram {
  int64_t stage = 0;
  std::vector<RunStep> steps;
  /// Parameters one rank of the stage holds (its blocks' and edges' share,
  /// unpadded): what its weights, and without sharding its gradients and
  /// optimizer state, hold.
  int64_t parameters = 0;
  /// Buffers one rank of the stage holds beside its parameters, at the
  /// weight datatype (bufferElementsOf: the score-correction biases of its
  /// MoE blocks): part of its weights, never of gradients, optimizer state or
  /// a ZeRO shard.
  int64_t bufferElements = 0;
  /// The stage's gradient buckets in reduction order, in elements, each
  /// padded to a multiple of dp * cp (training only;
  /// MappingSpec::gradientReplicas): the gradient buffer is their sum, a
  /// rank's shard their sum / (dp * cp). At ep > 1 the dense parameters'
  /// buckets only.
  std::vector<int64_t> bucketElements;
  /// For each bucket, the number of the stage's gradient units (the head,
  /// each block, the embeddings, in the order backward produces them) it
  /// and the buckets before it hold: where each bucket closes.
  std::vector<size_t> bucketUnitEnds;
  /// At ep > 1 the buckets of the routed experts' gradients, cut from the
  /// stage's MoE blocks by the same bucket_bytes rule, each padded to a
  /// multiple of edp (MappingSpec::expertGradientReplicas): reduced over
  /// the edp ranks, a rank's shard their sum / edp. Empty at ep = 1.
  std::vector<int64_t> expertBucketElements;
  /// For each expert bucket, the number of the stage's expert units it and
  /// the expert buckets before it hold (bucketUnitEnds' for the experts).
  std::vector<size_t> expertBucketUnitEnds;
};

/// Whether an instance of `runTemplate` writes weight gradients: a pass
/// other than the optimizer step with a weight-gradient invocation (a
/// block's backward or weight_grad, an edge's backward). The first such
/// instance of a stage opens its gradient buckets (deriveBuffers).
bool writesWeightGradients(const RunTemplate &runTemplate);

/// The block instance `step` of `program` is ready inside (RunStep::
/// readyBlocks, which the caller has checked is set): its last dependency's
/// instance, or null when that dependency is no instance or there is none.
/// The plain graph and the search's skeleton both time readiness from it.
const RunInstance *readyInstanceOf(const StageProgram &program,
                                   const RunStep &step);

/// A run's templates, in the order RunInstance::templateIndex numbers them:
/// a list built whole, then never changed. Runs whose contracts derive the
/// same templates share one list (RunTemplatesMemo): copying a run copies a
/// pointer, not the templates' invocations, and a search's caches know a
/// shared list without comparing it (sameListAs).
class RunTemplateList {
public:
  RunTemplateList() = default;
  explicit RunTemplateList(std::vector<RunTemplate> templates)
      : list(std::make_shared<const std::vector<RunTemplate>>(
            std::move(templates))) {}

  size_t size() const { return list ? list->size() : 0; }
  bool empty() const { return size() == 0; }
  const RunTemplate *data() const { return list ? list->data() : nullptr; }
  const RunTemplate *begin() const { return data(); }
  const RunTemplate *end() const { return data() + size(); }
  const RunTemplate &operator[](size_t index) const {
    assert(index < size() && "a template of the list");
    return (*list)[index];
  }
  operator llvm::ArrayRef<RunTemplate>() const { return {data(), size()}; }

  /// Whether this and `other` are one list, so equal without a comparison.
  bool sameListAs(const RunTemplateList &other) const {
    return list == other.list;
  }

private:
  std::shared_ptr<const std::vector<RunTemplate>> list;
};

struct WholeRun {
  PipelineLayout layout;
  /// Micro-batches of a training iteration; for an inference run, the
  /// generation's steps (the prefill, step 0, and the decode steps 1 ..
  /// generated_tokens - 1), which its "micro_batch" numbers.
  int64_t microbatches = 0;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  /// The inference contract of an inference run (deriveInferenceRun).
  std::optional<InferenceSpec> inference;
  /// Positions the KV cache of an inference run holds at most: the model's
  /// sliding window (a rolling buffer), none without one.
  std::optional<int64_t> kvCacheWindow;
  RunTemplateList templates;
  /// The per-micro-batch stage work, each distinct piece once (a
  /// scattered message's gather per message kind, a ZeRO-3 gather per
  /// chunk and pass), in the order RunWork::shared numbers it.
  std::vector<RunWork> works;
  /// What every pipeline message of a training run carries per rank.
  int64_t messageBytes = 0;
  std::vector<StageProgram> stages;
};

/// The templates of the training runs of one model, each list derived once
/// per what it reads, with the block works they are cut from (a
/// BlockWorkMemo): a search derives thousands of runs, most of whose
/// templates an earlier run derived (docs/Sweep.md, "Templates shared
/// across runs"). A run's templates read of its contracts what its block
/// works read (BlockWorkMemo) and, of the rest of the mapping, only whether
/// the schedule is ZB-H1 (which splits the backward into two passes),
/// whether pp = 1 (one stage holds both edges, their one step and the
/// output layer's tied table) and whether the optimizer step is sharded
/// (zero_stage >= 1 over more than one gradient replica, when the stage
/// steps its shard itself); not the global batch, pp beyond that, dp, the
/// world, the virtual stages, the layout, the ZeRO stage beyond that, the
/// buckets or the overlaps. A hit hands out the earlier run's list itself
/// (RunTemplateList). When full and asked for another, or for another
/// model, it forgets its lists (a ModelMemo); a list handed out stays valid
/// while a run holds it. Safe to share between threads.
class RunTemplatesMemo {
public:
  /// How many template lists it keeps at most.
  static constexpr size_t kEntries = 256;

  RunTemplatesMemo();
  ~RunTemplatesMemo();

  /// How many runs took their templates from an earlier run's.
  size_t shared() const;

  /// Defined where the templates are derived (WholeRun.cpp).
  struct Entries;
  Entries &entries() { return *impl; }

private:
  std::unique_ptr<Entries> impl;
};

/// The whole training iteration of a composing run. Fails if the contracts
/// do not compose or a count overflows. With `templates`, its templates
/// come from there (the same templates).
llvm::Expected<WholeRun> deriveWholeRun(const ModelSpec &model,
                                        const TrainingSpec &training,
                                        const MappingSpec &mapping,
                                        RunTemplatesMemo *templates = nullptr);

/// The routed experts' parameters one rank of pipeline stage `stage` holds
/// at ep > 1: blockExpertParametersPerRank summed over the stage's MoE
/// blocks (the units of its expert buckets); 0 at ep = 1 or without
/// experts. Fails on a broken rule or an overflow.
llvm::Expected<int64_t> stageExpertParameters(const ModelSpec &model,
                                              const MappingSpec &mapping,
                                              int64_t stage);

/// The parts of the whole training iteration that do not depend on the
/// micro-batch count: its templates, its shared works, its message bytes,
/// and for each stage its parameters, buckets and once-per-iteration tail
/// (StageProgram::steps holds the tail alone, which deriveWholeRun appends
/// after the stage's micro-batch steps). Every value of a whole run is in
/// its parts: a search pairs them with the steps of another run of the
/// same shape (docs/Sweep.md, "Speed, threads, memory"). With
/// `templates`, as deriveWholeRun.
llvm::Expected<WholeRun> deriveRunParts(const ModelSpec &model,
                                        const TrainingSpec &training,
                                        const MappingSpec &mapping,
                                        RunTemplatesMemo *templates = nullptr);

/// The stages of the whole training iteration, each with only what one
/// rank of it holds for the whole run: its parameters, buffers and gradient
/// buckets (StageProgram::parameters, bufferElements, bucketElements,
/// bucketUnitEnds, expertBucketElements; no steps), derived by the code
/// deriveRunParts runs for them, after the same check (so it fails as
/// deriveWholeRun does, with its message, where the contracts do not
/// compose). It is what persistentBytesOf reads: a search rules out a run
/// whose persistent state alone exceeds the memory before deriving the
/// rest (docs/Sweep.md, "Runs ruled out by their persistent state").
llvm::Expected<std::vector<StageProgram>>
deriveRunPersistentState(const ModelSpec &model, const TrainingSpec &training,
                         const MappingSpec &mapping);

/// The whole generation of an inference run (docs/WholeRun.md, "Inference
/// runs"): the templates `block_prefill` and one `block_decode_<L>` per
/// decode step, and on each stage the prefill (step 0) then every decode
/// step t at context prompt_length + t, with the block outputs sent down the
/// pipeline and, at pp > 1, the sampled token ids of steps 0 ..
/// generated_tokens - 2 sent back from the last stage to the first. Fails if
/// the contracts do not compose or a count overflows.
llvm::Expected<WholeRun> deriveInferenceRun(const ModelSpec &model,
                                            const InferenceSpec &inference,
                                            const MappingSpec &mapping);

/// The all-reduce of the tied word-embedding gradient between the first and
/// the last pipeline stage (Megatron-LM `_allreduce_embedding_grads`): the
/// V/t x h gradient one TP rank holds, over 2 ranks. Fails on overflow.
llvm::Expected<Invocation> embeddingGradSync(const ModelSpec &model,
                                             const TrainingSpec &training,
                                             const MappingSpec &mapping);

/// What the rules of a whole-run program or plan need of its contracts.
struct RunShape {
  /// Micro-batches of a training iteration; steps of a generation (the
  /// prefill and the decode steps) for an inference run.
  int64_t microbatches = 0;
  PipelineLayout layout;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  /// The prompt length of an inference run; none for training.
  std::optional<int64_t> promptLength;
  /// The model, whose contract gives each block its kind (BlockKinds.h).
  ModelSpec model;

  bool inference() const { return promptLength.has_value(); }
  /// "a micro-batch of the iteration (0..m-1)" or "a step of the
  /// generation (0..G-1)".
  std::string rangeText() const;
};

/// The shape of a run whose contracts are `model`, `mapping` and exactly
/// one of `training` and `inference`, if they compose: an inference run's
/// micro-batches are its generation steps, one chunk of blocks / pp blocks
/// per stage.
std::optional<RunShape>
runShapeOf(const ModelSpec &model, const MappingSpec &mapping,
           const std::optional<TrainingSpec> &training,
           const std::optional<InferenceSpec> &inference);

/// "<what> of micro-batch M leaving model chunk C": how the rules name a
/// pipeline message.
std::string describeMessage(PipelineMessage message, int64_t microBatch,
                            int64_t chunk);

/// True when a pipeline message is scattered over the TP ranks and
/// all-gathered by the receiver (MLM2021 Sec. 4.1): the block output is
/// TP-replicated (no sequence parallelism), tp > 1 and pp > 1.
bool scattersPipelineMessages(const MappingSpec &mapping);

/// The receiver's all-gather that reassembles a scattered pipeline message
/// of `messageBytes` (the whole block output one rank holds) over the TP
/// ranks.
Invocation pipelineGather(const TrainingSpec &training,
                          const MappingSpec &mapping, int64_t messageBytes,
                          PipelineMessage message);

/// The totals of one rank of one stage over the iteration.
struct StageTotals {
  int64_t stage = 0;
  /// Every instance's template work times its repetitions, and the stage's
  /// own work, by phase and engine.
  WorkSummary work{Cadence::PerIteration};
  /// The instances' part of `work` alone (what --verify-conservation
  /// re-derives from blocks x micro-batches x the per-block work).
  WorkSummary instanceWork{Cadence::PerIteration};
  int64_t messagesSent = 0;
  int64_t bytesSent = 0;
  int64_t messagesReceived = 0;
  int64_t bytesReceived = 0;
  /// The write bytes of the instances' `kv_cache_write` work (0 in
  /// training). In an inference run with full attention this is the stage's
  /// KV cache per rank at the end of the generation; under a sliding window
  /// the cache is a rolling buffer and later positions overwrite earlier
  /// ones, so it is more.
  int64_t kvCacheWriteBytes = 0;
};

/// The totals of every stage of `run`; an overflow names the stage.
llvm::Expected<std::vector<StageTotals>> summarizeWholeRun(const WholeRun &run);

/// A template's work summed, and what it writes to the KV cache.
struct TemplateTotals {
  WorkSummary work{Cadence::PerIteration};
  int64_t kvCacheWrites = 0;
};

/// TemplateTotals of each template, in order.
llvm::Expected<std::vector<TemplateTotals>>
templateTotalsOf(llvm::ArrayRef<RunTemplate> templates);

/// What a stage runs, counted: what summarizeWholeRun needs of its steps.
struct StageUsage {
  /// The repetitions of each template's instances.
  std::vector<int64_t> repetitions;
  /// The messages the stage sends or receives, by size.
  struct Messages {
    bool send = true;
    int64_t bytes = 0;
    int64_t count = 0;
  };
  std::vector<Messages> messages;
  /// A stage-level work: each shared work (one of WholeRun::works) is listed
  /// at its first position only, with the number of steps that run it (a
  /// shared work repeats per micro-batch; any other runs once).
  struct Work {
    size_t position = 0;
    int64_t repetitions = 1;
  };
  std::vector<Work> works;
};

/// The usage of `program`, whose run has `templates` templates.
llvm::Expected<StageUsage> stageUsageOf(const StageProgram &program,
                                        size_t templates);

/// The totals of stage `stage` from its usage, its run's templates, and
/// `work`, the invocation of the work at a position of usage.works.
llvm::Expected<StageTotals>
stageTotalsOf(int64_t stage, llvm::ArrayRef<TemplateTotals> templates,
              const StageUsage &usage,
              llvm::function_ref<const Invocation &(size_t)> work);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_WHOLERUN_H
