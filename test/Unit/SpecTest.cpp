//===- SpecTest.cpp - Composition rules of the three contracts ------------===//

#include "Blueprint/Workload/Spec.h"
#include "Blueprint/Workload/Inference.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

using namespace blueprint::workload;

namespace {

ModelSpec smallModel() {
  ModelSpec model;
  model.hidden = 1024;
  model.heads = 16;
  model.kvHeads = 16;
  model.headDim = 64;
  model.ffnHidden = 4096;
  model.seqLength = 512;
  model.maxPositions = 512;
  model.vocab = 1024;
  model.blocks = 24;
  return model;
}

/// smallModel with `experts` experts, 2 per token, 1024 wide, no MLP biases
/// (decoder_moe_c5): a mixture-of-experts model every derived rule accepts.
ModelSpec smallMoeModel(int64_t experts) {
  ModelSpec model = smallModel();
  model.linearBias = LinearBias::None;
  MixtureOfExperts moe;
  moe.experts = experts;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 1024;
  model.moe = moe;
  return model;
}

TrainingSpec trainingWith(int64_t globalBatch, int64_t microBatch) {
  TrainingSpec training;
  training.globalBatch = globalBatch;
  training.microBatch = microBatch;
  return training;
}

MappingSpec mappingWith(int64_t tp, int64_t pp, int64_t dp, int64_t v = 1) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.pp = pp;
  mapping.dp = dp;
  mapping.world = tp * pp * dp;
  mapping.virtualStages = v;
  mapping.schedule =
      v > 1 ? PipelineSchedule::Interleaved1F1B : PipelineSchedule::OneFOneB;
  return mapping;
}

std::vector<std::string> rulesOf(const std::vector<RuleViolation> &violations) {
  std::vector<std::string> rules;
  for (const RuleViolation &violation : violations)
    rules.push_back(violation.rule);
  return rules;
}

} // namespace

// Over a grid of mappings, composeTraining succeeds exactly when every
// division is integral, and its quantities are the MISSION.md quotients.
TEST(Composition, QuotientsOverGrid) {
  ModelSpec model = smallModel();
  for (int64_t tp : {1, 2, 4, 8, 16, 32})
    for (int64_t pp : {1, 2, 3, 4})
      for (int64_t dp : {1, 2, 3, 8})
        for (int64_t v : {1, 2, 3})
          for (int64_t micro : {1, 2, 4}) {
            if (v > 1 && pp < 2)
              continue;
            TrainingSpec training = trainingWith(96, micro);
            MappingSpec mapping = mappingWith(tp, pp, dp, v);
            bool integral = 96 % dp == 0 && (96 / dp) % micro == 0 &&
                            24 % (pp * v) == 0 && 16 % tp == 0 &&
                            1024 % tp == 0 && 4096 % tp == 0 &&
                            (v == 1 || (96 / dp / micro) % pp == 0);
            std::optional<TrainingComposition> composition =
                composeTraining(model, training, mapping);
            ASSERT_EQ(composition.has_value(), integral)
                << "tp=" << tp << " pp=" << pp << " dp=" << dp << " v=" << v
                << " micro=" << micro;
            if (!composition)
              continue;
            EXPECT_EQ(composition->localBatch * dp, 96);
            EXPECT_EQ(composition->microbatches * dp * micro, 96);
            EXPECT_EQ(composition->blocksPerVirtualChunk * pp * v, 24);
          }
}

