//===- EdgeWork.h - Exact work of the model's edges -------------*- C++ -*-===//
//
// The work algebra of what lies outside the decoder blocks of Megatron-LM's
// GPT model on one tensor-parallel rank: the vocabulary-parallel word
// embedding, the learned absolute position embedding (none under rotary
// embeddings) and the embedding dropout of the first pipeline stage; the
// final norm, the LM head (the tied word embedding or the untied output
// layer) and the vocabulary-parallel cross-entropy loss of the last stage; and
// the once-per-iteration optimizer step over the edge parameters. Invocations,
// tensor accesses, collective facts and conventions are the block's
// (BlockWork.h); every count is an exact int64_t computed through
// OverflowGuard, and an overflow is an llvm::Error naming the quantity.
// docs/WorkAlgebra.md ("Model edges") tabulates the invocations, their formulas
// and their provenance.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_EDGEWORK_H
#define BLUEPRINT_WORKLOAD_EDGEWORK_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace blueprint::workload {

/// Declared operation counts of the edges' Vector primitives, derived like
/// the block's (BlockWork.h): one operation per elementwise add, subtract,
/// multiply, divide, compare, select, logical or, exp or log; a gather
/// (looking up rows by index) is a load and counts 0; dtype conversions
/// count 0.
namespace opcount {
/// Vocabulary-parallel lookup (Megatron VocabParallelEmbedding, tp > 1
/// only; at tp = 1 it indexes directly), per token: compare with the range
/// start 1, compare with the range end 1, or 1, subtract the start 1,
/// select index 0 for an out-of-range token 1.
inline constexpr int64_t kVocabRangeMaskPerToken = 5;
/// Zeroing the looked-up rows of out-of-range tokens (tp > 1), per element:
/// select 1.
inline constexpr int64_t kVocabRangeMaskPerElement = 1;
/// Backward of that zeroing (tp > 1), per element: select 1.
inline constexpr int64_t kVocabRangeMaskGradPerElement = 1;
/// Embedding weight gradient, a scatter-add of one output-gradient row per
/// token into the table's gradient, per element: accumulate 1.
inline constexpr int64_t kEmbeddingGradPerElement = 1;
/// Position-embedding add, per element: add 1.
inline constexpr int64_t kEmbeddingAddPerElement = 1;
/// Vocabulary-parallel cross-entropy (Megatron _VocabParallelCrossEntropy),
/// local maximum of each token's logits, per logit: running max 1.
inline constexpr int64_t kCrossEntropyMaxPerElement = 1;
/// Per logit: subtract the global max 1, exp 1, sum 1.
inline constexpr int64_t kCrossEntropyExpPerElement = 3;
/// Per token, the target pick: range mask (compare 2, or 1, subtract the
/// start 1, select 1) 5, zero the picked logit of an out-of-range target 1;
/// the pick itself is a load.
inline constexpr int64_t kCrossEntropyTargetPerToken = 6;
/// Per token: loss = log(sum_exp) 1 - target logit 1.
inline constexpr int64_t kCrossEntropyLossPerToken = 2;
/// Per logit: softmax normalisation exp / sum_exp 1 (kept for backward).
inline constexpr int64_t kCrossEntropySoftmaxPerElement = 1;
/// Backward, per logit: multiply by the token's loss gradient 1.
inline constexpr int64_t kCrossEntropyGradPerElement = 1;
/// Backward, per token: 1 - target mask 1, subtract it at the target 1
/// (softmax - one-hot).
inline constexpr int64_t kCrossEntropyGradPerToken = 2;
/// Loss averaging over the micro-batch's tokens (Megatron pretrain_gpt.py
/// loss_func, schedules.py forward_step), per token: multiply by the loss
/// mask 1, sum 1, sum of the mask 1.
inline constexpr int64_t kLossAveragePerToken = 3;
/// Per micro-batch: divide by the token count 1, divide by the number of
/// micro-batches 1.
inline constexpr int64_t kLossAveragePerMicroBatch = 2;
/// Backward, per token: the broadcast scalar gradient times the loss mask 1.
inline constexpr int64_t kLossAverageGradPerToken = 1;
/// Backward, per micro-batch: the scalar gradient 1/(count * microbatches),
/// two divisions.
inline constexpr int64_t kLossAverageGradPerMicroBatch = 2;
} // namespace opcount

/// Bytes of one token id, label or position id: torch.long.
inline constexpr int64_t kTokenIdBytes = 8;
/// Bytes of one element of the cross-entropy's per-token statistics, the
/// per-token losses and the loss mask: fp32, whatever the activation type.
inline constexpr int64_t kLossElementBytes = 4;

