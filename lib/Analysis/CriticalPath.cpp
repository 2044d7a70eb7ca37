//===- CriticalPath.cpp - Iteration time from the whole-run graph ---------===//
//
// docs/Memory.md ("Time") states the model: the graph, the step times and
// what overlaps.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/CriticalPath.h"

#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

using namespace blueprint;
using namespace blueprint::analysis;
using workload::PipelinePass;

llvm::StringRef blueprint::analysis::stringifyStepKind(StepKind kind) {
  switch (kind) {
  case StepKind::Compute:
    return "compute";
  case StepKind::Collective:
    return "collective";
  case StepKind::StageWork:
    return "stage_work";
  case StepKind::Send:
    return "send";
  case StepKind::Receive:
    return "receive";
  }
  llvm_unreachable("every step kind has a name");
}

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "critical path: " + message);
}

std::string where(int64_t stage, size_t step, const GraphStep &graphStep) {
  return "stage " + std::to_string(stage) + " step " + std::to_string(step) +
         " (" + graphStep.label + ")";
}

} // namespace

llvm::Expected<TimingPlan>
blueprint::analysis::timingPlanOf(const RunGraph &graph) {
  constexpr uint32_t none = TimingPlan::kNone;
  size_t stageCount = graph.stages.size();
  TimingPlan plan;
  size_t total = 0;
  for (const std::vector<GraphStep> &steps : graph.stages) {
    if (total + steps.size() >= none)
      return failure("the graph has more than 2^32 - 2 steps");
    plan.stageBegin.push_back(static_cast<uint32_t>(total));
    total += steps.size();
  }
  plan.stageBegin.push_back(static_cast<uint32_t>(total));
  plan.order.reserve(total);
  plan.depBegin.reserve(total + 1);
  plan.sender.assign(total, none);
  plan.meeting.assign(total, none);
  plan.readyAfter.assign(total, none);
  plan.kinds.reserve(total);
  for (size_t stage = 0; stage < stageCount; ++stage) {
    // A send gates nothing in the program (docs/WholeRun.md), but a
    // blocking one holds its stage for its transfer (messageTimes): the
    // first later step chained to what the send follows waits for it too.
    // That is the next step, except after a stage's last send under
    // overlap_dp_grad_reduce, where the bucket reductions issued during the
    // backward come first in program order and run beside the blocking
    // send (Megatron-LM launches them from the backward's hooks on their
    // own stream), and the first step after them that is not one waits. An
    // overlapped send lasts nothing and ends with what it follows, so the wait
    // changes no time of it; one plan serves both.
    std::optional<size_t> heldBy;
    for (size_t index = 0; index < graph.stages[stage].size(); ++index) {
      const GraphStep &step = graph.stages[stage][index];
      plan.depBegin.push_back(static_cast<uint32_t>(plan.deps.size()));
      for (size_t dep : step.deps)
        plan.deps.push_back(plan.stageBegin[stage] +
                            static_cast<uint32_t>(dep));
      if (heldBy && !step.besideBackward &&
          llvm::all_of(graph.stages[stage][*heldBy].deps, [&](size_t dep) {
            return llvm::is_contained(step.deps, dep);
          })) {
        plan.deps.push_back(plan.stageBegin[stage] +
                            static_cast<uint32_t>(*heldBy));
        heldBy.reset();
      }
      if (step.kind == StepKind::Send)
        heldBy = index;
      plan.kinds.push_back(step.kind);
    }
  }
  plan.depBegin.push_back(static_cast<uint32_t>(plan.deps.size()));

  // Channels are any int64_t (a plan names them): no reserved keys. Those
  // messageChannel numbers (small, non-negative) are looked up by index.
  const int64_t indexedChannels = static_cast<int64_t>(2 * total + 64);
  std::vector<uint32_t> sentOnIndexed(static_cast<size_t>(indexedChannels),
                                      none);
  std::unordered_map<int64_t, uint32_t> sentOnOther;
  auto senderOf = [&](int64_t channel) -> uint32_t * {
    if (channel >= 0 && channel < indexedChannels)
      return &sentOnIndexed[static_cast<size_t>(channel)];
    auto found = sentOnOther.try_emplace(channel, none).first;
    return &found->second;
  };
  std::unordered_map<int64_t, llvm::SmallVector<size_t, 1>> waiting;
  // A collective of several stages, by its label and occurrence.
  std::map<std::pair<std::string, int64_t>, uint32_t> meetings;
  std::vector<std::map<std::string, int64_t>> occurrences(stageCount);
  // Whether each meeting has been held (every member reached it).
  std::vector<bool> held;
  std::vector<size_t> next(stageCount, 0);
  std::deque<size_t> ready;
  for (size_t stage = 0; stage < stageCount; ++stage)
    ready.push_back(stage);

  // Runs each stage as far as its messages allow; a receive whose message
  // has not been sent parks the stage until the send runs. Every step is
  // ordered once: linear in the steps and dependencies.
  while (!ready.empty()) {
    size_t stage = ready.front();
    ready.pop_front();
    const std::vector<GraphStep> &steps = graph.stages[stage];
    while (next[stage] < steps.size()) {
      size_t index = next[stage];
      const GraphStep &step = steps[index];
      uint32_t id = plan.stageBegin[stage] + static_cast<uint32_t>(index);
      for (size_t dep : step.deps)
        if (dep >= index)
          return failure(where(stage, index, step) +
                         " depends on a step that does not precede it");
      if (step.readyAfter) {
        if (*step.readyAfter >= index)
          return failure(where(stage, index, step) +
                         " waits inside a step that does not precede it");
        plan.readyAfter[id] =
            plan.stageBegin[stage] + static_cast<uint32_t>(*step.readyAfter);
      }
      if (step.kind == StepKind::Receive || step.kind == StepKind::Send)
        if (!step.channel)
          return failure(where(stage, index, step) + " names no message");
      if (!step.rendezvous.empty()) {
        if (!llvm::is_contained(step.rendezvous,
                                static_cast<int64_t>(stage)))
          return failure(where(stage, index, step) +
                         " joins a collective of stages that do not include "
                         "its own");
        auto [found, fresh] =
            meetings.insert({{step.label, occurrences[stage][step.label]++},
                             static_cast<uint32_t>(plan.meetings.size())});
        if (fresh) {
          plan.meetings.emplace_back();
          held.push_back(false);
        }
        if (held[found->second])
          return failure(where(stage, index, step) +
                         " joins a collective its stages already held");
        std::vector<uint32_t> &members = plan.meetings[found->second];
        members.push_back(id);
        plan.meeting[id] = found->second;
        plan.order.push_back(id);
        if (members.size() < step.rendezvous.size())
          break;
        held[found->second] = true;
        // Every member is timed now: each stage moves past its member.
        for (uint32_t member : members) {
          size_t memberStage =
              static_cast<size_t>(llvm::upper_bound(plan.stageBegin, member) -
                                  plan.stageBegin.begin() - 1);
          ++next[memberStage];
          if (memberStage != stage)
            ready.push_back(memberStage);
        }
        continue;
      }
      if (step.kind == StepKind::Receive) {
        uint32_t sent = *senderOf(*step.channel);
        if (sent == none) {
          waiting[*step.channel].push_back(stage);
          break;
        }
        plan.sender[id] = sent;
      }
      plan.order.push_back(id);
      ++next[stage];
      if (step.kind == StepKind::Send) {
        uint32_t *sent = senderOf(*step.channel);
        if (*sent != none)
          return failure(where(stage, index, step) +
                         " sends a message another send already sent");
        *sent = id;
        auto parked =
            waiting.empty() ? waiting.end() : waiting.find(*step.channel);
        if (parked != waiting.end()) {
          llvm::append_range(ready, parked->second);
          waiting.erase(parked);
        }
      }
    }
  }
  for (size_t stage = 0; stage < stageCount; ++stage)
    if (next[stage] < graph.stages[stage].size())
      return failure(
          where(stage, next[stage], graph.stages[stage][next[stage]]) +
          " never runs: it receives a message no step sends before it, or "
          "joins a collective another stage never reaches (a deadlock)");
  plan.position.resize(total);
  for (auto [at, id] : llvm::enumerate(plan.order))
    plan.position[id] = static_cast<uint32_t>(at);
  return plan;
}