TEST(Composition, EachRuleIsReportedByLabel) {
  ModelSpec model = smallModel();
  EXPECT_EQ(rulesOf(checkTrainingComposition(model, trainingWith(10, 1),
                                             mappingWith(1, 1, 4))),
            std::vector<std::string>{"decoder_training_c1"});
  EXPECT_EQ(rulesOf(checkTrainingComposition(model, trainingWith(12, 4),
                                             mappingWith(1, 1, 2))),
            std::vector<std::string>{"decoder_training_c2"});
  EXPECT_EQ(rulesOf(checkTrainingComposition(model, trainingWith(8, 1),
                                             mappingWith(1, 5, 1))),
            std::vector<std::string>{"decoder_training_c3"});
  ModelSpec oddSequence = smallModel();
  oddSequence.seqLength = 510;
  MappingSpec sequenceParallel = mappingWith(4, 1, 1);
  // Without sequence parallelism the cross-entropy's 1 x 510 tokens do not
  // split over tp = 4 (c16); 2 x 510 = 1020 do.
  EXPECT_EQ(rulesOf(checkTrainingComposition(oddSequence, trainingWith(8, 1),
                                             sequenceParallel)),
            std::vector<std::string>{"decoder_training_c16"});
  EXPECT_TRUE(checkTrainingComposition(oddSequence, trainingWith(8, 2),
                                       sequenceParallel)
                  .empty());
  sequenceParallel.tpComm = TPCommMode::ReduceScatterAllGather;
  EXPECT_EQ(rulesOf(checkTrainingComposition(oddSequence, trainingWith(8, 1),
                                             sequenceParallel)),
            std::vector<std::string>{"decoder_training_c9"});
  EXPECT_EQ(rulesOf(checkTrainingComposition(model, trainingWith(6, 1),
                                             mappingWith(1, 4, 1, 2))),
            std::vector<std::string>{"decoder_training_c10"});
}

TEST(Mapping, WorldAndScheduleRules) {
  MappingSpec mapping = mappingWith(2, 2, 2);
  EXPECT_TRUE(checkMapping(mapping).empty());
  mapping.world = 7;
  EXPECT_EQ(rulesOf(checkMapping(mapping)),
            std::vector<std::string>{"transformer_mapping_c2"});
  MappingSpec overflowing = mappingWith(1, 1, 1);
  overflowing.tp = overflowing.pp = int64_t(1) << 32;
  EXPECT_EQ(rulesOf(checkMapping(overflowing)),
            std::vector<std::string>{"transformer_mapping_c2"});
  MappingSpec gpipe = mappingWith(1, 2, 1);
  gpipe.schedule = PipelineSchedule::GPipe;
  gpipe.virtualStages = 2;
  EXPECT_EQ(rulesOf(checkMapping(gpipe)),
            std::vector<std::string>{"transformer_mapping_c3"});
  MappingSpec interleavedOneStage = mappingWith(1, 1, 1, 2);
  EXPECT_EQ(rulesOf(checkMapping(interleavedOneStage)),
            std::vector<std::string>{"transformer_mapping_c4"});
}

TEST(Model, RulesAndDatatypeWidths) {
  ModelSpec model = smallModel();
  EXPECT_TRUE(checkModel(model).empty());
  model.kvHeads = 6;
  EXPECT_EQ(rulesOf(checkModel(model)),
            std::vector<std::string>{"transformer_model_c2"});
  model = smallModel();
  model.maxPositions = 256;
  EXPECT_EQ(rulesOf(checkModel(model)),
            std::vector<std::string>{"transformer_model_c3"});
  model = smallModel();
  model.vocab = -1;
  EXPECT_EQ(rulesOf(checkModel(model)),
            std::vector<std::string>{"transformer_model_c1"});
  EXPECT_EQ(bytesOf(DataType::F32), 4);
  EXPECT_EQ(bytesOf(DataType::BF16), 2);
  EXPECT_EQ(bytesOf(DataType::F16), 2);
  EXPECT_EQ(bytesOf(DataType::FP8), 1);
}

// One statement of "the contracts, then their composition": the
// composition is checked only when every contract holds, and the
// violations are kept by contract.
TEST(SpecRules, RunChecksContractsThenComposition) {
  // tp = 3 divides neither heads nor hidden: composition violations only.
  RunViolations badTP =
      checkTrainingRun(smallModel(), trainingWith(8, 1), mappingWith(3, 1, 1));
  EXPECT_TRUE(badTP.model.empty() && badTP.workload.empty() &&
              badTP.mapping.empty());
  EXPECT_EQ(rulesOf(badTP.composition),
            (std::vector<std::string>{
                "decoder_training_c4", "decoder_training_c5",
                "decoder_training_c6", "decoder_training_c7",
                "decoder_training_c8", "decoder_training_c16"}));
  EXPECT_EQ(rulesOf(badTP.all()), rulesOf(badTP.composition));
  // A broken contract hides the composition (it would divide by zero).
  ModelSpec zero = smallModel();
  zero.hidden = 0;
  RunViolations broken =
      checkTrainingRun(zero, trainingWith(0, 1), mappingWith(3, 1, 1));
  EXPECT_EQ(rulesOf(broken.model),
            std::vector<std::string>{"transformer_model_c1"});
  EXPECT_EQ(rulesOf(broken.workload),
            std::vector<std::string>{"transformer_training_c1"});
  EXPECT_TRUE(broken.composition.empty());
  EXPECT_EQ(rulesOf(broken.all()),
            (std::vector<std::string>{"transformer_model_c1",
                                      "transformer_training_c1"}));
  EXPECT_TRUE(
      checkTrainingRun(smallModel(), trainingWith(8, 1), mappingWith(4, 2, 2))
          .empty());
}

