//===- ForwardBuilder.cpp - The forward of one block, shared --------------===//
//
// The forward invocations of Megatron-LM's pre-norm GPT layer on one TP rank
// (Shoeybi et al. 2019, "MLM2019"; FLOPs of Narayanan et al. 2021, "MLM2021";
// activation memory and sequence parallelism of Korthikanti et al. 2022,
// "SeqSel", arXiv:2205.05198), for a training micro-batch, an inference
// prefill or one decode step. docs/WorkAlgebra.md and docs/Inference.md are
// the tables of what is emitted.
//
//===----------------------------------------------------------------------===//

#include "ForwardBuilder.h"

#include "Blueprint/Workload/ContextParallel.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Primitives.h"

#include "llvm/Support/ErrorHandling.h"

using namespace blueprint::workload;
using namespace blueprint::workload::detail;

ForwardRun detail::trainingForwardRun(const ModelSpec &model,
                                      const TrainingSpec &training,
                                      RecomputePolicy stashFor) {
  ForwardRun run;
  run.phase = Phase::Forward;
  run.batch = training.microBatch;
  run.queries = model.seqLength;
  run.keys = model.seqLength;
  run.causalMask = true;
  run.activationType = training.activationType;
  run.weightType = training.weightType;
  run.attentionDropout = training.attentionDropout;
  run.hiddenDropout = training.hiddenDropout;
  run.stashFor = stashFor;
  return run;
}

llvm::Error blueprint::workload::detail::makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

llvm::Error blueprint::workload::detail::violationsError(
    const llvm::Twine &preamble, const std::vector<RuleViolation> &violations) {
  std::string message = preamble.str();
  for (const RuleViolation &violation : violations)
    message += " [" + violation.rule + "] " + violation.message + ";";
  return makeError(message);
}

llvm::Error
blueprint::workload::detail::runError(llvm::StringRef who,
                                      const RunViolations &violations) {
  if (violations.empty())
    return llvm::Error::success();
  return violationsError(who + ": the specification does not compose:",
                         violations.all());
}

int64_t
blueprint::workload::detail::sumBytes(OverflowGuard &guard,
                                      const std::vector<TensorAccess> &accesses,
                                      const llvm::Twine &what) {
  int64_t total = 0;
  for (const TensorAccess &access : accesses)
    total = guard.add(total, access.bytes, what);
  return total;
}

RankColumns blueprint::workload::detail::makeRankColumns(const ModelSpec &model,
                                                         int64_t tp,
                                                         OverflowGuard &guard) {
  RankColumns columns;
  columns.heads = model.heads / tp;
  columns.kvHeads = model.kvHeads / tp;
  columns.qCols = guard.mul(columns.heads, model.headDim, "query columns");
  columns.ffnCols = model.ffnHidden / tp;
  columns.fc1Cols = model.activation == ActivationKind::SwiGLU
                        ? guard.mul(2, columns.ffnCols, "fc1 output columns")
                        : columns.ffnCols;
  if (model.moe) {
    columns.expertFfnCols = model.moe->expertFfnHidden / tp;
    columns.expertFc1Cols =
        model.activation == ActivationKind::SwiGLU
            ? guard.mul(2, columns.expertFfnCols, "expert fc1 output columns")
            : columns.expertFfnCols;
    // Megatron-Core SharedExpertMLP: one MLP of
    // moe_shared_expert_intermediate_size (the total, = num_shared_experts
    // * the width of one) columns, split over tp like the dense MLP (tp
    // divides expert_ffn_hidden, decoder_moe_c3, and so the product).
    int64_t sharedWidth =
        guard.mul(model.moe->sharedExperts, model.moe->expertFfnHidden,
                  "shared experts' width");
    columns.sharedFfnCols = sharedWidth / tp;
    columns.sharedFc1Cols =
        model.activation == ActivationKind::SwiGLU
            ? guard.mul(2, columns.sharedFfnCols,
                        "shared experts' fc1 output columns")
            : columns.sharedFfnCols;
  }
  if (model.hasLatentAttention()) {
    columns.valueCols =
        guard.mul(columns.heads, *model.vHeadDim, "MLA value columns");
    columns.contextCols = columns.valueCols;
    columns.latentCacheCols = guard.add(*model.kvLoraRank, *model.qkRopeHeadDim,
                                        "compressed KV-cache columns");
    int64_t keyValueHeadWidth = guard.add(*model.qkNopeHeadDim, *model.vHeadDim,
                                          "MLA key/value head width");
    columns.keyValueUpCols =
        guard.mul(columns.heads, keyValueHeadWidth, "kv_b_proj output columns");
    return columns;
  }
  columns.kvCols =
      guard.mul(columns.kvHeads, model.headDim, "key/value columns");
  int64_t keyValueCols = guard.mul(2, columns.kvCols, "key/value columns");
  columns.qkvCols =
      guard.add(columns.qCols, keyValueCols, "qkv_proj output columns");
  columns.valueCols = columns.kvCols;
  columns.contextCols = columns.qCols;
  return columns;
}

int64_t blueprint::workload::detail::expertParametersPerRank(
    const ModelSpec &model, const RankColumns &columns, OverflowGuard &guard) {
  int64_t columnsPerExpert = guard.add(
      columns.expertFc1Cols, columns.expertFfnCols, "expert weight columns");
  return guard.mul(model.hidden, columnsPerExpert, "expert parameters");
}

int64_t blueprint::workload::detail::sharedExpertParametersPerRank(
    const ModelSpec &model, const RankColumns &columns, OverflowGuard &guard) {
  int64_t columnsPerRank =
      guard.add(columns.sharedFc1Cols, columns.sharedFfnCols,
                "shared experts' weight columns");
  return guard.mul(model.hidden, columnsPerRank, "shared expert parameters");
}

std::vector<ParameterTensor>
blueprint::workload::detail::latentAttentionTensors(
    const ModelSpec &model, const RankColumns &columns) {
  bool layerNorm = model.norm == NormKind::LayerNorm;
  int64_t kvRank = *model.kvLoraRank;
  std::vector<ParameterTensor> tensors;
  if (model.qLoraRank) {
    int64_t qRank = *model.qLoraRank;
    tensors.push_back({"w_q_a", {model.hidden, qRank}, std::nullopt});
    tensors.push_back({"q_a_norm_gamma", {qRank}, std::nullopt});
    if (layerNorm)
      tensors.push_back({"q_a_norm_beta", {qRank}, std::nullopt});
    tensors.push_back({"w_q_b", {qRank, columns.qCols}, 1});
  } else {
    tensors.push_back({"w_q", {model.hidden, columns.qCols}, 1});
  }
  tensors.push_back(
      {"w_kv_a", {model.hidden, columns.latentCacheCols}, std::nullopt});
  tensors.push_back({"kv_a_norm_gamma", {kvRank}, std::nullopt});
  if (layerNorm)
    tensors.push_back({"kv_a_norm_beta", {kvRank}, std::nullopt});
  tensors.push_back({"w_kv_b", {kvRank, columns.keyValueUpCols}, 1});
  tensors.push_back({"w_out", {columns.valueCols, model.hidden}, 0});
  return tensors;
}

KVCacheLayout
blueprint::workload::detail::kvCacheLayout(const ModelSpec &model,
                                           const RankColumns &columns) {
  KVCacheLayout layout;
  if (model.hasLatentAttention()) {
    layout.tensors = {"kv_cache"};
    layout.columns = columns.latentCacheCols;
    layout.scoreReadCols = columns.latentCacheCols;
    layout.contextReadCols = *model.kvLoraRank;
    return layout;
  }
  layout.tensors = {"k_cache", "v_cache"};
  layout.columns = columns.kvCols;
  layout.split = 2;
  layout.scoreReadCols = columns.kvCols;
  layout.contextReadCols = columns.kvCols;
  return layout;
}

int64_t
blueprint::workload::detail::activationOpsPerElement(ActivationKind kind,
                                                     bool inputGradient) {
  switch (kind) {
  case ActivationKind::GeLU:
    return inputGradient ? opcount::kGeLUInputGradPerElement
                         : opcount::kGeLUForwardPerElement;
  case ActivationKind::ReLU:
    return inputGradient ? opcount::kReLUInputGradPerElement
                         : opcount::kReLUForwardPerElement;
  case ActivationKind::SwiGLU:
    return inputGradient ? opcount::kSwiGLUInputGradPerElement
                         : opcount::kSwiGLUForwardPerElement;
  }
  llvm_unreachable("unknown ActivationKind");
}

