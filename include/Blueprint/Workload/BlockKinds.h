//===- BlockKinds.h - Dense and mixture-of-experts blocks -------*- C++ -*-===//
//
// A model with experts may mix two kinds of decoder block: the dense MLP
// and the mixture of experts (docs/WholeRun.md, "Block kinds"). The kind of
// each layer is stated here once, from the model contract; a block of a
// kind is derived as the block of the model of that one kind, and a run's
// templates, instances, parameters and memory follow each layer's kind.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_BLOCKKINDS_H
#define BLUEPRINT_WORKLOAD_BLOCKKINDS_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/ModelMemo.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// The MLP of a decoder block: the dense MLP of width ffn_hidden, or the
/// mixture of experts.
enum class BlockKind { Dense, Expert };

/// The kind of block `index` (from 0): Expert when the model has experts
/// and its contract gives block `index` the MoE MLP (index >=
/// first_dense_blocks and moe_layer_frequency divides index,
/// MixtureOfExperts), Dense otherwise.
BlockKind blockKindOf(const ModelSpec &model, int64_t index);

/// The kinds the model's blocks have, dense first: {Dense} for a dense
/// model, {Expert} when every block has experts, {Dense, Expert} when the
/// model mixes them.
std::vector<BlockKind> blockKindsOf(const ModelSpec &model);

/// How many blocks of [first, end) are of `kind` (a closed form over
/// MixtureOfExperts::expertBlocks).
int64_t blocksOfKind(const ModelSpec &model, BlockKind kind, int64_t first,
                     int64_t end);

/// A quantity of the blocks [first, end): the sum over the kinds of
/// `perBlock[kind]` (one block's, indexed by BlockKind) times the blocks of
/// that kind, in checked arithmetic (`what` names an overflow).
int64_t sumOverBlocks(const ModelSpec &model,
                      const std::array<int64_t, 2> &perBlock, int64_t first,
                      int64_t end, OverflowGuard &guard,
                      const llvm::Twine &what);

/// The prefix of a run template's name for a block of `kind`: "moe_" for
/// the MoE blocks of a model that mixes kinds, "" otherwise, so a model of
/// one kind keeps the plain names (docs/WholeRun.md, "Block kinds").
std::string blockTemplatePrefix(const ModelSpec &model, BlockKind kind);

/// The maximal runs of consecutive blocks of one kind that make up [first,
/// end), in block order.
struct BlockSegment {
  BlockKind kind = BlockKind::Dense;
  int64_t first = 0;
  int64_t end = 0;
};
std::vector<BlockSegment> blockSegmentsOf(const ModelSpec &model, int64_t first,
                                          int64_t end);

/// The model one block of `kind` is derived from: the model itself, except
/// that a dense block of a model with experts is the block of the model
/// without them (its MLP is the dense one of width ffn_hidden).
ModelSpec blockModelOf(const ModelSpec &model, BlockKind kind);

/// The kind a single-block program (scope=block) and the per-block
/// quantities without a kind derive: Expert for a model with experts, Dense
/// otherwise.
BlockKind representativeBlockKind(const ModelSpec &model);

/// deriveBlockWork for a block of `kind` of `model` (blockModelOf): the
/// contracts must compose as `model`'s; the dense block of a model with
/// experts has the dense MLP of width ffn_hidden.
llvm::Expected<BlockWork> deriveBlockWork(const ModelSpec &model,
                                          BlockKind kind,
                                          const TrainingSpec &training,
                                          const MappingSpec &mapping);

namespace detail {
/// The run builder's way to a memo's works without the composition check,
/// defined where only the library sees it (lib/Workload/ForwardBuilder.h).
class ComposingBlockWorks;
} // namespace detail

/// deriveBlockWork(model, kind, training, mapping) for the runs of one
/// search, derived once per what it reads: a block's work depends on the
/// model, its kind, the training contract but its global batch, and of the
/// mapping only on tp, cp, cp_comm, tp_comm, recompute and ep; not on pp,
/// dp, the world, the virtual stages, the schedule, the layout, ZeRO, the
/// buckets or the overlaps: so the runs that differ only in those share one
/// derivation (docs/Sweep.md, "Block works shared across runs"). The key
/// also holds two inputs the derivation takes but no invocation reads: dp
/// at ep != 1 for a model with experts (the expert-parallel shape stores dp
/// / ep) and the optimizer state's type, which costs one more derivation
/// per dp at ep != 1 and none in a search (the type is fixed). Every call
/// checks that the contracts compose, as deriveBlockWork does, before it looks
/// (a whole run's derivation, which has checked them, looks without).
/// What deriveBlockWork reads of the training contract and the mapping
/// besides the model and the block's kind (BlockWorkMemo below): the
/// memos of block works and of run templates (RunTemplatesMemo) key by it.
using BlockWorkInputs = std::array<int64_t, 14>;
BlockWorkInputs blockWorkInputsOf(const ModelSpec &model,
                                  const TrainingSpec &training,
                                  const MappingSpec &mapping);

