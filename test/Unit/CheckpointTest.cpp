//===- CheckpointTest.cpp - Checkpoints on an embedder's PassManager ------===//
//
// The embedding use case: a compiler builds its own PassManager in C++,
// installs Blueprint's checkpoint session and observers, and receives
// checkpoints.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Checkpoint/Checkpoint.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace blueprint;

namespace {

/// Records what it sees; optionally rejects a stage or mutates the snapshot.
class RecordingObserver : public CheckpointObserver {
public:
  RecordingObserver(std::vector<std::string> &seen, std::string rejectStage,
                    bool mutate)
      : seen(seen), rejectStage(std::move(rejectStage)), mutate(mutate) {}
  llvm::StringRef getName() const override { return "recording"; }
  llvm::Error observe(const Checkpoint &checkpoint) override {
    EXPECT_TRUE(checkpoint.snapshot);
    EXPECT_EQ(computeDigest(ModuleOp(checkpoint.snapshot)), checkpoint.digest);
    seen.push_back(checkpoint.stage);
    if (mutate)
      ModuleOp(checkpoint.snapshot)->setAttr(
          "sneaky", UnitAttr::get(ModuleOp(checkpoint.snapshot).getContext()));
    if (checkpoint.stage == rejectStage)
      return llvm::createStringError("stage %s is not welcome",
                                     checkpoint.stage.c_str());
    return llvm::Error::success();
  }

private:
  std::vector<std::string> &seen;
  std::string rejectStage;
  bool mutate;
};

class CheckpointTest : public ::testing::Test {
protected:
  CheckpointTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> buildModule() {
    workload::ModelSpec model;
    model.hidden = 64;
    model.heads = model.kvHeads = 4;
    model.headDim = 16;
    model.ffnHidden = 256;
    model.seqLength = model.maxPositions = 32;
    model.vocab = 128;
    model.blocks = 2;
    workload::TrainingSpec training;
    training.globalBatch = 4;
    training.microBatch = 2;
    workload::MappingSpec mapping;
    mapping.tp = mapping.world = 2;
    mapping.recompute = workload::RecomputePolicy::Full;
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    transformer::DecoderTrainingOp::create(
        builder, builder.getUnknownLoc(), builder.getStringAttr("embedded"),
        transformer::getModelAttr(&context, model),
        transformer::getTrainingAttr(&context, training),
        transformer::getMappingAttr(&context, mapping));
    return module;
  }

  /// Runs distribute + plan with `session` installed; returns the pipeline
  /// result.
  LogicalResult run(CheckpointSession &session, ModuleOp module) {
    PassManager pm(&context);
    pm.addPass(createDistributeTransformer());
    pm.addPass(createPlanPortable());
    session.instrument(pm);
    return pm.run(module);
  }

  MLIRContext context;
};

} // namespace

TEST_F(CheckpointTest, EmbedderReceivesOneCheckpointPerBlueprintPass) {
  OwningOpRef<ModuleOp> module = buildModule();
  std::string modelDigest = computeDigest(*module);
  std::vector<std::string> seen;
  CheckpointSession session;
  session.addObserver(std::make_unique<RecordingObserver>(seen, "", false));
  for (llvm::StringRef name : getBuiltinObserverNames())
    if (name != "reference")
      session.addObserver(cantFail(createBuiltinObserver(name, "")));
  ASSERT_TRUE(succeeded(run(session, *module)));
  ASSERT_TRUE(succeeded(session.status()));

  EXPECT_EQ(seen, (std::vector<std::string>{"distribution", "planning"}));
  llvm::ArrayRef<std::unique_ptr<Checkpoint>> checkpoints =
      session.getCheckpoints();
  ASSERT_EQ(checkpoints.size(), 2u);
  const Checkpoint &distribution = *checkpoints[0];
  const Checkpoint &planning = *checkpoints[1];
  EXPECT_EQ(distribution.sequence, 1u);
  EXPECT_EQ(distribution.record.argument, "distribute-transformer");
  EXPECT_EQ(distribution.record.inputDigest, modelDigest);
  EXPECT_EQ(planning.record.inputDigest, distribution.record.outputDigest);
  EXPECT_EQ(planning.digest, computeDigest(*module));
  EXPECT_GE(planning.record.hostSeconds, 0.0);
  EXPECT_EQ(distribution.sessionFingerprint, session.getFingerprint());
  EXPECT_FALSE(distribution.snapshot) << "snapshots live only while observed";

  // Lineage: every plan task leads back to the model through its location.
  size_t tasks = 0;
  for (const LineageEntry &entry : planning.lineage)
    if (entry.op == "pplan.task") {
      ++tasks;
      EXPECT_EQ(entry.model, "embedded");
      ASSERT_FALSE(entry.chain.empty());
      EXPECT_EQ(entry.chain.front(), entry.name + "." + entry.phase);
    }
  pplan::PlanOp plan = *module->getOps<pplan::PlanOp>().begin();
  EXPECT_EQ(tasks, llvm::range_size(plan.getBody().getOps<pplan::TaskOp>()));

  // The checkpoint's IR text re-parses to the same digest.
  OwningOpRef<ModuleOp> reparsed =
      parseSourceString<ModuleOp>(planning.ir, &context);
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(computeDigest(*reparsed), planning.digest);
}

TEST_F(CheckpointTest, RejectionHaltsThePipelineAndPublishesNothing) {
  OwningOpRef<ModuleOp> module = buildModule();
  std::vector<std::string> seen;
  CheckpointSession session;
  session.addObserver(
      std::make_unique<RecordingObserver>(seen, "distribution", false));
  std::vector<std::string> diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    diagnostics.push_back(diagnostic.str());
    return success();
  });
  (void)run(session, *module);
  EXPECT_TRUE(failed(session.status()));
  EXPECT_TRUE(session.getCheckpoints().empty());
  // The planning pass never ran: the module still holds the distributed IR.
  EXPECT_TRUE(module->getOps<pplan::PlanOp>().empty());
  EXPECT_EQ(seen, std::vector<std::string>{"distribution"});
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("observer boundary: observer 'recording' "
                                "rejected the distribution checkpoint of pass "
                                "'distribute-transformer': stage distribution "
                                "is not welcome"),
            std::string::npos)
      << diagnostics[0];
}

TEST_F(CheckpointTest, AnObserverThatMutatesIsRejected) {
  OwningOpRef<ModuleOp> module = buildModule();
  std::vector<std::string> seen;
  CheckpointSession session;
  session.addObserver(std::make_unique<RecordingObserver>(seen, "", true));
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  (void)run(session, *module);
  EXPECT_TRUE(failed(session.status()));
  EXPECT_TRUE(session.getCheckpoints().empty());
  EXPECT_NE(diagnostic.find("mutated the checkpoint snapshot"),
            std::string::npos)
      << diagnostic;
  // The pipeline's own IR is untouched by the observer.
  EXPECT_FALSE((*module)->hasAttr("sneaky"));
}