static RankShape makeRankShape(const ModelSpec &model,
                               const MappingSpec &mapping,
                               const ForwardRun &run, OverflowGuard &guard) {
  RankShape shape;
  static_cast<RankColumns &>(shape) = makeRankColumns(model, mapping.tp, guard);
  shape.tp = mapping.tp;
  shape.sequenceParallel = mapping.tpComm == TPCommMode::ReduceScatterAllGather;
  shape.batch = run.batch;
  shape.queries = run.queries;
  shape.keys = run.keys;
  shape.attendedKeys = model.attendedKeys(run.keys);
  shape.cp = mapping.cp;
  if (mapping.cp > 1) {
    // A training micro-batch on one cp rank (inference has cp = 1,
    // context_parallel_c4): the rank's s / cp tokens of every sequence, and
    // its score pairs spread over those query rows, c (cp + 1) keys per row
    // on average, an exact quotient (docs/TransformerSpec.md, "Context
    // parallelism").
    ContextParallelShape sequence =
        contextParallelShape(run.queries, mapping.cp, guard);
    shape.queries = sequence.rankTokens;
    if (sequence.rankTokens > 0)
      shape.attendedKeys = sequence.scorePairs / sequence.rankTokens;
  }
  shape.hidden = model.hidden;
  shape.headDim = model.headDim;
  shape.tokens = guard.mul(run.batch, shape.queries, "tokens b*s");
  shape.localTokens =
      shape.sequenceParallel ? shape.tokens / mapping.tp : shape.tokens;
  shape.valueHeadDim = model.headDim;
  shape.rotaryDim = model.headDim;
  if (model.hasLatentAttention()) {
    shape.valueHeadDim = *model.vHeadDim;
    shape.rotaryDim = *model.qkRopeHeadDim;
    int64_t rotatedQueries =
        guard.mul(shape.heads, shape.rotaryDim, "rotated query columns");
    shape.rotatedCols =
        guard.add(rotatedQueries, shape.rotaryDim, "rotary columns");
  } else {
    shape.rotatedCols = guard.add(shape.qCols, shape.kvCols, "rotary columns");
  }
  return shape;
}

ForwardBuilder::ForwardBuilder(const ModelSpec &model,
                               const MappingSpec &mapping,
                               const ForwardRun &run)
    : model(model), mapping(mapping), run(run),
      shape(makeRankShape(model, mapping, run, guard)),
      actBytes(bytesOf(run.activationType)),
      weightBytes(bytesOf(run.weightType)) {
  // Room for every invocation of today's blocks (65 for GPT-3 175B under
  // full recompute and tensor parallelism), so building the list does not
  // move the invocations already built; a larger block only reallocates.
  work.invocations.reserve(96);
}

TensorAccess ForwardBuilder::activation(llvm::StringRef name,
                                        int64_t elements) {
  return {name.str(), guard.mul(elements, actBytes, name + " bytes")};
}

TensorAccess ForwardBuilder::weight(llvm::StringRef name, int64_t elements) {
  return {name.str(), guard.mul(elements, weightBytes, name + " bytes")};
}

int64_t ForwardBuilder::elements(std::initializer_list<int64_t> factors,
                                 llvm::StringRef what) {
  return guard.product(factors, what + " elements");
}

Invocation &ForwardBuilder::emit(InvocationSpec spec) {
  Invocation invocation;
  invocation.primitive = spec.primitive.str();
  invocation.phase = spec.phase;
  invocation.engine = spec.engine;
  invocation.ops = spec.ops.ops;
  invocation.gemms = std::move(spec.ops.gemms);
  invocation.reads = std::move(spec.reads);
  invocation.writes = std::move(spec.writes);
  invocation.cause = spec.cause.str();
  work.invocations.push_back(std::move(invocation));
  return work.invocations.back();
}

void ForwardBuilder::stash(Invocation &invocation, TensorAccess tensor,
                           StashRole role) {
  if (!run.stashFor)
    return;
  bool kept = false;
  switch (*run.stashFor) {
  case RecomputePolicy::None:
    kept = true;
    break;
  case RecomputePolicy::Selective:
    kept = role != StashRole::AttentionCore;
    break;
  case RecomputePolicy::Full:
    kept = role == StashRole::BlockInput;
    break;
  }
  if (!kept)
    return;
  invocation.stashBytes = guard.add(invocation.stashBytes, tensor.bytes,
                                    invocation.primitive + " stash bytes");
  invocation.stashed.push_back(std::move(tensor));
}

std::string ForwardBuilder::opsName(llvm::StringRef primitive) const {
  return (primitive + " " + stringifyEnum(run.phase) + " ops").str();
}

ForwardBuilder::WorkCount ForwardBuilder::linearOps(llvm::StringRef what,
                                                    int64_t m, int64_t n,
                                                    int64_t k, int64_t batch) {
  return gemm(what, {batch, m, k, n});
}

ForwardBuilder::WorkCount ForwardBuilder::groupedLinearOps(
    llvm::StringRef what, llvm::ArrayRef<ExpertLoad> rowGroups,
    llvm::function_ref<WorkCount(const ExpertLoad &)> linear) {
  WorkCount total(0);
  for (const ExpertLoad &group : rowGroups) {
    WorkCount groupCount = linear(group);
    total = bothGemms(what, std::move(total), std::move(groupCount));
  }
  return total;
}

ForwardBuilder::WorkCount ForwardBuilder::gemm(llvm::StringRef what,
                                               MatmulShape shape) {
  return {guard.product({2, shape.batch, shape.m, shape.n, shape.k}, what),
          {shape}};
}

ForwardBuilder::WorkCount ForwardBuilder::attentionMatmul(llvm::StringRef what,
                                                          int64_t m, int64_t n,
                                                          int64_t k) {
  return gemm(what, {guard.mul(shape.batch, shape.heads, what), m, n, k});
}

ForwardBuilder::WorkCount ForwardBuilder::bothGemms(llvm::StringRef what,
                                                    WorkCount first,
                                                    WorkCount second) {
  first.ops = guard.add(first.ops, second.ops, what);
  llvm::append_range(first.gemms, second.gemms);
  return first;
}

int64_t ForwardBuilder::scoreElements(llvm::StringRef what) {
  return elements({shape.batch, shape.heads, shape.queries, shape.attendedKeys},
                  what);
}

int64_t ForwardBuilder::rowwiseOps(llvm::StringRef what, int64_t rows,
                                   int64_t width, int64_t perElement,
                                   int64_t perRow) {
  int64_t elementOps = guard.product({rows, width, perElement}, what);
  int64_t rowOps = guard.mul(rows, perRow, what);
  return guard.add(elementOps, rowOps, what);
}

int64_t ForwardBuilder::elementwiseOps(llvm::StringRef what, int64_t count,
                                       int64_t perElement) {
  return guard.mul(count, perElement, what);
}

int64_t ForwardBuilder::reductionOps(llvm::StringRef what,
                                     int64_t elementCount) {
  return guard.mul(elementCount / shape.tp, shape.tp - 1, what);
}

void ForwardBuilder::tpCollective(llvm::StringRef primitive, Phase phase,
                                  CollectiveKind kind, llvm::StringRef tensor,
                                  const llvm::Twine &cause) {
  tpCollectiveOver(primitive, phase, kind, tensor, shape.hidden, cause);
}

void ForwardBuilder::tpCollectiveOver(llvm::StringRef primitive, Phase phase,
                                      CollectiveKind kind,
                                      llvm::StringRef tensor, int64_t width,
                                      const llvm::Twine &cause) {
  tpCollectiveOf(primitive, phase, kind, tensor, width, actBytes, cause);
}

void ForwardBuilder::tpCollectiveOf(llvm::StringRef primitive, Phase phase,
                                    CollectiveKind kind, llvm::StringRef tensor,
                                    int64_t width, int64_t elementBytes,
                                    const llvm::Twine &cause) {
  auto buffer = [&](int64_t count) {
    return TensorAccess{tensor.str(),
                        guard.mul(count, elementBytes, tensor + " bytes")};
  };
  int64_t full = elements({shape.tokens, width}, tensor);
  int64_t shard = full / shape.tp;
  bool reduces = collectiveReduces(kind);
  int64_t ops =
      reduces ? reductionOps((primitive + " reduction ops").str(), full) : 0;
  int64_t readElements = kind == CollectiveKind::AllGather ? shard : full;
  int64_t writeElements = kind == CollectiveKind::ReduceScatter ? shard : full;
  Invocation &invocation = emit({primitive,
                                 phase,
                                 Engine::Collective,
                                 ops,
                                 {buffer(readElements)},
                                 {buffer(writeElements)},
                                 cause});
  CollectiveFacts facts;
  facts.kind = kind;
  facts.reduction = reduces ? ReductionKind::Sum : ReductionKind::None;
  facts.participants = shape.tp;
  facts.messageBytes =
      guard.mul(full, elementBytes, (primitive + " message bytes").str());
  invocation.collective = facts;
}

