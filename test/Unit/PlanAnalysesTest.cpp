//===- PlanAnalysesTest.cpp - Memory and time: IR path == plain path ------===//
//
// For a grid of schedules, layouts, ZeRO stages and TP modes, and for
// inference runs: the buffers --plan-portable writes into a whole-run plan
// (read back by stageBuffersOf) equal deriveBuffers' field by field, their
// sweeps are equal, and the plan's graph (planGraphOf) has the same steps,
// times and longest path as the plain runGraphOf: a search that skips the
// IR gets exactly the numbers the auditable pipeline reports.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/PlanAnalyses.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Workload/Inference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::workload;
using blueprint::test::RunSpecs;
using blueprint::test::valueOrFail;

namespace {

class PlanAnalysesTest : public ::testing::Test {
protected:
  PlanAnalysesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    profile = valueOrFail(estimate::loadSystemProfile(
        std::string(BLUEPRINT_PROFILES_DIR) + "/a100-80gb.json"));
    binding.tierOfAxis = {
        {"tp", "nvlink"}, {"pp", "infiniband"}, {"dp", "infiniband"}};
  }

  /// The whole-run plan of the run `create` builds the ModelIR op of.
  template <typename CreateT> OwningOpRef<ModuleOp> planOf(CreateT create) {
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    create(builder);
    PassManager pm(&context);
    DistributeTransformerOptions options;
    options.scope = "iteration";
    pm.addPass(createDistributeTransformer(options));
    pm.addPass(createPlanPortable());
    if (failed(pm.run(*module)))
      return nullptr;
    return module;
  }

  /// The whole-run plan of a training run.
  OwningOpRef<ModuleOp> trainingPlanOf(const RunSpecs &run) {
    return planOf([&](OpBuilder &builder) {
      transformer::DecoderTrainingOp::create(
          builder, builder.getUnknownLoc(), builder.getStringAttr("m"),
          transformer::getModelAttr(&context, run.model),
          transformer::getTrainingAttr(&context, run.training),
          transformer::getMappingAttr(&context, run.mapping));
    });
  }

