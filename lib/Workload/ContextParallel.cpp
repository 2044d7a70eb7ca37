//===- ContextParallel.cpp - Closed forms of context parallelism ----------===//
//
// docs/TransformerSpec.md, "Context parallelism", derives every formula here
// with its provenance (Megatron-LM get_batch_on_this_cp_rank,
// TransformerEngine AttnFuncWithCPAndKVP2P / AttnFuncWithCPAndKVAllGather).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ContextParallel.h"

#include "Blueprint/Workload/Checked.h"

#include "ForwardBuilder.h"

using namespace blueprint::workload;

llvm::Expected<ContextParallelShape>
blueprint::workload::contextParallelShape(int64_t seqLength, int64_t cp) {
  if (cp <= 0)
    return detail::makeError("context parallel shape: [context_parallel_c1] "
                             "cp = " +
                             llvm::Twine(cp) + " is not positive");
  ContextParallelShape shape;
  if (cp == 1) {
    OverflowGuard guard;
    shape.chunkTokens = seqLength;
    shape.rankTokens = seqLength;
    shape.scorePairs = guard.mul(seqLength, seqLength, "score pairs s^2");
    if (guard.failed())
      return guard.error("context parallel shape");
    return shape;
  }
  OverflowGuard guard;
  int64_t chunks = guard.mul(2, cp, "2 * cp");
  if (guard.failed())
    return guard.error("context parallel shape");
  if (seqLength <= 0 || seqLength % chunks != 0)
    return detail::makeError(
        "context parallel shape: [context_parallel_c1] seq_length = " +
        llvm::Twine(seqLength) +
        " is not a positive multiple of 2 * cp = " + llvm::Twine(chunks));
  shape = contextParallelShape(seqLength, cp, guard);
  if (guard.failed())
    return guard.error("context parallel shape");
  return shape;
}

ContextParallelShape
blueprint::workload::contextParallelShape(int64_t seqLength, int64_t cp,
                                          OverflowGuard &guard) {
  ContextParallelShape shape;
  int64_t chunks = guard.mul(2, cp, "2 * cp");
  if (guard.failed() || cp <= 0)
    return shape;
  shape.chunkTokens = seqLength / chunks;
  shape.rankTokens = seqLength / cp;
  int64_t chunkSquare =
      guard.mul(shape.chunkTokens, shape.chunkTokens, "chunk tokens squared");
  int64_t steps = guard.add(cp, 1, "cp + 1");
  shape.scorePairs =
      guard.product({2, chunkSquare, steps}, "score pairs 2 c^2 (cp + 1)");
  return shape;
}

llvm::Expected<std::vector<ContextParallelTransfer>>
blueprint::workload::contextParallelExchange(const ModelSpec &model,
                                             const TrainingSpec &training,
                                             const MappingSpec &mapping) {
  llvm::Expected<ContextParallelShape> shape =
      contextParallelShape(model.seqLength, mapping.cp);
  if (!shape)
    return shape.takeError();
  std::vector<ContextParallelTransfer> transfers;
  if (mapping.cp == 1)
    return transfers;
  if (mapping.tp <= 0 || model.kvHeads % mapping.tp != 0)
    return detail::makeError(
        "context parallel exchange: [decoder_training_c5] kv_heads = " +
        llvm::Twine(model.kvHeads) +
        " is not divisible by tp = " + llvm::Twine(mapping.tp));

  OverflowGuard guard;
  // The rank's keys and values: what one ring step sends and what each rank
  // contributes to the all-gather.
  int64_t rankBytes = guard.product(
      {2, training.microBatch, shape->rankTokens, model.kvHeads / mapping.tp,
       model.headDim, bytesOf(training.activationType)},
      "rank key/value bytes 2 b (s / cp) (kv_heads / tp) head_dim");
  int64_t steps = mapping.cp - 1;
  int64_t stepsBytes = guard.mul(steps, rankBytes, "(cp - 1) ring steps");
  int64_t logicalBytes = guard.mul(mapping.cp, rankBytes,
                                   "all-gathered key/value bytes cp * rank");
  if (guard.failed())
    return guard.error("context parallel exchange");

  bool ring = mapping.cpComm == CPCommMode::Ring;
  auto transfer = [&](Phase phase, llvm::StringRef tensor,
                      CollectiveKind kind) {
    ContextParallelTransfer message;
    message.phase = phase;
    message.tensor = tensor.str();
    message.participants = mapping.cp;
    // Both modes send the same bytes per rank: cp - 1 messages of the rank's
    // keys and values; only their grouping differs.
    message.sentBytes = stepsBytes;
    if (ring) {
      message.count = steps;
      message.messageBytes = rankBytes;
    } else {
      message.collective = kind;
      message.count = 1;
      message.messageBytes = logicalBytes;
    }
    transfers.push_back(std::move(message));
  };
  transfer(Phase::Forward, "kv", CollectiveKind::AllGather);
  // Selective recompute recomputes the attention core and full recompute the
  // whole block: either re-runs the forward's exchange.
  if (mapping.recompute != RecomputePolicy::None)
    transfer(Phase::Recompute, "kv", CollectiveKind::AllGather);
  transfer(Phase::ActivationGrad, "kv", CollectiveKind::AllGather);
  transfer(Phase::ActivationGrad, "d_kv", CollectiveKind::ReduceScatter);
  return transfers;
}
