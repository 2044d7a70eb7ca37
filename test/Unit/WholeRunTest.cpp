//===- WholeRunTest.cpp - The whole-run program against closed forms ------===//
//
// Over a grid of schedules, layouts, ZeRO stages, buckets and TP modes: the
// totals read off the whole-run IR (--distribute-transformer=scope=iteration,
// summarizeStages) equal the plain derivation's (summarizeWholeRun) field by
// field, and both equal the closed forms: every stage runs its blocks'
// per-micro-batch work once per micro-batch, sends one message per
// micro-batch and direction across each boundary of its chunks, and reduces
// its padded gradients once.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/WholeRun.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/WorkTotals.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::workload;

namespace {

struct RunSpecs {
  ModelSpec model;
  TrainingSpec training;
  MappingSpec mapping;
};

std::string describe(const RunSpecs &run) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << stringifyEnum(run.mapping.schedule) << " pp=" << run.mapping.pp
     << " v=" << run.mapping.virtualStages << " tp=" << run.mapping.tp
     << " dp=" << run.mapping.dp << " zero=" << run.mapping.zeroStage
     << " bucket=" << run.mapping.bucketBytes << " "
     << stringifyEnum(run.mapping.tpComm) << " layout=[";
  llvm::interleaveComma(run.mapping.pipelineLayout, os);
  os << "]";
  return text;
}

std::vector<RunSpecs> grid() {
  std::vector<RunSpecs> runs;
  RunSpecs base;
  base.model.hidden = 64;
  base.model.heads = 4;
  base.model.kvHeads = 4;
  base.model.headDim = 16;
  base.model.ffnHidden = 256;
  base.model.seqLength = 32;
  base.model.maxPositions = 32;
  base.model.vocab = 128;
  base.model.blocks = 8;
  base.training.microBatch = 2;
  base.training.gradientType = DataType::F32;
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    for (int64_t pp : {1, 2, 4})
      for (std::vector<int64_t> layout :
           {std::vector<int64_t>{}, std::vector<int64_t>{3, 1, 1, 3}})
        for (int64_t zero : {0, 1})
          for (TPCommMode mode :
               {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather}) {
            bool interleaved = schedule == PipelineSchedule::Interleaved1F1B;
            if (interleaved && pp == 1)
              continue;
            int64_t v = interleaved ? 2 : 1;
            if (!layout.empty() && pp * v != 4)
              continue;
            RunSpecs run = base;
            run.mapping.schedule = schedule;
            run.mapping.pp = pp;
            run.mapping.virtualStages = v;
            run.mapping.tp = 2;
            run.mapping.dp = 2;
            run.mapping.world = 4 * pp;
            run.mapping.tpComm = mode;
            run.mapping.zeroStage = zero;
            run.mapping.bucketBytes = zero ? 300000 : 0;
            run.mapping.pipelineLayout = layout;
            // Four micro-batches per DP rank.
            run.training.globalBatch = 2 * 2 * 4;
            runs.push_back(run);
          }
  return runs;
}

class WholeRunTest : public ::testing::Test {
protected:
  WholeRunTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The stage totals read off the IR the pass builds for `run`.
  std::vector<StageTotals> throughIR(const RunSpecs &run) {
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    transformer::DecoderTrainingOp::create(
        builder, builder.getUnknownLoc(), builder.getStringAttr("m"),
        transformer::getModelAttr(&context, run.model),
        transformer::getTrainingAttr(&context, run.training),
        transformer::getMappingAttr(&context, run.mapping));
    PassManager pm(&context);
    DistributeTransformerOptions options;
    options.scope = "iteration";
    pm.addPass(createDistributeTransformer(options));
    if (failed(pm.run(*module))) {
      ADD_FAILURE() << "the pass failed on " << describe(run);
      return {};
    }
    auto program = *module->getBody()->getOps<dist::ProgramOp>().begin();
    FailureOr<std::vector<StageTotals>> stages = summarizeStages(program);
    if (failed(stages)) {
      ADD_FAILURE() << "summarizeStages failed on " << describe(run);
      return {};
    }
    return *stages;
  }

  MLIRContext context;
};