/// One time of every step of `plan` in binary64 seconds, by step number,
/// each rounded once to the nearest picosecond into `result`; fails naming
/// the first step in timing order whose time cannot be.
static llvm::Error
roundTimes(const TimingPlan &plan, llvm::ArrayRef<double> seconds,
           llvm::function_ref<std::string(uint32_t)> describe,
           std::vector<estimate::Picoseconds> &result) {
  result.resize(plan.steps());
  for (uint32_t id : plan.order) {
    std::optional<estimate::Picoseconds> time =
        estimate::picosecondsOf(seconds[id]);
    if (!time)
      return failure(describe(id) +
                     " has a negative or non-finite time, or one beyond "
                     "2^63 picoseconds");
    result[id] = *time;
  }
  return llvm::Error::success();
}

llvm::Error blueprint::analysis::roundStepTimes(
    const TimingPlan &plan, llvm::ArrayRef<double> seconds,
    llvm::ArrayRef<double> transferSeconds, llvm::ArrayRef<double> readySeconds,
    llvm::function_ref<std::string(uint32_t)> describe, StepDurations &result) {
  if (llvm::Error error = roundTimes(plan, seconds, describe, result.durations))
    return error;
  if (llvm::Error error =
          roundTimes(plan, transferSeconds, describe, result.transfers))
    return error;
  return roundTimes(plan, readySeconds, describe, result.ready);
}

