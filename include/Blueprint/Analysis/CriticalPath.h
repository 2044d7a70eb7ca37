//===- CriticalPath.h - Iteration time from the whole-run graph -*- C++ -*-===//
//
// The time of one whole run as the longest path through its dependency
// graph (docs/Memory.md, "Time"), in exact integer picoseconds
// (docs/Estimate.md, "Time in picoseconds"): every stage runs its steps one
// after another, each as soon as the steps it depends on have finished; a
// send's message arrives at the peer a point-to-point transfer after the send
// starts, and the send holds its stage for that transfer unless the mapping
// overlaps pipeline sends (overlap_p2p_comm, messageTimes); a receive
// finishes when both its stage reached it and its message arrived. Steps
// last what `--estimate` gives their work under a SystemProfile. The result
// is the iteration time with the critical path as a list of steps, the
// communication on it, and each stage's busy and bubble time.
//
// The graph is plain data: runGraphOf builds it from a WholeRun without IR,
// `--critical-path` builds it from a whole-run `pplan.plan`, and both call
// longestPath.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_ANALYSIS_CRITICALPATH_H
#define BLUEPRINT_ANALYSIS_CRITICALPATH_H

#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Estimate/Time.h"
#include "Blueprint/Workload/WholeRun.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace blueprint::analysis {

/// What a step of a stage does, for the time it takes and for reports.
enum class StepKind {
  /// A template instance: compute (its TP collectives included).
  Compute,
  /// A stage-level collective (DP reductions, parameter gathers, the tied
  /// embedding sync, a scattered message's gather).
  Collective,
  /// Stage-level work that is not a collective (the sharded optimizer).
  StageWork,
  Send,
  Receive,
};

/// "compute", "collective", "stage_work", "send" or "receive".
llvm::StringRef stringifyStepKind(StepKind kind);

struct GraphStep {
  /// Names the step in reports, e.g. "block_forward chunk 0 micro_batch 3
  /// blocks [0, 2)".
  std::string label;
  StepKind kind = StepKind::Compute;
  /// The pass of an instance (forward, backward, ...); Step for stage work.
  workload::PipelinePass pass = workload::PipelinePass::Forward;
  std::optional<int64_t> microBatch;
  /// Time on the stage (0 for a receive, and for a send unless it blocks:
  /// messageTimes).
  double seconds = 0;
  /// Tensor-parallel communication of an instance that ran under its
  /// compute (overlap_tp_comm) and so is not in `seconds`.
  double hiddenSeconds = 0;
  /// Earlier steps of the same stage it waits for.
  llvm::SmallVector<size_t, 2> deps;
  /// An earlier instance of the same stage the step waits for only in part
  /// (a gradient bucket ready inside it, overlap_dp_grad_reduce): the step
  /// starts no earlier than `readySeconds` after that instance starts.
  std::optional<size_t> readyAfter;
  double readySeconds = 0;
  /// A data-parallel gradient reduction issued beside the stage's backward
  /// (overlap_dp_grad_reduce): what of it runs before the stage's
  /// preceding compute or blocking send ends is hidden (docs/Memory.md,
  /// "Time"), and it runs beside a blocking send rather than waiting for
  /// it (timingPlanOf).
  bool besideBackward = false;
  /// A send signals, a receive waits for, this channel
  /// (workload::pipelineChannel or the run's message key).
  std::optional<int64_t> channel;
  /// For a send: the transfer's time on the link.
  double transferSeconds = 0;
  /// For a collective over the `pp` axis: the stages that run it together
  /// (its group, or every stage). They all start when the last of them is
  /// ready; their k-th collective of one label meets each other's k-th.
  std::vector<int64_t> rendezvous;
};

struct RunGraph {
  std::vector<std::vector<GraphStep>> stages;
};

/// When a step ran.
struct StepTiming {
  estimate::Picoseconds start = 0;
  estimate::Picoseconds end = 0;
};

/// One segment of the critical path: a step, or the transfer of a message
/// from a send (stage, step) to the receive that waited for it.
struct PathSegment {
  int64_t stage = 0;
  size_t step = 0;
  /// True for a message's transfer (stage and step are the send's).
  bool transfer = false;
  estimate::Picoseconds start = 0;
  estimate::Picoseconds end = 0;
};

