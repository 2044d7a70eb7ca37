//===- EdgeWorkTest.cpp - The work algebra of the model's edges -----------===//
//
// Exact counts of the embedding, head and edge-optimizer work for a small
// model computed by hand (h = 8, 2 heads, V = 16, s = 4, b = 2) at tp = 1
// and tp = 2 in both TP modes; the LM head's 6BshV (MLM2021 Eq. 3); the edge
// parameters; the collectives' facts; and the diagnostics.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/Primitives.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <set>
#include <string>
#include <utility>

using namespace blueprint::workload;

namespace {

/// h = 8, a = 2 (d = 4), f = 32, s = 4, max_positions = 6, V = 16; four
/// blocks so pp in {1, 2, 4} composes.
ModelSpec smallModel() {
  ModelSpec model;
  model.hidden = 8;
  model.heads = 2;
  model.kvHeads = 2;
  model.headDim = 4;
  model.ffnHidden = 32;
  model.seqLength = 4;
  model.maxPositions = 6;
  model.vocab = 16;
  model.blocks = 4;
  model.norm = NormKind::LayerNorm;
  model.activation = ActivationKind::GeLU;
  return model;
}

/// b = 2, two micro-batches, bf16 activations, weights and gradients.
TrainingSpec smallTraining() {
  TrainingSpec training;
  training.globalBatch = 4;
  training.microBatch = 2;
  return training;
}

MappingSpec mappingFor(int64_t tp, TPCommMode mode, int64_t pp = 1) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.pp = pp;
  mapping.world = tp * pp;
  mapping.tpComm = mode;
  return mapping;
}

template <typename T> T valueOrFail(llvm::Expected<T> value) {
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return T();
  }
  return std::move(*value);
}

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
}

/// The invocation of `primitive` in `phase`; fails the test if absent.
const Invocation &at(const BlockWork &work, llvm::StringRef primitive,
                     Phase phase) {
  static const Invocation missing;
  const Invocation *invocation = work.find(primitive, phase);
  if (!invocation) {
    ADD_FAILURE() << "no " << primitive.str() << " in "
                  << stringifyEnum(phase).str();
    return missing;
  }
  return *invocation;
}

int64_t opsOf(const BlockWork &work, llvm::StringRef primitive, Phase phase) {
  return at(work, primitive, phase).ops;
}

std::vector<std::pair<std::string, Phase>> order(const BlockWork &work) {
  std::vector<std::pair<std::string, Phase>> ids;
  for (const Invocation &invocation : work.invocations)
    ids.emplace_back(invocation.primitive, invocation.phase);
  return ids;
}

/// Structure every derived edge work must have: ids from the table, unique
/// (primitive, phase), collectives exactly when tp > 1 with consistent
/// facts and bytes, and checked totals.
void checkStructure(const BlockWork &work, int64_t tp,
                    const std::string &where) {
  std::set<std::pair<std::string, Phase>> seen;
  for (const Invocation &invocation : work.invocations) {
    EXPECT_TRUE(llvm::is_contained(primitive::all(), invocation.primitive))
        << where << ": " << invocation.primitive;
    EXPECT_TRUE(seen.insert({invocation.primitive, invocation.phase}).second)
        << where << ": " << invocation.primitive << " twice in "
        << stringifyEnum(invocation.phase).str();
    EXPECT_FALSE(invocation.cause.empty()) << where;
    EXPECT_GE(invocation.ops, 0) << where;
    bool collective = invocation.engine == Engine::Collective;
    EXPECT_EQ(invocation.collective.has_value(), collective) << where;
    if (!collective)
      continue;
    EXPECT_GT(tp, 1) << where << ": collective " << invocation.primitive
                     << " at tp = 1";
    const CollectiveFacts &facts = *invocation.collective;
    EXPECT_EQ(facts.participants, tp) << where;
    EXPECT_EQ(facts.reduction == ReductionKind::None,
              facts.kind == CollectiveKind::AllGather)
        << where << ": " << invocation.primitive;
    ASSERT_EQ(facts.messageBytes % tp, 0) << where;
    EXPECT_EQ(collectiveBytesViolation(facts, invocation.readBytes(),
                                       invocation.writeBytes()),
              std::nullopt)
        << where << ": " << invocation.primitive;
    EXPECT_TRUE(static_cast<bool>(minimumTransferBytes(facts)));
  }
  llvm::Expected<WorkSummary> summary = summarize(work);
  ASSERT_TRUE(static_cast<bool>(summary))
      << where << ": " << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->cadence(), work.cadence);
  EXPECT_EQ(summary->total().invocations,
            static_cast<int64_t>(work.invocations.size()));
}

const TPCommMode kModes[] = {TPCommMode::AllReduce,
                             TPCommMode::ReduceScatterAllGather};

//===----------------------------------------------------------------------===//
// First stage
//===----------------------------------------------------------------------===//

