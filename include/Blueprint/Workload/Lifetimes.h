//===- Lifetimes.h - Buffers of a whole run and their lifetimes -*- C++ -*-===//
//
// What each rank of a pipeline stage holds in memory over one whole run, as
// buffers with a producer, consumers and a lifetime in the stage's program
// order (docs/Memory.md): the persistent training state under each ZeRO
// stage, the activations one pass stashes for a later pass (per recompute
// policy, and under ZB-H1 the weight-gradient inputs), each pass's working
// set, and the communication buffers of pipeline messages and data-parallel
// collectives. The peak of a stage is the largest sum of live buffers at
// one position. `--plan-portable` writes these buffers into a whole-run
// plan, `--memory-report` sweeps the plan's buffers with analyzeMemory, and
// a search calls both functions without IR: one derivation, one sweep.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_LIFETIMES_H
#define BLUEPRINT_WORKLOAD_LIFETIMES_H

#include "Blueprint/Workload/WholeRun.h"

#include "Blueprint/Workload/Checked.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

inline constexpr size_t kNumBufferKinds = getMaxEnumValForBufferKind() + 1;
inline constexpr size_t kNumBufferCauses = getMaxEnumValForBufferCause() + 1;

/// The kind (class) every buffer of `cause` has.
BufferKind kindOf(BufferCause cause);

/// What a buffer's bytes are: the same source sizes the same buffer of
/// every run of the same shape (a search sizes the buffers of one run with
/// the values of another, docs/Sweep.md).
struct BufferSource {
  enum class Kind {
    /// The stage's persistent state (PersistentBytes).
    Weights,
    Gradients,
    OptimizerState,
    /// Per block of template `index` (TemplateBytes), times `repetitions`
    /// (the working set is not repeated: one block runs at a time).
    WorkingSet,
    Stash,
    WeightGradStash,
    WeightGradInputs,
    KVCache,
    /// The message of the step at position `index`.
    Message,
    /// What the work of the step at position `index` reads or writes.
    WorkRead,
    WorkWrite,
    /// A gradient bucket whose reduce-scatter is the work at position
    /// `index`: under ZeRO-2/3 (PersistentBytes::shardedGradients) the
    /// bucket's full gradients, what it reads, and its output shard, what it
    /// writes; no bytes below ZeRO-2, where the persistent gradient buffer
    /// holds them. So the buffers of a run at ZeRO-1 and one at ZeRO-2 have
    /// the same lifetimes. Keep GradientShard the last kind (kKinds).
    GradientBucket,
    GradientShard,
  };
  /// How many kinds there are.
  static constexpr size_t kKinds = static_cast<size_t>(Kind::GradientShard) + 1;
  Kind kind = Kind::Weights;
  size_t index = 0;
  int64_t repetitions = 1;
};

/// The bytes one block of a template's instance keeps, by what for.
struct TemplateBytes {
  /// The working set of the pass (workingSetBytes).
  int64_t workingSet = 0;
  /// A forward's stash, without (stash) and with (weightGradStash) what
  /// ZB-H1's weight-gradient pass reads of it.
  int64_t stash = 0;
  int64_t weightGradStash = 0;
  /// What ZB-H1's input-gradient pass writes for the weight-gradient pass.
  int64_t weightGradInputs = 0;
  /// What an inference pass writes to the KV cache.
  int64_t kvCache = 0;
};

/// TemplateBytes of every template of `run`, in order. Fails on overflow.
llvm::Expected<std::vector<TemplateBytes>> templateBytesOf(const WholeRun &run);

/// The persistent state one rank of a stage holds.
struct PersistentBytes {
  int64_t weights = 0;
  int64_t gradients = 0;
  int64_t optimizerState = 0;
  /// Whether the stage keeps only its shard of the gradients
  /// (MappingSpec::shardsGradients): its gradient buckets are then buffers
  /// of their own, and `gradients` is 0.
  bool shardedGradients = false;
};

/// The persistent state of `program` (its parameters and buckets) under
/// the ZeRO stage of `mapping` (sharding needs dp * cp > 1): a training run's
/// weights, gradient buffer (ZeRO 0-1) and optimizer state, an inference
/// run's weights (`training` none; nothing without either). Overflows are
/// recorded in `guard`.
PersistentBytes persistentBytesOf(const StageProgram &program,
                                  const MappingSpec &mapping,
                                  const std::optional<TrainingSpec> &training,
                                  const std::optional<InferenceSpec> &inference,
                                  OverflowGuard &guard);

/// The values the sources of one stage's buffers read.
struct StageValues {
  llvm::ArrayRef<TemplateBytes> templates;
  PersistentBytes persistent;
  /// The bytes of the message at a position, and the work at a position.
  llvm::function_ref<int64_t(size_t)> messageBytesAt;
  llvm::function_ref<const RunWork &(size_t)> workAt;
};