llvm::Error blueprint::analysis::timeSteps(
    const TimingPlan &plan, const StepDurations &times,
    llvm::function_ref<std::string(uint32_t)> describe, PlanTiming &result,
    size_t from) {
  constexpr uint32_t none = TimingPlan::kNone;
  using estimate::Picoseconds;
  size_t total = plan.steps();
  from = std::min(from, total);
  // A meeting's earlier members hold their ready times only until its last
  // member times them all: resume at its first member. Moving back may land
  // inside another meeting whose span overlaps, so repeat until no meeting
  // holds the position.
  for (bool moved = true; moved;) {
    moved = false;
    for (const std::vector<uint32_t> &members : plan.meetings)
      if (plan.position[members.front()] < from &&
          from <= plan.position[members.back()]) {
        from = plan.position[members.front()];
        moved = true;
      }
  }
  result.timedFrom = from;
  if (from == 0) {
    result.timing.resize(total);
    result.predecessor.resize(total);
    result.transferred.assign(total, false);
    result.readied.assign(total, false);
  } else {
    for (size_t at = from; at < total; ++at) {
      result.transferred[plan.order[at]] = false;
      result.readied[plan.order[at]] = false;
    }
  }
  result.reversedPath.clear();
  result.iterationPicoseconds = 0;
  result.exposedCommunicationPicoseconds = 0;
  result.pathComputePicoseconds = 0;
  StepTiming *timing = result.timing.data();
  uint32_t *predecessors = result.predecessor.data();
  const uint32_t *depBegin = plan.depBegin.data();
  const uint32_t *deps = plan.deps.data();
  const Picoseconds *durations = times.durations.data();
  // Every sum of two times is checked: an end beyond int64_t picoseconds
  // (106 days) is a diagnostic naming its step, never a wrapped time.
  auto overflow = [&](uint32_t id) {
    return failure(describe(id) + " ends beyond 2^63 picoseconds");
  };
  // The step that finishes last (the first such in step order), found as
  // the steps are timed: the kept steps first, then each timed step once
  // its end is final (a meeting's members when its last member is timed).
  uint32_t last = none;
  Picoseconds lastEnd = 0;
  auto finishes = [&](uint32_t id) {
    Picoseconds end = timing[id].end;
    if (last == none || end > lastEnd || (end == lastEnd && id < last)) {
      last = id;
      lastEnd = end;
    }
  };
  for (uint32_t id : llvm::ArrayRef(plan.order).take_front(from))
    finishes(id);
  for (uint32_t id : llvm::ArrayRef(plan.order).drop_front(from)) {
    Picoseconds start = 0;
    uint32_t predecessor = none;
    for (uint32_t dep = depBegin[id], end = depBegin[id + 1]; dep < end;
         ++dep) {
      Picoseconds depEnd = timing[deps[dep]].end;
      if (predecessor == none || depEnd > start) {
        start = depEnd;
        predecessor = deps[dep];
      }
    }
    // A step ready inside an earlier instance: that instance's start plus
    // the part of it the step waits for.
    uint32_t readyAfter = plan.readyAfter[id];
    if (readyAfter != none) {
      Picoseconds ready = 0;
      if (llvm::AddOverflow(timing[readyAfter].start, times.ready[id], ready))
        return overflow(id);
      if (predecessor == none || ready > start) {
        start = ready;
        predecessor = readyAfter;
        result.readied[id] = true;
      }
    }
    uint32_t meeting = plan.meeting[id];
    if (meeting != none) {
      // Wait for every member, then all start at the latest's ready time
      // (a member's start holds its ready time until then).
      timing[id].start = start;
      predecessors[id] = predecessor;
      const std::vector<uint32_t> &members = plan.meetings[meeting];
      if (members.back() != id)
        continue;
      uint32_t latest = members.front();
      for (uint32_t member : members)
        if (timing[member].start > timing[latest].start)
          latest = member;
      Picoseconds together = timing[latest].start;
      uint32_t readyBy = predecessors[latest];
      for (uint32_t member : members) {
        Picoseconds end = 0;
        if (llvm::AddOverflow(together, durations[member], end))
          return overflow(member);
        timing[member] = {together, end};
        predecessors[member] = readyBy;
        finishes(member);
      }
      continue;
    }
    Picoseconds end = 0;
    if (llvm::AddOverflow(start, durations[id], end))
      return overflow(id);
    uint32_t sender = plan.sender[id];
    if (sender != none) {
      Picoseconds arrival = 0;
      if (llvm::AddOverflow(timing[sender].start, times.transfers[sender],
                            arrival))
        return overflow(id);
      if (arrival > end) {
        end = arrival;
        predecessor = sender;
        result.transferred[id] = true;
      }
    }
    timing[id] = {start, end};
    predecessors[id] = predecessor;
    finishes(id);
  }

  // The chain of predecessors that made the last step finish when it did.
  if (total == 0)
    return llvm::Error::success();
  result.iterationPicoseconds = lastEnd;
  // The path stays in one stage for many steps: the last segment's stage is
  // tried before a search of the stages' bounds.
  size_t stage = 0;
  auto segmentOf = [&](uint32_t id, bool transfer, Picoseconds start,
                       Picoseconds end) {
    if (id < plan.stageBegin[stage] || id >= plan.stageBegin[stage + 1])
      stage = static_cast<size_t>(llvm::upper_bound(plan.stageBegin, id) -
                                  plan.stageBegin.begin() - 1);
    return PathSegment{static_cast<int64_t>(stage), id - plan.stageBegin[stage],
                       transfer, start, end};
  };
  uint32_t at = last;
  // Where the path leaves the step: its end, or for an instance a later step
  // was ready inside, that step's start.
  Picoseconds until = result.timing[last].end;
  while (at != none) {
    const StepTiming &timing = result.timing[at];
    // A step occupies the path from its start to its end; a receive that
    // waited for its message only at its end, where the transfer arrives.
    // The transfer occupies it from where its send ends: the send's start
    // for an overlapped send, the arrival itself for a blocking one (the
    // send step holds the transfer).
    bool waited = result.transferred[at];
    result.reversedPath.push_back(
        segmentOf(at, false, waited ? timing.end : timing.start, until));
    uint32_t predecessor = result.predecessor[at];
    if (predecessor != none && waited &&
        result.timing[predecessor].end < timing.end)
      result.reversedPath.push_back(segmentOf(
          predecessor, true, result.timing[predecessor].end, timing.end));
    if (predecessor != none)
      until =
          result.readied[at] ? timing.start : result.timing[predecessor].end;
    at = predecessor;
  }
  // The segments are disjoint intervals of [0, iteration]: their sums
  // cannot overflow.
  for (const PathSegment &segment : llvm::reverse(result.reversedPath)) {
    Picoseconds duration = segment.end - segment.start;
    StepKind kind =
        plan.kinds[plan.stageBegin[static_cast<size_t>(segment.stage)] +
                   segment.step];
    if (segment.transfer || kind == StepKind::Collective ||
        kind == StepKind::Send)
      result.exposedCommunicationPicoseconds += duration;
    else if (kind == StepKind::Compute || kind == StepKind::StageWork)
      result.pathComputePicoseconds += duration;
  }
  return llvm::Error::success();
}

