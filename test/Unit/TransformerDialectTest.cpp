//===- TransformerDialectTest.cpp - ModelIR built from C++ ----------------===//
//
// The embedding use case: another compiler registers the dialects through
// the one entry point, builds ModelIR in C++ and relies on the verifier.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"
#include "SmallRuns.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace blueprint;
using blueprint::test::RunSpecs;
using blueprint::test::smallRun;

namespace {

class TransformerDialectTest : public ::testing::Test {
protected:
  TransformerDialectTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  workload::ModelSpec gqaModel() const {
    workload::ModelSpec model;
    model.hidden = 4096;
    model.heads = 32;
    model.kvHeads = 8;
    model.headDim = 128;
    model.ffnHidden = 14336;
    model.seqLength = 4096;
    model.maxPositions = 8192;
    model.vocab = 128256;
    model.blocks = 32;
    model.norm = workload::NormKind::RMSNorm;
    model.activation = workload::ActivationKind::SwiGLU;
    return model;
  }

  MLIRContext context;
};

} // namespace

TEST_F(TransformerDialectTest, ContractsRoundTripThroughAttributes) {
  workload::ModelSpec model = gqaModel();
  workload::ModelSpec back =
      transformer::getModelAttr(&context, model).getSpec();
  EXPECT_EQ(back.kvHeads, 8);
  EXPECT_EQ(back.headDim, 128);
  EXPECT_EQ(back.maxPositions, 8192);
  EXPECT_EQ(back.norm, workload::NormKind::RMSNorm);
  EXPECT_EQ(back.activation, workload::ActivationKind::SwiGLU);

  // Defaults are left out of the attribute and restored by getSpec.
  model.kvHeads = model.heads;
  model.headDim = model.hidden / model.heads;
  model.maxPositions = model.seqLength;
  transformer::ModelAttr plain = transformer::getModelAttr(&context, model);
  EXPECT_FALSE(plain.getKvHeads().has_value());
  EXPECT_FALSE(plain.getHeadDim().has_value());
  EXPECT_FALSE(plain.getMaxPositions().has_value());
  EXPECT_EQ(plain.getSpec().kvHeads, 32);
  EXPECT_EQ(plain.getSpec().headDim, 128);
}

TEST_F(TransformerDialectTest, VerifierRejectsInvalidCompositionBuiltInCpp) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  workload::TrainingSpec training;
  training.globalBatch = 64;
  training.microBatch = 1;
  workload::MappingSpec mapping;
  mapping.tp = 16; // does not divide kv_heads = 8
  mapping.pp = 1;
  mapping.dp = 1;
  mapping.world = 16;
  auto op = transformer::DecoderTrainingOp::create(
      builder, loc, builder.getStringAttr("gqa"),
      transformer::getModelAttr(&context, gqaModel()),
      transformer::getTrainingAttr(&context, training),
      transformer::getMappingAttr(&context, mapping));

  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    messages.push_back(diagnostic.str());
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("decoder_training_c5: kv_heads = 8 is not "
                             "divisible by tp = 16"),
            std::string::npos)
      << messages[0];

  messages.clear();
  op.setMappingAttr(transformer::getMappingAttr(&context, [&] {
    workload::MappingSpec fixed = mapping;
    fixed.tp = fixed.world = 8;
    return fixed;
  }()));
  EXPECT_TRUE(succeeded(verify(*module)));
  EXPECT_TRUE(messages.empty());
  workload::TrainingComposition composition = op.getComposition();
  EXPECT_EQ(composition.localBatch, 64);
  EXPECT_EQ(composition.microbatches, 64);
  EXPECT_EQ(composition.blocksPerVirtualChunk, 32);
}

