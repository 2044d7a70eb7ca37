//===- TransformerDialectTest.cpp - ModelIR built from C++ ----------------===//
//
// The embedding use case: another compiler registers the dialects through
// the one entry point, builds ModelIR in C++ and relies on the verifier.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace blueprint;

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
