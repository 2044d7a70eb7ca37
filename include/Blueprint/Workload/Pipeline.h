//===- Pipeline.h - Pipeline layouts, schedules and their checks -*- C++
//-*-===//
//
// How the blocks of a model are laid onto pipeline stages and model chunks,
// and in which order each stage runs the passes of its micro-batches: the
// schedules Megatron-LM generates (GPipe, 1F1B, interleaved 1F1B) and the
// zero-bubble ZB-H1 schedule of Qi et al. 2023. Plain data and plain
// functions: the whole-run derivation materialises these orders as IR, the
// `dist` verifier checks IR orders with the same functions, and a search can
// evaluate them without IR. docs/WholeRun.md states the orders and rules.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_PIPELINE_H
#define BLUEPRINT_WORKLOAD_PIPELINE_H

#include "Blueprint/Workload/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace blueprint::workload {

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// The blocks of a model laid onto `stages` pipeline stages of
/// `virtualStages` model chunks each. Model chunks are numbered in model
/// order, 0 .. stages * virtualStages - 1; chunk g is held by stage
/// g % stages as its virtual chunk g / stages (Megatron-LM's interleaved
/// assignment; with one virtual stage chunk g is stage g).
struct PipelineLayout {
  int64_t stages = 1;
  int64_t virtualStages = 1;
  /// Blocks of each model chunk, in model order.
  std::vector<int64_t> chunkBlocks;

  int64_t chunks() const { return static_cast<int64_t>(chunkBlocks.size()); }
  int64_t stageOf(int64_t chunk) const { return chunk % stages; }
  int64_t virtualIndexOf(int64_t chunk) const { return chunk / stages; }
  /// The model chunk a stage holds as its `virtualIndex`-th chunk.
  int64_t chunkAt(int64_t stage, int64_t virtualIndex) const {
    return virtualIndex * stages + stage;
  }
  /// Index of the chunk's first block in the model.
  int64_t firstBlock(int64_t chunk) const;
  /// Blocks of every chunk a stage holds.
  int64_t stageBlocks(int64_t stage) const;
  /// True when every chunk holds the same number of blocks.
  bool isUniform() const;
};

/// The rules of an explicit `pipeline_layout` (blocks per model chunk, in
/// model order) for a model of `blocks` blocks on `chunks` = pp *
/// virtual_stages model chunks: `decoder_training_c11` one entry per chunk,
/// `decoder_training_c12` no empty chunk (every entry positive),
/// `decoder_training_c13` the entries sum to `blocks` (checked for
/// overflow). Empty when the layout is valid.
std::vector<RuleViolation> checkPipelineLayout(llvm::ArrayRef<int64_t> layout,
                                               int64_t blocks, int64_t chunks);

/// The layout of a composing mapping: its explicit `pipelineLayout`, or
/// blocks / (pp * virtual_stages) blocks in every chunk.
PipelineLayout layoutOf(const ModelSpec &model, const MappingSpec &mapping);

/// Megatron-LM's `--decoder-first-pipeline-num-layers` and
/// `--decoder-last-pipeline-num-layers` (either may be absent) as a layout
/// over `stages` stages: the first and last stage hold the given counts and
/// the remaining blocks are split evenly over the other stages. A violation
/// names the flag when the counts cannot make such a layout.
std::variant<std::vector<int64_t>, RuleViolation>
firstLastLayout(int64_t blocks, int64_t stages,
                std::optional<int64_t> firstStageBlocks,
                std::optional<int64_t> lastStageBlocks);

/// Calculon's placement, ceil(blocks / chunks) blocks on every chunk but the
/// last, which holds the rest; a violation when the rest is not positive.
std::variant<std::vector<int64_t>, RuleViolation> ceilingLayout(int64_t blocks,
                                                                int64_t chunks);

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

/// One entry of a stage's order: a pass of one micro-batch through one of
/// the stage's model chunks (by its virtual index on the stage).
struct ScheduleSlot {
  int64_t microBatch = 0;
  int64_t virtualIndex = 0;
  PipelinePass pass = PipelinePass::Forward;

  bool operator==(const ScheduleSlot &other) const {
    return microBatch == other.microBatch &&
           virtualIndex == other.virtualIndex && pass == other.pass;
  }
};

/// The slots one stage runs, in order.
using StageOrder = std::vector<ScheduleSlot>;

/// The passes a schedule runs for every (micro-batch, chunk): forward and
/// backward, or under ZB-H1 forward, input_grad and weight_grad.
llvm::SmallVector<PipelinePass, 3> passesOf(PipelineSchedule schedule);

