//===- HuggingFaceMoETest.cpp - MoE config.json files as models -----------===//
//
// The bundled Mixtral-8x7B-v0.1 and DeepSeek-V3 configs
// (test/Import/huggingface, PROVENANCE.md) import to the mixture-of-experts
// models of docs/ImportHuggingFace.md, and the imported fields reproduce
// the checkpoints' parameter counts through counts written out here from
// transformers' MixtralForCausalLM (modeling_mixtral.py) and
// DeepseekV3ForCausalLM (modeling_deepseek_v3.py), independent of the
// importer.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/HuggingFaceConfig.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/EdgeWork.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace blueprint;
using namespace blueprint::workload;

namespace {

/// Parameters of MixtralForCausalLM with `expertsCounted` experts per block:
/// per block q_proj and o_proj (h x heads*head_dim each), k_proj and v_proj
/// (h x kv_heads*head_dim each), no biases; the router `gate` (h x E, all E
/// rows whatever is counted: every token is scored against every expert);
/// `expertsCounted` experts of w1, w3 (h x f) and w2 (f x h); two RMSNorm
/// weights (h each). Then embed_tokens and the untied lm_head (V x h each)
/// and the final norm (h).
int64_t mixtralParameters(const ModelSpec &model, int64_t expertsCounted) {
  int64_t h = model.hidden;
  int64_t queryColumns = model.heads * model.headDim;
  int64_t keyValueColumns = model.kvHeads * model.headDim;
  int64_t attention = 2 * h * queryColumns + 2 * h * keyValueColumns;
  int64_t router = h * model.moe->experts;
  int64_t experts = expertsCounted * 3 * h * model.moe->expertFfnHidden;
  int64_t norms = 2 * h;
  int64_t block = attention + router + experts + norms;
  int64_t edges = 2 * model.vocab * h + h;
  return model.blocks * block + edges;
}

TEST(HuggingFaceMoE, MixtralConfigImportsItsExpertsAndPublishedCount) {
  std::string file =
      std::string(BLUEPRINT_HUGGINGFACE_DIR) + "/mixtral-8x7b-v0.1/config.json";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(file);
  ASSERT_TRUE(text) << file;
  mlir::MLIRContext context;
  std::optional<import::HuggingFaceModel> imported =
      import::readHuggingFaceConfig((*text)->getBuffer(), file, &context);
  ASSERT_TRUE(imported);
  const ModelSpec &model = imported->model;
  EXPECT_EQ(model.hidden, 4096);
  EXPECT_EQ(model.heads, 32);
  EXPECT_EQ(model.kvHeads, 8);
  EXPECT_EQ(model.headDim, 128);
  EXPECT_EQ(model.ffnHidden, 14336);
  EXPECT_EQ(model.blocks, 32);
  EXPECT_EQ(model.vocab, 32000);
  EXPECT_EQ(model.maxPositions, 32768);
  EXPECT_EQ(model.norm, NormKind::RMSNorm);
  EXPECT_EQ(model.activation, ActivationKind::SwiGLU);
  EXPECT_EQ(model.linearBias, LinearBias::None);
  EXPECT_EQ(model.positionEmbedding, PositionEmbedding::Rotary);
  EXPECT_FALSE(model.tiedEmbeddings);
  EXPECT_EQ(model.attentionWindow, std::nullopt) << "sliding_window is null";
  ASSERT_TRUE(model.moe);
  MixtureOfExperts expected;
  expected.experts = 8;
  expected.expertsPerToken = 2;
  expected.expertFfnHidden = 14336;
  EXPECT_EQ(*model.moe, expected)
      << "no shared expert, every block MoE, dropless, balanced";
  EXPECT_EQ(model.moe->expertBlocks(model.blocks), 32);

  // The published total (huggingface.co/mistralai/Mixtral-8x7B-v0.1,
  // safetensors metadata; PROVENANCE.md).
  EXPECT_EQ(mixtralParameters(model, model.moe->experts), 46'702'792'704);
  // Active per token: 2 of the 8 experts, the whole router. By hand: per
  // block 41,943,040 (attention) + 32,768 (router) + 2 x 176,160,768
  // (experts) + 8,192 (norms) = 394,305,536; x 32 = 12,617,777,152; plus
  // 2 x 131,072,000 + 4,096 = 12,879,925,248. Counting k of the E router
  // rows instead would give 32 x 6 x 4096 = 786,432 fewer, 12,879,138,816.
  EXPECT_EQ(mixtralParameters(model, model.moe->expertsPerToken),
            12'879'925'248);
}

/// The elements of the tensors of transformers' DeepseekV3ForCausalLM
/// state_dict for the bundled config (no multi-token-prediction layer),
/// summed tensor by tensor from the config's numbers: h = 7168, V = 129280,
/// 61 layers of which the first 3 dense, 128 heads. The 58 x 256
/// gate.e_score_correction_bias elements are buffers in transformers (its
/// num_parameters() is 58 x 256 lower) and parameters in the checkpoint's
/// remote code.
int64_t deepseekV3ParametersByHand() {
  int64_t h = 7168, V = 129280, layers = 61, dense = 3, heads = 128;
  int64_t qRank = 1536, kvRank = 512, nope = 128, rope = 64, value = 128;
  int64_t attention = h * qRank                         // q_a_proj
                      + qRank                           // q_a_layernorm
                      + qRank * heads * (nope + rope)   // q_b_proj
                      + h * (kvRank + rope)             // kv_a_proj_with_mqa
                      + kvRank                          // kv_a_layernorm
                      + kvRank * heads * (nope + value) // kv_b_proj
                      + heads * value * h;              // o_proj
  int64_t norms = 2 * h;            // input_layernorm, post_attention_layernorm
  int64_t denseMlp = 3 * h * 18432; // gate, up, down
  int64_t experts = 256, expertWidth = 2048;
  int64_t moe = experts * h                     // gate.weight
                + experts                       // gate.e_score_correction_bias
                + experts * 3 * h * expertWidth // routed experts
                + 3 * h * (1 * expertWidth);    // shared_experts
  int64_t edges = V * h + h + h * V;            // embed_tokens, norm, lm_head
  return layers * (attention + norms) + dense * denseMlp +
         (layers - dense) * moe + edges;
}

// The bundled DeepSeek-V3 config imports whole: its MoE blocks route with
// DeepseekV3TopkRouter (router = sigmoid_group_limited), and Blueprint's
// parameter functions, each block kind counted on its own, give the
// 671,026,419,200 elements of the state_dict once the 58 x 256
// score-correction biases (buffers, scoreCorrectionBiasElements) are
// added.
TEST(HuggingFaceMoE, DeepseekV3ConfigImportsItsRouterAndCountsItsParameters) {
  EXPECT_EQ(deepseekV3ParametersByHand(), 671'026'419'200);
  std::string file =
      std::string(BLUEPRINT_HUGGINGFACE_DIR) + "/deepseek-v3/config.json";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(file);
  ASSERT_TRUE(text) << file;
  mlir::MLIRContext context;
  std::optional<import::HuggingFaceModel> imported =
      import::readHuggingFaceConfig((*text)->getBuffer(), file, &context);
  ASSERT_TRUE(imported);
  ModelSpec model = imported->model;
  EXPECT_EQ(model.hidden, 7168);
  EXPECT_EQ(model.heads, 128);
  EXPECT_EQ(model.kvHeads, 128);
  EXPECT_EQ(model.headDim, 192);
  EXPECT_EQ(model.ffnHidden, 18432);
  EXPECT_EQ(model.blocks, 61);
  EXPECT_EQ(model.vocab, 129280);
  EXPECT_EQ(model.maxPositions, 163840);
  EXPECT_EQ(model.qLoraRank, 1536);
  EXPECT_EQ(model.kvLoraRank, 512);
  EXPECT_EQ(model.qkNopeHeadDim, 128);
  EXPECT_EQ(model.qkRopeHeadDim, 64);
  EXPECT_EQ(model.vHeadDim, 128);
  EXPECT_EQ(model.norm, NormKind::RMSNorm);
  EXPECT_EQ(model.activation, ActivationKind::SwiGLU);
  EXPECT_EQ(model.linearBias, LinearBias::None);
  EXPECT_FALSE(model.tiedEmbeddings);

  // The config's MoE blocks: n_routed_experts 256, num_experts_per_tok 8,
  // moe_intermediate_size 2048, n_shared_experts 1, first_k_dense_replace
  // 3, n_group 8, topk_group 4.
  ASSERT_TRUE(model.moe);
  MixtureOfExperts expected;
  expected.experts = 256;
  expected.expertsPerToken = 8;
  expected.expertFfnHidden = 2048;
  expected.sharedExperts = 1;
  expected.firstDenseBlocks = 3;
  expected.router = RouterKind::SigmoidGroupLimited;
  expected.routerGroups = 8;
  expected.routerGroupsPerToken = 4;
  EXPECT_EQ(*model.moe, expected);
  // The sequence length comes from the spec that names the config.
  model.seqLength = 4096;
  EXPECT_TRUE(checkModel(model).empty());
  EXPECT_EQ(model.moe->expertBlocks(model.blocks), 58);
  EXPECT_EQ(model.moe->scoreCorrectionBiasElements(), 256);

  // Each block kind is counted on its own, independently of the per-layer
  // whole run.
  MappingSpec oneRank;
  int64_t denseBlock =
      cantFail(blockParametersPerRank(model, BlockKind::Dense, oneRank));
  int64_t moeBlock =
      cantFail(blockParametersPerRank(model, BlockKind::Expert, oneRank));
  EdgeParameters edges = cantFail(edgeParametersPerRank(model, oneRank));
  int64_t scoreCorrectionBias = 58 * model.moe->scoreCorrectionBiasElements();
  EXPECT_EQ(3 * denseBlock + 58 * moeBlock + edges.firstStageTotal +
                edges.lastStageTotal + scoreCorrectionBias,
            671'026'419'200);

  // Active parameters (docs/ModelSummary.md): per block attention
  // 187,107,328 (h r_q + r_q + r_q a d + h (r_kv + d_r) + r_kv +
  // r_kv a (d_n + d_v) + a d_v h) and norms 2h = 14,336; a dense block's
  // MLP 3 h 18432 = 396,361,728; an MoE block's router h E = 1,835,008 and
  // k + 1 = 9 experts of 3 h 2048 = 396,361,728. So 583,483,392 per dense
  // block, 585,318,400 per MoE block; with the edges 2 V h + h =
  // 1,853,365,248: 3 x 583,483,392 + 58 x 585,318,400 + 1,853,365,248 =
  // 37,552,282,624, DeepSeek-V3's "37B activated" (its report's abstract),
  // 36,625,603,584 without the input embedding table no matmul multiplies.
  int64_t denseActive =
      cantFail(activeBlockParameters(model, BlockKind::Dense));
  int64_t moeActive = cantFail(activeBlockParameters(model, BlockKind::Expert));
  EXPECT_EQ(denseActive, 583'483'392);
  EXPECT_EQ(moeActive, 585'318'400);
  EXPECT_EQ(3 * denseActive + 58 * moeActive + edges.firstStageTotal +
                edges.lastStageTotal,
            37'552'282'624);
}

} // namespace