/// LayerNorm or RMSNorm forward over the rank's rows; its backward needs the
/// input (SeqSel Sec. 4.1: "LayerNorm ... inputs 2sbh each"). The per-row
/// statistics (mean, rstd) are ignored in the stash, as in the paper.
void ForwardBuilder::norm(llvm::StringRef primitive, llvm::StringRef input,
                          llvm::StringRef output, StashRole inputRole) {
  normOver(primitive, input, output, shape.hidden, "the hidden dimension",
           inputRole);
}

void ForwardBuilder::normOver(llvm::StringRef primitive, llvm::StringRef input,
                              llvm::StringRef output, int64_t width,
                              llvm::StringRef dimension, StashRole inputRole) {
  bool layerNorm = model.norm == NormKind::LayerNorm;
  int64_t rowElements = elements({shape.localTokens, width}, input);
  int64_t ops = rowwiseOps(opsName(primitive), shape.localTokens, width,
                           layerNorm ? opcount::kLayerNormForwardPerElement
                                     : opcount::kRMSNormForwardPerElement,
                           layerNorm ? opcount::kLayerNormForwardPerRow
                                     : opcount::kRMSNormForwardPerRow);
  std::vector<TensorAccess> reads = {
      activation(input, rowElements),
      weight((primitive + "_gamma").str(), width)};
  if (layerNorm)
    reads.push_back(weight((primitive + "_beta").str(), width));
  Invocation &invocation =
      emit({primitive,
            run.phase,
            Engine::Vector,
            ops,
            std::move(reads),
            {activation(output, rowElements)},
            "forward of " + primitive + ": " + stringifyEnum(model.norm) +
                " of " + input + " over " + dimension});
  stash(invocation, activation(input, rowElements), inputRole);
}

/// The output projection or FC2 tail after its row-parallel partial sums:
/// the TP reduction (MLM2019 g: all-reduce; SeqSel g-bar: reduce-scatter),
/// the bias (added after the reduction so it is added once) if the model
/// has one, the hidden dropout if the run has one, and the residual add.
/// Under SP these run on the sequence shard.
void ForwardBuilder::reduceRowParallel(llvm::StringRef collectivePrimitive,
                                       llvm::StringRef partial) {
  if (!hasCollectives())
    return;
  if (shape.sequenceParallel)
    tpCollective(collectivePrimitive, run.phase, CollectiveKind::ReduceScatter,
                 partial,
                 "sequence parallelism (SeqSel Sec. 4.2.2, g-bar): "
                 "reduce-scatter the partial sums of " +
                     partial + " onto each rank's sequence shard");
  else
    tpCollective(collectivePrimitive, run.phase, CollectiveKind::AllReduce,
                 partial,
                 "tensor parallelism (MLM2019 Sec. 3, g): all-reduce the "
                 "row-parallel partial sums of " +
                     partial);
}

void ForwardBuilder::rowParallelTail(
    llvm::StringRef biasPrimitive, llvm::StringRef partial,
    llvm::StringRef bias, llvm::StringRef biased,
    llvm::StringRef dropoutPrimitive, llvm::StringRef dropoutMask,
    llvm::StringRef residualPrimitive, llvm::StringRef skip,
    llvm::StringRef residualOutput) {
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, partial);
  if (model.hasOutputAndMLPBiases())
    emit({biasPrimitive,
          run.phase,
          Engine::Vector,
          elementwiseOps(opsName(biasPrimitive), rowElements,
                         opcount::kBiasAddPerElement),
          {activation(partial, rowElements), weight(bias, shape.hidden)},
          {activation(biased, rowElements)},
          "forward of " + biasPrimitive +
              ": the row-parallel bias is added after the reduction, once"});
  llvm::StringRef projected = rowParallelOutput(partial, biased);
  llvm::StringRef residualInput = projected;
  std::string dropped = (projected + "_dropped").str();
  if (run.hiddenDropout) {
    Invocation &invocation = emit(
        {dropoutPrimitive,
         run.phase,
         Engine::Vector,
         elementwiseOps(opsName(dropoutPrimitive), rowElements,
                        opcount::kDropoutForwardPerElement),
         {activation(projected, rowElements)},
         {activation(dropped, rowElements), mask(dropoutMask, rowElements)},
         "forward of " + dropoutPrimitive + ": hidden dropout on " + projected +
             " before the residual add"});
    stash(invocation, mask(dropoutMask, rowElements), StashRole::Kept);
    residualInput = dropped;
  }
  emit({residualPrimitive,
        run.phase,
        Engine::Vector,
        elementwiseOps(opsName(residualPrimitive), rowElements,
                       opcount::kResidualAddPerElement),
        {activation(skip, rowElements), activation(residualInput, rowElements)},
        {activation(residualOutput, rowElements)},
        "forward of " + residualPrimitive + ": residual add " + skip + " + " +
            residualInput});
}

/// Attention input (SeqSel Sec. 4.1, Fig. 2 and 5): norm1, the SP all-gather
/// of its output, and qkv_proj producing this rank's q, k and v for the
/// run's new positions.
void ForwardBuilder::attentionInput() {
  norm(primitive::kNorm1, "x", "x_norm1", StashRole::BlockInput);
  gatherSequenceShards(
      primitive::kAttnTPF, run.phase, "x_norm1",
      "sequence parallelism (SeqSel Sec. 4.2.2, g): all-gather the "
      "sequence-sharded x_norm1 so qkv_proj sees the whole "
      "sequence");

  int64_t inputElements = elements({shape.tokens, shape.hidden}, "x_norm1");
  int64_t stashedInput = elements({shape.localTokens, shape.hidden}, "x_norm1");
  int64_t qElements = elements({shape.tokens, shape.qCols}, "q");
  int64_t kvElements = elements({shape.tokens, shape.kvCols}, "k");

  // The count before the accesses, in the order of every emitted
  // invocation's checks: ops, reads, writes.
  WorkCount ops = linearOps(opsName(primitive::kQKVProj), shape.tokens,
                            shape.hidden, shape.qkvCols);
  std::vector<TensorAccess> reads = {
      activation("x_norm1", inputElements),
      weight("w_qkv", elements({shape.hidden, shape.qkvCols}, "w_qkv"))};
  if (model.hasQKVBias())
    reads.push_back(weight("b_qkv", shape.qkvCols));
  Invocation &invocation = emit(
      {primitive::kQKVProj,
       run.phase,
       Engine::Matmul,
       ops,
       std::move(reads),
       {activation("q", qElements), activation("k", kvElements),
        activation("v", kvElements)},
       model.hasQKVBias()
           ? "forward of qkv_proj: column-parallel projection of x_norm1 to "
             "this rank's query, key and value heads, bias included"
           : "forward of qkv_proj: column-parallel projection of x_norm1 to "
             "this rank's query, key and value heads"});
  // Under SP the sequence shard is kept and re-gathered for the weight
  // gradient (qkv_wgrad_gather), SeqSel Sec. 4.2.2.
  stash(invocation, activation("x_norm1", stashedInput), StashRole::Kept);

  // Megatron applies rotary embeddings to q and k outside the core
  // attention (SelfAttention.forward, apply_rotary_pos_emb), so the
  // attention core reads the rotated q and k under their names, and its
  // stash keeps them; the backward needs only the cos/sin table.
  if (model.positionEmbedding == PositionEmbedding::Rotary)
    rotary(run.phase, "",
           "forward of rotary: q and k of the new positions rotated by their "
           "positions' angles (RoPE)");
}

void ForwardBuilder::rotary(Phase phase, llvm::StringRef prefix,
                            const llvm::Twine &cause) {
  int64_t ops = rotaryOps(phase == run.phase ? opsName(primitive::kRotary)
                                             : "rotary input-gradient ops");
  std::vector<TensorAccess> reads = rotated(prefix);
  reads.push_back(rotaryTable());
  emit({primitive::kRotary, phase, Engine::Vector, ops, std::move(reads),
        rotated(prefix), cause});
}

std::vector<TensorAccess> ForwardBuilder::rotated(llvm::StringRef prefix) {
  if (model.hasLatentAttention()) {
    std::string queries = (prefix + "q_rope").str();
    std::string key = (prefix + "k_rope").str();
    int64_t queryCols =
        guard.sub(shape.rotatedCols, shape.rotaryDim, "rotated query columns");
    return {activation(queries, elements({shape.tokens, queryCols}, queries)),
            activation(key, elements({shape.tokens, shape.rotaryDim}, key))};
  }
  std::string queries = (prefix + "q").str();
  std::string keys = (prefix + "k").str();
  return {activation(queries, elements({shape.tokens, shape.qCols}, "q")),
          activation(keys, elements({shape.tokens, shape.kvCols}, "k"))};
}

