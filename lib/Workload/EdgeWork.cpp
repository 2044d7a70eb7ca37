//===- EdgeWork.cpp - Exact work of the model's edges ---------------------===//
//
// The first and last pipeline stages' work outside the decoder blocks, as
// Megatron-LM's GPTModel runs it, with tied or untied word embeddings and
// learned absolute or rotary position embeddings:
// megatron/core/models/common/embeddings/language_model_embedding.py
// (LanguageModelEmbedding), megatron/core/tensor_parallel/layers.py
// (VocabParallelEmbedding, ColumnParallelLinear as the output layer),
// megatron/core/tensor_parallel/cross_entropy.py
// (_VocabParallelCrossEntropy), and the loss of pretrain_gpt.py. The
// invocations reuse the block's forward helpers (ForwardBuilder.h) so the
// norm, the collectives and the tensor accesses have one formula each.
// docs/WorkAlgebra.md ("Model edges") is the table of what is emitted.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"
#include "ForwardBuilder.h"
#include "Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

using namespace blueprint::workload;
using namespace blueprint::workload::detail;

namespace {

/// Builds the invocations of the first or the last stage's edges on one TP
/// rank in execution order.
class EdgeBuilder : ForwardBuilder {
public:
  EdgeBuilder(const ModelSpec &model, const TrainingSpec &training,
              const MappingSpec &mapping)
      : ForwardBuilder(
            model, mapping,
            // The edges are never recomputed (Megatron's activation
            // recompute covers the transformer layers only), so
            // whatever their backward reads is kept.
            trainingForwardRun(model, training, RecomputePolicy::None)),
        training(training), gradBytes(bytesOf(training.gradientType)),
        vocabPerRank(model.vocab / mapping.tp) {}

  llvm::Expected<BlockWork> buildEmbedding();
  llvm::Expected<BlockWork> buildHead();

private:
  TensorAccess gradient(llvm::StringRef name, int64_t elements) {
    return {name.str(), guard.mul(elements, gradBytes, name + " bytes")};
  }
  /// A tensor of one value per token at `width` bytes each (token ids,
  /// labels, the cross-entropy's fp32 statistics).
  TensorAccess perToken(llvm::StringRef name, int64_t width) {
    return {name.str(), guard.mul(shape.tokens, width, name + " bytes")};
  }
  /// A tensor of one fp32 value per logit of this rank.
  TensorAccess perLogit(llvm::StringRef name) {
    return {name.str(),
            guard.product({shape.tokens, vocabPerRank, kLossElementBytes},
                          name + " bytes")};
  }

  /// The all-reduce over TP of the b*s fp32 values `tensor` that the
  /// vocabulary-parallel cross-entropy combines across the vocabulary
  /// shards; (t-1)bs/t comparisons (max) or additions (sum) per rank.
  void lossAllReduce(llvm::StringRef primitive, ReductionKind reduction,
                     llvm::StringRef tensor, const llvm::Twine &cause);