TEST(SpecRules, ImplicitHeadDim) {
  EXPECT_EQ(
      std::get<int64_t>(implicitHeadDim(1024, 16, std::nullopt, std::nullopt)),
      64);
  std::variant<int64_t, RuleViolation> odd =
      implicitHeadDim(100, 3, std::nullopt, std::nullopt);
  ASSERT_TRUE(std::holds_alternative<RuleViolation>(odd));
  EXPECT_EQ(std::get<RuleViolation>(odd).rule, "transformer_model_c4");
  EXPECT_EQ(std::get<RuleViolation>(odd).message,
            "hidden = 100 is not divisible by heads = 3 and no head_dim is "
            "given");
  // Sizes that are not positive are transformer_model_c1's to report.
  EXPECT_EQ(
      std::get<int64_t>(implicitHeadDim(0, 3, std::nullopt, std::nullopt)), 0);
  EXPECT_EQ(
      std::get<int64_t>(implicitHeadDim(64, 0, std::nullopt, std::nullopt)), 0);
  // Under multi-head latent attention a query/key head is its non-rotary
  // and rotary parts, whatever hidden / heads is (DeepSeek-V3: 56 != 192).
  EXPECT_EQ(std::get<int64_t>(implicitHeadDim(7168, 128, 128, 64)), 192);
  EXPECT_EQ(std::get<int64_t>(implicitHeadDim(100, 3, 128, 64)), 192);
  EXPECT_EQ(std::get<int64_t>(implicitHeadDim(7168, 128, 0, 64)), 0);
  std::variant<int64_t, RuleViolation> huge =
      implicitHeadDim(7168, 128, INT64_MAX, 64);
  ASSERT_TRUE(std::holds_alternative<RuleViolation>(huge));
  EXPECT_EQ(std::get<RuleViolation>(huge).rule, "transformer_model_c9");
}

namespace {

/// DeepSeek-V3's attention (config.json: hidden 7168, 128 heads,
/// q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128,
/// qk_rope_head_dim 64, v_head_dim 128), RMSNorm, rotary, no biases.
ModelSpec latentAttentionModel() {
  return blueprint::test::deepSeekV3AttentionModel();
}

std::vector<std::string>
labelledMessages(const std::vector<RuleViolation> &found) {
  std::vector<std::string> rules;
  for (const RuleViolation &violation : found)
    rules.push_back(violation.rule + ": " + violation.message);
  return rules;
}

} // namespace

