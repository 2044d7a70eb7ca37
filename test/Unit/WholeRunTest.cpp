//===- WholeRunTest.cpp - The whole-run program against closed forms ------===//
//
// Over a grid of schedules, layouts, ZeRO stages, buckets and TP modes: the
// totals read off the whole-run IR (--distribute-transformer=scope=iteration,
// summarizeStages) equal the plain derivation's (summarizeWholeRun) field by
// field, and both equal the closed forms: every stage runs its blocks'
// per-micro-batch work once per micro-batch, sends one message per
// micro-batch and direction across each boundary of its chunks, and reduces
// its padded gradients once. An inference run's generation (the prefill and
// every decode step) agrees the same way with deriveInferenceGeneration's
// closed-form series. A model whose blocks mix the dense MLP and the
// mixture of experts (docs/WholeRun.md, "Block kinds") sums, on every
// stage, each layer's kind's block work, parameters and stash, with the
// kind of each layer from the contract's rule by an explicit loop and each
// kind's block from a model of that one kind.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/WholeRun.h"
#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/EdgeWork.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/Primitives.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "SmallRuns.h"

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
  os << "] linear_bias=" << stringifyEnum(run.model.linearBias)
     << " position_embedding=" << stringifyEnum(run.model.positionEmbedding)
     << " tied=" << run.model.tiedEmbeddings;
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
        for (int64_t zero : {0, 1, 3})
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
            // The open models' semantics on one schedule: Llama's (no
            // bias, rotary, untied) and Qwen2's (QKV bias, rotary, tied).
            if (schedule != PipelineSchedule::OneFOneB)
              continue;
            RunSpecs llama = run;
            llama.model.linearBias = LinearBias::None;
            llama.model.positionEmbedding = PositionEmbedding::Rotary;
            llama.model.tiedEmbeddings = false;
            runs.push_back(llama);
            RunSpecs qwen = run;
            qwen.model.linearBias = LinearBias::QKVOnly;
            qwen.model.positionEmbedding = PositionEmbedding::Rotary;
            runs.push_back(qwen);
          }
  return runs;
}

/// What the edges add to a training run's stages: their per-micro-batch
/// work and the parameters the first and last stage hold.
struct EdgeTotals {
  WorkSummary embedding{Cadence::PerMicroBatch};
  WorkSummary head{Cadence::PerMicroBatch};
  EdgeParameters parameters;

  /// The edge parameters of a stage: the embeddings on the first; the final
  /// norm and the output layer (untied, or the tied copy at pp > 1) on the
  /// last.
  int64_t stageParameters(const RunSpecs &run, bool first, bool last) const {
    int64_t elements = 0;
    if (first)
      elements += parameters.wordEmbedding + parameters.positionEmbedding;
    if (last)
      elements += parameters.finalNorm +
                  (run.mapping.pp > 1 || !run.model.tiedEmbeddings
                       ? parameters.wordEmbedding
                       : 0);
    return elements;
  }
};

EdgeTotals edgeTotalsOf(const RunSpecs &run) {
  EdgeTotals result;
  auto summed = [](llvm::Expected<BlockWork> work) {
    EXPECT_TRUE(static_cast<bool>(work)) << llvm::toString(work.takeError());
    llvm::Expected<WorkSummary> summary = summarize(*work);
    EXPECT_TRUE(static_cast<bool>(summary));
    return *summary;
  };
  result.embedding =
      summed(deriveEmbeddingWork(run.model, run.training, run.mapping));
  result.head = summed(deriveHeadWork(run.model, run.training, run.mapping));
  llvm::Expected<EdgeParameters> parameters =
      edgeParametersPerRank(run.model, run.mapping);
  EXPECT_TRUE(static_cast<bool>(parameters));
  result.parameters = *parameters;
  return result;
}

/// A 4-block model with 4 experts of width 64 (the dense MLP is 256 wide,
/// so a block derived with the wrong width is caught).
ModelSpec mixedModel(int64_t firstDenseBlocks, int64_t layerFrequency) {
  ModelSpec model;
  model.hidden = 64;
  model.heads = 4;
  model.kvHeads = 4;
  model.headDim = 16;
  model.ffnHidden = 256;
  model.seqLength = 32;
  model.maxPositions = 32;
  model.vocab = 128;
  model.blocks = 4;
  model.linearBias = LinearBias::None;
  MixtureOfExperts moe;
  moe.experts = 4;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 64;
  moe.firstDenseBlocks = firstDenseBlocks;
  moe.layerFrequency = layerFrequency;
  model.moe = moe;
  return model;
}

/// Whether layer `index` has experts, by the contract's rule (Spec.h):
/// index >= first_dense_blocks and moe_layer_frequency divides index.
bool hasExperts(const ModelSpec &model, int64_t index) {
  return index >= model.moe->firstDenseBlocks &&
         index % model.moe->layerFrequency == 0;
}

/// The two single-kind models each kind's block is the block of.
ModelSpec denseModelOf(ModelSpec model) {
  model.moe = std::nullopt;
  return model;
}
ModelSpec uniformModelOf(ModelSpec model) {
  model.moe->firstDenseBlocks = 0;
  model.moe->layerFrequency = 1;
  return model;
}

