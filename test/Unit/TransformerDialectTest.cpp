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
// new contracts, never a stale one.
TEST_F(TransformerDialectTest, RunShapesAreComposedOncePerContracts) {
  auto shapeOf =
      [&](const RunSpecs &run) -> const std::optional<workload::RunShape> & {
    return transformer::runShapeOf(
        transformer::getModelAttr(&context, run.model),
        transformer::getMappingAttr(&context, run.mapping),
        transformer::getTrainingAttr(&context, run.training),
        transformer::InferenceAttr());
  };
  RunSpecs run = smallRun(workload::PipelineSchedule::OneFOneB, 2, 4);
  const std::optional<workload::RunShape> &shape = shapeOf(run);
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->microbatches, 4);
  EXPECT_EQ(shape->layout.stages, 2);
  EXPECT_EQ(&shapeOf(run), &shape);
  EXPECT_EQ(
      shape->microbatches,
      workload::runShapeOf(run.model, run.mapping, run.training, std::nullopt)
          ->microbatches);

  RunSpecs moreMicroBatches =
      smallRun(workload::PipelineSchedule::OneFOneB, 2, 8);
  EXPECT_EQ(shapeOf(moreMicroBatches)->microbatches, 8);
  RunSpecs interleaved =
      smallRun(workload::PipelineSchedule::Interleaved1F1B, 2, 4);
  EXPECT_EQ(shapeOf(interleaved)->layout.virtualStages, 2);
  RunSpecs deeper = run;
  deeper.model.blocks = 16;
  EXPECT_EQ(shapeOf(deeper)->model.blocks, 16);
  // Contracts that do not compose have no shape, and are remembered so.
  RunSpecs broken = run;
  broken.training.globalBatch = 3;
  EXPECT_FALSE(shapeOf(broken).has_value());
  EXPECT_FALSE(shapeOf(broken).has_value());
  // The first contracts' shape is unchanged by the others.
  EXPECT_EQ(shapeOf(run)->microbatches, 4);
}