TEST(SpecRules, LatentAttention) {
  EXPECT_TRUE(checkModel(latentAttentionModel()).empty());
  ModelSpec plainQuery = latentAttentionModel();
  plainQuery.qLoraRank = std::nullopt;
  EXPECT_TRUE(checkModel(plainQuery).empty());

  ModelSpec zeroRank = latentAttentionModel();
  zeroRank.qLoraRank = 0;
  EXPECT_EQ(labelledMessages(checkModel(zeroRank)),
            std::vector<std::string>{
                "transformer_model_c1: q_lora_rank must be positive, got 0"});

  ModelSpec partial = latentAttentionModel();
  partial.kvLoraRank = std::nullopt;
  partial.vHeadDim = std::nullopt;
  EXPECT_EQ(labelledMessages(checkModel(partial)),
            std::vector<std::string>{
                "transformer_model_c6: multi-head latent attention needs "
                "kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and "
                "v_head_dim together; given q_lora_rank, qk_nope_head_dim, "
                "qk_rope_head_dim, missing kv_lora_rank, v_head_dim"});

  // Every other rule at once: a GPT-style model with MLA dimensions.
  ModelSpec contradicting = latentAttentionModel();
  contradicting.positionEmbedding = PositionEmbedding::Learned;
  contradicting.kvHeads = 8;
  contradicting.headDim = 128;
  contradicting.linearBias = LinearBias::QKVOnly;
  EXPECT_EQ(
      labelledMessages(checkModel(contradicting)),
      (std::vector<std::string>{
          "transformer_model_c7: multi-head latent attention (kv_lora_rank) "
          "needs position_embedding = rotary, got learned: its positions are "
          "the decoupled rotary query and key",
          "transformer_model_c8: multi-head latent attention (kv_lora_rank) "
          "needs kv_heads = heads, got kv_heads = 8 and heads = 128: every "
          "head's key and value come from the shared latent",
          "transformer_model_c9: head_dim = 128 differs from "
          "qk_nope_head_dim + qk_rope_head_dim = 128 + 64 = 192, the "
          "query/key head width of multi-head latent attention",
          "transformer_model_c10: multi-head latent attention (kv_lora_rank) "
          "needs linear_bias = none, got qkv: DeepSeek's projections carry "
          "no bias"}));
}

// Over a grid of sequence lengths, context-parallel degrees and TP modes,
// the context-parallel rules fire exactly when the split they guard is not
// integral: 2 * cp chunks of the sequence (c1), then tp shards of each CP
// rank's chunks under sequence parallelism (c2, which replaces c9), and
// without it tp shards of the rank's tokens (decoder_training_c16); c5
// refuses every cp > 1 run whose work is not derived, and cp = 1 changes
// nothing.
TEST(Composition, ContextParallelRules) {
  ModelSpec model = smallModel();
  for (int64_t seq : {96, 120, 128, 136, 200})
    for (int64_t cp : {1, 2, 3, 4})
      for (int64_t tp : {1, 4})
        for (bool sp : {false, true}) {
          model.seqLength = seq;
          model.maxPositions = seq;
          MappingSpec mapping = mappingWith(tp, 1, 1);
          mapping.cp = cp;
          mapping.world = tp * cp;
          mapping.tpComm =
              sp ? TPCommMode::ReduceScatterAllGather : TPCommMode::AllReduce;
          std::vector<std::string> expected;
          if (sp && cp == 1 && seq % tp != 0)
            expected.push_back("decoder_training_c9");
          // Rank r of cp holds chunks r and 2cp-1-r of 2cp equal chunks.
          bool chunked = seq % (2 * cp) == 0;
          if (cp > 1 && !chunked)
            expected.push_back("context_parallel_c1");
          if (cp > 1 && chunked && sp && (seq / (2 * cp) * 2) % tp != 0)
            expected.push_back("context_parallel_c2");
          // Without sequence parallelism the cross-entropy splits the
          // rank's 1 x seq / cp tokens over tp (decoder_training_c16).
          if ((cp == 1 || chunked) && !sp && (seq / cp) % tp != 0)
            expected.push_back("decoder_training_c16");
          EXPECT_EQ(
              rulesOf(
                  checkTrainingRun(model, trainingWith(8, 1), mapping).all()),
              expected)
              << "seq " << seq << " cp " << cp << " tp " << tp << " sp " << sp;
        }
}

// A sliding window is refused with context parallelism, kept without.
TEST(Composition, ContextParallelWindow) {
  ModelSpec model = smallModel();
  model.attentionWindow = 128;
  MappingSpec mapping = mappingWith(1, 1, 1);
  EXPECT_TRUE(checkTrainingRun(model, trainingWith(8, 1), mapping).empty());
  mapping.cp = 2;
  mapping.world = 2;
  EXPECT_EQ(rulesOf(checkTrainingRun(model, trainingWith(8, 1), mapping).all()),
            (std::vector<std::string>{"context_parallel_c3"}));
}

