//===- Inference.cpp - Exact work of decoder inference --------------------===//
//
// The inference contract's rules (docs/Inference.md, `transformer_inference_c*`
// and `decoder_inference_c*`) and the forward-only algebra of one block on
// one TP rank. The forward is the training algebra's (ForwardBuilder.cpp);
// what inference adds is the KV cache: its writes, its reads by a decode
// step, its resident bytes (Pope et al. 2022, "Efficiently Scaling
// Transformer Inference", arXiv:2211.05102, Sec. 2) and the sum of the
// decode steps over a generation.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"
#include "ForwardBuilder.h"
#include "Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cassert>
#include <optional>

using namespace blueprint::workload;
using namespace blueprint::workload::detail;

std::vector<RuleViolation>
blueprint::workload::checkInference(const InferenceSpec &inference) {
  RuleSink sink;
  const char *positive = "transformer_inference_c1";
  sink.requirePositive(inference.batch, "batch", positive);
  sink.requirePositive(inference.promptLength, "prompt_length", positive);
  sink.requirePositive(inference.generatedTokens, "generated_tokens", positive);
  return sink.take();
}

std::vector<RuleViolation>
blueprint::workload::checkInferenceComposition(const ModelSpec &model,
                                               const InferenceSpec &inference,
                                               const MappingSpec &mapping) {
  RuleSink sink;
  // local_batch = batch / dp
  sink.requireDivides(inference.batch, "batch", mapping.dp, "dp",
                      "decoder_inference_c1");
  // blocks_per_stage = blocks / pp
  sink.requireDivides(model.blocks, "blocks", mapping.pp, "pp",
                      "decoder_inference_c2");
  requireTensorParallelSplits(
      sink, model, mapping.tp,
      {/*heads=*/"decoder_inference_c3", /*kvHeads=*/"decoder_inference_c4",
       /*hidden=*/"decoder_inference_c5", /*ffnHidden=*/"decoder_inference_c6",
       /*vocab=*/"decoder_inference_c7"});
  // Every position of the generated sequence, prompt and generated tokens,
  // needs a row of the position table (and of any positional scheme the
  // model was trained for).
  OverflowGuard guard;
  int64_t context = guard.add(inference.promptLength, inference.generatedTokens,
                              "prompt_length + generated_tokens");
  if (guard.failed())
    sink.fail("decoder_inference_c8",
              "prompt_length + generated_tokens overflows a 64-bit integer");
  else
    sink.require(context <= model.maxPositions, "decoder_inference_c8",
                 "prompt_length + generated_tokens = " +
                     llvm::Twine(inference.promptLength) + " + " +
                     llvm::Twine(inference.generatedTokens) + " = " +
                     llvm::Twine(context) + " exceeds max_positions = " +
                     llvm::Twine(model.maxPositions));
  // Inference has no backward pass: nothing to recompute for, and no
  // training schedule whose bubble interleaved model chunks would shrink.
  sink.require(mapping.recompute == RecomputePolicy::None,
               "decoder_inference_c9",
               "inference has no backward pass: recompute must be none, got " +
                   stringifyEnum(mapping.recompute));
  sink.require(mapping.virtualStages == 1, "decoder_inference_c10",
               "inference runs no interleaved pipeline schedule: "
               "virtual_stages must be 1, got " +
                   llvm::Twine(mapping.virtualStages));
  // Optimizer sharding and gradient buckets have nothing to act on without
  // a backward pass; the inference pipeline holds blocks / pp blocks per
  // stage.
  // The overlapped tensor-parallel pairs are backward GEMMs.
  sink.require(mapping.zeroStage == 0 && mapping.bucketBytes == 0 &&
                   mapping.pipelineLayout.empty() && !mapping.overlapTPComm,
               "decoder_inference_c12",
               "zero_stage, bucket_bytes, pipeline_layout and "
               "overlap_tp_comm are training fields: inference needs "
               "zero_stage = 0, bucket_bytes = 0, no pipeline_layout and no "
               "overlap_tp_comm");
  // Gradient buckets are reduced after a backward pass, which serving has
  // not.
  sink.require(!mapping.overlapDPGradReduce, "decoder_inference_c13",
               "overlap_dp_grad_reduce (mapping.overlap.dp_grad_reduce) is a "
               "training option: inference has no gradient reduction");
  // A decode step has one position per sequence, which sequence parallelism
  // cannot split across the TP ranks; at tp = 1 there are no collectives and
  // the two modes are the same work.
  sink.require(mapping.tp == 1 || mapping.tpComm == TPCommMode::AllReduce,
               "decoder_inference_c11",
               "tp_comm = " + stringifyEnum(mapping.tpComm) +
                   " with tp = " + llvm::Twine(mapping.tp) +
                   ": a decode step's single position per sequence cannot be "
                   "split by sequence parallelism; inference needs "
                   "all_reduce");
  // A decode step's one position per sequence cannot be split over the
  // sequence either; context-parallel prefill (with a KV cache sharded over
  // cp) is not modelled.
  sink.require(mapping.cp == 1, "context_parallel_c4",
               "cp = " + llvm::Twine(mapping.cp) +
                   ": inference runs without context parallelism (a decode "
                   "step's single position per sequence cannot be split); "
                   "cp must be 1");
  requireExpertParallelSplits(sink, model, mapping);
  // Serving splits the experts too, but its decode steps route k b pairs
  // through all-to-alls whose messages are not derived; refused here, before
  // checkDerivedBlocks, so that a serving run never reads the training rule.
  if (model.moe)
    sink.require(mapping.ep == 1, "expert_parallel_c6",
                 "ep = " + llvm::Twine(mapping.ep) +
                     ": serving with expert parallelism (the prefill's and "
                     "each decode step's token all-to-alls over the ep axis) "
                     "is not derived; inference needs ep = 1");
  return sink.take();
}

