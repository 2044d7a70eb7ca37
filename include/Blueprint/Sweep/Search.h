//===- Search.h - Design-space search over whole runs -----------*- C++ -*-===//
//
// The search of docs/Sweep.md ("Search"): a space of mappings of one run
// (tp, cp, pp, dp, ep, micro-batch, virtual stages, schedule, layout,
// recompute, sequence parallelism, the cp exchange, ZeRO stage, bucket size,
// and the network tier of every mesh axis), each configuration evaluated as a
// whole run - the peak memory per GPU of its worst stage against the
// profile's usable capacity, and the iteration time as the critical path -
// either on the fast path (the plain libraries the passes call, no IR) or
// through the MLIR pipeline (--distribute-transformer=scope=iteration
// --plan-portable --verify-conservation, then the plan's analyses). Both paths
// call one implementation of every formula; the tests require byte-identical
// rows.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SWEEP_SEARCH_H
#define BLUEPRINT_SWEEP_SEARCH_H

#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Sweep/RunSkeleton.h"
#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::sweep {

/// The contracts of one run: a model, exactly one workload, a mapping.
struct RunContracts {
  /// The ModelIR symbol (the spec's name made a symbol).
  std::string name;
  workload::ModelSpec model;
  std::optional<workload::TrainingSpec> training;
  std::optional<workload::InferenceSpec> inference;
  workload::MappingSpec mapping;
};

/// Imports `specJSON` (docs/ImportJSON.md) with the JSON importer, naming
/// the source `label`; fails with the importer's diagnostics, one per line.
llvm::Expected<RunContracts> importContracts(llvm::StringRef specJSON,
                                             llvm::StringRef label);

/// What a search reads (docs/Sweep.md, "Search spaces"): the base run and
/// the grid over it.
struct SearchInput {
  RunContracts base;
  llvm::json::Object grid;
};

/// Reads the JSON text `input` of a space, `{"spec": <spec object or path of
/// a spec file>, "grid": {...}}`, or of a spec alone (the space of its run
/// with no grid), and imports its spec. `inputFile` is where the text came
/// from ("-": stdin): a relative spec path is relative to its folder. Every
/// error starts with `inputFile` and names the JSON path.
llvm::Expected<SearchInput> parseSearchInput(llvm::StringRef input,
                                             llvm::StringRef inputFile);

/// One configuration of a search: the run and the network tier of each mesh
/// axis with more than one rank.
struct Configuration {
  RunContracts run;
  estimate::NetworkTierBinding binding;
  /// Configurations SearchSpace::enumerate gives one run number differ at
  /// most in their binding, overlap_tp_comm and overlap_p2p_comm (its
  /// innermost axes, which change costs, not the derivation), so the fast
  /// path derives their run once.
  size_t runNumber = 0;
  /// Whether the point has the field `overlap_tp_comm`: only when the
  /// space's grid lists that axis, so every other space's rows keep their
  /// fields (docs/Sweep.md).
  bool pointHasOverlapTPComm = false;
  /// Whether the point has the field `overlap_dp_grad_reduce`: only when
  /// the space's grid lists that axis.
  bool pointHasOverlapDPGradReduce = false;
  /// Whether the point has the field `overlap_p2p_comm`: only when the
  /// space's grid lists that axis.
  bool pointHasOverlapP2PComm = false;
  /// Whether the point has the fields `ep`, `edp_tier` and `ep_tier`:
  /// only when the space's model has routed experts, so that every dense
  /// space's rows keep their fields (docs/Sweep.md, "Expert parallelism").
  bool pointHasExpertParallel = false;
};

/// How far a configuration got.
enum class SearchStage {
  /// A contract or composition rule (the importer's checks).
  Contracts,
  /// The binding is not physically possible (estimate::checkMeshBinding).
  Binding,
  /// The derivation, a pass or the plan's analyses failed.
  Derivation,
};

/// "contracts", "binding" or "derivation".
llvm::StringRef stringifySearchStage(SearchStage stage);

/// The outcome of one configuration on either path.
struct RunEvaluation {
  std::optional<SearchStage> rejectedAt;
  std::vector<std::string> diagnostics;
  RunFigures run;

  bool valid() const { return !rejectedAt; }
  /// Valid, fits the capacity and has a time.
  bool feasible() const {
    return valid() && run.fits && run.iterationPicoseconds.has_value();
  }
};

