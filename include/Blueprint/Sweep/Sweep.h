//===- Sweep.h - Evaluate many configurations -------------------*- C++ -*-===//
//
// Batch evaluation for design-space sweeps (docs/Sweep.md): every
// configuration goes through the real pipeline - import (or ModelIR built in
// C++), --distribute-transformer, --plan-portable and --verify-conservation
// under the pass manager's verifier, the work-summary totals and the
// estimate of lib/Estimate - and yields one Evaluation. An Evaluator owns one
// MLIRContext and one PassManager and reuses them across configurations; a
// sweep runs one Evaluator per worker of a thread pool and reports in input
// order, so its rows do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SWEEP_SWEEP_H
#define BLUEPRINT_SWEEP_SWEEP_H

#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Estimate/Time.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/ModelMemo.h"
#include "Blueprint/Workload/Spec.h"
#include "Blueprint/Workload/WholeRun.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
class PassManager;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace blueprint::analysis {
struct CriticalPathReport;
struct RunGraph;
} // namespace blueprint::analysis

namespace blueprint::workload {
struct StageBuffers;
} // namespace blueprint::workload

namespace blueprint::sweep {

/// What every configuration of a sweep is costed on.
struct Target {
  estimate::SystemProfile profile;
  estimate::NetworkTierBinding binding;
};

/// Fails unless every axis the binding binds is a mesh axis (tp, pp, dp, cp)
/// and every tier is one of the profile's: a binding that can apply to no
/// configuration is bad input, not a rejected row.
llvm::Error checkTarget(const Target &target);

/// Where the pipeline rejected a configuration.
enum class Stage {
  /// The importer or the ModelIR verifier (a contract or composition rule).
  Import,
  /// A pass or the verifier after it (derivation, planning, conservation).
  Pipeline,
  /// The estimate (a rate the profile lacks, a tier too small for an axis).
  Estimate,
};

/// "import", "pipeline" or "estimate".
llvm::StringRef stringifyStage(Stage stage);

/// What the whole run of a configuration needs and takes (docs/Memory.md):
/// the peak bytes per rank of its worst pipeline stage, from the buffer
/// lifetimes, and the iteration time (the generation's, for inference) as
/// the longest path through its graph, both through the plain libraries
/// the passes call.
struct RunFigures {
  int64_t peakBytes = 0;
  /// The first stage that reaches peakBytes.
  int64_t peakStage = 0;
  /// peakBytes <= the profile's usable capacity
  /// (MemoryProfile::usableCapacityBytes), and that minus peakBytes (negative
  /// when it does not fit).
  bool fits = false;
  int64_t marginBytes = 0;
  /// The critical path, when the target can cost every step, in exact
  /// picoseconds (docs/Estimate.md, "Time in picoseconds").
  std::optional<estimate::Picoseconds> iterationPicoseconds;
  std::optional<estimate::Picoseconds> exposedCommunicationPicoseconds;
  /// With the time: model and hardware matmul FLOPs / (iteration x world x
  /// the matmul peak at the compute type), the tokens of an iteration (a
  /// training iteration's global_batch x seq_length, a generation's batch x
  /// generated_tokens) per second, and the GPU-hours one million of them
  /// take (world x iteration / 3600 x 10^6 / tokens).
  std::optional<double> modelFlopsUtilization;
  std::optional<double> hardwareFlopsUtilization;
  std::optional<double> tokensPerSecond;
  std::optional<double> gpuHoursPerMillionTokens;
  /// Inference: when the last prefill step ends (the first token), and the
  /// rest of the generation per remaining token, (iteration - first token)
  /// / (generated_tokens - 1) rounded to the nearest picosecond (ties to
  /// even), absent with one generated token.
  std::optional<estimate::Picoseconds> timeToFirstTokenPicoseconds;
  std::optional<estimate::Picoseconds> timePerOutputTokenPicoseconds;
  /// Why the target cannot cost the run (a mesh axis the binding does not
  /// bind, a tier too small for the axes bound to it), when it cannot: the
  /// memory figures stand, the time does not.
  std::optional<std::string> timeUnavailable;
  /// `peakBytes` is not the peak but a lower bound of it which alone
  /// exceeds the usable capacity: the run's largest persistent state
  /// (persistentBoundFigures), the largest bound of its stages' peaks from
  /// its parts (memoryBoundFigures), or the largest peak of its stages up
  /// to the first over the capacity (RunSkeleton::addMemoryFigures with
  /// stopOverCapacity). Only a query's fast path, which reads no figure of a
  /// run that does not fit, gives such figures (docs/Sweep.md, "Runs ruled
  /// out by their persistent state", "Runs ruled out by a bound of their
  /// peak"); no row is written of them.
  bool peakIsBound = false;
};

/// RunFigures of the run whose contracts are `model`, `mapping` and exactly
/// one of `training` and `inference`, costed on `profile` and `binding`.
/// Fails if the contracts do not compose or a count overflows.
llvm::Expected<RunFigures>
evaluateWholeRun(const workload::ModelSpec &model,
                 const std::optional<workload::TrainingSpec> &training,
                 const std::optional<workload::InferenceSpec> &inference,
                 const workload::MappingSpec &mapping,
                 const estimate::SystemProfile &profile,
                 const estimate::NetworkTierBinding &binding);

/// A run derived and its memory swept: everything of RunFigures that does
/// not depend on the binding. A search costs it once per binding.
struct DerivedRun {
  workload::WholeRun run;
  /// The memory figures (no time yet).
  RunFigures memory;
  /// The per-rank totals of every stage, summed when first costed.
  std::optional<std::vector<workload::StageTotals>> totals;
};

/// The first half of evaluateWholeRun: derivation, buffers and peaks.
llvm::Expected<DerivedRun>
deriveRun(const workload::ModelSpec &model,
          const std::optional<workload::TrainingSpec> &training,
          const std::optional<workload::InferenceSpec> &inference,
          const workload::MappingSpec &mapping,
          const estimate::SystemProfile &profile);

/// The second half: the graph costed under `binding`, its critical path and
/// the timed figures.
llvm::Expected<RunFigures>
costRun(DerivedRun &derived, const workload::ModelSpec &model,
        const std::optional<workload::TrainingSpec> &training,
        const std::optional<workload::InferenceSpec> &inference,
        const workload::MappingSpec &mapping,
        const estimate::SystemProfile &profile,
        const estimate::NetworkTierBinding &binding);

/// The memory figures of a run from every stage's buffers (derived, or read
/// off a plan): the worst stage's peak against the profile's usable capacity.
llvm::Error addMemoryFigures(RunFigures &figures,
                             llvm::ArrayRef<workload::StageBuffers> buffers,
                             const estimate::SystemProfile &profile);

/// A stage's peak, kept when it is the worst so far (the first stage that
/// reaches it wins ties).
void addStagePeak(RunFigures &figures, int64_t stage, int64_t peakBytes);

/// Whether `peakBytes` fits the profile's usable capacity
/// (MemoryProfile::usableCapacityBytes): at most it.
bool fitsCapacity(int64_t peakBytes, const estimate::SystemProfile &profile);

/// `fits` (fitsCapacity) and the margin of the peak against the profile's
/// usable capacity.
void addCapacityFigures(RunFigures &figures,
                        const estimate::SystemProfile &profile);

/// Memory figures of a training run from the largest persistent state one
/// rank of a stage holds (its weights, gradients and optimizer state:
/// persistentBytesOf of deriveRunPersistentState's stages) instead of its
/// peak, marked `peakIsBound`. The persistent state is live at every
/// position of its stage, beside buffers of no negative bytes, so no stage's
/// peak is below its own: a run these figures say does not fit does not fit.
/// None when the persistent state cannot be derived (contracts that do not
/// compose, an overflow): the run's own derivation says why.
std::optional<RunFigures>
persistentBoundFigures(const workload::ModelSpec &model,
                       const workload::TrainingSpec &training,
                       const workload::MappingSpec &mapping,
                       const estimate::SystemProfile &profile);

/// A lower bound of the peak of each stage (index s for stage s) of the
/// training run whose parts (deriveRunParts) are `parts`, template bytes
/// (templateBytesOf) `templateBytes` and blocks in flight (inFlightBlocksOf)
/// `inFlight`: its persistent state (as persistentBoundFigures has it) plus
/// the most of three sets of buffers live together at one of its positions
/// (deriveBuffers): the stash of the most blocks it holds in flight (each
/// block's at the least of the run's block forward templates', with what
/// ZB-H1's weight-gradient pass reads of it) beside the larger of the least
/// forward and the least backward block working set; its gradient buckets
/// (ZeRO-2/3); and the two together where a slot that computes weight
/// gradients has run, beside that slot's or a later forward's working set
/// (docs/Sweep.md, "Runs ruled out by a bound of their peak"). None for an
/// inference run, inputs of another run, or on overflow.
std::optional<std::vector<int64_t>>
stagePeakBounds(const workload::WholeRun &parts,
                llvm::ArrayRef<workload::TemplateBytes> templateBytes,
                llvm::ArrayRef<workload::InFlightBlocks> inFlight,
                const workload::MappingSpec &mapping,
                const workload::TrainingSpec &training);

/// Memory figures of that run from stagePeakBounds instead of its stages'
/// peaks, marked `peakIsBound`: a run these figures say does not fit does
/// not fit. None when stagePeakBounds is none.
std::optional<RunFigures>
memoryBoundFigures(const workload::WholeRun &parts,
                   llvm::ArrayRef<workload::TemplateBytes> templateBytes,
                   llvm::ArrayRef<workload::InFlightBlocks> inFlight,
                   const workload::MappingSpec &mapping,
                   const workload::TrainingSpec &training,
                   const estimate::SystemProfile &profile);

/// persistentBoundFigures on `profile` of the runs one evaluator meets,
/// each derived once per what it reads: a run's persistent state reads
/// neither its recompute policy nor tp_comm, which vary inside the
/// enumeration's other run axes (docs/Sweep.md, "Runs ruled out by their
/// persistent state"). Only the composition check that
/// deriveRunPersistentState runs first reads them: of() is for contracts
/// that compose (checkTrainingRun finds nothing), as an evaluator's runs do
/// once rejection has passed them. It holds one model's figures, at most
/// kEntries, and forgets them all when full or given another model (a
/// workload::ModelMemo). Safe to share between threads.
class PersistentBoundMemo {
public:
  static constexpr size_t kEntries = 64;

