//===- MatmulShapeTest.cpp - Every matmul carries its GEMM shapes ---------===//
//
// The invariant ops = sum of 2 * batch * M * N * K (matmulShapeViolation),
// checked on every invocation of several whole runs (dense, GQA, MLA with
// and without a query latent, MoE with shared experts, every recompute
// policy and TP mode, inference prefill and decode), and the shapes of one
// block worked by hand, the backward's transposed GEMMs included, and the
// routed experts' per-expert GEMMs of one MoE block.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/WholeRun.h"

#include "SmallRuns.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include "gtest/gtest.h"

#include <limits>
#include <map>

using namespace blueprint::workload;
using blueprint::test::RunSpecs;
using blueprint::test::smallRun;
using blueprint::test::valueOrFail;

namespace {

TEST(MatmulShape, ViolationNamesEachBrokenInvariant) {
  // 2 * 3 * 4 * 5 * 6 = 720 and 2 * 1 * 2 * 2 * 2 = 16: 736 in all.
  std::vector<MatmulShape> gemms = {{3, 4, 5, 6}, {1, 2, 2, 2}};
  EXPECT_EQ(matmulShapeViolation(Engine::Matmul, 736, gemms), std::nullopt);
  EXPECT_EQ(matmulShapeViolation(Engine::Matmul, 720, gemms),
            "ops = 720 but the GEMMs' 2 * batch * M * N * K sum to 736");
  EXPECT_EQ(matmulShapeViolation(Engine::Matmul, 736, {}),
            "matmul work carries the shape of its GEMMs");
  // A fused kernel's GEMMs make at most its ops (pplan_task_c9).
  EXPECT_EQ(
      matmulShapeViolation(Engine::Matmul, 800, gemms, GemmCover::AtMostOps),
      std::nullopt);
  EXPECT_EQ(
      matmulShapeViolation(Engine::Matmul, 736, gemms, GemmCover::AtMostOps),
      std::nullopt);
  EXPECT_EQ(
      matmulShapeViolation(Engine::Matmul, 720, gemms, GemmCover::AtMostOps),
      "the GEMMs' 2 * batch * M * N * K sum to 736, more than ops = 720");
  EXPECT_EQ(matmulShapeViolation(Engine::Matmul, 736, {}, GemmCover::AtMostOps),
            "matmul work carries the shape of its GEMMs");
  EXPECT_EQ(matmulShapeViolation(Engine::Vector, 736, gemms),
            "only matmul work carries GEMM shapes, but vector work has 2");
  EXPECT_EQ(matmulShapeViolation(Engine::Vector, 736, {}), std::nullopt);
  EXPECT_EQ(matmulShapeViolation(Engine::Matmul, 0, {{0, 4, 4, 4}}),
            "GEMM [batch 0, M 4, N 4, K 4] needs a positive batch and "
            "non-negative extents");
  EXPECT_EQ(
      matmulShapeViolation(Engine::Matmul, 0,
                           {{1, std::numeric_limits<int64_t>::max(), 2, 1}}),
      "64-bit overflow computing GEMM ops");
  // The flat IR form round-trips; a length that is no multiple of 4 fails.
  EXPECT_EQ(flattenGemms(gemms),
            (std::vector<int64_t>{3, 4, 5, 6, 1, 2, 2, 2}));
  EXPECT_EQ(unflattenGemms(flattenGemms(gemms)), gemms);
  EXPECT_EQ(unflattenGemms({1, 2, 3}), std::nullopt);
}

/// Every invocation of `work` satisfies the invariant; returns how many
/// are matmuls.
int64_t expectShapes(const BlockWork &work, const std::string &where) {
  int64_t matmuls = 0;
  for (const Invocation &invocation : work.invocations) {
    EXPECT_EQ(matmulShapeViolation(invocation.engine, invocation.ops,
                                   invocation.gemms),
              std::nullopt)
        << where << ": " << invocation.primitive << " ("
        << stringifyEnum(invocation.phase).str() << ")";
    matmuls += invocation.engine == Engine::Matmul;
  }
  return matmuls;
}

/// Every template and stage-level work of `run`; returns the matmuls seen.
int64_t expectShapes(const WholeRun &run, const std::string &where) {
  int64_t matmuls = 0;
  for (const RunTemplate &runTemplate : run.templates)
    matmuls += expectShapes(runTemplate.work, where + " " + runTemplate.name);
  BlockWork stageWork;
  for (const RunWork &work : run.works)
    stageWork.invocations.push_back(*work.invocation);
  for (const StageProgram &stage : run.stages)
    for (const RunStep &step : stage.steps)
      if (const auto *work = std::get_if<RunWork>(&step.action))
        stageWork.invocations.push_back(*work->invocation);
  return matmuls + expectShapes(stageWork, where + " stage work");
}

/// Multi-head latent attention on the small model (ContextParallelTest's
/// widths): 4 heads of 32 + 16, values 24 wide, a 64-wide key/value latent.
void makeLatent(ModelSpec &model, std::optional<int64_t> qLoraRank) {
  model.kvHeads = model.heads;
  model.kvLoraRank = 64;
  model.qLoraRank = qLoraRank;
  model.qkNopeHeadDim = 32;
  model.qkRopeHeadDim = 16;
  model.vHeadDim = 24;
  model.headDim = 48;
  model.positionEmbedding = PositionEmbedding::Rotary;
  model.linearBias = LinearBias::None;
  model.norm = NormKind::RMSNorm;
}

/// E = 8 experts of width 96, top-2, one shared expert, SwiGLU.
void makeMoE(ModelSpec &model) {
  model.norm = NormKind::RMSNorm;
  model.activation = ActivationKind::SwiGLU;
  model.linearBias = LinearBias::None;
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 96;
  moe.sharedExperts = 1;
  model.moe = moe;
}

std::vector<std::pair<std::string, ModelSpec>> modelVariants() {
  // A named run, not a member of a temporary: GCC 12's -Wuninitialized
  // misreads the copy out of the temporary as a use before initialization.
  const auto run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
  ModelSpec dense = run.model;
  ModelSpec grouped = dense;
  grouped.kvHeads = 2;
  ModelSpec latent = dense;
  makeLatent(latent, std::nullopt);
  ModelSpec latentQuery = dense;
  makeLatent(latentQuery, 32);
  ModelSpec experts = dense;
  makeMoE(experts);
  return {{"dense", dense},
          {"gqa", grouped},
          {"mla", latent},
          {"mla+q_lora", latentQuery},
          {"moe+shared", experts}};
}

TEST(MatmulShape, EveryTrainingMatmulHasItsShapes) {
  std::map<std::string, int> composed;
  for (const auto &[name, model] : modelVariants())
    for (RecomputePolicy recompute :
         {RecomputePolicy::None, RecomputePolicy::Selective,
          RecomputePolicy::Full})
      for (TPCommMode tpComm :
           {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather}) {
        RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 2, 4);
        run.model = model;
        run.mapping.recompute = recompute;
        run.mapping.tpComm = tpComm;
        std::string where = name + " " + stringifyEnum(recompute).str() + " " +
                            stringifyEnum(tpComm).str();
        // Some combinations do not compose (MoE and MLA at tp > 1 run
        // under sequence parallelism): they have no work to walk.
        if (!checkTrainingComposition(run.model, run.training, run.mapping)
                 .empty())
          continue;
        ++composed[name];
        WholeRun whole =
            valueOrFail(deriveWholeRun(run.model, run.training, run.mapping));
        EXPECT_GT(expectShapes(whole, where), 0) << where;
      }
  // Every model ran in at least one combination.
  for (const auto &[name, model] : modelVariants())
    EXPECT_GT(composed[name], 0) << name;
}

