//===- ImplementationTest.cpp - Implementation transformations ------------===//
//
// fuseFlashAttention over a hand-made block (no recompute) whose byte counts
// are small and distinct, so every executed figure below is derived by hand
// from the rules of docs/Estimate.md "Implementation transformations".
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/Implementation.h"
#include "Blueprint/Workload/ProgramWork.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

using namespace blueprint;
using namespace blueprint::workload;

namespace {

Invocation task(const char *primitive, Phase phase, Engine engine, int64_t ops,
                std::vector<TensorAccess> reads,
                std::vector<TensorAccess> writes,
                std::vector<TensorAccess> stashed = {}) {
  Invocation invocation;
  invocation.primitive = primitive;
  invocation.phase = phase;
  invocation.engine = engine;
  invocation.ops = ops;
  invocation.reads = std::move(reads);
  invocation.writes = std::move(writes);
  for (const TensorAccess &access : stashed)
    invocation.stashBytes += access.bytes;
  invocation.stashed = std::move(stashed);
  return invocation;
}

/// Q, K, V and O of 10 bytes, S-sized tensors of 40, the mask of 20.
std::vector<Invocation> block() {
  const Phase fwd = Phase::Forward, bwd = Phase::ActivationGrad;
  const Engine mm = Engine::Matmul, vec = Engine::Vector;
  return {
      task("qkv_proj", fwd, mm, 500, {{"x", 100}},
           {{"q", 10}, {"k", 10}, {"v", 10}}),
      task("qk_matmul", fwd, mm, 1000, {{"q", 10}, {"k", 10}}, {{"scores", 40}},
           {{"q", 10}, {"k", 10}}),
      task("softmax", fwd, vec, 300, {{"scores", 40}}, {{"probs", 40}},
           {{"probs", 40}}),
      task("attn_dropout", fwd, vec, 120, {{"probs", 40}},
           {{"attn_dropout_mask", 20}, {"probs_dropped", 40}},
           {{"attn_dropout_mask", 20}, {"probs_dropped", 40}}),
      task("attn_v_matmul", fwd, mm, 1000, {{"probs_dropped", 40}, {"v", 10}},
           {{"context", 10}}, {{"v", 10}}),
      task("out_proj", fwd, mm, 400, {{"context", 10}}, {{"y", 100}},
           {{"context", 10}}),
      task("out_proj", bwd, mm, 400, {{"d_y", 100}}, {{"d_context", 10}}),
      task("attn_v_matmul", bwd, mm, 2000,
           {{"d_context", 10}, {"probs_dropped", 40}, {"v", 10}},
           {{"d_probs_dropped", 40}, {"d_v", 10}}),
      task("attn_dropout", bwd, vec, 40,
           {{"attn_dropout_mask", 20}, {"d_probs_dropped", 40}},
           {{"d_probs", 40}}),
      task("softmax", bwd, vec, 200, {{"d_probs", 40}, {"probs", 40}},
           {{"d_scores", 40}}),
      task("qk_matmul", bwd, mm, 2000, {{"d_scores", 40}, {"k", 10}, {"q", 10}},
           {{"d_q", 10}, {"d_k", 10}}),
      task("qkv_proj", bwd, mm, 500, {{"d_q", 10}, {"d_k", 10}, {"d_v", 10}},
           {{"d_x", 100}}),
  };
}

TEST(ImplementationTest, FlashAttentionFusesEachPhaseOfTheCore) {
  // 3 score rows: the logsumexp is 3 x 4 = 12 bytes.
  llvm::Expected<std::vector<Fusion>> fusions =
      fuseFlashAttention(block(), /*scoreRows=*/3);
  ASSERT_TRUE(static_cast<bool>(fusions))
      << llvm::toString(fusions.takeError());
  ASSERT_EQ(fusions->size(), 2u);

  const Fusion &forward = (*fusions)[0];
  EXPECT_EQ(forward.originals, (std::vector<size_t>{1, 2, 3, 4}));
  EXPECT_EQ(forward.executed.primitive, "flash_attention");
  EXPECT_EQ(forward.executed.phase, Phase::Forward);
  EXPECT_EQ(forward.executed.engine, Engine::Matmul);
  // Operations conserved: 1000 + 300 + 120 + 1000.
  EXPECT_EQ(forward.executed.ops, 2420);
  EXPECT_EQ(forward.extraOps, 0);
  // Reads Q, K, V once; writes O and L; S, P, the mask never leave the chip.
  EXPECT_EQ(forward.executed.reads,
            (std::vector<TensorAccess>{{"q", 10}, {"k", 10}, {"v", 10}}));
  EXPECT_EQ(
      forward.executed.writes,
      (std::vector<TensorAccess>{{"context", 10}, {"attn_logsumexp", 12}}));
  // The semantic stash 20 + 40 + 60 + 10 = 130 keeps P, the mask and the
  // dropped P (120 bytes); the fused one keeps Q, K, V and L: 30 + 12 = 42.
  EXPECT_EQ(forward.executed.stashed,
            (std::vector<TensorAccess>{
                {"q", 10}, {"k", 10}, {"v", 10}, {"attn_logsumexp", 12}}));
  EXPECT_EQ(forward.executed.stashBytes, 42);

  const Fusion &backward = (*fusions)[1];
  EXPECT_EQ(backward.originals, (std::vector<size_t>{7, 8, 9, 10}));
  EXPECT_EQ(backward.executed.phase, Phase::ActivationGrad);
  // Alg. 4 recomputes QK^T, softmax and dropout: 1000 + 300 + 120 = 1420,
  // on top of the conserved 2000 + 40 + 200 + 2000 = 4240.
  EXPECT_EQ(backward.extraOps, 1420);
  EXPECT_EQ(backward.executed.ops, 5660);
  EXPECT_EQ(backward.executed.reads,
            (std::vector<TensorAccess>{{"d_context", 10},
                                       {"v", 10},
                                       {"k", 10},
                                       {"q", 10},
                                       {"context", 10},
                                       {"attn_logsumexp", 12}}));
  EXPECT_EQ(backward.executed.writes,
            (std::vector<TensorAccess>{{"d_v", 10}, {"d_q", 10}, {"d_k", 10}}));
  EXPECT_TRUE(backward.executed.stashed.empty());
}

/// The fast path a search would take (derived invocations, no IR) gives
/// the figures test/Transforms/apply-implementation.test derives by hand
/// for the pass on the same block (h = 64, a = 4, t = 2, s = 32, b = 2, no
/// recompute; dp does not change a block's work).
TEST(ImplementationTest, DerivedBlockMatchesThePassOnTheIR) {
  test::RunSpecs run =
      test::smallRun(PipelineSchedule::OneFOneB, /*pp=*/1, /*microbatches=*/1);
  run.mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  WorkloadContract contract;
  contract.training = run.training;
  llvm::Expected<std::vector<BlockWork>> blocks =
      deriveProgramWork(run.model, run.mapping, contract);
  ASSERT_TRUE(static_cast<bool>(blocks)) << llvm::toString(blocks.takeError());
  const BlockWork &perMicroBatch = blocks->front();
  ASSERT_EQ(perMicroBatch.cadence, Cadence::PerMicroBatch);
  // Score rows b*(a/t)*s = 2*2*32 = 128.
  llvm::Expected<std::vector<Fusion>> fusions =
      fuseFlashAttention(perMicroBatch.invocations, 128);
  ASSERT_TRUE(static_cast<bool>(fusions))
      << llvm::toString(fusions.takeError());
  ASSERT_EQ(fusions->size(), 2u);
  EXPECT_EQ((*fusions)[0].executed.ops, 303232);
  EXPECT_EQ((*fusions)[0].executed.stashBytes, 12800);
  EXPECT_EQ((*fusions)[1].extraOps, 172160);
  EXPECT_EQ((*fusions)[1].executed.ops, 721024);
  // The GEMMs each fused kernel runs (pplan_task_c9), b*(a/t) = 4 heads of
  // d 16 over s 32: forward QK^T and P.V; backward P.V's two gradient GEMMs,
  // QK^T's two, then the recomputed QK^T. 2*4*32*32*16 = 131072 each, so
  // 262144 <= 303232 and 655360 <= 721024: the rest is softmax and dropout.
  using Shapes = std::vector<MatmulShape>;
  EXPECT_EQ((*fusions)[0].executed.gemms,
            (Shapes{{4, 32, 32, 16}, {4, 32, 16, 32}}));
  EXPECT_EQ((*fusions)[1].executed.gemms, (Shapes{{4, 32, 32, 16},
                                                  {4, 32, 16, 32},
                                                  {4, 32, 16, 32},
                                                  {4, 32, 16, 32},
                                                  {4, 32, 32, 16}}));
  for (const Fusion &fusion : *fusions)
    EXPECT_EQ(matmulShapeViolation(Engine::Matmul, fusion.executed.ops,
                                   fusion.executed.gemms,
                                   fusion.executed.gemmCover),
              std::nullopt);
}

TEST(ImplementationTest, DeltaComparesSemanticWithExecuted) {
  InvocationFigures a, b, executed;
  a.ops = 5, a.readBytes = 7, a.writeBytes = 11, a.stashBytes = 13;
  b.ops = 1, b.readBytes = 2, b.writeBytes = 3, b.stashBytes = 4;
  executed.ops = 9, executed.readBytes = 1, executed.writeBytes = 2,
  executed.stashBytes = 0;
  llvm::Expected<ImplementationDelta> delta = deltaOf({a, b}, executed);
  ASSERT_TRUE(static_cast<bool>(delta)) << llvm::toString(delta.takeError());
  EXPECT_EQ(delta->semanticOps, 6);
  EXPECT_EQ(delta->semanticRead, 9);
  EXPECT_EQ(delta->semanticWrite, 14);
  EXPECT_EQ(delta->semanticStash, 17);
  EXPECT_EQ(delta->executedOps, 9);
  EXPECT_EQ(delta->executedStash, 0);
}

TEST(ImplementationTest, IncompleteCoreIsRuleC4) {
  std::vector<Invocation> tasks = block();
  tasks.erase(tasks.begin() + 9); // the softmax backward
  llvm::Expected<std::vector<Fusion>> fusions = fuseFlashAttention(tasks, 3);
  ASSERT_FALSE(static_cast<bool>(fusions));
  EXPECT_EQ(llvm::toString(fusions.takeError()),
            "apply_implementation_c4: the attention core of phase "
            "activation_grad has no 'softmax' task, so FlashAttention cannot "
            "replace it");
}

TEST(ImplementationTest, CoreOfAnotherPhaseIsRuleC3) {
  std::vector<Invocation> tasks = block();
  tasks[9].phase = Phase::WeightGrad; // the softmax backward
  llvm::Expected<std::vector<Fusion>> fusions = fuseFlashAttention(tasks, 3);
  ASSERT_FALSE(static_cast<bool>(fusions));
  EXPECT_EQ(llvm::toString(fusions.takeError()),
            "apply_implementation_c3: attention-core task 'softmax' of phase "
            "weight_grad is neither forward, recompute nor activation_grad "
            "work");
}

TEST(ImplementationTest, NoForwardCoreIsRuleC4) {
  std::vector<Invocation> tasks = block();
  tasks.erase(tasks.begin() + 1, tasks.begin() + 5);
  llvm::Expected<std::vector<Fusion>> fusions = fuseFlashAttention(tasks, 3);
  ASSERT_FALSE(static_cast<bool>(fusions));
  EXPECT_EQ(llvm::toString(fusions.takeError()),
            "apply_implementation_c4: the attention core has no forward "
            "phase");
}

TEST(ImplementationTest, NoCoreIsNoFusionAndAnAbsentPattern) {
  std::vector<Invocation> tasks = {block()[0], block()[5]};
  llvm::Expected<std::vector<Fusion>> fusions = fuseFlashAttention(tasks, 3);
  ASSERT_TRUE(static_cast<bool>(fusions));
  EXPECT_TRUE(fusions->empty());
  EXPECT_TRUE(absentPattern(Implementation::FlashAttention, tasks).has_value());
  EXPECT_FALSE(
      absentPattern(Implementation::FlashAttention, block()).has_value());
  EXPECT_TRUE(absentPattern(Implementation::FusedSoftmax, block()).has_value());
  EXPECT_TRUE(
      absentPattern(Implementation::FusedBiasGelu, block()).has_value());
}

TEST(ImplementationTest, NamesRoundTripAndUnknownIsRuleC1) {
  for (Implementation implementation :
       {Implementation::FlashAttention, Implementation::FusedSoftmax,
        Implementation::FusedBiasGelu, Implementation::FusedBiasDropoutAdd,
        Implementation::MegatronFloat16Optimizer,
        Implementation::MegatronUnfusedAttentionGlue}) {
    llvm::Expected<Implementation> parsed =
        parseImplementation(nameOf(implementation));
    ASSERT_TRUE(static_cast<bool>(parsed));
    EXPECT_EQ(*parsed, implementation);
  }
  llvm::Expected<Implementation> unknown = parseImplementation("flash");
  ASSERT_FALSE(static_cast<bool>(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "apply_implementation_c1: unknown implementation 'flash' (known: "
            "flash-attention, fused-softmax, fused-bias-gelu, "
            "fused-bias-dropout-add, megatron-float16-optimizer, "
            "megatron-unfused-attention-glue)");
}

TEST(ImplementationTest, GlueBesideFlashAttentionIsRuleC8) {
  // Either order: FlashAttention runs no baddbmm/bmm core for the glue's
  // copy and alpha scalings to follow.
  for (const std::vector<std::string> &names :
       {std::vector<std::string>{"flash-attention",
                                 "megatron-unfused-attention-glue"},
        std::vector<std::string>{"megatron-unfused-attention-glue",
                                 "fused-bias-dropout-add",
                                 "flash-attention"}}) {
    llvm::Expected<std::vector<Implementation>> list =
        parseImplementations(names);
    ASSERT_FALSE(static_cast<bool>(list));
    EXPECT_EQ(llvm::toString(list.takeError()),
              "apply_implementation_c8: 'megatron-unfused-attention-glue' "
              "models the kernels around the unfused attention core, which "
              "'flash-attention' replaces: a plan carries one or the "
              "other");
  }
  llvm::Expected<std::vector<Implementation>> glue = parseImplementations(
      {"fused-bias-dropout-add", "megatron-unfused-attention-glue"});
  ASSERT_TRUE(static_cast<bool>(glue)) << llvm::toString(glue.takeError());
  EXPECT_EQ(glue->size(), 2u);
}

TEST(ImplementationTest, OnlyTheGluesKernelsAreAddedByIt) {
  const Implementation glue = Implementation::MegatronUnfusedAttentionGlue;
  for (llvm::StringRef primitive :
       {kQKVBiasAdd, kContextPermuteCopy, kQKVGradConcat})
    EXPECT_TRUE(isAddedBy(glue, primitive, {"q"}));
  // An alpha scaling is named for the one tensor it writes.
  EXPECT_TRUE(isAddedBy(glue, "d_q_alpha_scale", {"d_q"}));
  EXPECT_TRUE(isAddedBy(glue, alphaScaleKernelOf("d_k"), {"d_k"}));
  EXPECT_FALSE(isAddedBy(glue, "d_q_alpha_scale", {"d_k"}));
  EXPECT_FALSE(isAddedBy(glue, "d_q_alpha_scale", {"d_q", "d_k"}));
  EXPECT_FALSE(isAddedBy(glue, "made_up_kernel", {"q"}));
  // A fusing transformation adds no kernel.
  EXPECT_FALSE(isAddedBy(Implementation::FlashAttention, kQKVBiasAdd, {"q"}));
}

/// block() with the QKV bias read by the forward qkv_proj (6 bytes).
std::vector<Invocation> blockWithQKVBias() {
  std::vector<Invocation> tasks = block();
  tasks.front().reads.push_back({"b_qkv", 6});
  return tasks;
}

std::vector<TensorAccess>
accesses(std::initializer_list<std::pair<const char *, int64_t>> list) {
  std::vector<TensorAccess> result;
  for (const auto &[tensor, bytes] : list)
    result.push_back({tensor, bytes});
  return result;
}

void expectAccesses(llvm::ArrayRef<TensorAccess> actual,
                    const std::vector<TensorAccess> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (auto [have, want] : llvm::zip_equal(actual, expected)) {
    EXPECT_EQ(have.tensor, want.tensor);
    EXPECT_EQ(have.bytes, want.bytes);
  }
}

TEST(ImplementationTest, AttentionGlueAddsTheRunsKernels) {
  // 2-byte activations: q, k, v, d_q, d_k of 10 bytes are 5 elements each.
  llvm::Expected<std::vector<AddedKernel>> kernels =
      megatronAttentionGlue(blockWithQKVBias(), /*activationBytes=*/2);
  ASSERT_TRUE(static_cast<bool>(kernels))
      << llvm::toString(kernels.takeError());
  ASSERT_EQ(kernels->size(), 5u);
  const std::vector<AddedKernel> &k = *kernels;

  // After the forward qkv_proj (task 0): the bias added to q, k, v, one
  // operation per element, 3 x 5.
  EXPECT_EQ(k[0].anchor, 0u);
  EXPECT_FALSE(k[0].beforeAnchor);
  EXPECT_EQ(k[0].executed.primitive, kQKVBiasAdd);
  EXPECT_EQ(k[0].executed.phase, Phase::Forward);
  EXPECT_EQ(k[0].executed.engine, Engine::Vector);
  EXPECT_EQ(k[0].executed.ops, 15);
  expectAccesses(k[0].executed.reads,
                 accesses({{"q", 10}, {"k", 10}, {"v", 10}, {"b_qkv", 6}}));
  expectAccesses(k[0].executed.writes,
                 accesses({{"q", 10}, {"k", 10}, {"v", 10}}));

  // After the forward attn_v_matmul (task 4): the context copied, no ops.
  EXPECT_EQ(k[1].anchor, 4u);
  EXPECT_EQ(k[1].executed.primitive, kContextPermuteCopy);
  EXPECT_EQ(k[1].executed.ops, 0);
  expectAccesses(k[1].executed.reads, accesses({{"context", 10}}));
  expectAccesses(k[1].executed.writes, accesses({{"context", 10}}));

  // After qk_matmul's activation gradient (task 10): d_q and d_k scaled by
  // alpha, one kernel each, 5 operations.
  for (size_t i : {2u, 3u}) {
    llvm::StringRef tensor = i == 2 ? "d_q" : "d_k";
    EXPECT_EQ(k[i].anchor, 10u);
    EXPECT_FALSE(k[i].beforeAnchor);
    EXPECT_EQ(k[i].executed.primitive, (tensor + "_alpha_scale").str());
    EXPECT_EQ(k[i].executed.phase, Phase::ActivationGrad);
    EXPECT_EQ(k[i].executed.ops, 5);
    expectAccesses(k[i].executed.reads, {{tensor.str(), 10}});
    expectAccesses(k[i].executed.writes, {{tensor.str(), 10}});
  }

  // Before qkv_proj's activation gradient (task 11): d_q, d_k, d_v
  // concatenated into d_qkv (30 bytes), no ops.
  EXPECT_EQ(k[4].anchor, 11u);
  EXPECT_TRUE(k[4].beforeAnchor);
  EXPECT_EQ(k[4].executed.primitive, kQKVGradConcat);
  EXPECT_EQ(k[4].executed.ops, 0);
  expectAccesses(k[4].executed.reads,
                 accesses({{"d_q", 10}, {"d_k", 10}, {"d_v", 10}}));
  expectAccesses(k[4].executed.writes, accesses({{"d_qkv", 30}}));

  // Without b_qkv there is no bias kernel; the other four stay.
  llvm::Expected<std::vector<AddedKernel>> unbiased =
      megatronAttentionGlue(block(), /*activationBytes=*/2);
  ASSERT_TRUE(static_cast<bool>(unbiased));
  EXPECT_EQ(unbiased->size(), 4u);
  EXPECT_EQ(unbiased->front().executed.primitive, kContextPermuteCopy);
}

TEST(ImplementationTest, AttentionGluePlacesItsKernelsNextToTheirAnchors) {
  ImplementationContext run;
  run.activationBytes = 2;
  llvm::Expected<std::vector<Invocation>> tasks = applyImplementations(
      {Implementation::MegatronUnfusedAttentionGlue}, blockWithQKVBias(), run);
  ASSERT_TRUE(static_cast<bool>(tasks)) << llvm::toString(tasks.takeError());
  std::vector<std::string> order;
  for (const Invocation &task : *tasks)
    order.push_back(task.primitive + "/" + stringifyEnum(task.phase).str());
  EXPECT_EQ(
      order,
      (std::vector<std::string>{
          "qkv_proj/forward", "qkv_bias_add/forward", "qk_matmul/forward",
          "softmax/forward", "attn_dropout/forward", "attn_v_matmul/forward",
          "context_permute_copy/forward", "out_proj/forward",
          "out_proj/activation_grad", "attn_v_matmul/activation_grad",
          "attn_dropout/activation_grad", "softmax/activation_grad",
          "qk_matmul/activation_grad", "d_q_alpha_scale/activation_grad",
          "d_k_alpha_scale/activation_grad", "qkv_grad_concat/activation_grad",
          "qkv_proj/activation_grad"}));
}

TEST(ImplementationTest, AttentionGlueOfPartialElementsIsRuleC7) {
  // 10-byte tensors are not whole 4-byte elements.
  llvm::Expected<std::vector<AddedKernel>> kernels =
      megatronAttentionGlue(blockWithQKVBias(), /*activationBytes=*/4);
  ASSERT_FALSE(static_cast<bool>(kernels));
  EXPECT_EQ(llvm::toString(kernels.takeError()),
            "apply_implementation_c7: megatron-unfused-attention-glue: tensor "
            "'q' of 10 bytes is not a whole number of 4-byte activation "
            "elements");
}

} // namespace

namespace {

/// A row-parallel tail of 10-byte rows (forward, then its backward), the
/// mask 5 bytes, the bias 2, and a norm that reads the tail's output.
std::vector<Invocation> tail() {
  const Phase fwd = Phase::Forward, bwd = Phase::ActivationGrad;
  const Engine vec = Engine::Vector;
  return {
      task("out_proj_bias", fwd, vec, 10, {{"attn_proj", 10}, {"b_out", 2}},
           {{"attn_out", 10}}),
      task("attn_residual_dropout", fwd, vec, 30, {{"attn_out", 10}},
           {{"attn_out_dropped", 10}, {"mask", 5}}, {{"mask", 5}}),
      task("attn_residual", fwd, vec, 10, {{"attn_out_dropped", 10}, {"x", 10}},
           {{"h_attn", 10}}),
      task("norm2", fwd, vec, 70, {{"h_attn", 10}}, {{"x_norm2", 10}}),
      task("attn_residual_dropout", bwd, vec, 10,
           {{"d_h_attn", 10}, {"mask", 5}}, {{"d_attn_out", 10}}),
  };
}

} // namespace

TEST(ImplementationTest, BiasDropoutAddFusesTheForwardTail) {
  llvm::Expected<std::vector<Fusion>> fusions = fuseBiasDropoutAdd(tail());
  ASSERT_TRUE(static_cast<bool>(fusions))
      << llvm::toString(fusions.takeError());
  ASSERT_EQ(fusions->size(), 1u);
  const Fusion &fusion = fusions->front();
  EXPECT_EQ(fusion.originals, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(fusion.executed.primitive, "bias_dropout_add");
  EXPECT_EQ(fusion.executed.engine, Engine::Vector);
  // Operations conserved: 10 + 30 + 10.
  EXPECT_EQ(fusion.executed.ops, 50);
  // attn_out and the dropped rows stay on chip; h_attn (read by norm2) and
  // the mask (read by the backward) are written: 12 + 10 read, 10 + 5
  // written against the semantic 12 + 10 + 20 and 10 + 15 + 10.
  EXPECT_EQ(
      fusion.executed.reads,
      (std::vector<TensorAccess>{{"attn_proj", 10}, {"b_out", 2}, {"x", 10}}));
  EXPECT_EQ(fusion.executed.writes,
            (std::vector<TensorAccess>{{"mask", 5}, {"h_attn", 10}}));
  EXPECT_EQ(fusion.executed.stashBytes, 5);
  EXPECT_FALSE(
      absentPattern(Implementation::FusedBiasDropoutAdd, tail()).has_value());
  // The attention core holds no tail.
  EXPECT_TRUE(
      absentPattern(Implementation::FusedBiasDropoutAdd, block()).has_value());
}

TEST(ImplementationTest, ApplyImplementationsPutsTheFusedTaskLast) {
  llvm::Expected<std::vector<Invocation>> tasks = applyImplementations(
      {Implementation::FusedSoftmax, Implementation::FusedBiasDropoutAdd},
      tail(), ImplementationContext{/*scoreRows=*/3, /*lossScaling=*/false});
  ASSERT_TRUE(static_cast<bool>(tasks)) << llvm::toString(tasks.takeError());
  // fused-softmax finds nothing; the tail's three tasks become one, where
  // attn_residual was, before norm2 and the backward.
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[0].primitive, "bias_dropout_add");
  EXPECT_EQ((*tasks)[1].primitive, "norm2");
  EXPECT_EQ((*tasks)[2].primitive, "attn_residual_dropout");
  EXPECT_EQ((*tasks)[2].phase, Phase::ActivationGrad);
}

/// An AdamW step over P = 10 parameters as deriveAdamWStep states it, with
/// fp32 state (4 bytes), `gradBytes`-wide gradients and fp16 weights.
static Invocation adamWStep(int64_t gradBytes) {
  TrainingSpec training;
  training.gradientType = gradBytes == 2 ? DataType::F16 : DataType::F32;
  training.weightType = DataType::F16;
  training.optimizerStateType = DataType::F32;
  llvm::Expected<Invocation> step =
      deriveAdamWStep(10, training, "adamw_step", "test");
  EXPECT_TRUE(static_cast<bool>(step)) << llvm::toString(step.takeError());
  return *step;
}

static int64_t totalOf(const std::vector<TensorAccess> &list) {
  int64_t total = 0;
  for (const TensorAccess &access : list)
    total += access.bytes;
  return total;
}

TEST(ImplementationTest, MegatronOptimizerUnderFp16CountsEveryPass) {
  // --fp16 (MLM2021): P = 10, fp16 gradients and weights, fp32 state.
  // Semantic (deriveAdamWStep): reads 3*40 + 20 = 140, writes 3*40 + 20 +
  // 20 = 160: 30 bytes per parameter.
  std::vector<Invocation> tasks = {adamWStep(2)};
  EXPECT_EQ(totalOf(tasks[0].reads) + totalOf(tasks[0].writes), 300);
  llvm::Expected<std::vector<Fusion>> fusions =
      megatronOptimizerSteps(tasks, /*lossScaling=*/true);
  ASSERT_TRUE(static_cast<bool>(fusions))
      << llvm::toString(fusions.takeError());
  ASSERT_EQ(fusions->size(), 1u);
  const Invocation &executed = (*fusions)[0].executed;
  EXPECT_EQ(executed.primitive, "megatron_optimizer_step");
  // Reads: d_params 20 (the DDP's 1/dp scaling) + 20 (copy to main grads);
  // main_grads 40 (unscale) + 40 (norm) + 40 (Adam); params_master 40
  // (Adam) + 40 (copy to params); adam_m 40, adam_v 40.
  EXPECT_EQ(executed.reads, (std::vector<TensorAccess>{{"d_params", 40},
                                                       {"main_grads", 120},
                                                       {"params_master", 80},
                                                       {"adam_m", 40},
                                                       {"adam_v", 40}}));
  // Writes: d_params 20 (scaled) + 20 (zeroed buffer); main_grads 40
  // (copy) + 40 (unscale); adam_m, adam_v, params_master 40 each; params
  // 20.
  EXPECT_EQ(executed.writes, (std::vector<TensorAccess>{{"d_params", 40},
                                                        {"main_grads", 80},
                                                        {"adam_m", 40},
                                                        {"adam_v", 40},
                                                        {"params_master", 40},
                                                        {"params", 20}}));
  // 320 read + 260 written = 580: 58 bytes per parameter.
  EXPECT_EQ(totalOf(executed.reads) + totalOf(executed.writes), 580);
  // Ops: AdamW 16 + DDP scaling 1 + norm 2 + unscale 2 per parameter.
  EXPECT_EQ(executed.ops, 210);
  EXPECT_EQ((*fusions)[0].extraOps, 50);
}

TEST(ImplementationTest, MegatronOptimizerUnderBf16SkipsCopyAndUnscale) {
  // --bf16 (SeqSel): fp32 gradient buffer, no loss scale. Reads: d_params
  // 40 (the DDP's 1/dp scaling) + 40 (norm) + 40 (Adam); params_master 80;
  // adam_m, adam_v 40 each: 280. Writes: d_params 40 (scaled) + 40
  // (zeroed); 3*40; params 20: 220. 50 bytes per parameter against
  // deriveAdamWStep's 34. Ops: 16 + 1 (scaling) + 2 (norm) per parameter.
  llvm::Expected<std::vector<Fusion>> fusions =
      megatronOptimizerSteps({adamWStep(4)}, /*lossScaling=*/false);
  ASSERT_TRUE(static_cast<bool>(fusions))
      << llvm::toString(fusions.takeError());
  ASSERT_EQ(fusions->size(), 1u);
  const Invocation &executed = (*fusions)[0].executed;
  EXPECT_EQ(totalOf(executed.reads), 280);
  EXPECT_EQ(totalOf(executed.writes), 220);
  EXPECT_EQ(executed.ops, 190);
  // A plan without an AdamW step has nothing to transform.
  EXPECT_TRUE(absentPattern(Implementation::MegatronFloat16Optimizer, tail())
                  .has_value());
  EXPECT_FALSE(
      absentPattern(Implementation::MegatronFloat16Optimizer, {adamWStep(4)})
          .has_value());
}

TEST(ImplementationTest, MegatronOptimizerUnscalesAnFp32BufferInPlace) {
  // --fp16 --accumulate-allreduce-grads-in-fp32: fp16 weights, an fp32
  // gradient buffer (d_params 40 bytes = params_master's, so no copy) and
  // loss scaling, so the unscale reads and writes d_params itself. Reads:
  // d_params 40 (the DDP's 1/dp scaling) + 40 (unscale) + 40 (norm) + 40
  // (Adam); params_master 40 (Adam) + 40 (copy to params); adam_m, adam_v
  // 40 each: 320. Writes: d_params 40 (scaled) + 40 (unscale) + 40
  // (zeroed); adam_m, adam_v, params_master 40 each; params 20: 260. 580
  // bytes, 58 per parameter.
  llvm::Expected<std::vector<Fusion>> fusions =
      megatronOptimizerSteps({adamWStep(4)}, /*lossScaling=*/true);
  ASSERT_TRUE(static_cast<bool>(fusions))
      << llvm::toString(fusions.takeError());
  ASSERT_EQ(fusions->size(), 1u);
  const Invocation &executed = (*fusions)[0].executed;
  EXPECT_EQ(executed.reads, (std::vector<TensorAccess>{{"d_params", 160},
                                                       {"params_master", 80},
                                                       {"adam_m", 40},
                                                       {"adam_v", 40}}));
  EXPECT_EQ(executed.writes, (std::vector<TensorAccess>{{"d_params", 120},
                                                        {"adam_m", 40},
                                                        {"adam_v", 40},
                                                        {"params_master", 40},
                                                        {"params", 20}}));
  // Ops: AdamW 16 + DDP scaling 1 + norm 2 + unscale 2 per parameter.
  EXPECT_EQ(executed.ops, 210);
  EXPECT_EQ((*fusions)[0].extraOps, 50);
}

TEST(ImplementationTest, MegatronOptimizerRefusesAStepItCannotRead) {
  // apply_implementation_c5: the step must carry deriveAdamWStep's tensors.
  Invocation step = adamWStep(2);
  step.reads[0].tensor = "master";
  llvm::Expected<std::vector<Fusion>> fusions =
      megatronOptimizerSteps({step}, /*lossScaling=*/true);
  ASSERT_FALSE(static_cast<bool>(fusions));
  EXPECT_EQ(llvm::toString(fusions.takeError()),
            "apply_implementation_c5: megatron-float16-optimizer: the AdamW "
            "step reads no 'params_master' (deriveAdamWStep)");
  // 16 operations per parameter: 161 is not.
  Invocation odd = adamWStep(2);
  odd.ops = 161;
  llvm::Expected<std::vector<Fusion>> refused =
      megatronOptimizerSteps({odd}, /*lossScaling=*/true);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()),
            "apply_implementation_c5: megatron-float16-optimizer: adamw_step "
            "ops 161 are not 16 per parameter (deriveAdamWStep)");
}