struct StageTime {
  /// Time the stage computes (instances and stage work).
  estimate::Picoseconds computePicoseconds = 0;
  /// Time the stage runs collectives and blocking pipeline sends.
  estimate::Picoseconds collectivePicoseconds = 0;
  /// The iteration time minus both: waiting for messages, before its
  /// first step and after its last.
  estimate::Picoseconds bubblePicoseconds = 0;
  /// Tensor-parallel communication its instances hid under their compute
  /// (overlap_tp_comm), in none of the three.
  estimate::Picoseconds hiddenTPCommPicoseconds = 0;
  /// Data-parallel gradient reduction that ran before the stage's backward
  /// ended (overlap_dp_grad_reduce), not in `collectivePicoseconds`.
  estimate::Picoseconds hiddenDPReducePicoseconds = 0;
};

struct CriticalPathReport {
  estimate::Picoseconds iterationPicoseconds = 0;
  /// timing[stage][step].
  std::vector<std::vector<StepTiming>> timing;
  /// From the first step to the one that finishes last.
  std::vector<PathSegment> path;
  /// Time on the path spent in collectives, blocking sends and message
  /// transfers.
  estimate::Picoseconds exposedCommunicationPicoseconds = 0;
  /// Time on the path spent computing.
  estimate::Picoseconds pathComputePicoseconds = 0;
  /// Tensor-parallel communication hidden by compute in the instances on
  /// the path (overlap_tp_comm): what the path would be longer by, step
  /// for step, without the overlap.
  estimate::Picoseconds pathHiddenTPCommPicoseconds = 0;
  /// Data-parallel gradient reduction hidden behind the backward of the
  /// stages whose steps after their reductions are on the path
  /// (overlap_dp_grad_reduce): what their reductions would add to the path
  /// run after the backward.
  estimate::Picoseconds pathHiddenDPReducePicoseconds = 0;
  std::vector<StageTime> stages;
};

/// What the timing of a graph depends on besides its times: the order in
/// which its steps are timed (each stage as far as its messages allow),
/// what each waits for, and which steps meet in a collective. Steps are
/// numbered stage by stage (stageBegin[stage] + step). Two graphs of one
/// shape share one plan: a search times many runs with it.
struct TimingPlan {
  static constexpr uint32_t kNone = ~0u;
  /// Where each stage's steps begin, and the number of steps at the end.
  std::vector<uint32_t> stageBegin;
  /// Every step once, in timing order.
  std::vector<uint32_t> order;
  /// Each step's place in `order` (order[position[id]] == id).
  std::vector<uint32_t> position;
  /// Each step's dependencies: deps[depBegin[i] .. depBegin[i + 1]).
  std::vector<uint32_t> depBegin;
  std::vector<uint32_t> deps;
  /// For a receive, the send of its message; kNone otherwise.
  std::vector<uint32_t> sender;
  /// For a member of a collective of several stages, its meeting; kNone
  /// otherwise.
  std::vector<uint32_t> meeting;
  /// For a step that waits for an earlier instance in part
  /// (GraphStep::readyAfter), that instance; kNone otherwise.
  std::vector<uint32_t> readyAfter;
  std::vector<StepKind> kinds;
  /// Each meeting's members in the order they reach it; the meeting is
  /// timed when its last member is.
  std::vector<std::vector<uint32_t>> meetings;

  size_t steps() const { return kinds.size(); }
};

/// The plan of `graph`. Fails, naming the stage and step, if the stages
/// cannot all finish (a receive whose channel no send signals, or a
/// cycle), or the graph is malformed.
llvm::Expected<TimingPlan> timingPlanOf(const RunGraph &graph);

/// When each step of a plan ran, and what made it start or end when it
/// did, for its durations, send transfers and ready points (StepDurations).
/// Reused between runs: timeSteps overwrites it.
struct PlanTiming {
  std::vector<StepTiming> timing;
  /// The step (or, when `transferred`, the send whose message) that
  /// determined each step's time; TimingPlan::kNone for none.
  std::vector<uint32_t> predecessor;
  std::vector<bool> transferred;
  /// Whether the step started at a point inside its predecessor
  /// (TimingPlan::readyAfter), not at its end.
  std::vector<bool> readied;
  /// The path, from the step that finishes last back to the first.
  std::vector<PathSegment> reversedPath;
  /// The position of the timing order from which the last timeSteps call
  /// timed the steps (its `from`, or the first member of the meeting that
  /// `from` fell inside); the steps before it kept their timing.
  size_t timedFrom = 0;
  estimate::Picoseconds iterationPicoseconds = 0;
  estimate::Picoseconds exposedCommunicationPicoseconds = 0;
  estimate::Picoseconds pathComputePicoseconds = 0;
};

