//===- Lifetimes.cpp - Buffers of a whole run and their lifetimes ---------===//
//
// docs/Memory.md states the buffers, their producers, consumers and
// lifetimes, and the sweep.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Lifetimes.h"

#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <tuple>

using namespace blueprint;
using namespace blueprint::workload;

BufferKind blueprint::workload::kindOf(BufferCause cause) {
  switch (cause) {
  case BufferCause::Weights:
  case BufferCause::Gradients:
  case BufferCause::OptimizerState:
    return BufferKind::Persistent;
  case BufferCause::BlockActivations:
  case BufferCause::EdgeActivations:
  case BufferCause::WeightGradInputs:
  case BufferCause::KVCache:
    return BufferKind::Stash;
  case BufferCause::WorkingSet:
    return BufferKind::Temporary;
  case BufferCause::PipelineSend:
  case BufferCause::PipelineReceive:
  case BufferCause::GatheredMessage:
  case BufferCause::GradientBucket:
  case BufferCause::GatheredParameters:
    return BufferKind::Communication;
  }
  llvm_unreachable("every buffer cause has a kind");
}

llvm::Expected<int64_t>
blueprint::workload::workingSetBytes(const BlockWork &work,
                                     llvm::ArrayRef<std::string> kept) {
  llvm::StringSet<> keptNames;
  for (const std::string &name : kept)
    keptNames.insert(name);
  // The tensors the pass produces: first touched by a write of an
  // invocation that does not also read them.
  struct Transient {
    size_t birth = 0;
    size_t last = 0;
    bool readAfterBirth = false;
    int64_t bytes = 0;
  };
  llvm::StringMap<Transient> transients;
  llvm::StringSet<> inputs;
  size_t count = work.invocations.size();
  for (auto [index, invocation] : llvm::enumerate(work.invocations)) {
    for (const TensorAccess &read : invocation.reads) {
      auto it = transients.find(read.tensor);
      if (it != transients.end()) {
        it->second.last = index;
        it->second.readAfterBirth |= index > it->second.birth;
        it->second.bytes = std::max(it->second.bytes, read.bytes);
      } else {
        inputs.insert(read.tensor);
      }
    }
    for (const TensorAccess &write : invocation.writes) {
      if (inputs.contains(write.tensor) || keptNames.contains(write.tensor))
        continue;
      auto [it, inserted] = transients.try_emplace(write.tensor);
      if (inserted)
        it->second.birth = index;
      it->second.last = index;
      it->second.bytes = std::max(it->second.bytes, write.bytes);
    }
  }
  // Live bytes at each invocation: +bytes at birth, -bytes after the end.
  std::vector<int64_t> delta(count + 1, 0);
  OverflowGuard guard;
  for (const auto &entry : transients) {
    const Transient &tensor = entry.second;
    // Never read again by the pass: its output, held to the pass's end.
    size_t end = tensor.readAfterBirth ? tensor.last : count - 1;
    delta[tensor.birth] =
        guard.add(delta[tensor.birth], tensor.bytes, "working-set bytes");
    delta[end + 1] =
        guard.sub(delta[end + 1], tensor.bytes, "working-set bytes");
  }
  int64_t live = 0;
  int64_t peak = 0;
  for (size_t index = 0; index < count; ++index) {
    live = guard.add(live, delta[index], "working-set bytes");
    peak = std::max(peak, live);
  }
  if (guard.failed())
    return guard.error("workingSetBytes");
  return peak;
}