/// The first pipeline stage's work for one micro-batch (b = micro_batch
/// sequences of s = seq_length tokens) on one TP rank
/// (Cadence::PerMicroBatch): the vocabulary-parallel word-embedding lookup,
/// the all-reduce of the partial embeddings (tp > 1), the position-embedding
/// add, under sequence parallelism the split onto this rank's sequence shard
/// (a view; its backward all-gathers the gradient), the embedding dropout;
/// backward, the dropout's input gradient and the scatter-add weight
/// gradients of both tables. With a learned position embedding Megatron
/// all-reduces (not reduce-scatters) the word embeddings even under sequence
/// parallelism, because the position embedding is added on the whole
/// sequence (LanguageModelEmbedding.reduce_scatter_embeddings is false);
/// under rotary embeddings there is no table and it reduce-scatters them.
/// No activation gradient leaves the first stage: token ids have none.
llvm::Expected<BlockWork> deriveEmbeddingWork(const ModelSpec &model,
                                              const TrainingSpec &training,
                                              const MappingSpec &mapping);

/// The last pipeline stage's work for one micro-batch on one TP rank
/// (Cadence::PerMicroBatch): the final norm over this rank's rows (the
/// sequence shard under sequence parallelism), the all-gather of its output
/// under sequence parallelism, the LM head GEMMs against the vocabulary
/// slice of the tied word embedding or of the untied output layer, the
/// vocabulary-parallel cross-entropy with its three all-reduces of b*s fp32
/// values (tp > 1) and the loss averaging; backward, the cross-entropy
/// gradient, the LM head's input and weight gradients with their TP reduction
/// (all-reduce, or reduce-scatter under sequence parallelism, which also
/// re-gathers the LM head input for the weight gradient) and the final norm's
/// gradients. Fails, besides on overflow and specs that do not compose, when
/// tp > 1 does not divide the b*s tokens, whose fp32 loss statistics it
/// all-reduces.
llvm::Expected<BlockWork> deriveHeadWork(const ModelSpec &model,
                                         const TrainingSpec &training,
                                         const MappingSpec &mapping);

/// The once-per-iteration work over the edge parameters one TP rank of a
/// stage holds (Cadence::PerIteration): under sequence parallelism with
/// tp > 1 on the last stage, the all-reduce of the final norm's gradients;
/// then the mixed-precision AdamW step, with deriveOptimizerWork's reads and
/// writes, over the word embedding's vocabulary slice and the position
/// embedding (first stage), the final norm and the output layer (last stage,
/// EdgeParameters::outputLayer: the untied weight, or on a last stage that is
/// not also the first its copy of the tied word embedding, which Megatron-LM
/// keeps as the output layer's weight and steps like any parameter). A stage
/// that is neither first nor last holds no edge parameter and gets no
/// invocation. Fails unless firstStage and lastStage are both true exactly when
/// pp = 1.
llvm::Expected<BlockWork> deriveEdgeOptimizerWork(const ModelSpec &model,
                                                  const TrainingSpec &training,
                                                  const MappingSpec &mapping,
                                                  bool firstStage,
                                                  bool lastStage);

/// Parameters of the edges held by one TP rank.
struct EdgeParameters {
  /// The word embedding's vocabulary slice, V*h/t: first stage.
  int64_t wordEmbedding = 0;
  /// The learned position embedding, max_positions*h, replicated over TP:
  /// first stage; 0 under rotary embeddings, which have no table.
  int64_t positionEmbedding = 0;
  /// The final norm's gamma (and beta for LayerNorm), 2h or h, replicated
  /// over TP: last stage.
  int64_t finalNorm = 0;
  /// The LM head weight's vocabulary slice h*V/t that the last stage holds
  /// besides the word embedding: its own w_output when the embeddings are
  /// untied, the tied table's copy on a last stage that is not the first
  /// (pp > 1); 0 when the one stage's word embedding is the LM head weight.
  int64_t outputLayer = 0;
  /// What the first stage holds: wordEmbedding + positionEmbedding.
  int64_t firstStageTotal = 0;
  /// What the last stage holds: finalNorm + outputLayer. With pp = 1 the
  /// one stage holds both totals.
  int64_t lastStageTotal = 0;
};

/// The edge parameters one TP rank holds for the mapping's pp; with pp = 1
/// and tied embeddings one stage holds the word embedding once. At t = 1
/// with max_positions = s the two embeddings are MLM2021 Eq. 2's (V + s)h;
/// Eq. 2 omits the final norm.
llvm::Expected<EdgeParameters>
edgeParametersPerRank(const ModelSpec &model, const MappingSpec &mapping);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_EDGEWORK_H
