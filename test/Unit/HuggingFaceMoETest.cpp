//===- HuggingFaceMoETest.cpp - Mixtral's config.json as a model ----------===//
//
// The bundled Mixtral-8x7B-v0.1 config (test/Import/huggingface,
// PROVENANCE.md) imports to the mixture-of-experts model of
// docs/ImportHuggingFace.md, and the imported fields reproduce the
// checkpoint's published parameter count through a count written out here
// from transformers' MixtralForCausalLM (modeling_mixtral.py), independent
// of the importer.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/HuggingFaceConfig.h"

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

} // namespace