std::vector<RunSpecs> mixedGrid() {
  std::vector<RunSpecs> runs;
  for (auto [firstDense, frequency] :
       {std::pair<int64_t, int64_t>{1, 1}, std::pair<int64_t, int64_t>{0, 2}})
    for (PipelineSchedule schedule :
         {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
          PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
      for (int64_t pp : {1, 2})
        for (std::vector<int64_t> layout :
             {std::vector<int64_t>{}, std::vector<int64_t>{1, 3},
              std::vector<int64_t>{3, 1}})
          for (int64_t zero : {0, 1, 3}) {
            bool interleaved = schedule == PipelineSchedule::Interleaved1F1B;
            if (interleaved && pp == 1)
              continue;
            int64_t v = interleaved ? 2 : 1;
            if (!layout.empty() && pp * v != 2)
              continue;
            RunSpecs run;
            run.model = mixedModel(firstDense, frequency);
            run.training.microBatch = 2;
            run.training.gradientType = DataType::F32;
            // Four micro-batches per DP rank.
            run.training.globalBatch = 2 * 2 * 4;
            run.mapping.schedule = schedule;
            run.mapping.pp = pp;
            run.mapping.virtualStages = v;
            run.mapping.tp = 2;
            run.mapping.dp = 2;
            run.mapping.world = 4 * pp;
            // Mixture-of-experts training under tp > 1 needs sequence
            // parallelism (decoder_moe_c2).
            run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
            run.mapping.zeroStage = zero;
            run.mapping.bucketBytes = zero ? 30000 : 0;
            run.mapping.pipelineLayout = layout;
            runs.push_back(run);
          }
  // Interleaving with chunks of two blocks that mix kinds (block 0 dense
  // and block 1 MoE, or the reverse, in every chunk of 8 blocks at pp = 2,
  // v = 2): each pass through a chunk runs two segments, backwards for the
  // backward, and the gradient units follow.
  std::vector<RunSpecs> interleaved;
  for (const RunSpecs &run : runs)
    if (run.mapping.schedule == PipelineSchedule::Interleaved1F1B &&
        run.mapping.pipelineLayout.empty()) {
      RunSpecs longer = run;
      longer.model.blocks = 8;
      interleaved.push_back(longer);
    }
  llvm::append_range(runs, interleaved);
  return runs;
}

/// What one block of one kind does, from the single-kind model.
struct KindWork {
  WorkSummary perMicroBatch{Cadence::PerMicroBatch};
  int64_t parameters = 0;
};

KindWork kindWork(const ModelSpec &model, const RunSpecs &run) {
  KindWork result;
  llvm::Expected<BlockWork> block =
      deriveBlockWork(model, run.training, run.mapping);
  EXPECT_TRUE(static_cast<bool>(block)) << llvm::toString(block.takeError());
  llvm::Expected<WorkSummary> summary = summarize(*block);
  EXPECT_TRUE(static_cast<bool>(summary));
  result.perMicroBatch = *summary;
  llvm::Expected<int64_t> parameters =
      blockParametersPerRank(model, run.mapping);
  EXPECT_TRUE(static_cast<bool>(parameters));
  result.parameters = *parameters;
  return result;
}

class WholeRunTest : public ::testing::Test {
protected:
  WholeRunTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The totals --work-summary reads off the IR the pass builds for `run`.
  std::optional<ProgramTotals> programTotals(const RunSpecs &run) {
    return totalsOf(
        [&](OpBuilder &builder) {
          transformer::DecoderTrainingOp::create(
              builder, builder.getUnknownLoc(), builder.getStringAttr("m"),
              transformer::getModelAttr(&context, run.model),
              transformer::getTrainingAttr(&context, run.training),
              transformer::getMappingAttr(&context, run.mapping));
        },
        describe(run));
  }

  /// The totals of the whole generation the pass builds for an inference
  /// run.
  std::optional<ProgramTotals> inferenceTotals(const ModelSpec &model,
                                               const InferenceSpec &inference,
                                               const MappingSpec &mapping,
                                               const std::string &where) {
    return totalsOf(
        [&](OpBuilder &builder) {
          transformer::DecoderInferenceOp::create(
              builder, builder.getUnknownLoc(), builder.getStringAttr("m"),
              transformer::getModelAttr(&context, model),
              transformer::getInferenceAttr(&context, inference),
              transformer::getMappingAttr(&context, mapping));
        },
        where);
  }

  /// Runs --distribute-transformer=scope=iteration on the op `build`
  /// creates; the program verifies, passes the whole-run conservation check
  /// (which re-derives the same totals) and is summarized.
  std::optional<ProgramTotals>
  totalsOf(llvm::function_ref<void(OpBuilder &)> build,
           const std::string &where) {
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    build(builder);
    PassManager pm(&context);
    DistributeTransformerOptions options;
    options.scope = "iteration";
    pm.addPass(createDistributeTransformer(options));
    if (failed(pm.run(*module))) {
      ADD_FAILURE() << "the pass failed on " << where;
      return std::nullopt;
    }
    auto program = *module->getBody()->getOps<dist::ProgramOp>().begin();
    EXPECT_TRUE(succeeded(verify(program))) << where;
    EXPECT_TRUE(succeeded(verifyConservation(program))) << where;
    FailureOr<ProgramTotals> totals = summarizeProgram(program);
    if (failed(totals)) {
      ADD_FAILURE() << "summarizeProgram failed on " << where;
      return std::nullopt;
    }
    return *totals;
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
    std::optional<ProgramTotals> totals = programTotals(run);
    ASSERT_TRUE(totals.has_value());
    const std::vector<StageTotals> &ir = totals->stages;
    ASSERT_EQ(ir.size(), plain->size()) << where;
    ASSERT_TRUE(totals->iteration.has_value()) << where;

    llvm::Expected<BlockWork> block =
        deriveBlockWork(run.model, run.training, run.mapping);
    ASSERT_TRUE(static_cast<bool>(block)) << llvm::toString(block.takeError());
    llvm::Expected<WorkSummary> perBlock = summarize(*block);
    ASSERT_TRUE(static_cast<bool>(perBlock));
    llvm::Expected<BlockWork> step =
        deriveOptimizerWork(run.model, run.training, run.mapping);
    ASSERT_TRUE(static_cast<bool>(step));
    llvm::Expected<int64_t> parameters =
        blockParametersPerRank(run.model, run.mapping);
    ASSERT_TRUE(static_cast<bool>(parameters));
    EdgeTotals edges = edgeTotalsOf(run);
    int64_t modelOps = 0, recomputeOps = 0;
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

      // Closed forms: blocks x micro-batches x the block's work, and the
      // edges' once per micro-batch on the first and last stage.
      int64_t stage = static_cast<int64_t>(s);
      bool first = stage == 0, last = stage == run.mapping.pp - 1;
      int64_t blocks = layout.stageBlocks(stage);
      for (Phase phase : {Phase::Forward, Phase::Recompute,
                          Phase::ActivationGrad, Phase::WeightGrad})
        for (Engine engine : {Engine::Matmul, Engine::Vector}) {
          int64_t expected = blocks * m * perBlock->at(phase, engine).ops;
          if (first)
            expected += m * edges.embedding.at(phase, engine).ops;
          if (last)
            expected += m * edges.head.at(phase, engine).ops;
          EXPECT_EQ(fromIR.work.at(phase, engine).ops, expected)
              << at << " " << stringifyEnum(phase).str() << " "
              << stringifyEnum(engine).str();
        }
      int64_t stash = blocks * m * perBlock->total().stashBytes;
      if (first)
        stash += m * edges.embedding.total().stashBytes;
      if (last)
        stash += m * edges.head.total().stashBytes;
      EXPECT_EQ(fromIR.work.total().stashBytes, stash) << at;
      // One message per micro-batch leaves every chunk boundary in each
      // direction: the stage's chunks that have a successor send
      // activations, those with a predecessor send gradients.
      int64_t sends = 0;
      for (int64_t k = 0; k < run.mapping.virtualStages; ++k) {
        int64_t chunk = layout.chunkAt(stage, k);
        sends += (chunk + 1 < layout.chunks()) + (chunk > 0);
      }
      EXPECT_EQ(fromIR.messagesSent, sends * m) << at;
      EXPECT_EQ(fromIR.messagesReceived, sends * m) << at;
      // The stage's gradients (its blocks' and edges') are reduced once,
      // each bucket padded to a multiple of dp elements: at least the
      // unpadded bytes, less than one more element per rank per bucket.
      int64_t gradientBytes = bytesOf(run.training.gradientType);
      int64_t elements = blocks * *parameters;
      elements += edges.stageParameters(run, first, last);
      int64_t reduced = 0, buckets = 0, syncs = 0, parameterGathers = 0,
              fsdpGathers = 0;
      for (const RunStep &step : derived->stages[s].steps)
        if (const auto *work = std::get_if<RunWork>(&step.action)) {
          llvm::StringRef id = work->invocation->primitive;
          if (id == primitive::kDPGradAllReduce ||
              id == primitive::kDPGradReduceScatter) {
            reduced += work->invocation->collective->messageBytes;
            ++buckets;
          }
          syncs += id == primitive::kEmbeddingGradSync;
          parameterGathers += id == primitive::kDPParamAllGather;
          fsdpGathers += id == primitive::kFSDPParamGather;
        }
      // ZeRO-1/2 gather the updated parameters once per bucket; ZeRO-3
      // gathers a chunk's parameters before each forward and backward pass
      // of each micro-batch instead.
      int64_t zero = run.mapping.zeroStage;
      EXPECT_EQ(parameterGathers, zero == 1 || zero == 2 ? buckets : 0) << at;
      EXPECT_EQ(fsdpGathers, zero == 3 ? 2 * m * run.mapping.virtualStages : 0)
          << at;
      EXPECT_GE(reduced, elements * gradientBytes) << at;
      EXPECT_LT(reduced, (elements + buckets * dp) * gradientBytes) << at;
      EXPECT_EQ(reduced % (dp * gradientBytes), 0) << at;
      // The tied embedding's copies sum their gradients once; an untied
      // output layer has no copy.
      EXPECT_EQ(syncs, run.model.tiedEmbeddings && run.mapping.pp > 1 &&
                               (first || last)
                           ? 1
                           : 0)
          << at;
      // A sharded optimizer steps over 1/dp of the padded gradients;
      // otherwise every parameter the stage holds is stepped.
      int64_t stepped =
          run.mapping.zeroStage >= 1 ? reduced / gradientBytes / dp : elements;
      EXPECT_EQ(fromIR.work.at(Phase::Optimizer, Engine::Vector).ops,
                stepped * opcount::kAdamWPerParameter)
          << at;
      for (Phase phase :
           {Phase::Forward, Phase::ActivationGrad, Phase::WeightGrad})
        modelOps += fromIR.work.at(phase, Engine::Matmul).ops;
      recomputeOps += fromIR.work.at(Phase::Recompute, Engine::Matmul).ops;
    }

    // The model summary's FLOPs (its closed forms, SeqSel Eq. 7) are the
    // graph's matmul operations over every stage, TP and DP rank.
    // The closed forms hold an uneven layout with one chunk per stage.
    if (!run.mapping.pipelineLayout.empty() && run.mapping.virtualStages != 1)
      continue;
    analysis::PlanWork plan;
    plan.model = run.model;
    plan.training = run.training;
    plan.mapping = run.mapping;
    plan.perMicroBatch = *block;
    plan.perIteration = *step;
    // What the FLOPs do not read: any size the TP ranks can split.
    plan.blockOutputBytesPerRank = 8192;
    llvm::Expected<analysis::ModelQuantities> quantities =
        analysis::deriveModelQuantities(plan);
    ASSERT_TRUE(static_cast<bool>(quantities))
        << where << ": " << llvm::toString(quantities.takeError());
    int64_t ranksPerStage = run.mapping.tp * run.mapping.dp;
    EXPECT_EQ(quantities->flops.model,
              llvm::APInt(128, modelOps * ranksPerStage))
        << where;
    EXPECT_EQ(quantities->flops.recompute,
              llvm::APInt(128, recomputeOps * ranksPerStage))
        << where;
    // --work-summary's whole-iteration matmul operations are what the
    // hardware executes: the model's FLOPs and the recompute.
    size_t opsField = 3;
    ASSERT_EQ(totalsFieldNames()[opsField], "ops");
    EXPECT_EQ(totals->iteration
                  ->byEngine[static_cast<size_t>(Engine::Matmul)][opsField],
              quantities->flops.hardware)
        << where;
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
      if (work->invocation->collective)
        messages.push_back(work->invocation->collective->messageBytes);
  // With pp = 1 the head's gradients (the final norm) come first and the
  // embeddings' last: [norm, block] closes the first bucket, [block, block]
  // the second, [block, embeddings] the third.
  llvm::Expected<EdgeParameters> edge =
      edgeParametersPerRank(run.model, run.mapping);
  ASSERT_TRUE(static_cast<bool>(edge));
  int64_t normBytes = edge->finalNorm * 4;
  int64_t embeddingBytes = (edge->wordEmbedding + edge->positionEmbedding) * 4;
  EXPECT_EQ(messages,
            (std::vector<int64_t>{normBytes + blockBytes, 2 * blockBytes,
                                  blockBytes + embeddingBytes}));
  // No bucket size: one bucket.
  run.mapping.bucketBytes = 0;
  derived = deriveWholeRun(run.model, run.training, run.mapping);
  ASSERT_TRUE(static_cast<bool>(derived));
  messages.clear();
  for (const RunStep &step : derived->stages[0].steps)
    if (const auto *work = std::get_if<RunWork>(&step.action))
      if (work->invocation->collective)
        messages.push_back(work->invocation->collective->messageBytes);
  EXPECT_EQ(messages, (std::vector<int64_t>{normBytes + 4 * blockBytes +
                                            embeddingBytes}));
}

TEST(WholeRun, PersistentStateIsThePartsOwn) {
  // What a search reads to rule a run out (deriveRunPersistentState) is
  // what the run's parts hold, field by field, with no step derived; its
  // bytes (persistentBytesOf) are each stage's weights, gradients and
  // optimizer state buffers of the whole run, which the stage's peak
  // includes; and the search's bound (persistentBoundFigures) is their
  // largest. On every run of both grids, and where they compose at ep = 2
  // (expert buckets over edp), cp = 2 (ZeRO over dp x cp) and with the
  // sigmoid group-limited router (its score-correction biases are the
  // stage's buffers); where the parts refuse a run, so does it.
  std::vector<RunSpecs> runs;
  for (RunSpecs run : grid()) {
    runs.push_back(run);
    run.mapping.cp = 2;
    run.mapping.world *= 2;
    runs.push_back(run);
  }
  for (RunSpecs run : mixedGrid()) {
    runs.push_back(run);
    RunSpecs experts = run;
    experts.mapping.ep = 2;
    runs.push_back(experts);
    run.model.moe->router = RouterKind::SigmoidGroupLimited;
    run.model.moe->routerGroups = 2;
    run.model.moe->routerGroupsPerToken = 1;
    runs.push_back(run);
  }
  size_t derived = 0, expertRuns = 0, contextRuns = 0, bufferRuns = 0;
  for (const RunSpecs &run : runs) {
    llvm::Expected<WholeRun> parts =
        deriveRunParts(run.model, run.training, run.mapping);
    llvm::Expected<std::vector<StageProgram>> stages =
        deriveRunPersistentState(run.model, run.training, run.mapping);
    ASSERT_EQ(static_cast<bool>(parts), static_cast<bool>(stages))
        << describe(run);
    if (!parts) {
      EXPECT_EQ(llvm::toString(stages.takeError()),
                llvm::toString(parts.takeError()));
      continue;
    }
    ++derived;
    if (run.mapping.cp > 1)
      ++contextRuns;
    WholeRun whole =
        cantFail(deriveWholeRun(run.model, run.training, run.mapping));
    std::vector<StageBuffers> buffers =
        cantFail(deriveBuffers(whole, run.mapping, run.training));
    ASSERT_EQ(stages->size(), parts->stages.size()) << describe(run);
    ASSERT_EQ(buffers.size(), parts->stages.size()) << describe(run);
    int64_t largest = 0;
    for (auto [held, part, stageBuffers] :
         llvm::zip(*stages, parts->stages, buffers)) {
      EXPECT_EQ(held.stage, part.stage);
      EXPECT_EQ(held.parameters, part.parameters) << describe(run);
      EXPECT_EQ(held.bufferElements, part.bufferElements) << describe(run);
      EXPECT_EQ(held.bucketElements, part.bucketElements) << describe(run);
      EXPECT_EQ(held.bucketUnitEnds, part.bucketUnitEnds) << describe(run);
      EXPECT_EQ(held.expertBucketElements, part.expertBucketElements)
          << describe(run);
      EXPECT_TRUE(held.steps.empty()) << describe(run);
      if (!part.expertBucketElements.empty())
        ++expertRuns;
      if (part.bufferElements > 0)
        ++bufferRuns;
      OverflowGuard guard;
      PersistentBytes bytes = persistentBytesOf(held, run.mapping, run.training,
                                                std::nullopt, guard);
      ASSERT_FALSE(guard.failed());
      int64_t persistent =
          bytes.weights + bytes.gradients + bytes.optimizerState;
      int64_t inBuffers = 0;
      for (const RunBuffer &buffer : stageBuffers.buffers)
        if (buffer.cause == BufferCause::Weights ||
            buffer.cause == BufferCause::Gradients ||
            buffer.cause == BufferCause::OptimizerState)
          inBuffers += buffer.bytes;
      EXPECT_EQ(persistent, inBuffers) << describe(run);
      EXPECT_LE(persistent, cantFail(analyzeMemory(stageBuffers)).peakBytes)
          << describe(run);
      largest = std::max(largest, persistent);
    }
    std::optional<sweep::RunFigures> bound = sweep::persistentBoundFigures(
        run.model, run.training, run.mapping, test::a100Profile());
    ASSERT_TRUE(bound.has_value()) << describe(run);
    EXPECT_EQ(bound->peakBytes, largest) << describe(run);
  }
  EXPECT_GT(derived, 200u);
  EXPECT_GT(expertRuns, 0u);
  EXPECT_GT(contextRuns, 0u);
  EXPECT_GT(bufferRuns, 0u);
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
  // The run checks its contracts once, before any part (with or without a
  // memo of templates); its parts then skip the check, but each part's
  // own derivation, called alone, still refuses the contracts.
  RunTemplatesMemo memo;
  for (RunTemplatesMemo *templates :
       {static_cast<RunTemplatesMemo *>(nullptr), &memo}) {
    llvm::Expected<WholeRun> parts =
        deriveRunParts(run.model, run.training, run.mapping, templates);
    ASSERT_FALSE(static_cast<bool>(parts));
    EXPECT_EQ(llvm::toString(parts.takeError()),
              "deriveWholeRun: the model, training and mapping contracts do "
              "not compose");
  }
  llvm::Expected<std::vector<StageProgram>> state =
      deriveRunPersistentState(run.model, run.training, run.mapping);
  ASSERT_FALSE(static_cast<bool>(state));
  EXPECT_EQ(llvm::toString(state.takeError()),
            "deriveWholeRun: the model, training and mapping contracts do "
            "not compose");
  auto refuses = [](auto derived, llvm::StringRef who) {
    ASSERT_FALSE(static_cast<bool>(derived)) << who.str();
    std::string error = llvm::toString(derived.takeError());
    EXPECT_TRUE(llvm::StringRef(error).starts_with(
        (who + ": the specification does not compose").str()))
        << error;
  };
  BlockWorkMemo blockWorks;
  refuses(blockWorks.of(run.model, BlockKind::Dense, run.training, run.mapping),
          "deriveBlockWork");
  refuses(
      deriveBlockWork(run.model, BlockKind::Dense, run.training, run.mapping),
      "deriveBlockWork");
  refuses(deriveOptimizerWork(run.model, run.training, run.mapping),
          "deriveOptimizerWork");
  refuses(deriveOptimizerWork(run.model, BlockKind::Dense, run.training,
                              run.mapping),
          "deriveOptimizerWork");
  refuses(deriveEmbeddingWork(run.model, run.training, run.mapping),
          "deriveEmbeddingWork");
  refuses(deriveHeadWork(run.model, run.training, run.mapping),
          "deriveHeadWork");
  refuses(deriveEdgeOptimizerWork(run.model, run.training, run.mapping,
                                  /*firstStage=*/true, /*lastStage=*/false),
          "deriveEdgeOptimizerWork");
  refuses(blockBoundaries(run.model, run.training, run.mapping),
          "blockBoundaries");
}

//===----------------------------------------------------------------------===//
// RunTemplatesMemo
//===----------------------------------------------------------------------===//

namespace {

/// Whether `a` and `b` hold the same templates, field by field.
bool sameTemplates(const RunTemplateList &a, const RunTemplateList &b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const RunTemplate &x, const RunTemplate &y) {
                      return x.name == y.name && x.part == y.part &&
                             x.pass == y.pass && x.context == y.context &&
                             x.work.cadence == y.work.cadence &&
                             x.work.invocations == y.work.invocations;
                    });
}

/// The templates of `run`'s parts, through `memo` or (null) without one.
RunTemplateList partsTemplates(const test::RunSpecs &run,
                               RunTemplatesMemo *memo) {
  return test::valueOrFail(
             deriveRunParts(run.model, run.training, run.mapping, memo))
      .templates;
}

} // namespace