llvm::Expected<CriticalPathReport>
blueprint::analysis::longestPath(const RunGraph &graph) {
  using estimate::Picoseconds;
  llvm::Expected<TimingPlan> plan = timingPlanOf(graph);
  if (!plan)
    return plan.takeError();
  std::vector<double> seconds, transfers, ready, hidden;
  seconds.reserve(plan->steps());
  transfers.reserve(plan->steps());
  ready.reserve(plan->steps());
  hidden.reserve(plan->steps());
  for (const std::vector<GraphStep> &steps : graph.stages)
    for (const GraphStep &step : steps) {
      seconds.push_back(step.seconds);
      transfers.push_back(step.transferSeconds);
      ready.push_back(step.readySeconds);
      hidden.push_back(step.hiddenSeconds);
    }
  auto describe = [&](uint32_t id) {
    size_t stage = static_cast<size_t>(llvm::upper_bound(plan->stageBegin, id) -
                                       plan->stageBegin.begin() - 1);
    size_t index = id - plan->stageBegin[stage];
    return where(static_cast<int64_t>(stage), index,
                 graph.stages[stage][index]);
  };
  StepDurations times;
  if (llvm::Error error =
          roundStepTimes(*plan, seconds, transfers, ready, describe, times))
    return std::move(error);
  // The tensor-parallel communication each instance hid, rounded once like
  // its duration (a report figure; the timing does not read it).
  std::vector<Picoseconds> hiddenTimes;
  if (llvm::Error error = roundTimes(*plan, hidden, describe, hiddenTimes))
    return std::move(error);
  PlanTiming timed;
  if (llvm::Error error = timeSteps(*plan, times, describe, timed))
    return std::move(error);
  CriticalPathReport report;
  report.iterationPicoseconds = timed.iterationPicoseconds;
  report.exposedCommunicationPicoseconds =
      timed.exposedCommunicationPicoseconds;
  report.pathComputePicoseconds = timed.pathComputePicoseconds;
  report.path.assign(timed.reversedPath.rbegin(), timed.reversedPath.rend());
  workload::OverflowGuard guard;
  for (const PathSegment &segment : report.path)
    if (!segment.transfer)
      report.pathHiddenTPCommPicoseconds = guard.add(
          report.pathHiddenTPCommPicoseconds,
          hiddenTimes[plan->stageBegin[static_cast<size_t>(segment.stage)] +
                      segment.step],
          "the tensor-parallel communication hidden on the path");
  for (size_t stage = 0; stage < graph.stages.size(); ++stage)
    report.timing.emplace_back(timed.timing.begin() + plan->stageBegin[stage],
                               timed.timing.begin() +
                                   plan->stageBegin[stage + 1]);
  if (plan->steps() == 0)
    return report;
  // The last step of each stage on the path: a stage's reductions beside
  // its backward count on the path when a step after them is on it.
  std::vector<std::optional<size_t>> lastOnPath(graph.stages.size());
  for (const PathSegment &segment : report.path) {
    std::optional<size_t> &last =
        lastOnPath[static_cast<size_t>(segment.stage)];
    last = std::max(last.value_or(0), segment.step);
  }
  for (auto [stage, steps] : llvm::enumerate(graph.stages)) {
    StageTime time;
    // The end of the stage's latest compute step or blocking send so far: a
    // reduction beside the backward is hidden while it runs before that
    // (under the backward, or beside the blocking send that follows it and
    // holds the stage), so that a stage's counted times stay disjoint.
    Picoseconds busyEnd = 0;
    for (auto [index, step] : llvm::enumerate(steps)) {
      const StepTiming &timing = report.timing[stage][index];
      size_t id = plan->stageBegin[stage] + index;
      Picoseconds duration = times.durations[id];
      Picoseconds hidden = 0;
      if (step.besideBackward)
        hidden = std::max<Picoseconds>(0, std::min(timing.end, busyEnd) -
                                              timing.start);
      if (step.kind == StepKind::Compute ||
          (step.kind == StepKind::Send && duration > 0))
        busyEnd = timing.end;
      if (step.kind == StepKind::Collective || step.kind == StepKind::Send)
        time.collectivePicoseconds =
            guard.add(time.collectivePicoseconds, duration - hidden,
                      "a stage's collective time");
      else
        time.computePicoseconds = guard.add(time.computePicoseconds, duration,
                                            "a stage's compute time");
      time.hiddenTPCommPicoseconds =
          guard.add(time.hiddenTPCommPicoseconds, hiddenTimes[id],
                    "a stage's hidden tensor-parallel communication");
      time.hiddenDPReducePicoseconds =
          guard.add(time.hiddenDPReducePicoseconds, hidden,
                    "a stage's hidden data-parallel reduction");
      if (lastOnPath[stage] && *lastOnPath[stage] > index)
        report.pathHiddenDPReducePicoseconds =
            guard.add(report.pathHiddenDPReducePicoseconds, hidden,
                      "the data-parallel reduction hidden on the path");
    }
    // A stage's steps run one after another within [0, iteration], the
    // exposed part of a reduction beside the backward from where the
    // compute or blocking send before it ends: the bubble is exact and not
    // negative.
    Picoseconds busy =
        guard.add(time.computePicoseconds, time.collectivePicoseconds,
                  "a stage's busy time");
    time.bubblePicoseconds = report.iterationPicoseconds - busy;
    report.stages.push_back(time);
  }
  if (guard.failed())
    return guard.error("critical path");
  return report;
}

llvm::Expected<double> blueprint::analysis::pipelineTransferSeconds(
    int64_t bytes, const workload::MappingSpec &mapping,
    const estimate::SystemProfile &profile,
    const estimate::NetworkTierBinding &binding) {
  llvm::StringRef axis = workload::kPipelineParallelAxis;
  auto bound = binding.tierOfAxis.find(axis.str());
  if (bound == binding.tierOfAxis.end())
    return failure("pipeline messages span mesh axis 'pp' (" +
                   llvm::Twine(mapping.pp) +
                   " ranks), which the binding does not bind; bind it to a "
                   "network tier, e.g. binding=pp:infiniband");
  const estimate::NetworkTier *tier = profile.tier(bound->second);
  if (!tier)
    return failure("the binding binds mesh axis 'pp' to network tier '" +
                   bound->second + "', which profile '" + profile.name +
                   "' does not declare");
  estimate::TierBandwidth bandwidth =
      estimate::effectiveTierBandwidth(*tier, bytes);
  return pointToPointSeconds(bytes, bandwidth.bytesPerSecond,
                             tier->latencySeconds.value);
}