/// Every stage's order under `schedule` for `microbatches` micro-batches:
/// GPipe, 1F1B and interleaved 1F1B as Megatron-LM's schedules.py generates
/// them, ZB-H1 as Qi et al. 2023 (Sec. 3.1) describe it. Preconditions: the
/// arguments compose (positive; interleaved has pp | microbatches).
std::vector<StageOrder> generateStageOrders(PipelineSchedule schedule,
                                            int64_t stages,
                                            int64_t virtualStages,
                                            int64_t microbatches);

/// The rule violations of a set of stage orders (hand-written or derived),
/// each naming the stage and slot (docs/WholeRun.md):
/// `pipeline_order_c1` one order per stage, every slot's micro-batch and
/// virtual index in range and its pass one `schedule` runs;
/// `pipeline_order_c2` every (micro-batch, virtual index) of the stage has
/// exactly one slot of each pass;
/// `pipeline_order_c3` a micro-batch's forward through a chunk precedes its
/// backward (input_grad), which precedes its weight_grad;
/// `pipeline_order_c4` the orders do not deadlock (findDeadlock on the
/// orders' pipeline dependencies), checked only when c1-c3 hold.
std::vector<RuleViolation> checkStageOrders(PipelineSchedule schedule,
                                            int64_t stages,
                                            int64_t virtualStages,
                                            int64_t microbatches,
                                            llvm::ArrayRef<StageOrder> orders);

/// Micro-batch chunks whose forward has run and whose backward (input_grad
/// under ZB-H1) has not, at most, over the order: the stashed activations a
/// stage holds at its peak, in chunks.
int64_t peakInFlight(const StageOrder &order);
/// After each slot of the order, in order, the sum of `weight(virtualIndex)`
/// (a chunk's blocks, say) over the micro-batch chunks in flight as
/// peakInFlight counts them. None on overflow.
std::optional<std::vector<int64_t>>
inFlightAfter(const StageOrder &order,
              llvm::function_ref<int64_t(int64_t virtualIndex)> weight);

/// The blocks one stage holds in flight (inFlightAfter, each chunk by its
/// blocks) at the slots a bound of its peak reads (sweep::stagePeakBounds):
/// the most after a forward slot, and after a forward slot that follows a
/// backward or weight_grad slot (the passes that compute weight
/// gradients); the most before a backward slot, and before a weight_grad
/// slot. None where the order has no such slot.
struct InFlightBlocks {
  int64_t afterForward = 0;
  std::optional<int64_t> afterForwardPastWeightGradients;
  std::optional<int64_t> beforeBackward;
  std::optional<int64_t> beforeWeightGrad;
};

/// InFlightBlocks of every stage of `layout` under `schedule` with
/// `microbatches` micro-batches, in the orders generateStageOrders gives
/// (under its preconditions). None on overflow.
std::optional<std::vector<InFlightBlocks>>
inFlightBlocksOf(PipelineSchedule schedule, const PipelineLayout &layout,
                 int64_t microbatches);

//===----------------------------------------------------------------------===//
// Deadlock
//===----------------------------------------------------------------------===//

/// One step of a stage's sequential program as far as progress is
/// concerned: it may wait for channels another stage signals (a receive)
/// and signals channels once it ran (a send). Channels are caller-chosen
/// keys, each signalled by one step.
struct ProgressStep {
  llvm::SmallVector<int64_t, 1> waits;
  llvm::SmallVector<int64_t, 1> signals;
};

/// Where a set of stages stops when it deadlocks: for every stage that did
/// not finish, the index of the step it waits at and the channel it waits
/// for.
struct Deadlock {
  struct Blocked {
    int64_t stage = 0;
    int64_t step = 0;
    int64_t channel = 0;
  };
  std::vector<Blocked> blocked;
};

/// Runs every stage's steps in order, a step as soon as every channel it
/// waits for was signalled (sends are asynchronous: a signal never waits),
/// in time linear in the steps and channels. Returns where the stages stop
/// if some never finish: a cycle through sends and receives, or a wait for
/// a channel no step signals.
std::optional<Deadlock>
findDeadlock(llvm::ArrayRef<std::vector<ProgressStep>> stages);

/// The progress steps of stage orders: the forward of a micro-batch through
/// model chunk g waits for its forward through chunk g - 1 and signals its
/// own; the backward (input_grad) through chunk g waits for the one through
/// chunk g + 1; the last chunk's backward waits for nothing else (its loss
/// is computed on the same stage). Channel keys are
/// pipelineChannel(microBatch, chunk, direction).
std::vector<std::vector<ProgressStep>>
progressOf(const PipelineLayout &layout, int64_t microbatches,
           llvm::ArrayRef<StageOrder> orders);

/// The channel key of a pipeline message: the activation (forward) or
/// activation gradient (backward) of `microBatch` leaving model chunk
/// `chunk`.
int64_t pipelineChannel(int64_t microBatch, int64_t chunk, bool backward,
                        int64_t chunks);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_PIPELINE_H
