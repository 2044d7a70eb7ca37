//===- RunSkeleton.cpp - The shape of a training run, shared by runs ------===//
//
// docs/Sweep.md ("Speed, threads, memory") states what a shape is and why
// a run of the shape evaluated from its parts equals its whole derivation.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/RunSkeleton.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <variant>

using namespace blueprint;
using namespace blueprint::sweep;

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "run skeleton: " + message);
}

int64_t ShapeNames::number(llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(mutex);
  return numbers.try_emplace(name, static_cast<int64_t>(numbers.size()))
      .first->second;
}

std::shared_ptr<const RunSkeleton>
SkeletonCache::acquire(const ShapeKey &key, bool &build, bool planned) {
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    auto found = entries.find(key);
    if (found == entries.end()) {
      // New, or dropped since: built (with its plan when asked for).
      entries.emplace(key, Entry());
      build = true;
      return nullptr;
    }
    Entry &entry = found->second;
    if (entry.failed ||
        (entry.skeleton &&
         (!planned || entry.skeleton->timed() || entry.planFailed))) {
      entry.lastUse = ++uses;
      build = false;
      return planned && entry.planFailed ? nullptr : entry.skeleton;
    }
    if (planned && entry.skeleton && !entry.planning) {
      entry.planning = true;
      build = true;
      return nullptr;
    }
    built.wait(lock);
  }
}

void SkeletonCache::settle(const ShapeKey &key, Entry &entry) {
  entry.lastUse = ++uses;
  entry.bytes = sizeof(Entry) + key.capacity() * sizeof(int64_t) +
                (entry.skeleton ? entry.skeleton->bytes() : 0);
  heldBytes += entry.bytes;
  ++heldEntries;
  while (heldBytes > budgetBytes) {
    auto oldest = entries.end();
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (&it->second != &entry && !it->second.planning &&
          (it->second.skeleton || it->second.failed) &&
          (oldest == entries.end() ||
           it->second.lastUse < oldest->second.lastUse))
        oldest = it;
    if (oldest == entries.end())
      break;
    heldBytes -= oldest->second.bytes;
    --heldEntries;
    entries.erase(oldest);
  }
  peakHeldBytes = std::max(peakHeldBytes, heldBytes);
  peakHeldEntries = std::max(peakHeldEntries, heldEntries);
}

std::shared_ptr<const RunSkeleton> SkeletonCache::insert(const ShapeKey &key,
                                                         RunSkeleton skeleton) {
  std::lock_guard<std::mutex> lock(mutex);
  Entry &entry = entries[key];
  if (entry.skeleton) {
    // The skeleton without a plan it replaces is settled: unsettle it.
    heldBytes -= entry.bytes;
    --heldEntries;
  }
  entry.skeleton = std::make_shared<const RunSkeleton>(std::move(skeleton));
  entry.planning = false;
  std::shared_ptr<const RunSkeleton> result = entry.skeleton;
  settle(key, entry);
  built.notify_all();
  return result;
}

void SkeletonCache::abandon(const ShapeKey &key) {
  std::lock_guard<std::mutex> lock(mutex);
  Entry &entry = entries[key];
  entry.failed = true;
  settle(key, entry);
  built.notify_all();
}

void SkeletonCache::abandonTiming(const ShapeKey &key,
                                  std::shared_ptr<const RunSkeleton> untimed) {
  std::lock_guard<std::mutex> lock(mutex);
  Entry &entry = entries[key];
  entry.planning = false;
  entry.planFailed = true;
  if (!entry.skeleton) {
    entry.skeleton = std::move(untimed);
    settle(key, entry);
  }
  built.notify_all();
}

ShapeKey sweep::shapeKeyOf(const workload::WholeRun &parts,
                           const workload::MappingSpec &mapping,
                           ShapeNames &names) {
  // The expansion of the stage orders (schedule, pp, v, micro-batches)
  // over the layout, with the parts' templates, shared works and tails, is
  // the whole run; its buffers also read the templates' passes, the works'
  // primitives and whether the ZeRO stage is 3 (the parameter gathers).
  // ZeRO-1 and ZeRO-2 share their steps and their buffers' lifetimes (a
  // gradient bucket's source has no bytes below ZeRO-2): one shape.
  int64_t zeroSteps =
      mapping.zeroStage == 3 ? 3 : std::min<int64_t>(mapping.zeroStage, 1);
  ShapeKey key = {static_cast<int64_t>(mapping.schedule),
                  mapping.pp,
                  mapping.virtualStages,
                  parts.microbatches,
                  mapping.gradientReplicas() > 1,
                  zeroSteps,
                  static_cast<int64_t>(parts.layout.chunkBlocks.size())};
  llvm::append_range(key, parts.layout.chunkBlocks);
  key.push_back(static_cast<int64_t>(parts.templates.size()));
  for (const workload::RunTemplate &runTemplate : parts.templates) {
    key.push_back(static_cast<int64_t>(runTemplate.part));
    key.push_back(static_cast<int64_t>(runTemplate.pass));
    key.push_back(workload::writesWeightGradients(runTemplate));
  }
  auto addWork = [&](const workload::RunWork &work) {
    key.push_back(names.number(work.invocation->primitive));
    key.push_back(names.number(work.axis));
    key.push_back(static_cast<int64_t>(work.cadence));
    key.push_back(static_cast<int64_t>(work.group.size()));
    llvm::append_range(key, work.group);
  };
  key.push_back(static_cast<int64_t>(parts.works.size()));
  for (const workload::RunWork &work : parts.works)
    addWork(work);
  // Under overlap_dp_grad_reduce a bucket's reduction waits inside the
  // instance that completes its last unit, and the dense and the expert
  // buckets are reduced in the order they complete: where each bucket of
  // either kind closes.
  key.push_back(mapping.overlapDPGradReduce);
  for (const workload::StageProgram &program : parts.stages) {
    if (mapping.overlapDPGradReduce)
      for (const std::vector<size_t> *ends :
           {&program.bucketUnitEnds, &program.expertBucketUnitEnds}) {
        key.push_back(static_cast<int64_t>(ends->size()));
        for (size_t end : *ends)
          key.push_back(static_cast<int64_t>(end));
      }
    key.push_back(static_cast<int64_t>(program.steps.size()));
    for (const workload::RunStep &step : program.steps) {
      key.push_back(static_cast<int64_t>(step.action.index()));
      if (const auto *instance =
              std::get_if<workload::RunInstance>(&step.action)) {
        key.push_back(static_cast<int64_t>(instance->templateIndex));
        key.push_back(instance->chunk);
        key.push_back(instance->microBatch.value_or(-1));
        key.push_back(instance->hasBlocks);
        key.push_back(instance->firstBlock);
        key.push_back(instance->endBlock);
      } else if (const auto *work =
                     std::get_if<workload::RunWork>(&step.action)) {
        addWork(*work);
      }
    }
  }
  return key;
}

