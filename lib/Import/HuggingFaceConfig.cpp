//===- HuggingFaceConfig.cpp - A Hugging Face config.json as a model ------===//
//
// Maps the keys of a Hugging Face config.json onto the model contract, one
// family (`model_type`) at a time, as the transformers modeling code of that
// family builds the network (docs/ImportHuggingFace.md cites the files).
// Every key is either read or known not to change the work; any other key
// is an error, so that a config is never silently misread.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/HuggingFaceConfig.h"

#include "Blueprint/Import/FieldReader.h"
#include "Blueprint/Import/TrainingModule.h"
#include "Blueprint/Support/JSON.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::import;
using namespace blueprint::workload;

namespace {

/// The config's own keys are members of its top-level object.
const std::string kRoot = "$";

/// Keys every PretrainedConfig may carry that say nothing about the
/// network's shape: names, token ids, the stored datatype (the spec's
/// workload states the datatypes run), the initialization and the
/// generation cache.
constexpr llvm::StringLiteral kCommonIgnored[] = {
    "_name_or_path",        "architectures",     "bos_token_id", "eos_token_id",
    "pad_token_id",         "initializer_range", "torch_dtype",  "dtype",
    "transformers_version", "use_cache"};

/// A supported `model_type`: the keys its mapping reads (those of the shape
/// it shares with other families, and its own), the ones it ignores besides
/// kCommonIgnored, and the mapping.
struct Family {
  llvm::StringLiteral modelType;
  llvm::ArrayRef<llvm::StringLiteral> shape;
  llvm::ArrayRef<llvm::StringLiteral> own;
  llvm::ArrayRef<llvm::StringLiteral> ignored;
  ModelSpec (*map)(FieldReader &, const llvm::json::Object &);