int64_t blueprint::analysis::messageChannel(workload::PipelineMessage message,
                                            int64_t microBatch, int64_t chunk,
                                            int64_t chunks) {
  int64_t what = static_cast<int64_t>(message);
  return (microBatch * 3 + what) * chunks + chunk;
}

GraphStep blueprint::analysis::instanceStep(
    llvm::StringRef templateName, PipelinePass pass, int64_t chunk,
    std::optional<int64_t> microBatch,
    std::optional<std::pair<int64_t, int64_t>> blocks, TaskTimes times,
    bool labelled) {
  GraphStep step;
  step.kind = StepKind::Compute;
  step.pass = pass;
  step.microBatch = microBatch;
  step.seconds = times.seconds;
  step.hiddenSeconds = times.hiddenSeconds;
  if (!labelled)
    return step;
  step.label = templateName.str() + " chunk " + std::to_string(chunk);
  if (microBatch)
    step.label += " micro_batch " + std::to_string(*microBatch);
  if (blocks)
    step.label += " blocks [" + std::to_string(blocks->first) + ", " +
                  std::to_string(blocks->second) + ")";
  return step;
}

MessageTimes blueprint::analysis::messageTimes(bool send,
                                               double transferSeconds,
                                               bool overlapped) {
  if (!send)
    return {0, 0};
  return {overlapped ? 0 : transferSeconds, transferSeconds};
}

GraphStep blueprint::analysis::messageStep(bool send,
                                           workload::PipelineMessage message,
                                           int64_t microBatch, int64_t chunk,
                                           int64_t peer, int64_t chunks,
                                           double transferSeconds,
                                           bool overlapped, bool labelled) {
  GraphStep step;
  step.kind = send ? StepKind::Send : StepKind::Receive;
  step.pass = message == workload::PipelineMessage::ActivationGrad
                  ? PipelinePass::Backward
                  : PipelinePass::Forward;
  step.microBatch = microBatch;
  step.channel = messageChannel(message, microBatch, chunk, chunks);
  MessageTimes times = messageTimes(send, transferSeconds, overlapped);
  step.seconds = times.seconds;
  step.transferSeconds = times.transferSeconds;
  if (!labelled)
    return step;
  step.label = (send ? "send " : "recv ") +
               workload::stringifyEnum(message).str() + " micro_batch " +
               std::to_string(microBatch) + " chunk " + std::to_string(chunk) +
               (send ? " to " : " from ") + std::to_string(peer);
  return step;
}

GraphStep blueprint::analysis::workStep(
    llvm::StringRef primitive, bool collective, llvm::StringRef axis,
    llvm::ArrayRef<int64_t> group, int64_t stages, workload::Cadence cadence,
    workload::Phase phase, double seconds) {
  GraphStep step;
  // A collective over the pp axis joins ranks of different stages.
  if (collective && axis == workload::kPipelineParallelAxis) {
    if (group.empty())
      for (int64_t stage = 0; stage < stages; ++stage)
        step.rendezvous.push_back(stage);
    else
      step.rendezvous.assign(group.begin(), group.end());
  }
  step.kind = collective ? StepKind::Collective : StepKind::StageWork;
  step.pass = cadence == workload::Cadence::PerIteration ? PipelinePass::Step
              : phase == workload::Phase::Forward        ? PipelinePass::Forward
                                                  : PipelinePass::Backward;
  step.seconds = seconds;
  step.label = primitive.str();
  if (collective)
    step.label += " over " + axis.str();
  return step;
}

bool blueprint::analysis::reducesBesideBackward(
    const workload::MappingSpec &mapping, llvm::StringRef primitive) {
  return mapping.overlapDPGradReduce &&
         (primitive == workload::primitive::kDPGradAllReduce ||
          primitive == workload::primitive::kDPGradReduceScatter);
}

StepCoster::StepCoster(const workload::MappingSpec &mapping,
                       workload::DataType computeType,
                       const estimate::SystemProfile &profile,
                       const estimate::NetworkTierBinding &binding)
    : mapping(mapping), computeType(computeType), profile(profile),
      binding(binding) {}

std::vector<OverlapPair> blueprint::analysis::tensorParallelOverlapPairs(
    llvm::ArrayRef<estimate::EstimateTask> tasks) {
  using workload::CollectiveKind;
  using workload::Engine;
  using workload::Phase;
  std::vector<OverlapPair> pairs;
  // A GEMM hides at most one collective: the code waits for each before
  // issuing the next. A collective is in one pair: nested [D, W] ranges
  // (which no builder makes) could not subtract it twice.
  std::vector<bool> paired(tasks.size(), false);
  auto pair = [&](size_t collective, size_t compute) {
    if (paired[compute] || paired[collective])
      return;
    paired[compute] = true;
    paired[collective] = true;
    pairs.push_back({collective, compute});
  };
  auto isMatmul = [&](size_t index, Phase phase) {
    return tasks[index].engine == Engine::Matmul && tasks[index].phase == phase;
  };
  for (size_t weightGrad = 0; weightGrad < tasks.size(); ++weightGrad) {
    if (!isMatmul(weightGrad, Phase::WeightGrad))
      continue;
    // The input-gradient GEMM of the same linear: the nearest earlier
    // activation_grad matmul of its primitive.
    std::optional<size_t> inputGrad;
    for (size_t index = weightGrad; index-- > 0;)
      if (isMatmul(index, Phase::ActivationGrad) &&
          tasks[index].primitive == tasks[weightGrad].primitive) {
        inputGrad = index;
        break;
      }
    if (!inputGrad)
      continue;
    for (size_t index = *inputGrad + 1; index < weightGrad; ++index) {
      const estimate::EstimateTask &task = tasks[index];
      if (!task.collective || task.meshAxis != workload::kTensorParallelAxis)
        continue;
      CollectiveKind kind = task.collective->kind;
      // The input gradient's reduction is issued before the weight-
      // gradient GEMM and waited for after it (`allreduce_dgrad`, or the
      // reduce-scatter under sequence parallelism).
      if (task.phase == Phase::ActivationGrad &&
          (kind == CollectiveKind::AllReduce ||
           kind == CollectiveKind::ReduceScatter))
        pair(index, weightGrad);
      // Sequence parallelism's all-gather of the saved input is issued
      // before the input-gradient GEMM and waited for after it.
      else if (task.phase == Phase::Recommunication &&
               kind == CollectiveKind::AllGather)
        pair(index, *inputGrad);
    }
  }
  return pairs;
}