TensorAccess ForwardBuilder::rotaryTable() {
  return {"rotary_cos_sin",
          guard.product({shape.queries, shape.rotaryDim, kRotaryTableBytes},
                        "rotary_cos_sin bytes")};
}

int64_t ForwardBuilder::rotaryOps(llvm::StringRef what) {
  int64_t rotated =
      elements({shape.tokens, shape.rotatedCols}, "rotated q and k");
  return elementwiseOps(what, rotated, opcount::kRotaryPerElement);
}

TensorAccess ForwardBuilder::newKeysOrValues(llvm::StringRef name) {
  return activation(name, elements({shape.tokens, shape.kvCols}, name));
}

std::vector<TensorAccess> ForwardBuilder::newKeys(llvm::StringRef prefix) {
  if (!model.hasLatentAttention())
    return {newKeysOrValues((prefix + "k").str())};
  std::string keys = (prefix + "k_nope").str();
  std::string sharedKey = (prefix + "k_rope").str();
  return {activation(keys, elements({shape.tokens, latentKeyCols()}, keys)),
          activation(sharedKey,
                     elements({shape.tokens, shape.rotaryDim}, sharedKey))};
}

TensorAccess ForwardBuilder::newValues(llvm::StringRef name) {
  return activation(name, elements({shape.tokens, shape.valueCols}, name));
}

int64_t ForwardBuilder::latentKeyCols() {
  return guard.mul(shape.heads, *model.qkNopeHeadDim, "MLA key columns");
}

/// Multi-head latent attention's input (docs/WorkAlgebra.md, "Multi-head
/// latent attention"). The down-projections are duplicated on every TP rank
/// and run on the rank's rows (its sequence shard under sequence
/// parallelism, which MLA needs under tp > 1, decoder_training_c14), as
/// Megatron-Core's TELinear(parallel_mode="duplicated") does; the normed
/// latents and the shared rotary key are all-gathered for the
/// column-parallel up-projections (MLASelfAttention.get_query_key_value_
/// tensors: the up-projections' sequence-parallel input gather and
/// gather_from_sequence_parallel_region of k_pos_emb).
void ForwardBuilder::latentAttentionInput(bool upProjectKeys) {
  norm(primitive::kNorm1, "x", "x_norm1", StashRole::BlockInput);
  int64_t kvRank = *model.kvLoraRank;
  int64_t ropeDim = shape.rotaryDim;
  int64_t localInput = elements({shape.localTokens, shape.hidden}, "x_norm1");
  if (model.qLoraRank) {
    int64_t qRank = *model.qLoraRank;
    emit({primitive::kQAProj,
          run.phase,
          Engine::Matmul,
          linearOps(opsName(primitive::kQAProj), shape.localTokens,
                    shape.hidden, qRank),
          {activation("x_norm1", localInput),
           weight("w_q_a", elements({shape.hidden, qRank}, "w_q_a"))},
          {activation("q_latent",
                      elements({shape.localTokens, qRank}, "q_latent"))},
          "forward of q_a_proj: the query down-projection of x_norm1 to the "
          "q_lora_rank latent, duplicated on every TP rank over its rows"});
    normOver(primitive::kQANorm, "q_latent", "q_latent_norm", qRank,
             "the query latent", StashRole::Kept);
  }
  int64_t kvaCols = shape.latentCacheCols;
  Invocation &downProjection = emit(
      {primitive::kKVAProj,
       run.phase,
       Engine::Matmul,
       linearOps(opsName(primitive::kKVAProj), shape.localTokens, shape.hidden,
                 kvaCols),
       {activation("x_norm1", localInput),
        weight("w_kv_a", elements({shape.hidden, kvaCols}, "w_kv_a"))},
       {activation("kv_latent",
                   elements({shape.localTokens, kvRank}, "kv_latent")),
        activation("k_rope", elements({shape.localTokens, ropeDim}, "k_rope"))},
       "forward of kv_a_proj: the key/value down-projection of x_norm1 to "
       "the kv_lora_rank latent and the rotary key shared by every head, "
       "duplicated on every TP rank over its rows"});
  // The down-projections' weight gradients read x_norm1 as this rank holds
  // it: the sequence shard under sequence parallelism, kept once.
  stash(downProjection, activation("x_norm1", localInput), StashRole::Kept);
  normOver(primitive::kKVANorm, "kv_latent", "kv_latent_norm", kvRank,
           "the key/value latent", StashRole::Kept);

  bool gather = hasCollectives() && shape.sequenceParallel;
  if (gather && model.qLoraRank)
    tpCollectiveOver(primitive::kQLatentTPF, run.phase,
                     CollectiveKind::AllGather, "q_latent_norm",
                     *model.qLoraRank,
                     "sequence parallelism: all-gather the sequence-sharded "
                     "q_latent_norm so q_b_proj sees the whole sequence");
  if (gather && !model.qLoraRank)
    tpCollective(primitive::kAttnTPF, run.phase, CollectiveKind::AllGather,
                 "x_norm1",
                 "sequence parallelism (SeqSel Sec. 4.2.2, g): all-gather the "
                 "sequence-sharded x_norm1 so q_proj sees the whole sequence");
  if (gather) {
    tpCollectiveOver(primitive::kKVLatentTPF, run.phase,
                     CollectiveKind::AllGather, "kv_latent_norm", kvRank,
                     "sequence parallelism: all-gather the sequence-sharded "
                     "kv_latent_norm so kv_b_proj sees the whole sequence");
    tpCollectiveOver(primitive::kKRopeTPF, run.phase, CollectiveKind::AllGather,
                     "k_rope", ropeDim,
                     "sequence parallelism: all-gather the sequence-sharded "
                     "rotary key k_rope, which every head of every rank "
                     "attends with");
  }

  int64_t qElements = elements({shape.tokens, shape.qCols}, "q");
  if (model.qLoraRank) {
    int64_t qRank = *model.qLoraRank;
    Invocation &upProjection =
        emit({primitive::kQBProj,
              run.phase,
              Engine::Matmul,
              linearOps(opsName(primitive::kQBProj), shape.tokens, qRank,
                        shape.qCols),
              {activation("q_latent_norm",
                          elements({shape.tokens, qRank}, "q_latent_norm")),
               weight("w_q_b", elements({qRank, shape.qCols}, "w_q_b"))},
              {activation("q", qElements)},
              "forward of q_b_proj: column-parallel up-projection of "
              "q_latent_norm to this rank's query heads (qk_nope_head_dim + "
              "qk_rope_head_dim each)"});
    stash(upProjection,
          activation("q_latent_norm",
                     elements({shape.localTokens, qRank}, "q_latent_norm")),
          StashRole::Kept);
  } else {
    emit({primitive::kQProj,
          run.phase,
          Engine::Matmul,
          linearOps(opsName(primitive::kQProj), shape.tokens, shape.hidden,
                    shape.qCols),
          {activation("x_norm1",
                      elements({shape.tokens, shape.hidden}, "x_norm1")),
           weight("w_q", elements({shape.hidden, shape.qCols}, "w_q"))},
          {activation("q", qElements)},
          "forward of q_proj: column-parallel projection of x_norm1 to this "
          "rank's query heads (qk_nope_head_dim + qk_rope_head_dim each)"});
  }

  if (upProjectKeys) {
    int64_t kvbCols = shape.keyValueUpCols;
    std::vector<TensorAccess> keys = newKeys("");
    Invocation &upProjection = emit(
        {primitive::kKVBProj,
         run.phase,
         Engine::Matmul,
         linearOps(opsName(primitive::kKVBProj), shape.tokens, kvRank, kvbCols),
         {activation("kv_latent_norm",
                     elements({shape.tokens, kvRank}, "kv_latent_norm")),
          weight("w_kv_b", elements({kvRank, kvbCols}, "w_kv_b"))},
         {std::move(keys.front()), newValues("v")},
         "forward of kv_b_proj: column-parallel up-projection of "
         "kv_latent_norm to this rank's keys (qk_nope_head_dim per head, "
         "without their rotary part) and values (v_head_dim per head)"});
    stash(upProjection,
          activation("kv_latent_norm",
                     elements({shape.localTokens, kvRank}, "kv_latent_norm")),
          StashRole::Kept);
  }

  rotary(run.phase, "",
         "forward of rotary: the rotary parts q_rope of this rank's query "
         "heads and the shared rotary key k_rope of the new positions rotated "
         "by their positions' angles (RoPE; DeepSeek-V2's decoupled rotary "
         "key)");
}