RunViolations
blueprint::workload::checkInferenceRun(const ModelSpec &model,
                                       const InferenceSpec &inference,
                                       const MappingSpec &mapping) {
  return checkRun(model, checkInference(inference), mapping, [&] {
    return checkInferenceComposition(model, inference, mapping);
  });
}

std::optional<InferenceComposition>
blueprint::workload::composeInference(const ModelSpec &model,
                                      const InferenceSpec &inference,
                                      const MappingSpec &mapping) {
  if (!checkInferenceRun(model, inference, mapping).empty())
    return std::nullopt;
  InferenceComposition composition;
  composition.localBatch = inference.batch / mapping.dp;
  composition.blocksPerStage = model.blocks / mapping.pp;
  return composition;
}

static llvm::Error checkComposes(const ModelSpec &model,
                                 const InferenceSpec &inference,
                                 const MappingSpec &mapping,
                                 llvm::StringRef who) {
  return runError(who, checkInferenceRun(model, inference, mapping));
}

/// Success when the contracts compose and a decode step at `contextLength`
/// exists: its new position L-1 has a row in the position table.
static llvm::Error checkDecodeStep(const ModelSpec &model,
                                   const InferenceSpec &inference,
                                   const MappingSpec &mapping,
                                   int64_t contextLength, llvm::StringRef who) {
  if (llvm::Error error = checkComposes(model, inference, mapping, who))
    return error;
  if (contextLength >= 1 && contextLength <= model.maxPositions)
    return llvm::Error::success();
  return makeError(who + ": context length " + llvm::Twine(contextLength) +
                   " must be in [1, max_positions = " +
                   llvm::Twine(model.maxPositions) + "]");
}