  const TrainingSpec &training;
  int64_t gradBytes;
  int64_t vocabPerRank;
};

void EdgeBuilder::lossAllReduce(llvm::StringRef primitive,
                                ReductionKind reduction, llvm::StringRef tensor,
                                const llvm::Twine &cause) {
  int64_t ops =
      reductionOps((primitive + " reduction ops").str(), shape.tokens);
  Invocation &invocation = emit({primitive,
                                 Phase::Forward,
                                 Engine::Collective,
                                 ops,
                                 {perToken(tensor, kLossElementBytes)},
                                 {perToken(tensor, kLossElementBytes)},
                                 cause});
  CollectiveFacts facts;
  facts.kind = CollectiveKind::AllReduce;
  facts.reduction = reduction;
  facts.participants = shape.tp;
  facts.messageBytes = invocation.reads.front().bytes;
  invocation.collective = facts;
}

/// The first stage (LanguageModelEmbedding.forward): the word embedding
/// looked up in this rank's vocabulary slice (VocabParallelEmbedding), the
/// all-reduce of the partial lookups (reduce_from_tensor_model_parallel_
/// region), the position embedding added on the whole sequence, under SP
/// the split onto this rank's sequence shard (scatter_to_sequence_parallel_
/// region, a view: no invocation forward, an all-gather backward) and the
/// embedding dropout. Without a position table (rotary embeddings) the
/// lookup is the embeddings, and under SP Megatron reduce-scatters the
/// partial lookups onto the sequence shards instead
/// (reduce_scatter_embeddings: reduce_scatter_to_sequence_parallel_region,
/// whose backward all-gathers the gradient).
llvm::Expected<BlockWork> EdgeBuilder::buildEmbedding() {
  work.cadence = Cadence::PerMicroBatch;
  bool vocabParallel = shape.tp > 1;
  bool positionTable = model.hasPositionTable();
  bool reduceScatter =
      !positionTable && hasCollectives() && shape.sequenceParallel;
  llvm::StringRef lookedUp = positionTable ? "word_embeddings" : "embeddings";
  int64_t fullElements = elements({shape.tokens, shape.hidden}, lookedUp);
  int64_t rowElements =
      elements({shape.localTokens, shape.hidden}, "embeddings");

  // Every token is looked up on every rank: an out-of-range token reads row
  // 0 and is zeroed, so the lookup reads b*s rows whatever the data.
  int64_t lookupOps =
      vocabParallel
          ? rowwiseOps(opsName(primitive::kWordEmbedding), shape.tokens,
                       shape.hidden, opcount::kVocabRangeMaskPerElement,
                       opcount::kVocabRangeMaskPerToken)
          : 0;
  emit({primitive::kWordEmbedding,
        Phase::Forward,
        Engine::Vector,
        lookupOps,
        {perToken("tokens", kTokenIdBytes),
         weight("w_word_embedding", fullElements)},
        {activation(lookedUp, fullElements)},
        vocabParallel
            ? "forward of word_embedding: each token's row of this rank's "
              "vocabulary slice, zero for tokens outside it (partial sums "
              "over the TP ranks)"
            : "forward of word_embedding: each token's row of the word "
              "embedding table"});
  if (reduceScatter)
    tpCollective(primitive::kEmbeddingTPG, Phase::Forward,
                 CollectiveKind::ReduceScatter, lookedUp,
                 "vocabulary and sequence parallelism without a position "
                 "table (LanguageModelEmbedding.reduce_scatter_embeddings): "
                 "reduce-scatter the partial lookups onto the sequence "
                 "shards");
  else if (hasCollectives())
    tpCollective(primitive::kEmbeddingTPG, Phase::Forward,
                 CollectiveKind::AllReduce, lookedUp,
                 positionTable
                     ? "vocabulary parallelism (VocabParallelEmbedding): "
                       "all-reduce the partial lookups; with a learned "
                       "position embedding Megatron all-reduces even under "
                       "sequence parallelism"
                     : "vocabulary parallelism (VocabParallelEmbedding): "
                       "all-reduce the partial lookups");
  if (positionTable)
    emit({primitive::kPositionEmbedding,
          Phase::Forward,
          Engine::Vector,
          elementwiseOps(opsName(primitive::kPositionEmbedding), fullElements,
                         opcount::kEmbeddingAddPerElement),
          {activation("word_embeddings", fullElements),
           perToken("position_ids", kTokenIdBytes),
           weight("w_position_embedding", fullElements)},
          {activation("embeddings", fullElements)},
          "forward of position_embedding: each position's row of the learned "
          "position embedding added to the word embeddings"});
  if (training.hiddenDropout) {
    Invocation &invocation = emit(
        {primitive::kEmbeddingDropout,
         Phase::Forward,
         Engine::Vector,
         elementwiseOps(opsName(primitive::kEmbeddingDropout), rowElements,
                        opcount::kDropoutForwardPerElement),
         {activation("embeddings", rowElements)},
         {activation("embeddings_dropped", rowElements),
          mask("embedding_dropout_mask", rowElements)},
         "forward of embedding_dropout: hidden dropout on this rank's rows "
         "of the embeddings, the first block's input"});
    stash(invocation, mask("embedding_dropout_mask", rowElements),
          StashRole::Kept);
  }

  // Backward. The first block returns the gradient of its input on this
  // rank's rows; the add and the all-reduce pass it unchanged (identity
  // backward steps emit nothing).
  if (training.hiddenDropout)
    emit({primitive::kEmbeddingDropout,
          Phase::ActivationGrad,
          Engine::Vector,
          elementwiseOps("embedding_dropout input-gradient ops", rowElements,
                         opcount::kDropoutInputGradPerElement),
          {activation("d_embeddings_dropped", rowElements),
           mask("embedding_dropout_mask", rowElements)},
          {activation("d_embeddings", rowElements)},
          "backward of embedding_dropout: the first block's input gradient "
          "masked and scaled"});
  if (reduceScatter)
    tpCollective(primitive::kEmbeddingTPG, Phase::ActivationGrad,
                 CollectiveKind::AllGather, "d_embeddings",
                 "sequence parallelism: backward of the reduce-scatter of the "
                 "lookups, all-gather d_embeddings for the word embedding's "
                 "gradient");
  else
    gatherSequenceShards(
        primitive::kEmbeddingSPScatter, Phase::ActivationGrad, "d_embeddings",
        "sequence parallelism: backward of the split onto the sequence shards "
        "(scatter_to_sequence_parallel_region), all-gather d_embeddings for "
        "both tables' gradients");
  if (positionTable)
    emit({primitive::kPositionEmbedding,
          Phase::WeightGrad,
          Engine::Vector,
          elementwiseOps("position_embedding weight-gradient ops", fullElements,
                         opcount::kEmbeddingGradPerElement),
          {activation("d_embeddings", fullElements),
           perToken("position_ids", kTokenIdBytes),
           gradient("d_w_position_embedding", fullElements)},
          {gradient("d_w_position_embedding", fullElements)},
          "backward of position_embedding: scatter-add of the b*s gradient "
          "rows into their positions' rows of the gradient buffer"});
  int64_t gradPerElement = vocabParallel
                               ? opcount::kEmbeddingGradPerElement +
                                     opcount::kVocabRangeMaskGradPerElement
                               : opcount::kEmbeddingGradPerElement;
  emit({primitive::kWordEmbedding,
        Phase::WeightGrad,
        Engine::Vector,
        elementwiseOps("word_embedding weight-gradient ops", fullElements,
                       gradPerElement),
        {activation("d_embeddings", fullElements),
         perToken("tokens", kTokenIdBytes),
         gradient("d_w_word_embedding", fullElements)},
        {gradient("d_w_word_embedding", fullElements)},
        vocabParallel
            ? "backward of word_embedding: the gradient rows of tokens "
              "outside this rank's slice zeroed, then all b*s rows "
              "scatter-added into the slice's gradient buffer"
            : "backward of word_embedding: scatter-add of the b*s gradient "
              "rows into their tokens' rows of the gradient buffer"});
  return finish("deriveEmbeddingWork");
}

/// The last stage (GPTModel.forward after the decoder,
/// compute_language_model_loss, pretrain_gpt.py loss_func): the final norm,
/// the output layer (a ColumnParallelLinear holding the tied word
/// embedding's vocabulary slice, or with untied embeddings its own weight
/// w_output), the vocabulary-parallel cross-entropy and the loss averaged
/// over the micro-batch's tokens.
llvm::Expected<BlockWork> EdgeBuilder::buildHead() {
  work.cadence = Cadence::PerMicroBatch;
  if (!guard.failed() && hasCollectives() && shape.tokens % shape.tp != 0)
    return makeError("deriveHeadWork: the vocabulary-parallel cross-entropy "
                     "all-reduces one fp32 value per token over the TP "
                     "ranks; micro_batch * seq_length / cp (the tokens "
                     "per context-parallel rank) = " +
                     llvm::Twine(shape.tokens) + " is not divisible by tp = " +
                     llvm::Twine(shape.tp) + " (decoder_training_c16)");
  int64_t fullElements = elements({shape.tokens, shape.hidden}, "x_final");
  int64_t rowElements = elements({shape.localTokens, shape.hidden}, "x_final");
  int64_t logitElements = elements({shape.tokens, vocabPerRank}, "logits");
  llvm::StringRef headWeight =
      model.tiedEmbeddings ? "w_word_embedding" : "w_output";
  std::string headWeightGrad = ("d_" + headWeight).str();
  int64_t weightElements = elements({shape.hidden, vocabPerRank}, headWeight);

  // The norm runs on the sequence shard under SP; the LM head needs every
  // token (Megatron's output layer all-gathers its input).
  norm(primitive::kFinalNorm, "h_final", "x_final", StashRole::Kept);
  gatherSequenceShards(primitive::kLMHeadTPF, Phase::Forward, "x_final",
                       "sequence parallelism: all-gather the sequence-sharded "
                       "x_final so the LM head sees the whole sequence");
  Invocation *invocation =
      &emit({primitive::kLMHeadLogits,
             Phase::Forward,
             Engine::Matmul,
             linearOps(opsName(primitive::kLMHeadLogits), shape.tokens,
                       shape.hidden, vocabPerRank),
             {activation("x_final", fullElements),
              weight(headWeight, weightElements)},
             {activation("logits", logitElements)},
             model.tiedEmbeddings
                 ? "the LM head: final hidden states times this rank's "
                   "vocabulary slice of the tied word embedding"
                 : "the LM head: final hidden states times this rank's "
                   "vocabulary slice of the untied output layer"});
  // Under SP the shard is kept and re-gathered for the weight gradient
  // (lm_head_wgrad_gather), as for qkv_proj and fc1.
  stash(*invocation, activation("x_final", rowElements), StashRole::Kept);

  // Vocabulary-parallel cross-entropy on fp32 logits (the conversion is
  // part of the load).
  emit({primitive::kCrossEntropyMax,
        Phase::Forward,
        Engine::Vector,
        elementwiseOps(opsName(primitive::kCrossEntropyMax), logitElements,
                       opcount::kCrossEntropyMaxPerElement),
        {activation("logits", logitElements)},
        {perToken("logits_max", kLossElementBytes)},
        "forward of cross_entropy_max: each token's maximum over this rank's "
        "vocabulary slice of the logits"});
  if (hasCollectives())
    lossAllReduce(primitive::kLossMaxAllReduce, ReductionKind::Max,
                  "logits_max",
                  "vocabulary-parallel cross-entropy: all-reduce (max) each "
                  "token's maximum logit over the vocabulary slices");
  emit({primitive::kCrossEntropyExp,
        Phase::Forward,
        Engine::Vector,
        rowwiseOps(opsName(primitive::kCrossEntropyExp), shape.tokens,
                   vocabPerRank, opcount::kCrossEntropyExpPerElement,
                   opcount::kCrossEntropyTargetPerToken),
        {activation("logits", logitElements),
         perToken("logits_max", kLossElementBytes),
         perToken("labels", kTokenIdBytes)},
        {perLogit("exp_logits"), perToken("sum_exp_logits", kLossElementBytes),
         perToken("target_logits", kLossElementBytes),
         perToken("loss_target", kTokenIdBytes),
         perToken("loss_target_mask", 1)},
        "forward of cross_entropy_exp: exp of the logits minus the maximum, "
        "their sum over this rank's slice, and the target's logit where the "
        "target is in the slice (zero elsewhere)"});
  if (hasCollectives()) {
    lossAllReduce(primitive::kLossTargetAllReduce, ReductionKind::Sum,
                  "target_logits",
                  "vocabulary-parallel cross-entropy: all-reduce (sum) the "
                  "target logits, nonzero on the one rank holding each "
                  "target");
    lossAllReduce(primitive::kLossSumAllReduce, ReductionKind::Sum,
                  "sum_exp_logits",
                  "vocabulary-parallel cross-entropy: all-reduce (sum) the "
                  "per-slice sums of exp over the vocabulary slices");
  }
  invocation = &emit(
      {primitive::kCrossEntropy,
       Phase::Forward,
       Engine::Vector,
       rowwiseOps(opsName(primitive::kCrossEntropy), shape.tokens, vocabPerRank,
                  opcount::kCrossEntropySoftmaxPerElement,
                  opcount::kCrossEntropyLossPerToken),
       {perLogit("exp_logits"), perToken("sum_exp_logits", kLossElementBytes),
        perToken("target_logits", kLossElementBytes)},
       {perToken("loss", kLossElementBytes), perLogit("loss_softmax")},
       "forward of cross_entropy: each token's loss log(sum_exp_logits) - "
       "target_logits, and the softmax over this rank's slice kept for "
       "backward"});
  // The per-token target indices and mask are per-row statistics, not
  // counted in the stash (as the norms' mean and rstd).
  stash(*invocation, perLogit("loss_softmax"), StashRole::Kept);
  int64_t averageOps =
      elementwiseOps(opsName(primitive::kLossAverage), shape.tokens,
                     opcount::kLossAveragePerToken);
  emit({primitive::kLossAverage,
        Phase::Forward,
        Engine::Vector,
        guard.add(averageOps, opcount::kLossAveragePerMicroBatch,
                  opsName(primitive::kLossAverage)),
        {perToken("loss", kLossElementBytes),
         perToken("loss_mask", kLossElementBytes)},
        {{"lm_loss", kLossElementBytes}},
        "forward of loss_average: the masked per-token losses averaged over "
        "the micro-batch's tokens and divided by the number of "
        "micro-batches"});

  // Backward.
  int64_t averageGradOps =
      elementwiseOps("loss_average input-gradient ops", shape.tokens,
                     opcount::kLossAverageGradPerToken);
  emit({primitive::kLossAverage,
        Phase::ActivationGrad,
        Engine::Vector,
        guard.add(averageGradOps, opcount::kLossAverageGradPerMicroBatch,
                  "loss_average input-gradient ops"),
        {perToken("loss_mask", kLossElementBytes)},
        {perToken("d_loss", kLossElementBytes)},
        "backward of loss_average: each token's loss gradient, the loss "
        "mask over the token count and the number of micro-batches"});
  emit({primitive::kCrossEntropy,
        Phase::ActivationGrad,
        Engine::Vector,
        rowwiseOps("cross_entropy input-gradient ops", shape.tokens,
                   vocabPerRank, opcount::kCrossEntropyGradPerElement,
                   opcount::kCrossEntropyGradPerToken),
        {perLogit("loss_softmax"), perToken("d_loss", kLossElementBytes),
         perToken("loss_target", kTokenIdBytes),
         perToken("loss_target_mask", 1)},
        {activation("d_logits", logitElements)},
        "backward of cross_entropy: softmax minus the one-hot target, times "
        "each token's loss gradient"});
  emit({primitive::kLMHeadLogits,
        Phase::ActivationGrad,
        Engine::Matmul,
        linearOps("lm_head_logits input-gradient ops", shape.tokens,
                  vocabPerRank, shape.hidden),
        {activation("d_logits", logitElements),
         weight(headWeight, weightElements)},
        {activation("d_x_final", fullElements)},
        "gradient of the final hidden states through the LM head"});
  if (hasCollectives()) {
    if (shape.sequenceParallel) {
      tpCollective(primitive::kLMHeadTPF, Phase::ActivationGrad,
                   CollectiveKind::ReduceScatter, "d_x_final",
                   "sequence parallelism: reduce-scatter the partial sums of "
                   "d_x_final onto the sequence shards");
      tpCollective(primitive::kLMHeadWgradGather, Phase::Recommunication,
                   CollectiveKind::AllGather, "x_final",
                   "sequence-parallel all-gather of x_final redone in "
                   "backward for the LM head weight gradient (only the shard "
                   "is stashed)");
    } else {
      tpCollective(primitive::kLMHeadTPF, Phase::ActivationGrad,
                   CollectiveKind::AllReduce, "d_x_final",
                   "tensor parallelism (MLM2019 f backward): all-reduce the "
                   "partial sums of d_x_final over the vocabulary slices");
    }
  }
  emit({primitive::kLMHeadLogits,
        Phase::WeightGrad,
        Engine::Matmul,
        linearOps("lm_head_logits weight-gradient ops", shape.hidden,
                  shape.tokens, vocabPerRank),
        {activation("x_final", fullElements),
         activation("d_logits", logitElements),
         gradient(headWeightGrad, weightElements)},
        {gradient(headWeightGrad, weightElements)},
        model.tiedEmbeddings
            ? "LM head gradient, accumulated into the tied word embedding's"
            : "LM head gradient, accumulated into the untied output "
              "layer's"});
  normBackward(primitive::kFinalNorm, "h_final", "x_final", gradBytes);
  return finish("deriveHeadWork");
}

/// Parameters of the edges on one TP rank (Megatron: VocabParallelEmbedding
/// and the output layer split the vocabulary; the position embedding and
/// the final norm are replicated). The output layer is a parameter of its
/// own when untied (GPTModel with share_embeddings_and_output_weights
/// false) and, tied, a copy the last stage keeps when it is not the first.
EdgeParameters edgeParameters(const ModelSpec &model,
                              const MappingSpec &mapping,
                              OverflowGuard &guard) {
  EdgeParameters parameters;
  parameters.wordEmbedding = guard.mul(model.vocab / mapping.tp, model.hidden,
                                       "w_word_embedding parameters");
  if (model.hasPositionTable())
    parameters.positionEmbedding = guard.mul(model.maxPositions, model.hidden,
                                             "w_position_embedding parameters");
  parameters.finalNorm =
      model.norm == NormKind::LayerNorm
          ? guard.mul(2, model.hidden, "final_norm parameters")
          : model.hidden;
  if (!model.tiedEmbeddings || mapping.pp > 1)
    parameters.outputLayer = parameters.wordEmbedding;
  parameters.firstStageTotal =
      guard.add(parameters.wordEmbedding, parameters.positionEmbedding,
                "first-stage edge parameters");
  parameters.lastStageTotal =
      guard.add(parameters.finalNorm, parameters.outputLayer,
                "last-stage edge parameters");
  return parameters;
}

} // namespace