namespace {

/// What a block or edge instance is, to find the instance of a later pass
/// of the same micro-batch and chunk.
/// An instance by part, pass, micro-batch, chunk and first block: the
/// chunk of a model that mixes block kinds runs one instance per segment of
/// one kind (docs/WholeRun.md, "Block kinds").
using InstanceKey =
    std::tuple<ModelPart, PipelinePass, int64_t, int64_t, int64_t>;

/// DenseMapInfo<InstanceKey> with a cheaper hash than the tuple's (a
/// hash_combine of every field): a stage indexes thousands of instances.
/// Equality still compares every field.
struct InstanceKeyInfo : llvm::DenseMapInfo<InstanceKey> {
  static unsigned getHashValue(const InstanceKey &key) {
    const auto &[part, pass, microBatch, chunk, firstBlock] = key;
    constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;
    uint64_t hash = static_cast<uint64_t>(microBatch);
    hash = hash * kMultiplier + static_cast<uint64_t>(chunk);
    hash = hash * kMultiplier + static_cast<uint64_t>(firstBlock);
    hash = hash * kMultiplier +
           (static_cast<uint64_t>(part) << 8 | static_cast<uint64_t>(pass));
    return static_cast<unsigned>(hash ^ (hash >> 32));
  }
};

/// The buffers of one stage, built step by step: sized and named
/// (buildBuffers), or a shape's, with only their sources and lifetimes
/// (buildLifetimes).
class StageBufferBuilder {
public:
  StageBufferBuilder(const WholeRun &run, const StageProgram &program)
      : run(run), program(program) {}

  /// Sizes the buffers with `templateBytes` and `persistent`; overflows
  /// are recorded in `guard`.
  StageBuffers buildBuffers(llvm::ArrayRef<TemplateBytes> templateBytes,
                            PersistentBytes persistent, OverflowGuard &guard) {
    values.templates = templateBytes;
    values.persistent = persistent;
    values.messageBytesAt = messageBytesAt;
    values.workAt = workAt;
    sizingGuard = &guard;
    return walkInto(buffers);
  }

  StageLifetimes buildLifetimes() { return walkInto(lifetimes); }

private:
  const RunTemplate &templateOf(const RunInstance &instance) const {
    return run.templates[instance.templateIndex];
  }

  /// An instance has at most three buffers, a message one (most steps are
  /// instances and messages, about as many of each), plus the persistent
  /// state.
  size_t expectedBuffers() const { return 2 * program.steps.size() + 3; }

  /// The stage's buffers, added through `sink` (buffers or lifetimes).
  template <typename StageResult> StageResult walkInto(StageResult *&sink) {
    StageResult result;
    result.stage = program.stage;
    result.positions = program.steps.size();
    result.buffers.reserve(expectedBuffers());
    sink = &result;
    walk();
    sink = nullptr;
    return result;
  }

  /// Adds the persistent state's buffers, then each step's.
  void walk() {
    // About one step in six is an instance of a later pass (a slot is a
    // receive, an instance and a send, and half the slots are forwards).
    instances.reserve(program.steps.size() / 4);
    indexInstances();
    addPersistent();
    for (size_t position = 0; position < program.steps.size(); ++position) {
      const RunStep &step = program.steps[position];
      if (const auto *instance = std::get_if<RunInstance>(&step.action))
        addInstanceBuffers(position, *instance);
      else if (const auto *message = std::get_if<RunMessage>(&step.action))
        addMessageBuffers(position, *message);
      else
        addWorkBuffers(position, std::get<RunWork>(step.action));
    }
  }

  void indexInstances() {
    // Whether each template writes gradients, once per template: a stage
    // runs thousands of instances of a few templates.
    std::vector<bool> writesGradients;
    writesGradients.reserve(run.templates.size());
    for (const RunTemplate &runTemplate : run.templates)
      writesGradients.push_back(writesWeightGradients(runTemplate));
    for (auto [position, step] : llvm::enumerate(program.steps)) {
      const auto *instance = std::get_if<RunInstance>(&step.action);
      if (!instance)
        continue;
      const RunTemplate &runTemplate = templateOf(*instance);
      lastInstance = position;
      // Only the later passes are looked up (findInstance): a forward's
      // consumers.
      if (instance->microBatch && runTemplate.pass != PipelinePass::Forward)
        instances[{runTemplate.part, runTemplate.pass, *instance->microBatch,
                   instance->chunk, instance->firstBlock}] = position;
      if (writesGradients[instance->templateIndex] && !firstGradientWriter)
        firstGradientWriter = position;
    }
    for (auto [position, step] : llvm::enumerate(program.steps))
      if (const auto *work = std::get_if<RunWork>(&step.action))
        if (work->invocation->primitive == primitive::kDPShardedOptimizer)
          shardedStep = position;
  }

  std::optional<size_t> findInstance(ModelPart part, PipelinePass pass,
                                     int64_t microBatch, int64_t chunk,
                                     int64_t firstBlock) const {
    auto it = instances.find({part, pass, microBatch, chunk, firstBlock});
    if (it == instances.end())
      return std::nullopt;
    return it->second;
  }