/// Bytes of the cached keys (or values) of `positions` positions of `batch`
/// sequences on one TP rank: batch x positions x (kv_heads/tp) x head_dim x
/// kv bytes. The KV cache of a layer is 2 x batch x context x heads x
/// head_dim elements (Pope et al. 2022, Sec. 2), split by TP over the
/// key/value heads; grouped-query attention caches only kv_heads.
static int64_t cachedBytes(OverflowGuard &guard, int64_t batch,
                           int64_t positions, int64_t kvColumns,
                           DataType kvCacheType, llvm::StringRef what) {
  return guard.product({batch, positions, kvColumns, bytesOf(kvCacheType)},
                       what);
}

namespace {

/// Builds the prefill or one decode step of one block on one TP rank: the
/// shared forward of b = batch/dp sequences without dropout and without a
/// stash, and the KV cache.
class InferenceBuilder : ForwardBuilder {
public:
  /// `queries` new positions per sequence attending to `keys` positions:
  /// the prompt against itself (prefill), one against the context (decode).
  InferenceBuilder(const ModelSpec &model, const InferenceSpec &inference,
                   const MappingSpec &mapping, Phase phase, int64_t queries,
                   int64_t keys)
      : ForwardBuilder(model, mapping,
                       inferenceRun(inference, mapping, phase, queries, keys)),
        kvCacheType(inference.kvCacheType) {}

  llvm::Expected<BlockWork> build();

private:
  static ForwardRun inferenceRun(const InferenceSpec &inference,
                                 const MappingSpec &mapping, Phase phase,
                                 int64_t queries, int64_t keys) {
    ForwardRun run;
    run.phase = phase;
    run.batch = inference.batch / mapping.dp;
    run.queries = queries;
    run.keys = keys;
    // The prompt's positions attend causally to each other; a decode step's
    // single position attends to all of the context.
    run.causalMask = phase == Phase::Prefill;
    run.activationType = inference.activationType;
    run.weightType = inference.weightType;
    run.attentionDropout = false;
    run.hiddenDropout = false;
    run.stashFor = std::nullopt;
    return run;
  }

  /// `columns` cached values of `positions` positions per sequence.
  TensorAccess cachedOver(llvm::StringRef name, int64_t positions,
                          int64_t columns) {
    return {name.str(), cachedBytes(guard, shape.batch, positions, columns,
                                    kvCacheType, (name + " bytes").str())};
  }

  void kvCacheWrite();
  /// Multi-head latent attention's cache write: the normed latent and the
  /// rotated shared key of the new positions into the compressed cache.
  void latentCacheWrite();
  /// Multi-head latent attention's absorbed attention (DeepSeek-V2
  /// Sec. 2.1.2, App. C; vLLM and SGLang decode): W_UK absorbed into the
  /// query, the scores against the cached latent and rotary key, the
  /// context over the latent, W_UV applied after.
  void absorbedAttention();

  DataType kvCacheType;
  KVCacheLayout cache = kvCacheLayout(model, shape);
};

} // namespace

/// The keys and values qkv_proj produced for the run's new positions are
/// stored into the KV cache: the prompt's positions in the prefill, one
/// position per decode step. Under a sliding window the cache is a rolling
/// buffer of the window's positions (Mistral 7B, Sec. 2), so the prefill
/// stores only the prompt's last window of them. The store moves data and
/// converts it to kv_cache_type, which counts no operation (opcount
/// conventions).
void InferenceBuilder::kvCacheWrite() {
  int64_t stored = model.attendedKeys(shape.queries);
  int64_t storedElements =
      elements({shape.batch, stored, shape.kvCols}, "stored keys");
  emit({primitive::kKVCacheWrite,
        run.phase,
        Engine::Vector,
        0,
        {activation("k", storedElements), activation("v", storedElements)},
        {cachedOver("k_cache", stored, cache.columns),
         cachedOver("v_cache", stored, cache.columns)},
        "append the keys and values of this rank's key/value heads for the "
        "new positions to the KV cache, stored at " +
            stringifyEnum(kvCacheType)});
}