/// What the softmax of the run's score rows masks: a causal band under a
/// sliding window shorter than the keys, the causal triangle otherwise; a
/// decode step's one query sees every (cached) key and needs no mask.
std::string ForwardBuilder::softmaxCause() const {
  if (!run.causalMask)
    return "forward of softmax: scale by 1/sqrt(head_dim) and softmax over "
           "each score row; no mask, the new position attends to every "
           "cached position";
  if (shape.cp > 1)
    return ("forward of softmax: scale by 1/sqrt(head_dim), causal mask "
            "(generated from indices, nothing read) and softmax over each "
            "score row of this cp rank's two load-balanced chunks, " +
            llvm::Twine(shape.attendedKeys) +
            " keys per row on average over the ring's masked blocks")
        .str();
  if (shape.attendedKeys < shape.keys)
    return ("forward of softmax: scale by 1/sqrt(head_dim), causal "
            "sliding-window mask (each row holds the " +
            llvm::Twine(shape.attendedKeys) +
            " keys of its window; generated from indices, nothing read) and "
            "softmax over each score row")
        .str();
  return "forward of softmax: scale by 1/sqrt(head_dim), causal mask "
         "(generated from indices, nothing read) and softmax over each score "
         "row";
}

/// Attention core (SeqSel Sec. 4.1 and App. A): the scores Q K^T of the new
/// positions against `keys`, the softmax, the attention dropout if the run
/// has one, and probs x `values`. The keys and values are those qkv_proj
/// just produced, or the KV cache in a decode step.
void ForwardBuilder::attentionCore(std::vector<TensorAccess> keys,
                                   TensorAccess values) {
  AttentionOperands operands;
  operands.queries = {
      activation("q", elements({shape.tokens, shape.qCols}, "q"))};
  operands.keys = std::move(keys);
  operands.values = std::move(values);
  operands.scoreWidth = shape.headDim;
  operands.valueWidth = shape.valueHeadDim;
  operands.context = activation(
      "context", elements({shape.tokens, shape.contextCols}, "context"));
  operands.scoreCause =
      model.hasLatentAttention()
          ? "forward of qk_matmul: attention scores Q K^T of this rank's "
            "heads over qk_nope_head_dim + qk_rope_head_dim, the rotary "
            "part of every head against the one shared rotary key"
          : "forward of qk_matmul: attention scores Q K^T of this rank's "
            "heads";
  attentionCoreOf(std::move(operands));
}

void ForwardBuilder::attentionCoreOf(AttentionOperands operands) {
  int64_t scoreElements = this->scoreElements("scores");
  int64_t scoreRows =
      elements({shape.batch, shape.heads, shape.queries}, "score rows");

  WorkCount scoreOps =
      attentionMatmul(opsName(primitive::kQKMatmul), shape.queries,
                      shape.attendedKeys, operands.scoreWidth);
  std::vector<TensorAccess> scoreReads = operands.queries;
  llvm::append_range(scoreReads, operands.keys);
  Invocation *invocation = &emit({primitive::kQKMatmul,
                                  run.phase,
                                  Engine::Matmul,
                                  std::move(scoreOps),
                                  std::move(scoreReads),
                                  {activation("scores", scoreElements)},
                                  operands.scoreCause});
  for (TensorAccess &query : operands.queries)
    stash(*invocation, std::move(query), StashRole::Kept);
  for (TensorAccess &key : operands.keys)
    stash(*invocation, std::move(key), StashRole::Kept);
  TensorAccess values = std::move(operands.values);

  invocation = &emit(
      {primitive::kSoftmax,
       run.phase,
       Engine::Vector,
       rowwiseOps(opsName(primitive::kSoftmax), scoreRows, shape.attendedKeys,
                  run.causalMask ? opcount::kSoftmaxForwardPerElement
                                 : opcount::kUnmaskedSoftmaxForwardPerElement,
                  opcount::kSoftmaxForwardPerRow),
       {activation("scores", scoreElements)},
       {activation("probs", scoreElements)},
       softmaxCause()});
  stash(*invocation, activation("probs", scoreElements),
        StashRole::AttentionCore);

  llvm::StringRef attended = "probs";
  if (run.attentionDropout) {
    invocation = &emit(
        {primitive::kAttnDropout,
         run.phase,
         Engine::Vector,
         elementwiseOps(opsName(primitive::kAttnDropout), scoreElements,
                        opcount::kDropoutForwardPerElement),
         {activation("probs", scoreElements)},
         {activation("probs_dropped", scoreElements),
          mask("attn_dropout_mask", scoreElements)},
         "forward of attn_dropout: dropout on the attention probabilities"});
    stash(*invocation, mask("attn_dropout_mask", scoreElements),
          StashRole::AttentionCore);
    attended = "probs_dropped";
  }

  invocation =
      &emit({primitive::kAttnVMatmul,
             run.phase,
             Engine::Matmul,
             attentionMatmul(opsName(primitive::kAttnVMatmul), shape.queries,
                             operands.valueWidth, shape.attendedKeys),
             {activation(attended, scoreElements), values},
             {std::move(operands.context)},
             "forward of attn_v_matmul: attention-weighted values " + attended +
                 " x V"});
  // Without attention dropout, `probs` is already stashed by softmax.
  if (run.attentionDropout)
    stash(*invocation, activation("probs_dropped", scoreElements),
          StashRole::AttentionCore);
  stash(*invocation, std::move(values), StashRole::Kept);
}

/// Attention output (SeqSel Sec. 4.1): out_proj over this rank's heads and
/// its row-parallel tail into the residual stream.
void ForwardBuilder::attentionOutput() {
  int64_t inputElements = elements({shape.tokens, shape.hidden}, "attn_proj");
  int64_t qElements = elements({shape.tokens, shape.contextCols}, "context");
  Invocation &invocation = emit(
      {primitive::kOutProj,
       run.phase,
       Engine::Matmul,
       linearOps(opsName(primitive::kOutProj), shape.tokens, shape.contextCols,
                 shape.hidden),
       {activation("context", qElements),
        weight("w_out", elements({shape.contextCols, shape.hidden}, "w_out"))},
       {activation("attn_proj", inputElements)},
       "forward of out_proj: row-parallel output projection of this rank's "
       "heads (partial sums when tp > 1)"});
  stash(invocation, activation("context", qElements), StashRole::Kept);

  reduceRowParallel(primitive::kAttnTPG, "attn_proj");
  rowParallelTail(/*biasPrimitive=*/primitive::kOutProjBias,
                  /*partial=*/"attn_proj", /*bias=*/"b_out",
                  /*biased=*/"attn_out",
                  /*dropoutPrimitive=*/primitive::kAttnResidualDropout,
                  /*dropoutMask=*/"attn_residual_dropout_mask",
                  /*residualPrimitive=*/primitive::kAttnResidual, /*skip=*/"x",
                  /*residualOutput=*/"h_attn");
}

/// MLP half of the forward (SeqSel Sec. 4.1, Fig. 4 and 5).
void ForwardBuilder::forwardMlp() {
  norm(primitive::kNorm2, "h_attn", "x_norm2", StashRole::Kept);
  if (model.moe)
    forwardExperts();
  else
    forwardDenseMlp();
  // At ep > 1 the dispatcher's reduce-scatter over ["tp"] reduced the
  // experts' partial sums already (td.py combine_preprocess).
  if (!run.expertParallel)
    reduceRowParallel(primitive::kMLPTPG, "mlp_proj");
  if (model.moe && model.moe->sharedExperts > 0)
    forwardSharedExperts();
  rowParallelTail(/*biasPrimitive=*/primitive::kFC2Bias,
                  /*partial=*/"mlp_proj", /*bias=*/"b_fc2",
                  /*biased=*/"mlp_out",
                  /*dropoutPrimitive=*/primitive::kMLPDropout,
                  /*dropoutMask=*/"mlp_dropout_mask",
                  /*residualPrimitive=*/primitive::kMLPResidual,
                  /*skip=*/"h_attn",
                  /*residualOutput=*/"y");
}

void ForwardBuilder::forwardDenseMlp() {
  gatherSequenceShards(
      primitive::kMLPTPF, run.phase, "x_norm2",
      "sequence parallelism (SeqSel Sec. 4.2.2, g): all-gather the "
      "sequence-sharded x_norm2 so fc1 sees the whole sequence");
  mlpForward(denseMlp());
}

ForwardBuilder::MlpLinears
ForwardBuilder::mlpLinears(const MlpTensors &tensors, int64_t rows,
                           int64_t fc1Cols, int64_t ffnCols, std::string what) {
  MlpLinears mlp;
  static_cast<MlpTensors &>(mlp) = tensors;
  mlp.rows = rows;
  mlp.rowGroups = {{1, rows}};
  mlp.fc1Cols = fc1Cols;
  mlp.ffnCols = ffnCols;
  mlp.what = std::move(what);
  return mlp;
}

