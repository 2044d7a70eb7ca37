//===- RunSkeleton.h - The shape of a training run, shared by runs -*- C++ -*-//
//
// A search evaluates thousands of runs, and most share their shape: the
// same pipeline schedule, stages, micro-batches, layout and stage tails,
// with other templates, buckets and message sizes (another TP degree,
// recompute policy, ZeRO shard or network tier). The steps, buffers and
// timing plan of a run depend on its shape alone; its values (what each
// template, work and message costs and holds) on its parts
// (workload::deriveRunParts). A RunSkeleton keeps what one derivation of
// the shape gives - every step's value source, every buffer's lifetime and
// source, and once a run of it is timed the timing plan and every stage's
// usage - and evaluates another
// run of the shape from that run's parts, through the same functions the
// whole derivation calls (sourceBytes and livePeak, stageTotalsOf,
// StepCoster and timeSteps). The numbers are the same to the bit: the same
// integer sums, and the same floating-point operations in the same order
// (docs/Sweep.md, "Speed, threads, memory").
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SWEEP_RUNSKELETON_H
#define BLUEPRINT_SWEEP_RUNSKELETON_H

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/WholeRun.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace blueprint::sweep {

/// What fixes the shape of a training run, as integers: runs with equal
/// keys have the same steps, buffers and timing plan. Names (primitives,
/// axes) are numbered by the ShapeNames that made the key.
using ShapeKey = std::vector<int64_t>;

/// Numbers names for shape keys, in the order it first sees them; safe to
/// share between threads.
class ShapeNames {
public:
  int64_t number(llvm::StringRef name);

private:
  std::mutex mutex;
  llvm::StringMap<int64_t> numbers;
};

/// The key of the training run whose parts are `parts` under `mapping`.
ShapeKey shapeKeyOf(const workload::WholeRun &parts,
                    const workload::MappingSpec &mapping, ShapeNames &names);

/// The templates' seconds of the runs whose templates have the same
/// analysis::TemplateCostInputs and the same invocations and cadences
/// (analysis::sameTemplateCostsRead), by the tiers of the inputs' spanned
/// axes, in their order, and overlap_tp_comm: what
/// StepCoster::templateSeconds returned for the first run that needed them
/// under those.
struct TemplateCosts {
  /// The tiers of some axes, in order ("" for an unbound axis): a list,
  /// so no tier name can make two lists equal. Inline: a key has one tier
  /// per axis a piece's collectives span, rarely more than three.
  using Tiers = llvm::SmallVector<std::string, 3>;
  /// The templates' seconds under `tiers` and `overlapsTPComm`.
  struct Seconds {
    Tiers tiers;
    bool overlapsTPComm = false;
    std::vector<double> seconds;
  };
  analysis::TemplateCostInputs inputs;
  std::vector<workload::RunTemplate> templates;
  /// Each distinct key once, in the order first costed: a handful (the
  /// tier choices of the spanned axes, with and without overlap_tp_comm),
  /// searched in turn without building a key.
  std::vector<Seconds> seconds;
};

/// The TemplateCosts of the last few distinct template lists one worker
/// met (most recent first): the runs that differ only in pp, the schedule,
/// the layout, the buckets or among ZeRO stages 1-3 have the same templates
/// (ZeRO 0's optimizer steps are templates, ZeRO 1-3's are not), and the
/// enumeration varies the recompute policy and TP communication inside
/// those, so the last few lists hold nearly all repeats. The profile is an
/// input of the costs and not of the key: a cache belongs to one
/// FastEvaluator, which prices with one profile.
class TemplateCostCache {
public:
  /// How many lists it keeps.
  static constexpr size_t kLists = 16;
  /// The costs of `templates` in a run of `mapping` whose activation type
  /// is `computeType`: those of an earlier run with the same inputs and
  /// templates, or new ones.
  std::shared_ptr<TemplateCosts>
  of(llvm::ArrayRef<workload::RunTemplate> templates,
     const workload::MappingSpec &mapping, workload::DataType computeType);

  /// How many times of() found an earlier run's costs (a statistic).
  size_t shared() const { return sharedCount; }

private:
  std::vector<std::shared_ptr<TemplateCosts>> lists;
  size_t sharedCount = 0;
};

/// The template bytes (workload::templateBytesOf) of the last few distinct
/// template lists one worker met, most recent first: as for
/// TemplateCostCache, the runs that differ only in pp, the schedule, the
/// layout, the buckets or among ZeRO stages 1-3 have the same templates.
/// Two runs' lists are alike when templateBytesOf reads them alike: each
/// template's part, pass, context and invocations, and the run's KV-cache
/// window.
class TemplateBytesCache {
public:
  /// How many lists it keeps.
  static constexpr size_t kLists = 16;
  using Bytes = std::vector<workload::TemplateBytes>;
  /// templateBytesOf(parts): an earlier run's, when its templates are
  /// alike, or new ones.
  llvm::Expected<std::shared_ptr<const Bytes>>
  of(const workload::WholeRun &parts);

  /// How many times of() found an earlier run's bytes (a statistic).
  size_t shared() const { return sharedCount; }

private:
  struct List {
    std::optional<int64_t> kvCacheWindow;
    workload::RunTemplateList templates;
    std::shared_ptr<const Bytes> bytes;
  };
  std::vector<List> lists;
  size_t sharedCount = 0;
};

class RunSkeleton {
public:
  /// The skeleton of `run` (deriveWholeRun), whose parts are `parts`, its
  /// buffers `buffers` (deriveBufferLifetimes), and `graph`, its graph
  /// (runGraphOf), or
  /// none: a skeleton without its timing plan, which gives memory and the
  /// chain bound but neither times nor totals (withPlan adds the plan and
  /// the stages' usage when a run of the shape is first timed; a query
  /// times only the runs that fit, docs/Sweep.md "What a query computes").
  /// Fails if they do not line up
  /// (a stage tail that is not the end of its stage's steps, a work neither
  /// shared nor in the tail, a graph of other steps).
  static llvm::Expected<RunSkeleton>
  build(const workload::WholeRun &run, const workload::WholeRun &parts,
        llvm::ArrayRef<workload::StageLifetimes> buffers,
        const analysis::RunGraph *graph);

  /// Whether this skeleton has its timing plan (time() needs it).
  bool timed() const { return planned; }
  /// This skeleton with the timing plan of `graph`, the graph (runGraphOf)
  /// of `run`, a whole run of its shape, as build gives it with that graph.
  llvm::Expected<RunSkeleton> withPlan(const workload::WholeRun &run,
                                       const analysis::RunGraph &graph) const;

  /// Whether `parts` has what this skeleton reads: as many templates,
  /// shared works and tail steps per stage.
  bool fits(const workload::WholeRun &parts) const;

  /// The peak per GPU (addStagePeak, addCapacityFigures) of the run whose
  /// parts are `parts` and template bytes `templateBytes` (templateBytesOf
  /// of the parts), as addMemoryFigures gives it. With
  /// `stopOverCapacity` (a query, which reads no figure of a run that does
  /// not fit), the stages after the first whose peak exceeds the usable
  /// capacity are left out: the figures then hold the peak so far, a lower
  /// bound of the run's, marked peakIsBound.
  llvm::Error
  addMemoryFigures(RunFigures &figures, const workload::WholeRun &parts,
                   llvm::ArrayRef<workload::TemplateBytes> templateBytes,
                   const workload::MappingSpec &mapping,
                   const workload::TrainingSpec &training,
                   const estimate::SystemProfile &profile,
                   bool stopOverCapacity = false) const;

  /// The totals of every stage of that run, as summarizeWholeRun gives
  /// them. Fails on a skeleton without its timing plan (timed()).
  llvm::Expected<std::vector<workload::StageTotals>>
  totals(const workload::WholeRun &parts) const;

  /// What the pieces of one run cost, kept between its bindings. Under a
  /// binding the estimate accepts, a template or work costs what its tasks
  /// cost on the tiers bound to their mesh axes (a compute task costs the
  /// same on every binding): those tiers are the key (the tier `tierOf`
  /// gives the work's axis, then its inner axes', compared by `sameTiers` in
  /// RunSkeleton::time).
  struct CostMemo {
    using Tiers = TemplateCosts::Tiers;
    /// The templates' seconds, shared by the runs whose templates cost the
    /// same (TemplateCostCache); time() makes one for this run alone when
    /// none is given.
    std::shared_ptr<TemplateCosts> templates;
    /// By the tier of axis pp.
    std::map<std::string, double> transferSeconds;
    /// A work's seconds under the tiers of its axis and inner axes (dp and
    /// cp for a gradient reduction at cp > 1).
    struct WorkSeconds {
      Tiers tiers;
      double seconds = 0;
    };
    /// By the work's stage (0 for a shared work, stage + 1 for a tail's)
    /// and index, then each distinct tiers it was costed under (a few: the
    /// tier choices of its axes), searched in turn without building a key.
    llvm::DenseMap<std::pair<uint32_t, uint32_t>,
                   llvm::SmallVector<WorkSeconds, 1>>
        workSeconds;
  };

  /// The critical path of that run under `coster` (whose binding the
  /// estimate accepts: search rejects any other first), as longestPath
  /// gives it; `memo` keeps the costs of that run, `scratch` is reused
  /// between calls.
  /// Between calls for one skeleton (a run's bindings come one after
  /// another), `timing` and `times` hold the last call's: time() compares
  /// the new step times with them and re-times only the steps from the
  /// first changed one in timing order (analysis::timeSteps' `from`); a
  /// binding that changes only the data-parallel tier changes only each
  /// stage's data-parallel collectives (gradient reductions, ZeRO's
  /// parameter gathers; edp's at ep > 1), which close the stage's backward
  /// unless overlap_dp_grad_reduce runs them beside it.
  struct TimeScratch {
    analysis::PlanTiming timing;
    analysis::StepDurations times;
    /// The serial of the skeleton whose successful timing `timing` and
    /// `times` hold; 0 for none.
    uint64_t timedSkeleton = 0;
    /// The steps whose timing the calls kept from the call before, summed
    /// over the calls (a statistic: FastEvaluator::keptStepTimings).
    uint64_t keptStepTimings = 0;
    std::vector<double> sourceSeconds;
    std::vector<double> sourceTransfers;
    std::vector<estimate::Picoseconds> sourceDurations;
    std::vector<estimate::Picoseconds> sourceTransferDurations;
  };
  /// Fails on a skeleton without its timing plan (timed()).
  llvm::Expected<PathFigures> time(const workload::WholeRun &parts,
                                   analysis::StepCoster &coster,
                                   const estimate::NetworkTierBinding &binding,
                                   CostMemo &memo, TimeScratch &scratch) const;

  /// A lower bound of the iteration time() gives for the same arguments,
  /// from the steps alone (no timing plan needed): the longest of the
  /// stages' chains, a chain being the sum of the durations, as time()
  /// rounds them, of steps of one stage that each wait for the end of the
  /// chain's previous step (docs/Sweep.md, "Configurations a query cannot
  /// report"). None when a duration cannot be rounded or the sum
  /// exceeds int64_t picoseconds (time() then says why, or times a run that
  /// large). Fails where time() would fail to cost a step.
  llvm::Expected<std::optional<estimate::Picoseconds>>
  chainBound(const workload::WholeRun &parts, analysis::StepCoster &coster,
             const estimate::NetworkTierBinding &binding, CostMemo &memo,
             TimeScratch &scratch) const;

  size_t steps() const { return plan.steps(); }
  /// The bytes this skeleton holds (its own and its vectors').
  size_t bytes() const;

private:
  /// A stage-level work: WholeRun::works[index] when shared, else the
  /// stage tail's step `index`.
  struct WorkRef {
    bool shared = false;
    uint32_t index = 0;
  };
  /// Where a step's time comes from. Steps with the same source take the
  /// same time under every binding: each source is costed once per binding
  /// and its times copied to its steps.
  struct TimeSource {
    enum class Kind : uint8_t { Instance, Send, Receive, Work };
    Kind kind = Kind::Receive;
    /// An instance's template; a work's stage (for a tail work).
    uint32_t index = 0;
    /// An instance's repetitions.
    int64_t repetitions = 0;
    /// A work.
    WorkRef work;

    /// Every field, as a DenseMap key: sources with equal keys are one
    /// source. A field added above must be added here, or two sources that
    /// differ only in it would be merged and share their times.
    using Key = std::tuple<uint8_t, uint32_t, int64_t, uint8_t, uint32_t>;
    Key key() const {
      return {static_cast<uint8_t>(kind), index, repetitions,
              static_cast<uint8_t>(work.shared), work.index};
    }
  };
  struct StageShape {
    size_t positions = 0;
    /// The stage's tail (its parts' steps) starts here.
    size_t tailBegin = 0;
    /// A buffer's lifetime (workload::LiveSpan's positions) and its index
    /// in `sources`: 12 bytes where a LiveSpan and an index take 28, as a
    /// search keeps the skeleton of every shape it meets.
    struct Span {
      uint32_t start = 0;
      uint32_t end = 0;
      uint32_t source = 0;
    };
    /// The stage's buffers.
    std::vector<Span> spans;
    /// Each distinct source of the buffers once, in the order the buffers
    /// first name it (Work sources index `works`; a Message source indexes
    /// nothing, every message of a training run carries the run's message
    /// bytes): thousands of buffers (the stashes, messages and working sets
    /// of every micro-batch) have tens of sources, and sourceBytes runs once
    /// per source.
    std::vector<workload::BufferSource> sources;
    /// usage.works index `works`. Set with the plan (setPlan): only a run
    /// that is timed reads its totals.
    workload::StageUsage usage;
    std::vector<WorkRef> works;
  };

  const workload::RunWork &workOf(const workload::WholeRun &parts, size_t stage,
                                  WorkRef ref) const;
  /// Every source's seconds and transfer under `coster` into `scratch`
  /// (sourceSeconds, sourceTransfers), and whether each rounds to
  /// picoseconds (sourceDurations, sourceTransferDurations; 0 where one
  /// does not): what time() and chainBound read.
  llvm::Expected<bool> costSources(const workload::WholeRun &parts,
                                   analysis::StepCoster &coster,
                                   const estimate::NetworkTierBinding &binding,
                                   CostMemo &memo, TimeScratch &scratch) const;
  /// Appends the chain of `program`'s stage (chainBound), whose steps'
  /// sources are `sourceOfStep`, to `skeleton`'s; `chainEndAt` and
  /// `countOf` are scratch.
  static void tallyChain(RunSkeleton &skeleton,
                         const workload::StageProgram &program,
                         llvm::ArrayRef<uint32_t> sourceOfStep,
                         std::vector<int64_t> &chainEndAt,
                         std::vector<uint32_t> &countOf);
  /// Sets `plan` from `graph`, the graph of `run`, and each stage's usage
  /// from `run` (the steps of every stage must be the skeleton's), and
  /// gives the skeleton a new serial.
  llvm::Error setPlan(const workload::WholeRun &run,
                      const analysis::RunGraph &graph);

  std::vector<StageShape> stages;
  std::vector<TimeSource> sources;
  /// Each step's index in `sources`, by the plan's step numbering.
  std::vector<uint32_t> sourceOf;
  /// For each step ready inside an instance (overlap_dp_grad_reduce), its
  /// number and the source of how long after that instance's start it is
  /// ready (analysis::TimingPlan::readyAfter).
  std::vector<std::pair<uint32_t, uint32_t>> readySources;
  /// Each stage's chain (chainBound) as its distinct sources and how many
  /// of its steps each times: chainCounts[chainBegin[s] .. chainBegin[s +
  /// 1]) for stage s.
  std::vector<uint32_t> chainBegin;
  std::vector<std::pair<uint32_t, uint32_t>> chainCounts;
  analysis::TimingPlan plan;
  /// Whether `plan` is set (build's graph, or withPlan).
  bool planned = false;
  size_t templates = 0;
  size_t sharedWorks = 0;
  /// Unique to each skeleton given a plan in the process (0 without one):
  /// whether a TimeScratch holds this skeleton's timing, which an address
  /// cannot say once a dropped skeleton's memory is reused.
  uint64_t serial = 0;
};

/// The skeletons of the shapes a search met, shared by its workers: each
/// shape is derived in whole once, by the first worker that needs it,
/// while the others wait for it. Holds skeletons (and the keys of shapes
/// that have none) of at most `budgetBytes` bytes (RunSkeleton::bytes and
/// the keys), dropping the least recently used beyond it: runs that differ
/// only in the recompute policy share a shape (every such pair of the GPT-3
/// 175B space on 64 GPUs; every other axis that space varies alone changes
/// the shape), and the enumeration varies recompute inside every axis but
/// the ZeRO stage and TP communication, so those runs come a few runs
/// apart. A shape also recurs across the outer axes (tp 1 at micro-batch 1
/// and tp 2 at micro-batch 2 on the same GPUs have one micro-batch count),
/// hundreds of shapes apart (351-1,131 on that space, bench/README.md, "The
/// eighth round"): a budget that holds every shape of a space derives each
/// once, in fewer instructions but, as measured, no less CPU time
/// (docs/Sweep.md, "Speed, threads, memory"). A skeleton is a pure
/// function of its key: what is cached never changes a result.
class SkeletonCache {
public:
  /// 16 MiB (372 cache entries of the GPT-3 175B space on 64 GPUs). Holding
  /// every shape of that space (2,166 shapes, 358 MiB) derived 1,748 fewer
  /// shapes in 10% fewer instructions, but with one worker took 9% more CPU
  /// time and three times the peak memory (with two, against main, 0.973
  /// of its CPU time and twice its peak: on a loaded machine, so the choice
  /// rests on noisy runs); a budget between (64 MiB, 843 entries)
  /// derived nearly as many as 16 MiB (3,910 against 3,914;
  /// bench/README.md, "The fifth round").
  static constexpr size_t kDefaultBudgetBytes = size_t(16) << 20;
  explicit SkeletonCache(size_t budgetBytes = kDefaultBudgetBytes)
      : budgetBytes(budgetBytes) {}

  ShapeNames &names() { return shapeNames; }
  /// The skeleton of `key`, waiting while another caller builds it. None
  /// when the shape has no skeleton: `build` then says whether the caller
  /// is to build it (and call insert, or abandon if it cannot) or an
  /// earlier build failed (the shape's runs are then derived in whole).
  /// When `planned`, the skeleton with its timing plan
  /// (RunSkeleton::timed), waiting also while another caller adds it; a
  /// skeleton kept without one is none, with `build` set for the caller
  /// to add it (insert what withPlan gives, or call abandonTiming) unless
  /// an earlier attempt failed (the shape's runs are then timed by the
  /// whole derivation).
  std::shared_ptr<const RunSkeleton> acquire(const ShapeKey &key, bool &build,
                                             bool planned = false);
  /// Keeps `skeleton` as the skeleton of `key`, in place of the one without
  /// a plan it may have held.
  std::shared_ptr<const RunSkeleton> insert(const ShapeKey &key,
                                            RunSkeleton skeleton);
  /// Records that the skeleton of `key` cannot be built.
  void abandon(const ShapeKey &key);
  /// Records that the plan of `key` cannot be derived; `untimed` is its
  /// skeleton without one, kept if the cache dropped it meanwhile.
  void abandonTiming(const ShapeKey &key,
                     std::shared_ptr<const RunSkeleton> untimed);

  /// The most entries (skeletons and failed shapes' keys) and the most
  /// bytes the cache held at once, each its own maximum (a statistic).
  size_t peakEntries() const { return peakHeldEntries; }
  size_t peakBytes() const { return peakHeldBytes; }

private:
  struct Entry {
    /// None while a caller builds it, or when it could not.
    std::shared_ptr<const RunSkeleton> skeleton;
    bool failed = false;
    /// A caller adds the skeleton's plan (never dropped meanwhile).
    bool planning = false;
    /// The plan could not be derived.
    bool planFailed = false;
    size_t lastUse = 0;
    /// What the entry holds once settled (its key and skeleton).
    size_t bytes = 0;
  };
  /// Settles `entry` of `key` (built or failed), then drops the least
  /// recently used settled entries, never `entry`, while the settled ones
  /// hold more than the budget.
  void settle(const ShapeKey &key, Entry &entry);
  size_t budgetBytes;
  ShapeNames shapeNames;
  std::mutex mutex;
  std::condition_variable built;
  std::map<ShapeKey, Entry> entries;
  size_t uses = 0;
  size_t heldBytes = 0;
  size_t heldEntries = 0;
  size_t peakHeldBytes = 0;
  size_t peakHeldEntries = 0;
};

} // namespace blueprint::sweep

#endif // BLUEPRINT_SWEEP_RUNSKELETON_H
