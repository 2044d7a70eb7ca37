//===- Pipeline.cpp - Pipeline layouts, schedules and their checks --------===//
//
// The layouts of blocks onto pipeline stages and model chunks, the stage
// orders of Megatron-LM's schedules (megatron/core/pipeline_parallel/
// schedules.py) and of ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline
// Parallelism", Sec. 3.1), and the rules a set of stage orders obeys, the
// last of which (`pipeline_order_c4`) is a linear-time deadlock search over
// the orders' sends and receives.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Pipeline.h"
#include "Blueprint/Workload/Checked.h"
#include "Rules.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <tuple>

using namespace blueprint::workload;
using blueprint::workload::detail::RuleSink;

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

// A layout that passed decoder_training_c13 sums to the model's blocks, so no
// partial sum overflows.
int64_t PipelineLayout::firstBlock(int64_t chunk) const {
  int64_t first = 0;
  for (int64_t g = 0; g < chunk; ++g)
    first += chunkBlocks[g];
  return first;
}

int64_t PipelineLayout::stageBlocks(int64_t stage) const {
  int64_t blocks = 0;
  for (int64_t g = stage; g < chunks(); g += stages)
    blocks += chunkBlocks[g];
  return blocks;
}

bool PipelineLayout::isUniform() const { return llvm::all_equal(chunkBlocks); }

std::vector<RuleViolation>
blueprint::workload::checkPipelineLayout(llvm::ArrayRef<int64_t> layout,
                                         int64_t blocks, int64_t chunks) {
  RuleSink sink;
  int64_t entries = static_cast<int64_t>(layout.size());
  sink.require(entries == chunks, "decoder_training_c11",
               "pipeline_layout has " + llvm::Twine(entries) +
                   " entries; it needs pp * virtual_stages = " +
                   llvm::Twine(chunks) + ", one per model chunk");
  // The entry's stage and virtual chunk need pp, which the chunk count alone
  // does not give: the message names the model chunk.
  for (auto [index, chunkBlocks] : llvm::enumerate(layout))
    sink.require(chunkBlocks > 0, "decoder_training_c12",
                 "pipeline_layout[" + llvm::Twine(index) +
                     "] = " + llvm::Twine(chunkBlocks) + ": model chunk " +
                     llvm::Twine(index) + " holds no block");
  OverflowGuard guard;
  int64_t sum = 0;
  for (int64_t chunkBlocks : layout)
    sum = guard.add(sum, chunkBlocks, "the sum of pipeline_layout");
  if (guard.failed())
    sink.fail("decoder_training_c13",
              "the entries of pipeline_layout sum past a 64-bit integer; "
              "they must sum to blocks = " +
                  llvm::Twine(blocks));
  else
    sink.require(sum == blocks, "decoder_training_c13",
                 "pipeline_layout sums to " + llvm::Twine(sum) +
                     " blocks; the model has blocks = " + llvm::Twine(blocks));
  return sink.take();
}

PipelineLayout blueprint::workload::layoutOf(const ModelSpec &model,
                                             const MappingSpec &mapping) {
  PipelineLayout layout;
  layout.stages = mapping.pp;
  layout.virtualStages = mapping.virtualStages;
  if (!mapping.pipelineLayout.empty()) {
    layout.chunkBlocks = mapping.pipelineLayout;
    return layout;
  }
  // A composing mapping has pp * virtual_stages dividing the blocks
  // (decoder_training_c3), so the product fits.
  int64_t chunks = mapping.pp * mapping.virtualStages;
  layout.chunkBlocks.assign(chunks, model.blocks / chunks);
  return layout;
}