void InferenceBuilder::latentCacheWrite() {
  int64_t stored = model.attendedKeys(shape.queries);
  int64_t kvRank = *model.kvLoraRank;
  emit({primitive::kKVCacheWrite,
        run.phase,
        Engine::Vector,
        0,
        {activation("kv_latent_norm",
                    elements({shape.batch, stored, kvRank}, "kv_latent_norm")),
         activation("k_rope", elements({shape.batch, stored, shape.rotaryDim},
                                       "k_rope"))},
        {cachedOver("kv_cache", stored, cache.columns)},
        "append the normed key/value latent and the rotated shared key of "
        "the new positions to the compressed KV cache (every TP rank holds "
        "it whole), stored at " +
            stringifyEnum(kvCacheType)});
}

void InferenceBuilder::absorbedAttention() {
  int64_t kvRank = *model.kvLoraRank;
  int64_t latentQueryCols =
      guard.mul(shape.heads, kvRank, "absorbed query columns");
  int64_t nopeCols = latentKeyCols();
  // q_nope (d_n per head) times each head's W_UK (d_n x r_kv).
  emit({primitive::kQAbsorb,
        run.phase,
        Engine::Matmul,
        // Per head: q_nope[tokens, d_n] W_UK[d_n, r_kv].
        gemm(opsName(primitive::kQAbsorb),
             {shape.heads, shape.tokens, kvRank, *model.qkNopeHeadDim}),
        {activation("q_nope", elements({shape.tokens, nopeCols}, "q_nope")),
         weight("w_kv_b", elements({nopeCols, kvRank}, "w_uk"))},
        {activation("q_latent_heads",
                    elements({shape.tokens, latentQueryCols}, "q_latent"))},
        "forward of q_absorb: each head's non-rotary query times its W_UK "
        "(the key half of kv_b_proj), a query against the cached latent"});

  AttentionOperands operands;
  operands.queries = {
      activation("q_latent_heads",
                 elements({shape.tokens, latentQueryCols}, "q_latent")),
      rotated("").front()};
  operands.keys = {
      cachedOver("kv_cache", shape.attendedKeys, cache.scoreReadCols)};
  operands.values =
      cachedOver("kv_cache", shape.attendedKeys, cache.contextReadCols);
  operands.scoreWidth = cache.scoreReadCols;
  operands.valueWidth = cache.contextReadCols;
  operands.context =
      activation("context_latent",
                 elements({shape.tokens, latentQueryCols}, "context_latent"));
  operands.scoreCause =
      "forward of qk_matmul: absorbed scores of this rank's heads against "
      "the compressed cache, kv_lora_rank + qk_rope_head_dim per key";
  attentionCoreOf(std::move(operands));

  // The latent context of each head times its W_UV (r_kv x d_v).
  int64_t valueWeights = guard.mul(kvRank, shape.valueCols, "w_uv");
  emit({primitive::kVAbsorb,
        run.phase,
        Engine::Matmul,
        // Per head: context_latent[tokens, r_kv] W_UV[r_kv, d_v].
        gemm(opsName(primitive::kVAbsorb),
             {shape.heads, shape.tokens, shape.valueHeadDim, kvRank}),
        {activation("context_latent", elements({shape.tokens, latentQueryCols},
                                               "context_latent")),
         weight("w_kv_b", valueWeights)},
        {activation("context",
                    elements({shape.tokens, shape.contextCols}, "context"))},
        "forward of v_absorb: each head's latent context times its W_UV "
        "(the value half of kv_b_proj)"});
}