  /// Adds a buffer named `name()`, live from its producer to its last
  /// consumer; for a shape, only its source and lifetime (each run of the
  /// shape sizes it, sweep::RunSkeleton).
  void add(llvm::function_ref<std::string()> name, BufferCause cause,
           BufferSource source, std::optional<size_t> producer,
           llvm::SmallVector<size_t, 2> consumers) {
    size_t positions = program.steps.size();
    size_t start = 0;
    size_t end = positions == 0 ? 0 : positions - 1;
    if (producer) {
      start = *producer;
      end = consumers.empty()
                ? *producer
                : std::max(*producer, *llvm::max_element(consumers));
    }
    if (lifetimes) {
      lifetimes->buffers.push_back({source, start, end});
      return;
    }
    int64_t bytes = sourceBytes(source, values, *sizingGuard);
    if (bytes == 0)
      return;
    RunBuffer &buffer = buffers->buffers.emplace_back();
    buffer.bytes = bytes;
    buffer.name = name();
    buffer.cause = cause;
    buffer.source = source;
    buffer.start = start;
    buffer.end = end;
    buffer.producer = producer;
    llvm::sort(consumers);
    buffer.consumers = std::move(consumers);
  }

  /// Weights, gradients and optimizer state (persistentBytesOf).
  void addPersistent() {
    using Kind = BufferSource::Kind;
    add([&] { return std::string("weights"); }, BufferCause::Weights,
        {Kind::Weights, 0, 1}, std::nullopt, {});
    if (run.inference)
      return;
    add([&] { return std::string("gradients"); }, BufferCause::Gradients,
        {Kind::Gradients, 0, 1}, std::nullopt, {});
    add([&] { return std::string("optimizer_state"); },
        BufferCause::OptimizerState, {Kind::OptimizerState, 0, 1}, std::nullopt,
        {});
  }

  void addInstanceBuffers(size_t position, const RunInstance &instance) {
    using Kind = BufferSource::Kind;
    const RunTemplate &runTemplate = templateOf(instance);
    size_t index = instance.templateIndex;
    int64_t repetitions = instance.repetitions();
    auto suffix = [&] {
      // An instance of part of its chunk's blocks (one segment of one block
      // kind) names its first block.
      bool wholeChunk =
          !instance.hasBlocks ||
          (instance.firstBlock == run.layout.firstBlock(instance.chunk) &&
           instance.repetitions() == run.layout.chunkBlocks[instance.chunk]);
      std::string blocks =
          wholeChunk ? "" : "_block" + std::to_string(instance.firstBlock);
      return instance.microBatch
                 ? "_mb" + std::to_string(*instance.microBatch) + "_chunk" +
                       std::to_string(instance.chunk) + blocks
                 : "_chunk" + std::to_string(instance.chunk) + blocks;
    };
    add([&] { return std::string("work_" + std::to_string(position)); },
        BufferCause::WorkingSet, {Kind::WorkingSet, index, 1}, position,
        {position});

    if (run.inference) {
      // Every later step of the generation reads the cache: it lives to
      // the stage's last instance.
      add([&] { return std::string("kv_cache" + suffix()); },
          BufferCause::KVCache, {Kind::KVCache, index, repetitions}, position,
          {lastInstance});
      return;
    }
    if (!instance.microBatch)
      return;
    int64_t microBatch = *instance.microBatch;
    bool zeroBubble = run.schedule == PipelineSchedule::ZeroBubbleH1;
    PipelinePass backward = zeroBubble && runTemplate.part == ModelPart::Block
                                ? PipelinePass::InputGrad
                                : PipelinePass::Backward;
    if (runTemplate.pass == PipelinePass::Forward) {
      std::optional<size_t> consumer =
          findInstance(runTemplate.part, backward, microBatch, instance.chunk,
                       instance.firstBlock);
      llvm::SmallVector<size_t, 2> consumers;
      if (consumer)
        consumers.push_back(*consumer);
      bool block = runTemplate.part == ModelPart::Block;
      std::string prefix =
          block ? "stash" : stringifyEnum(runTemplate.part).str() + "_stash";
      add([&] { return std::string(prefix + suffix()); },
          block ? BufferCause::BlockActivations : BufferCause::EdgeActivations,
          {Kind::Stash, index, repetitions}, position, consumers);
      if (!zeroBubble || !block)
        return;
      // ZB-H1: what the deferred weight-gradient pass reads of the stash
      // stays until it runs.
      std::optional<size_t> weightGrad =
          findInstance(ModelPart::Block, PipelinePass::WeightGrad, microBatch,
                       instance.chunk, instance.firstBlock);
      add([&] { return std::string("weight_grad_stash" + suffix()); },
          BufferCause::WeightGradInputs,
          {Kind::WeightGradStash, index, repetitions}, position,
          weightGrad ? llvm::SmallVector<size_t, 2>{*weightGrad}
                     : llvm::SmallVector<size_t, 2>{});
      return;
    }
    if (runTemplate.pass == PipelinePass::InputGrad) {
      // ZB-H1: the output gradients the input-gradient pass computes and
      // the weight-gradient pass reads.
      std::optional<size_t> weightGrad =
          findInstance(ModelPart::Block, PipelinePass::WeightGrad, microBatch,
                       instance.chunk, instance.firstBlock);
      add([&] { return std::string("weight_grad_inputs" + suffix()); },
          BufferCause::WeightGradInputs,
          {Kind::WeightGradInputs, index, repetitions}, position,
          weightGrad ? llvm::SmallVector<size_t, 2>{*weightGrad}
                     : llvm::SmallVector<size_t, 2>{});
    }
  }