std::variant<std::vector<int64_t>, RuleViolation>
blueprint::workload::firstLastLayout(int64_t blocks, int64_t stages,
                                     std::optional<int64_t> firstStageBlocks,
                                     std::optional<int64_t> lastStageBlocks) {
  static constexpr llvm::StringLiteral rule = "megatron_args_layout";
  static constexpr llvm::StringLiteral firstFlag =
      "--decoder-first-pipeline-num-layers";
  static constexpr llvm::StringLiteral lastFlag =
      "--decoder-last-pipeline-num-layers";
  auto violation = [](const llvm::Twine &message) {
    return RuleViolation{rule.str(), message.str()};
  };
  if (stages <= 0)
    return violation("pp = " + llvm::Twine(stages) + " must be positive");
  if (blocks <= 0)
    return violation("blocks = " + llvm::Twine(blocks) + " must be positive");
  for (auto [flag, count] : {std::pair(firstFlag, firstStageBlocks),
                             std::pair(lastFlag, lastStageBlocks)}) {
    if (!count)
      continue;
    if (*count <= 0)
      return violation(flag + " = " + llvm::Twine(*count) +
                       " must be positive");
    if (*count > blocks)
      return violation(flag + " = " + llvm::Twine(*count) +
                       " exceeds the model's " + llvm::Twine(blocks) +
                       " blocks");
  }
  // With one stage the first stage is the last: each count given is the
  // whole model.
  if (stages == 1) {
    for (auto [flag, count] : {std::pair(firstFlag, firstStageBlocks),
                               std::pair(lastFlag, lastStageBlocks)})
      if (count && *count != blocks)
        return violation("with pp = 1 the one stage holds all " +
                         llvm::Twine(blocks) + " blocks, but " + flag + " = " +
                         llvm::Twine(*count));
    return std::vector<int64_t>{blocks};
  }
  // Megatron-LM's get_num_layers_to_build: the stages without a count split
  // the blocks the counts leave evenly. Both counts are in [1, blocks], so
  // the differences cannot overflow.
  int64_t rest = blocks;
  int64_t middleStages = stages;
  if (firstStageBlocks) {
    rest -= *firstStageBlocks;
    --middleStages;
  }
  if (lastStageBlocks) {
    rest -= *lastStageBlocks;
    --middleStages;
  }
  std::string counts;
  if (firstStageBlocks)
    counts += (firstFlag + " = " + llvm::Twine(*firstStageBlocks)).str();
  if (firstStageBlocks && lastStageBlocks)
    counts += " and ";
  if (lastStageBlocks)
    counts += (lastFlag + " = " + llvm::Twine(*lastStageBlocks)).str();
  if (middleStages == 0 && rest != 0)
    return violation("with pp = 2, " + counts + " must sum to the model's " +
                     llvm::Twine(blocks) + " blocks");
  if (middleStages > 0 && (rest <= 0 || rest % middleStages != 0))
    return violation(counts + " leave " + llvm::Twine(rest) + " of the " +
                     llvm::Twine(blocks) + " blocks for the other " +
                     llvm::Twine(middleStages) +
                     " stages, which need a positive multiple of " +
                     llvm::Twine(middleStages));
  // Every stage holds at least one block, so stages <= blocks bounds the
  // layout's size.
  std::vector<int64_t> layout(stages,
                              middleStages > 0 ? rest / middleStages : 0);
  if (firstStageBlocks)
    layout.front() = *firstStageBlocks;
  if (lastStageBlocks)
    layout.back() = *lastStageBlocks;
  return layout;
}