llvm::Expected<BlockWork> InferenceBuilder::build() {
  bool decode = run.phase == Phase::Decode;
  work.cadence = decode ? Cadence::PerDecodeStep : Cadence::PerGeneration;
  if (model.hasLatentAttention()) {
    // The prefill up-projects every prompt position's keys and values and
    // attends as training does; a decode step attends to the compressed
    // cache in the absorbed form (docs/Inference.md).
    latentAttentionInput(/*upProjectKeys=*/!decode);
    latentCacheWrite();
    if (decode)
      absorbedAttention();
    else {
      std::vector<TensorAccess> keys = newKeys("");
      TensorAccess values = newValues("v");
      attentionCore(std::move(keys), std::move(values));
    }
    attentionOutput();
    forwardMlp();
    return finish(decode ? "deriveInferenceDecodeStep"
                         : "deriveInferencePrefill");
  }
  attentionInput();
  kvCacheWrite();
  // The prefill attends to the prompt's fresh keys and values; a decode step
  // reads every cached position, the one it just appended included: the
  // whole context, or under a sliding window the window's positions.
  TensorAccess keys =
      decode ? cachedOver("k_cache", shape.attendedKeys, cache.scoreReadCols)
             : newKeysOrValues("k");
  TensorAccess values =
      decode ? cachedOver("v_cache", shape.attendedKeys, cache.contextReadCols)
             : newKeysOrValues("v");
  attentionCore({std::move(keys)}, std::move(values));
  attentionOutput();
  forwardMlp();
  return finish(decode ? "deriveInferenceDecodeStep"
                       : "deriveInferencePrefill");
}

llvm::Expected<BlockWork>
blueprint::workload::deriveInferencePrefill(const ModelSpec &model,
                                            const InferenceSpec &inference,
                                            const MappingSpec &mapping) {
  if (llvm::Error error =
          checkComposes(model, inference, mapping, "deriveInferencePrefill"))
    return error;
  return InferenceBuilder(model, inference, mapping, Phase::Prefill,
                          /*queries=*/inference.promptLength,
                          /*keys=*/inference.promptLength)
      .build();
}

llvm::Expected<BlockWork> blueprint::workload::deriveInferenceDecodeStep(
    const ModelSpec &model, const InferenceSpec &inference,
    const MappingSpec &mapping, int64_t contextLength) {
  if (llvm::Error error =
          checkDecodeStep(model, inference, mapping, contextLength,
                          "deriveInferenceDecodeStep"))
    return error;
  return InferenceBuilder(model, inference, mapping, Phase::Decode,
                          /*queries=*/1, /*keys=*/contextLength)
      .build();
}

llvm::Expected<int64_t> blueprint::workload::kvCacheBytesPerRank(
    const ModelSpec &model, const InferenceSpec &inference,
    const MappingSpec &mapping, int64_t contextLength) {
  if (llvm::Error error = checkDecodeStep(model, inference, mapping,
                                          contextLength, "kvCacheBytesPerRank"))
    return error;
  OverflowGuard guard;
  KVCacheLayout cache =
      kvCacheLayout(model, makeRankColumns(model, mapping.tp, guard));
  int64_t tensorBytes = cachedBytes(
      guard, inference.batch / mapping.dp, model.attendedKeys(contextLength),
      cache.columns, inference.kvCacheType, "KV-cache bytes");
  int64_t bytes = guard.mul(static_cast<int64_t>(cache.tensors.size()),
                            tensorBytes, "KV-cache bytes");
  if (guard.failed())
    return guard.error("kvCacheBytesPerRank");
  return bytes;
}

/// KV-cache bytes one decode step at context length L reads on one TP rank:
/// what its scores and context kernels read of the cache (kvCacheLayout),
/// b x min(L, w) x (scoreReadCols + contextReadCols) x bytes of
/// kv_cache_type. The resident cache under multi-head attention; under
/// multi-head latent attention the latent is read twice (docs/Inference.md).
static llvm::Expected<int64_t>
decodeStepCacheReadBytes(const ModelSpec &model, const InferenceSpec &inference,
                         const MappingSpec &mapping, int64_t contextLength) {
  if (llvm::Error error = checkDecodeStep(
          model, inference, mapping, contextLength, "decodeStepCacheReadBytes"))
    return error;
  OverflowGuard guard;
  KVCacheLayout cache =
      kvCacheLayout(model, makeRankColumns(model, mapping.tp, guard));
  int64_t readCols = guard.add(cache.scoreReadCols, cache.contextReadCols,
                               "KV-cache read columns");
  int64_t bytes = cachedBytes(guard, inference.batch / mapping.dp,
                              model.attendedKeys(contextLength), readCols,
                              inference.kvCacheType, "KV-cache read bytes");
  if (guard.failed())
    return guard.error("decodeStepCacheReadBytes");
  return bytes;
}