/// What kind of tail step `step` is: its action's kind and, for a work, its
/// primitive, axis and its collective's inner axes, as one string. At ep > 1
/// a dense bucket's reduction and an expert bucket's are of one primitive
/// over edp, the dense one's with ep (and cp) inside.
static std::pair<size_t, std::string>
tailKindOf(const workload::RunStep &step) {
  std::string kind;
  if (const auto *work = std::get_if<workload::RunWork>(&step.action)) {
    kind = work->invocation->primitive + '\0' + work->axis;
    if (work->invocation->collective)
      for (const std::string &inner : work->invocation->collective->innerAxes)
        kind += '\0' + inner;
  }
  return {step.action.index(), std::move(kind)};
}

/// Whether two steps do the same (a tail step of a whole run and of its
/// parts): the same instance, or a work of the same kind (tailKindOf).
static bool sameStep(const workload::RunStep &a, const workload::RunStep &b) {
  if (tailKindOf(a) != tailKindOf(b))
    return false;
  if (const auto *instance = std::get_if<workload::RunInstance>(&a.action)) {
    const auto &other = std::get<workload::RunInstance>(b.action);
    return instance->templateIndex == other.templateIndex &&
           instance->chunk == other.chunk &&
           instance->firstBlock == other.firstBlock &&
           instance->endBlock == other.endBlock;
  }
  return true;
}

void RunSkeleton::tallyChain(RunSkeleton &skeleton,
                             const workload::StageProgram &program,
                             llvm::ArrayRef<uint32_t> sourceOfStep,
                             std::vector<int64_t> &chainEndAt,
                             std::vector<uint32_t> &countOf) {
  // The time of a step starts at or after the end of every step it depends
  // on (analysis::timeSteps; a step ready inside an instance waits only for
  // a part of its last dependency, which therefore does not count), so a
  // step that waits for the chain's last step extends the chain: the chain
  // positions are increasing and each waits for the one before, and the
  // sum of their durations is at most the end of the last. Sends and
  // receives are not costed on their stage; they pass on what they wait
  // for, as does a step that leaves the stage's order (under
  // overlap_dp_grad_reduce, a bucket's reduction that waits for the
  // previous bucket's only). chainEndAt[p] is the last chain step step p
  // waits for, -1 if none.
  skeleton.chainBegin.push_back(
      static_cast<uint32_t>(skeleton.chainCounts.size()));
  // Where each source's count is in chainCounts.
  constexpr uint32_t kNoCount = ~0u;
  countOf.assign(skeleton.sources.size(), kNoCount);
  chainEndAt.assign(program.steps.size(), -1);
  int64_t chainEnd = -1;
  for (auto [position, step] : llvm::enumerate(program.steps)) {
    llvm::ArrayRef<size_t> waitsFor = step.deps;
    if (step.readyBlocks && !waitsFor.empty())
      waitsFor = waitsFor.drop_back();
    int64_t waited = -1;
    for (size_t dep : waitsFor)
      if (dep < position)
        waited = std::max(waited, chainEndAt[dep]);
    bool costed = !std::holds_alternative<workload::RunMessage>(step.action);
    if (!costed || waited != chainEnd) {
      chainEndAt[position] = waited;
      continue;
    }
    chainEnd = static_cast<int64_t>(position);
    chainEndAt[position] = chainEnd;
    uint32_t source = sourceOfStep[position];
    if (countOf[source] == kNoCount) {
      countOf[source] = static_cast<uint32_t>(skeleton.chainCounts.size());
      skeleton.chainCounts.push_back({source, 0});
    }
    ++skeleton.chainCounts[countOf[source]].second;
  }
}