llvm::Expected<double>
StepCoster::seconds(std::vector<estimate::EstimateTask> tasks,
                    size_t groupSize) {
  llvm::Expected<TaskTimes> result = times(std::move(tasks), groupSize);
  if (!result)
    return result.takeError();
  return result->seconds;
}

llvm::Expected<TaskTimes>
StepCoster::times(std::vector<estimate::EstimateTask> tasks, size_t groupSize) {
  std::vector<OverlapPair> pairs;
  if (mapping.overlapTPComm)
    pairs = tensorParallelOverlapPairs(tasks);
  estimate::EstimateInput input =
      estimate::makeEstimateInput(computeType, mapping);
  for (estimate::MeshAxis &meshAxis : input.mesh)
    for (const estimate::EstimateTask &task : tasks)
      if (groupSize > 0 && meshAxis.name == task.meshAxis)
        meshAxis.size = static_cast<int64_t>(groupSize);
  input.tasks = std::move(tasks);
  estimate::EstimateOptions options;
  options.explain = false;
  llvm::Expected<estimate::EstimateReport> report =
      estimate::estimateWork(input, profile, binding, options);
  if (!report)
    return report.takeError();
  TaskTimes result;
  for (const estimate::TaskEstimate &task : report->tasks)
    result.seconds += task.seconds;
  // A pair lasts its longer task: the shorter runs under it.
  for (const OverlapPair &pair : pairs)
    result.hiddenSeconds += std::min(report->tasks[pair.collective].seconds,
                                     report->tasks[pair.compute].seconds);
  result.seconds -= result.hiddenSeconds;
  return result;
}

llvm::Expected<double>
StepCoster::workSeconds(const estimate::EstimateTask &task, size_t groupSize) {
  const std::optional<workload::CollectiveFacts> &collective =
      task.collective;
  WorkKey key{task.primitive,
              static_cast<int>(task.phase),
              static_cast<int>(task.engine),
              static_cast<int>(task.cadence),
              task.ops,
              task.readBytes,
              task.writeBytes,
              collective ? static_cast<int>(collective->kind) : -1,
              collective ? static_cast<int>(collective->reduction) : -1,
              collective ? collective->participants : -1,
              collective ? collective->messageBytes : -1,
              task.meshAxis,
              workload::flattenGemms(task.gemms),
              static_cast<int>(task.gemmCover),
              groupSize};
  auto known = works.find(key);
  if (known != works.end())
    return known->second;
  llvm::Expected<double> result = seconds({task}, groupSize);
  if (result)
    works[key] = *result;
  return result;
}

llvm::Expected<double> StepCoster::transferSeconds(int64_t bytes) {
  auto known = transfers.find(bytes);
  if (known != transfers.end())
    return known->second;
  llvm::Expected<double> result =
      pipelineTransferSeconds(bytes, mapping, profile, binding);
  if (result)
    transfers[bytes] = *result;
  return result;
}

namespace {

/// A task of a template or a stage, as the estimate costs it.
llvm::Expected<estimate::EstimateTask>
taskOf(const workload::Invocation &invocation, workload::Cadence cadence,
       llvm::StringRef axis) {
  llvm::Expected<workload::InvocationFigures> figures =
      workload::figuresOf(invocation);
  if (!figures)
    return figures.takeError();
  return estimate::makeEstimateTask(*figures, cadence, axis);
}

} // namespace

/// `error` of a template's work, named by the template's symbol as the
/// analyses of the IR name it ("@block_forward: ..."), so a row costed
/// without IR says what the same row costed through it says.
static llvm::Error inTemplate(const workload::RunTemplate &runTemplate,
                              llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "@" + runTemplate.name + ": " +
                                     llvm::toString(std::move(error)));
}

bool TemplateCostInputs::operator==(const TemplateCostInputs &other) const {
  auto sameAxis = [](const estimate::MeshAxis &a, const estimate::MeshAxis &b) {
    return a.name == b.name && a.size == b.size;
  };
  return computeType == other.computeType &&
         spannedAxes.size() == other.spannedAxes.size() &&
         std::equal(spannedAxes.begin(), spannedAxes.end(),
                    other.spannedAxes.begin(), sameAxis);
}

TemplateCostInputs blueprint::analysis::templateCostInputsOf(
    llvm::ArrayRef<workload::RunTemplate> templates,
    const workload::MappingSpec &mapping, workload::DataType computeType) {
  TemplateCostInputs inputs;
  inputs.computeType = computeType;
  // times() builds its mesh with makeEstimateInput: the sizes it reads.
  std::vector<estimate::MeshAxis> mesh = estimate::meshAxesOf(mapping);
  auto span = [&](llvm::StringRef name) {
    if (llvm::any_of(inputs.spannedAxes, [&](const estimate::MeshAxis &axis) {
          return axis.name == name;
        }))
      return;
    int64_t size = 0;
    for (const estimate::MeshAxis &axis : mesh)
      if (axis.name == name)
        size = axis.size;
    inputs.spannedAxes.push_back({name.str(), size});
  };
  // The axis templateTimes gives a task (taskOf's), which the estimate
  // reads of a collective, and the inner axes of its facts.
  for (const workload::RunTemplate &runTemplate : templates)
    for (const workload::Invocation &invocation :
         runTemplate.work.invocations) {
      if (invocation.engine == workload::Engine::Collective ||
          invocation.collective)
        span(invocation.collective
                 ? llvm::StringRef(invocation.collective->axis)
                 : llvm::StringRef(workload::kTensorParallelAxis));
      if (invocation.collective)
        for (const std::string &inner : invocation.collective->innerAxes)
          span(inner);
    }
  return inputs;
}