TEST(EmbeddingWork, ByHandAtOneRank) {
  // T = bs = 8 tokens, Th = 64 elements, 2-byte activations.
  BlockWork work = valueOrFail(deriveEmbeddingWork(
      smallModel(), smallTraining(), mappingFor(1, TPCommMode::AllReduce)));
  EXPECT_EQ(work.cadence, Cadence::PerMicroBatch);
  using Id = std::pair<std::string, Phase>;
  std::vector<Id> expected = {{"word_embedding", Phase::Forward},
                              {"position_embedding", Phase::Forward},
                              {"embedding_dropout", Phase::Forward},
                              {"embedding_dropout", Phase::ActivationGrad},
                              {"position_embedding", Phase::WeightGrad},
                              {"word_embedding", Phase::WeightGrad}};
  EXPECT_EQ(order(work), expected);

  // At tp = 1 the lookup is a pure gather.
  const Invocation &lookup = at(work, "word_embedding", Phase::Forward);
  EXPECT_EQ(lookup.ops, 0);
  EXPECT_EQ(lookup.reads,
            (std::vector<TensorAccess>{{"tokens", 8 * 8},
                                       {"w_word_embedding", 64 * 2}}));
  EXPECT_EQ(lookup.writes,
            (std::vector<TensorAccess>{{"word_embeddings", 64 * 2}}));
  const Invocation &add = at(work, "position_embedding", Phase::Forward);
  EXPECT_EQ(add.ops, 64);
  EXPECT_EQ(add.readBytes(), 128 + 64 + 128);
  EXPECT_EQ(add.writes, (std::vector<TensorAccess>{{"embeddings", 128}}));
  const Invocation &dropout = at(work, "embedding_dropout", Phase::Forward);
  EXPECT_EQ(dropout.ops, 3 * 64);
  EXPECT_EQ(dropout.writeBytes(), 128 + 64);
  EXPECT_EQ(dropout.stashBytes, 64);
  EXPECT_EQ(opsOf(work, "embedding_dropout", Phase::ActivationGrad), 64);
  const Invocation &positionGrad =
      at(work, "position_embedding", Phase::WeightGrad);
  EXPECT_EQ(positionGrad.ops, 64);
  EXPECT_EQ(positionGrad.readBytes(), 128 + 64 + 128);
  EXPECT_EQ(positionGrad.writes,
            (std::vector<TensorAccess>{{"d_w_position_embedding", 128}}));
  // One accumulate per element of the b*s gradient rows.
  EXPECT_EQ(opsOf(work, "word_embedding", Phase::WeightGrad), 64);
  checkStructure(work, 1, "tp=1");

  WorkSummary summary = valueOrFail(summarize(work));
  EXPECT_EQ(summary.total().ops, 0 + 64 + 192 + 64 + 64 + 64);
  EXPECT_EQ(summary.total().stashBytes, 64);
  EXPECT_EQ(summary.of(Engine::Collective).invocations, 0);
}

TEST(EmbeddingWork, ByHandAtTwoRanksAllReduce) {
  BlockWork work = valueOrFail(deriveEmbeddingWork(
      smallModel(), smallTraining(), mappingFor(2, TPCommMode::AllReduce)));
  // Range mask: 8 tokens * 5 + 64 elements * 1.
  EXPECT_EQ(opsOf(work, "word_embedding", Phase::Forward), 40 + 64);
  const Invocation &reduce = at(work, "embedding_tp_g", Phase::Forward);
  ASSERT_TRUE(reduce.collective.has_value());
  EXPECT_EQ(reduce.collective->kind, CollectiveKind::AllReduce);
  EXPECT_EQ(reduce.collective->reduction, ReductionKind::Sum);
  EXPECT_EQ(reduce.collective->messageBytes, 128);
  EXPECT_EQ(reduce.ops, 32); // (t-1)Th/t
  EXPECT_EQ(opsOf(work, "position_embedding", Phase::Forward), 64);
  EXPECT_EQ(opsOf(work, "embedding_dropout", Phase::Forward), 192);
  EXPECT_EQ(opsOf(work, "embedding_dropout", Phase::ActivationGrad), 64);
  EXPECT_EQ(work.find("embedding_sp_scatter", Phase::ActivationGrad), nullptr);
  // The masked rows' gradient zeroed, then accumulated: 2 per element.
  EXPECT_EQ(opsOf(work, "word_embedding", Phase::WeightGrad), 128);
  EXPECT_EQ(work.invocations.size(), 7u);
  checkStructure(work, 2, "tp=2 all_reduce");
}

TEST(EmbeddingWork, ByHandAtTwoRanksSequenceParallel) {
  BlockWork work = valueOrFail(
      deriveEmbeddingWork(smallModel(), smallTraining(),
                          mappingFor(2, TPCommMode::ReduceScatterAllGather)));
  using Id = std::pair<std::string, Phase>;
  std::vector<Id> expected = {{"word_embedding", Phase::Forward},
                              {"embedding_tp_g", Phase::Forward},
                              {"position_embedding", Phase::Forward},
                              {"embedding_dropout", Phase::Forward},
                              {"embedding_dropout", Phase::ActivationGrad},
                              {"embedding_sp_scatter", Phase::ActivationGrad},
                              {"position_embedding", Phase::WeightGrad},
                              {"word_embedding", Phase::WeightGrad}};
  EXPECT_EQ(order(work), expected);
  // Megatron all-reduces even under SP (learned position embedding).
  EXPECT_EQ(at(work, "embedding_tp_g", Phase::Forward).collective->kind,
            CollectiveKind::AllReduce);
  // The dropout runs on the sequence shard: T'h = 32 elements.
  const Invocation &dropout = at(work, "embedding_dropout", Phase::Forward);
  EXPECT_EQ(dropout.ops, 96);
  EXPECT_EQ(dropout.stashBytes, 32);
  EXPECT_EQ(opsOf(work, "embedding_dropout", Phase::ActivationGrad), 32);
  const Invocation &gather =
      at(work, "embedding_sp_scatter", Phase::ActivationGrad);
  EXPECT_EQ(gather.collective->kind, CollectiveKind::AllGather);
  EXPECT_EQ(gather.readBytes(), 64);
  EXPECT_EQ(gather.writeBytes(), 128);
  EXPECT_EQ(gather.ops, 0);
  EXPECT_EQ(opsOf(work, "position_embedding", Phase::WeightGrad), 64);
  EXPECT_EQ(opsOf(work, "word_embedding", Phase::WeightGrad), 128);
  checkStructure(work, 2, "tp=2 sp");
}