llvm::Expected<RunSkeleton>
RunSkeleton::build(const workload::WholeRun &run,
                   const workload::WholeRun &parts,
                   llvm::ArrayRef<workload::StageLifetimes> buffers,
                   const analysis::RunGraph *graph) {
  if (run.inference || parts.stages.size() != run.stages.size() ||
      buffers.size() != run.stages.size() ||
      parts.templates.size() != run.templates.size() ||
      parts.works.size() != run.works.size())
    return failure("the run, its parts, buffers and graph do not line up");
  RunSkeleton skeleton;
  // A source by its fields (kind, template or stage, repetitions, work),
  // and the last source of each template, message kind and shared work:
  // consecutive steps of one mostly share it.
  llvm::DenseMap<TimeSource::Key, uint32_t> sourceIndices;
  constexpr uint32_t noSource = ~0u;
  std::vector<uint32_t> lastOfTemplate(run.templates.size(), noSource);
  std::vector<uint32_t> lastOfSharedWork(run.works.size(), noSource);
  uint32_t lastOfMessage[2] = {noSource, noSource};
  auto sourceIndexOf = [&](const TimeSource &source) {
    uint32_t *last = nullptr;
    if (source.kind == TimeSource::Kind::Instance)
      last = &lastOfTemplate[source.index];
    else if (source.kind != TimeSource::Kind::Work)
      last = &lastOfMessage[source.kind == TimeSource::Kind::Send];
    else if (source.work.shared)
      last = &lastOfSharedWork[source.work.index];
    if (last && *last != noSource &&
        skeleton.sources[*last].key() == source.key())
      return *last;
    auto [known, fresh] = sourceIndices.try_emplace(
        source.key(), static_cast<uint32_t>(skeleton.sources.size()));
    if (fresh)
      skeleton.sources.push_back(source);
    if (last)
      *last = known->second;
    return known->second;
  };
  skeleton.templates = run.templates.size();
  skeleton.sharedWorks = run.works.size();
  std::vector<int64_t> chainEndAt;
  std::vector<uint32_t> countOf;
  for (auto [stage, program] : llvm::enumerate(run.stages)) {
    size_t stageFirst = skeleton.sourceOf.size();
    size_t tail = parts.stages[stage].steps.size();
    if (tail > program.steps.size() ||
        buffers[stage].positions != program.steps.size())
      return failure("stage " + llvm::Twine(stage) +
                     " does not end in its tail");
    StageShape shape;
    shape.positions = program.steps.size();
    shape.tailBegin = program.steps.size() - tail;
    // The parts' step each of the stage's last `tail` steps is. The same
    // steps, each kind (tailKindOf) in the same order; but under
    // overlap_dp_grad_reduce the whole run interleaves the dense and the
    // expert buckets' reductions in the order its backward completes them,
    // where the parts, which have no backward, list the dense ones first.
    // So a step is the parts' first step of its kind not yet taken.
    std::map<std::pair<size_t, std::string>, std::vector<uint32_t>> partsOfKind;
    const std::vector<workload::RunStep> &partsTail = parts.stages[stage].steps;
    for (size_t index = tail; index-- > 0;)
      partsOfKind[tailKindOf(partsTail[index])].push_back(
          static_cast<uint32_t>(index));
    std::vector<uint32_t> partsIndexOf(tail);
    for (size_t index = 0; index < tail; ++index) {
      const workload::RunStep &step = program.steps[shape.tailBegin + index];
      auto kind = partsOfKind.find(tailKindOf(step));
      if (kind == partsOfKind.end() || kind->second.empty() ||
          !sameStep(step, partsTail[kind->second.back()]))
        return failure("stage " + llvm::Twine(stage) +
                       " does not end in its tail");
      partsIndexOf[index] = kind->second.back();
      kind->second.pop_back();
    }
    // A work step's index in shape.works, by position (dense: a stage's
    // buffers look up thousands); kNotAWork at any other step.
    constexpr uint32_t kNotAWork = ~0u;
    std::vector<uint32_t> workAt(program.steps.size(), kNotAWork);
    for (auto [position, step] : llvm::enumerate(program.steps)) {
      TimeSource source;
      if (const auto *instance =
              std::get_if<workload::RunInstance>(&step.action)) {
        source.kind = TimeSource::Kind::Instance;
        source.index = static_cast<uint32_t>(instance->templateIndex);
        source.repetitions = instance->repetitions();
      } else if (const auto *message =
                     std::get_if<workload::RunMessage>(&step.action)) {
        if (message->bytes != run.messageBytes)
          return failure("a message is not of the run's message bytes");
        source.kind =
            message->send ? TimeSource::Kind::Send : TimeSource::Kind::Receive;
      } else {
        const auto &work = std::get<workload::RunWork>(step.action);
        WorkRef ref;
        if (position >= shape.tailBegin)
          ref = {false, partsIndexOf[position - shape.tailBegin]};
        else if (work.shared)
          ref = {true, static_cast<uint32_t>(*work.shared)};
        else
          return failure("stage " + llvm::Twine(stage) + " step " +
                         llvm::Twine(position) +
                         " is a work neither shared nor in the tail");
        workAt[position] = static_cast<uint32_t>(shape.works.size());
        shape.works.push_back(ref);
        source.kind = TimeSource::Kind::Work;
        // A shared work is the same for every stage.
        source.index = ref.shared ? 0 : static_cast<uint32_t>(stage);
        source.work = ref;
      }
      // A bucket ready inside an instance waits for the time of its first
      // readyBlocks blocks: an instance source of that many repetitions.
      if (step.readyBlocks) {
        const workload::RunInstance *instance =
            workload::readyInstanceOf(program, step);
        if (!instance)
          return failure("stage " + llvm::Twine(stage) + " step " +
                         llvm::Twine(position) +
                         " is ready inside no instance");
        TimeSource ready;
        ready.kind = TimeSource::Kind::Instance;
        ready.index = static_cast<uint32_t>(instance->templateIndex);
        ready.repetitions = *step.readyBlocks;
        skeleton.readySources.push_back(
            {static_cast<uint32_t>(skeleton.sourceOf.size()),
             sourceIndexOf(ready)});
      }
      skeleton.sourceOf.push_back(sourceIndexOf(source));
    }
    tallyChain(skeleton, program,
               llvm::ArrayRef(skeleton.sourceOf).drop_front(stageFirst),
               chainEndAt, countOf);
    // Sources are equal when their fields are (sourceBytes reads nothing
    // else of a source; the rest, the sharding of the persistent state
    // among it, is the run's and the same for every source), so each
    // distinct one is sized once per run. They are found by
    // kind and index in a table (an index is a template's, a work's or 0),
    // then along the chain of those of other repetitions.
    constexpr size_t kinds = workload::BufferSource::kKinds;
    size_t width = std::max(
        {run.templates.size(), shape.works.size(), static_cast<size_t>(1)});
    std::vector<uint32_t> firstOfSlot(kinds * width, noSource);
    std::vector<uint32_t> nextOfSource;
    auto sourceIndexOfBuffer =
        [&](const workload::BufferSource &source) -> std::optional<uint32_t> {
      size_t kind = static_cast<size_t>(source.kind);
      if (kind >= kinds || source.index >= width)
        return std::nullopt;
      uint32_t &first = firstOfSlot[kind * width + source.index];
      for (uint32_t known = first; known != noSource;
           known = nextOfSource[known])
        if (shape.sources[known].repetitions == source.repetitions)
          return known;
      uint32_t fresh = static_cast<uint32_t>(shape.sources.size());
      shape.sources.push_back(source);
      nextOfSource.push_back(first);
      first = fresh;
      return fresh;
    };
    // Positions are below positions, a stage's step count, which a plan
    // holds in 32 bits (timingPlanOf): checked here, for the spans.
    if (shape.positions >= analysis::TimingPlan::kNone)
      return failure("stage " + llvm::Twine(stage) +
                     " has more than 2^32 - 2 steps");
    shape.spans.reserve(buffers[stage].buffers.size());
    for (const workload::BufferLifetime &buffer : buffers[stage].buffers) {
      workload::BufferSource source = buffer.source;
      using Kind = workload::BufferSource::Kind;
      if (source.kind == Kind::WorkRead || source.kind == Kind::WorkWrite ||
          source.kind == Kind::GradientBucket ||
          source.kind == Kind::GradientShard) {
        if (source.index >= workAt.size() || workAt[source.index] == kNotAWork)
          return failure("stage " + llvm::Twine(stage) +
                         " has a buffer sized by a step that is no work");
        source.index = workAt[source.index];
      }
      // Every message of a training run carries the run's message bytes
      // (checked above): its position does not size it.
      if (source.kind == workload::BufferSource::Kind::Message)
        source.index = 0;
      std::optional<uint32_t> sourceIndex = sourceIndexOfBuffer(source);
      if (!sourceIndex)
        return failure("stage " + llvm::Twine(stage) +
                       " has a buffer of an unknown source");
      if (buffer.start > shape.positions || buffer.end > shape.positions)
        return failure("stage " + llvm::Twine(stage) +
                       " has a buffer outside its steps");
      shape.spans.push_back({static_cast<uint32_t>(buffer.start),
                             static_cast<uint32_t>(buffer.end), *sourceIndex});
    }
    shape.sources.shrink_to_fit();
    shape.works.shrink_to_fit();
    skeleton.stages.push_back(std::move(shape));
  }
  // Kept for the whole search: no capacity beyond what is held.
  skeleton.sources.shrink_to_fit();
  skeleton.sourceOf.shrink_to_fit();
  skeleton.readySources.shrink_to_fit();
  skeleton.chainBegin.push_back(
      static_cast<uint32_t>(skeleton.chainCounts.size()));
  skeleton.chainBegin.shrink_to_fit();
  skeleton.chainCounts.shrink_to_fit();
  skeleton.stages.shrink_to_fit();
  if (graph)
    if (llvm::Error error = skeleton.setPlan(run, *graph))
      return std::move(error);
  return skeleton;
}