bool blueprint::analysis::sameTemplateCostsRead(
    llvm::ArrayRef<workload::RunTemplate> a,
    llvm::ArrayRef<workload::RunTemplate> b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const workload::RunTemplate &x,
                       const workload::RunTemplate &y) {
                      return x.work.cadence == y.work.cadence &&
                             x.work.invocations == y.work.invocations;
                    });
}

llvm::Expected<std::vector<double>>
StepCoster::templateSeconds(llvm::ArrayRef<workload::RunTemplate> templates) {
  llvm::Expected<std::vector<TaskTimes>> times = templateTimes(templates);
  if (!times)
    return times.takeError();
  std::vector<double> result;
  for (const TaskTimes &time : *times)
    result.push_back(time.seconds);
  return result;
}

llvm::Expected<std::vector<TaskTimes>>
StepCoster::templateTimes(llvm::ArrayRef<workload::RunTemplate> templates) {
  std::vector<TaskTimes> result;
  for (const workload::RunTemplate &runTemplate : templates) {
    std::vector<estimate::EstimateTask> tasks;
    for (const workload::Invocation &invocation :
         runTemplate.work.invocations) {
      llvm::Expected<estimate::EstimateTask> task =
          taskOf(invocation, runTemplate.work.cadence,
                 invocation.collective ? invocation.collective->axis
                                       : workload::kTensorParallelAxis.str());
      if (!task)
        return inTemplate(runTemplate, task.takeError());
      tasks.push_back(std::move(*task));
    }
    llvm::Expected<TaskTimes> times = this->times(std::move(tasks));
    if (!times)
      return inTemplate(runTemplate, times.takeError());
    result.push_back(*times);
  }
  return result;
}

llvm::Expected<double>
StepCoster::runWorkSeconds(const workload::RunWork &work) {
  llvm::Expected<estimate::EstimateTask> task =
      taskOf(*work.invocation, work.cadence, work.axis);
  if (!task)
    return task.takeError();
  return workSeconds(*task, work.group.size());
}

double StepCoster::instanceSeconds(double templateSeconds,
                                   int64_t repetitions) {
  return templateSeconds * static_cast<double>(repetitions);
}

TaskTimes StepCoster::instanceTimes(TaskTimes templateTimes,
                                    int64_t repetitions) {
  return {instanceSeconds(templateTimes.seconds, repetitions),
          instanceSeconds(templateTimes.hiddenSeconds, repetitions)};
}

llvm::Expected<RunGraph> blueprint::analysis::runGraphOf(
    const workload::WholeRun &run, const workload::MappingSpec &mapping,
    workload::DataType computeType, const estimate::SystemProfile &profile,
    const estimate::NetworkTierBinding &binding, bool labelled, bool costed) {
  StepCoster coster(mapping, computeType, profile, binding);
  llvm::Expected<std::vector<TaskTimes>> templateTimes =
      costed ? coster.templateTimes(run.templates)
             : std::vector<TaskTimes>(run.templates.size());
  if (!templateTimes)
    return templateTimes.takeError();
  std::vector<std::optional<double>> sharedSeconds(run.works.size());
  RunGraph graph;
  int64_t chunks = run.layout.chunks();
  for (const workload::StageProgram &program : run.stages) {
    std::vector<GraphStep> steps;
    steps.reserve(program.steps.size());
    for (const workload::RunStep &runStep : program.steps) {
      GraphStep step;
      if (const auto *instance =
              std::get_if<workload::RunInstance>(&runStep.action)) {
        const workload::RunTemplate &runTemplate =
            run.templates[instance->templateIndex];
        std::optional<std::pair<int64_t, int64_t>> blocks;
        if (instance->hasBlocks)
          blocks = {instance->firstBlock, instance->endBlock};
        step = instanceStep(
            runTemplate.name, runTemplate.pass, instance->chunk,
            instance->microBatch, blocks,
            StepCoster::instanceTimes((*templateTimes)[instance->templateIndex],
                                      instance->repetitions()),
            labelled);
      } else if (const auto *message =
                     std::get_if<workload::RunMessage>(&runStep.action)) {
        double transfer = 0;
        if (message->send && costed) {
          llvm::Expected<double> seconds =
              coster.transferSeconds(message->bytes);
          if (!seconds)
            return seconds.takeError();
          transfer = *seconds;
        }
        step = messageStep(message->send, message->message, message->microBatch,
                           message->chunk, message->peer, chunks, transfer,
                           mapping.overlapP2PComm, labelled);
      } else {
        const auto &work = std::get<workload::RunWork>(runStep.action);
        // A shared work is costed once for all the steps that repeat it.
        std::optional<double> *known =
            work.shared ? &sharedSeconds[*work.shared] : nullptr;
        llvm::Expected<double> seconds = !costed ? 0.0
                                         : known && *known
                                             ? **known
                                             : coster.runWorkSeconds(work);
        if (!seconds)
          return seconds.takeError();
        if (known)
          *known = *seconds;
        step = workStep(work.invocation->primitive,
                        work.invocation->collective.has_value(), work.axis,
                        work.group, mapping.pp, work.cadence,
                        work.invocation->phase, *seconds);
        step.besideBackward =
            reducesBesideBackward(mapping, work.invocation->primitive);
      }
      step.deps = runStep.deps;
      if (runStep.readyBlocks) {
        // The bucket is ready after the first readyBlocks blocks of the
        // instance of its last dependency.
        const workload::RunInstance *instance =
            workload::readyInstanceOf(program, runStep);
        if (!instance)
          return failure("stage " + llvm::Twine(program.stage) +
                         ": a step ready inside an instance depends on no "
                         "instance last");
        step.readyAfter = step.deps.pop_back_val();
        step.readySeconds = StepCoster::instanceSeconds(
            (*templateTimes)[instance->templateIndex].seconds,
            *runStep.readyBlocks);
      }
      steps.push_back(std::move(step));
    }
    graph.stages.push_back(std::move(steps));
  }
  return graph;
}