  /// The next block instance at or after `position`: what reads a received
  /// message (after its gathers).
  std::optional<size_t> nextBlockInstance(size_t position) const {
    for (size_t next = position; next < program.steps.size(); ++next) {
      const auto *instance =
          std::get_if<RunInstance>(&program.steps[next].action);
      if (instance && instance->hasBlocks)
        return next;
    }
    return std::nullopt;
  }

  static std::string messageName(const RunMessage &message) {
    return stringifyEnum(message.message).str() + "_mb" +
           std::to_string(message.microBatch) + "_chunk" +
           std::to_string(message.chunk);
  }

  void addMessageBuffers(size_t position, const RunMessage &message) {
    const RunStep &step = program.steps[position];
    if (message.send) {
      // The send depends on the instance that made the message.
      std::optional<size_t> producer;
      if (!step.deps.empty())
        producer = step.deps.front();
      add([&] { return std::string("send_" + messageName(message)); },
          BufferCause::PipelineSend, {BufferSource::Kind::Message, position, 1},
          producer.value_or(position), {position});
      return;
    }
    // A scattered message is read by the gather right after the receive.
    std::optional<size_t> reader = nextBlockInstance(position + 1);
    const RunWork *next =
        position + 1 < program.steps.size()
            ? std::get_if<RunWork>(&program.steps[position + 1].action)
            : nullptr;
    bool gathered =
        next && next->invocation->primitive == primitive::kPipelineGather;
    std::optional<size_t> consumer = gathered ? position + 1 : reader;
    add([&] { return std::string("recv_" + messageName(message)); },
        BufferCause::PipelineReceive,
        {BufferSource::Kind::Message, position, 1}, position,
        consumer ? llvm::SmallVector<size_t, 2>{*consumer}
                 : llvm::SmallVector<size_t, 2>{});
    if (gathered)
      gatheredMessages[position + 1] = &message;
  }