// world counts the context-parallel ranks: tp * cp * pp * dp.
TEST(Composition, ContextParallelWorld) {
  MappingSpec mapping = mappingWith(2, 2, 2);
  mapping.cp = 3;
  EXPECT_EQ(rulesOf(checkMapping(mapping)),
            std::vector<std::string>{"transformer_mapping_c2"});
  mapping.world = 2 * 3 * 2 * 2;
  EXPECT_TRUE(checkMapping(mapping).empty());
  mapping.cp = 0;
  EXPECT_EQ(rulesOf(checkMapping(mapping)),
            std::vector<std::string>{"transformer_mapping_c1"});
}

namespace {

/// Whether block `block` (from 0) has the MoE MLP, by the definition of
/// MixtureOfExperts::firstDenseBlocks and layerFrequency.
bool isExpertBlock(const MixtureOfExperts &moe, int64_t block) {
  return block >= moe.firstDenseBlocks && block % moe.layerFrequency == 0;
}

/// The MoE blocks of a model, counted one block at a time.
int64_t countExpertBlocks(const MixtureOfExperts &moe, int64_t blocks) {
  int64_t count = 0;
  for (int64_t block = 0; block < blocks; ++block)
    if (isExpertBlock(moe, block))
      ++count;
  return count;
}

} // namespace

TEST(MixtureOfExperts, ExpertBlocksClosedFormCountsEveryBlock) {
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 64;
  for (int64_t blocks = 1; blocks <= 40; ++blocks)
    for (int64_t firstDense = 0; firstDense <= 42; ++firstDense)
      for (int64_t frequency = 1; frequency <= 7; ++frequency) {
        moe.firstDenseBlocks = firstDense;
        moe.layerFrequency = frequency;
        EXPECT_EQ(moe.expertBlocks(blocks), countExpertBlocks(moe, blocks))
            << blocks << " blocks, " << firstDense << " dense first, every "
            << frequency;
      }
  // Mixtral: every block; DeepSeek-V3: 3 dense blocks, then 58 MoE blocks.
  moe.firstDenseBlocks = 0;
  moe.layerFrequency = 1;
  EXPECT_EQ(moe.expertBlocks(32), 32);
  moe.firstDenseBlocks = 3;
  EXPECT_EQ(moe.expertBlocks(61), 61 - 3);
  // Blocks with experts past the first_dense_blocks and off the frequency
  // are dense: 0, 2, 4 of 6 with experts every 2nd block.
  moe.firstDenseBlocks = 0;
  moe.layerFrequency = 2;
  EXPECT_EQ(moe.expertBlocks(6), 3);
}

TEST(MixtureOfExperts, RulesAndTheRunRefusal) {
  ModelSpec model = smallModel();
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 1024;
  model.moe = moe;
  EXPECT_TRUE(checkModel(model).empty());

  // The one rule a single edit of a valid MoE model breaks.
  auto onlyRuleAfter = [&model](void (*edit)(MixtureOfExperts &)) {
    ModelSpec broken = model;
    edit(*broken.moe);
    std::vector<RuleViolation> violations = checkModel(broken);
    return violations.size() == 1 ? violations.front().rule : std::string();
  };
  EXPECT_EQ(onlyRuleAfter([](MixtureOfExperts &m) {
              m.experts = 1;
              m.expertsPerToken = 1;
            }),
            "transformer_model_c11");
  EXPECT_EQ(onlyRuleAfter([](MixtureOfExperts &m) { m.expertsPerToken = -1; }),
            "transformer_model_c12");
  EXPECT_EQ(onlyRuleAfter([](MixtureOfExperts &m) { m.expertsPerToken = 9; }),
            "transformer_model_c13");
  EXPECT_EQ(
      onlyRuleAfter([](MixtureOfExperts &m) { m.capacityFactorPercent = -5; }),
      "transformer_model_c14");
  EXPECT_EQ(onlyRuleAfter([](MixtureOfExperts &m) { m.firstDenseBlocks = 24; }),
            "transformer_model_c15");
  // The worst expert carries at most every token: 100 * E / k = 400.
  EXPECT_EQ(
      onlyRuleAfter([](MixtureOfExperts &m) { m.imbalancePercent = 400; }), "");
  EXPECT_EQ(
      onlyRuleAfter([](MixtureOfExperts &m) { m.imbalancePercent = 401; }),
      "transformer_model_c16");
  // An imbalance whose product with k overflows is a violation, not a wrap.
  EXPECT_EQ(onlyRuleAfter(
                [](MixtureOfExperts &m) { m.imbalancePercent = INT64_MAX; }),
            "transformer_model_c16");

  // A valid MoE model composes with a valid run once it is of the derived
  // kind: every block with experts (c1), no shared experts (c4), no MLP
  // biases (c5). Each of the three alone is refused by its rule, after every
  // other rule holds.
  auto derivedBlockRules = [&model](void (*edit)(ModelSpec &)) {
    ModelSpec edited = model;
    edit(edited);
    std::vector<std::string> rules;
    for (const RuleViolation &violation :
         checkTrainingRun(edited, trainingWith(8, 1), mappingWith(1, 1, 1))
             .all())
      rules.push_back(violation.rule);
    return rules;
  };
  using Rules = std::vector<std::string>;
  EXPECT_EQ(derivedBlockRules([](ModelSpec &m) {}), Rules{"decoder_moe_c5"});
  model.linearBias = LinearBias::None;
  EXPECT_EQ(derivedBlockRules([](ModelSpec &m) {}), Rules{});
  // Dense and MoE blocks in one run are derived (docs/WholeRun.md, "Block
  // kinds").
  EXPECT_EQ(
      derivedBlockRules([](ModelSpec &m) { m.moe->firstDenseBlocks = 3; }),
      Rules{});
  EXPECT_EQ(derivedBlockRules([](ModelSpec &m) { m.moe->layerFrequency = 2; }),
            Rules{});
  EXPECT_EQ(derivedBlockRules([](ModelSpec &m) { m.moe->sharedExperts = 1; }),
            Rules{});
  EXPECT_EQ(derivedBlockRules(
                [](ModelSpec &m) { m.linearBias = LinearBias::QKVOnly; }),
            Rules{});
  model.moe = std::nullopt;
  EXPECT_TRUE(checkTrainingRun(model, trainingWith(8, 1), mappingWith(1, 1, 1))
                  .empty());
}