  /// Expects the IR path and the plain path to agree on `run`.
  void expectAgreement(ModuleOp module, const WholeRun &run,
                       const MappingSpec &mapping,
                       const std::optional<TrainingSpec> &training,
                       DataType computeType, const std::string &where) {
    auto plan = *module.getBody()->getOps<pplan::PlanOp>().begin();
    std::vector<StageBuffers> ir = valueOrFail(stageBuffersOf(plan));
    std::vector<StageBuffers> plain =
        valueOrFail(deriveBuffers(run, mapping, training));
    ASSERT_EQ(ir.size(), plain.size()) << where;
    for (size_t stage = 0; stage < ir.size(); ++stage) {
      const StageBuffers &lhs = ir[stage], &rhs = plain[stage];
      EXPECT_EQ(lhs.stage, rhs.stage) << where;
      EXPECT_EQ(lhs.positions, rhs.positions) << where;
      ASSERT_EQ(lhs.buffers.size(), rhs.buffers.size()) << where;
      for (size_t i = 0; i < lhs.buffers.size(); ++i) {
        const RunBuffer &a = lhs.buffers[i], &b = rhs.buffers[i];
        std::string at =
            where + " stage " + std::to_string(stage) + " " + b.name;
        EXPECT_EQ(a.name, b.name) << at;
        EXPECT_EQ(a.cause, b.cause) << at;
        EXPECT_EQ(a.bytes, b.bytes) << at;
        EXPECT_EQ(a.producer, b.producer) << at;
        EXPECT_EQ(a.consumers, b.consumers) << at;
        EXPECT_EQ(a.start, b.start) << at;
        EXPECT_EQ(a.end, b.end) << at;
      }
      StageMemory irMemory = valueOrFail(analyzeMemory(lhs));
      StageMemory plainMemory = valueOrFail(analyzeMemory(rhs));
      EXPECT_EQ(irMemory.peakBytes, plainMemory.peakBytes) << where;
      EXPECT_EQ(irMemory.peakPosition, plainMemory.peakPosition) << where;
      EXPECT_EQ(irMemory.liveBytes, plainMemory.liveBytes) << where;
      EXPECT_GT(irMemory.peakBytes, 0) << where;
    }

    analysis::RunGraph irGraph =
        valueOrFail(planGraphOf(plan, profile, binding));
    analysis::RunGraph plainGraph = valueOrFail(
        analysis::runGraphOf(run, mapping, computeType, profile, binding));
    ASSERT_EQ(irGraph.stages.size(), plainGraph.stages.size()) << where;
    for (size_t stage = 0; stage < irGraph.stages.size(); ++stage) {
      ASSERT_EQ(irGraph.stages[stage].size(), plainGraph.stages[stage].size())
          << where;
      for (size_t i = 0; i < irGraph.stages[stage].size(); ++i) {
        const analysis::GraphStep &a = irGraph.stages[stage][i];
        const analysis::GraphStep &b = plainGraph.stages[stage][i];
        EXPECT_EQ(a.label, b.label) << where;
        EXPECT_EQ(a.kind, b.kind) << where << " " << b.label;
        EXPECT_EQ(a.seconds, b.seconds) << where << " " << b.label;
        EXPECT_EQ(a.hiddenSeconds, b.hiddenSeconds) << where << " " << b.label;
        EXPECT_EQ(a.transferSeconds, b.transferSeconds) << where;
        EXPECT_EQ(a.deps, b.deps) << where << " " << b.label;
        EXPECT_EQ(a.readyAfter, b.readyAfter) << where << " " << b.label;
        EXPECT_EQ(a.readySeconds, b.readySeconds) << where << " " << b.label;
        EXPECT_EQ(a.besideBackward, b.besideBackward)
            << where << " " << b.label;
        EXPECT_EQ(a.channel, b.channel) << where << " " << b.label;
      }
    }
    analysis::CriticalPathReport irPath =
        valueOrFail(analysis::longestPath(irGraph));
    analysis::CriticalPathReport plainPath =
        valueOrFail(analysis::longestPath(plainGraph));
    EXPECT_EQ(irPath.iterationSeconds, plainPath.iterationSeconds) << where;
    EXPECT_GT(irPath.iterationSeconds, 0) << where;
    EXPECT_EQ(irPath.path.size(), plainPath.path.size()) << where;
    EXPECT_EQ(irPath.exposedCommunicationSeconds,
              plainPath.exposedCommunicationSeconds)
        << where;
    EXPECT_EQ(irPath.pathHiddenTPCommSeconds, plainPath.pathHiddenTPCommSeconds)
        << where;
    EXPECT_EQ(irPath.pathHiddenDPReduceSeconds,
              plainPath.pathHiddenDPReduceSeconds)
        << where;
    for (size_t stage = 0; stage < irPath.stages.size(); ++stage) {
      EXPECT_EQ(irPath.stages[stage].hiddenTPCommSeconds,
                plainPath.stages[stage].hiddenTPCommSeconds)
          << where << " stage " << stage;
      EXPECT_EQ(irPath.stages[stage].hiddenDPReduceSeconds,
                plainPath.stages[stage].hiddenDPReduceSeconds)
          << where << " stage " << stage;
    }
  }

  /// The plan of the training run `run`, after expectAgreement with its
  /// plain derivation; null (and a failure) when it has none.
  OwningOpRef<ModuleOp> agreeingPlanOf(const RunSpecs &run,
                                       const std::string &where) {
    OwningOpRef<ModuleOp> module = trainingPlanOf(run);
    EXPECT_TRUE(module) << where;
    if (!module)
      return module;
    WholeRun derived =
        valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
    expectAgreement(*module, derived, run.mapping, run.training,
                    run.training.activationType, where);
    return module;
  }

  MLIRContext context;
  estimate::SystemProfile profile;
  estimate::NetworkTierBinding binding;
};

TEST_F(PlanAnalysesTest, TrainingRunsAgreeThroughTheIR) {
  int64_t count = 0;
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    for (int64_t pp : {1, 2})
      for (int64_t zero : {0, 2, 3})
        for (TPCommMode mode :
             {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather})
          for (bool uneven : {false, true}) {
            bool interleaved = schedule == PipelineSchedule::Interleaved1F1B;
            if ((interleaved && pp == 1) || (uneven && pp == 1))
              continue;
            RunSpecs run = test::smallRun(schedule, pp, 4);
            run.mapping.zeroStage = zero;
            run.mapping.bucketBytes = zero ? 300000 : 0;
            run.mapping.tpComm = mode;
            if (uneven)
              run.mapping.pipelineLayout =
                  interleaved ? std::vector<int64_t>{3, 1, 1, 3}
                              : std::vector<int64_t>{5, 3};
            std::string where = test::describeRun(run);
            ASSERT_TRUE(agreeingPlanOf(run, where)) << where;
            ++count;
          }
  EXPECT_GT(count, 60);
}