  void addWorkBuffers(size_t position, const RunWork &work) {
    const Invocation &invocation = *work.invocation;
    auto gatheredMessage = gatheredMessages.find(position);
    if (gatheredMessage != gatheredMessages.end()) {
      std::optional<size_t> reader = nextBlockInstance(position + 1);
      add(
          [&] {
            return std::string("gathered_" +
                               messageName(*gatheredMessage->second));
          },
          BufferCause::GatheredMessage,
          {BufferSource::Kind::WorkWrite, position, 1}, position,
          reader ? llvm::SmallVector<size_t, 2>{*reader}
                 : llvm::SmallVector<size_t, 2>{});
      return;
    }
    if (invocation.primitive == primitive::kFSDPParamGather) {
      // The pass's instances right after the gather read the parameters.
      llvm::SmallVector<size_t, 2> readers;
      for (size_t next = position + 1; next < program.steps.size(); ++next) {
        const auto *instance =
            std::get_if<RunInstance>(&program.steps[next].action);
        if (!instance || templateOf(*instance).pass == PipelinePass::WeightGrad)
          break;
        readers.push_back(next);
      }
      add(
          [&] {
            return std::string("gathered_parameters_" +
                               std::to_string(position));
          },
          BufferCause::GatheredParameters,
          {BufferSource::Kind::WorkWrite, position, 1}, position, readers);
      return;
    }
    if (invocation.primitive == primitive::kDPGradReduceScatter) {
      // ZeRO-2/3 keep only their gradient shard: the bucket's full
      // gradients live from the first pass that accumulates them to its
      // reduce-scatter, whose output shard lives until the sharded step
      // reads it. At ZeRO-1 both have no bytes (the sources say so): a
      // shape's lifetimes are those of either stage.
      std::string index = std::to_string(bucket++);
      add([&] { return std::string("gradient_bucket_" + index); },
          BufferCause::GradientBucket,
          {BufferSource::Kind::GradientBucket, position, 1},
          firstGradientWriter.value_or(position), {position});
      llvm::SmallVector<size_t, 2> step;
      if (shardedStep)
        step.push_back(*shardedStep);
      add([&] { return std::string("gradient_shard_" + index); },
          BufferCause::GradientBucket,
          {BufferSource::Kind::GradientShard, position, 1}, position, step);
    }
  }

  const WholeRun &run;
  const StageProgram &program;
  /// Where sizing a buffer records an overflow (buildBuffers).
  OverflowGuard *sizingGuard = nullptr;
  /// Where add() puts a buffer: exactly one is set.
  StageBuffers *buffers = nullptr;
  StageLifetimes *lifetimes = nullptr;
  std::function<int64_t(size_t)> messageBytesAt = [this](size_t position) {
    return std::get<RunMessage>(program.steps[position].action).bytes;
  };
  std::function<const RunWork &(size_t)> workAt =
      [this](size_t position) -> const RunWork & {
    return std::get<RunWork>(program.steps[position].action);
  };
  StageValues values;
  llvm::DenseMap<InstanceKey, size_t, InstanceKeyInfo> instances;
  /// The gathers of scattered messages, and the message each gathers (by
  /// position: hashed, as only look-ups by position read it).
  llvm::DenseMap<size_t, const RunMessage *> gatheredMessages;
  size_t lastInstance = 0;
  std::optional<size_t> firstGradientWriter;
  std::optional<size_t> shardedStep;
  int64_t bucket = 0;
};

/// The tensors a weight-gradient template reads that an earlier pass made:
/// what the forward and the input-gradient pass keep for it under ZB-H1.
std::vector<std::string> weightGradInputs(const WholeRun &run) {
  std::vector<std::string> names;
  for (const RunTemplate &runTemplate : run.templates) {
    if (runTemplate.pass != PipelinePass::WeightGrad)
      continue;
    llvm::StringSet<> written;
    for (const Invocation &invocation : runTemplate.work.invocations) {
      for (const TensorAccess &read : invocation.reads)
        if (!written.contains(read.tensor) &&
            !llvm::is_contained(names, read.tensor))
          names.push_back(read.tensor);
      for (const TensorAccess &write : invocation.writes)
        written.insert(write.tensor);
    }
  }
  return names;
}

} // namespace