// Runs that differ only in what placing a block's work into templates does
// not read (pp beyond 1, dp beyond the sharding, the virtual stages, a
// schedule other than ZB-H1, ZeRO 1-2 among themselves, the buckets, the
// overlaps, the global batch) share one list: the hit hands out the list
// itself, and it is what the run's own derivation gives, for its parts and
// for its whole run.
TEST(RunTemplatesMemo, SharesAcrossTheAxesTemplatesDoNotRead) {
  RunTemplatesMemo memo;
  test::RunSpecs first =
      test::smallRun(PipelineSchedule::OneFOneB, /*pp=*/2, /*microbatches=*/4);
  first.mapping.zeroStage = 1;
  RunTemplateList list = partsTemplates(first, &memo);
  EXPECT_EQ(memo.shared(), 0u);
  EXPECT_TRUE(sameTemplates(list, partsTemplates(first, nullptr)));

  test::RunSpecs other =
      test::smallRun(PipelineSchedule::Interleaved1F1B, /*pp=*/4,
                     /*microbatches=*/8);
  other.mapping.dp = 4;
  other.mapping.world = 2 * 4 * 4;
  other.training.globalBatch = 2 * 4 * 8;
  other.mapping.zeroStage = 2;
  other.mapping.bucketBytes = 4096;
  other.mapping.overlapDPGradReduce = true;
  other.mapping.overlapTPComm = true;
  other.mapping.overlapP2PComm = true;
  RunTemplateList shared = partsTemplates(other, &memo);
  EXPECT_EQ(memo.shared(), 1u);
  EXPECT_TRUE(shared.sameListAs(list));
  EXPECT_TRUE(sameTemplates(shared, partsTemplates(other, nullptr)));

  WholeRun whole = test::valueOrFail(
      deriveWholeRun(other.model, other.training, other.mapping, &memo));
  EXPECT_EQ(memo.shared(), 2u);
  EXPECT_TRUE(whole.templates.sameListAs(list));
  WholeRun fresh = test::valueOrFail(
      deriveWholeRun(other.model, other.training, other.mapping));
  EXPECT_TRUE(sameTemplates(whole.templates, fresh.templates));
  // The steps name the same templates as the fresh run's: the memo gave
  // back which template each role is along with the list.
  ASSERT_EQ(whole.stages.size(), fresh.stages.size());
  for (size_t stage = 0; stage < whole.stages.size(); ++stage) {
    const std::vector<RunStep> &steps = whole.stages[stage].steps;
    const std::vector<RunStep> &freshSteps = fresh.stages[stage].steps;
    ASSERT_EQ(steps.size(), freshSteps.size());
    for (size_t position = 0; position < steps.size(); ++position) {
      ASSERT_EQ(steps[position].action.index(),
                freshSteps[position].action.index());
      const auto *instance = std::get_if<RunInstance>(&steps[position].action);
      if (!instance)
        continue;
      const auto &freshInstance =
          std::get<RunInstance>(freshSteps[position].action);
      EXPECT_EQ(instance->templateIndex, freshInstance.templateIndex);
      EXPECT_EQ(instance->chunk, freshInstance.chunk);
      EXPECT_EQ(instance->microBatch, freshInstance.microBatch);
      EXPECT_EQ(instance->firstBlock, freshInstance.firstBlock);
      EXPECT_EQ(instance->endBlock, freshInstance.endBlock);
    }
  }
  EXPECT_TRUE(partsTemplates(first, &memo).sameListAs(list));
}