/// The usage of `program` (workload::stageUsageOf), whose run has
/// `templates` templates, with each work's position replaced by its index
/// in StageShape::works (the stage's work steps in order).
static llvm::Expected<workload::StageUsage>
shapeUsageOf(const workload::StageProgram &program, size_t templates) {
  llvm::Expected<workload::StageUsage> usage =
      workload::stageUsageOf(program, templates);
  if (!usage)
    return usage.takeError();
  // usage.works are in the order of their positions: a work's index is the
  // number of work steps before it.
  size_t position = 0;
  uint32_t index = 0;
  for (workload::StageUsage::Work &work : usage->works) {
    for (; position < work.position; ++position)
      if (std::holds_alternative<workload::RunWork>(
              program.steps[position].action))
        ++index;
    work.position = index;
  }
  return usage;
}

llvm::Error RunSkeleton::setPlan(const workload::WholeRun &run,
                                 const analysis::RunGraph &graph) {
  if (run.stages.size() != stages.size())
    return failure("the run has " + llvm::Twine(run.stages.size()) +
                   " stages, the skeleton " + llvm::Twine(stages.size()));
  for (auto [stage, shape] : llvm::enumerate(stages)) {
    if (run.stages[stage].steps.size() != shape.positions)
      return failure("stage " + llvm::Twine(stage) + " of the run has " +
                     llvm::Twine(run.stages[stage].steps.size()) +
                     " steps, the skeleton's " + llvm::Twine(shape.positions));
    llvm::Expected<workload::StageUsage> usage =
        shapeUsageOf(run.stages[stage], templates);
    if (!usage)
      return usage.takeError();
    shape.usage = std::move(*usage);
  }
  if (graph.stages.size() != stages.size())
    return failure("the graph has " + llvm::Twine(graph.stages.size()) +
                   " stages, the skeleton " + llvm::Twine(stages.size()));
  for (auto [stage, shape] : llvm::enumerate(stages))
    if (graph.stages[stage].size() != shape.positions)
      return failure("stage " + llvm::Twine(stage) + " of the graph has " +
                     llvm::Twine(graph.stages[stage].size()) +
                     " steps, the skeleton's " + llvm::Twine(shape.positions));
  llvm::Expected<analysis::TimingPlan> timing = analysis::timingPlanOf(graph);
  if (!timing)
    return timing.takeError();
  plan = std::move(*timing);
  plan.deps.shrink_to_fit();
  planned = true;
  // A TimeScratch holds the timing of one serial: a skeleton with another
  // plan is another skeleton.
  static std::atomic<uint64_t> plannedSkeletons{0};
  serial = ++plannedSkeletons;
  return llvm::Error::success();
}