  explicit PersistentBoundMemo(const estimate::SystemProfile &profile)
      : profile(profile) {}

  std::optional<RunFigures> of(const workload::ModelSpec &model,
                               const workload::TrainingSpec &training,
                               const workload::MappingSpec &mapping);

  /// How many calls of() answered from an earlier run's figures.
  size_t shared() const { return figures.shared(); }

private:
  /// Every field of the two contracts but the mapping's recompute and
  /// tp_comm (keyOf).
  using Key = std::vector<int64_t>;
  static Key keyOf(const workload::TrainingSpec &training,
                   const workload::MappingSpec &mapping);

  const estimate::SystemProfile &profile;
  workload::ModelMemo<Key, std::optional<RunFigures>> figures{kEntries};
};

/// workload::inFlightBlocksOf of the training runs one search meets, by
/// what it reads (the schedule, the micro-batches and the layout): the
/// runs that differ in any other axis hold the same blocks in flight (the
/// GPT-3 175B space on 64 GPUs has 231 such keys among 7,347 runs). It
/// holds one model's, at most kEntries (a key and 56 bytes per stage, a few
/// KiB at pp 64), and
/// forgets them all when full or given another model (a
/// workload::ModelMemo). Safe to share between threads.
class InFlightBlocksMemo {
public:
  static constexpr size_t kEntries = 1024;

