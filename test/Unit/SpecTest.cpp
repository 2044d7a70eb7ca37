//===- SpecTest.cpp - Composition rules of the three contracts ------------===//

#include "Blueprint/Workload/Spec.h"

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
  EXPECT_TRUE(checkTrainingComposition(oddSequence, trainingWith(8, 1),
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
