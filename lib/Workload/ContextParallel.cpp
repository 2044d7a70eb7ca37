//===- ContextParallel.cpp - Closed forms of context parallelism ----------===//
//
// docs/TransformerSpec.md, "Context parallelism", derives every formula here
// with its provenance (Megatron-LM get_batch_on_this_cp_rank,
// TransformerEngine AttnFuncWithCPAndKVP2P / AttnFuncWithCPAndKVAllGather).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ContextParallel.h"

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"

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
  // contributes to the all-gather. A key head is head_dim wide; a value head
  // is too, except under multi-head latent attention, where the exchanged
  // (up-projected) value head is v_head_dim wide.
  int64_t keyValueWidth =
      guard.add(model.headDim, model.vHeadDim.value_or(model.headDim),
                "key and value head widths head_dim + v_head_dim");
  int64_t rankElements = guard.product(
      {training.microBatch, shape->rankTokens, model.kvHeads / mapping.tp,
       keyValueWidth},
      "rank key/value elements b (s / cp) (kv_heads / tp) (head_dim + "
      "v_head_dim)");
  int64_t rankBytes = guard.mul(rankElements, bytesOf(training.activationType),
                                "rank key/value bytes");
  int64_t steps = mapping.cp - 1;
  int64_t sentBytes = guard.mul(steps, rankBytes, "(cp - 1) ring steps");
  int64_t logicalBytes = guard.mul(mapping.cp, rankBytes,
                                   "all-gathered key/value bytes cp * rank");
  int64_t reductionOps =
      guard.mul(steps, rankElements, "d_kv reduce-scatter ops");
  int64_t ringLiveBytes =
      guard.mul(2, rankBytes, "own and in-flight key/value bytes");
  if (guard.failed())
    return guard.error("context parallel exchange");

  bool ring = mapping.cpComm == CPCommMode::Ring;
  auto transfer = [&](Phase phase, llvm::StringRef tensor, CollectiveKind kind,
                      llvm::StringRef cause) {
    ContextParallelTransfer message;
    message.phase = phase;
    message.tensor = tensor.str();
    message.collective = kind;
    message.participants = mapping.cp;
    message.messageBytes = logicalBytes;
    message.sentBytes = sentBytes;
    message.ops = collectiveReduces(kind) ? reductionOps : 0;
    message.attentionLiveBytes = ring ? ringLiveBytes : logicalBytes;
    message.pointToPoint = ring;
    message.cause = cause.str();
    transfers.push_back(std::move(message));
  };
  llvm::StringRef forward =
      ring ? "context parallelism (cp_comm = ring): TransformerEngine "
             "AttnFuncWithCPAndKVP2P.forward passes each rank's keys and "
             "values around the cp ring in cp - 1 steps, the bytes of a ring "
             "all-gather"
           : "context parallelism (cp_comm = all_gather): TransformerEngine "
             "AttnFuncWithCPAndKVAllGather.forward all-gathers the keys and "
             "values over the cp ranks";
  transfer(Phase::Forward, "kv", CollectiveKind::AllGather, forward);
  // Selective recompute recomputes the attention core and full recompute the
  // whole block: either re-runs the forward's exchange, a collective rerun
  // for recompute and so recommunication, as full recompute's TP
  // collectives are (docs/WorkAlgebra.md, "Recompute").
  if (mapping.recompute != RecomputePolicy::None)
    transfer(Phase::Recommunication, "kv", CollectiveKind::AllGather, forward);
  transfer(Phase::ActivationGrad, "kv", CollectiveKind::AllGather,
           ring ? "context parallelism (cp_comm = ring): TransformerEngine "
                  "AttnFuncWithCPAndKVP2P.backward re-circulates the keys and "
                  "values around the cp ring, the bytes of a ring all-gather"
                : "context parallelism (cp_comm = all_gather): "
                  "TransformerEngine AttnFuncWithCPAndKVAllGather.backward "
                  "all-gathers the keys and values again");
  transfer(Phase::ActivationGrad, "d_kv", CollectiveKind::ReduceScatter,
           ring ? "context parallelism (cp_comm = ring): TransformerEngine "
                  "AttnFuncWithCPAndKVP2P.backward accumulates each rank's "
                  "key and value gradients around the cp ring, a ring "
                  "reduce-scatter"
                : "context parallelism (cp_comm = all_gather): "
                  "TransformerEngine AttnFuncWithCPAndKVAllGather.backward "
                  "reduce-scatters the key and value gradients");
  return transfers;
}

Invocation blueprint::workload::contextParallelInvocation(
    const ContextParallelTransfer &transfer, DataType activationType) {
  bool gradients = transfer.collective == CollectiveKind::ReduceScatter;
  Invocation invocation = collectiveInvocation(
      gradients ? primitive::kCPDKVReduceScatter : primitive::kCPKVGather,
      transfer.phase, transfer.collective, transfer.participants,
      transfer.messageBytes, bytesOf(activationType), transfer.tensor,
      transfer.cause);
  // The transfer's count, the one formula (collectiveInvocation's
  // (n - 1) E / n per rank is the same number).
  invocation.ops = transfer.ops;
  invocation.collective->axis = kContextParallelAxis.str();
  invocation.collective->pointToPoint = transfer.pointToPoint;
  return invocation;
}