/// What a query has found so far, fixed while a chunk of configurations is
/// evaluated (docs/Sweep.md, "Configurations a query cannot report"): a
/// configuration enumerated after all of it that the bar excludes can enter
/// neither the K best nor the front, so the query need not time it.
struct QueryBar {
  /// A point of the front: its time, peak per GPU and GPUs.
  struct Point {
    estimate::Picoseconds picoseconds = 0;
    int64_t peakBytes = 0;
    int64_t gpus = 0;
  };
  /// Whether the query asks for the K best (--top=K), and once K are kept
  /// the K-th best's time (TopK::worstKept): until then nothing is
  /// excluded.
  bool top = false;
  std::optional<estimate::Picoseconds> kthBest;
  /// With --pareto, the front's points; none without.
  std::optional<std::vector<Point>> front;

  /// Whether a configuration that takes at least `atLeast`, needs
  /// `peakBytes` per GPU on `gpus` GPUs and comes after every configuration
  /// the bar holds is excluded: under --top, strictly slower than the K-th
  /// best (one that ties it may rank before it by memory, GPUs or index);
  /// under --pareto, a point of the front is no slower than `atLeast` and
  /// needs no more memory and no more GPUs (it dominates the configuration,
  /// or is the same point at an earlier index, which the front keeps
  /// instead; ParetoFront), so the configuration is not the best either
  /// (that point ranks before it). Nothing is excluded by a bar of neither.
  bool excludes(estimate::Picoseconds atLeast, int64_t peakBytes,
                int64_t gpus) const;
};

/// What the fast evaluators of one search share (docs/Sweep.md, "Threads"):
/// the shapes' skeletons, and the derivations that recur across runs (a
/// run's templates with their block works, a run's persistent-state bound),
/// each derived by the first worker that needs it. Every entry is a pure
/// function of its key, so what is shared changes no result.
struct SharedDerivations {
  explicit SharedDerivations(const estimate::SystemProfile &profile)
      : profile(profile), persistentBounds(profile) {}

  /// The profile of every evaluator that shares these.
  const estimate::SystemProfile &profile;
  SkeletonCache skeletons;
  /// The templates of the runs, each list derived once per what it reads
  /// (a run's parts and a shape's whole run both take them).
  workload::RunTemplatesMemo runTemplates;
  /// The persistent-state bounds of the runs, and the blocks they hold in
  /// flight (a query's bounds of their peaks).
  PersistentBoundMemo persistentBounds;
  InFlightBlocksMemo inFlightBlocks;
};

/// The fast path: the contracts' rules, the binding's, then the run's
/// figures through the plain libraries. No IR is built. A training run is
/// evaluated from its parts through the skeleton of its shape
/// (RunSkeleton), derived in whole once per shape; any other run, or one
/// whose skeleton cannot serve it, by evaluateWholeRun (deriveRun, then
/// costRun). Both give the same figures to the bit. Keeps the last run it
/// derived: a configuration of the same run number is only costed under
/// its binding.
class FastEvaluator {
public:
  /// On `profile`, with derivations of its own; or on `shared`'s profile,
  /// with the derivations other evaluators of one search share. With
  /// `timeFittingOnly` (a query), a run that does not fit the usable
  /// capacity is not timed: its
  /// evaluation has no time and the memory figures the timed one has, or a
  /// lower bound of them over the capacity (RunFigures::peakIsBound: a run
  /// whose persistent state alone exceeds it gets persistentBoundFigures,
  /// without its parts or shape; one whose bound from its parts exceeds it
  /// gets memoryBoundFigures, without its shape; a run's stages after the
  /// first over it are left out); a shape's timing plan is derived only
  /// when a configuration of it is first timed (docs/Sweep.md, "What a
  /// query computes", "Runs ruled out by their persistent state", "Runs
  /// ruled out by a bound of their peak").
  explicit FastEvaluator(const estimate::SystemProfile &profile,
                         bool timeFittingOnly = false);
  FastEvaluator(std::shared_ptr<SharedDerivations> shared,
                bool timeFittingOnly);
  ~FastEvaluator();

  RunEvaluation evaluate(const Configuration &configuration);