// overlap_tp_comm: the plan's mapping carries it, and the IR graph, path
// and per-stage overlapped time equal the plain ones (the IR report's
// figures come from planGraphOf alone).
TEST_F(PlanAnalysesTest, OverlappedRunsAgreeThroughTheIR) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved1F1B,
        PipelineSchedule::ZeroBubbleH1})
    for (TPCommMode mode :
         {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather}) {
      RunSpecs run = test::smallRun(schedule, 2, 4);
      run.mapping.tpComm = mode;
      run.mapping.overlapTPComm = true;
      std::string where = test::describeRun(run) + " overlap_tp_comm";
      OwningOpRef<ModuleOp> module = agreeingPlanOf(run, where);
      ASSERT_TRUE(module) << where;
      auto plan = *module->getBody()->getOps<pplan::PlanOp>().begin();
      analysis::CriticalPathReport path = valueOrFail(analysis::longestPath(
          valueOrFail(planGraphOf(plan, profile, binding))));
      // tp = 2: every backward instance on the path overlaps something.
      EXPECT_GT(path.pathHiddenTPCommSeconds, 0) << where;
    }
}

// overlap_dp_grad_reduce: the derivation's partial dependencies become
// `ready_blocks` on the plan's reductions (pplan_stage_c4), and the IR
// graph (readiness, hidden reduction) equals the plain one, over every
// schedule, pp 1 and 2, ZeRO 0 and 1, one bucket per block (bucket_bytes =
// 1, so most buckets are ready inside an instance) and a few buckets.
TEST_F(PlanAnalysesTest, OverlappedReductionsAgreeThroughTheIR) {
  int64_t readyInside = 0;
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
    for (int64_t pp : {1, 2})
      for (int64_t zero : {0, 1})
        for (int64_t bucketBytes : {1, 300000}) {
          if (schedule == PipelineSchedule::Interleaved1F1B && pp == 1)
            continue;
          RunSpecs run = test::smallRun(schedule, pp, 4);
          run.mapping.zeroStage = zero;
          run.mapping.bucketBytes = bucketBytes;
          run.mapping.overlapDPGradReduce = true;
          std::string where =
              test::describeRun(run) + " overlap_dp_grad_reduce";
          OwningOpRef<ModuleOp> module = agreeingPlanOf(run, where);
          ASSERT_TRUE(module) << where;
          auto plan = *module->getBody()->getOps<pplan::PlanOp>().begin();
          plan.walk([&](pplan::TaskOp task) {
            if (task.getReadyBlocks())
              ++readyInside;
          });
        }
  EXPECT_GT(readyInside, 0);
}

/// The verifier accepts a plan's stages in any order; the analyses read
/// them by index.
TEST_F(PlanAnalysesTest, StagesAreReadByIndex) {
  RunSpecs run = test::smallRun(PipelineSchedule::OneFOneB, 4, 4);
  OwningOpRef<ModuleOp> module = trainingPlanOf(run);
  ASSERT_TRUE(module);
  auto plan = *module->getBody()->getOps<pplan::PlanOp>().begin();
  std::vector<StageBuffers> inOrder = valueOrFail(stageBuffersOf(plan));
  analysis::CriticalPathReport pathInOrder = valueOrFail(
      analysis::longestPath(valueOrFail(planGraphOf(plan, profile, binding))));
  // Stage 3 first, then 2, 1, 0.
  llvm::SmallVector<pplan::StageOp> stages(
      plan.getBody().getOps<pplan::StageOp>());
  for (pplan::StageOp stage : stages)
    stage->moveBefore(&plan.getBody().front().front());
  ASSERT_EQ((*plan.getBody().getOps<pplan::StageOp>().begin()).getIndex(), 3);
  ASSERT_TRUE(succeeded(verify(plan)));
  std::vector<StageBuffers> reordered = valueOrFail(stageBuffersOf(plan));
  ASSERT_EQ(reordered.size(), inOrder.size());
  for (size_t stage = 0; stage < reordered.size(); ++stage) {
    EXPECT_EQ(reordered[stage].stage, static_cast<int64_t>(stage));
    EXPECT_EQ(reordered[stage].buffers.size(), inOrder[stage].buffers.size());
  }
  analysis::CriticalPathReport pathReordered = valueOrFail(
      analysis::longestPath(valueOrFail(planGraphOf(plan, profile, binding))));
  EXPECT_EQ(pathReordered.iterationSeconds, pathInOrder.iterationSeconds);
  EXPECT_EQ(pathReordered.path.front().stage, 0);
}