llvm::Expected<std::vector<TemplateBytes>>
blueprint::workload::templateBytesOf(const WholeRun &run) {
  // What each template keeps for a later pass (not its working set): a
  // forward's stash, an inference pass's KV cache, a step's updated state,
  // and under ZB-H1 what the weight-gradient pass reads.
  std::vector<std::string> toWeightGrad = weightGradInputs(run);
  OverflowGuard guard;
  std::vector<TemplateBytes> result;
  for (const RunTemplate &runTemplate : run.templates) {
    TemplateBytes bytes;
    std::vector<std::string> kept;
    bool weightGradOwner = runTemplate.part == ModelPart::Block &&
                           (runTemplate.pass == PipelinePass::Forward ||
                            runTemplate.pass == PipelinePass::InputGrad);
    for (const Invocation &invocation : runTemplate.work.invocations) {
      for (const TensorAccess &tensor : invocation.stashed) {
        kept.push_back(tensor.tensor);
        int64_t &stash =
            weightGradOwner && llvm::is_contained(toWeightGrad, tensor.tensor)
                ? bytes.weightGradStash
                : bytes.stash;
        stash = guard.add(stash, tensor.bytes, "stash bytes");
      }
      // A step updates the persistent state in place, element by element.
      if (runTemplate.pass == PipelinePass::Step)
        for (const TensorAccess &write : invocation.writes)
          kept.push_back(write.tensor);
      // A decode step past a sliding window overwrites the oldest position
      // of the rolling-buffer cache: it writes, but the cache does not grow.
      bool overwrites = runTemplate.context && run.kvCacheWindow &&
                        *runTemplate.context > *run.kvCacheWindow;
      if (invocation.primitive == primitive::kKVCacheWrite)
        for (const TensorAccess &write : invocation.writes) {
          kept.push_back(write.tensor);
          if (!overwrites)
            bytes.kvCache =
                guard.add(bytes.kvCache, write.bytes, "KV-cache bytes");
        }
    }
    if (weightGradOwner) {
      llvm::append_range(kept, toWeightGrad);
      // ZB-H1: the output gradients the input-gradient pass computes and
      // the weight-gradient pass reads.
      llvm::StringSet<> counted;
      for (const Invocation &invocation : runTemplate.work.invocations)
        for (const TensorAccess &write : invocation.writes)
          if (llvm::is_contained(toWeightGrad, write.tensor) &&
              counted.insert(write.tensor).second)
            bytes.weightGradInputs = guard.add(
                bytes.weightGradInputs, write.bytes, "weight-gradient inputs");
    }
    llvm::Expected<int64_t> workingSet =
        workingSetBytes(runTemplate.work, kept);
    if (!workingSet)
      return workingSet.takeError();
    bytes.workingSet = *workingSet;
    result.push_back(bytes);
  }
  if (guard.failed())
    return guard.error("deriveBuffers");
  return result;
}

PersistentBytes blueprint::workload::persistentBytesOf(
    const StageProgram &program, const MappingSpec &mapping,
    const std::optional<TrainingSpec> &training,
    const std::optional<InferenceSpec> &inference, OverflowGuard &guard) {
  PersistentBytes bytes;
  if (!training && !inference)
    return bytes;
  if (!training) {
    bytes.weights =
        guard.mul(guard.add(program.parameters, program.bufferElements,
                            "stage weight elements"),
                  bytesOf(inference->weightType), "stage weight bytes");
    return bytes;
  }
  int64_t bucketed = 0;
  for (int64_t elements : program.bucketElements)
    bucketed = guard.add(bucketed, elements, "gradient buffer elements");
  int64_t expertBucketed = 0;
  for (int64_t elements : program.expertBucketElements)
    expertBucketed =
        guard.add(expertBucketed, elements, "gradient buffer elements");
  // ZeRO shards over the ranks holding the same parameters, dp * cp; at
  // ep > 1 the routed experts' over the edp ranks holding the same experts.
  int64_t replicas = mapping.gradientReplicas();
  int64_t zero = replicas > 1 ? mapping.zeroStage : 0;
  int64_t shard = guard.add(bucketed / replicas,
                            expertBucketed / mapping.expertGradientReplicas(),
                            "ZeRO shard elements");
  bucketed = guard.add(bucketed, expertBucketed, "gradient buffer elements");
  // Buffers are held whole: ZeRO-3 shards parameters only.
  bytes.weights =
      guard.mul(guard.add(zero >= 3 ? shard : program.parameters,
                          program.bufferElements, "stage weight elements"),
                bytesOf(training->weightType), "stage weight bytes");
  // ZeRO-2/3 keep no gradient buffer across iterations: each bucket lives
  // from the first backward to its reduce-scatter, its shard from there to
  // the sharded step (the gradient_bucket and gradient_shard buffers).
  bytes.shardedGradients = mapping.shardsGradients();
  if (!bytes.shardedGradients)
    bytes.gradients = guard.mul(bucketed, bytesOf(training->gradientType),
                                "stage gradient bytes");
  else if (mapping.expertGradientReplicas() == 1)
    // At edp = 1 an expert bucket has no reduction, so no gradient_bucket
    // or gradient_shard buffer: its gradients are held whole, as below
    // ZeRO-2 (its shard is the whole bucket).
    bytes.gradients = guard.mul(expertBucketed, bytesOf(training->gradientType),
                                "stage gradient bytes");
  // Master weights, Adam m and v (deriveAdamWStep).
  bytes.optimizerState =
      guard.product({zero >= 1 ? shard : program.parameters, 3,
                     bytesOf(training->optimizerStateType)},
                    "stage optimizer-state bytes");
  return bytes;
}