  bool reads(llvm::StringRef key) const {
    return llvm::is_contained(shape, key) || llvm::is_contained(own, key);
  }
};

/// An integer key that is absent or null when the family's default applies.
std::optional<int64_t> nullableInteger(FieldReader &reader,
                                       const llvm::json::Object &config,
                                       llvm::StringRef key) {
  const llvm::json::Value *value = config.get(key);
  if (!value || value->getAsNull())
    return std::nullopt;
  return reader.integer(config, key, kRoot);
}

/// Llama, Mistral, Qwen2 and DeepSeek-V3 share the network around the
/// attention (LlamaDecoderLayer and its copies): RMSNorm, rotary q and k, a
/// SwiGLU MLP (gate, up and down projections); the head width, the biases
/// and the windows are the caller's.
ModelSpec mapRotaryShape(FieldReader &reader,
                         const llvm::json::Object &config) {
  ModelSpec model;
  model.hidden = reader.integer(config, "hidden_size", kRoot);
  model.heads = reader.integer(config, "num_attention_heads", kRoot);
  model.kvHeads = nullableInteger(reader, config, "num_key_value_heads")
                      .value_or(model.heads);
  model.ffnHidden = reader.integer(config, "intermediate_size", kRoot);
  model.blocks = reader.integer(config, "num_hidden_layers", kRoot);
  model.vocab = reader.integer(config, "vocab_size", kRoot);
  model.maxPositions = reader.integer(config, "max_position_embeddings", kRoot);
  std::optional<std::string> activation =
      reader.string(config, "hidden_act", kRoot, "silu");
  if (activation && *activation != "silu")
    reader.error(kRoot + ".hidden_act",
                 "unsupported value \"" + *activation +
                     "\": only \"silu\" (the gated MLP, activation = "
                     "swiglu) is expressible");
  model.activation = ActivationKind::SwiGLU;
  model.norm = NormKind::RMSNorm;
  model.positionEmbedding = PositionEmbedding::Rotary;
  model.tiedEmbeddings =
      reader.boolean(config, "tie_word_embeddings", kRoot, false);
  return model;
}

/// The rotary shape with the head width of LlamaAttention: `head_dim`, or
/// hidden_size / num_attention_heads when absent or null.
ModelSpec mapLlamaShape(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model = mapRotaryShape(reader, config);
  std::optional<int64_t> headDim = nullableInteger(reader, config, "head_dim");
  model.headDim =
      headDimension(reader, headDim, model.hidden, model.heads, kRoot);
  return model;
}

/// LlamaAttention gives q, k, v and o a bias when `attention_bias`, LlamaMLP
/// its three projections when `mlp_bias`.
ModelSpec mapLlama(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model = mapLlamaShape(reader, config);
  bool attentionBias = reader.boolean(config, "attention_bias", kRoot, false);
  bool mlpBias = reader.boolean(config, "mlp_bias", kRoot, false);
  if (attentionBias == mlpBias)
    model.linearBias = attentionBias ? LinearBias::All : LinearBias::None;
  else
    reader.error(kRoot + (attentionBias ? ".attention_bias" : ".mlp_bias"),
                 llvm::Twine("attention_bias = ") +
                     (attentionBias ? "true" : "false") +
                     " with mlp_bias = " + (mlpBias ? "true" : "false") +
                     " is not expressible: linear_bias gives a bias to all "
                     "linear layers, to the QKV projection only, or to none");
  return model;
}

/// The `sliding_window` of a Mistral-style config (`absent` when the key is
/// absent, none when null); none when it is at least `maxPositions`, a
/// window that never slides.
std::optional<int64_t> slidingWindow(FieldReader &reader,
                                     const llvm::json::Object &config,
                                     std::optional<int64_t> absent,
                                     int64_t maxPositions) {
  std::optional<int64_t> window =
      config.get("sliding_window")
          ? nullableInteger(reader, config, "sliding_window")
          : absent;
  if (window && *window >= maxPositions)
    return std::nullopt;
  return window;
}

/// MistralAttention and MistralMLP have no biases; every layer attends
/// within `sliding_window` keys (MistralConfig's default 4096; null is full
/// causal attention). A window at least as long as the longest sequence the
/// model accepts never slides: transformers' mask is then full causal
/// attention, and so is the imported model (transformer_model_c5 refuses
/// such a window when a spec states it).
ModelSpec mapMistral(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model = mapLlamaShape(reader, config);
  model.linearBias = LinearBias::None;
  constexpr int64_t kDefaultWindow = 4096;
  model.attentionWindow =
      slidingWindow(reader, config, kDefaultWindow, model.maxPositions);
  return model;
}

/// MixtralDecoderLayer is Mistral's layer with the MLP replaced in every
/// block by MixtralSparseMoeBlock: a bias-free router `gate` (hidden ->
/// num_local_experts), softmax, top num_experts_per_tok with the weights
/// renormalised, and num_local_experts SwiGLU experts of intermediate_size
/// (w1, w3, w2); no shared expert, no dense block, dropless routing.
/// MixtralConfig's sliding_window defaults to none (full attention), unlike
/// Mistral's.
ModelSpec mapMixtral(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model = mapLlamaShape(reader, config);
  model.linearBias = LinearBias::None;
  model.attentionWindow =
      slidingWindow(reader, config, std::nullopt, model.maxPositions);
  MixtureOfExperts moe;
  moe.experts = reader.integer(config, "num_local_experts", kRoot, 8);
  moe.expertsPerToken = reader.integer(config, "num_experts_per_tok", kRoot, 2);
  moe.expertFfnHidden = model.ffnHidden;
  model.moe = moe;
  // MixtralSparseMoeBlock multiplies the router input by uniform noise in
  // [1 - router_jitter_noise, 1 + router_jitter_noise] in training: work of
  // the MoE algebra that no contract field states.
  if (const llvm::json::Value *jitter = config.get("router_jitter_noise")) {
    std::optional<double> noise = jitter->getAsNumber();
    if (!noise || *noise != 0)
      reader.error(kRoot + ".router_jitter_noise",
                   "router jitter noise is not supported, got " +
                       FieldReader::printed(*jitter) +
                       ": only 0 (no noise on the router input) is "
                       "expressible");
  }
  // With output_router_logits the forward also computes the auxiliary
  // load-balancing loss (load_balancing_loss_func) weighted by
  // router_aux_loss_coef: work the derived MoE block does not have.
  if (const llvm::json::Value *logits = config.get("output_router_logits")) {
    std::optional<bool> returned = logits->getAsBoolean();
    if (!returned || *returned)
      reader.error(kRoot + ".output_router_logits",
                   "the auxiliary load-balancing loss is not derived, got " +
                       FieldReader::printed(*logits) +
                       ": only false (no router logits returned for it) is "
                       "expressible");
  }
  return model;
}

/// A routing string key of DeepseekV3Config, type-checked: none when absent.
std::optional<std::string> routingString(FieldReader &reader,
                                         const llvm::json::Object &config,
                                         llvm::StringRef key) {
  if (!config.get(key))
    return std::nullopt;
  return reader.string(config, key, kRoot);
}

/// A DeepSeek-V3 routing string the router must have: absent or `expected`,
/// else an error naming the key.
void requireRoutingValue(FieldReader &reader, llvm::StringRef key,
                         const std::optional<std::string> &value,
                         llvm::StringRef expected, llvm::StringRef meaning) {
  if (value && *value != expected)
    reader.error(kRoot + "." + key.str(),
                 "got \"" + *value + "\": only \"" + expected.str() + "\" (" +
                     meaning.str() +
                     ", transformers' DeepseekV3TopkRouter) is derived");
}

/// DeepseekV3ForCausalLM (transformers' modeling_deepseek_v3.py, its
/// defaults those of configuration_deepseek_v3.py's DeepseekV3Config):
/// multi-head latent attention in every block (q_a_proj, q_a_layernorm,
/// q_b_proj, or q_proj without q_lora_rank; kv_a_proj_with_mqa,
/// kv_a_layernorm, kv_b_proj; o_proj), RMSNorm, SwiGLU MLPs, untied
/// embeddings. Block i is a DeepseekV3MoE block when i >=
/// first_k_dense_replace (default 3), else a dense MLP of
/// intermediate_size. DeepseekV3MoE has n_routed_experts experts and one
/// shared MLP of n_shared_experts x moe_intermediate_size, and routes with
/// DeepseekV3TopkRouter: sigmoid scores plus the score-correction bias, a
/// top-k within the topk_group best of n_group groups, the selected scores
/// renormalised (norm_topk_prob) and multiplied by routed_scaling_factor
/// (router = sigmoid_group_limited). DeepseekV3Config has no scoring_func
/// or topk_method (the checkpoint's remote code reads them): when a config
/// writes them they must name that router, "sigmoid" and "noaux_tc".
ModelSpec mapDeepseekV3(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model = mapRotaryShape(reader, config);
  if (reader.boolean(config, "attention_bias", kRoot, false))
    reader.error(kRoot + ".attention_bias",
                 "true is not supported: multi-head latent attention has no "
                 "bias (transformer_model_c10)");
  model.linearBias = LinearBias::None;
  model.qLoraRank = nullableInteger(reader, config, "q_lora_rank");
  model.kvLoraRank = reader.integer(config, "kv_lora_rank", kRoot);
  model.qkNopeHeadDim = reader.integer(config, "qk_nope_head_dim", kRoot);
  model.qkRopeHeadDim = reader.integer(config, "qk_rope_head_dim", kRoot);
  model.vHeadDim = reader.integer(config, "v_head_dim", kRoot);
  // A query/key head is qk_nope_head_dim + qk_rope_head_dim wide
  // (transformer_model_c9), whatever hidden / heads is; DeepseekV3Config's
  // own head_dim is the rotary width qk_rope_head_dim, read for its type
  // only.
  nullableInteger(reader, config, "head_dim");
  model.headDim =
      headDimension(reader, std::nullopt, model.hidden, model.heads, kRoot,
                    model.qkNopeHeadDim, model.qkRopeHeadDim);

  // The routing keys, read (with DeepseekV3Config's defaults) whether or
  // not a block is an MoE block.
  std::optional<int64_t> routedExperts =
      nullableInteger(reader, config, "n_routed_experts");
  MixtureOfExperts moe;
  moe.experts = routedExperts.value_or(256);
  moe.expertsPerToken = reader.integer(config, "num_experts_per_tok", kRoot, 8);
  moe.expertFfnHidden =
      reader.integer(config, "moe_intermediate_size", kRoot, 2048);
  // The remote code builds no shared expert for null; transformers' default
  // is 1.
  moe.sharedExperts =
      config.get("n_shared_experts")
          ? nullableInteger(reader, config, "n_shared_experts").value_or(0)
          : 1;
  moe.router = RouterKind::SigmoidGroupLimited;
  moe.routerGroups = reader.integer(config, "n_group", kRoot, 8);
  moe.routerGroupsPerToken = reader.integer(config, "topk_group", kRoot, 4);
  bool normalised = reader.boolean(config, "norm_topk_prob", kRoot, true);
  // The factor's value changes no count: one multiply per selected expert
  // whatever it is (docs/ImportHuggingFace.md).
  if (const llvm::json::Value *factor = config.get("routed_scaling_factor"))
    if (!factor->getAsNumber())
      reader.error(kRoot + ".routed_scaling_factor",
                   "expected a number, got " + FieldReader::printed(*factor));
  std::optional<std::string> scoring =
      routingString(reader, config, "scoring_func");
  std::optional<std::string> topkMethod =
      routingString(reader, config, "topk_method");
  if (config.get("num_local_experts"))
    reader.error(kRoot + ".num_local_experts",
                 "an alias of n_routed_experts (DeepseekV3Config's "
                 "attribute_map): write n_routed_experts");
  int64_t layerFrequency = reader.integer(config, "moe_layer_freq", kRoot, 1);

  moe.firstDenseBlocks =
      reader.integer(config, "first_k_dense_replace", kRoot, 3);
  // An all-dense model routes nothing: its routing keys are read for their
  // types only, their values checked when a block is an MoE block.
  if (moe.firstDenseBlocks >= model.blocks)
    return model;
  if (!normalised)
    reader.error(kRoot + ".norm_topk_prob",
                 "false is not supported: the router's top-k scores are "
                 "always renormalised (true, DeepSeek-V3 Eq. 13)");
  requireRoutingValue(reader, "scoring_func", scoring, "sigmoid",
                      "sigmoid scores");
  requireRoutingValue(reader, "topk_method", topkMethod, "noaux_tc",
                      "the score-correction bias and group-limited top-k");
  // transformers makes every block from first_k_dense_replace on an MoE
  // block; the remote code only every moe_layer_freq-th of them.
  if (layerFrequency != 1)
    reader.error(kRoot + ".moe_layer_freq",
                 "only 1 is supported with MoE blocks: transformers' "
                 "DeepseekV3Model makes every block from "
                 "first_k_dense_replace on an MoE block and ignores it, while "
                 "the checkpoint's remote code honours it");
  // transformers builds DeepseekV3MoE from first_k_dense_replace on
  // whatever n_routed_experts says; null (the remote code's "no MoE block")
  // gives it no experts to build.
  if (!routedExperts && config.get("n_routed_experts"))
    reader.error(kRoot + ".n_routed_experts",
                 "null with blocks " + std::to_string(moe.firstDenseBlocks) +
                     " to " + std::to_string(model.blocks - 1) +
                     " MoE (first_k_dense_replace = " +
                     std::to_string(moe.firstDenseBlocks) +
                     "): transformers' DeepseekV3MoE needs the number of "
                     "routed experts");
  model.moe = moe;
  return model;
}

/// Qwen2Attention gives q, k and v a bias and o none; the MLP has none.
/// With `use_sliding_window` only the layers from `max_window_layers` on
/// attend within the window, which one attention_window for every block
/// cannot say.
ModelSpec mapQwen2(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model = mapLlamaShape(reader, config);
  model.linearBias = LinearBias::QKVOnly;
  if (reader.boolean(config, "use_sliding_window", kRoot, false))
    reader.error(kRoot + ".use_sliding_window",
                 "true is not supported: Qwen2 applies the sliding window "
                 "only to the layers from max_window_layers on, and the "
                 "model's attention_window holds for every block");
  return model;
}

/// GPT2Model: LayerNorm, a learned position table, biases on every linear
/// layer (Conv1D), a plain MLP of n_inner (default 4 * n_embd) and an LM
/// head tied to the token embeddings unless the config unties it.
ModelSpec mapGPT2(FieldReader &reader, const llvm::json::Object &config) {
  ModelSpec model;
  model.hidden = reader.integer(config, "n_embd", kRoot);
  model.heads = reader.integer(config, "n_head", kRoot);
  model.kvHeads = model.heads;
  model.headDim =
      headDimension(reader, std::nullopt, model.hidden, model.heads, kRoot);
  model.blocks = reader.integer(config, "n_layer", kRoot);
  model.maxPositions = reader.integer(config, "n_positions", kRoot);
  model.vocab = reader.integer(config, "vocab_size", kRoot);
  if (std::optional<int64_t> inner = nullableInteger(reader, config, "n_inner"))
    model.ffnHidden = *inner;
  else if (std::optional<int64_t> fourTimes =
               llvm::checkedMul<int64_t>(4, model.hidden))
    model.ffnHidden = *fourTimes;
  else
    reader.error(kRoot + ".n_embd", "4 * n_embd (the default n_inner) "
                                    "overflows a 64-bit integer");
  std::optional<std::string> activation =
      reader.string(config, "activation_function", kRoot, "gelu_new");
  if (activation == "gelu" || activation == "gelu_new")
    model.activation = ActivationKind::GeLU;
  else if (activation == "relu")
    model.activation = ActivationKind::ReLU;
  else if (activation)
    reader.error(kRoot + ".activation_function",
                 "unsupported value \"" + *activation +
                     "\": expected \"gelu_new\" or \"gelu\" (activation = "
                     "gelu) or \"relu\"");
  model.norm = NormKind::LayerNorm;
  model.positionEmbedding = PositionEmbedding::Learned;
  model.linearBias = LinearBias::All;
  model.tiedEmbeddings =
      reader.boolean(config, "tie_word_embeddings", kRoot, true);
  return model;
}

constexpr llvm::StringLiteral kLlamaShape[] = {
    "model_type",          "hidden_size",        "num_attention_heads",
    "num_key_value_heads", "head_dim",           "intermediate_size",
    "num_hidden_layers",   "vocab_size",         "max_position_embeddings",
    "hidden_act",          "tie_word_embeddings"};
constexpr llvm::StringLiteral kLlamaOwn[] = {"attention_bias", "mlp_bias"};
constexpr llvm::StringLiteral kLlamaIgnored[] = {
    "rms_norm_eps", "rope_theta", "rope_scaling", "pretraining_tp",
    "attention_dropout"};
constexpr llvm::StringLiteral kMistralOwn[] = {"sliding_window"};
constexpr llvm::StringLiteral kMistralIgnored[] = {"rms_norm_eps", "rope_theta",
                                                   "attention_dropout"};
constexpr llvm::StringLiteral kMixtralOwn[] = {
    "sliding_window", "num_local_experts", "num_experts_per_tok",
    "router_jitter_noise", "output_router_logits"};
/// router_aux_loss_coef weights the auxiliary load-balancing loss, which the
/// forward computes only with output_router_logits (read: only false is
/// expressible), so the weight changes no derived count.
constexpr llvm::StringLiteral kMixtralIgnored[] = {
    "rms_norm_eps", "rope_theta", "attention_dropout", "router_aux_loss_coef"};
constexpr llvm::StringLiteral kQwen2Own[] = {"use_sliding_window"};
constexpr llvm::StringLiteral kQwen2Ignored[] = {
    "rms_norm_eps",   "rope_theta",        "rope_scaling",
    "sliding_window", "max_window_layers", "attention_dropout"};
constexpr llvm::StringLiteral kDeepseekV3Own[] = {"attention_bias",
                                                  "q_lora_rank",
                                                  "kv_lora_rank",
                                                  "qk_nope_head_dim",
                                                  "qk_rope_head_dim",
                                                  "v_head_dim",
                                                  "n_routed_experts",
                                                  "num_experts_per_tok",
                                                  "moe_intermediate_size",
                                                  "n_shared_experts",
                                                  "first_k_dense_replace",
                                                  "scoring_func",
                                                  "topk_method",
                                                  "norm_topk_prob",
                                                  "routed_scaling_factor",
                                                  "n_group",
                                                  "topk_group",
                                                  "num_local_experts",
                                                  "moe_layer_freq"};
/// Ignored (docs/ImportHuggingFace.md): rope_scaling (YaRN rescales the
/// rotary frequencies and the softmax scale, not the work),
/// num_nextn_predict_layers (the multi-token-prediction module, which
/// transformers does not build), ep_size (the remote code's expert
/// parallelism: a mapping, stated by the spec), quantization_config (the
/// checkpoint's FP8 storage: the spec's workload states the datatypes),
/// aux_loss_alpha and seq_aux (the auxiliary loss, computed only in the
/// remote code's training path), auto_map.
constexpr llvm::StringLiteral kDeepseekV3Ignored[] = {
    "rms_norm_eps",
    "rope_theta",
    "rope_scaling",
    "attention_dropout",
    "num_nextn_predict_layers",
    "ep_size",
    "quantization_config",
    "aux_loss_alpha",
    "seq_aux",
    "auto_map",
    "rope_interleave",
    "pretraining_tp"};
constexpr llvm::StringLiteral kGPT2Shape[] = {
    "model_type",         "n_embd",     "n_head",  "n_layer",
    "n_positions",        "vocab_size", "n_inner", "activation_function",
    "tie_word_embeddings"};
constexpr llvm::StringLiteral kGPT2Ignored[] = {"n_ctx",
                                                "layer_norm_epsilon",
                                                "attn_pdrop",
                                                "embd_pdrop",
                                                "resid_pdrop",
                                                "summary_activation",
                                                "summary_first_dropout",
                                                "summary_proj_to_labels",
                                                "summary_type",
                                                "summary_use_proj",
                                                "task_specific_params"};

const Family kFamilies[] = {
    {"llama", kLlamaShape, kLlamaOwn, kLlamaIgnored, mapLlama},
    {"mistral", kLlamaShape, kMistralOwn, kMistralIgnored, mapMistral},
    {"mixtral", kLlamaShape, kMixtralOwn, kMixtralIgnored, mapMixtral},
    {"qwen2", kLlamaShape, kQwen2Own, kQwen2Ignored, mapQwen2},
    {"gpt2", kGPT2Shape, {}, kGPT2Ignored, mapGPT2},
    {"deepseek_v3", kLlamaShape, kDeepseekV3Own, kDeepseekV3Ignored,
     mapDeepseekV3}};

const Family *findFamily(llvm::StringRef modelType) {
  for (const Family &family : kFamilies)
    if (family.modelType == modelType)
      return &family;
  return nullptr;
}

/// Reports why `modelType` has no family.
void rejectModelType(FieldReader &reader, llvm::StringRef modelType) {
  std::string path = kRoot + ".model_type";
  llvm::SmallVector<llvm::StringRef> supported;
  for (const Family &family : kFamilies)
    supported.push_back(family.modelType);
  reader.error(path, "unsupported model type \"" + modelType +
                         "\"; supported: " + llvm::join(supported, ", "));
}

} // namespace

