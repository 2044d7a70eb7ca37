//===- Inference.h - Exact work of decoder inference ------------*- C++ -*-===//
//
// The inference workload contract (batch, prompt length, tokens generated,
// datatypes), its composition rules with the model and the mapping, and the
// forward-only work algebra of one decoder block on one tensor-parallel rank:
// the prefill of the whole prompt, one decode step at a given context length
// with its KV-cache reads and writes, the KV-cache and weight bytes a rank
// holds, and the whole generation summed over its decode steps in closed
// form. The invocations are those of the training algebra (BlockWork.h):
// same types, primitive ids, tensor names and formulas, plus the KV cache.
// Every count is an exact int64_t computed through OverflowGuard; an overflow
// is an llvm::Error naming the quantity. docs/Inference.md tabulates the
// formulas and their provenance.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_INFERENCE_H
#define BLUEPRINT_WORKLOAD_INFERENCE_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace blueprint::workload {

namespace opcount {
/// The causal-mask select counted in kSoftmaxForwardPerElement, per score
/// element (the mask is generated from indices; nothing is read).
inline constexpr int64_t kCausalMaskPerElement = 1;
/// Scale and softmax forward without a mask, per score element: scale 1,
/// running max 1, subtract max 1, exp 1, sum 1, normalise 1. A decode step's
/// one query sees every cached position, so it has no mask to apply.
inline constexpr int64_t kUnmaskedSoftmaxForwardPerElement =
    kSoftmaxForwardPerElement - kCausalMaskPerElement;
} // namespace opcount

/// The inference workload: `batch` prompts of `promptLength` tokens each,
/// from which `generatedTokens` tokens per sequence are generated.
struct InferenceSpec {
  int64_t batch = 0;
  int64_t promptLength = 0;
  int64_t generatedTokens = 0;
  DataType activationType = DataType::BF16;
  DataType weightType = DataType::BF16;
  /// Element type of the cached keys and values (e.g. fp8 for a quantized
  /// cache); conversion to it is part of the store.
  DataType kvCacheType = DataType::BF16;
};

/// The integral quantities a valid inference composition defines.
struct InferenceComposition {
  int64_t localBatch = 0;     // batch / dp: sequences per data-parallel rank
  int64_t blocksPerStage = 0; // blocks / pp
};

/// Rules that involve only the inference contract
/// (`transformer_inference_c*`, docs/Inference.md).
std::vector<RuleViolation> checkInference(const InferenceSpec &inference);

/// Rules that compose the model, inference and mapping contracts
/// (`decoder_inference_c*`); assumes each contract passed its own rules.
std::vector<RuleViolation>
checkInferenceComposition(const ModelSpec &model,
                          const InferenceSpec &inference,
                          const MappingSpec &mapping);

/// checkRun for an inference run (checkInference,
/// checkInferenceComposition).
RunViolations checkInferenceRun(const ModelSpec &model,
                                const InferenceSpec &inference,
                                const MappingSpec &mapping);

/// The composition's integral quantities, or std::nullopt if any rule of
/// checkInferenceRun fails.
std::optional<InferenceComposition>
composeInference(const ModelSpec &model, const InferenceSpec &inference,
                 const MappingSpec &mapping);

/// The prefill of one block on one TP rank (phase prefill,
/// Cadence::PerGeneration): the forward of b = batch/dp whole prompts of
/// s = prompt_length positions with causal attention over the fresh keys and
/// values, and the write of those keys and values into the KV cache
/// (`kv_cache_write`). Nothing is stashed. Fails if the contracts do not
/// compose (composeInference) or a count overflows int64_t.
llvm::Expected<BlockWork> deriveInferencePrefill(const ModelSpec &model,
                                                 const InferenceSpec &inference,
                                                 const MappingSpec &mapping);

/// One decode step of one block on one TP rank at context length L (phase
/// decode, Cadence::PerDecodeStep): one new position per sequence, at
/// position L-1; its keys and values are appended to the cache
/// (`kv_cache_write`, one position), then it attends to all L cached
/// positions (min(L, w) under a sliding window of w keys, whose cache is a
/// rolling buffer of the window): its scores read the cached keys and its
/// context the cached values, or under multi-head latent attention the
/// whole compressed cache and then its latent part again (absorbed form,
/// docs/Inference.md). Every weight is read once. Fails if the contracts do not
/// compose, unless 1 <= L <= max_positions, or if a count overflows.
llvm::Expected<BlockWork>
deriveInferenceDecodeStep(const ModelSpec &model,
                          const InferenceSpec &inference,
                          const MappingSpec &mapping, int64_t contextLength);