  /// inFlightBlocksOf of the run of `model` whose parts are `parts`.
  std::optional<std::vector<workload::InFlightBlocks>>
  of(const workload::ModelSpec &model, const workload::WholeRun &parts);

private:
  using Key = std::vector<int64_t>;
  workload::ModelMemo<Key, std::optional<std::vector<workload::InFlightBlocks>>>
      held{kEntries};
};

/// What the timed figures read of a critical path.
struct PathFigures {
  estimate::Picoseconds iterationPicoseconds = 0;
  estimate::Picoseconds exposedCommunicationPicoseconds = 0;
  /// When the last prefill step ends (0 without one).
  estimate::Picoseconds firstTokenPicoseconds = 0;
};

/// The PathFigures of `path`, the longest path through `graph`.
PathFigures pathFiguresOf(const analysis::RunGraph &graph,
                          const analysis::CriticalPathReport &path);

/// The timed figures of a run from its critical path and, when the path
/// has a positive finite length, its FLOPs (`flops`: analysis::runFlopsOf
/// of the per-rank totals of its stages, derived or read off a plan).
llvm::Error
addTimeFigures(RunFigures &figures, const PathFigures &path,
               llvm::function_ref<llvm::Expected<analysis::RunFlops>()> flops,
               const workload::ModelSpec &model,
               const std::optional<workload::TrainingSpec> &training,
               const std::optional<workload::InferenceSpec> &inference,
               const workload::MappingSpec &mapping,
               const estimate::SystemProfile &profile);

/// The outcome of one configuration.
struct Evaluation {
  /// The symbol of the imported ModelIR op (the spec's name made a symbol,
  /// as --work-summary reports it); empty if the import failed.
  std::string program;
  /// Set exactly when the configuration was rejected.
  std::optional<Stage> rejectedAt;
  /// The error diagnostics of the rejection, in emission order.
  std::vector<std::string> diagnostics;
  /// The work-summary totals of the portable plan.
  ProgramTotals totals;
  /// The estimate: the seconds of each cadence's tasks, summed (indexed by
  /// Cadence), and the stage-serial time of one block's per-micro-batch
  /// work (training).
  std::array<double, workload::kNumCadences> cadenceSeconds{};
  estimate::StageSerialTime block;
  /// The whole run's figures (evaluateWholeRun).
  RunFigures run;