/// The bytes of `source`; overflows are recorded in `guard`.
int64_t sourceBytes(const BufferSource &source, const StageValues &values,
                    OverflowGuard &guard);

/// One buffer of one rank of a stage. Positions are indices into the
/// stage's steps (StageProgram::steps, in order).
struct RunBuffer {
  /// Unique within the stage, e.g. "stash_mb3_chunk0" (docs/Memory.md).
  std::string name;
  BufferCause cause = BufferCause::Weights;
  int64_t bytes = 0;
  /// What sizes it (none for a buffer read back from a plan).
  std::optional<BufferSource> source;
  /// The step that writes it first; none for the persistent state, which
  /// outlives the run.
  std::optional<size_t> producer;
  /// The steps that read it, ascending; none for the persistent state.
  /// Nearly every buffer has one or two: kept inline, no allocation.
  llvm::SmallVector<size_t, 2> consumers;
  /// Live at every position of [start, end]: from its producer (the first
  /// position for persistent state) to its last consumer (the last
  /// position for persistent state).
  size_t start = 0;
  size_t end = 0;

  BufferKind kind() const { return kindOf(cause); }
};

/// The buffers of one stage.
struct StageBuffers {
  int64_t stage = 0;
  /// Positions of the stage's program (its number of steps).
  size_t positions = 0;
  std::vector<RunBuffer> buffers;
};

/// The buffers of every stage of `run`, a training run of `training` or
/// the inference run of `run.inference`, under `mapping` (its ZeRO stage
/// and dp), each named. Fails if a size overflows. A buffer of no bytes is
/// left out.
llvm::Expected<std::vector<StageBuffers>>
deriveBuffers(const WholeRun &run, const MappingSpec &mapping,
              const std::optional<TrainingSpec> &training);

/// A buffer of a run's shape: what sizes it and the positions it is live
/// at (RunBuffer::source, start and end).
struct BufferLifetime {
  BufferSource source;
  size_t start = 0;
  size_t end = 0;
};

/// The buffers of one stage of a run's shape.
struct StageLifetimes {
  int64_t stage = 0;
  /// Positions of the stage's program (its number of steps).
  size_t positions = 0;
  std::vector<BufferLifetime> buffers;
};

/// Every buffer deriveBuffers derives for `run` (under any mapping), in its
/// order, with only its source and lifetime, those of no bytes for this
/// run included: a search keeps a run's shape and sizes its buffers with
/// each run's values (sweep::RunSkeleton). A shape reads no values, so it
/// cannot fail.
std::vector<StageLifetimes> deriveBufferLifetimes(const WholeRun &run);

/// A lifetime and bytes, for livePeak.
struct LiveSpan {
  size_t start = 0;
  size_t end = 0;
  int64_t bytes = 0;
};

/// The largest sum of the bytes of the spans live at one of `positions`
/// positions, and the first position that reaches it (0 and 0 when none
/// is positive). Fails, naming stage `stage`, on overflow, on negative
/// bytes or on a span outside the positions.
llvm::Expected<std::pair<int64_t, size_t>>
livePeak(int64_t stage, size_t positions, llvm::ArrayRef<LiveSpan> spans);

/// The bytes of one pass's working set on one rank: the largest sum, over
/// the positions of its invocations in order, of the tensors the pass
/// produces and someone still reads (a tensor is live from the invocation
/// that first writes it, when no earlier invocation of the pass touched
/// it, to its last access, or to the pass's end when the pass never reads
/// it again: its output). Tensors in `kept` (what a later pass reads: the
/// stash, weight-gradient inputs) are counted by their own buffers. Fails
/// on overflow.
llvm::Expected<int64_t> workingSetBytes(const BlockWork &work,
                                        llvm::ArrayRef<std::string> kept);

/// The peak of one stage's buffers.
struct StageMemory {
  int64_t stage = 0;
  /// Live bytes at every position.
  std::vector<int64_t> liveBytes;
  /// Live bytes of each kind at every position (liveByKind[position][kind]).
  std::vector<std::array<int64_t, kNumBufferKinds>> liveByKind;
  /// The largest live bytes and the first position that reaches it.
  int64_t peakBytes = 0;
  size_t peakPosition = 0;
  /// Indices (into StageBuffers::buffers) of the buffers live at the peak.
  std::vector<size_t> liveAtPeak;
  /// Live bytes at the peak by kind and by cause.
  std::array<int64_t, kNumBufferKinds> peakByKind{};
  std::array<int64_t, kNumBufferCauses> peakByCause{};
  /// For each cause, the largest live bytes of that cause alone at any
  /// position (what a closed form for one cause states).
  std::array<int64_t, kNumBufferCauses> maxByCause{};
};

/// Sweeps the lifetimes of `stage`. Fails, naming the buffer, if a lifetime
/// is not within the stage's positions or a sum overflows.
llvm::Expected<StageMemory> analyzeMemory(const StageBuffers &stage);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_LIFETIMES_H