/// Every step's times in picoseconds, by step number: its duration, for a
/// send its message's transfer, for a step with TimingPlan::readyAfter how
/// long after that instance's start it may start (0 where none applies).
struct StepDurations {
  std::vector<estimate::Picoseconds> durations;
  std::vector<estimate::Picoseconds> transfers;
  std::vector<estimate::Picoseconds> ready;
};

/// The step times of a plan in binary64 seconds (GraphStep's), each rounded
/// once to the nearest picosecond (estimate::picosecondsOf) into `result`.
/// Fails, naming by `describe` the first such step in timing order among
/// the durations, else the transfers, else the ready points, if a time is
/// negative, not finite or beyond int64_t picoseconds.
llvm::Error roundStepTimes(const TimingPlan &plan,
                           llvm::ArrayRef<double> seconds,
                           llvm::ArrayRef<double> transferSeconds,
                           llvm::ArrayRef<double> readySeconds,
                           llvm::function_ref<std::string(uint32_t)> describe,
                           StepDurations &result);

/// Times the steps of `plan` (docs/Memory.md, "Time") in exact integer
/// picoseconds, finds the step that finishes last (the first such in step
/// order) and the path to it, and sums the communication and the compute
/// on it. Fails, naming the step by `describe`, if a time overflows
/// int64_t picoseconds.
///
/// A step's timing is a function of its own times and the timings of steps
/// earlier in timing order only (its dependencies, its message's send, the
/// instance it is ready inside), so after a successful call the timings of
/// the steps before position P of `plan.order` are those of any durations
/// that agree with these on every step before P. With `from` = P,
/// timeSteps keeps those timings in `result` and times only the steps from
/// P on (from the first member of a collective of several stages that P
/// falls inside, whose members are timed together); `from` = 0 times every
/// step. The caller guarantees that `result` holds this plan's timing
/// under times equal to `times` before position `from`.
llvm::Error timeSteps(const TimingPlan &plan, const StepDurations &times,
                      llvm::function_ref<std::string(uint32_t)> describe,
                      PlanTiming &result, size_t from = 0);

/// Times every step of `graph` and finds its longest path (timingPlanOf,
/// then timeSteps). Fails, naming the stage and step, if the stages cannot
/// all finish (a receive whose channel no send signals, or a cycle), a
/// duration is negative or a time overflows.
llvm::Expected<CriticalPathReport> longestPath(const RunGraph &graph);

//===----------------------------------------------------------------------===//
// Building a graph (both paths)
//===----------------------------------------------------------------------===//

/// The time of tasks run on one rank: `seconds` on the stage, of which
/// `hiddenSeconds` of communication ran under compute and is not counted.
struct TaskTimes {
  double seconds = 0;
  double hiddenSeconds = 0;
};

/// The channel of a pipeline message: unique per what it carries, its
/// micro-batch and the model chunk that sends it, among `chunks` chunks.
int64_t messageChannel(workload::PipelineMessage message, int64_t microBatch,
                       int64_t chunk, int64_t chunks);

/// The step of an instance of template `templateName` (pass `pass`) for
/// `microBatch` of `chunk`, over `blocks` [first, end) when a block
/// template, lasting `times` (the instance's, repetitions included). Without
/// `labelled` the label is left empty (a search needs the time, not the names).
GraphStep instanceStep(llvm::StringRef templateName,
                       workload::PipelinePass pass, int64_t chunk,
                       std::optional<int64_t> microBatch,
                       std::optional<std::pair<int64_t, int64_t>> blocks,
                       TaskTimes times, bool labelled = true);

/// What a pipeline message's step takes. A send's message arrives
/// `transferSeconds` after the send starts; the send holds its stage for
/// that transfer (Megatron-LM's blocking p2p), or, `overlapped`
/// (overlap_p2p_comm), costs it nothing. A receive costs nothing (it ends
/// when the message arrives). docs/Estimate.md, "Overlap".
struct MessageTimes {
  double seconds = 0;
  double transferSeconds = 0;
};
MessageTimes messageTimes(bool send, double transferSeconds, bool overlapped);