TEST(EmbeddingWork, WithoutHiddenDropout) {
  TrainingSpec training = smallTraining();
  training.hiddenDropout = false;
  for (TPCommMode mode : kModes) {
    BlockWork work = valueOrFail(
        deriveEmbeddingWork(smallModel(), training, mappingFor(2, mode)));
    EXPECT_EQ(work.find("embedding_dropout", Phase::Forward), nullptr);
    EXPECT_EQ(work.find("embedding_dropout", Phase::ActivationGrad), nullptr);
    WorkSummary summary = valueOrFail(summarize(work));
    EXPECT_EQ(summary.total().stashBytes, 0);
    checkStructure(work, 2, "no dropout");
  }
}

//===----------------------------------------------------------------------===//
// Last stage
//===----------------------------------------------------------------------===//

TEST(HeadWork, ByHandAtOneRank) {
  // T = 8, h = 8, V/t = 16; LayerNorm; bf16 activations, fp32 statistics.
  BlockWork work = valueOrFail(deriveHeadWork(
      smallModel(), smallTraining(), mappingFor(1, TPCommMode::AllReduce)));
  EXPECT_EQ(work.cadence, Cadence::PerMicroBatch);
  using Id = std::pair<std::string, Phase>;
  std::vector<Id> expected = {{"final_norm", Phase::Forward},
                              {"lm_head_logits", Phase::Forward},
                              {"cross_entropy_max", Phase::Forward},
                              {"cross_entropy_exp", Phase::Forward},
                              {"cross_entropy", Phase::Forward},
                              {"loss_average", Phase::Forward},
                              {"loss_average", Phase::ActivationGrad},
                              {"cross_entropy", Phase::ActivationGrad},
                              {"lm_head_logits", Phase::ActivationGrad},
                              {"lm_head_logits", Phase::WeightGrad},
                              {"final_norm", Phase::ActivationGrad},
                              {"final_norm", Phase::WeightGrad}};
  EXPECT_EQ(order(work), expected);

  const Invocation &norm = at(work, "final_norm", Phase::Forward);
  EXPECT_EQ(norm.ops, 8 * (7 * 8 + 4));
  EXPECT_EQ(norm.readBytes(), 128 + 16 + 16);
  EXPECT_EQ(norm.writes, (std::vector<TensorAccess>{{"x_final", 128}}));
  EXPECT_EQ(norm.stashBytes, 128);

  const Invocation &logits = at(work, "lm_head_logits", Phase::Forward);
  EXPECT_EQ(logits.engine, Engine::Matmul);
  EXPECT_EQ(logits.ops, 2 * 8 * 8 * 16);
  EXPECT_EQ(logits.reads, (std::vector<TensorAccess>{
                              {"x_final", 128}, {"w_word_embedding", 256}}));
  EXPECT_EQ(logits.writes, (std::vector<TensorAccess>{{"logits", 256}}));
  EXPECT_EQ(logits.stashBytes, 128);

  EXPECT_EQ(opsOf(work, "cross_entropy_max", Phase::Forward), 128);
  const Invocation &exp = at(work, "cross_entropy_exp", Phase::Forward);
  EXPECT_EQ(exp.ops, 128 * 3 + 8 * 6);
  EXPECT_EQ(exp.readBytes(), 256 + 32 + 64);
  EXPECT_EQ(exp.writeBytes(), 512 + 32 + 32 + 64 + 8);
  const Invocation &loss = at(work, "cross_entropy", Phase::Forward);
  EXPECT_EQ(loss.ops, 128 + 8 * 2);
  EXPECT_EQ(loss.stashBytes, 8 * 16 * 4); // the fp32 softmax
  const Invocation &average = at(work, "loss_average", Phase::Forward);
  EXPECT_EQ(average.ops, 8 * 3 + 2);
  EXPECT_EQ(average.writes, (std::vector<TensorAccess>{{"lm_loss", 4}}));
  EXPECT_EQ(opsOf(work, "loss_average", Phase::ActivationGrad), 8 + 2);
  const Invocation &lossGrad = at(work, "cross_entropy", Phase::ActivationGrad);
  EXPECT_EQ(lossGrad.ops, 128 + 8 * 2);
  EXPECT_EQ(lossGrad.writes, (std::vector<TensorAccess>{{"d_logits", 256}}));
  EXPECT_EQ(opsOf(work, "lm_head_logits", Phase::ActivationGrad), 2048);
  EXPECT_EQ(opsOf(work, "lm_head_logits", Phase::WeightGrad), 2048);
  EXPECT_EQ(opsOf(work, "final_norm", Phase::ActivationGrad), 8 * (10 * 8 + 2));
  EXPECT_EQ(opsOf(work, "final_norm", Phase::WeightGrad), 64 * 5);
  checkStructure(work, 1, "tp=1");

  WorkSummary summary = valueOrFail(summarize(work));
  EXPECT_EQ(summary.total().stashBytes, 128 + 128 + 512);
  EXPECT_EQ(summary.of(Engine::Matmul).ops, 3 * 2048);
}