int64_t blueprint::workload::sourceBytes(const BufferSource &source,
                                         const StageValues &values,
                                         OverflowGuard &guard) {
  using Kind = BufferSource::Kind;
  switch (source.kind) {
  case Kind::Weights:
    return values.persistent.weights;
  case Kind::Gradients:
    return values.persistent.gradients;
  case Kind::OptimizerState:
    return values.persistent.optimizerState;
  case Kind::WorkingSet:
    return values.templates[source.index].workingSet;
  case Kind::Stash:
    return guard.mul(values.templates[source.index].stash, source.repetitions,
                     "stash bytes");
  case Kind::WeightGradStash:
    return guard.mul(values.templates[source.index].weightGradStash,
                     source.repetitions, "stash bytes");
  case Kind::WeightGradInputs:
    return guard.mul(values.templates[source.index].weightGradInputs,
                     source.repetitions, "weight-gradient inputs");
  case Kind::KVCache:
    return guard.mul(values.templates[source.index].kvCache, source.repetitions,
                     "KV-cache bytes");
  case Kind::Message:
    return values.messageBytesAt(source.index);
  case Kind::WorkRead:
    return values.workAt(source.index).invocation->readBytes();
  case Kind::WorkWrite:
    return values.workAt(source.index).invocation->writeBytes();
  case Kind::GradientBucket:
    return values.persistent.shardedGradients
               ? values.workAt(source.index).invocation->readBytes()
               : 0;
  case Kind::GradientShard:
    return values.persistent.shardedGradients
               ? values.workAt(source.index).invocation->writeBytes()
               : 0;
  }
  llvm_unreachable("every buffer source has bytes");
}

llvm::Expected<std::vector<StageBuffers>> blueprint::workload::deriveBuffers(
    const WholeRun &run, const MappingSpec &mapping,
    const std::optional<TrainingSpec> &training) {
  if (!run.inference && !training)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "deriveBuffers: a training run needs its "
                                   "training contract");
  llvm::Expected<std::vector<TemplateBytes>> templateBytes =
      templateBytesOf(run);
  if (!templateBytes)
    return templateBytes.takeError();
  OverflowGuard guard;
  std::vector<StageBuffers> result;
  for (const StageProgram &program : run.stages) {
    PersistentBytes persistent = persistentBytesOf(
        program, mapping, run.inference ? std::nullopt : training,
        run.inference, guard);
    result.push_back(StageBufferBuilder(run, program)
                         .buildBuffers(*templateBytes, persistent, guard));
  }
  if (guard.failed())
    return guard.error("deriveBuffers");
  return result;
}

std::vector<StageLifetimes>
blueprint::workload::deriveBufferLifetimes(const WholeRun &run) {
  // A shape reads no values: nothing to size, so nothing can overflow.
  std::vector<StageLifetimes> result;
  result.reserve(run.stages.size());
  for (const StageProgram &program : run.stages)
    result.push_back(StageBufferBuilder(run, program).buildLifetimes());
  return result;
}