/// The step of a pipeline send (with its transfer time, `overlapped` or not:
/// messageTimes) or receive; without `labelled` its label is left empty.
GraphStep messageStep(bool send, workload::PipelineMessage message,
                      int64_t microBatch, int64_t chunk, int64_t peer,
                      int64_t chunks, double transferSeconds, bool overlapped,
                      bool labelled = true);

/// The step of stage-level work: a collective over `axis` (over the
/// positions `group` of it, when given), or other work (`collective`
/// false), run at `cadence` in `phase`, among `stages` pipeline stages.
GraphStep workStep(llvm::StringRef primitive, bool collective,
                   llvm::StringRef axis, llvm::ArrayRef<int64_t> group,
                   int64_t stages, workload::Cadence cadence,
                   workload::Phase phase, double seconds);

/// Whether the stage-level work `primitive` is a data-parallel gradient
/// reduction the mapping issues beside the backward
/// (overlap_dp_grad_reduce).
bool reducesBesideBackward(const workload::MappingSpec &mapping,
                           llvm::StringRef primitive);

/// A tensor-parallel collective of a template and the GEMM it runs under
/// when the mapping overlaps tensor-parallel communication, by index into
/// the template's tasks.
struct OverlapPair {
  size_t collective = 0;
  size_t compute = 0;
};

/// The pairs Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication
/// overlaps in the backward of each column-parallel linear whose input-
/// and weight-gradient GEMMs are both in `tasks` (docs/Estimate.md,
/// "Overlap"): between the input-gradient matmul of a primitive and its
/// weight-gradient matmul, an activation_grad all-reduce or reduce-scatter
/// over tp runs under the weight-gradient matmul, and a recommunication
/// all-gather over tp (sequence parallelism's re-gather of the input)
/// under the input-gradient matmul.
std::vector<OverlapPair>
tensorParallelOverlapPairs(llvm::ArrayRef<estimate::EstimateTask> tasks);

/// What StepCoster::templateTimes reads besides its templates'
/// invocations and cadences (sameTemplateCostsRead), the profile, the
/// mapping's overlap_tp_comm and the tiers a binding gives the axes listed
/// here (the last two vary between the configurations of one run, and key
/// the costs kept for it): the compute type and each mesh axis the
/// templates' collectives span (their axis, then their inner axes, in the
/// order first named) with its size in the mapping's mesh (0 when the mesh
/// has no such axis; the estimate then fails). Under bindings the estimate
/// accepts, a template's time depends on the binding only through the
/// tiers of those axes (the estimate's network term): runs with equal
/// inputs and the same templates have the same template times under the
/// same overlap_tp_comm and bindings that bind those axes alike
/// (docs/Sweep.md, "Speed, threads, memory").
struct TemplateCostInputs {
  workload::DataType computeType = workload::DataType::BF16;
  std::vector<estimate::MeshAxis> spannedAxes;

  bool operator==(const TemplateCostInputs &other) const;
};

/// The TemplateCostInputs of `templates` in a run of `mapping` whose
/// activation type is `computeType`.
TemplateCostInputs
templateCostInputsOf(llvm::ArrayRef<workload::RunTemplate> templates,
                     const workload::MappingSpec &mapping,
                     workload::DataType computeType);

/// Whether StepCoster::templateTimes reads the same of `a` and `b`: as many
/// templates, each with equal invocations and cadence (a template's name
/// is read only into a diagnostic).
bool sameTemplateCostsRead(llvm::ArrayRef<workload::RunTemplate> a,
                           llvm::ArrayRef<workload::RunTemplate> b);

/// What steps last under a profile: each distinct piece of work costed once.
class StepCoster {
public:
  /// `computeType` is the run's activation type.
  StepCoster(const workload::MappingSpec &mapping,
             workload::DataType computeType,
             const estimate::SystemProfile &profile,
             const estimate::NetworkTierBinding &binding);