// The run shape a whole-run program's ops verify against is composed once
// per set of contracts in a context: equal attributes give the same shape
// (the same object), and a change to any contract gives the shape of the
// new contracts, never a stale one: the shape workload::runShapeOf gives
// them.
TEST_F(TransformerDialectTest, RunShapesAreComposedOncePerContracts) {
  auto expectShapeOf = [&](const workload::ModelSpec &model,
                           const workload::MappingSpec &mapping,
                           std::optional<workload::TrainingSpec> training,
                           std::optional<workload::InferenceSpec> inference)
      -> const std::optional<workload::RunShape> & {
    const std::optional<workload::RunShape> &shape = transformer::runShapeOf(
        transformer::getModelAttr(&context, model),
        transformer::getMappingAttr(&context, mapping),
        training ? transformer::getTrainingAttr(&context, *training)
                 : transformer::TrainingAttr(),
        inference ? transformer::getInferenceAttr(&context, *inference)
                  : transformer::InferenceAttr());
    std::optional<workload::RunShape> expected =
        workload::runShapeOf(model, mapping, training, inference);
    EXPECT_EQ(shape.has_value(), expected.has_value());
    if (shape && expected) {
      EXPECT_EQ(shape->microbatches, expected->microbatches);
      EXPECT_EQ(shape->layout.stages, expected->layout.stages);
      EXPECT_EQ(shape->layout.virtualStages, expected->layout.virtualStages);
      EXPECT_EQ(shape->layout.chunkBlocks, expected->layout.chunkBlocks);
      EXPECT_EQ(shape->schedule, expected->schedule);
      EXPECT_EQ(shape->promptLength, expected->promptLength);
      EXPECT_EQ(shape->model.blocks, expected->model.blocks);
    }
    return shape;
  };
  auto trainingShapeOf =
      [&](const RunSpecs &run) -> const std::optional<workload::RunShape> & {
    return expectShapeOf(run.model, run.mapping, run.training, std::nullopt);
  };
  RunSpecs run = smallRun(workload::PipelineSchedule::OneFOneB, 2, 4);
  const std::optional<workload::RunShape> &shape = trainingShapeOf(run);
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->microbatches, 4);
  EXPECT_EQ(shape->layout.stages, 2);
  EXPECT_EQ(&trainingShapeOf(run), &shape);

  // Each contract changed alone.
  const std::optional<workload::RunShape> &moreMicroBatches =
      trainingShapeOf(smallRun(workload::PipelineSchedule::OneFOneB, 2, 8));
  ASSERT_TRUE(moreMicroBatches.has_value());
  EXPECT_EQ(moreMicroBatches->microbatches, 8);
  const std::optional<workload::RunShape> &interleaved = trainingShapeOf(
      smallRun(workload::PipelineSchedule::Interleaved1F1B, 2, 4));
  ASSERT_TRUE(interleaved.has_value());
  EXPECT_EQ(interleaved->layout.virtualStages, 2);
  RunSpecs deeper = run;
  deeper.model.blocks = 16;
  const std::optional<workload::RunShape> &deeperShape =
      trainingShapeOf(deeper);
  ASSERT_TRUE(deeperShape.has_value());
  EXPECT_EQ(deeperShape->model.blocks, 16);
  // Contracts that do not compose have no shape, and are remembered so.
  RunSpecs broken = run;
  broken.training.globalBatch = 3;
  EXPECT_FALSE(trainingShapeOf(broken).has_value());
  EXPECT_FALSE(trainingShapeOf(broken).has_value());

  // Inference contracts on the same model and mapping: the generation's
  // steps are the shape's micro-batches, and each inference contract, and
  // the training one, has its own shape.
  workload::InferenceSpec generation;
  generation.batch = 2;
  generation.promptLength = 8;
  generation.generatedTokens = 4;
  auto inferenceShapeOf = [&](const workload::InferenceSpec &inference)
      -> const std::optional<workload::RunShape> & {
    return expectShapeOf(run.model, run.mapping, std::nullopt, inference);
  };
  const std::optional<workload::RunShape> &generated =
      inferenceShapeOf(generation);
  ASSERT_TRUE(generated.has_value());
  EXPECT_TRUE(generated->inference());
  EXPECT_EQ(generated->microbatches, 4);
  EXPECT_EQ(generated->promptLength, 8);
  // Each of the two changed alone.
  for (auto [promptLength, generatedTokens] :
       {std::pair<int64_t, int64_t>{8, 6}, {16, 4}}) {
    workload::InferenceSpec changed = generation;
    changed.promptLength = promptLength;
    changed.generatedTokens = generatedTokens;
    const std::optional<workload::RunShape> &changedShape =
        inferenceShapeOf(changed);
    ASSERT_TRUE(changedShape.has_value());
    EXPECT_EQ(changedShape->microbatches, generatedTokens);
    EXPECT_EQ(changedShape->promptLength, promptLength);
  }
  EXPECT_EQ(&inferenceShapeOf(generation), &generated);
  EXPECT_NE(&generated, &shape);

  // The first contracts' shape is unchanged by the others.
  ASSERT_TRUE(trainingShapeOf(run).has_value());
  EXPECT_EQ(trainingShapeOf(run)->microbatches, 4);
  EXPECT_FALSE(trainingShapeOf(run)->inference());
}