llvm::Expected<std::pair<int64_t, size_t>>
blueprint::workload::livePeak(int64_t stage, size_t positions,
                              llvm::ArrayRef<LiveSpan> spans) {
  // +bytes at start, -bytes after the end.
  std::vector<int64_t> delta(positions + 1, 0);
  OverflowGuard guard;
  for (const LiveSpan &span : spans) {
    if (span.bytes < 0 || span.start > span.end || span.end >= positions)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "analyzeMemory: stage " + llvm::Twine(stage) +
              ": a buffer of negative bytes or a lifetime outside the "
              "stage's " +
              llvm::Twine(positions) + " positions");
    delta[span.start] = guard.add(delta[span.start], span.bytes, "live bytes");
    delta[span.end + 1] =
        guard.sub(delta[span.end + 1], span.bytes, "live bytes");
  }
  std::pair<int64_t, size_t> peak{0, 0};
  int64_t live = 0;
  for (size_t position = 0; position < positions; ++position) {
    live = guard.add(live, delta[position], "live bytes");
    if (live > peak.first)
      peak = {live, position};
  }
  if (guard.failed())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "analyzeMemory: stage " + llvm::Twine(stage) +
            ": 64-bit overflow computing " + guard.overflowedQuantity());
  return peak;
}

llvm::Expected<StageMemory>
blueprint::workload::analyzeMemory(const StageBuffers &stage) {
  StageMemory memory;
  memory.stage = stage.stage;
  size_t positions = stage.positions;
  auto fail = [&](const RunBuffer &buffer, const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "analyzeMemory: stage " +
                                       llvm::Twine(stage.stage) + " buffer '" +
                                       buffer.name + "' " + why);
  };
  // Live bytes by cause: +bytes at start, -bytes after the end.
  std::vector<std::array<int64_t, kNumBufferCauses>> delta(positions + 1);
  OverflowGuard guard;
  for (const RunBuffer &buffer : stage.buffers) {
    if (buffer.start > buffer.end || buffer.end >= positions)
      return fail(buffer, "lives over [" + llvm::Twine(buffer.start) + ", " +
                              llvm::Twine(buffer.end) +
                              "], not within the stage's " +
                              llvm::Twine(positions) + " positions");
    if (buffer.bytes < 0)
      return fail(buffer, "has negative bytes");
    size_t cause = static_cast<size_t>(buffer.cause);
    delta[buffer.start][cause] =
        guard.add(delta[buffer.start][cause], buffer.bytes, "live bytes");
    delta[buffer.end + 1][cause] =
        guard.sub(delta[buffer.end + 1][cause], buffer.bytes, "live bytes");
  }
  std::array<int64_t, kNumBufferCauses> live{};
  memory.liveBytes.resize(positions);
  memory.liveByKind.resize(positions);
  std::vector<std::array<int64_t, kNumBufferCauses>> liveByCause(positions);
  for (size_t position = 0; position < positions; ++position) {
    int64_t total = 0;
    std::array<int64_t, kNumBufferKinds> byKind{};
    for (size_t cause = 0; cause < kNumBufferCauses; ++cause) {
      live[cause] =
          guard.add(live[cause], delta[position][cause], "live bytes");
      memory.maxByCause[cause] =
          std::max(memory.maxByCause[cause], live[cause]);
      size_t kind =
          static_cast<size_t>(kindOf(static_cast<BufferCause>(cause)));
      byKind[kind] = guard.add(byKind[kind], live[cause], "live bytes");
      total = guard.add(total, live[cause], "live bytes");
    }
    memory.liveBytes[position] = total;
    memory.liveByKind[position] = byKind;
    liveByCause[position] = live;
  }
  if (guard.failed())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "analyzeMemory: stage " + llvm::Twine(stage.stage) +
            ": 64-bit overflow computing " + guard.overflowedQuantity());
  std::vector<LiveSpan> spans;
  spans.reserve(stage.buffers.size());
  for (const RunBuffer &buffer : stage.buffers)
    spans.push_back({buffer.start, buffer.end, buffer.bytes});
  llvm::Expected<std::pair<int64_t, size_t>> peak =
      livePeak(stage.stage, positions, spans);
  if (!peak)
    return peak.takeError();
  std::tie(memory.peakBytes, memory.peakPosition) = *peak;
  if (positions == 0)
    return memory;
  memory.peakByKind = memory.liveByKind[memory.peakPosition];
  memory.peakByCause = liveByCause[memory.peakPosition];
  for (auto [index, buffer] : llvm::enumerate(stage.buffers))
    if (buffer.start <= memory.peakPosition &&
        memory.peakPosition <= buffer.end)
      memory.liveAtPeak.push_back(index);
  return memory;
}