  /// The time of `tasks` run one after another on one rank; a collective
  /// over a group of `groupSize` positions of its axis spans that many
  /// ranks (0: the whole axis). With the mapping's overlap_tp_comm each
  /// pair of tensorParallelOverlapPairs lasts the longer of its two tasks:
  /// the shorter is hidden.
  llvm::Expected<TaskTimes> times(std::vector<estimate::EstimateTask> tasks,
                                  size_t groupSize = 0);
  /// times(tasks, groupSize).seconds.
  llvm::Expected<double> seconds(std::vector<estimate::EstimateTask> tasks,
                                 size_t groupSize = 0);
  /// seconds() of one stage-level task, memoised on what its estimate
  /// reads.
  llvm::Expected<double> workSeconds(const estimate::EstimateTask &task,
                                     size_t groupSize);
  /// A pipeline message of `bytes`, point to point on the tier of axis
  /// `pp`, memoised.
  llvm::Expected<double> transferSeconds(int64_t bytes);
  /// The time of one block (or one edge) of each template.
  llvm::Expected<std::vector<TaskTimes>>
  templateTimes(llvm::ArrayRef<workload::RunTemplate> templates);
  /// The seconds of templateTimes.
  llvm::Expected<std::vector<double>>
  templateSeconds(llvm::ArrayRef<workload::RunTemplate> templates);
  /// The seconds of a stage-level work (workSeconds of its task).
  llvm::Expected<double> runWorkSeconds(const workload::RunWork &work);
  /// An instance of `repetitions` blocks of a template of
  /// `templateSeconds` per block.
  static double instanceSeconds(double templateSeconds, int64_t repetitions);
  /// instanceSeconds of both times.
  static TaskTimes instanceTimes(TaskTimes templateTimes, int64_t repetitions);
  /// The TemplateCostInputs of `templates` under this coster.
  TemplateCostInputs
  templateCostInputs(llvm::ArrayRef<workload::RunTemplate> templates) const {
    return templateCostInputsOf(templates, mapping, computeType);
  }
  /// Whether times() overlaps the tensorParallelOverlapPairs (the
  /// mapping's overlap_tp_comm): a memo of template times keys on it.
  bool overlapsTPComm() const { return mapping.overlapTPComm; }
  /// Whether pipeline sends overlap the stage's compute (the mapping's
  /// overlap_p2p_comm): messageTimes.
  bool overlapsP2PComm() const { return mapping.overlapP2PComm; }

private:
  const workload::MappingSpec &mapping;
  workload::DataType computeType;
  const estimate::SystemProfile &profile;
  const estimate::NetworkTierBinding &binding;
  /// Everything estimateWork reads of one task (a matmul's GEMM shapes
  /// flattened and their cover, which a tile model costs), and its group
  /// size.
  using WorkKey = std::tuple<std::string, int, int, int, int64_t, int64_t,
                             int64_t, int, int, int64_t, int64_t, std::string,
                             std::vector<int64_t>, int, size_t>;
  std::map<WorkKey, double> works;
  std::map<int64_t, double> transfers;
};

/// The graph of `run` with every step's time under `profile` and
/// `binding`: an instance lasts its template's estimated tasks times its
/// repetitions, a collective its estimate over its mesh axis (its group,
/// when it has one), a send transfers its bytes point to point on the tier
/// of axis `pp`. `computeType` is the run's activation type. Without
/// `labelled`, instances and messages have no labels (collectives keep
/// theirs: pp-group rendezvous match by label); the times are the same.
/// Without `costed`, every time is zero and nothing is costed: the graph's
/// structure alone (what a search's run skeleton keeps, timingPlanOf).
llvm::Expected<RunGraph> runGraphOf(const workload::WholeRun &run,
                                    const workload::MappingSpec &mapping,
                                    workload::DataType computeType,
                                    const estimate::SystemProfile &profile,
                                    const estimate::NetworkTierBinding &binding,
                                    bool labelled = true, bool costed = true);

/// The time of one point-to-point pipeline message of `bytes` on the tier
/// bound to axis `pp`. Fails if the axis is not bound.
llvm::Expected<double>
pipelineTransferSeconds(int64_t bytes, const workload::MappingSpec &mapping,
                        const estimate::SystemProfile &profile,
                        const estimate::NetworkTierBinding &binding);

/// The report as a text table (iteration time, per-stage busy and bubble
/// time, the critical path) and as JSON (docs/Memory.md).
void printCriticalPathTable(const RunGraph &graph,
                            const CriticalPathReport &report,
                            llvm::raw_ostream &os);
void writeCriticalPathJSON(const RunGraph &graph,
                           const CriticalPathReport &report,
                           llvm::json::OStream &json);

} // namespace blueprint::analysis

#endif // BLUEPRINT_ANALYSIS_CRITICALPATH_H