llvm::Expected<RunSkeleton>
RunSkeleton::withPlan(const workload::WholeRun &run,
                      const analysis::RunGraph &graph) const {
  RunSkeleton skeleton = *this;
  if (llvm::Error error = skeleton.setPlan(run, graph))
    return std::move(error);
  return skeleton;
}

template <typename T> static size_t heapBytes(const std::vector<T> &v) {
  return v.capacity() * sizeof(T);
}

size_t RunSkeleton::bytes() const {
  size_t total = sizeof(RunSkeleton) + heapBytes(stages) + heapBytes(sources) +
                 heapBytes(sourceOf) + heapBytes(readySources) +
                 heapBytes(chainBegin) + heapBytes(chainCounts) +
                 heapBytes(plan.stageBegin) + heapBytes(plan.order) +
                 heapBytes(plan.position) + heapBytes(plan.depBegin) +
                 heapBytes(plan.deps) + heapBytes(plan.sender) +
                 heapBytes(plan.meeting) + heapBytes(plan.readyAfter) +
                 heapBytes(plan.kinds) + heapBytes(plan.meetings);
  for (const std::vector<uint32_t> &members : plan.meetings)
    total += heapBytes(members);
  for (const StageShape &shape : stages)
    total += heapBytes(shape.spans) + heapBytes(shape.sources) +
             heapBytes(shape.usage.repetitions) +
             heapBytes(shape.usage.messages) + heapBytes(shape.usage.works) +
             heapBytes(shape.works);
  return total;
}

bool RunSkeleton::fits(const workload::WholeRun &parts) const {
  if (parts.templates.size() != templates ||
      parts.works.size() != sharedWorks || parts.stages.size() != stages.size())
    return false;
  for (auto [stage, shape] : llvm::enumerate(stages)) {
    const std::vector<workload::RunStep> &tail = parts.stages[stage].steps;
    if (tail.size() != shape.positions - shape.tailBegin)
      return false;
    for (WorkRef ref : shape.works)
      if (!ref.shared &&
          !std::holds_alternative<workload::RunWork>(tail[ref.index].action))
        return false;
  }
  return true;
}

const workload::RunWork &RunSkeleton::workOf(const workload::WholeRun &parts,
                                             size_t stage, WorkRef ref) const {
  if (ref.shared)
    return parts.works[ref.index];
  return std::get<workload::RunWork>(
      parts.stages[stage].steps[ref.index].action);
}

llvm::Error RunSkeleton::addMemoryFigures(
    RunFigures &figures, const workload::WholeRun &parts,
    llvm::ArrayRef<workload::TemplateBytes> templateBytes,
    const workload::MappingSpec &mapping,
    const workload::TrainingSpec &training,
    const estimate::SystemProfile &profile, bool stopOverCapacity) const {
  if (templateBytes.size() != templates)
    return failure("the template bytes are not the run's");
  workload::OverflowGuard guard;
  std::vector<workload::LiveSpan> spans;
  std::vector<int64_t> bytesOfSource;
  for (size_t stage = 0; stage < stages.size(); ++stage) {
    const StageShape &shape = stages[stage];
    workload::StageValues values;
    values.templates = templateBytes;
    values.persistent = workload::persistentBytesOf(
        parts.stages[stage], mapping, training, std::nullopt, guard);
    auto messageBytesAt = [&](size_t) { return parts.messageBytes; };
    auto workAt = [&](size_t index) -> const workload::RunWork & {
      return workOf(parts, stage, shape.works[index]);
    };
    values.messageBytesAt = messageBytesAt;
    values.workAt = workAt;
    // Each distinct source in the order the buffers first name it, so an
    // overflow is recorded under the name of the buffer-by-buffer sum.
    bytesOfSource.clear();
    for (const workload::BufferSource &source : shape.sources)
      bytesOfSource.push_back(workload::sourceBytes(source, values, guard));
    spans.resize(shape.spans.size());
    for (size_t index = 0; index < spans.size(); ++index) {
      const StageShape::Span &span = shape.spans[index];
      spans[index] = {span.start, span.end, bytesOfSource[span.source]};
    }
    if (guard.failed())
      return guard.error("deriveBuffers");
    llvm::Expected<std::pair<int64_t, size_t>> peak =
        workload::livePeak(static_cast<int64_t>(stage), shape.positions, spans);
    if (!peak)
      return peak.takeError();
    addStagePeak(figures, static_cast<int64_t>(stage), peak->first);
    if (stopOverCapacity && !fitsCapacity(peak->first, profile)) {
      figures.peakIsBound = stage + 1 < stages.size();
      break;
    }
  }
  addCapacityFigures(figures, profile);
  return llvm::Error::success();
}