/// The sweep test's grid (test/Sweep/sweep-matches-single-runs.test): one
/// data-parallel rank, sequence parallelism, every recompute policy.
TEST_F(PlanAnalysesTest, SweepGridAgreesThroughTheIR) {
  RunSpecs base = test::smallRun(PipelineSchedule::OneFOneB, 1, 4);
  base.model.hidden = 128;
  base.model.heads = base.model.kvHeads = 16;
  base.model.headDim = 8;
  base.model.ffnHidden = 512;
  base.model.seqLength = base.model.maxPositions = 64;
  base.model.vocab = 256;
  base.model.blocks = 4;
  base.training.globalBatch = 8;
  base.mapping.dp = 1;
  for (int64_t tp : {1, 2})
    for (int64_t pp : {1, 2})
      for (RecomputePolicy recompute :
           {RecomputePolicy::None, RecomputePolicy::Selective,
            RecomputePolicy::Full})
        for (TPCommMode mode :
             {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather}) {
          RunSpecs run = base;
          run.mapping.tp = tp;
          run.mapping.pp = pp;
          run.mapping.world = tp * pp;
          run.mapping.recompute = recompute;
          run.mapping.tpComm = mode;
          std::string where = test::describeRun(run) + " tp=" +
                              std::to_string(tp) + " " +
                              stringifyEnum(recompute).str() + " " +
                              stringifyEnum(mode).str();
          OwningOpRef<ModuleOp> module = trainingPlanOf(run);
          ASSERT_TRUE(module) << where;
          WholeRun derived = valueOrFail(
              deriveWholeRun(run.model, run.training, run.mapping));
          expectAgreement(*module, derived, run.mapping, run.training,
                          run.training.activationType, where);
        }
}

TEST_F(PlanAnalysesTest, InferenceRunsAgreeThroughTheIR) {
  RunSpecs base = test::smallRun(PipelineSchedule::OneFOneB, 2, 4);
  // Without a window, and with windows below the prompt and inside the
  // decode range (the rolling-buffer cache stops growing there).
  for (std::optional<int64_t> window :
       {std::optional<int64_t>(), std::optional<int64_t>(5),
        std::optional<int64_t>(10)})
    for (int64_t pp : {1, 2, 4})
      for (int64_t tp : {1, 2}) {
        base.model.attentionWindow = window;
        InferenceSpec inference;
        inference.batch = 4;
        inference.promptLength = 8;
        inference.generatedTokens = 4;
        MappingSpec mapping;
        mapping.pp = pp;
        mapping.tp = tp;
        mapping.dp = 2;
        mapping.world = pp * tp * 2;
        std::string where =
            "inference pp=" + std::to_string(pp) + " tp=" + std::to_string(tp) +
            " window=" + (window ? std::to_string(*window) : "none");
        OwningOpRef<ModuleOp> module = planOf([&](OpBuilder &builder) {
          transformer::DecoderInferenceOp::create(
              builder, builder.getUnknownLoc(), builder.getStringAttr("m"),
              transformer::getModelAttr(&context, base.model),
              transformer::getInferenceAttr(&context, inference),
              transformer::getMappingAttr(&context, mapping));
        });
        ASSERT_TRUE(module) << where;
        WholeRun derived =
            valueOrFail(deriveInferenceRun(base.model, inference, mapping));
        expectAgreement(*module, derived, mapping, std::nullopt,
                        inference.activationType, where);
        // Every stage holds its weights and, at the end of the generation,
        // its blocks' KV cache at the last context: every position written
        // without a window, the window's under one.
        std::vector<StageBuffers> buffers =
            valueOrFail(deriveBuffers(derived, mapping, std::nullopt));
        llvm::Expected<std::vector<StageTotals>> totals =
            summarizeWholeRun(derived);
        ASSERT_TRUE(static_cast<bool>(totals)) << where;
        int64_t lastContext =
            inference.promptLength + inference.generatedTokens - 1;
        int64_t cachePerBlock = valueOrFail(
            kvCacheBytesPerRank(base.model, inference, mapping, lastContext));
        for (size_t stage = 0; stage < buffers.size(); ++stage) {
          StageMemory memory = valueOrFail(analyzeMemory(buffers[stage]));
          int64_t kvCache =
              memory.maxByCause[static_cast<size_t>(BufferCause::KVCache)];
          EXPECT_EQ(kvCache, base.model.blocks / pp * cachePerBlock) << where;
          if (!window)
            EXPECT_EQ(kvCache, (*totals)[stage].kvCacheWriteBytes) << where;
          else
            EXPECT_LT(kvCache, (*totals)[stage].kvCacheWriteBytes) << where;
        }
      }
}

} // namespace