void expectEqual(const WorkTotals &lhs, const WorkTotals &rhs,
                 const std::string &where) {
  EXPECT_EQ(lhs.invocations, rhs.invocations) << where;
  EXPECT_EQ(lhs.ops, rhs.ops) << where;
  EXPECT_EQ(lhs.readBytes, rhs.readBytes) << where;
  EXPECT_EQ(lhs.writeBytes, rhs.writeBytes) << where;
  EXPECT_EQ(lhs.messageBytes, rhs.messageBytes) << where;
  EXPECT_EQ(lhs.minimumTransferBytes, rhs.minimumTransferBytes) << where;
  EXPECT_EQ(lhs.stashBytes, rhs.stashBytes) << where;
}

TEST_F(WholeRunTest, IRAndPlainDerivationAgreeWithTheClosedForms) {
  std::vector<RunSpecs> runs = grid();
  ASSERT_GT(runs.size(), 40u);
  for (const RunSpecs &run : runs) {
    std::string where = describe(run);
    llvm::Expected<WholeRun> derived =
        deriveWholeRun(run.model, run.training, run.mapping);
    ASSERT_TRUE(static_cast<bool>(derived))
        << where << ": " << llvm::toString(derived.takeError());
    llvm::Expected<std::vector<StageTotals>> plain =
        summarizeWholeRun(*derived);
    ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
    std::vector<StageTotals> ir = throughIR(run);
    ASSERT_EQ(ir.size(), plain->size()) << where;

    llvm::Expected<BlockWork> block =
        deriveBlockWork(run.model, run.training, run.mapping);
    ASSERT_TRUE(static_cast<bool>(block)) << llvm::toString(block.takeError());
    llvm::Expected<WorkSummary> perBlock = summarize(*block);
    ASSERT_TRUE(static_cast<bool>(perBlock));
    llvm::Expected<BlockWork> step =
        deriveOptimizerWork(run.model, run.training, run.mapping);
    ASSERT_TRUE(static_cast<bool>(step));
    llvm::Expected<WorkSummary> perBlockStep = summarize(*step);
    ASSERT_TRUE(static_cast<bool>(perBlockStep));
    llvm::Expected<int64_t> parameters =
        blockParametersPerRank(run.model, run.mapping);
    ASSERT_TRUE(static_cast<bool>(parameters));
    const PipelineLayout &layout = derived->layout;
    int64_t m = derived->microbatches;
    ASSERT_EQ(m, 4);
    int64_t dp = run.mapping.dp;

    for (size_t s = 0; s < ir.size(); ++s) {
      std::string at = where + ", stage " + std::to_string(s);
      const StageTotals &fromIR = ir[s];
      const StageTotals &fromPlain = (*plain)[s];
      // Both paths, field by field.
      for (Phase phase : allPhases())
        for (Engine engine : allEngines())
          expectEqual(fromIR.work.at(phase, engine),
                      fromPlain.work.at(phase, engine),
                      at + " " + stringifyEnum(phase).str() + " " +
                          stringifyEnum(engine).str());
      EXPECT_EQ(fromIR.messagesSent, fromPlain.messagesSent) << at;
      EXPECT_EQ(fromIR.bytesSent, fromPlain.bytesSent) << at;
      EXPECT_EQ(fromIR.messagesReceived, fromPlain.messagesReceived) << at;
      EXPECT_EQ(fromIR.bytesReceived, fromPlain.bytesReceived) << at;

      // Closed forms: blocks x micro-batches x the block's work.
      int64_t blocks = layout.stageBlocks(static_cast<int64_t>(s));
      for (Phase phase :
           {Phase::Forward, Phase::Recompute, Phase::ActivationGrad})
        for (Engine engine : {Engine::Matmul, Engine::Vector})
          EXPECT_EQ(fromIR.work.at(phase, engine).ops,
                    blocks * m * perBlock->at(phase, engine).ops)
              << at << " " << stringifyEnum(phase).str();
      EXPECT_EQ(fromIR.work.at(Phase::WeightGrad, Engine::Matmul).ops,
                blocks * m *
                    perBlock->at(Phase::WeightGrad, Engine::Matmul).ops)
          << at;
      EXPECT_EQ(fromIR.work.at(Phase::Forward, Engine::Matmul).stashBytes,
                blocks * m *
                    perBlock->at(Phase::Forward, Engine::Matmul).stashBytes)
          << at;
      // One message per micro-batch leaves every chunk boundary in each
      // direction: the stage's chunks that have a successor send
      // activations, those with a predecessor send gradients.
      int64_t sends = 0;
      for (int64_t k = 0; k < run.mapping.virtualStages; ++k) {
        int64_t chunk = layout.chunkAt(static_cast<int64_t>(s), k);
        sends += (chunk + 1 < layout.chunks()) + (chunk > 0);
      }
      EXPECT_EQ(fromIR.messagesSent, sends * m) << at;
      EXPECT_EQ(fromIR.messagesReceived, sends * m) << at;
      // The stage's gradients are reduced once, padded to a multiple of dp
      // per bucket: at least the unpadded bytes, less than one more element
      // per rank per bucket.
      int64_t gradientBytes = bytesOf(run.training.gradientType);
      int64_t reduced =
          fromIR.work.at(Phase::WeightGrad, Engine::Collective).messageBytes -
          perBlock->at(Phase::WeightGrad, Engine::Collective).messageBytes *
              blocks * m -
          perBlockStep->at(Phase::WeightGrad, Engine::Collective).messageBytes *
              blocks;
      int64_t unpadded = blocks * *parameters * gradientBytes;
      EXPECT_GE(reduced, unpadded) << at;
      EXPECT_LT(reduced, unpadded + 3 * dp * gradientBytes) << at;
      // A sharded optimizer steps over 1/dp of the padded gradients.
      if (run.mapping.zeroStage >= 1)
        EXPECT_EQ(fromIR.work.at(Phase::Optimizer, Engine::Vector).ops,
                  reduced / gradientBytes / dp * opcount::kAdamWPerParameter)
            << at;
      else
        EXPECT_EQ(fromIR.work.at(Phase::Optimizer, Engine::Vector).ops,
                  blocks * *parameters * opcount::kAdamWPerParameter)
            << at;
    }
  }
}