llvm::Expected<std::vector<workload::StageTotals>>
RunSkeleton::totals(const workload::WholeRun &parts) const {
  if (!planned)
    return failure("the totals of a skeleton without its timing plan");
  llvm::Expected<std::vector<workload::TemplateTotals>> templateTotals =
      workload::templateTotalsOf(parts.templates);
  if (!templateTotals)
    return templateTotals.takeError();
  std::vector<workload::StageTotals> result;
  for (size_t stage = 0; stage < stages.size(); ++stage) {
    const StageShape &shape = stages[stage];
    // Every message of a training run carries the run's message bytes.
    workload::StageUsage usage = shape.usage;
    for (workload::StageUsage::Messages &messages : usage.messages)
      messages.bytes = parts.messageBytes;
    llvm::Expected<workload::StageTotals> totals = workload::stageTotalsOf(
        static_cast<int64_t>(stage), *templateTotals, usage,
        [&](size_t index) -> const workload::Invocation & {
          return *workOf(parts, stage, shape.works[index]).invocation;
        });
    if (!totals)
      return totals.takeError();
    result.push_back(std::move(*totals));
  }
  return result;
}

/// The entry of `lists` (most recent first) that `matches`, moved to the
/// front, or null: the lookup of TemplateBytesCache and TemplateCostCache.
template <typename Entry, typename Predicate>
static Entry *findRecent(std::vector<Entry> &lists, Predicate matches) {
  auto found = llvm::find_if(lists, matches);
  if (found == lists.end())
    return nullptr;
  std::rotate(lists.begin(), found, std::next(found));
  return &lists.front();
}

/// `fresh` as the most recent entry of `lists`, which keeps `limit`.
template <typename Entry>
static Entry &addRecent(std::vector<Entry> &lists, Entry fresh, size_t limit) {
  lists.insert(lists.begin(), std::move(fresh));
  if (lists.size() > limit)
    lists.pop_back();
  return lists.front();
}

llvm::Expected<std::shared_ptr<const TemplateBytesCache::Bytes>>
TemplateBytesCache::of(const workload::WholeRun &parts) {
  auto alike = [&](const List &list) {
    if (list.kvCacheWindow != parts.kvCacheWindow)
      return false;
    if (list.templates.sameListAs(parts.templates))
      return true;
    return list.templates.size() == parts.templates.size() &&
           std::equal(list.templates.begin(), list.templates.end(),
                      parts.templates.begin(),
                      [](const workload::RunTemplate &kept,
                         const workload::RunTemplate &runTemplate) {
                        return kept.part == runTemplate.part &&
                               kept.pass == runTemplate.pass &&
                               kept.context == runTemplate.context &&
                               kept.work.invocations ==
                                   runTemplate.work.invocations;
                      });
  };
  if (List *found = findRecent(lists, alike)) {
    ++sharedCount;
    return found->bytes;
  }
  llvm::Expected<Bytes> bytes = workload::templateBytesOf(parts);
  if (!bytes)
    return bytes.takeError();
  List fresh;
  fresh.kvCacheWindow = parts.kvCacheWindow;
  fresh.templates = parts.templates;
  fresh.bytes = std::make_shared<const Bytes>(std::move(*bytes));
  return addRecent(lists, std::move(fresh), kLists).bytes;
}

std::shared_ptr<TemplateCosts>
TemplateCostCache::of(llvm::ArrayRef<workload::RunTemplate> templates,
                      const workload::MappingSpec &mapping,
                      workload::DataType computeType) {
  analysis::TemplateCostInputs inputs =
      analysis::templateCostInputsOf(templates, mapping, computeType);
  if (std::shared_ptr<TemplateCosts> *found =
          findRecent(lists, [&](const std::shared_ptr<TemplateCosts> &kept) {
            return kept->inputs == inputs &&
                   analysis::sameTemplateCostsRead(kept->templates, templates);
          })) {
    ++sharedCount;
    return *found;
  }
  auto fresh = std::make_shared<TemplateCosts>();
  fresh->inputs = std::move(inputs);
  fresh->templates.assign(templates.begin(), templates.end());
  return addRecent(lists, std::move(fresh), kLists);
}

/// The tier `binding` binds `axis` to ("" when none), valid while
/// `binding` is.
static llvm::StringRef tierOf(const estimate::NetworkTierBinding &binding,
                              llvm::StringRef axis) {
  auto bound = binding.tierOfAxis.find(axis.str());
  return bound == binding.tierOfAxis.end() ? llvm::StringRef()
                                           : llvm::StringRef(bound->second);
}

/// Whether the memo key `kept` lists `tiers`.
static bool sameTiers(llvm::ArrayRef<std::string> kept,
                      llvm::ArrayRef<llvm::StringRef> tiers) {
  return kept.size() == tiers.size() &&
         std::equal(kept.begin(), kept.end(), tiers.begin(),
                    [](const std::string &keptTier, llvm::StringRef tier) {
                      return tier == keptTier;
                    });
}