class BlockWorkMemo {
public:
  /// How many block works it keeps at most (a ModelMemo: when full and
  /// asked for another, it forgets them all, and so when the model
  /// changes). Safe to share between threads.
  static constexpr size_t kEntries = 64;

  /// What deriveBlockWork(model, kind, training, mapping) gives, shared
  /// and read-only: a hit hands out the very work an earlier call derived,
  /// not a copy of it (copying a block's invocations cost more than the
  /// lookup saved). The work lives as long as its last holder: forgetting
  /// the entries (when full, or for another model) drops only the memo's
  /// hold, so a work handed out stays valid for as long as the caller keeps
  /// it.
  llvm::Expected<std::shared_ptr<const BlockWork>>
  of(const ModelSpec &model, BlockKind kind, const TrainingSpec &training,
     const MappingSpec &mapping);

  /// How many calls of() answered from an earlier derivation.
  size_t shared() const { return works.shared(); }

private:
  friend class detail::ComposingBlockWorks;

  /// of() after its composition check.
  llvm::Expected<std::shared_ptr<const BlockWork>>
  composingOf(const ModelSpec &model, BlockKind kind,
              const TrainingSpec &training, const MappingSpec &mapping);

  /// The kind, then blockWorkInputsOf (keyOf).
  using Key = std::array<int64_t, 15>;
  static Key keyOf(const ModelSpec &model, BlockKind kind,
                   const TrainingSpec &training, const MappingSpec &mapping);

  ModelMemo<Key, std::shared_ptr<const BlockWork>> works{kEntries};
};

/// deriveOptimizerWork for a block of `kind` of `model` (blockModelOf).
llvm::Expected<BlockWork> deriveOptimizerWork(const ModelSpec &model,
                                              BlockKind kind,
                                              const TrainingSpec &training,
                                              const MappingSpec &mapping);

/// The part of blockParametersPerRank(model, kind, mapping) whose
/// gradients reduce over the expert-data-parallel ranks only: at ep > 1 an
/// MoE block's routed experts on one rank (E / ep experts, a 1/tp slice
/// each, Megatron-Core's num_local_experts); 0 for a dense block and at
/// ep = 1 (docs/WorkAlgebra.md, "Expert parallelism", "Gradients and
/// ZeRO").
llvm::Expected<int64_t>
blockExpertParametersPerRank(const ModelSpec &model, BlockKind kind,
                             const MappingSpec &mapping);

/// blockParametersPerRank for a block of `kind` of `model` (blockModelOf).
llvm::Expected<int64_t> blockParametersPerRank(const ModelSpec &model,
                                               BlockKind kind,
                                               const MappingSpec &mapping);

/// Elements of the buffers one rank holds for a block of `kind` beside its
/// parameters, at the weight datatype: an MoE block's score-correction bias
/// under sigmoid_group_limited (E values, whole on every rank;
/// MixtureOfExperts::scoreCorrectionBiasElements), else 0. A buffer has no
/// gradient and no optimizer state and ZeRO does not shard it. The one count
/// of held buffers: weightBytesPerRank and the whole run's stage weights
/// (bufferElementsOf, StageProgram::bufferElements) both read it.
int64_t blockBufferElements(const ModelSpec &model, BlockKind kind);

/// blockBufferElements summed over the blocks [first, end).
int64_t bufferElementsOf(const ModelSpec &model, int64_t first, int64_t end,
                         OverflowGuard &guard);

/// The parameters one token passes through in a block of `kind`,
/// unsharded: the whole dense block; of an MoE block everything but the E -
/// k routed experts it is not sent to (attention, norms, the whole router,
/// the shared experts and k routed experts; docs/ModelSummary.md, "Active
/// parameters"). The score-correction bias is a buffer, not a parameter.
llvm::Expected<int64_t> activeBlockParameters(const ModelSpec &model,
                                              BlockKind kind);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_BLOCKKINDS_H