// Runs that differ in what the templates read get their own list, with
// other templates: the key is not coarser than what the templates read.
// One row per part of the key, each on a fresh memo, so that dropping any
// part from the key fails here. Each row changes the small run's templates
// but one: dp at ep > 1, which the block works' key holds though no
// invocation reads it (BlockWorkMemo), so it is derived again, alike.
TEST(RunTemplatesMemo, DerivesAgainForTheAxesTemplatesRead) {
  using test::RunSpecs;
  RunSpecs base =
      test::smallRun(PipelineSchedule::OneFOneB, /*pp=*/2, /*microbatches=*/4);
  RunSpecs sharded = base;
  sharded.mapping.zeroStage = 1;
  RunSpecs contextParallel = base;
  contextParallel.mapping.cp = 2;
  contextParallel.mapping.world = 2 * 2 * 2 * 2;
  RunSpecs experts = test::withExperts(base, /*ep=*/2);
  experts.mapping.dp = 4;
  experts.mapping.world = 2 * 2 * 4;
  experts.training.globalBatch = 2 * 4 * 4;
  struct Row {
    const char *axis;
    /// The run the row's differs from in that axis alone.
    const RunSpecs *reference;
    std::function<void(RunSpecs &)> change;
    bool templatesDiffer = true;
  };
  const Row rows[] = {
      {"the ZB-H1 schedule", &base,
       [](RunSpecs &run) {
         run.mapping.schedule = PipelineSchedule::ZeroBubbleH1;
       }},
      {"pp = 1", &base,
       [](RunSpecs &run) {
         run.mapping.pp = 1;
         run.mapping.world = 2 * 2;
       }},
      {"a sharded step (ZeRO 1)", &base,
       [](RunSpecs &run) { run.mapping.zeroStage = 1; }},
      {"a sharded step (one replica)", &sharded,
       [](RunSpecs &run) {
         run.mapping.dp = 1;
         run.mapping.world = 2 * 2;
         run.training.globalBatch = 2 * 4;
       }},
      {"recompute", &base,
       [](RunSpecs &run) { run.mapping.recompute = RecomputePolicy::Full; }},
      {"tp_comm", &base,
       [](RunSpecs &run) {
         run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
       }},
      {"tp", &base,
       [](RunSpecs &run) {
         run.mapping.tp = 4;
         run.mapping.world = 4 * 2 * 2;
       }},
      {"micro_batch", &base,
       [](RunSpecs &run) {
         run.training.microBatch = 1;
         run.training.globalBatch = 1 * 2 * 4;
       }},
      {"activation_type", &base,
       [](RunSpecs &run) { run.training.activationType = DataType::F32; }},
      {"weight_type", &base,
       [](RunSpecs &run) { run.training.weightType = DataType::F32; }},
      {"gradient_type", &base,
       [](RunSpecs &run) { run.training.gradientType = DataType::BF16; }},
      {"optimizer_state_type", &base,
       [](RunSpecs &run) { run.training.optimizerStateType = DataType::BF16; }},
      {"attention_dropout", &base,
       [](RunSpecs &run) { run.training.attentionDropout = false; }},
      {"hidden_dropout", &base,
       [](RunSpecs &run) { run.training.hiddenDropout = false; }},
      {"cp", &base,
       [](RunSpecs &run) {
         run.mapping.cp = 2;
         run.mapping.world = 2 * 2 * 2 * 2;
       }},
      {"cp_comm", &contextParallel,
       [](RunSpecs &run) { run.mapping.cpComm = CPCommMode::AllGather; }},
      {"ep", &experts, [](RunSpecs &run) { run.mapping.ep = 4; }},
      {"dp at ep > 1", &experts,
       [](RunSpecs &run) {
         run.mapping.dp = 8;
         run.mapping.world = 2 * 2 * 8;
         run.training.globalBatch = 2 * 8 * 4;
       },
       /*templatesDiffer=*/false},
      {"the model's width", &base,
       [](RunSpecs &run) {
         run.model.hidden = 128;
         run.model.headDim = 32;
       }},
  };
  for (const Row &row : rows) {
    RunTemplatesMemo memo;
    RunTemplateList reference = partsTemplates(*row.reference, &memo);
    RunSpecs run = *row.reference;
    row.change(run);
    RunTemplateList own = partsTemplates(run, &memo);
    EXPECT_EQ(memo.shared(), 0u) << row.axis;
    EXPECT_FALSE(own.sameListAs(reference)) << row.axis;
    EXPECT_TRUE(sameTemplates(own, partsTemplates(run, nullptr))) << row.axis;
    EXPECT_EQ(sameTemplates(own, reference), !row.templatesDiffer) << row.axis;
  }
}