/// A time of the table, in milliseconds to the nanosecond.
static std::string milliseconds(estimate::Picoseconds time) {
  return estimate::formatMilliseconds(time, 6);
}

void blueprint::analysis::printCriticalPathTable(
    const RunGraph &graph, const CriticalPathReport &report,
    llvm::raw_ostream &os) {
  os << "iteration " << milliseconds(report.iterationPicoseconds)
     << " ms: the longest path through " << graph.stages.size() << " stages\n";
  os << "  exposed communication " +
            milliseconds(report.exposedCommunicationPicoseconds) +
            " ms, compute on the path " +
            milliseconds(report.pathComputePicoseconds) + " ms\n";
  // Only a run that overlaps has the line: other reports are unchanged.
  if (report.pathHiddenTPCommPicoseconds > 0)
    os << "  tp communication overlapped with compute on the path " +
              milliseconds(report.pathHiddenTPCommPicoseconds) + " ms\n";
  if (report.pathHiddenDPReducePicoseconds > 0)
    os << "  dp reduction overlapped with backward on the path " +
              milliseconds(report.pathHiddenDPReducePicoseconds) + " ms\n";
  os << "stage  compute_ms  collective_ms  bubble_ms\n";
  for (auto [stage, time] : llvm::enumerate(report.stages))
    os << "  " << stage << "  " << milliseconds(time.computePicoseconds) << "  "
       << milliseconds(time.collectivePicoseconds) << "  "
       << milliseconds(time.bubblePicoseconds) << "\n";
  for (auto [stage, time] : llvm::enumerate(report.stages))
    if (time.hiddenTPCommPicoseconds > 0)
      os << "  stage " << stage << ": tp communication overlapped with compute "
         << milliseconds(time.hiddenTPCommPicoseconds) << " ms\n";
  for (auto [stage, time] : llvm::enumerate(report.stages))
    if (time.hiddenDPReducePicoseconds > 0)
      os << "  stage " << stage << ": dp reduction overlapped with backward "
         << milliseconds(time.hiddenDPReducePicoseconds) << " ms\n";
  os << "critical path (" << report.path.size() << " segments):\n";
  for (const PathSegment &segment : report.path) {
    const GraphStep &step =
        graph.stages[static_cast<size_t>(segment.stage)][segment.step];
    os << "  stage " << segment.stage << " step " << segment.step << "  "
       << (segment.transfer ? llvm::StringRef("transfer")
                            : stringifyStepKind(step.kind))
       << "  " << milliseconds(segment.start) << " - "
       << milliseconds(segment.end) << " ms  " << step.label << "\n";
  }
}

void blueprint::analysis::writeCriticalPathJSON(
    const RunGraph &graph, const CriticalPathReport &report,
    llvm::json::OStream &json) {
  estimate::writeSecondsAttribute(json, "iteration_seconds",
                                  report.iterationPicoseconds);
  estimate::writeSecondsAttribute(json, "exposed_communication_seconds",
                                  report.exposedCommunicationPicoseconds);
  estimate::writeSecondsAttribute(json, "path_compute_seconds",
                                  report.pathComputePicoseconds);
  if (report.pathHiddenTPCommPicoseconds > 0)
    estimate::writeSecondsAttribute(json, "path_overlapped_tp_comm_seconds",
                                    report.pathHiddenTPCommPicoseconds);
  if (report.pathHiddenDPReducePicoseconds > 0)
    estimate::writeSecondsAttribute(json,
                                    "path_overlapped_dp_grad_reduce_seconds",
                                    report.pathHiddenDPReducePicoseconds);
  json.attributeArray("stages", [&] {
    for (size_t stage = 0; stage < report.stages.size(); ++stage)
      json.object([&] {
        const StageTime &time = report.stages[stage];
        json.attribute("stage", static_cast<int64_t>(stage));
        json.attribute("steps",
                       static_cast<int64_t>(graph.stages[stage].size()));
        estimate::writeSecondsAttribute(json, "compute_seconds",
                                        time.computePicoseconds);
        estimate::writeSecondsAttribute(json, "collective_seconds",
                                        time.collectivePicoseconds);
        estimate::writeSecondsAttribute(json, "bubble_seconds",
                                        time.bubblePicoseconds);
        if (time.hiddenTPCommPicoseconds > 0)
          estimate::writeSecondsAttribute(json, "overlapped_tp_comm_seconds",
                                          time.hiddenTPCommPicoseconds);
        if (time.hiddenDPReducePicoseconds > 0)
          estimate::writeSecondsAttribute(json,
                                          "overlapped_dp_grad_reduce_seconds",
                                          time.hiddenDPReducePicoseconds);
      });
  });
  json.attributeArray("path", [&] {
    for (const PathSegment &segment : report.path) {
      const GraphStep &step =
          graph.stages[static_cast<size_t>(segment.stage)][segment.step];
      json.object([&] {
        json.attribute("stage", segment.stage);
        json.attribute("step", static_cast<int64_t>(segment.step));
        json.attribute("kind", segment.transfer ? llvm::StringRef("transfer")
                                                : stringifyStepKind(step.kind));
        json.attribute("label", step.label);
        estimate::writeSecondsAttribute(json, "start_seconds", segment.start);
        estimate::writeSecondsAttribute(json, "end_seconds", segment.end);
      });
    }
  });
}