std::optional<HuggingFaceModel> blueprint::import::readHuggingFaceConfig(
    llvm::StringRef text, llvm::StringRef file, MLIRContext *context) {
  SourceFields fields(context, file);
  std::vector<JSONMember> members;
  llvm::Expected<llvm::json::Value> parsed = parseJSON(text, &members);
  if (!parsed) {
    emitError(fields.documentLocation())
        << "import: " << file << ": " << llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *config = parsed->getAsObject();
  std::optional<llvm::StringRef> modelType =
      config ? config->getString("model_type") : std::nullopt;
  const Family *family = modelType ? findFamily(*modelType) : nullptr;
  // The lineage names the keys the model was read from.
  for (const JSONMember &member : members)
    fields.add(
        member.path, member.line, member.column,
        family && member.depth == 1 && !member.container &&
            family->reads(
                llvm::StringRef(member.path).drop_front(kRoot.size() + 1)));
  FieldReader reader(fields, file);
  if (!reader.object(&*parsed, kRoot))
    return std::nullopt;
  std::optional<std::string> type = reader.string(*config, "model_type", kRoot);
  if (!type)
    return std::nullopt;
  if (!family) {
    rejectModelType(reader, *type);
    return std::nullopt;
  }
  llvm::SmallVector<llvm::StringLiteral> known(family->shape.begin(),
                                               family->shape.end());
  llvm::append_range(known, family->own);
  llvm::append_range(known, family->ignored);
  llvm::append_range(known, kCommonIgnored);
  reader.rejectUnknownFields(
      *config, kRoot, known,
      "key not known to change or not to change the work of a \"" + *type +
          "\" model (docs/ImportHuggingFace.md lists the keys read and the "
          "keys ignored)");
  HuggingFaceModel imported{family->map(reader, *config), fields.lineage()};
  if (reader.failed())
    return std::nullopt;
  return imported;
}