TEST(MatmulShape, EveryInferenceMatmulHasItsShapes) {
  for (const auto &[name, model] : modelVariants()) {
    InferenceSpec inference;
    inference.batch = 2;
    inference.promptLength = 8;
    inference.generatedTokens = 3;
    MappingSpec mapping;
    mapping.tp = 2;
    mapping.world = 2;
    WholeRun run = valueOrFail(deriveInferenceRun(model, inference, mapping));
    EXPECT_GT(expectShapes(run, name + " inference"), 0) << name;
  }
}

/// The small model (h 64, 4 heads of 16, ffn 256, s 32) at b = 2 on tp 2,
/// pp 1, dp 2, as a block's work after `adjust`.
BlockWork smallBlock(llvm::function_ref<void(RunSpecs &)> adjust) {
  RunSpecs run = smallRun(PipelineSchedule::OneFOneB, 1, 1);
  run.mapping.pp = 1;
  run.mapping.world = 4;
  adjust(run);
  return valueOrFail(deriveBlockWork(run.model, run.training, run.mapping));
}

/// The GEMMs of `work`'s (primitive, phase) invocation, which must exist.
std::vector<MatmulShape> gemmsOf(const BlockWork &work,
                                 llvm::StringRef primitive, Phase phase) {
  const Invocation *invocation = work.find(primitive, phase);
  EXPECT_NE(invocation, nullptr) << primitive.str();
  return invocation ? invocation->gemms : std::vector<MatmulShape>();
}