  /// From now on, with `bar` (what a query has found so far), a
  /// configuration the bar excludes given its time's lower bound
  /// (RunSkeleton::chainBound), its peak and its GPUs is not timed: its
  /// evaluation has its memory figures and no time, and the shape's timing
  /// plan is derived only for a configuration that is timed (docs/Sweep.md,
  /// "Configurations a query cannot report"). Without, every configuration
  /// that the evaluator would time is timed.
  void skipExcludedBy(std::optional<QueryBar> bar) {
    queryBar = std::move(bar);
  }

  /// Shapes derived in whole, and runs evaluated through a skeleton.
  size_t shapesDerived() const { return shapeDerivations; }
  size_t shapedRuns() const { return shapedRunCount; }
  /// Runs ruled out by their persistent state (timeFittingOnly). Like
  /// shapedRuns, counted per evaluator: a run whose configurations two
  /// workers share is counted by each.
  size_t runsRuledOut() const { return ruledOutRunCount; }
  /// Runs ruled out by a bound of their stages' peaks from their parts
  /// (memoryBoundFigures), given no shape; counted as runsRuledOut is.
  size_t runsRuledOutByBound() const { return boundRuledOutRunCount; }
  /// Configurations whose time was derived (through a skeleton or the
  /// whole derivation), and the shapes' timing plans derived.
  size_t configurationsTimed() const { return timedCount; }
  size_t timingPlansDerived() const { return planDerivations; }
  /// Configurations left untimed under skipExcludedBy.
  size_t configurationsSkipped() const { return skippedCount; }
  /// The steps whose timing a binding kept from the binding before
  /// (RunSkeleton::TimeScratch::keptStepTimings).
  uint64_t keptStepTimings() const { return scratch.keptStepTimings; }
  /// The runs whose templates' costs an earlier run's served
  /// (TemplateCostCache::shared).
  size_t templateCostsShared() const { return templateCosts.shared(); }
  /// The runs whose template bytes an earlier run's served
  /// (TemplateBytesCache::shared).
  size_t templateBytesShared() const { return templateBytesOfRuns.shared(); }

private:
  struct ShapedRun;
  /// The run of `configuration` through its skeleton, or none when it
  /// cannot be (the whole derivation then reports it). A run ruled out by
  /// its persistent state has its bound figures (fits false) and neither
  /// parts nor skeleton: only a query rules one out, and a query times no
  /// run that does not fit, so nothing reads them.
  std::unique_ptr<ShapedRun> shape(const Configuration &configuration);
  /// The skeleton of the shape of `configuration`, whose parts are
  /// `parts`, from its whole derivation `whole` (set here); with its timing
  /// plan when `planned`.
  llvm::Expected<RunSkeleton>
  deriveSkeleton(const Configuration &configuration,
                 const workload::WholeRun &parts, bool planned,
                 std::optional<workload::WholeRun> &whole);
  /// The graph whose timing plan a skeleton of `configuration`'s shape
  /// keeps: `whole`'s, uncosted.
  llvm::Expected<analysis::RunGraph>
  timingGraphOf(const Configuration &configuration,
                const workload::WholeRun &whole);
  /// The skeleton of `key` with its plan, `untimed` given the plan of
  /// `configuration`'s whole run (`whole`, derived here when none) if no
  /// caller did; none when the plan cannot be derived.
  std::shared_ptr<const RunSkeleton>
  timedSkeleton(const Configuration &configuration, const ShapeKey &key,
                std::shared_ptr<const RunSkeleton> untimed,
                std::optional<workload::WholeRun> &whole);
  /// Gives the current run (`shaped`, which fits) what timing it needs:
  /// its shape's timing plan, its flops. Resets `shaped` when it cannot
  /// (the whole derivation then times the run).
  void prepareTiming(const Configuration &configuration);
  /// The whole derivation of the current run (derived or derivationError).
  void deriveWhole(const RunContracts &run);

  const estimate::SystemProfile &profile;
  bool timeFittingOnly;
  std::optional<size_t> derivedNumber;
  /// The derivation of that run, or why it failed.
  std::optional<DerivedRun> derived;
  std::string derivationError;
  std::unique_ptr<ShapedRun> shaped;
  /// The derivations this evaluator uses (its own, or its search's).
  std::shared_ptr<SharedDerivations> shared;
  RunSkeleton::TimeScratch scratch;
  TemplateCostCache templateCosts;
  TemplateBytesCache templateBytesOfRuns;
  size_t shapeDerivations = 0;
  size_t shapedRunCount = 0;
  size_t ruledOutRunCount = 0;
  size_t boundRuledOutRunCount = 0;
  size_t timedCount = 0;
  size_t planDerivations = 0;
  size_t skippedCount = 0;
  std::optional<QueryBar> queryBar;
};