ForwardBuilder::MlpLinears ForwardBuilder::denseMlp() {
  MlpLinears mlp = mlpLinears(
      {primitive::kFC1, primitive::kActivation, primitive::kFC2, "x_norm2",
       "fc1_out", "act_out", "mlp_proj", "w_fc1", "w_fc2"},
      shape.tokens, shape.fc1Cols, shape.ffnCols, "the MLP");
  // Under SP the sequence shard is kept and re-gathered for the weight
  // gradient (fc1_wgrad_gather), SeqSel Sec. 4.2.2.
  mlp.stashedInputRows = shape.localTokens;
  mlp.fc1Bias = model.hasOutputAndMLPBiases();
  return mlp;
}

ForwardBuilder::MlpLinears
ForwardBuilder::routedExperts(const ExpertRouting &pairs) {
  MlpLinears mlp = mlpLinears(
      {primitive::kExpertFC1, primitive::kExpertActivation,
       primitive::kExpertFC2, "permuted_tokens", "expert_fc1_out",
       "expert_act_out", "expert_out", "w_expert_fc1", "w_expert_fc2"},
      pairs.processed, shape.expertFc1Cols, shape.expertFfnCols,
      ("the " + llvm::Twine(pairs.activeExperts) +
       " experts that receive tokens, each on its token rows")
          .str());
  mlp.rowGroups = pairs.loads;
  mlp.weightCopies = pairs.activeExperts;
  // Megatron's GroupedMLP saves its permuted input: no re-gather.
  mlp.stashedInputRows = pairs.processed;
  return mlp;
}

ForwardBuilder::MlpLinears ForwardBuilder::expertParallelExperts() {
  const ExpertParallelShape &parallel = *run.expertParallel;
  ExpertRouting received;
  received.pairs = parallel.processedPairs;
  received.processed = parallel.processedPairs;
  received.activeExperts =
      std::min(parallel.localExperts, parallel.processedPairs);
  received.loads = parallel.expertLoads;
  return routedExperts(received);
}

ForwardBuilder::MlpLinears ForwardBuilder::sharedExperts() {
  // The router keeps the rank's shard of x_norm2 already; under SP the
  // backward re-gathers it as the dense MLP's does.
  return mlpLinears(
      {primitive::kSharedExpertFC1, primitive::kSharedExpertActivation,
       primitive::kSharedExpertFC2, "x_norm2", "shared_expert_fc1_out",
       "shared_expert_act_out", "shared_expert_out", "w_shared_expert_fc1",
       "w_shared_expert_fc2", "d_shared_expert_in"},
      shape.tokens, shape.sharedFc1Cols, shape.sharedFfnCols,
      "the " + std::to_string(model.moe->sharedExperts) +
          " shared experts, one MLP on every token");
}

void ForwardBuilder::gatherSequenceShards(llvm::StringRef primitive,
                                          Phase phase, llvm::StringRef tensor,
                                          const llvm::Twine &cause) {
  if (hasCollectives() && shape.sequenceParallel)
    tpCollective(primitive, phase, CollectiveKind::AllGather, tensor, cause);
}

void ForwardBuilder::mlpForward(const MlpLinears &mlp,
                                llvm::function_ref<void()> afterActivation) {
  int64_t inputElements = elements({mlp.rows, shape.hidden}, mlp.input);
  int64_t fc1Elements = elements({mlp.rows, mlp.fc1Cols}, mlp.fc1Out);
  int64_t actElements = elements({mlp.rows, mlp.ffnCols}, mlp.actOut);
  int64_t outputElements = elements({mlp.rows, shape.hidden}, mlp.output);

  // The count before the accesses, in the order of every emitted
  // invocation's checks: ops, reads, writes.
  std::string fc1Ops = opsName(mlp.fc1);
  WorkCount ops =
      groupedLinearOps(fc1Ops, mlp.rowGroups, [&](const ExpertLoad &group) {
        return linearOps(fc1Ops, group.rows, shape.hidden, mlp.fc1Cols,
                         group.experts);
      });
  std::vector<TensorAccess> reads = {
      activation(mlp.input, inputElements),
      weight(mlp.fc1Weight,
             elements({mlp.weightCopies, shape.hidden, mlp.fc1Cols},
                      mlp.fc1Weight))};
  if (mlp.fc1Bias)
    reads.push_back(weight("b_fc1", mlp.fc1Cols));
  Invocation *invocation =
      &emit({mlp.fc1,
             run.phase,
             Engine::Matmul,
             ops,
             std::move(reads),
             {activation(mlp.fc1Out, fc1Elements)},
             "forward of " + mlp.fc1 + ": column-parallel up-projection of " +
                 mlp.input + " by " + mlp.what +
                 (mlp.fc1Bias ? ", bias included" : "")});
  if (mlp.stashedInputRows)
    stash(*invocation,
          activation(mlp.input, elements({*mlp.stashedInputRows, shape.hidden},
                                         mlp.input)),
          StashRole::Kept);

  activationForward(mlp.activation, mlp.fc1Out, mlp.actOut, fc1Elements,
                    actElements);
  afterActivation();

  std::string fc2Ops = opsName(mlp.fc2);
  ops = groupedLinearOps(fc2Ops, mlp.rowGroups, [&](const ExpertLoad &group) {
    return linearOps(fc2Ops, group.rows, mlp.ffnCols, shape.hidden,
                     group.experts);
  });
  reads = {activation(mlp.actOut, actElements),
           weight(mlp.fc2Weight,
                  elements({mlp.weightCopies, mlp.ffnCols, shape.hidden},
                           mlp.fc2Weight))};
  invocation =
      &emit({mlp.fc2,
             run.phase,
             Engine::Matmul,
             ops,
             std::move(reads),
             {activation(mlp.output, outputElements)},
             "forward of " + mlp.fc2 + ": row-parallel down-projection by " +
                 mlp.what + " (partial sums when tp > 1)"});
  stash(*invocation, activation(mlp.actOut, actElements), StashRole::Kept);
}

void ForwardBuilder::activationForward(llvm::StringRef primitive,
                                       llvm::StringRef input,
                                       llvm::StringRef output,
                                       int64_t inputElements,
                                       int64_t outputElements) {
  Invocation &invocation =
      emit({primitive,
            run.phase,
            Engine::Vector,
            elementwiseOps(opsName(primitive), outputElements,
                           activationOpsPerElement(model.activation,
                                                   /*inputGradient=*/false)),
            {activation(input, inputElements)},
            {activation(output, outputElements)},
            "forward of " + primitive + ": " + stringifyEnum(model.activation) +
                " of " + input});
  stash(invocation, activation(input, inputElements), StashRole::Kept);
}

void ForwardBuilder::activationBackward(llvm::StringRef primitive,
                                        llvm::StringRef input,
                                        llvm::StringRef output,
                                        int64_t inputElements,
                                        int64_t outputElements) {
  std::string inputGrad = ("d_" + input).str();
  std::string outputGrad = ("d_" + output).str();
  emit(
      {primitive,
       Phase::ActivationGrad,
       Engine::Vector,
       elementwiseOps((primitive + " input-gradient ops").str(), outputElements,
                      activationOpsPerElement(model.activation,
                                              /*inputGradient=*/true)),
       {activation(input, inputElements),
        activation(outputGrad, outputElements)},
       {activation(inputGrad, inputElements)},
       "backward of " + primitive + ": gradient with respect to " + input});
}

void ForwardBuilder::forwardSoftmaxRouting(int64_t localRouting) {
  int64_t experts = model.moe->experts;
  Invocation *invocation =
      &emit({primitive::kRouterSoftmax,
             run.phase,
             Engine::Vector,
             rowwiseOps(opsName(primitive::kRouterSoftmax), shape.localTokens,
                        experts, opcount::kRouterSoftmaxForwardPerElement,
                        opcount::kRouterSoftmaxForwardPerRow),
             {activation("router_logits", localRouting)},
             {activation("router_scores", localRouting)},
             "forward of router_softmax: softmax of each row's expert logits"});
  stash(*invocation, activation("router_scores", localRouting),
        StashRole::Kept);

  int64_t k = model.moe->expertsPerToken;
  int64_t perCandidate =
      guard.mul(k, opcount::kTopKPerCandidatePerPass, "top-k passes");
  int64_t perRow = guard.mul(k, opcount::kTopKRenormalisePerSelected,
                             "top-k renormalisation");
  invocation = &emit(
      {primitive::kRouterTopK,
       run.phase,
       Engine::Vector,
       rowwiseOps(opsName(primitive::kRouterTopK), shape.localTokens, experts,
                  perCandidate, perRow),
       {activation("router_scores", localRouting)},
       {activation("routing_probs", localRouting),
        mask("routing_map", localRouting)},
       "forward of router_topk: " + llvm::Twine(k) +
           " passes of an expert-wide max select each row's experts, whose "
           "scores are renormalised to sum to 1 (routing_probs, zero "
           "elsewhere; routing_map marks the selection)"});
  stash(*invocation, activation("routing_probs", localRouting),
        StashRole::Kept);
  stash(*invocation, mask("routing_map", localRouting), StashRole::Kept);
}