std::variant<std::vector<int64_t>, RuleViolation>
blueprint::workload::ceilingLayout(int64_t blocks, int64_t chunks) {
  static constexpr llvm::StringLiteral rule = "ceiling_layout";
  if (chunks <= 0 || blocks <= 0)
    return RuleViolation{rule.str(), ("blocks = " + llvm::Twine(blocks) +
                                      " and model chunks = " +
                                      llvm::Twine(chunks) + " must be positive")
                                         .str()};
  // ceil(blocks / chunks) without forming blocks + chunks - 1.
  int64_t perChunk = blocks / chunks + (blocks % chunks != 0 ? 1 : 0);
  OverflowGuard guard;
  int64_t leading = guard.mul(perChunk, chunks - 1,
                              "ceil(blocks / chunks) * "
                              "(chunks - 1)");
  int64_t rest = guard.failed() ? 0 : blocks - leading;
  if (rest <= 0)
    return RuleViolation{
        rule.str(), ("ceil(blocks / chunks) = ceil(" + llvm::Twine(blocks) +
                     " / " + llvm::Twine(chunks) + ") = " +
                     llvm::Twine(perChunk) + " blocks on each of the first " +
                     llvm::Twine(chunks - 1) + " model chunks leave " +
                     (guard.failed() ? llvm::Twine("no") : llvm::Twine(rest)) +
                     " blocks for the last")
                        .str()};
  // rest > 0 means chunks - 1 <= blocks / perChunk: the layout is no longer
  // than the model.
  std::vector<int64_t> layout(chunks, perChunk);
  layout.back() = rest;
  return layout;
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

llvm::SmallVector<PipelinePass, 3>
blueprint::workload::passesOf(PipelineSchedule schedule) {
  if (schedule == PipelineSchedule::ZeroBubbleH1)
    return {PipelinePass::Forward, PipelinePass::InputGrad,
            PipelinePass::WeightGrad};
  return {PipelinePass::Forward, PipelinePass::Backward};
}

namespace {

ScheduleSlot slot(int64_t microBatch, int64_t virtualIndex, PipelinePass pass) {
  ScheduleSlot result;
  result.microBatch = microBatch;
  result.virtualIndex = virtualIndex;
  result.pass = pass;
  return result;
}

/// GPipe (Huang et al. 2019), all forwards then all backwards: every stage
/// runs the forwards of micro-batches 0 .. m-1, then their backwards in the
/// same micro-batch order.
StageOrder gpipeOrder(int64_t microbatches) {
  StageOrder order;
  order.reserve(2 * microbatches);
  for (int64_t mb = 0; mb < microbatches; ++mb)
    order.push_back(slot(mb, 0, PipelinePass::Forward));
  for (int64_t mb = 0; mb < microbatches; ++mb)
    order.push_back(slot(mb, 0, PipelinePass::Backward));
  return order;
}

/// Megatron-LM's forward_backward_pipelining_without_interleaving: stage r
/// warms up with min(pp - r - 1, m) forwards, alternates one forward and
/// one backward in the steady state, and drains the remaining backwards.
StageOrder oneFOneBOrder(int64_t stages, int64_t stage, int64_t microbatches,
                         PipelinePass backward) {
  int64_t warmup = std::min(stages - stage - 1, microbatches);
  StageOrder order;
  order.reserve(2 * microbatches);
  for (int64_t mb = 0; mb < warmup; ++mb)
    order.push_back(slot(mb, 0, PipelinePass::Forward));
  for (int64_t i = 0; i < microbatches - warmup; ++i) {
    order.push_back(slot(warmup + i, 0, PipelinePass::Forward));
    order.push_back(slot(i, 0, backward));
  }
  for (int64_t mb = microbatches - warmup; mb < microbatches; ++mb)
    order.push_back(slot(mb, 0, backward));
  return order;
}

/// Megatron-LM's forward_backward_pipelining_with_interleaving (the classic
/// schedule, microbatches a multiple of pp): the k-th forward of a stage
/// runs virtual chunk (k / pp) % v on micro-batch (k / (pp v)) pp + k % pp,
/// the k-th backward the mirrored chunk v - 1 - (k / pp) % v on the same
/// micro-batch; stage r warms up with (pp - r - 1) * 2 + (v - 1) pp
/// forwards (all m v of them when m = pp), then alternates.
StageOrder interleavedOrder(int64_t stages, int64_t virtualStages,
                            int64_t stage, int64_t microbatches) {
  int64_t total = microbatches * virtualStages;
  int64_t group = stages * virtualStages;
  auto microBatchOf = [&](int64_t k) {
    return (k / group) * stages + k % stages;
  };
  auto forward = [&](int64_t k) {
    return slot(microBatchOf(k), (k / stages) % virtualStages,
                PipelinePass::Forward);
  };
  auto backward = [&](int64_t k) {
    return slot(microBatchOf(k),
                virtualStages - 1 - (k / stages) % virtualStages,
                PipelinePass::Backward);
  };
  int64_t warmup =
      microbatches == stages
          ? total
          : std::min((stages - stage - 1) * 2 + (virtualStages - 1) * stages,
                     total);
  StageOrder order;
  order.reserve(2 * total);
  for (int64_t k = 0; k < warmup; ++k)
    order.push_back(forward(k));
  for (int64_t i = 0; i < total - warmup; ++i) {
    order.push_back(forward(warmup + i));
    order.push_back(backward(i));
  }
  for (int64_t k = total - warmup; k < total; ++k)
    order.push_back(backward(k));
  return order;
}

/// ZB-H1, the handcrafted schedule of Qi et al. 2023 ("Zero Bubble Pipeline
/// Parallelism", Sec. 3.1): 1F1B's order with each backward split into the
/// input-gradient pass B, kept where 1F1B runs the backward, and the
/// weight-gradient pass W, which nothing downstream waits for. Stage r
/// defers r W passes: after the B of micro-batch k it runs the W of
/// micro-batch k - r, and after its last B the deferred ones in micro-batch
/// order. The first stage runs each W right after its B (it holds the most
/// activations, as in 1F1B); later stages delay theirs so that their B's,
/// which the stages before them wait for, start earlier, and the deferred
/// W's fill the cool-down. Every stage then holds the weight-gradient
/// inputs of pp micro-batches at most, and with passes of F, B and W the
/// iteration takes m (F + B + W) + (pp - 1)(F + B - W), the paper's bubble
/// (docs/Memory.md, "Time"; test/Unit/CriticalPathTest.cpp).
StageOrder zeroBubbleH1Order(int64_t stages, int64_t stage,
                             int64_t microbatches) {
  int64_t deferred = stage;
  StageOrder order;
  order.reserve(3 * microbatches);
  int64_t nextWeightGrad = 0;
  for (const ScheduleSlot &oneFOneB :
       oneFOneBOrder(stages, stage, microbatches, PipelinePass::InputGrad)) {
    order.push_back(oneFOneB);
    if (oneFOneB.pass != PipelinePass::InputGrad ||
        oneFOneB.microBatch - deferred < 0)
      continue;
    order.push_back(slot(nextWeightGrad++, 0, PipelinePass::WeightGrad));
  }
  for (; nextWeightGrad < microbatches; ++nextWeightGrad)
    order.push_back(slot(nextWeightGrad, 0, PipelinePass::WeightGrad));
  return order;
}

} // namespace

std::vector<StageOrder>
blueprint::workload::generateStageOrders(PipelineSchedule schedule,
                                         int64_t stages, int64_t virtualStages,
                                         int64_t microbatches) {
  std::vector<StageOrder> orders;
  orders.reserve(stages);
  for (int64_t stage = 0; stage < stages; ++stage) {
    switch (schedule) {
    case PipelineSchedule::GPipe:
      orders.push_back(gpipeOrder(microbatches));
      break;
    case PipelineSchedule::OneFOneB:
      orders.push_back(
          oneFOneBOrder(stages, stage, microbatches, PipelinePass::Backward));
      break;
    case PipelineSchedule::Interleaved1F1B:
      orders.push_back(
          interleavedOrder(stages, virtualStages, stage, microbatches));
      break;
    case PipelineSchedule::ZeroBubbleH1:
      orders.push_back(zeroBubbleH1Order(stages, stage, microbatches));
      break;
    }
  }
  return orders;
}

namespace {

/// "backward of micro-batch 2, virtual chunk 0".
std::string describe(const ScheduleSlot &slot) {
  return (stringifyEnum(slot.pass) + " of micro-batch " +
          llvm::Twine(slot.microBatch) + ", virtual chunk " +
          llvm::Twine(slot.virtualIndex))
      .str();
}

/// "stage 1 slot 3: backward of micro-batch 2, virtual chunk 0".
std::string describe(int64_t stage, int64_t index, const ScheduleSlot &slot) {
  return ("stage " + llvm::Twine(stage) + " slot " + llvm::Twine(index) + ": " +
          describe(slot))
      .str();
}

/// The pass that must precede `pass` on the same (micro-batch, chunk), if
/// any (pipeline_order_c3).
std::optional<PipelinePass> prerequisiteOf(PipelinePass pass) {
  switch (pass) {
  case PipelinePass::Forward:
    return std::nullopt;
  case PipelinePass::Backward:
  case PipelinePass::InputGrad:
    return PipelinePass::Forward;
  case PipelinePass::WeightGrad:
    return PipelinePass::InputGrad;
  case PipelinePass::Step:
  case PipelinePass::Prefill:
  case PipelinePass::Decode:
    // Never in a training stage's order: pipeline_order_c1 rejects them.
    return std::nullopt;
  }
  llvm_unreachable("unknown pipeline pass");
}

/// A (micro-batch, virtual index, pass) of one stage. Within range
/// (pipeline_order_c1) no component is DenseMapInfo's empty or tombstone
/// key.
using SlotKey = std::tuple<int64_t, int64_t, unsigned>;

SlotKey keyOf(const ScheduleSlot &slot) {
  return {slot.microBatch, slot.virtualIndex, static_cast<unsigned>(slot.pass)};
}

/// "the activation gradient of micro-batch 0 from model chunk 1 on stage 1":
/// the inverse of pipelineChannel.
std::string describeChannel(int64_t channel, int64_t stages, int64_t chunks) {
  bool backward = channel % 2 != 0;
  int64_t chunk = (channel / 2) % chunks;
  int64_t microBatch = channel / 2 / chunks;
  return ((backward ? "the activation gradient" : "the activation") +
          llvm::Twine(" of micro-batch ") + llvm::Twine(microBatch) +
          " from model chunk " + llvm::Twine(chunk) + " on stage " +
          llvm::Twine(chunk % stages))
      .str();
}

} // namespace

std::vector<RuleViolation> blueprint::workload::checkStageOrders(
    PipelineSchedule schedule, int64_t stages, int64_t virtualStages,
    int64_t microbatches, llvm::ArrayRef<StageOrder> orders) {
  RuleSink sink;
  llvm::SmallVector<PipelinePass, 3> passes = passesOf(schedule);

  // pipeline_order_c1: the orders' shape and every slot in range.
  int64_t orderCount = static_cast<int64_t>(orders.size());
  sink.require(orderCount == stages, "pipeline_order_c1",
               llvm::Twine(orderCount) + " stage orders for pp = " +
                   llvm::Twine(stages) + " stages; one order per stage");
  for (auto [stage, order] : llvm::enumerate(orders)) {
    for (auto [index, slot] : llvm::enumerate(order)) {
      int64_t s = static_cast<int64_t>(stage);
      int64_t i = static_cast<int64_t>(index);
      // Each slot is tested first: its description is built only for a
      // broken rule (a whole run's orders hold tens of thousands of slots).
      if (slot.microBatch < 0 || slot.microBatch >= microbatches)
        sink.fail("pipeline_order_c1", describe(s, i, slot) + ": micro-batch " +
                                           llvm::Twine(slot.microBatch) +
                                           " is outside [0, microbatches = " +
                                           llvm::Twine(microbatches) + ")");
      if (slot.virtualIndex < 0 || slot.virtualIndex >= virtualStages)
        sink.fail("pipeline_order_c1", describe(s, i, slot) +
                                           ": virtual chunk " +
                                           llvm::Twine(slot.virtualIndex) +
                                           " is outside [0, virtual_stages = " +
                                           llvm::Twine(virtualStages) + ")");
      if (!llvm::is_contained(passes, slot.pass))
        sink.fail("pipeline_order_c1", describe(s, i, slot) + ": schedule " +
                                           stringifyEnum(schedule) +
                                           " runs no " +
                                           stringifyEnum(slot.pass) + " pass");
    }
  }
  if (!sink.empty())
    return sink.take();

  // pipeline_order_c2 and c3 on each stage, from the first slot of every
  // (micro-batch, virtual index, pass).
  for (auto [stage, order] : llvm::enumerate(orders)) {
    int64_t s = static_cast<int64_t>(stage);
    llvm::DenseMap<SlotKey, int64_t> firstSlot;
    firstSlot.reserve(order.size());
    for (auto [index, slot] : llvm::enumerate(order)) {
      int64_t i = static_cast<int64_t>(index);
      auto [it, inserted] = firstSlot.try_emplace(keyOf(slot), i);
      if (!inserted)
        sink.fail("pipeline_order_c2", describe(s, i, slot) + " repeats slot " +
                                           llvm::Twine(it->second));
    }
    // Every key is in range and distinct, so the stage misses a slot
    // exactly when it has fewer than m * v * passes; the first missing one
    // is then found within firstSlot.size() + 1 probes.
    OverflowGuard guard;
    int64_t needed = guard.product(
        {microbatches, virtualStages, static_cast<int64_t>(passes.size())},
        "microbatches * virtual_stages * passes");
    if (guard.failed() || static_cast<int64_t>(firstSlot.size()) < needed) {
      std::optional<ScheduleSlot> missing;
      for (int64_t mb = 0; mb < microbatches && !missing; ++mb)
        for (int64_t k = 0; k < virtualStages && !missing; ++k)
          for (PipelinePass pass : passes)
            if (!firstSlot.count(keyOf(slot(mb, k, pass)))) {
              missing = slot(mb, k, pass);
              break;
            }
      assert(missing && "fewer distinct slots than needed, yet none missing");
      sink.fail("pipeline_order_c2", "stage " + llvm::Twine(s) +
                                         " has no slot for " +
                                         describe(*missing));
    }
    for (auto [index, slot] : llvm::enumerate(order)) {
      std::optional<PipelinePass> before = prerequisiteOf(slot.pass);
      if (!before)
        continue;
      ScheduleSlot prerequisite = slot;
      prerequisite.pass = *before;
      auto it = firstSlot.find(keyOf(prerequisite));
      // A missing prerequisite is pipeline_order_c2's.
      if (it == firstSlot.end() || it->second < static_cast<int64_t>(index))
        continue;
      sink.fail("pipeline_order_c3",
                describe(s, static_cast<int64_t>(index), slot) +
                    " precedes its " + stringifyEnum(*before) + " (slot " +
                    llvm::Twine(it->second) + ")");
    }
  }
  if (!sink.empty())
    return sink.take();

  // pipeline_order_c4. With c1 and c2 holding, every stage holds
  // m * v * passes slots, so pp * v chunks and the channel keys below
  // 2 * m * pp * v are bounded by the orders' size.
  PipelineLayout layout;
  layout.stages = stages;
  layout.virtualStages = virtualStages;
  layout.chunkBlocks.assign(stages * virtualStages, 1);
  std::optional<Deadlock> deadlock =
      findDeadlock(progressOf(layout, microbatches, orders));
  if (!deadlock)
    return sink.take();
  std::string message = "the stage orders deadlock:";
  for (auto [n, blocked] : llvm::enumerate(deadlock->blocked)) {
    const ScheduleSlot &waiting = orders[blocked.stage][blocked.step];
    message +=
        (llvm::Twine(n == 0 ? " " : "; ") + "stage " +
         llvm::Twine(blocked.stage) + " waits at slot " +
         llvm::Twine(blocked.step) + " (" + describe(waiting) + ") for " +
         describeChannel(blocked.channel, stages, layout.chunks()))
            .str();
  }
  sink.fail("pipeline_order_c4", message);
  return sink.take();
}

int64_t blueprint::workload::peakInFlight(const StageOrder &order) {
  // At most the order's slots: no overflow.
  std::vector<int64_t> counts =
      *inFlightAfter(order, [](int64_t) { return int64_t(1); });
  int64_t peak = 0;
  for (int64_t count : counts)
    peak = std::max(peak, count);
  return peak;
}

std::optional<std::vector<int64_t>> blueprint::workload::inFlightAfter(
    const StageOrder &order,
    llvm::function_ref<int64_t(int64_t virtualIndex)> weight) {
  std::vector<int64_t> counts;
  counts.reserve(order.size());
  int64_t inFlight = 0;
  for (const ScheduleSlot &slot : order) {
    std::optional<int64_t> next = inFlight;
    if (slot.pass == PipelinePass::Forward)
      next = llvm::checkedAdd(inFlight, weight(slot.virtualIndex));
    else if (slot.pass == PipelinePass::Backward ||
             slot.pass == PipelinePass::InputGrad)
      next = llvm::checkedSub(inFlight, weight(slot.virtualIndex));
    if (!next)
      return std::nullopt;
    inFlight = *next;
    counts.push_back(inFlight);
  }
  return counts;
}

std::optional<std::vector<InFlightBlocks>>
blueprint::workload::inFlightBlocksOf(PipelineSchedule schedule,
                                      const PipelineLayout &layout,
                                      int64_t microbatches) {
  std::vector<StageOrder> orders = generateStageOrders(
      schedule, layout.stages, layout.virtualStages, microbatches);
  std::vector<InFlightBlocks> result;
  for (auto [stage, order] : llvm::enumerate(orders)) {
    int64_t at = static_cast<int64_t>(stage);
    std::optional<std::vector<int64_t>> blocks =
        inFlightAfter(order, [&](int64_t virtualIndex) {
          return layout.chunkBlocks[static_cast<size_t>(
              layout.chunkAt(at, virtualIndex))];
        });
    if (!blocks)
      return std::nullopt;
    InFlightBlocks held;
    auto most = [](std::optional<int64_t> &sofar, int64_t count) {
      sofar = std::max(sofar.value_or(count), count);
    };
    bool pastWeightGradients = false;
    int64_t before = 0;
    for (auto [slot, after] : llvm::zip(order, *blocks)) {
      switch (slot.pass) {
      case PipelinePass::Forward:
        held.afterForward = std::max(held.afterForward, after);
        if (pastWeightGradients)
          most(held.afterForwardPastWeightGradients, after);
        break;
      case PipelinePass::Backward:
        most(held.beforeBackward, before);
        pastWeightGradients = true;
        break;
      case PipelinePass::WeightGrad:
        most(held.beforeWeightGrad, before);
        pastWeightGradients = true;
        break;
      default:
        break;
      }
      before = after;
    }
    result.push_back(held);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Deadlock
//===----------------------------------------------------------------------===//

namespace {

/// Channel keys are arbitrary int64_t values, so none can serve as
/// DenseMap's empty or tombstone key: a key carries a tag that only those
/// two set.
struct ChannelKey {
  int64_t channel = 0;
  uint8_t tag = 0;
};

struct ChannelKeyInfo {
  static ChannelKey getEmptyKey() { return {0, 1}; }
  static ChannelKey getTombstoneKey() { return {0, 2}; }
  static unsigned getHashValue(const ChannelKey &key) {
    return llvm::DenseMapInfo<int64_t>::getHashValue(key.channel);
  }
  static bool isEqual(const ChannelKey &a, const ChannelKey &b) {
    return a.channel == b.channel && a.tag == b.tag;
  }
};

} // namespace

// Each stage runs until its next step waits for an unsignalled channel; it
// then parks on that channel's waiter list (a stage waits for at most one
// channel at a time, so the lists are threaded through the stages). A
// signal moves the channel's waiters onto the worklist, and a resumed stage
// continues from the wait it parked at, so every step and every wait is
// visited a bounded number of times: linear in the steps and channels.
std::optional<Deadlock> blueprint::workload::findDeadlock(
    llvm::ArrayRef<std::vector<ProgressStep>> stages) {
  // Dense indices for the channels.
  llvm::DenseMap<ChannelKey, int64_t, ChannelKeyInfo> indexOf;
  auto intern = [&](int64_t channel) {
    int64_t next = static_cast<int64_t>(indexOf.size());
    return indexOf.try_emplace(ChannelKey{channel, 0}, next).first->second;
  };
  for (const std::vector<ProgressStep> &steps : stages)
    for (const ProgressStep &step : steps) {
      for (int64_t channel : step.waits)
        intern(channel);
      for (int64_t channel : step.signals)
        intern(channel);
    }
  auto lookup = [&](int64_t channel) {
    return indexOf.find(ChannelKey{channel, 0})->second;
  };

  int64_t stageCount = static_cast<int64_t>(stages.size());
  std::vector<bool> signalled(indexOf.size(), false);
  constexpr int64_t none = -1;
  std::vector<int64_t> firstWaiter(indexOf.size(), none);
  std::vector<int64_t> nextWaiter(stageCount, none);
  std::vector<size_t> stepOf(stageCount, 0);
  std::vector<size_t> waitOf(stageCount, 0);
  std::vector<int64_t> worklist;
  worklist.reserve(stageCount);
  for (int64_t stage = stageCount - 1; stage >= 0; --stage)
    worklist.push_back(stage);

  while (!worklist.empty()) {
    int64_t stage = worklist.back();
    worklist.pop_back();
    const std::vector<ProgressStep> &steps = stages[stage];
    while (stepOf[stage] < steps.size()) {
      const ProgressStep &step = steps[stepOf[stage]];
      size_t &wait = waitOf[stage];
      while (wait < step.waits.size() && signalled[lookup(step.waits[wait])])
        ++wait;
      if (wait < step.waits.size()) {
        int64_t channel = lookup(step.waits[wait]);
        nextWaiter[stage] = firstWaiter[channel];
        firstWaiter[channel] = stage;
        break;
      }
      for (int64_t signal : step.signals) {
        int64_t channel = lookup(signal);
        signalled[channel] = true;
        for (int64_t waiter = firstWaiter[channel]; waiter != none;) {
          int64_t next = nextWaiter[waiter];
          nextWaiter[waiter] = none;
          worklist.push_back(waiter);
          waiter = next;
        }
        firstWaiter[channel] = none;
      }
      ++stepOf[stage];
      wait = 0;
    }
  }

  Deadlock deadlock;
  for (int64_t stage = 0; stage < stageCount; ++stage) {
    if (stepOf[stage] == stages[stage].size())
      continue;
    const ProgressStep &step = stages[stage][stepOf[stage]];
    Deadlock::Blocked blocked;
    blocked.stage = stage;
    blocked.step = static_cast<int64_t>(stepOf[stage]);
    blocked.channel = step.waits[waitOf[stage]];
    deadlock.blocked.push_back(blocked);
  }
  if (deadlock.blocked.empty())
    return std::nullopt;
  return deadlock;
}

std::vector<std::vector<ProgressStep>>
blueprint::workload::progressOf(const PipelineLayout &layout,
                                int64_t microbatches,
                                llvm::ArrayRef<StageOrder> orders) {
  int64_t chunks = layout.chunks();
  std::vector<std::vector<ProgressStep>> progress;
  progress.reserve(orders.size());
  for (auto [stage, order] : llvm::enumerate(orders)) {
    std::vector<ProgressStep> &steps = progress.emplace_back();
    steps.reserve(order.size());
    for (const ScheduleSlot &slot : order) {
      assert(slot.microBatch < microbatches && "micro-batch out of range");
      ProgressStep &step = steps.emplace_back();
      int64_t chunk =
          layout.chunkAt(static_cast<int64_t>(stage), slot.virtualIndex);
      switch (slot.pass) {
      case PipelinePass::Forward:
        if (chunk > 0)
          step.waits.push_back(
              pipelineChannel(slot.microBatch, chunk - 1, false, chunks));
        if (chunk < chunks - 1)
          step.signals.push_back(
              pipelineChannel(slot.microBatch, chunk, false, chunks));
        break;
      case PipelinePass::Backward:
      case PipelinePass::InputGrad:
        if (chunk < chunks - 1)
          step.waits.push_back(
              pipelineChannel(slot.microBatch, chunk + 1, true, chunks));
        if (chunk > 0)
          step.signals.push_back(
              pipelineChannel(slot.microBatch, chunk, true, chunks));
        break;
      case PipelinePass::WeightGrad:
        // Needs only the stage's own input_grad, an order rule (c3).
      case PipelinePass::Step:
        // The iteration's step is no micro-batch pass (pipeline_order_c1).
      case PipelinePass::Prefill:
      case PipelinePass::Decode:
        // Inference passes are no training pass (pipeline_order_c1).
        break;
      }
    }
  }
  (void)microbatches; // Read only by the assertion.
  return progress;
}

int64_t blueprint::workload::pipelineChannel(int64_t microBatch, int64_t chunk,
                                             bool backward, int64_t chunks) {
  assert(microBatch >= 0 && chunk >= 0 && chunk < chunks &&
         "channel of a slot outside the layout");
  // Precondition: 2 * (microBatch + 1) * chunks fits, which holds for
  // orders obeying pipeline_order_c1 and c2 (see checkStageOrders); each
  // step writes a fresh local, never an operand it reads.
  int64_t scaled = 0;
  int64_t index = 0;
  int64_t key = 0;
  [[maybe_unused]] bool overflowed =
      llvm::MulOverflow(microBatch, chunks, scaled) ||
      llvm::AddOverflow(scaled, chunk, index) ||
      llvm::MulOverflow(index, int64_t(2), key);
  assert(!overflowed && "pipeline channel key overflows");
  return key + (backward ? 1 : 0);
}