/// FastEvaluator on one configuration.
RunEvaluation evaluateFast(const Configuration &configuration,
                           const estimate::SystemProfile &profile);

/// The IR path: the importer's module, the whole-run pipeline under the
/// pass manager's verifier, then the plan's buffers, graph and totals. One
/// context and pass manager serve every configuration (the context is
/// replaced now and then so memory stays bounded, as for Evaluator).
class PipelineEvaluator {
public:
  explicit PipelineEvaluator(const estimate::SystemProfile &profile);
  ~PipelineEvaluator();

  RunEvaluation evaluate(const Configuration &configuration);

  /// evaluate() on a context of its own, with every checkpoint of the
  /// pipeline written to `checkpointDirectory` (docs/Checkpoints.md): the
  /// audit trail of a reported configuration.
  RunEvaluation evaluateWithCheckpoints(const Configuration &configuration,
                                        llvm::StringRef checkpointDirectory);

private:
  mlir::MLIRContext &freshContext();

  const estimate::SystemProfile &profile;
  unsigned evaluationsInContext = 0;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::PassManager> pipeline;
};

//===----------------------------------------------------------------------===//
// Spaces
//===----------------------------------------------------------------------===//

/// A search space over one base run (docs/Sweep.md, "Search spaces"):
/// `{"spec": <spec>, "grid": {"<axis>": [values], ...}}`. Every axis the grid
/// lists takes those values; an axis it does not list keeps the base spec's
/// value (the tiers: the base binding's) - except that with a GPU count
/// (`gpus`) the space is every valid configuration on that many GPUs: each
/// axis not listed ranges over all its values (cp keeps the base's unless
/// listed), tp x cp x pp x dp = gpus,
/// micro-batches divide the global batch, and only configurations whose
/// contracts hold and whose binding is physically possible are enumerated
/// (and no two that are the same run: see the docs).
class SearchSpace {
public:
  /// `gpus` and `globalBatch` override the grid's own `gpus` and
  /// `global_batch` entries (several GPU counts are searched one after
  /// another). Every error names its JSON path.
  static llvm::Expected<SearchSpace>
  parse(const llvm::json::Object &grid, RunContracts base,
        const estimate::NetworkTierBinding &baseBinding,
        const estimate::SystemProfile &profile,
        llvm::ArrayRef<int64_t> gpus = {},
        std::optional<int64_t> globalBatch = std::nullopt);

  /// Calls `visit` on every configuration, in enumeration order (the axes
  /// in the order of docs/Sweep.md, the last varying fastest); stops early
  /// when `visit` returns false.
  void enumerate(llvm::function_ref<bool(const Configuration &)> visit) const;

  /// The base run's name.
  llvm::StringRef title() const { return base.name; }

  /// Whether the rows' points have the expert-parallel fields
  /// (Configuration::pointHasExpertParallel).
  bool hasExpertParallelFields() const {
    return base.model.moe.has_value() || lists("ep");
  }

  /// Whether the grid lists `axis`.
  bool lists(llvm::StringRef axis) const {
    return llvm::is_contained(listedAxes, axis);
  }

  /// Whether the space enumerates only valid configurations (a GPU count).
  bool enumeratesValidOnly() const { return !gpuCounts.empty(); }

  /// The values each axis takes, by axis name, as parsed.
  struct AxisValues {
    std::vector<int64_t> tp, cp, pp, dp, ep, microBatch, virtualStages,
        zeroStage, bucketBytes;
    std::vector<workload::PipelineSchedule> schedule;
    /// Empty: uniform; {-1}: Calculon's ceiling layout; else explicit.
    std::vector<std::vector<int64_t>> pipelineLayout;
    std::vector<workload::RecomputePolicy> recompute;
    std::vector<workload::TPCommMode> tpComm;
    std::vector<workload::CPCommMode> cpComm;
    std::vector<bool> overlapTPComm;
    std::vector<bool> overlapDPGradReduce;
    std::vector<bool> overlapP2PComm;
    /// By mesh axis (tp, cp, pp, dp, edp, ep): the tiers it may use.
    std::vector<std::string> tiers[6];
  };

private:
  RunContracts base;
  estimate::NetworkTierBinding baseBinding;
  const estimate::SystemProfile *profile = nullptr;
  std::vector<int64_t> gpuCounts;
  std::optional<int64_t> globalBatch;
  /// Axes the grid lists (the others are the base's, or all values).
  AxisValues listed;
  std::vector<std::string> listedAxes;
};

