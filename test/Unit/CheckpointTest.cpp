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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

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
    if (failed(session.instrument(pm)))
      return failure();
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

namespace {
/// Makes the record of the first checkpoint impossible to write: while the
/// checkpoint is observed (before its files are written), a directory
/// takes the name of its JSON record.
class BlockingObserver : public CheckpointObserver {
public:
  explicit BlockingObserver(std::string recordPath)
      : recordPath(std::move(recordPath)) {}
  llvm::StringRef getName() const override { return "blocking"; }
  llvm::Error observe(const Checkpoint &) override {
    if (std::error_code error =
            llvm::sys::fs::create_directories(recordPath + "/occupied"))
      return llvm::errorCodeToError(error);
    return llvm::Error::success();
  }

private:
  std::string recordPath;
};
} // namespace

TEST_F(CheckpointTest, AFailedRecordWriteLeavesNoIRFile) {
  llvm::SmallString<128> directory;
  ASSERT_FALSE(
      llvm::sys::fs::createUniqueDirectory("blueprint-checkpoint", directory));
  std::string irPath = (directory + "/01-distribute-transformer.mlir").str();
  std::string recordPath =
      (directory + "/01-distribute-transformer.json").str();
  OwningOpRef<ModuleOp> module = buildModule();
  CheckpointSession session({directory.str().str(), "test"});
  session.addObserver(std::make_unique<BlockingObserver>(recordPath));
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  (void)run(session, *module);
  EXPECT_TRUE(failed(session.status()));
  EXPECT_TRUE(session.getCheckpoints().empty());
  EXPECT_NE(diagnostic.find("checkpoint: "), std::string::npos) << diagnostic;
  EXPECT_FALSE(llvm::sys::fs::exists(irPath))
      << "a checkpoint whose record failed must not leave its IR behind";
  (void)llvm::sys::fs::remove_directories(directory);
}

TEST(SessionFingerprint, NamesFileContentsNotPaths) {
  llvm::SmallString<128> directory;
  ASSERT_FALSE(
      llvm::sys::fs::createUniqueDirectory("blueprint-fingerprint", directory));
  auto write = [&](llvm::StringRef name, llvm::StringRef text) {
    std::string path = (directory + "/" + name).str();
    std::error_code error;
    llvm::raw_fd_ostream(path, error) << text;
    EXPECT_FALSE(error);
    return path;
  };
  std::string first = write("one.json", "{\"a\": 1}");
  std::string copy = write("elsewhere.json", "{\"a\": 1}");
  std::string other = write("other.json", "{\"a\": 2}");
  auto fingerprint = [](llvm::StringRef pipeline) {
    return computeSessionFingerprint("tool", pipeline, {"mesh"});
  };
  auto pipeline = [](llvm::StringRef profile, llvm::StringRef output) {
    return ("builtin.module(estimate{binding=tp:nvlink format=table output=" +
            output + " profile=" + profile + "})")
        .str();
  };
  EXPECT_EQ(fingerprint(pipeline(first, "a.txt")),
            fingerprint(pipeline(copy, "elsewhere/b.txt")));
  EXPECT_NE(fingerprint(pipeline(first, "a.txt")),
            fingerprint(pipeline(other, "a.txt")));
  // Other options still count, and so do the observers.
  EXPECT_NE(fingerprint(pipeline(first, "a.txt")),
            fingerprint("builtin.module(estimate{binding=tp:infiniband "
                        "format=table profile=" +
                        first + "})"));
  EXPECT_NE(computeSessionFingerprint("tool", "p", {"mesh"}),
            computeSessionFingerprint("tool", "p", {"mesh", "recompute"}));
  // A path with spaces prints braced in a textual pipeline.
  std::string spaced = write("with space.json", "{\"a\": 1}");
  EXPECT_EQ(fingerprint(pipeline("{" + spaced + "}", "a.txt")),
            fingerprint(pipeline(first, "a.txt")));
  EXPECT_EQ(digestFileContents(first), digestFileContents(copy));
  EXPECT_EQ(digestFileContents((directory + "/missing.json").str()),
            "unreadable");
  (void)llvm::sys::fs::remove_directories(directory);
}