llvm::Expected<BlockWork>
blueprint::workload::deriveEmbeddingWork(const ModelSpec &model,
                                         const TrainingSpec &training,
                                         const MappingSpec &mapping) {
  if (llvm::Error error = checkTrainingComposes(model, training, mapping,
                                                "deriveEmbeddingWork"))
    return error;
  return deriveComposingEmbeddingWork(model, training, mapping);
}

llvm::Expected<BlockWork>
blueprint::workload::detail::deriveComposingEmbeddingWork(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping) {
  return EdgeBuilder(model, training, mapping).buildEmbedding();
}

llvm::Expected<BlockWork>
blueprint::workload::deriveHeadWork(const ModelSpec &model,
                                    const TrainingSpec &training,
                                    const MappingSpec &mapping) {
  if (llvm::Error error =
          checkTrainingComposes(model, training, mapping, "deriveHeadWork"))
    return error;
  return deriveComposingHeadWork(model, training, mapping);
}

llvm::Expected<BlockWork> blueprint::workload::detail::deriveComposingHeadWork(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping) {
  return EdgeBuilder(model, training, mapping).buildHead();
}

llvm::Expected<EdgeParameters>
blueprint::workload::edgeParametersPerRank(const ModelSpec &model,
                                           const MappingSpec &mapping) {
  RuleSink sink;
  sink.append(checkModel(model));
  sink.requirePositive(mapping.tp, "tp", "transformer_mapping_c1");
  // pp decides whether a separate last stage holds the tied table's copy.
  sink.requirePositive(mapping.pp, "pp", "transformer_mapping_c1");
  if (mapping.tp > 0)
    sink.requireDivides(model.vocab, "vocab", mapping.tp, "tp",
                        "decoder_training_c8");
  if (!sink.empty())
    return violationsError("edgeParametersPerRank: invalid model, tp or pp:",
                           sink.take());
  OverflowGuard guard;
  EdgeParameters parameters = edgeParameters(model, mapping, guard);
  if (guard.failed())
    return guard.error("edgeParametersPerRank");
  return parameters;
}