llvm::Expected<int64_t>
blueprint::workload::weightBytesPerRank(const ModelSpec &model,
                                        const InferenceSpec &inference,
                                        const MappingSpec &mapping) {
  if (llvm::Error error =
          checkComposes(model, inference, mapping, "weightBytesPerRank"))
    return error;
  llvm::Expected<int64_t> parameters = blockParametersPerRank(model, mapping);
  if (!parameters)
    return parameters.takeError();
  OverflowGuard guard;
  // DeepSeek-V3's router also reads its score-correction bias, a buffer
  // every rank holds whole at the weight datatype.
  int64_t held = guard.add(
      *parameters, blockBufferElements(model, representativeBlockKind(model)),
      "weights and buffers");
  int64_t bytes =
      guard.mul(held, bytesOf(inference.weightType), "weight bytes");
  if (guard.failed())
    return guard.error("weightBytesPerRank");
  return bytes;
}

llvm::Expected<int64_t> blueprint::workload::weightReadBytesPerRank(
    const ModelSpec &model, const InferenceSpec &inference,
    const MappingSpec &mapping, int64_t queries) {
  llvm::Expected<int64_t> resident =
      weightBytesPerRank(model, inference, mapping);
  if (!resident || !model.moe)
    return resident;
  OverflowGuard guard;
  int64_t tokens =
      guard.mul(inference.batch / mapping.dp, queries, "routed tokens");
  // Serving runs without sequence parallelism (decoder_inference_c11): one
  // router call over every token.
  ExpertRouting routing =
      balancedRouting(*model.moe, tokens, /*routerCalls=*/1, guard);
  RankColumns columns = makeRankColumns(model, mapping.tp, guard);
  int64_t perExpert = expertParametersPerRank(model, columns, guard);
  int64_t idleParameters = guard.mul(model.moe->experts - routing.activeExperts,
                                     perExpert, "idle expert parameters");
  int64_t idleBytes = guard.mul(idleParameters, bytesOf(inference.weightType),
                                "idle expert weight bytes");
  if (guard.failed())
    return guard.error("weightReadBytesPerRank");
  return *resident - idleBytes;
}

namespace {

/// The sum of an arithmetic progression of `terms` integers from `first` to
/// `last`: terms x (first + last) / 2. Exact in integers: when terms is odd,
/// first + last = 2 first + (terms - 1) x difference is even. Dividing before
/// multiplying keeps every intermediate within the result's range.
int64_t arithmeticSeries(OverflowGuard &guard, int64_t first, int64_t last,
                         int64_t terms, llvm::StringRef what) {
  if (terms == 0)
    return 0;
  if (terms == 1)
    return first;
  int64_t ends = guard.add(first, last, what);
  if (terms % 2 == 0)
    return guard.mul(terms / 2, ends, what);
  assert(ends % 2 == 0 && "an odd-length integer progression has even ends");
  return guard.mul(terms, ends / 2, what);
}

/// Applies `combine(a.field, b.field, fieldName)` to every field of two
/// totals.
template <typename Combine>
WorkTotals combineTotals(const WorkTotals &a, const WorkTotals &b,
                         Combine combine) {
  WorkTotals result;
  result.invocations =
      combine(a.invocations, b.invocations, "invocation count");
  result.ops = combine(a.ops, b.ops, "ops");
  result.readBytes = combine(a.readBytes, b.readBytes, "read bytes");
  result.writeBytes = combine(a.writeBytes, b.writeBytes, "write bytes");
  result.messageBytes =
      combine(a.messageBytes, b.messageBytes, "message bytes");
  result.minimumTransferBytes =
      combine(a.minimumTransferBytes, b.minimumTransferBytes, "transfer bytes");
  result.stashBytes = combine(a.stashBytes, b.stashBytes, "stash bytes");
  return result;
}

/// The sum over `terms` decode steps of totals that are affine in the
/// context length, from the totals of the first and the last step.
WorkTotals seriesTotals(OverflowGuard &guard, const WorkTotals &first,
                        const WorkTotals &last, int64_t terms,
                        llvm::StringRef scope) {
  return combineTotals(first, last,
                       [&](int64_t a, int64_t b, llvm::StringRef field) {
                         return arithmeticSeries(guard, a, b, terms,
                                                 (scope + " " + field).str());
                       });
}

llvm::Expected<WorkSummary> summarizeDecodeStep(const ModelSpec &model,
                                                const InferenceSpec &inference,
                                                const MappingSpec &mapping,
                                                int64_t contextLength) {
  llvm::Expected<BlockWork> step =
      deriveInferenceDecodeStep(model, inference, mapping, contextLength);
  if (!step)
    return step.takeError();
  return summarize(*step);
}

} // namespace