/// `tiers` as a memo key, which outlives the binding they name.
static TemplateCosts::Tiers ownedTiers(llvm::ArrayRef<llvm::StringRef> tiers) {
  TemplateCosts::Tiers key;
  for (llvm::StringRef tier : tiers)
    key.push_back(tier.str());
  return key;
}

llvm::Expected<bool>
RunSkeleton::costSources(const workload::WholeRun &parts,
                         analysis::StepCoster &coster,
                         const estimate::NetworkTierBinding &binding,
                         CostMemo &memo, TimeScratch &scratch) const {
  // A block's costs depend on the tiers of the axes its collectives span
  // (its TemplateCostInputs), and overlap_tp_comm changes what its
  // backward steps cost: both vary between a run's configurations.
  if (!memo.templates) {
    memo.templates = std::make_shared<TemplateCosts>();
    memo.templates->inputs = coster.templateCostInputs(parts.templates);
  }
  TemplateCosts &templateCosts = *memo.templates;
  // The tiers of a key, looked up as names in `binding` and copied only
  // into a new key.
  llvm::SmallVector<llvm::StringRef, 4> tiers;
  for (const estimate::MeshAxis &axis : templateCosts.inputs.spannedAxes)
    tiers.push_back(tierOf(binding, axis.name));
  bool overlapsTPComm = coster.overlapsTPComm();
  auto knownTemplates = llvm::find_if(
      templateCosts.seconds, [&](const TemplateCosts::Seconds &kept) {
        return kept.overlapsTPComm == overlapsTPComm &&
               sameTiers(kept.tiers, tiers);
      });
  if (knownTemplates == templateCosts.seconds.end()) {
    llvm::Expected<std::vector<double>> costed =
        coster.templateSeconds(parts.templates);
    if (!costed)
      return costed.takeError();
    templateCosts.seconds.push_back(
        {ownedTiers(tiers), overlapsTPComm, std::move(*costed)});
    knownTemplates = std::prev(templateCosts.seconds.end());
  }
  // Valid while nothing else is pushed to templateCosts.seconds: nothing
  // below costs a template.
  const std::vector<double> &templateSeconds = knownTemplates->seconds;
  // A work's key: its stage (0 for a shared work, stage + 1 for a tail's)
  // and index, then the tiers of its axis and inner axes.
  auto workSecondsOf = [&](const workload::RunWork &work, uint32_t stage,
                           uint32_t index) -> llvm::Expected<double> {
    tiers.assign(1, tierOf(binding, work.axis));
    if (work.invocation->collective)
      for (const std::string &inner : work.invocation->collective->innerAxes)
        tiers.push_back(tierOf(binding, inner));
    llvm::SmallVector<CostMemo::WorkSeconds, 1> &known =
        memo.workSeconds[{stage, index}];
    for (const CostMemo::WorkSeconds &kept : known)
      if (sameTiers(kept.tiers, tiers))
        return kept.seconds;
    llvm::Expected<double> costed = coster.runWorkSeconds(work);
    if (costed)
      known.push_back({ownedTiers(tiers), *costed});
    return costed;
  };
  // Each source is costed once (a shared work for every stage, a tail's
  // for its stage), then its times are copied to its steps.
  std::vector<double> &sourceSeconds = scratch.sourceSeconds;
  std::vector<double> &sourceTransfers = scratch.sourceTransfers;
  sourceSeconds.assign(sources.size(), 0);
  sourceTransfers.assign(sources.size(), 0);
  for (auto [index, source] : llvm::enumerate(sources)) {
    switch (source.kind) {
    case TimeSource::Kind::Instance:
      sourceSeconds[index] = analysis::StepCoster::instanceSeconds(
          templateSeconds[source.index], source.repetitions);
      break;
    case TimeSource::Kind::Send:
    case TimeSource::Kind::Receive: {
      bool send = source.kind == TimeSource::Kind::Send;
      double transferSeconds = 0;
      if (send) {
        std::string ppTier =
            tierOf(binding, workload::kPipelineParallelAxis).str();
        auto known = memo.transferSeconds.find(ppTier);
        if (known == memo.transferSeconds.end()) {
          llvm::Expected<double> transfer =
              coster.transferSeconds(parts.messageBytes);
          if (!transfer)
            return transfer.takeError();
          known = memo.transferSeconds.emplace(ppTier, *transfer).first;
        }
        transferSeconds = known->second;
      }
      analysis::MessageTimes times = analysis::messageTimes(
          send, transferSeconds, coster.overlapsP2PComm());
      sourceSeconds[index] = times.seconds;
      sourceTransfers[index] = times.transferSeconds;
      break;
    }
    case TimeSource::Kind::Work: {
      WorkRef ref = source.work;
      uint32_t stage = ref.shared ? 0 : source.index;
      llvm::Expected<double> costed = workSecondsOf(
          workOf(parts, stage, ref), ref.shared ? 0 : stage + 1, ref.index);
      if (!costed)
        return costed.takeError();
      sourceSeconds[index] = *costed;
      break;
    }
    }
  }
  // Each source's times rounded once to the picosecond, the rounding
  // longestPath applies to each of its steps: the same integers.
  std::vector<estimate::Picoseconds> &sourceDurations = scratch.sourceDurations;
  std::vector<estimate::Picoseconds> &sourceTransferDurations =
      scratch.sourceTransferDurations;
  sourceDurations.resize(sources.size());
  sourceTransferDurations.resize(sources.size());
  bool rounded = true;
  for (size_t index = 0; index < sources.size(); ++index) {
    std::optional<estimate::Picoseconds> duration =
        estimate::picosecondsOf(sourceSeconds[index]);
    std::optional<estimate::Picoseconds> transfer =
        estimate::picosecondsOf(sourceTransfers[index]);
    rounded = rounded && duration && transfer;
    sourceDurations[index] = duration.value_or(0);
    sourceTransferDurations[index] = transfer.value_or(0);
  }
  return rounded;
}