/// KV-cache bytes of one block resident on one TP rank at context length L:
/// 2 (keys and values) x b x min(L, w) x (kv_heads/tp) x head_dim x bytes of
/// kv_cache_type, with b = batch/dp and w the attention window (L without
/// one); under multi-head latent attention one compressed cache of
/// b x min(L, w) x (kv_lora_rank + qk_rope_head_dim) x bytes, whole on every
/// TP rank. Same preconditions as deriveInferenceDecodeStep.
llvm::Expected<int64_t> kvCacheBytesPerRank(const ModelSpec &model,
                                            const InferenceSpec &inference,
                                            const MappingSpec &mapping,
                                            int64_t contextLength);

/// Bytes of one block's parameters held by one TP rank
/// (blockParametersPerRank x bytes of weight_type), with the E-element
/// score-correction bias of a sigmoid_group_limited router: what the
/// prefill and every decode step read of a dense block.
llvm::Expected<int64_t> weightBytesPerRank(const ModelSpec &model,
                                           const InferenceSpec &inference,
                                           const MappingSpec &mapping);

/// Weight bytes one TP rank reads in a forward of `queries` positions of
/// each of its b = batch/dp sequences (prompt_length for the prefill, 1 for
/// a decode step): weightBytesPerRank, less under mixture-of-experts the
/// slices of the E - min(E, k x b x queries) experts no pair is routed to
/// (balancedRouting), which is what the step's expert invocations read.
/// Same preconditions as weightBytesPerRank.
llvm::Expected<int64_t> weightReadBytesPerRank(const ModelSpec &model,
                                               const InferenceSpec &inference,
                                               const MappingSpec &mapping,
                                               int64_t queries);

/// The whole generation of one block on one TP rank: the prefill once, and
/// the sum over every decode step, in closed form. The prefill's last
/// position yields the first generated token; each further token takes one
/// decode step that feeds the token before it; the last token is never fed
/// back. So there are generated_tokens - 1 decode steps, at context lengths
/// L = prompt_length + 1, ..., prompt_length + generated_tokens - 1.
struct GenerationWork {
  int64_t decodeSteps = 0;
  /// Context lengths of the first and last decode step (firstContext >
  /// lastContext when there is no decode step).
  int64_t firstContext = 0;
  int64_t lastContext = 0;
  /// Totals of deriveInferencePrefill (phase prefill).
  WorkSummary prefill;
  /// Sum over the decode steps of deriveInferenceDecodeStep's totals, by
  /// engine and overall (phase decode).
  std::array<WorkTotals, kNumEngines> decodeByEngine{};
  WorkTotals decode;
  /// prefill.total() + decode.
  WorkTotals total;
  /// Weight bytes read: what the prefill and each decode step read,
  /// weightReadBytesPerRank at prompt_length plus decodeSteps times it at 1
  /// query; (decodeSteps + 1) x weightBytesPerRank for a dense block, every
  /// weight once per forward.
  int64_t weightReadBytes = 0;
  /// KV-cache bytes read by the decode steps: what their invocations read of
  /// the cache, summed over their context lengths (the prefill attends to
  /// the fresh keys and values, not to the cache). The sum of
  /// kvCacheBytesPerRank under multi-head attention; under multi-head latent
  /// attention b x min(L, w) x (2 kv_lora_rank + qk_rope_head_dim) x bytes
  /// per step, the latent read by the scores and again by the context
  /// (unfused; a fused kernel reads it once, docs/Inference.md).
  int64_t kvCacheReadBytes = 0;
  /// KV-cache bytes written: the prefill's (the prompt's positions, its last
  /// window of them under a sliding window) and one position per decode
  /// step. Without a window, equal to finalKvCacheBytes.
  int64_t kvCacheWriteBytes = 0;
  /// KV-cache bytes resident when the generation ends, its peak: every
  /// position the prefill and the decode steps wrote, prompt_length +
  /// decodeSteps of them, or the window's positions under a sliding window.
  int64_t finalKvCacheBytes = 0;

  const WorkTotals &decodeOf(Engine engine) const {
    return decodeByEngine[static_cast<size_t>(engine)];
  }
};

/// Bytes the `kv_cache_write` invocations of `work` write.
llvm::Expected<int64_t> kvCacheWriteBytesOf(const BlockWork &work);

/// The generation's totals. Every decode-step total is affine in the
/// attended positions min(L, w) (only the attention core depends on L,
/// linearly), so its sum over the steps is an arithmetic series over the
/// steps up to the window, computed exactly as steps x (first + last) / 2
/// from its first and last step, plus the window's step times the steps
/// beyond it; no loop over tokens.
llvm::Expected<GenerationWork>
deriveInferenceGeneration(const ModelSpec &model,
                          const InferenceSpec &inference,
                          const MappingSpec &mapping);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_INFERENCE_H