void ForwardBuilder::forwardGroupLimitedRouting(int64_t localRouting) {
  const MixtureOfExperts &moe = *model.moe;
  int64_t experts = moe.experts;
  Invocation *invocation =
      &emit({primitive::kRouterSigmoid,
             run.phase,
             Engine::Vector,
             elementwiseOps(opsName(primitive::kRouterSigmoid), localRouting,
                            opcount::kSigmoidPerElement),
             {activation("router_logits", localRouting)},
             {activation("router_scores", localRouting)},
             "forward of router_sigmoid: sigmoid scores of each row's expert "
             "logits (DeepSeek-V3 Eq. 15)"});
  stash(*invocation, activation("router_scores", localRouting),
        StashRole::Kept);

  // Per score: the bias add, the group top-2 and the mask (4), then the k
  // passes of the top-k; per group: the group score sum (2) and the
  // router_groups_per_token passes of the group top-k; per selected
  // expert: the renormalisation (2) and the scaling (1); per row the
  // denominator's epsilon (1).
  int64_t k = moe.expertsPerToken;
  int64_t topKPasses =
      guard.mul(k, opcount::kTopKPerCandidatePerPass, "top-k passes");
  int64_t perCandidate = guard.add(opcount::kGroupLimitedSelectPerElement,
                                   topKPasses, "group-limited selection");
  int64_t groupPasses =
      guard.mul(moe.routerGroupsPerToken, opcount::kTopKPerCandidatePerPass,
                "group top-k passes");
  int64_t perGroup =
      guard.add(opcount::kGroupScorePerGroup, groupPasses, "group scores");
  int64_t groupOps =
      guard.mul(moe.routerGroups, perGroup, "group selection ops per row");
  int64_t perSelected =
      opcount::kTopKRenormalisePerSelected + opcount::kRoutedScalingPerSelected;
  int64_t selectedOps = guard.mul(k, perSelected, "top-k weighting per row");
  int64_t perRow = guard.add(groupOps, selectedOps, "router_topk per row");
  perRow = guard.add(perRow, opcount::kRenormaliseEpsilonPerRow, "router_topk");
  invocation = &emit(
      {primitive::kRouterTopK,
       run.phase,
       Engine::Vector,
       rowwiseOps(opsName(primitive::kRouterTopK), shape.localTokens, experts,
                  perCandidate, perRow),
       {activation("router_scores", localRouting),
        weight("e_score_correction_bias", experts)},
       {activation("routing_probs", localRouting),
        mask("routing_map", localRouting)},
       "forward of router_topk: the score-correction bias added to each "
       "row's sigmoid scores, the " +
           llvm::Twine(moe.routerGroups) +
           " groups scored by the sum of their two best, the best " +
           llvm::Twine(moe.routerGroupsPerToken) + " groups kept, " +
           llvm::Twine(k) +
           " passes of an expert-wide max over their experts; the selected "
           "experts' sigmoid scores (without the bias) renormalised and "
           "multiplied by the routed scaling factor (routing_probs, zero "
           "elsewhere; routing_map marks the selection)"});
  stash(*invocation, activation("routing_probs", localRouting),
        StashRole::Kept);
  stash(*invocation, mask("routing_map", localRouting), StashRole::Kept);
}

void ForwardBuilder::forwardExperts() {
  const MixtureOfExperts &moe = *model.moe;
  int64_t experts = moe.experts;
  ExpertRouting pairs = routing();
  int64_t localInput = elements({shape.localTokens, shape.hidden}, "x_norm2");
  int64_t localRouting = routingElements(shape.localTokens, "router_logits");

  // The router (Megatron-Core TopKRouter, not TP-split) on this rank's rows.
  Invocation *invocation = &emit(
      {primitive::kRouter,
       run.phase,
       Engine::Matmul,
       linearOps(opsName(primitive::kRouter), shape.localTokens, shape.hidden,
                 experts),
       {activation("x_norm2", localInput),
        weight("w_router", elements({shape.hidden, experts}, "w_router"))},
       {activation("router_logits", localRouting)},
       "forward of router: the logits of the " + llvm::Twine(experts) +
           " experts for this rank's rows of x_norm2 (the router "
           "weight is duplicated on every TP rank)"});
  stash(*invocation, activation("x_norm2", localInput), StashRole::Kept);

  if (moe.router == RouterKind::SigmoidGroupLimited)
    forwardGroupLimitedRouting(localRouting);
  else
    forwardSoftmaxRouting(localRouting);

  if (run.expertParallel)
    return forwardExpertParallel(localInput, localRouting);

  // Megatron-Core MoEAllGatherTokenDispatcher: the routing map, the
  // probabilities and the hidden states are gathered over the TP group, so
  // every rank routes every token of the micro-batch.
  bool gathered = hasCollectives() && shape.sequenceParallel;
  if (gathered) {
    tpCollectiveOf(primitive::kRoutingMapTPF, run.phase,
                   CollectiveKind::AllGather, "routing_map", experts,
                   /*elementBytes=*/1,
                   "sequence parallelism: all-gather the routing map (one "
                   "byte per token and expert) so every rank routes every "
                   "token");
    tpCollectiveOver(primitive::kRoutingProbsTPF, run.phase,
                     CollectiveKind::AllGather, "routing_probs", experts,
                     "sequence parallelism: all-gather the routing "
                     "probabilities for the combine");
    tpCollective(primitive::kMLPTPF, run.phase, CollectiveKind::AllGather,
                 "x_norm2",
                 "sequence parallelism (SeqSel Sec. 4.2.2, g): all-gather the "
                 "sequence-sharded x_norm2 so the experts see the whole "
                 "sequence");
  }

  int64_t routingAll = routingElements(shape.tokens, "routing_probs");
  int64_t pairRows = elements({pairs.processed, shape.hidden}, "permuted");
  std::string dropped = pairs.dropped == 0
                            ? std::string()
                            : (", " + llvm::Twine(pairs.dropped) +
                               " pairs dropped by the capacity of " +
                               llvm::Twine(pairs.capacity) + " per expert")
                                  .str();
  emit({primitive::kMoEPermute,
        run.phase,
        Engine::Vector,
        0,
        {activation("x_norm2", pairRows), mask("routing_map", routingAll)},
        {activation("permuted_tokens", pairRows)},
        "forward of moe_permute: the rows of x_norm2 copied into expert "
        "order, one per processed token-expert pair (" +
            llvm::Twine(pairs.processed) + " of " + llvm::Twine(pairs.pairs) +
            dropped + ")"});

  mlpForward(routedExperts(pairs));

  int64_t outputElements = elements({shape.tokens, shape.hidden}, "mlp_proj");
  invocation = &emit(
      {primitive::kMoECombine,
       run.phase,
       Engine::Vector,
       elementwiseOps(opsName(primitive::kMoECombine), pairRows,
                      opcount::kCombinePerElement),
       {activation("expert_out", pairRows),
        activation("routing_probs", routingAll),
        mask("routing_map", routingAll)},
       {activation("mlp_proj", outputElements)},
       "forward of moe_combine: each token's expert outputs weighted by its "
       "routing probabilities and summed back in token order (partial sums "
       "when tp > 1)"});
  stash(*invocation, activation("expert_out", pairRows), StashRole::Kept);
  // Without the gathers, the routing tensors are those router_topk kept.
  if (gathered) {
    stash(*invocation, activation("routing_probs", routingAll),
          StashRole::Kept);
    stash(*invocation, mask("routing_map", routingAll), StashRole::Kept);
  }
}

void ForwardBuilder::expertParallelCollective(llvm::StringRef primitive,
                                              Phase phase,
                                              llvm::StringRef tensor) {
  const ExpertParallelTransfer *found = nullptr;
  for (const ExpertParallelTransfer &transfer : run.expertDispatch)
    if (transfer.phase == phase && transfer.tensor == tensor)
      found = &transfer;
  // An internal invariant: expertParallelDispatch derives every tensor the
  // block emits a collective of. A mismatch is a bug, stopped in every build.
  if (!found)
    llvm::report_fatal_error(llvm::Twine("expert parallelism: no derived "
                                         "dispatcher collective of tensor '") +
                             tensor + "' in phase " + stringifyEnum(phase));
  const ExpertParallelTransfer &transfer = *found;
  // CollectiveFacts' convention: an all-gather reads the rank's shard, a
  // reduce-scatter writes it, an all-to-all reads and writes its whole
  // buffer.
  int64_t shard = transfer.messageBytes / transfer.participants;
  int64_t readBytes = transfer.collective == CollectiveKind::AllGather
                          ? shard
                          : transfer.messageBytes;
  int64_t writeBytes = transfer.collective == CollectiveKind::ReduceScatter
                           ? shard
                           : transfer.messageBytes;
  Invocation &invocation = emit({primitive,
                                 phase,
                                 Engine::Collective,
                                 transfer.ops,
                                 {{transfer.carried, readBytes}},
                                 {{transfer.carried, writeBytes}},
                                 transfer.cause});
  CollectiveFacts facts;
  facts.kind = transfer.collective;
  facts.reduction = collectiveReduces(transfer.collective)
                        ? ReductionKind::Sum
                        : ReductionKind::None;
  facts.participants = transfer.participants;
  facts.messageBytes = transfer.messageBytes;
  facts.axis = transfer.axes.front();
  facts.innerAxes.assign(transfer.axes.begin() + 1, transfer.axes.end());
  invocation.collective = facts;
}