TEST(MixtureOfExperts, TensorParallelRules) {
  ModelSpec model = smallMoeModel(8);
  auto trainingRules = [&](const MappingSpec &mapping) {
    std::vector<std::string> rules;
    for (const RuleViolation &violation :
         checkTrainingRun(model, trainingWith(8, 1), mapping).all())
      rules.push_back(violation.rule);
    return rules;
  };
  using Rules = std::vector<std::string>;
  MappingSpec tp2 = mappingWith(2, 1, 1);
  tp2.tpComm = TPCommMode::AllReduce;
  // Training experts under tp > 1 needs sequence parallelism (c2).
  EXPECT_EQ(trainingRules(tp2), Rules{"decoder_moe_c2"});
  tp2.tpComm = TPCommMode::ReduceScatterAllGather;
  EXPECT_EQ(trainingRules(tp2), Rules{});
  // expert_ffn_hidden splits over tp (c3), for serving too.
  model.moe->expertFfnHidden = 1021;
  EXPECT_EQ(trainingRules(tp2), Rules{"decoder_moe_c3"});
  InferenceSpec inference;
  inference.batch = 8;
  inference.promptLength = 16;
  inference.generatedTokens = 4;
  MappingSpec serving = mappingWith(2, 1, 1);
  serving.tpComm = TPCommMode::AllReduce;
  std::vector<RuleViolation> violations =
      checkInferenceRun(model, inference, serving).all();
  ASSERT_FALSE(violations.empty());
  EXPECT_EQ(violations.front().rule, "decoder_moe_c3");
}