llvm::Expected<int64_t>
blueprint::workload::kvCacheWriteBytesOf(const BlockWork &work) {
  OverflowGuard guard;
  int64_t written = 0;
  for (const Invocation &invocation : work.invocations)
    if (invocation.primitive == primitive::kKVCacheWrite)
      for (const TensorAccess &write : invocation.writes)
        written = guard.add(written, write.bytes, "KV-cache write bytes");
  if (guard.failed())
    return guard.error("kvCacheWriteBytesOf");
  return written;
}

llvm::Expected<GenerationWork>
blueprint::workload::deriveInferenceGeneration(const ModelSpec &model,
                                               const InferenceSpec &inference,
                                               const MappingSpec &mapping) {
  if (llvm::Error error =
          checkComposes(model, inference, mapping, "deriveInferenceGeneration"))
    return error;
  GenerationWork generation;
  // prompt_length + generated_tokens <= max_positions (decoder_inference_c8),
  // so none of these overflows.
  generation.decodeSteps = inference.generatedTokens - 1;
  generation.firstContext = inference.promptLength + 1;
  generation.lastContext = inference.promptLength + generation.decodeSteps;

  llvm::Expected<BlockWork> prefill =
      deriveInferencePrefill(model, inference, mapping);
  if (!prefill)
    return prefill.takeError();
  llvm::Expected<WorkSummary> prefillSummary = summarize(*prefill);
  if (!prefillSummary)
    return prefillSummary.takeError();
  generation.prefill = *prefillSummary;

  OverflowGuard guard;
  int64_t steps = generation.decodeSteps;
  if (steps > 0) {
    // A step at context L attends to min(L, window) cached positions: its
    // totals grow affinely with L up to the window and stay at the window's
    // afterwards. So the sum is an arithmetic series over the growing steps
    // plus the saturated step times the steps beyond the window.
    int64_t growingLast =
        std::min(generation.lastContext,
                 model.attentionWindow.value_or(generation.lastContext));
    int64_t growingSteps = growingLast >= generation.firstContext
                               ? growingLast - generation.firstContext + 1
                               : 0;
    int64_t saturatedSteps = steps - growingSteps;
    llvm::Expected<WorkSummary> first =
        summarizeDecodeStep(model, inference, mapping, generation.firstContext);
    if (!first)
      return first.takeError();
    llvm::Expected<WorkSummary> last =
        summarizeDecodeStep(model, inference, mapping, generation.lastContext);
    if (!last)
      return last.takeError();
    // The growing series ends at the last step unless the window saturates
    // before it.
    std::optional<WorkSummary> windowEnd;
    if (growingSteps > 0 && growingLast != generation.lastContext) {
      llvm::Expected<WorkSummary> atWindow =
          summarizeDecodeStep(model, inference, mapping, growingLast);
      if (!atWindow)
        return atWindow.takeError();
      windowEnd = std::move(*atWindow);
    }
    const WorkSummary &growingEnd = windowEnd ? *windowEnd : *last;
    auto decodeSum = [&](const WorkTotals &growingFirstTotals,
                         const WorkTotals &growingLastTotals,
                         const WorkTotals &saturatedTotals,
                         llvm::StringRef scope) {
      WorkTotals growing = seriesTotals(guard, growingFirstTotals,
                                        growingLastTotals, growingSteps, scope);
      return combineTotals(
          growing, saturatedTotals,
          [&](int64_t growingSum, int64_t saturated, llvm::StringRef field) {
            std::string what = (scope + " " + field).str();
            int64_t beyondWindow = guard.mul(saturated, saturatedSteps, what);
            return guard.add(growingSum, beyondWindow, what);
          });
    };
    for (size_t index = 0; index < kNumEngines; ++index) {
      auto engine = static_cast<Engine>(index);
      generation.decodeByEngine[index] =
          decodeSum(first->of(engine), growingEnd.of(engine), last->of(engine),
                    ("decode " + stringifyEnum(engine)).str());
    }
    generation.decode = decodeSum(first->total(), growingEnd.total(),
                                  last->total(), "decode total");

    llvm::Expected<int64_t> firstCache = decodeStepCacheReadBytes(
        model, inference, mapping, generation.firstContext);
    if (!firstCache)
      return firstCache.takeError();
    llvm::Expected<int64_t> windowCache =
        decodeStepCacheReadBytes(model, inference, mapping, growingLast);
    if (!windowCache)
      return windowCache.takeError();
    llvm::Expected<int64_t> lastCache = decodeStepCacheReadBytes(
        model, inference, mapping, generation.lastContext);
    if (!lastCache)
      return lastCache.takeError();
    int64_t growingReads =
        arithmeticSeries(guard, *firstCache, *windowCache, growingSteps,
                         "decode KV-cache read bytes");
    int64_t saturatedReads =
        guard.mul(*lastCache, saturatedSteps, "decode KV-cache read bytes");
    generation.kvCacheReadBytes =
        guard.add(growingReads, saturatedReads, "decode KV-cache read bytes");
  }
  generation.total = combineTotals(
      generation.prefill.total(), generation.decode,
      [&](int64_t a, int64_t b, llvm::StringRef field) {
        return guard.add(a, b, ("generation total " + field).str());
      });

  llvm::Expected<int64_t> prefillWeights =
      weightReadBytesPerRank(model, inference, mapping, inference.promptLength);
  if (!prefillWeights)
    return prefillWeights.takeError();
  llvm::Expected<int64_t> stepWeights =
      weightReadBytesPerRank(model, inference, mapping, /*queries=*/1);
  if (!stepWeights)
    return stepWeights.takeError();
  int64_t decodeWeights =
      guard.mul(steps, *stepWeights, "generation weight read bytes");
  generation.weightReadBytes =
      guard.add(*prefillWeights, decodeWeights, "generation weight read bytes");
  llvm::Expected<int64_t> finalCache =
      kvCacheBytesPerRank(model, inference, mapping, generation.lastContext);
  if (!finalCache)
    return finalCache.takeError();
  generation.finalKvCacheBytes = *finalCache;
  // Each decode step writes one position: a cache of context 1.
  llvm::Expected<int64_t> prefillWrites = kvCacheWriteBytesOf(*prefill);
  if (!prefillWrites)
    return prefillWrites.takeError();
  llvm::Expected<int64_t> positionBytes =
      kvCacheBytesPerRank(model, inference, mapping, 1);
  if (!positionBytes)
    return positionBytes.takeError();
  int64_t decodeWrites =
      guard.mul(steps, *positionBytes, "generation KV-cache write bytes");
  generation.kvCacheWriteBytes = guard.add(*prefillWrites, decodeWrites,
                                           "generation KV-cache write bytes");

  if (guard.failed())
    return guard.error("deriveInferenceGeneration");
  return generation;
}