void ForwardBuilder::forwardExpertParallel(int64_t localInput,
                                           int64_t localRouting) {
  const ExpertParallelShape &parallel = *run.expertParallel;
  Phase exchangePhase = run.phase;
  expertParallelCollective(primitive::kMoETokenCounts, exchangePhase,
                           "tokens_per_expert");
  int64_t rankRows =
      elements({parallel.rankPairs, shape.hidden}, "permuted_tokens");
  // Megatron's permute(hidden, routing_map, probs=...) selects each kept
  // pair's probability in the same call (moe_utils.py permute,
  // `probs.T.contiguous().masked_select(routing_map.T)`): the experts apply
  // them at ep > 1.
  emit({primitive::kMoEPermute,
        run.phase,
        Engine::Vector,
        0,
        {activation("x_norm2", localInput), mask("routing_map", localRouting),
         activation("routing_probs", localRouting)},
        {activation("permuted_tokens", rankRows),
         activation("permuted_probs", parallel.rankPairs)},
        "forward of moe_permute: the rank's own rows of x_norm2 and their "
        "routing probabilities copied into expert order, one per kept "
        "token-expert pair (" +
            llvm::Twine(parallel.rankPairs) +
            ", MoEAlltoAllTokenDispatcher permutation 1)"});
  expertParallelCollective(primitive::kMoEDispatch, exchangePhase,
                           "permuted_tokens");
  expertParallelCollective(primitive::kMoEDispatchProbs, exchangePhase,
                           "permuted_probs");
  if (shape.tp > 1) {
    expertParallelCollective(primitive::kMoEDispatchTPGather, exchangePhase,
                             "global_input_tokens");
    expertParallelCollective(primitive::kMoEDispatchProbsTPGather,
                             exchangePhase, "global_probs");
  }
  mlpForward(expertParallelExperts(), [&] {
    int64_t activationElements = elements(
        {parallel.processedPairs, shape.expertFfnCols}, "expert_act_out");
    Invocation &weighting = emit(
        {primitive::kExpertProbs,
         run.phase,
         Engine::Vector,
         parallel.activationProbabilityOps,
         {activation("expert_act_out", activationElements),
          activation("permuted_probs", parallel.processedPairs)},
         {activation("expert_act_out", activationElements)},
         "forward of expert_probs: the routing probabilities applied in the "
         "experts, one multiply per element of each pair's activation "
         "output (d98e8a6's weighted_bias_swiglu_impl)"});
    // Megatron's weighted SwiGLU saves (input, weights) for its backward,
    // which reads each pair's probability (review s34/ep3, finding 3).
    stash(weighting, activation("permuted_probs", parallel.processedPairs),
          StashRole::Kept);
  });
  if (shape.tp > 1)
    expertParallelCollective(primitive::kMoECombineTPReduceScatter,
                             exchangePhase, "expert_output");
  expertParallelCollective(primitive::kMoECombineExchange, exchangePhase,
                           "combined_tokens");
  int64_t outputElements =
      elements({shape.localTokens, shape.hidden}, "mlp_proj");
  emit({primitive::kMoEUnpermute,
        run.phase,
        Engine::Vector,
        parallel.unpermuteOps,
        {activation("expert_out", rankRows), mask("routing_map", localRouting)},
        {activation("mlp_proj", outputElements)},
        "forward of moe_unpermute: each of the rank's returned pairs "
        "scatter-added into its token's row of mlp_proj (the probabilities "
        "were applied in the experts)"});
}

void ForwardBuilder::forwardSharedExperts() {
  // Megatron-Core MoELayer adds SharedExpertMLP's output to the routed one
  // after the token dispatcher's reduction; the shared MLP's
  // ColumnParallelLinear and RowParallelLinear issue their own collectives
  // (moe_shared_expert_overlap only moves them onto another stream).
  gatherSequenceShards(
      primitive::kSharedExpertTPF, run.phase, "x_norm2",
      "sequence parallelism (SeqSel Sec. 4.2.2, g): the shared "
      "experts' own all-gather of the sequence-sharded x_norm2 "
      "(Megatron-Core SharedExpertMLP's fc1)");
  mlpForward(sharedExperts());
  reduceRowParallel(primitive::kSharedExpertTPG, "shared_expert_out");
  int64_t rowElements =
      elements({shape.localTokens, shape.hidden}, "shared_expert_out");
  emit({primitive::kSharedExpertAdd,
        run.phase,
        Engine::Vector,
        elementwiseOps(opsName(primitive::kSharedExpertAdd), rowElements,
                       opcount::kResidualAddPerElement),
        {activation("mlp_proj", rowElements),
         activation("shared_expert_out", rowElements)},
        {activation("mlp_proj", rowElements)},
        "forward of shared_expert_add: the reduced shared experts' output "
        "added to the reduced routed output"});
}

llvm::Expected<BlockWork> ForwardBuilder::finish(llvm::StringRef who) {
  for (const Invocation &invocation : work.invocations) {
    llvm::StringRef phase = stringifyEnum(invocation.phase);
    sumBytes(guard, invocation.reads,
             llvm::Twine(invocation.primitive) + " " + phase + " read bytes");
    sumBytes(guard, invocation.writes,
             llvm::Twine(invocation.primitive) + " " + phase + " write bytes");
  }
  if (guard.failed())
    return guard.error(who);
  return std::move(work);
}

void ForwardBuilder::normBackward(llvm::StringRef primitive,
                                  llvm::StringRef input, llvm::StringRef output,
                                  int64_t gradientBytes) {
  normBackwardOver(primitive, input, output, shape.hidden, gradientBytes);
}

void ForwardBuilder::normBackwardOver(llvm::StringRef primitive,
                                      llvm::StringRef input,
                                      llvm::StringRef output, int64_t width,
                                      int64_t gradientBytes) {
  auto gradient = [&](const std::string &name, int64_t count) {
    return TensorAccess{name, guard.mul(count, gradientBytes, name + " bytes")};
  };
  bool layerNorm = model.norm == NormKind::LayerNorm;
  int64_t rowElements = elements({shape.localTokens, width}, input);
  std::string gamma = (primitive + "_gamma").str();
  std::string beta = (primitive + "_beta").str();
  std::string outputGrad = ("d_" + output).str();
  std::string inputGrad = ("d_" + input).str();
  emit({primitive,
        Phase::ActivationGrad,
        Engine::Vector,
        rowwiseOps((primitive + " input-gradient ops").str(), shape.localTokens,
                   width,
                   layerNorm ? opcount::kLayerNormInputGradPerElement
                             : opcount::kRMSNormInputGradPerElement,
                   layerNorm ? opcount::kLayerNormInputGradPerRow
                             : opcount::kRMSNormInputGradPerRow),
        {activation(input, rowElements), activation(outputGrad, rowElements),
         weight(gamma, width)},
        {activation(inputGrad, rowElements)},
        "backward of " + primitive + ": gradient with respect to " + input});

  std::vector<TensorAccess> paramGrads = {gradient("d_" + gamma, width)};
  if (layerNorm)
    paramGrads.push_back(gradient("d_" + beta, width));
  std::vector<TensorAccess> reads = {activation(input, rowElements),
                                     activation(outputGrad, rowElements)};
  llvm::append_range(reads, paramGrads);
  emit({primitive, Phase::WeightGrad, Engine::Vector,
        elementwiseOps((primitive + " parameter-gradient ops").str(),
                       rowElements,
                       layerNorm ? opcount::kLayerNormParamGradPerElement
                                 : opcount::kRMSNormParamGradPerElement),
        std::move(reads), std::move(paramGrads),
        "backward of " + primitive +
            ": norm parameter gradients accumulated over this rank's rows"});
}

llvm::Error blueprint::workload::detail::checkTrainingComposes(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping, llvm::StringRef who) {
  return runError(who, checkTrainingRun(model, training, mapping));
}