// Over a grid of data-parallel degrees, expert counts and expert-parallel
// degrees, the expert-parallel rules fire exactly when their split is not
// whole: ep must divide dp (c1, EP is carved out of the data-parallel ranks)
// and the experts (c3, E / ep experts per rank); a training run that
// splits is refused at ep > 1 only by c7 when ep does not divide the pairs
// it would exchange (its work is derived), and ep = 1 changes nothing.
// Serving shares c1 and c3 and is refused at every ep > 1 by its own rule,
// c6, reported with them.
TEST(Composition, ExpertParallelRules) {
  InferenceSpec inference;
  inference.batch = 24;
  inference.promptLength = 16;
  inference.generatedTokens = 4;
  for (int64_t dp : {1, 2, 4, 6})
    for (int64_t experts : {4, 6, 8})
      for (int64_t ep : {1, 2, 3, 4}) {
        ModelSpec model = smallMoeModel(experts);
        MappingSpec mapping = mappingWith(1, 1, dp);
        mapping.ep = ep;
        std::vector<std::string> splits;
        if (ep > 1 && dp % ep != 0)
          splits.push_back("expert_parallel_c1");
        if (ep > 1 && experts % ep != 0)
          splits.push_back("expert_parallel_c3");
        // A rank's kept pairs are P_l = k b s = 2 * 1 * 512 = 1,024 (tp 1,
        // dropless): ep = 3 does not divide them (expert_parallel_c7, the
        // all-to-all's equal chunks; dp 6 and E 6 reach it), 2 and 4 do.
        std::vector<std::string> training = splits;
        if (ep > 1 && splits.empty() && 1024 % ep != 0)
          training.push_back("expert_parallel_c7");
        std::vector<std::string> serving = splits;
        if (ep > 1)
          serving.push_back("expert_parallel_c6");
        EXPECT_EQ(
            rulesOf(
                checkTrainingRun(model, trainingWith(24, 1), mapping).all()),
            training)
            << "dp " << dp << " experts " << experts << " ep " << ep;
        EXPECT_EQ(rulesOf(checkInferenceRun(model, inference, mapping).all()),
                  serving)
            << "serving: dp " << dp << " experts " << experts << " ep " << ep;
      }
}

// ep > 1 with cp > 1 is refused by expert_parallel_c5 at every dp, whether
// or not ep divides dp (c1, reported with it): Megatron-LM accepts
// ep | dp * cp but places each EP group over the CP ranks first (its expert
// RankGenerator has cp = 1; at dp 1, cp 2, ep 2 the EP group is the two CP
// ranks), which the mesh [pp, edp, ep, tp] does not model. c4 is never
// reached: c5 is a composition rule.
TEST(Composition, ExpertParallelRulesWithContextParallel) {
  ModelSpec model = smallMoeModel(8); // seq 512: 2 * cp = 4 divides it
  for (int64_t dp : {1, 2, 4})
    for (int64_t ep : {2, 4}) {
      MappingSpec mapping = mappingWith(1, 1, dp);
      mapping.cp = 2;
      mapping.world = 2 * dp;
      mapping.ep = ep;
      std::vector<std::string> expected;
      if (dp % ep != 0)
        expected.push_back("expert_parallel_c1");
      expected.push_back("expert_parallel_c5");
      EXPECT_EQ(
          rulesOf(checkTrainingRun(model, trainingWith(24, 1), mapping).all()),
          expected)
          << "dp " << dp << " cp 2 ep " << ep;
    }
  // Serving refuses cp > 1 on its own (context_parallel_c4) and ep > 1 on
  // its own (expert_parallel_c6); c5 is reported between them.
  InferenceSpec inference;
  inference.batch = 8;
  inference.promptLength = 16;
  inference.generatedTokens = 4;
  MappingSpec serving = mappingWith(1, 1, 2);
  serving.tpComm = TPCommMode::AllReduce;
  serving.cp = 2;
  serving.world = 4;
  serving.ep = 2;
  EXPECT_EQ(
      rulesOf(checkInferenceRun(model, inference, serving).all()),
      (std::vector<std::string>{"context_parallel_c4", "expert_parallel_c5",
                                "expert_parallel_c6"}));
}

// ep is positive (transformer_mapping_c1), does not enter world, and needs
// a model with experts (expert_parallel_c2).
TEST(Composition, ExpertParallelContract) {
  MappingSpec mapping = mappingWith(2, 1, 4);
  mapping.ep = 0;
  EXPECT_EQ(rulesOf(checkMapping(mapping)),
            std::vector<std::string>{"transformer_mapping_c1"});
  // world = tp * pp * dp = 8 whatever ep: the EP ranks are DP ranks.
  mapping.ep = 4;
  EXPECT_TRUE(checkMapping(mapping).empty());
  mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  EXPECT_EQ(
      rulesOf(
          checkTrainingRun(smallModel(), trainingWith(8, 1), mapping).all()),
      std::vector<std::string>{"expert_parallel_c2"});
}