TEST(HeadWork, ByHandAtTwoRanksAllReduce) {
  BlockWork work = valueOrFail(deriveHeadWork(
      smallModel(), smallTraining(), mappingFor(2, TPCommMode::AllReduce)));
  // V/t = 8: 64 logits per rank.
  EXPECT_EQ(opsOf(work, "final_norm", Phase::Forward), 480);
  EXPECT_EQ(opsOf(work, "lm_head_logits", Phase::Forward), 1024);
  EXPECT_EQ(opsOf(work, "cross_entropy_max", Phase::Forward), 64);
  EXPECT_EQ(opsOf(work, "cross_entropy_exp", Phase::Forward), 64 * 3 + 48);
  EXPECT_EQ(opsOf(work, "cross_entropy", Phase::Forward), 64 + 16);
  EXPECT_EQ(opsOf(work, "cross_entropy", Phase::ActivationGrad), 64 + 16);
  const std::pair<const char *, ReductionKind> lossReductions[] = {
      {"loss_max_allreduce", ReductionKind::Max},
      {"loss_target_allreduce", ReductionKind::Sum},
      {"loss_sum_allreduce", ReductionKind::Sum}};
  for (auto [id, reduction] : lossReductions) {
    const Invocation &allReduce = at(work, id, Phase::Forward);
    ASSERT_TRUE(allReduce.collective.has_value()) << id;
    EXPECT_EQ(allReduce.collective->kind, CollectiveKind::AllReduce) << id;
    EXPECT_EQ(allReduce.collective->reduction, reduction) << id;
    EXPECT_EQ(allReduce.collective->messageBytes, 8 * 4) << id;
    EXPECT_EQ(allReduce.ops, 4) << id; // (t-1)bs/t
  }
  const Invocation &reduce = at(work, "lm_head_tp_f", Phase::ActivationGrad);
  EXPECT_EQ(reduce.collective->kind, CollectiveKind::AllReduce);
  EXPECT_EQ(reduce.collective->messageBytes, 128);
  EXPECT_EQ(reduce.ops, 32);
  EXPECT_EQ(work.find("lm_head_tp_f", Phase::Forward), nullptr);
  EXPECT_EQ(work.find("lm_head_wgrad_gather", Phase::Recommunication), nullptr);
  EXPECT_EQ(work.invocations.size(), 16u);
  checkStructure(work, 2, "tp=2 all_reduce");
  WorkSummary summary = valueOrFail(summarize(work));
  EXPECT_EQ(summary.total().stashBytes, 128 + 128 + 8 * 8 * 4);
}