/// The dense small model without sequence parallelism: 64 tokens, 2 heads
/// per rank.
TEST(MatmulShape, BlockShapesHandDerived) {
  BlockWork work = smallBlock([](RunSpecs &) {});
  using Shapes = std::vector<MatmulShape>;
  // qkv_proj: x_norm1[64 tokens, 64] W[64, 3 * 64 / 2 = 96].
  EXPECT_EQ(gemmsOf(work, "qkv_proj", Phase::Forward),
            (Shapes{{1, 64, 96, 64}}));
  // Its input gradient [64, 64] over the 96 columns; its weight gradient
  // [64, 96] over the 64 tokens.
  EXPECT_EQ(gemmsOf(work, "qkv_proj", Phase::ActivationGrad),
            (Shapes{{1, 64, 64, 96}}));
  EXPECT_EQ(gemmsOf(work, "qkv_proj", Phase::WeightGrad),
            (Shapes{{1, 64, 96, 64}}));
  // QK^T: b * heads/t = 2 * 2 = 4 GEMMs of [32 queries, 32 keys] over the
  // head width 16; probs x V: [32, 16] over 32 keys.
  EXPECT_EQ(gemmsOf(work, "qk_matmul", Phase::Forward),
            (Shapes{{4, 32, 32, 16}}));
  EXPECT_EQ(gemmsOf(work, "attn_v_matmul", Phase::Forward),
            (Shapes{{4, 32, 16, 32}}));
  // Backward: d_probs = d_context V^T [32, 32] over 16, d_v = probs^T
  // d_context [32 keys, 16] over 32 queries; d_q = d_scores K [32, 16]
  // over 32 keys, d_k = d_scores^T Q [32, 16] over 32 queries.
  EXPECT_EQ(gemmsOf(work, "attn_v_matmul", Phase::ActivationGrad),
            (Shapes{{4, 32, 32, 16}, {4, 32, 16, 32}}));
  EXPECT_EQ(gemmsOf(work, "qk_matmul", Phase::ActivationGrad),
            (Shapes{{4, 32, 16, 32}, {4, 32, 16, 32}}));
  // fc1 [64, 256 / 2 = 128] over 64; fc2 [64, 64] over 128, its weight
  // gradient [128, 64] over the 64 tokens.
  EXPECT_EQ(gemmsOf(work, "fc1", Phase::Forward), (Shapes{{1, 64, 128, 64}}));
  EXPECT_EQ(gemmsOf(work, "fc2", Phase::Forward), (Shapes{{1, 64, 64, 128}}));
  EXPECT_EQ(gemmsOf(work, "fc2", Phase::WeightGrad),
            (Shapes{{1, 128, 64, 64}}));
}

/// The routed experts' GEMMs per expert: the small model with E = 6
/// experts of width 96, top-2, SwiGLU, at b = 2 on tp 2 under sequence
/// parallelism. 64 tokens, routed by 2 calls of 32 tokens (one per sequence
/// shard): 64 pairs a call over 6 experts, q = 10, r = 4. The 2 * 4 = 8
/// ceilings go round the 6 experts, so 2 experts take 2 of them and 4 take
/// 1: 2 experts of 2 * 10 + 2 = 22 rows and 4 of 2 * 10 + 1 = 21 rows
/// (2 * 22 + 4 * 21 = 128 = 2 * 64 pairs). Columns per rank: expert fc1
/// 2 * 96 / 2 = 96, expert fc2 input 96 / 2 = 48, hidden 64.
TEST(MatmulShape, ExpertShapesHandDerived) {
  BlockWork work = smallBlock([](RunSpecs &run) {
    run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
    makeMoE(run.model);
    run.model.moe->experts = 6;
  });
  using Shapes = std::vector<MatmulShape>;
  // Forward: [rows, out] over in, per expert.
  EXPECT_EQ(gemmsOf(work, "expert_fc1", Phase::Forward),
            (Shapes{{2, 22, 96, 64}, {4, 21, 96, 64}}));
  EXPECT_EQ(gemmsOf(work, "expert_fc2", Phase::Forward),
            (Shapes{{2, 22, 64, 48}, {4, 21, 64, 48}}));
  // Input gradients: [rows, in] over out.
  EXPECT_EQ(gemmsOf(work, "expert_fc2", Phase::ActivationGrad),
            (Shapes{{2, 22, 48, 64}, {4, 21, 48, 64}}));
  EXPECT_EQ(gemmsOf(work, "expert_fc1", Phase::ActivationGrad),
            (Shapes{{2, 22, 64, 96}, {4, 21, 64, 96}}));
  // Weight gradients: one [in, out] per expert over that expert's rows, as
  // many as the 6 weight gradients the invocation writes.
  EXPECT_EQ(gemmsOf(work, "expert_fc1", Phase::WeightGrad),
            (Shapes{{2, 64, 96, 22}, {4, 64, 96, 21}}));
  EXPECT_EQ(gemmsOf(work, "expert_fc2", Phase::WeightGrad),
            (Shapes{{2, 48, 64, 22}, {4, 48, 64, 21}}));
  // ops = 2 * 96 * 64 * (2 * 22 + 4 * 21) = 2 * 96 * 64 * 128 = 1572864.
  const Invocation *fc1 = work.find("expert_fc1", Phase::Forward);
  ASSERT_NE(fc1, nullptr);
  EXPECT_EQ(fc1->ops, 1572864);
  // The shared expert stays one GEMM over every token: [64, 2 * 96 / 2].
  EXPECT_EQ(gemmsOf(work, "shared_expert_fc1", Phase::Forward),
            (Shapes{{1, 64, 96, 64}}));
}

} // namespace