  bool valid() const { return !rejectedAt; }
};

/// Runs configurations through the pipeline, one at a time, on its own
/// MLIRContext (threading disabled: parallelism is across configurations).
/// Attributes uniqued in a context live as long as it does, so the context
/// is replaced after `configurationsPerContext` evaluations: memory stays
/// bounded however many configurations one Evaluator sees.
class Evaluator {
public:
  static constexpr unsigned kDefaultConfigurationsPerContext = 4096;

  explicit Evaluator(
      const Target &target,
      unsigned configurationsPerContext = kDefaultConfigurationsPerContext);
  ~Evaluator();

  /// Imports `specJSON` (docs/ImportJSON.md) with the JSON importer, naming
  /// the source `label` in diagnostics, and evaluates it.
  Evaluation evaluateSpec(llvm::StringRef specJSON, llvm::StringRef label);

  /// Builds the ModelIR op from the three contracts in C++, verifies it and
  /// evaluates it.
  Evaluation evaluateContracts(llvm::StringRef name,
                               const workload::ModelSpec &model,
                               const workload::TrainingSpec &training,
                               const workload::MappingSpec &mapping);

private:
  /// Recreates the context when due and returns it.
  mlir::MLIRContext &freshContext();
  /// The pipeline, totals and estimate of an imported module; `evaluation`
  /// already holds what was captured so far.
  void evaluateModule(mlir::OwningOpRef<mlir::ModuleOp> &module,
                      Evaluation &evaluation);

  const Target &target;
  unsigned configurationsPerContext;
  unsigned evaluationsInContext = 0;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::PassManager> pipeline;
};

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// A grid over some of the axes tp, pp, dp, micro_batch, recompute and
/// tp_comm (named as the spec's fields: mapping.tp, ..., training.micro_batch)
/// for one base spec. Expansion follows that axis order, the last axis
/// varying fastest.
class Grid {
public:
  /// Parses `{"spec": <spec object>, "grid": {"<axis>": [values], ...}}`;
  /// every error names its JSON path.
  static llvm::Expected<Grid> parse(const llvm::json::Value &input);

  /// Number of configurations (the product of the axis lengths).
  size_t size() const { return numConfigurations; }
  /// The axes given, in expansion order.
  llvm::ArrayRef<std::string> axes() const { return axisNames; }
  /// The values configuration `index` takes on each of axes().
  std::vector<llvm::json::Value> point(size_t index) const;
  /// The spec of configuration `index`: the base spec with point(index)
  /// written over its fields.
  llvm::json::Value spec(size_t index) const;

private:
  llvm::json::Object base;
  std::vector<std::string> axisNames;
  std::vector<llvm::json::Array> axisValues;
  size_t numConfigurations = 0;
};

//===----------------------------------------------------------------------===//
// Batch runs
//===----------------------------------------------------------------------===//

/// The configurations of a batch: a JSON list of specs, or a grid.
class Batch {
public:
  /// `[<spec>, ...]` or a grid object (Grid::parse). A list is split into
  /// the text of its specs without parsing them (each is parsed, and
  /// diagnosed, by the importer when evaluated): a list costs its text.
  static llvm::Expected<Batch> parse(llvm::StringRef json);

  size_t size() const;
  /// The grid axes (empty for a list of specs).
  llvm::ArrayRef<std::string> axes() const;
  /// The grid point of configuration `index` (empty for a list of specs).
  std::vector<llvm::json::Value> point(size_t index) const;
  /// The spec text of configuration `index`.
  std::string specText(size_t index) const;

private:
  std::optional<Grid> grid;
  /// A list's text and the [begin, end) offsets of each spec in it.
  std::string listText;
  std::vector<std::pair<size_t, size_t>> specRanges;
};

enum class RowFormat { JSONLines, CSV };

/// One row: index, program name, grid point, validity (stage and
/// diagnostics if rejected), totals and estimated times (docs/Sweep.md). `axes`
/// and `point` come from the batch.
std::string formatRow(RowFormat format, size_t index,
                      llvm::ArrayRef<std::string> axes,
                      llvm::ArrayRef<llvm::json::Value> point,
                      const Evaluation &evaluation);

/// The CSV header line for a batch with `axes` (no header for JSON lines).
std::string csvHeader(llvm::ArrayRef<std::string> axes);

/// Evaluates every configuration of `batch` on `threads` workers (one
/// Evaluator each, on a thread pool shared through an MLIRContext) and
/// passes each formatted row to `emit` in index order. Configurations are
/// evaluated in chunks so that memory does not grow with the batch.
void runBatch(const Batch &batch, const Target &target, unsigned threads,
              RowFormat format,
              llvm::function_ref<void(llvm::StringRef row)> emit);

} // namespace blueprint::sweep

#endif // BLUEPRINT_SWEEP_SWEEP_H