TEST(WholeRunMixedLayout, BlockKindsFollowTheContract) {
  for (auto [firstDense, frequency] :
       {std::pair<int64_t, int64_t>{1, 1}, std::pair<int64_t, int64_t>{0, 2},
        std::pair<int64_t, int64_t>{3, 2}, std::pair<int64_t, int64_t>{0, 1}})
    for (int64_t blocks : {4, 5, 61}) {
      ModelSpec model = mixedModel(firstDense, frequency);
      model.blocks = blocks;
      int64_t experts = 0;
      for (int64_t i = 0; i < blocks; ++i) {
        EXPECT_EQ(blockKindOf(model, i),
                  hasExperts(model, i) ? BlockKind::Expert : BlockKind::Dense);
        experts += hasExperts(model, i);
        // The count over every prefix [0, i + 1) and suffix [i, blocks).
        int64_t prefixExperts = 0, suffixDense = 0;
        for (int64_t j = 0; j <= i; ++j)
          prefixExperts += hasExperts(model, j);
        for (int64_t j = i; j < blocks; ++j)
          suffixDense += !hasExperts(model, j);
        EXPECT_EQ(blocksOfKind(model, BlockKind::Expert, 0, i + 1),
                  prefixExperts);
        EXPECT_EQ(blocksOfKind(model, BlockKind::Dense, i, blocks),
                  suffixDense);
      }
      std::vector<BlockKind> expected = {BlockKind::Dense, BlockKind::Expert};
      if (experts == blocks)
        expected = {BlockKind::Expert};
      else if (experts == 0)
        expected = {BlockKind::Dense};
      EXPECT_EQ(blockKindsOf(model), expected);
      // The segments cover [0, blocks) in order, each of one kind, and
      // neighbours differ.
      std::vector<BlockSegment> segments = blockSegmentsOf(model, 0, blocks);
      int64_t next = 0;
      for (size_t s = 0; s < segments.size(); ++s) {
        EXPECT_EQ(segments[s].first, next);
        for (int64_t i = segments[s].first; i < segments[s].end; ++i)
          EXPECT_EQ(hasExperts(model, i),
                    segments[s].kind == BlockKind::Expert);
        if (s > 0) {
          EXPECT_NE(segments[s].kind, segments[s - 1].kind);
        }
        next = segments[s].end;
      }
      EXPECT_EQ(next, blocks);
    }
}