/// Mixed-precision AdamW over the rank's edge parameters: the one step
/// deriveAdamWStep states for the blocks too (master weights, m and v at
/// optimizer_state_type; the gradient buffer read and zeroed; the
/// low-precision weights written).
llvm::Expected<BlockWork> blueprint::workload::deriveEdgeOptimizerWork(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping, bool firstStage, bool lastStage) {
  if (llvm::Error error = checkTrainingComposes(model, training, mapping,
                                                "deriveEdgeOptimizerWork"))
    return error;
  return deriveComposingEdgeOptimizerWork(model, training, mapping, firstStage,
                                          lastStage);
}

llvm::Expected<BlockWork>
blueprint::workload::detail::deriveComposingEdgeOptimizerWork(
    const ModelSpec &model, const TrainingSpec &training,
    const MappingSpec &mapping, bool firstStage, bool lastStage) {
  bool oneStage = mapping.pp == 1;
  if ((firstStage && lastStage) != oneStage)
    return makeError(
        "deriveEdgeOptimizerWork: with pp = " + llvm::Twine(mapping.pp) +
        (oneStage ? " the one stage is both the first and the last"
                  : " no stage is both the first and the last"));
  OverflowGuard guard;
  EdgeParameters parameters = edgeParameters(model, mapping, guard);
  int64_t gradBytes = bytesOf(training.gradientType);

  BlockWork work;
  work.cadence = Cadence::PerIteration;
  int64_t tp = mapping.tp;
  if (lastStage && tp > 1 &&
      mapping.tpComm == TPCommMode::ReduceScatterAllGather) {
    // The final norm saw only this rank's sequence shard: its gradients are
    // partial sums, all-reduced over TP once per iteration with the blocks'
    // (finalize_model_grads, _allreduce_layernorm_grads).
    int64_t count = parameters.finalNorm;
    work.invocations.push_back(collectiveInvocation(
        primitive::kFinalNormGradSync, Phase::WeightGrad,
        CollectiveKind::AllReduce, tp,
        guard.mul(count, gradBytes, "d_final_norm_params bytes"), gradBytes,
        "d_final_norm_params",
        "sequence parallelism: the final norm's gradients are partial sums "
        "over each rank's sequence shard and are all-reduced across the TP "
        "group once per iteration"));
  }

  int64_t count = 0;
  if (firstStage)
    count = guard.add(count, parameters.firstStageTotal, "edge parameters");
  if (lastStage)
    count = guard.add(count, parameters.lastStageTotal, "edge parameters");
  for (const Invocation &invocation : work.invocations) {
    sumBytes(guard, invocation.reads, invocation.primitive + " read bytes");
    sumBytes(guard, invocation.writes, invocation.primitive + " write bytes");
  }
  if (guard.failed())
    return guard.error("deriveEdgeOptimizerWork");
  if (count == 0)
    return work;
  llvm::Expected<Invocation> step = deriveAdamWStep(
      count, training, primitive::kEdgeAdamWStep,
      "mixed-precision AdamW step over this rank's edge parameters, once per "
      "iteration; the gradient buffer is zeroed for the next iteration's "
      "accumulation");
  if (!step)
    return step.takeError();
  work.invocations.push_back(std::move(*step));
  return work;
}
