//===- BlockKinds.cpp - Dense and mixture-of-experts blocks ---------------===//
//
// docs/WholeRun.md ("Block kinds") states the kind of each layer and how a
// block of a kind is derived; this file is its one implementation.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/BlockKinds.h"

using namespace blueprint::workload;

BlockKind blueprint::workload::blockKindOf(const ModelSpec &model,
                                           int64_t index) {
  // The rule expertBlocks counts in closed form.
  const std::optional<MixtureOfExperts> &moe = model.moe;
  bool experts = moe && index >= moe->firstDenseBlocks &&
                 moe->layerFrequency > 0 && index % moe->layerFrequency == 0;
  return experts ? BlockKind::Expert : BlockKind::Dense;
}

std::vector<BlockKind>
blueprint::workload::blockKindsOf(const ModelSpec &model) {
  if (!model.moe)
    return {BlockKind::Dense};
  int64_t experts = model.moe->expertBlocks(model.blocks);
  if (experts == model.blocks)
    return {BlockKind::Expert};
  if (experts == 0)
    return {BlockKind::Dense};
  return {BlockKind::Dense, BlockKind::Expert};
}

int64_t blueprint::workload::blocksOfKind(const ModelSpec &model,
                                          BlockKind kind, int64_t first,
                                          int64_t end) {
  int64_t experts =
      model.moe ? model.moe->expertBlocks(end) - model.moe->expertBlocks(first)
                : 0;
  return kind == BlockKind::Expert ? experts : end - first - experts;
}

int64_t blueprint::workload::sumOverBlocks(
    const ModelSpec &model, const std::array<int64_t, 2> &perBlock,
    int64_t first, int64_t end, OverflowGuard &guard, const llvm::Twine &what) {
  // Both kinds: a kind the model does not have counts no block of the
  // range, so its term is 0 (and no list of the kinds is built: a run's
  // derivation sums over blocks hundreds of times).
  int64_t sum = 0;
  for (BlockKind kind : {BlockKind::Dense, BlockKind::Expert})
    sum = guard.add(sum,
                    guard.mul(blocksOfKind(model, kind, first, end),
                              perBlock[static_cast<size_t>(kind)], what),
                    what);
  return sum;
}

std::string blueprint::workload::blockTemplatePrefix(const ModelSpec &model,
                                                     BlockKind kind) {
  return blockKindsOf(model).size() > 1 && kind == BlockKind::Expert ? "moe_"
                                                                     : "";
}

int64_t blueprint::workload::blockBufferElements(const ModelSpec &model,
                                                 BlockKind kind) {
  return kind == BlockKind::Expert && model.moe
             ? model.moe->scoreCorrectionBiasElements()
             : 0;
}

int64_t blueprint::workload::bufferElementsOf(const ModelSpec &model,
                                              int64_t first, int64_t end,
                                              OverflowGuard &guard) {
  return sumOverBlocks(model,
                       {blockBufferElements(model, BlockKind::Dense),
                        blockBufferElements(model, BlockKind::Expert)},
                       first, end, guard, "buffer elements");
}

std::vector<BlockSegment>
blueprint::workload::blockSegmentsOf(const ModelSpec &model, int64_t first,
                                     int64_t end) {
  std::vector<BlockSegment> segments;
  for (int64_t block = first; block < end; ++block) {
    BlockKind kind = blockKindOf(model, block);
    if (segments.empty() || segments.back().kind != kind)
      segments.push_back({kind, block, block});
    segments.back().end = block + 1;
  }
  return segments;
}

ModelSpec blueprint::workload::blockModelOf(const ModelSpec &model,
                                            BlockKind kind) {
  ModelSpec block = model;
  if (kind == BlockKind::Dense)
    block.moe = std::nullopt;
  return block;
}

BlockKind blueprint::workload::representativeBlockKind(const ModelSpec &model) {
  return model.moe ? BlockKind::Expert : BlockKind::Dense;
}