TEST_F(WholeRunTest, MixedTrainingRunsSumEachLayersKind) {
  std::vector<RunSpecs> runs = mixedGrid();
  ASSERT_GT(runs.size(), 30u);
  for (const RunSpecs &run : runs) {
    std::string where =
        describe(run) + " first_dense_blocks=" +
        std::to_string(run.model.moe->firstDenseBlocks) +
        " moe_layer_frequency=" + std::to_string(run.model.moe->layerFrequency);
    llvm::Expected<WholeRun> derived =
        deriveWholeRun(run.model, run.training, run.mapping);
    ASSERT_TRUE(static_cast<bool>(derived))
        << where << ": " << llvm::toString(derived.takeError());
    llvm::Expected<std::vector<StageTotals>> plain =
        summarizeWholeRun(*derived);
    ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
    std::optional<ProgramTotals> totals = programTotals(run);
    ASSERT_TRUE(totals.has_value());
    ASSERT_EQ(totals->stages.size(), plain->size()) << where;

    // Index 0: dense, 1: MoE.
    std::array<KindWork, 2> kinds = {kindWork(denseModelOf(run.model), run),
                                     kindWork(uniformModelOf(run.model), run)};
    ASSERT_NE(kinds[0].parameters, kinds[1].parameters);
    EdgeTotals edges = edgeTotalsOf(run);
    const PipelineLayout &layout = derived->layout;
    int64_t m = derived->microbatches;
    ASSERT_EQ(m, 4);
    int64_t dp = run.mapping.dp;
    int64_t gradientBytes = bytesOf(run.training.gradientType);
    int64_t weightBytes = bytesOf(run.training.weightType);
    llvm::Expected<std::vector<StageBuffers>> buffers =
        deriveBuffers(*derived, run.mapping, run.training);
    ASSERT_TRUE(static_cast<bool>(buffers))
        << llvm::toString(buffers.takeError());
    int64_t blocksSeen = 0;

    for (size_t s = 0; s < plain->size(); ++s) {
      std::string at = where + ", stage " + std::to_string(s);
      int64_t stage = static_cast<int64_t>(s);
      const StageTotals &fromIR = totals->stages[s];
      const StageTotals &fromPlain = (*plain)[s];
      for (Phase phase : allPhases())
        for (Engine engine : allEngines())
          expectEqual(fromIR.work.at(phase, engine),
                      fromPlain.work.at(phase, engine),
                      at + " " + stringifyEnum(phase).str() + " " +
                          stringifyEnum(engine).str());
      // The stage's layers of each kind, by an explicit loop over its
      // chunks' blocks.
      std::array<int64_t, 2> count = {0, 0};
      for (int64_t k = 0; k < run.mapping.virtualStages; ++k) {
        int64_t chunk = layout.chunkAt(stage, k);
        for (int64_t i = layout.firstBlock(chunk);
             i < layout.firstBlock(chunk) + layout.chunkBlocks[chunk]; ++i)
          ++count[hasExperts(run.model, i) ? 1 : 0];
      }
      blocksSeen += count[0] + count[1];
      bool first = stage == 0, last = stage == run.mapping.pp - 1;
      for (Phase phase : {Phase::Forward, Phase::Recompute,
                          Phase::ActivationGrad, Phase::WeightGrad})
        for (Engine engine : {Engine::Matmul, Engine::Vector}) {
          // Each layer's kind's per-micro-batch work, m times, and the
          // edges' on the first and last stage.
          WorkTotals expected;
          for (size_t kind : {0, 1}) {
            const WorkTotals &cell =
                kinds[kind].perMicroBatch.at(phase, engine);
            expected.ops += count[kind] * m * cell.ops;
            expected.readBytes += count[kind] * m * cell.readBytes;
            expected.stashBytes += count[kind] * m * cell.stashBytes;
          }
          for (auto [edgeWork, present] : {std::pair{&edges.embedding, first},
                                           std::pair{&edges.head, last}})
            if (present) {
              expected.ops += m * edgeWork->at(phase, engine).ops;
              expected.readBytes += m * edgeWork->at(phase, engine).readBytes;
              expected.stashBytes += m * edgeWork->at(phase, engine).stashBytes;
            }
          std::string cell = at + " " + stringifyEnum(phase).str() + " " +
                             stringifyEnum(engine).str();
          const WorkTotals &found = fromIR.instanceWork.at(phase, engine);
          EXPECT_EQ(found.ops, expected.ops) << cell;
          EXPECT_EQ(found.readBytes, expected.readBytes) << cell;
          EXPECT_EQ(found.stashBytes, expected.stashBytes) << cell;
        }

      // Parameters: each layer's kind's, and the edges' on the first and
      // last stage.
      int64_t elements =
          count[0] * kinds[0].parameters + count[1] * kinds[1].parameters;
      elements += edges.stageParameters(run, first, last);
      EXPECT_EQ(derived->stages[s].parameters, elements) << at;
      // Every gradient reduced once over dp, each bucket padded by less
      // than dp elements; the optimizer steps every parameter, or the
      // rank's 1/dp of the padded buckets.
      int64_t reduced = 0, buckets = 0;
      for (const RunStep &step : derived->stages[s].steps)
        if (const auto *work = std::get_if<RunWork>(&step.action)) {
          llvm::StringRef id = work->invocation->primitive;
          if (id == primitive::kDPGradAllReduce ||
              id == primitive::kDPGradReduceScatter) {
            reduced += work->invocation->collective->messageBytes;
            ++buckets;
          }
        }
      EXPECT_GE(reduced, elements * gradientBytes) << at;
      EXPECT_LT(reduced, (elements + buckets * dp) * gradientBytes) << at;
      int64_t stepped =
          run.mapping.zeroStage >= 1 ? reduced / gradientBytes / dp : elements;
      EXPECT_EQ(fromIR.work.at(Phase::Optimizer, Engine::Vector).ops,
                stepped * opcount::kAdamWPerParameter)
          << at;

      // Memory: the stage's weights (unsharded below ZeRO-3), and under
      // GPipe, whose forwards all run before the first backward, the stash
      // of every micro-batch through every layer of the stage.
      OverflowGuard guard;
      PersistentBytes persistent = persistentBytesOf(
          derived->stages[s], run.mapping, run.training, std::nullopt, guard);
      ASSERT_FALSE(guard.failed());
      if (run.mapping.zeroStage < 3) {
        EXPECT_EQ(persistent.weights, elements * weightBytes) << at;
      }
      llvm::Expected<StageMemory> memory = analyzeMemory((*buffers)[s]);
      ASSERT_TRUE(static_cast<bool>(memory))
          << llvm::toString(memory.takeError());
      if (run.mapping.schedule == PipelineSchedule::GPipe) {
        int64_t stash = 0;
        for (size_t kind : {0, 1})
          stash += count[kind] * m *
                   kinds[kind]
                       .perMicroBatch.at(Phase::Forward, Engine::Matmul)
                       .stashBytes;
        for (size_t kind : {0, 1})
          stash += count[kind] * m *
                   kinds[kind]
                       .perMicroBatch.at(Phase::Forward, Engine::Vector)
                       .stashBytes;
        EXPECT_EQ(memory->maxByCause[static_cast<size_t>(
                      BufferCause::BlockActivations)],
                  stash)
            << at;
      }
    }
    EXPECT_EQ(blocksSeen, run.model.blocks) << where;
  }
}