/// The space blueprint-search reads from the JSON text `input` of
/// `inputFile`: parseSearchInput, then SearchSpace::parse of its grid and
/// base run (`profile` must outlive the space). Every error starts with
/// `inputFile`.
llvm::Expected<SearchSpace>
parseSearchSpace(llvm::StringRef input, llvm::StringRef inputFile,
                 const estimate::NetworkTierBinding &baseBinding,
                 const estimate::SystemProfile &profile,
                 llvm::ArrayRef<int64_t> gpus = {},
                 std::optional<int64_t> globalBatch = std::nullopt);

/// A configuration in a few words, e.g. "64 GPUs tp8 pp8 dp1 mb1 v1
/// one_f_one_b full ar z0".
std::string describeMapping(const Configuration &configuration);

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// One row: index, point, validity (stage and diagnostics if rejected) and
/// the whole run's figures; `rank` for the top-K. A CSV row has a rank cell
/// (empty without a rank) exactly when `rankColumn`, as its header.
std::string formatSearchRow(RowFormat format, size_t index,
                            const Configuration &configuration,
                            const RunEvaluation &evaluation,
                            std::optional<size_t> rank = std::nullopt,
                            bool rankColumn = false);

/// The CSV header of search rows, with a rank column when `ranked`, the
/// `overlap_tp_comm`, `overlap_dp_grad_reduce` and `overlap_p2p_comm`
/// columns when the space lists those axes, and the `ep`, `edp_tier` and
/// `ep_tier` columns when its model has routed experts.
std::string searchCSVHeader(bool ranked, bool overlapTPCommColumn,
                            bool overlapDPGradReduceColumn,
                            bool overlapP2PCommColumn,
                            bool expertParallelColumns);

/// Orders accepted configurations: by iteration time, then peak bytes, then
/// GPUs, then index - a total order, so the top-K does not depend on the
/// order rows arrive in.
struct Ranked {
  size_t index = 0;
  Configuration configuration;
  RunEvaluation evaluation;

  estimate::Picoseconds picoseconds() const {
    return *evaluation.run.iterationPicoseconds;
  }
  int64_t gpus() const { return configuration.run.mapping.world; }
};
bool rankedBefore(const Ranked &a, const Ranked &b);
/// `a` is at least as good as `b` in time, memory and GPUs and better in
/// one (Pareto dominance over feasible configurations).
bool dominates(const Ranked &a, const Ranked &b);

/// The K best feasible configurations seen so far.
class TopK {
public:
  explicit TopK(size_t k) : k(k) {}
  void offer(const Ranked &candidate);
  /// Best first.
  std::vector<Ranked> sorted() const;
  /// Once it holds K, the time of the worst it holds: a configuration
  /// slower than that cannot enter.
  std::optional<estimate::Picoseconds> worstKept() const;

private:
  size_t k;
  std::vector<Ranked> heap;
};

/// The Pareto front of the feasible configurations seen so far over (time,
/// peak memory per GPU, GPUs); of equal points the lowest index stays.
class ParetoFront {
public:
  void offer(const Ranked &candidate);
  /// By time, then memory, then GPUs, then index.
  std::vector<Ranked> sorted() const;
  /// Its points, in no particular order (QueryBar::front).
  std::vector<QueryBar::Point> points() const;

private:
  std::vector<Ranked> front;
};

/// Latency objectives of a serving scenario: a configuration that misses
/// one is not a candidate for the best (docs/Sweep.md, "Suites").
struct ServiceLevel {
  std::optional<double> timeToFirstTokenSeconds;
  std::optional<double> timePerOutputTokenSeconds;

  /// Feasible, and within every objective given (an objective the run has
  /// no figure for is missed).
  bool accepts(const RunEvaluation &evaluation) const;
};