TEST(HeadWork, ByHandAtTwoRanksSequenceParallel) {
  BlockWork work = valueOrFail(
      deriveHeadWork(smallModel(), smallTraining(),
                     mappingFor(2, TPCommMode::ReduceScatterAllGather)));
  using Id = std::pair<std::string, Phase>;
  std::vector<Id> expected = {{"final_norm", Phase::Forward},
                              {"lm_head_tp_f", Phase::Forward},
                              {"lm_head_logits", Phase::Forward},
                              {"cross_entropy_max", Phase::Forward},
                              {"loss_max_allreduce", Phase::Forward},
                              {"cross_entropy_exp", Phase::Forward},
                              {"loss_target_allreduce", Phase::Forward},
                              {"loss_sum_allreduce", Phase::Forward},
                              {"cross_entropy", Phase::Forward},
                              {"loss_average", Phase::Forward},
                              {"loss_average", Phase::ActivationGrad},
                              {"cross_entropy", Phase::ActivationGrad},
                              {"lm_head_logits", Phase::ActivationGrad},
                              {"lm_head_tp_f", Phase::ActivationGrad},
                              {"lm_head_wgrad_gather", Phase::Recommunication},
                              {"lm_head_logits", Phase::WeightGrad},
                              {"final_norm", Phase::ActivationGrad},
                              {"final_norm", Phase::WeightGrad}};
  EXPECT_EQ(order(work), expected);
  // The norm runs on the sequence shard (T' = 4 rows); no gather before it.
  const Invocation &norm = at(work, "final_norm", Phase::Forward);
  EXPECT_EQ(norm.ops, 4 * 60);
  EXPECT_EQ(norm.stashBytes, 64);
  const Invocation &gather = at(work, "lm_head_tp_f", Phase::Forward);
  EXPECT_EQ(gather.collective->kind, CollectiveKind::AllGather);
  EXPECT_EQ(gather.readBytes(), 64);
  EXPECT_EQ(gather.writeBytes(), 128);
  // The LM head sees all tokens and keeps only the shard.
  const Invocation &logits = at(work, "lm_head_logits", Phase::Forward);
  EXPECT_EQ(logits.ops, 1024);
  EXPECT_EQ(logits.stashBytes, 64);
  const Invocation &scatter = at(work, "lm_head_tp_f", Phase::ActivationGrad);
  EXPECT_EQ(scatter.collective->kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(scatter.readBytes(), 128);
  EXPECT_EQ(scatter.writeBytes(), 64);
  EXPECT_EQ(scatter.ops, 32);
  EXPECT_EQ(
      at(work, "lm_head_wgrad_gather", Phase::Recommunication).collective->kind,
      CollectiveKind::AllGather);
  EXPECT_EQ(opsOf(work, "final_norm", Phase::ActivationGrad), 4 * 82);
  EXPECT_EQ(opsOf(work, "final_norm", Phase::WeightGrad), 32 * 5);
  checkStructure(work, 2, "tp=2 sp");
}

TEST(HeadWork, RMSNormFinalNorm) {
  ModelSpec model = smallModel();
  model.norm = NormKind::RMSNorm;
  BlockWork work = valueOrFail(deriveHeadWork(
      model, smallTraining(), mappingFor(1, TPCommMode::AllReduce)));
  const Invocation &norm = at(work, "final_norm", Phase::Forward);
  EXPECT_EQ(norm.ops, 8 * (4 * 8 + 3));
  EXPECT_EQ(norm.readBytes(), 128 + 16); // no beta
  EXPECT_EQ(opsOf(work, "final_norm", Phase::ActivationGrad), 8 * (7 * 8 + 1));
  EXPECT_EQ(opsOf(work, "final_norm", Phase::WeightGrad), 64 * 3);
  EXPECT_EQ(at(work, "final_norm", Phase::WeightGrad).writes,
            (std::vector<TensorAccess>{{"d_final_norm_gamma", 16}}));
}

/// The LM head GEMMs are the tied weight's, exactly as the model summary
/// has always counted them (deriveLogitsWork filters them from here).
TEST(HeadWork, LogitsGemmsKeepTheirTensors) {
  for (TPCommMode mode : kModes) {
    BlockWork work = valueOrFail(
        deriveHeadWork(smallModel(), smallTraining(), mappingFor(2, mode)));
    const Invocation &forward = at(work, "lm_head_logits", Phase::Forward);
    EXPECT_EQ(forward.reads, (std::vector<TensorAccess>{
                                 {"x_final", 128}, {"w_word_embedding", 128}}));
    EXPECT_EQ(forward.writes, (std::vector<TensorAccess>{{"logits", 128}}));
    const Invocation &input = at(work, "lm_head_logits", Phase::ActivationGrad);
    EXPECT_EQ(input.reads, (std::vector<TensorAccess>{
                               {"d_logits", 128}, {"w_word_embedding", 128}}));
    EXPECT_EQ(input.writes, (std::vector<TensorAccess>{{"d_x_final", 128}}));
    const Invocation &weight = at(work, "lm_head_logits", Phase::WeightGrad);
    std::vector<TensorAccess> reads = {
        {"x_final", 128}, {"d_logits", 128}, {"d_w_word_embedding", 128}};
    EXPECT_EQ(weight.reads, reads);
    EXPECT_EQ(weight.writes,
              (std::vector<TensorAccess>{{"d_w_word_embedding", 128}}));
  }
}

/// MLM2021 Eq. 3's LM-head term: forward + input gradient + weight gradient
/// of the logits GEMMs are 6bshV/t per rank and micro-batch, so 6BshV over
/// the t ranks and the B/b micro-batches of an iteration.
TEST(HeadWork, LogitsAreSixBshV) {
  struct Case {
    int64_t hidden, heads, seq, vocab, microBatch, globalBatch, tp;
  };
  const Case cases[] = {{8, 2, 4, 16, 2, 4, 1},
                        {8, 2, 4, 16, 2, 4, 2},
                        {6144, 64, 2048, 51200, 4, 8, 8},
                        {12288, 96, 2048, 51200, 1, 2, 8}};
  for (const Case &c : cases) {
    ModelSpec model = smallModel();
    model.hidden = c.hidden;
    model.heads = c.heads;
    model.kvHeads = c.heads;
    model.headDim = c.hidden / c.heads;
    model.ffnHidden = 4 * c.hidden;
    model.seqLength = c.seq;
    model.maxPositions = c.seq;
    model.vocab = c.vocab;
    TrainingSpec training = smallTraining();
    training.microBatch = c.microBatch;
    training.globalBatch = c.globalBatch;
    for (TPCommMode mode : kModes) {
      BlockWork work =
          valueOrFail(deriveHeadWork(model, training, mappingFor(c.tp, mode)));
      int64_t perRank = 0;
      for (Phase phase :
           {Phase::Forward, Phase::ActivationGrad, Phase::WeightGrad})
        perRank += opsOf(work, "lm_head_logits", phase);
      EXPECT_EQ(perRank, 6 * c.microBatch * c.seq * c.hidden * c.vocab / c.tp);
      int64_t microbatches = c.globalBatch / c.microBatch;
      EXPECT_EQ(perRank * c.tp * microbatches,
                6 * c.globalBatch * c.seq * c.hidden * c.vocab);
      WorkSummary summary = valueOrFail(summarize(work));
      EXPECT_EQ(summary.of(Engine::Matmul).ops, perRank);
      checkStructure(work, c.tp, "6BshV");
    }
  }
}

TEST(HeadWork, TokensNotDivisibleByTPAreAnError) {
  ModelSpec model = smallModel();
  model.seqLength = 3;
  TrainingSpec training = smallTraining();
  training.microBatch = 1;
  training.globalBatch = 1;
  std::string message = errorOf(
      deriveHeadWork(model, training, mappingFor(2, TPCommMode::AllReduce))
          .takeError());
  // The composition refuses it (decoder_training_c16): 1 x 3 / 1 = 3 tokens
  // per rank, odd.
  EXPECT_NE(message.find("[decoder_training_c16] micro_batch * seq_length / "
                         "cp (the tokens per context-parallel rank without "
                         "sequence parallelism) = 3 is not divisible by tp = "
                         "2"),
            std::string::npos)
      << message;
  // At tp = 1 there is nothing to share.
  EXPECT_TRUE(static_cast<bool>(
      deriveHeadWork(model, training, mappingFor(1, TPCommMode::AllReduce))));
}

//===----------------------------------------------------------------------===//
// Parameters and the optimizer
//===----------------------------------------------------------------------===//

TEST(EdgeParameters, PerRank) {
  EdgeParameters one = valueOrFail(edgeParametersPerRank(
      smallModel(), mappingFor(1, TPCommMode::AllReduce)));
  EXPECT_EQ(one.wordEmbedding, 16 * 8);
  EXPECT_EQ(one.positionEmbedding, 6 * 8);
  EXPECT_EQ(one.finalNorm, 16);
  EdgeParameters two = valueOrFail(edgeParametersPerRank(
      smallModel(), mappingFor(2, TPCommMode::AllReduce)));
  EXPECT_EQ(two.wordEmbedding, 8 * 8);
  EXPECT_EQ(two.positionEmbedding, 6 * 8);
  EXPECT_EQ(two.finalNorm, 16);
  ModelSpec rms = smallModel();
  rms.norm = NormKind::RMSNorm;
  EXPECT_EQ(valueOrFail(edgeParametersPerRank(
                            rms, mappingFor(2, TPCommMode::AllReduce)))
                .finalNorm,
            8);

  ModelSpec odd = smallModel();
  odd.vocab = 15;
  std::string message =
      errorOf(edgeParametersPerRank(odd, mappingFor(2, TPCommMode::AllReduce))
                  .takeError());
  EXPECT_NE(message.find("decoder_training_c8"), std::string::npos) << message;
}

TEST(EdgeOptimizerWork, OneStageHoldsEverything) {
  for (TPCommMode mode : kModes) {
    BlockWork work = valueOrFail(deriveEdgeOptimizerWork(
        smallModel(), smallTraining(), mappingFor(2, mode), true, true));
    EXPECT_EQ(work.cadence, Cadence::PerIteration);
    // V h / t + max_positions h + 2h = 64 + 48 + 16.
    int64_t count = 64 + 48 + 16;
    const Invocation &step = at(work, "edge_adamw_step", Phase::Optimizer);
    EXPECT_EQ(step.ops, 16 * count);
    EXPECT_EQ(step.readBytes(), count * (4 + 4 + 4 + 2));
    EXPECT_EQ(step.writeBytes(), count * (4 + 4 + 4 + 2 + 2));
    const Invocation *sync =
        work.find("final_norm_grad_sync", Phase::WeightGrad);
    if (mode == TPCommMode::ReduceScatterAllGather) {
      ASSERT_NE(sync, nullptr);
      EXPECT_EQ(sync->collective->kind, CollectiveKind::AllReduce);
      EXPECT_EQ(sync->collective->messageBytes, 16 * 2);
      EXPECT_EQ(sync->ops, 8);
    } else {
      EXPECT_EQ(sync, nullptr);
    }
    checkStructure(work, 2, "optimizer");
  }
  // No sync at tp = 1, even in the SP mode.
  BlockWork single = valueOrFail(deriveEdgeOptimizerWork(
      smallModel(), smallTraining(),
      mappingFor(1, TPCommMode::ReduceScatterAllGather), true, true));
  EXPECT_EQ(single.invocations.size(), 1u);
  EXPECT_EQ(opsOf(single, "edge_adamw_step", Phase::Optimizer),
            16 * (128 + 48 + 16));
}

TEST(EdgeOptimizerWork, StagesOfAPipeline) {
  MappingSpec pp4 = mappingFor(2, TPCommMode::ReduceScatterAllGather, 4);
  BlockWork first = valueOrFail(
      deriveEdgeOptimizerWork(smallModel(), smallTraining(), pp4, true, false));
  ASSERT_EQ(first.invocations.size(), 1u);
  EXPECT_EQ(opsOf(first, "edge_adamw_step", Phase::Optimizer), 16 * (64 + 48));
  // The last stage steps its tied copy of the word embedding and the norm.
  BlockWork last = valueOrFail(
      deriveEdgeOptimizerWork(smallModel(), smallTraining(), pp4, false, true));
  ASSERT_EQ(last.invocations.size(), 2u);
  EXPECT_NE(last.find("final_norm_grad_sync", Phase::WeightGrad), nullptr);
  EXPECT_EQ(opsOf(last, "edge_adamw_step", Phase::Optimizer), 16 * (64 + 16));
  BlockWork middle = valueOrFail(deriveEdgeOptimizerWork(
      smallModel(), smallTraining(), pp4, false, false));
  EXPECT_TRUE(middle.invocations.empty());

  std::string both = errorOf(
      deriveEdgeOptimizerWork(smallModel(), smallTraining(), pp4, true, true)
          .takeError());
  EXPECT_NE(both.find("no stage is both"), std::string::npos) << both;
  std::string firstOnly = errorOf(
      deriveEdgeOptimizerWork(smallModel(), smallTraining(),
                              mappingFor(1, TPCommMode::AllReduce), true, false)
          .takeError());
  EXPECT_NE(firstOnly.find("both the first and the last"), std::string::npos)
      << firstOnly;
}

//===----------------------------------------------------------------------===//
// Rotary positions and untied embeddings
//===----------------------------------------------------------------------===//

ModelSpec rotaryModel() {
  ModelSpec model = smallModel();
  model.positionEmbedding = PositionEmbedding::Rotary;
  return model;
}

// Without a position table the lookup is the embeddings: no
// position_embedding invocation, no table parameters; under SP the partial
// lookups are reduce-scattered (reduce_scatter_embeddings) and their
// gradient all-gathered by the same primitive, with no scatter view.
TEST(EmbeddingWork, RotaryHasNoPositionTable) {
  using Id = std::pair<std::string, Phase>;
  BlockWork single = valueOrFail(deriveEmbeddingWork(
      rotaryModel(), smallTraining(), mappingFor(1, TPCommMode::AllReduce)));
  EXPECT_EQ(order(single),
            (std::vector<Id>{{"word_embedding", Phase::Forward},
                             {"embedding_dropout", Phase::Forward},
                             {"embedding_dropout", Phase::ActivationGrad},
                             {"word_embedding", Phase::WeightGrad}}));
  EXPECT_EQ(at(single, "word_embedding", Phase::Forward).writes.front().tensor,
            "embeddings");
  checkStructure(single, 1, "rotary tp=1");

  BlockWork allReduce = valueOrFail(deriveEmbeddingWork(
      rotaryModel(), smallTraining(), mappingFor(2, TPCommMode::AllReduce)));
  const Invocation &reduce = at(allReduce, "embedding_tp_g", Phase::Forward);
  EXPECT_EQ(reduce.collective->kind, CollectiveKind::AllReduce);
  EXPECT_EQ(reduce.reads.front().tensor, "embeddings");
  EXPECT_EQ(allReduce.find("position_embedding", Phase::WeightGrad), nullptr);
  checkStructure(allReduce, 2, "rotary tp=2");

  BlockWork sequence = valueOrFail(
      deriveEmbeddingWork(rotaryModel(), smallTraining(),
                          mappingFor(2, TPCommMode::ReduceScatterAllGather)));
  EXPECT_EQ(order(sequence),
            (std::vector<Id>{{"word_embedding", Phase::Forward},
                             {"embedding_tp_g", Phase::Forward},
                             {"embedding_dropout", Phase::Forward},
                             {"embedding_dropout", Phase::ActivationGrad},
                             {"embedding_tp_g", Phase::ActivationGrad},
                             {"word_embedding", Phase::WeightGrad}}));
  // T h = 8 x 8 bf16 elements reduce-scattered onto T'h = 32 per rank.
  const Invocation &scatter = at(sequence, "embedding_tp_g", Phase::Forward);
  EXPECT_EQ(scatter.collective->kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(scatter.collective->messageBytes, 128);
  EXPECT_EQ(scatter.readBytes(), 128);
  EXPECT_EQ(scatter.writeBytes(), 64);
  EXPECT_EQ(scatter.ops, 32);
  const Invocation &gather =
      at(sequence, "embedding_tp_g", Phase::ActivationGrad);
  EXPECT_EQ(gather.collective->kind, CollectiveKind::AllGather);
  EXPECT_EQ(gather.readBytes(), 64);
  EXPECT_EQ(gather.writeBytes(), 128);
  EXPECT_EQ(opsOf(sequence, "word_embedding", Phase::WeightGrad), 128);
  checkStructure(sequence, 2, "rotary tp=2 sp");

  EdgeParameters parameters = valueOrFail(edgeParametersPerRank(
      rotaryModel(), mappingFor(2, TPCommMode::AllReduce)));
  EXPECT_EQ(parameters.positionEmbedding, 0);
  EXPECT_EQ(parameters.firstStageTotal, 64);
}

// Untied embeddings: the LM head reads and accumulates its own w_output of
// h V / t; the one stage of pp = 1 holds both tables, a pipeline's last
// stage the output layer as it held the tied copy.
TEST(HeadWork, UntiedHeadHasItsOwnWeight) {
  ModelSpec untied = smallModel();
  untied.tiedEmbeddings = false;
  for (TPCommMode mode : kModes) {
    BlockWork work = valueOrFail(
        deriveHeadWork(untied, smallTraining(), mappingFor(2, mode)));
    BlockWork tied = valueOrFail(
        deriveHeadWork(smallModel(), smallTraining(), mappingFor(2, mode)));
    // h V / t = 64 weights at bf16.
    const Invocation &forward = at(work, "lm_head_logits", Phase::Forward);
    EXPECT_EQ(forward.reads.back().tensor, "w_output");
    EXPECT_EQ(forward.reads.back().bytes, 64 * 2);
    EXPECT_EQ(
        at(work, "lm_head_logits", Phase::ActivationGrad).reads.back().tensor,
        "w_output");
    const Invocation &weightGrad =
        at(work, "lm_head_logits", Phase::WeightGrad);
    EXPECT_EQ(weightGrad.writes.front().tensor, "d_w_output");
    EXPECT_EQ(weightGrad.ops,
              at(tied, "lm_head_logits", Phase::WeightGrad).ops);
    for (const Invocation &invocation : work.invocations)
      for (const TensorAccess &access : invocation.reads)
        EXPECT_EQ(access.tensor.find("word_embedding"), std::string::npos)
            << invocation.primitive;
    checkStructure(work, 2, "untied");
  }

  EdgeParameters one = valueOrFail(
      edgeParametersPerRank(untied, mappingFor(2, TPCommMode::AllReduce)));
  EXPECT_EQ(one.outputLayer, 64);
  EXPECT_EQ(one.lastStageTotal, 16 + 64);
  EXPECT_EQ(valueOrFail(edgeParametersPerRank(
                            smallModel(), mappingFor(2, TPCommMode::AllReduce)))
                .outputLayer,
            0);
  // pp = 1: V h / t twice + max_positions h + 2h.
  BlockWork step = valueOrFail(deriveEdgeOptimizerWork(
      untied, smallTraining(), mappingFor(2, TPCommMode::AllReduce), true,
      true));
  EXPECT_EQ(opsOf(step, "edge_adamw_step", Phase::Optimizer),
            16 * (64 + 64 + 48 + 16));
  // pp = 4: as tied, the last stage holds h V / t and the norm.
  MappingSpec pp4 = mappingFor(2, TPCommMode::AllReduce, 4);
  BlockWork last = valueOrFail(
      deriveEdgeOptimizerWork(untied, smallTraining(), pp4, false, true));
  EXPECT_EQ(opsOf(last, "edge_adamw_step", Phase::Optimizer), 16 * (64 + 16));
  // Rotary and untied together: the first stage holds only V h / t.
  ModelSpec llamaLike = rotaryModel();
  llamaLike.tiedEmbeddings = false;
  BlockWork first = valueOrFail(
      deriveEdgeOptimizerWork(llamaLike, smallTraining(), pp4, true, false));
  EXPECT_EQ(opsOf(first, "edge_adamw_step", Phase::Optimizer), 16 * 64);
}

TEST(EdgeParameters, NeedAPositivePipelineDegree) {
  MappingSpec mapping = mappingFor(1, TPCommMode::AllReduce);
  mapping.pp = 0;
  std::string message =
      errorOf(edgeParametersPerRank(smallModel(), mapping).takeError());
  EXPECT_NE(message.find("[transformer_mapping_c1] pp"), std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

TEST(EdgeWorkDiagnostics, OverflowNamesTheQuantity) {
  ModelSpec hugeVocab = smallModel();
  hugeVocab.vocab = int64_t(1) << 62;
  MappingSpec tp1 = mappingFor(1, TPCommMode::AllReduce);
  EXPECT_EQ(
      errorOf(deriveHeadWork(hugeVocab, smallTraining(), tp1).takeError()),
      "deriveHeadWork: 64-bit overflow computing logits elements");
  EXPECT_EQ(errorOf(edgeParametersPerRank(hugeVocab, tp1).takeError()),
            "edgeParametersPerRank: 64-bit overflow computing w_word_embedding "
            "parameters");
  EXPECT_EQ(errorOf(deriveEdgeOptimizerWork(hugeVocab, smallTraining(), tp1,
                                            true, true)
                        .takeError()),
            "deriveEdgeOptimizerWork: 64-bit overflow computing "
            "w_word_embedding parameters");
  // The first stage reads b*s rows whatever the vocabulary.
  EXPECT_TRUE(
      static_cast<bool>(deriveEmbeddingWork(hugeVocab, smallTraining(), tp1)));

  ModelSpec hugeHidden = smallModel();
  hugeHidden.hidden = int64_t(1) << 60;
  hugeHidden.headDim = hugeHidden.hidden / hugeHidden.heads;
  hugeHidden.ffnHidden = hugeHidden.hidden;
  EXPECT_EQ(
      errorOf(
          deriveEmbeddingWork(hugeHidden, smallTraining(), tp1).takeError()),
      "deriveEmbeddingWork: 64-bit overflow computing word_embeddings "
      "elements");
  std::string head =
      errorOf(deriveHeadWork(hugeHidden, smallTraining(), tp1).takeError());
  EXPECT_NE(head.find("deriveHeadWork: 64-bit overflow computing"),
            std::string::npos)
      << head;
}

TEST(EdgeWorkDiagnostics, SpecsThatDoNotComposeAreRejected) {
  MappingSpec broken = mappingFor(2, TPCommMode::AllReduce);
  broken.world = 3;
  for (const std::string &message :
       {errorOf(deriveEmbeddingWork(smallModel(), smallTraining(), broken)
                    .takeError()),
        errorOf(
            deriveHeadWork(smallModel(), smallTraining(), broken).takeError()),
        errorOf(deriveEdgeOptimizerWork(smallModel(), smallTraining(), broken,
                                        true, true)
                    .takeError())}) {
    EXPECT_NE(message.find("does not compose"), std::string::npos) << message;
    EXPECT_NE(message.find("transformer_mapping_c2"), std::string::npos)
        << message;
  }
}

} // namespace