llvm::Expected<std::optional<estimate::Picoseconds>>
RunSkeleton::chainBound(const workload::WholeRun &parts,
                        analysis::StepCoster &coster,
                        const estimate::NetworkTierBinding &binding,
                        CostMemo &memo, TimeScratch &scratch) const {
  llvm::Expected<bool> rounded =
      costSources(parts, coster, binding, memo, scratch);
  if (!rounded)
    return rounded.takeError();
  if (!*rounded)
    return std::nullopt;
  estimate::Picoseconds longest = 0;
  for (size_t chain = 0; chain + 1 < chainBegin.size(); ++chain) {
    estimate::Picoseconds sum = 0;
    for (auto [source, count] :
         llvm::ArrayRef(chainCounts)
             .slice(chainBegin[chain],
                    chainBegin[chain + 1] - chainBegin[chain])) {
      estimate::Picoseconds steps = 0;
      if (llvm::MulOverflow(scratch.sourceDurations[source],
                            static_cast<estimate::Picoseconds>(count), steps) ||
          llvm::AddOverflow(sum, steps, sum))
        return std::nullopt;
    }
    longest = std::max(longest, sum);
  }
  return longest;
}

llvm::Expected<PathFigures>
RunSkeleton::time(const workload::WholeRun &parts, analysis::StepCoster &coster,
                  const estimate::NetworkTierBinding &binding, CostMemo &memo,
                  TimeScratch &scratch) const {
  if (!planned)
    return failure("the skeleton has no timing plan");
  llvm::Expected<bool> costed =
      costSources(parts, coster, binding, memo, scratch);
  if (!costed)
    return costed.takeError();
  bool rounded = *costed;
  const std::vector<double> &sourceSeconds = scratch.sourceSeconds;
  const std::vector<double> &sourceTransfers = scratch.sourceTransfers;
  const std::vector<estimate::Picoseconds> &sourceDurations =
      scratch.sourceDurations;
  const std::vector<estimate::Picoseconds> &sourceTransferDurations =
      scratch.sourceTransferDurations;
  auto describe = [&](uint32_t id) {
    size_t stage = static_cast<size_t>(llvm::upper_bound(plan.stageBegin, id) -
                                       plan.stageBegin.begin() - 1);
    return "stage " + std::to_string(stage) + " step " +
           std::to_string(id - plan.stageBegin[stage]);
  };
  // Whether the scratch holds this skeleton's last timing: only the steps
  // from the first whose times changed, in timing order, are timed again.
  bool resumable = scratch.timedSkeleton == serial;
  scratch.timedSkeleton = 0;
  size_t from = 0;
  if (!rounded) {
    // Rare: the step by step rounding names the first bad step in timing
    // order, as longestPath does.
    std::vector<double> seconds(plan.steps()), transfers(plan.steps()),
        ready(plan.steps(), 0);
    for (size_t id = 0; id < sourceOf.size(); ++id) {
      seconds[id] = sourceSeconds[sourceOf[id]];
      transfers[id] = sourceTransfers[sourceOf[id]];
    }
    for (auto [id, source] : readySources)
      ready[id] = sourceSeconds[source];
    if (llvm::Error error = analysis::roundStepTimes(
            plan, seconds, transfers, ready, describe, scratch.times))
      return std::move(error);
  } else {
    analysis::StepDurations &times = scratch.times;
    if (!resumable) {
      times.durations.resize(plan.steps());
      times.transfers.resize(plan.steps());
      times.ready.assign(plan.steps(), 0);
    }
    // The steps' times, and the first position in timing order whose times
    // differ from the last call's (none when not resumable: from 0).
    size_t firstChanged = resumable ? plan.steps() : 0;
    auto update = [&](estimate::Picoseconds &slot, estimate::Picoseconds value,
                      size_t id) {
      if (slot != value) {
        firstChanged = std::min<size_t>(firstChanged, plan.position[id]);
        slot = value;
      }
    };
    for (size_t id = 0; id < sourceOf.size(); ++id) {
      update(times.durations[id], sourceDurations[sourceOf[id]], id);
      update(times.transfers[id], sourceTransferDurations[sourceOf[id]], id);
    }
    for (auto [id, source] : readySources)
      update(times.ready[id], sourceDurations[source], id);
    from = firstChanged;
  }
  analysis::PlanTiming &timing = scratch.timing;
  if (llvm::Error error =
          analysis::timeSteps(plan, scratch.times, describe, timing, from))
    return std::move(error);
  scratch.timedSkeleton = serial;
  scratch.keptStepTimings += timing.timedFrom;
  PathFigures figures;
  figures.iterationPicoseconds = timing.iterationPicoseconds;
  figures.exposedCommunicationPicoseconds =
      timing.exposedCommunicationPicoseconds;
  return figures;
}