// A stage's instances run each layer with its kind's template, in layer
// order forward and backwards in the backward: stage 0 of the first-dense
// model under pp = 2, layout [3, 1], runs block_forward [0, 1) then
// moe_block_forward [1, 3), and moe_block_backward [1, 3) then
// block_backward [0, 1).
TEST(WholeRunMixedLayout, InstancesFollowTheLayersKinds) {
  RunSpecs run;
  run.model = mixedModel(1, 1);
  run.training.microBatch = 2;
  run.training.globalBatch = 4;
  run.mapping.pp = 2;
  run.mapping.world = 2;
  run.mapping.pipelineLayout = {3, 1};
  llvm::Expected<WholeRun> derived =
      deriveWholeRun(run.model, run.training, run.mapping);
  ASSERT_TRUE(static_cast<bool>(derived))
      << llvm::toString(derived.takeError());
  std::vector<std::string> names;
  for (const RunTemplate &runTemplate : derived->templates)
    names.push_back(runTemplate.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "block_forward", "block_backward", "block_step",
                "moe_block_forward", "moe_block_backward", "moe_block_step",
                "embedding_forward", "embedding_backward", "head_forward",
                "head_backward", "embedding_step", "head_step"}));
  std::vector<std::string> stage0;
  for (const RunStep &step : derived->stages[0].steps)
    if (const auto *instance = std::get_if<RunInstance>(&step.action))
      if (instance->hasBlocks && instance->microBatch == 0)
        stage0.push_back(derived->templates[instance->templateIndex].name +
                         " [" + std::to_string(instance->firstBlock) + ", " +
                         std::to_string(instance->endBlock) + ")");
  EXPECT_EQ(stage0, (std::vector<std::string>{
                        "block_forward [0, 1)", "moe_block_forward [1, 3)",
                        "moe_block_backward [1, 3)", "block_backward [0, 1)"}));
}

TEST_F(WholeRunTest, MixedInferenceRunsSumEachLayersKind) {
  for (auto [firstDense, frequency] :
       {std::pair<int64_t, int64_t>{1, 1}, std::pair<int64_t, int64_t>{0, 2}})
    for (int64_t pp : {1, 2})
      for (int64_t generated : {1, 3}) {
        ModelSpec model = mixedModel(firstDense, frequency);
        InferenceSpec inference;
        inference.batch = 4;
        inference.promptLength = 8;
        inference.generatedTokens = generated;
        MappingSpec mapping;
        mapping.pp = pp;
        mapping.tp = 2;
        mapping.dp = 2;
        mapping.world = pp * 4;
        std::string where = "first_dense=" + std::to_string(firstDense) +
                            " frequency=" + std::to_string(frequency) +
                            " pp=" + std::to_string(pp) +
                            " generated=" + std::to_string(generated);
        llvm::Expected<WholeRun> derived =
            deriveInferenceRun(model, inference, mapping);
        ASSERT_TRUE(static_cast<bool>(derived))
            << where << ": " << llvm::toString(derived.takeError());
        llvm::Expected<std::vector<StageTotals>> plain =
            summarizeWholeRun(*derived);
        ASSERT_TRUE(static_cast<bool>(plain));
        std::optional<ProgramTotals> totals =
            inferenceTotals(model, inference, mapping, where);
        ASSERT_TRUE(totals.has_value());
        // Each kind's generation: its prefill and every decode step,
        // derived one by one from the single-kind model.
        std::array<WorkSummary, 2> generation = {
            WorkSummary(Cadence::PerIteration),
            WorkSummary(Cadence::PerIteration)};
        std::array<int64_t, 2> parameters = {0, 0};
        for (size_t kind : {0, 1}) {
          ModelSpec single =
              kind == 0 ? denseModelOf(model) : uniformModelOf(model);
          llvm::Expected<BlockWork> prefill =
              deriveInferencePrefill(single, inference, mapping);
          ASSERT_TRUE(static_cast<bool>(prefill));
          std::vector<BlockWork> passes = {*prefill};
          for (int64_t step = 1; step < generated; ++step) {
            llvm::Expected<BlockWork> decode = deriveInferenceDecodeStep(
                single, inference, mapping, inference.promptLength + step);
            ASSERT_TRUE(static_cast<bool>(decode));
            passes.push_back(*decode);
          }
          for (const BlockWork &pass : passes) {
            llvm::Expected<WorkSummary> summary = summarize(pass);
            ASSERT_TRUE(static_cast<bool>(summary));
            ASSERT_FALSE(static_cast<bool>(
                generation[kind].addScaled(*summary, 1, where)));
          }
          llvm::Expected<int64_t> count =
              blockParametersPerRank(single, mapping);
          ASSERT_TRUE(static_cast<bool>(count));
          parameters[kind] = *count;
        }
        int64_t perStage = model.blocks / pp;
        for (size_t s = 0; s < plain->size(); ++s) {
          std::string at = where + ", stage " + std::to_string(s);
          std::array<int64_t, 2> count = {0, 0};
          for (int64_t i = static_cast<int64_t>(s) * perStage;
               i < static_cast<int64_t>(s + 1) * perStage; ++i)
            ++count[hasExperts(model, i) ? 1 : 0];
          for (Phase phase : {Phase::Prefill, Phase::Decode})
            for (Engine engine : allEngines()) {
              std::string cell = at + " " + stringifyEnum(phase).str() + " " +
                                 stringifyEnum(engine).str();
              const WorkTotals &found =
                  totals->stages[s].instanceWork.at(phase, engine);
              expectEqual(found, (*plain)[s].instanceWork.at(phase, engine),
                          cell);
              int64_t ops = 0, reads = 0, writes = 0;
              for (size_t kind : {0, 1}) {
                const WorkTotals &one = generation[kind].at(phase, engine);
                ops += count[kind] * one.ops;
                reads += count[kind] * one.readBytes;
                writes += count[kind] * one.writeBytes;
              }
              EXPECT_EQ(found.ops, ops) << cell;
              EXPECT_EQ(found.readBytes, reads) << cell;
              EXPECT_EQ(found.writeBytes, writes) << cell;
            }
          llvm::Expected<EdgeParameters> edge =
              edgeParametersPerRank(model, mapping);
          ASSERT_TRUE(static_cast<bool>(edge));
          int64_t expected =
              count[0] * parameters[0] + count[1] * parameters[1];
          if (s == 0)
            expected += edge->firstStageTotal;
          if (s + 1 == plain->size())
            expected += edge->lastStageTotal;
          EXPECT_EQ(derived->stages[s].parameters, expected) << at;
        }
      }
}

} // namespace