/// What a search run does (the blueprint-search options).
struct SearchOptions {
  unsigned threads = 1;
  /// Evaluate every configuration through the IR instead of the fast path.
  bool throughIR = false;
  RowFormat format = RowFormat::JSONLines;
  /// Emit only the K best (re-derived through the IR) ...
  std::optional<size_t> top;
  /// ... and/or only the Pareto front.
  bool pareto = false;
  /// When set, the pipeline checkpoints of every reported configuration
  /// go to `<directory>/<index>/`.
  std::string checkpointDirectory;
  /// Only configurations within these objectives compete for the best
  /// and the front.
  ServiceLevel serviceLevel;
  /// In a query (`top` and/or `pareto`, no observer, the fast path), leave
  /// untimed a configuration that the query's bar so far excludes
  /// (QueryBar): the same rows, fewer timed, and `feasible` and `accepted`
  /// count only the timed (SearchSummary::skipped).
  bool skipExcluded = false;
};

/// What a search saw.
struct SearchSummary {
  size_t configurations = 0;
  size_t valid = 0;
  /// Valid and within the capacity.
  size_t fitting = 0;
  size_t feasible = 0;
  /// Feasible and within the service level.
  size_t accepted = 0;
  /// The fastest accepted configuration (fast path), if any.
  std::optional<Ranked> best;
  std::vector<Ranked> top;
  std::vector<Ranked> front;
  /// On the fast path: the shapes derived in whole, and the training runs
  /// given a shape's skeleton (their memory, totals and, unless a step
  /// cannot be costed, time come from it), summed over the workers, which
  /// share one SkeletonCache.
  size_t shapesDerived = 0;
  size_t shapedRuns = 0;
  /// In a query on the fast path: the training runs ruled out by their
  /// persistent state, given neither parts nor a shape, summed over the
  /// workers as shapedRuns is (FastEvaluator::runsRuledOut).
  size_t runsRuledOut = 0;
  /// And those ruled out by a bound of their stages' peaks from their
  /// parts, given no shape (FastEvaluator::runsRuledOutByBound).
  size_t runsRuledOutByBound = 0;
  /// The configurations whose iteration time was derived: every valid one,
  /// except in a query (runSearch) that times only the runs that fit; and,
  /// on the fast path, the shapes whose timing plan was derived (in a
  /// query, only those with a run that fits).
  size_t timed = 0;
  size_t timingPlansDerived = 0;
  /// In a query that skips (SearchOptions::skipExcluded): the
  /// configurations that fit but were not timed, the query's bar so far
  /// excluding them (FastEvaluator::skipExcludedBy). Those are in `fitting`
  /// and not in `feasible` or `accepted`; how many depends on what the
  /// workers had seen, so on their number.
  size_t skipped = 0;
  /// The most entries that cache held at once (skeletons and the keys of
  /// shapes that have none) and the most bytes, each its own maximum
  /// (SkeletonCache::peakEntries, peakBytes).
  size_t shapeEntriesHeld = 0;
  size_t shapeBytesHeld = 0;
  /// The wall seconds of enumerating and evaluating every configuration
  /// (with what observes each: writing every row without a query, an
  /// `--svg` observer), before the audit of the reported rows, and the CPU
  /// seconds the process spent meanwhile (every worker's, user and
  /// system): configurations / evaluationCPUSeconds is the evaluation's
  /// rate per core (a measurement, not an output: bench/README.md).
  double evaluationSeconds = 0;
  double evaluationCPUSeconds = 0;
};

/// Evaluates every configuration of `space` on `options.threads` workers and
/// passes rows to `emit` in enumeration order: every row, or, with `top`
/// and/or `pareto`, those rows only (after the whole space). Every row the
/// top-K or the front reports is re-derived through the IR, and the search
/// fails if that differs from the fast path's row. `observe` sees every
/// evaluated configuration, in order (the scatter). A query - `top` and/or
/// `pareto` on the fast path, with no `observe` - reads the time of the
/// runs that fit only, and times only those (FastEvaluator's
/// timeFittingOnly): what it reports is what the full evaluation reports.
llvm::Expected<SearchSummary>
runSearch(const SearchSpace &space, const estimate::SystemProfile &profile,
          const SearchOptions &options,
          llvm::function_ref<void(llvm::StringRef row)> emit,
          llvm::function_ref<void(const Configuration &, const RunEvaluation &)>
              observe = nullptr);

} // namespace blueprint::sweep

#endif // BLUEPRINT_SWEEP_SEARCH_H