TEST(WholeRun, BucketsCloseOnceTheyReachBucketBytes) {
  RunSpecs run;
  run.model = {64, 4, 4, 16, 256, 32, 32, 128, 4};
  run.training.globalBatch = 4;
  run.training.microBatch = 2;
  run.training.gradientType = DataType::F32;
  run.mapping.dp = 2;
  run.mapping.world = 2;
  llvm::Expected<int64_t> parameters =
      blockParametersPerRank(run.model, run.mapping);
  ASSERT_TRUE(static_cast<bool>(parameters));
  int64_t blockBytes = *parameters * 4;
  // A bucket closes after two blocks: four blocks make two buckets.
  run.mapping.bucketBytes = blockBytes + 1;
  llvm::Expected<WholeRun> derived =
      deriveWholeRun(run.model, run.training, run.mapping);
  ASSERT_TRUE(static_cast<bool>(derived));
  std::vector<int64_t> messages;
  for (const RunStep &step : derived->stages[0].steps)
    if (const auto *work = std::get_if<RunWork>(&step.action))
      if (work->invocation.collective)
        messages.push_back(work->invocation.collective->messageBytes);
  EXPECT_EQ(messages, (std::vector<int64_t>{2 * blockBytes, 2 * blockBytes}));
  // No bucket size: one bucket.
  run.mapping.bucketBytes = 0;
  derived = deriveWholeRun(run.model, run.training, run.mapping);
  ASSERT_TRUE(static_cast<bool>(derived));
  messages.clear();
  for (const RunStep &step : derived->stages[0].steps)
    if (const auto *work = std::get_if<RunWork>(&step.action))
      if (work->invocation.collective)
        messages.push_back(work->invocation.collective->messageBytes);
  EXPECT_EQ(messages, (std::vector<int64_t>{4 * blockBytes}));
}

TEST(WholeRun, RefusesRunsThatDoNotCompose) {
  RunSpecs run;
  run.model = {64, 4, 4, 16, 256, 32, 32, 128, 4};
  run.training.globalBatch = 4;
  run.training.microBatch = 2;
  run.mapping.pp = 2;
  run.mapping.world = 2;
  run.mapping.pipelineLayout = {4, 1};
  llvm::Expected<WholeRun> derived =
      deriveWholeRun(run.model, run.training, run.mapping);
  ASSERT_FALSE(static_cast<bool>(derived));
  EXPECT_EQ(llvm::toString(derived.takeError()),
            "deriveWholeRun: the model, training and mapping contracts do not "
            "compose");
}

} // namespace