/// The whole generation of an inference run (docs/WholeRun.md, "Inference
/// runs"), over pp, tp and generated tokens: the totals read off the IR equal
/// the plain derivation's field by field; each stage's instance work is
/// blocks x (the prefill + the closed-form sum of the decode steps); every
/// stage but the last sends one activation per step, the last sends one
/// token per step but the last (pp > 1); and the stage's KV cache at the end
/// is blocks x kvCacheBytesPerRank(prompt_length + generated_tokens - 1).
TEST_F(WholeRunTest, InferenceRunsAgreeWithTheGenerationClosedForms) {
  ModelSpec model;
  model.hidden = 64;
  model.heads = 4;
  model.kvHeads = 2;
  model.headDim = 16;
  model.ffnHidden = 256;
  model.seqLength = 32;
  model.maxPositions = 32;
  model.vocab = 128;
  model.blocks = 8;
  for (int64_t pp : {1, 2, 4})
    for (int64_t tp : {1, 2})
      for (int64_t generated : {1, 2, 5}) {
        InferenceSpec inference;
        inference.batch = 4;
        inference.promptLength = 8;
        inference.generatedTokens = generated;
        inference.kvCacheType = DataType::FP8;
        MappingSpec mapping;
        mapping.pp = pp;
        mapping.tp = tp;
        mapping.dp = 2;
        mapping.world = pp * tp * 2;
        std::string where = "pp=" + std::to_string(pp) +
                            " tp=" + std::to_string(tp) +
                            " generated=" + std::to_string(generated);
        llvm::Expected<WholeRun> derived =
            deriveInferenceRun(model, inference, mapping);
        ASSERT_TRUE(static_cast<bool>(derived))
            << where << ": " << llvm::toString(derived.takeError());
        EXPECT_EQ(derived->microbatches, generated) << where;
        EXPECT_EQ(derived->templates.size(), static_cast<size_t>(generated))
            << where;
        llvm::Expected<std::vector<StageTotals>> plain =
            summarizeWholeRun(*derived);
        ASSERT_TRUE(static_cast<bool>(plain))
            << llvm::toString(plain.takeError());

        // The IR the pass builds, its conservation check and its totals.
        std::optional<ProgramTotals> totals =
            inferenceTotals(model, inference, mapping, where);
        ASSERT_TRUE(totals.has_value()) << where;
        EXPECT_TRUE(totals->inferenceRun) << where;
        const std::vector<StageTotals> &ir = totals->stages;
        ASSERT_EQ(ir.size(), plain->size()) << where;
        ASSERT_EQ(ir.size(), static_cast<size_t>(pp)) << where;

        llvm::Expected<GenerationWork> generation =
            deriveInferenceGeneration(model, inference, mapping);
        ASSERT_TRUE(static_cast<bool>(generation))
            << llvm::toString(generation.takeError());
        int64_t finalContext = inference.promptLength + generated - 1;
        llvm::Expected<int64_t> kvPerBlock =
            kvCacheBytesPerRank(model, inference, mapping, finalContext);
        ASSERT_TRUE(static_cast<bool>(kvPerBlock));
        int64_t b = inference.batch / mapping.dp;
        int64_t activationBytes =
            b * inference.promptLength * model.hidden * 2 +
            (generated - 1) * b * model.hidden * 2;
        int64_t tokenBytes = (generated - 1) * b * kTokenIdBytes;
        int64_t blocks = model.blocks / pp;
        for (size_t s = 0; s < ir.size(); ++s) {
          std::string at = where + ", stage " + std::to_string(s);
          const StageTotals &fromIR = ir[s];
          const StageTotals &fromPlain = (*plain)[s];
          for (Phase phase : allPhases())
            for (Engine engine : allEngines()) {
              std::string cell = at + " " + stringifyEnum(phase).str() + " " +
                                 stringifyEnum(engine).str();
              expectEqual(fromIR.work.at(phase, engine),
                          fromPlain.work.at(phase, engine), cell);
              // blocks x GenerationWork, from the closed-form series.
              WorkTotals expected = phase == Phase::Decode
                                        ? generation->decodeOf(engine)
                                        : generation->prefill.at(phase, engine);
              const WorkTotals &found = fromIR.instanceWork.at(phase, engine);
              EXPECT_EQ(found.invocations, blocks * expected.invocations)
                  << cell;
              EXPECT_EQ(found.ops, blocks * expected.ops) << cell;
              EXPECT_EQ(found.readBytes, blocks * expected.readBytes) << cell;
              EXPECT_EQ(found.writeBytes, blocks * expected.writeBytes) << cell;
              EXPECT_EQ(found.messageBytes, blocks * expected.messageBytes)
                  << cell;
            }
          expectEqual(fromIR.work.total(), fromIR.instanceWork.total(), at);
          EXPECT_EQ(fromIR.messagesSent, fromPlain.messagesSent) << at;
          EXPECT_EQ(fromIR.bytesSent, fromPlain.bytesSent) << at;
          EXPECT_EQ(fromIR.messagesReceived, fromPlain.messagesReceived) << at;
          EXPECT_EQ(fromIR.bytesReceived, fromPlain.bytesReceived) << at;
          EXPECT_EQ(fromIR.kvCacheWriteBytes, fromPlain.kvCacheWriteBytes)
              << at;
          EXPECT_EQ(fromIR.kvCacheWriteBytes, blocks * *kvPerBlock) << at;
          EXPECT_EQ(fromIR.kvCacheWriteBytes,
                    blocks * generation->kvCacheWriteBytes)
              << at;
          EXPECT_EQ(fromIR.kvCacheWriteBytes,
                    blocks * generation->finalKvCacheBytes)
              << at;

          bool first = s == 0;
          bool last = s + 1 == ir.size();
          int64_t sent =
              (last ? 0 : generated) + (last && pp > 1 ? generated - 1 : 0);
          int64_t sentBytes =
              (last ? 0 : activationBytes) + (last && pp > 1 ? tokenBytes : 0);
          int64_t received =
              (first ? 0 : generated) + (first && pp > 1 ? generated - 1 : 0);
          int64_t receivedBytes = (first ? 0 : activationBytes) +
                                  (first && pp > 1 ? tokenBytes : 0);
          EXPECT_EQ(fromIR.messagesSent, sent) << at;
          EXPECT_EQ(fromIR.bytesSent, sentBytes) << at;
          EXPECT_EQ(fromIR.messagesReceived, received) << at;
          EXPECT_EQ(fromIR.bytesReceived, receivedBytes) << at;
        }
      }
}

// The weights an inference stage holds follow the model's edges: a learned
// table on the first stage, and the LM head weight the last stage holds
// besides the word embedding (untied, or the tied copy at pp > 1).
TEST(WholeRun, InferenceStagesHoldTheModelsEdges) {
  ModelSpec gpt;
  gpt.hidden = 64;
  gpt.heads = 4;
  gpt.kvHeads = 2;
  gpt.headDim = 16;
  gpt.ffnHidden = 256;
  gpt.seqLength = 32;
  gpt.maxPositions = 32;
  gpt.vocab = 128;
  gpt.blocks = 8;
  ModelSpec llama = gpt;
  llama.linearBias = LinearBias::None;
  llama.positionEmbedding = PositionEmbedding::Rotary;
  llama.tiedEmbeddings = false;
  InferenceSpec inference;
  inference.batch = 4;
  inference.promptLength = 8;
  inference.generatedTokens = 2;
  int64_t h = 64, V = 128, s = 32, t = 2, norm = 2 * h;
  for (const ModelSpec &model : {gpt, llama}) {
    bool untied = !model.tiedEmbeddings;
    int64_t positions = model.hasPositionTable() ? s * h : 0;
    for (int64_t pp : {1, 2}) {
      MappingSpec mapping;
      mapping.pp = pp;
      mapping.tp = t;
      mapping.world = pp * t;
      SCOPED_TRACE("pp=" + std::to_string(pp) + (untied ? " llama" : " gpt"));
      llvm::Expected<WholeRun> derived =
          deriveInferenceRun(model, inference, mapping);
      ASSERT_TRUE(static_cast<bool>(derived))
          << llvm::toString(derived.takeError());
      llvm::Expected<int64_t> perBlock = blockParametersPerRank(model, mapping);
      ASSERT_TRUE(static_cast<bool>(perBlock));
      int64_t blocks = 8 / pp * *perBlock;
      int64_t head = norm + (untied || pp > 1 ? V * h / t : 0);
      if (pp == 1) {
        EXPECT_EQ(derived->stages[0].parameters,
                  blocks + V * h / t + positions + head);
      } else {
        EXPECT_EQ(derived->stages[0].parameters,
                  blocks + V * h / t + positions);
        EXPECT_EQ(derived->stages[1].parameters, blocks + head);
      }
    }
  }
}

TEST(WholeRun, RefusesInferenceRunsThatDoNotCompose) {
  ModelSpec model{64, 4, 4, 16, 256, 32, 32, 128, 4};
  InferenceSpec inference;
  inference.batch = 3;
  inference.promptLength = 8;
  inference.generatedTokens = 2;
  MappingSpec mapping;
  mapping.dp = 2;
  mapping.world = 2;
  llvm::Expected<WholeRun> derived =
      deriveInferenceRun(model, inference, mapping);
  ASSERT_FALSE(static_cast<bool>(derived));
  EXPECT_EQ(llvm::toString(derived.takeError()),
            "deriveInferenceRun: the model, inference and mapping contracts do "
            "not compose");
}
