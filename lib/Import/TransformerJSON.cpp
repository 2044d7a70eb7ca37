//===- TransformerJSON.cpp - Import a JSON training spec ------------------===//
//
// Reads the JSON schema of docs/ImportJSON.md. Every error names the JSON
// path of the offending field and is reported at its line and column;
// unknown fields are rejected so that a typo never silently falls back to a
// default. The imported op's location names every field it was read from.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/TrainingModule.h"

#include "Blueprint/Import/FieldReader.h"
#include "Blueprint/Import/HuggingFaceConfig.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/Support/JSON.h"
#include "Blueprint/Workload/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::workload;

namespace {

using import::FieldReader;

constexpr DataType kDataTypes[] = {DataType::F32, DataType::BF16, DataType::F16,
                                   DataType::FP8};

/// The fields of a model object that states the model itself.
constexpr llvm::StringLiteral kModelFields[] = {"hidden",
                                                "heads",
                                                "kv_heads",
                                                "head_dim",
                                                "ffn_hidden",
                                                "seq_length",
                                                "max_positions",
                                                "vocab",
                                                "blocks",
                                                "norm",
                                                "activation",
                                                "linear_bias",
                                                "position_embedding",
                                                "tied_embeddings",
                                                "attention_window",
                                                "q_lora_rank",
                                                "kv_lora_rank",
                                                "qk_nope_head_dim",
                                                "qk_rope_head_dim",
                                                "v_head_dim",
                                                "moe"};

/// The fields of a model's `moe` object (#transformer.moe).
constexpr llvm::StringLiteral kMoEFields[] = {"experts",
                                              "experts_per_token",
                                              "expert_ffn_hidden",
                                              "shared_experts",
                                              "first_dense_blocks",
                                              "moe_layer_frequency",
                                              "capacity_factor_percent",
                                              "expert_imbalance_percent",
                                              "router",
                                              "router_groups",
                                              "router_groups_per_token"};

/// The mixture-of-experts MLPs of a model object's `moe` object, if any.
std::optional<MixtureOfExperts> readMoE(FieldReader &reader,
                                        const llvm::json::Object &model,
                                        int64_t ffnHidden) {
  const llvm::json::Value *value = model.get("moe");
  if (!value)
    return std::nullopt;
  const std::string path = "$.model.moe";
  const llvm::json::Object *object = reader.object(value, path);
  if (!object)
    return std::nullopt;
  reader.rejectUnknownFields(*object, path, kMoEFields);
  MixtureOfExperts moe;
  moe.experts = reader.integer(*object, "experts", path);
  moe.expertsPerToken = reader.integer(*object, "experts_per_token", path);
  moe.expertFfnHidden =
      reader.integer(*object, "expert_ffn_hidden", path, ffnHidden);
  moe.sharedExperts = reader.integer(*object, "shared_experts", path, 0);
  moe.firstDenseBlocks = reader.integer(*object, "first_dense_blocks", path, 0);
  moe.layerFrequency = reader.integer(*object, "moe_layer_frequency", path, 1);
  moe.capacityFactorPercent =
      reader.optionalInteger(*object, "capacity_factor_percent", path);
  moe.imbalancePercent =
      reader.integer(*object, "expert_imbalance_percent", path, 100);
  moe.router = reader.enumeration<RouterKind>(
      *object, "router", path, RouterKind::SoftmaxTopK,
      {RouterKind::SoftmaxTopK, RouterKind::SigmoidGroupLimited});
  moe.routerGroups = reader.integer(*object, "router_groups", path, 1);
  moe.routerGroupsPerToken =
      reader.integer(*object, "router_groups_per_token", path, 1);
  return moe;
}

/// The fields of a model object that names a Hugging Face config instead.
constexpr llvm::StringLiteral kNamedConfigFields[] = {
    "huggingface_config", "seq_length", "vocab_multiple"};

ModelSpec readModel(FieldReader &reader, const llvm::json::Object &object) {
  const std::string path = "$.model";
  reader.rejectUnknownFields(object, path, kModelFields);
  ModelSpec model;
  model.hidden = reader.integer(object, "hidden", path);
  model.heads = reader.integer(object, "heads", path);
  model.ffnHidden = reader.integer(object, "ffn_hidden", path);
  model.seqLength = reader.integer(object, "seq_length", path);
  model.vocab = reader.integer(object, "vocab", path);
  model.blocks = reader.integer(object, "blocks", path);
  model.kvHeads = reader.integer(object, "kv_heads", path, model.heads);
  model.qLoraRank = reader.optionalInteger(object, "q_lora_rank", path);
  model.kvLoraRank = reader.optionalInteger(object, "kv_lora_rank", path);
  model.qkNopeHeadDim =
      reader.optionalInteger(object, "qk_nope_head_dim", path);
  model.qkRopeHeadDim =
      reader.optionalInteger(object, "qk_rope_head_dim", path);
  model.vHeadDim = reader.optionalInteger(object, "v_head_dim", path);
  std::optional<int64_t> headDim =
      reader.optionalInteger(object, "head_dim", path);
  model.headDim =
      import::headDimension(reader, headDim, model.hidden, model.heads, path,
                            model.qkNopeHeadDim, model.qkRopeHeadDim);
  model.maxPositions =
      reader.integer(object, "max_positions", path, model.seqLength);
  model.norm = reader.enumeration<NormKind>(
      object, "norm", path, NormKind::LayerNorm,
      {NormKind::LayerNorm, NormKind::RMSNorm});
  model.activation = reader.enumeration<ActivationKind>(
      object, "activation", path, ActivationKind::GeLU,
      {ActivationKind::GeLU, ActivationKind::ReLU, ActivationKind::SwiGLU});
  model.linearBias = reader.enumeration<LinearBias>(
      object, "linear_bias", path, LinearBias::All,
      {LinearBias::All, LinearBias::QKVOnly, LinearBias::None});
  model.positionEmbedding = reader.enumeration<PositionEmbedding>(
      object, "position_embedding", path, PositionEmbedding::Learned,
      {PositionEmbedding::Learned, PositionEmbedding::Rotary});
  model.tiedEmbeddings = reader.boolean(object, "tied_embeddings", path, true);
  model.attentionWindow =
      reader.optionalInteger(object, "attention_window", path);
  model.moe = readMoE(reader, object, model.ffnHidden);
  return model;
}

/// A model read from the Hugging Face config a model object names, with
/// the file it was read from and the lineage of its keys.
struct NamedConfigModel {
  ModelSpec model;
  std::string file;
  llvm::SmallVector<Location> lineage;
};

/// `named` when absolute, else relative to the directory of `specFile`: the
/// working directory for a spec read from no file (standard input, or text
/// given a label such as `<spec>`).
std::string resolveNamedFile(llvm::StringRef named, llvm::StringRef specFile) {
  if (llvm::sys::path::is_absolute(named))
    return named.str();
  llvm::SmallString<256> resolved(llvm::sys::path::parent_path(specFile));
  llvm::sys::path::append(resolved, named);
  return std::string(resolved);
}

/// The model of a model object that names a Hugging Face config
/// (docs/ImportHuggingFace.md): the config states the model, the spec the
/// sequence length run and, optionally, the multiple the vocabulary is
/// padded to. Nothing (reported) on error.
std::optional<NamedConfigModel>
readNamedConfig(FieldReader &reader, const llvm::json::Object &object,
                llvm::StringRef specFile, MLIRContext *context) {
  const std::string path = "$.model";
  for (llvm::StringRef field : kModelFields)
    if (field != "seq_length" && object.get(field))
      reader.error(path + "." + field.str(),
                   "not allowed with huggingface_config: the config defines "
                   "it");
  llvm::SmallVector<llvm::StringLiteral> known(std::begin(kModelFields),
                                               std::end(kModelFields));
  llvm::append_range(known, kNamedConfigFields);
  reader.rejectUnknownFields(
      object, path, known,
      "unknown field; expected one of: " +
          llvm::join(llvm::ArrayRef(kNamedConfigFields), ", "));
  std::optional<std::string> named =
      reader.string(object, "huggingface_config", path);
  if (!object.get("seq_length"))
    reader.error(path + ".seq_length",
                 "required with huggingface_config: a config states the "
                 "longest sequence the model accepts "
                 "(max_position_embeddings), not the length run");
  int64_t seqLength = reader.integer(object, "seq_length", path, 0);
  std::optional<int64_t> vocabMultiple =
      reader.optionalInteger(object, "vocab_multiple", path);
  if (vocabMultiple && *vocabMultiple < 1)
    reader.error(path + ".vocab_multiple", "expected a positive integer, got " +
                                               llvm::Twine(*vocabMultiple));
  if (!named || reader.failed())
    return std::nullopt;

  NamedConfigModel result;
  result.file = resolveNamedFile(*named, specFile);
  // Only a regular file: a device or a pipe (/dev/zero, /dev/stdin) may
  // never end.
  auto cannotRead = [&](const llvm::Twine &reason) {
    reader.error(path + ".huggingface_config",
                 "cannot read \"" + result.file + "\": " + reason);
  };
  llvm::sys::fs::file_status status;
  if (std::error_code error = llvm::sys::fs::status(result.file, status)) {
    cannotRead(error.message());
    return std::nullopt;
  }
  if (!llvm::sys::fs::is_regular_file(status)) {
    cannotRead("not a regular file");
    return std::nullopt;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(result.file, /*IsText=*/true);
  if (!buffer) {
    cannotRead(buffer.getError().message());
    return std::nullopt;
  }
  std::optional<import::HuggingFaceModel> imported =
      import::readHuggingFaceConfig((*buffer)->getBuffer(), result.file,
                                    context);
  if (!imported)
    return std::nullopt;
  result.model = imported->model;
  result.lineage = std::move(imported->lineage);
  result.model.seqLength = seqLength;
  // Megatron-LM pads the vocabulary so that tensor-parallel ranks split it
  // evenly (--make-vocab-size-divisible-by); the padded rows are real work.
  // A vocabulary that is not positive is left for transformer_model_c1.
  if (vocabMultiple && result.model.vocab > 0) {
    int64_t vocab = result.model.vocab;
    std::optional<int64_t> padded = llvm::checkedMul(
        vocab / *vocabMultiple + (vocab % *vocabMultiple != 0), *vocabMultiple);
    if (!padded) {
      reader.error(path + ".vocab_multiple",
                   "vocab_size = " + llvm::Twine(vocab) +
                       " cannot be padded to a multiple of " +
                       llvm::Twine(*vocabMultiple) + " in a 64-bit integer");
      return std::nullopt;
    }
    result.model.vocab = *padded;
  }
  return result;
}

TrainingSpec readTraining(FieldReader &reader,
                          const llvm::json::Object &object) {
  const std::string path = "$.training";
  reader.rejectUnknownFields(
      object, path,
      {"global_batch", "micro_batch", "activation_type", "weight_type",
       "gradient_type", "optimizer_state_type", "attention_dropout",
       "hidden_dropout"});
  TrainingSpec training;
  training.globalBatch = reader.integer(object, "global_batch", path);
  training.microBatch = reader.integer(object, "micro_batch", path);
  training.activationType = reader.enumeration<DataType>(
      object, "activation_type", path, std::nullopt, kDataTypes);
  training.weightType = reader.enumeration<DataType>(
      object, "weight_type", path, std::nullopt, kDataTypes);
  training.gradientType = reader.enumeration<DataType>(
      object, "gradient_type", path, std::nullopt, kDataTypes);
  training.optimizerStateType = reader.enumeration<DataType>(
      object, "optimizer_state_type", path, std::nullopt, kDataTypes);
  training.attentionDropout =
      reader.boolean(object, "attention_dropout", path, true);
  training.hiddenDropout = reader.boolean(object, "hidden_dropout", path, true);
  return training;
}

InferenceSpec readInference(FieldReader &reader,
                            const llvm::json::Object &object) {
  const std::string path = "$.inference";
  reader.rejectUnknownFields(
      object, path,
      {"batch", "prompt_length", "generated_tokens", "activation_type",
       "weight_type", "kv_cache_type"});
  InferenceSpec inference;
  inference.batch = reader.integer(object, "batch", path);
  inference.promptLength = reader.integer(object, "prompt_length", path);
  inference.generatedTokens = reader.integer(object, "generated_tokens", path);
  inference.activationType = reader.enumeration<DataType>(
      object, "activation_type", path, std::nullopt, kDataTypes);
  inference.weightType = reader.enumeration<DataType>(
      object, "weight_type", path, std::nullopt, kDataTypes);
  inference.kvCacheType = reader.enumeration<DataType>(
      object, "kv_cache_type", path, std::nullopt, kDataTypes);
  return inference;
}

MappingSpec readMapping(FieldReader &reader, const llvm::json::Object &object,
                        int64_t blocks) {
  const std::string path = "$.mapping";
  reader.rejectUnknownFields(
      object, path,
      {"world", "tp", "pp", "dp", "virtual_stages", "tp_comm", "recompute",
       "schedule", "pipeline_layout", "first_stage_blocks", "last_stage_blocks",
       "zero_stage", "bucket_bytes", "cp", "cp_comm", "ep", "overlap"});
  MappingSpec mapping;
  mapping.tp = reader.integer(object, "tp", path);
  mapping.pp = reader.integer(object, "pp", path);
  mapping.cp = reader.integer(object, "cp", path, 1);
  mapping.cpComm =
      reader.enumeration<CPCommMode>(object, "cp_comm", path, CPCommMode::Ring,
                                     {CPCommMode::Ring, CPCommMode::AllGather});
  // Carved out of dp (expert_parallel_c1): it does not enter world.
  mapping.ep = reader.integer(object, "ep", path, 1);
  std::optional<int64_t> dp = reader.optionalInteger(object, "dp", path);
  std::optional<int64_t> world = reader.optionalInteger(object, "world", path);
  if (!dp && !world)
    reader.error(path, "give dp, world, or both (world = tp * cp * pp * dp)");
  // A world alone determines dp and a dp alone determines world; both given
  // are checked against each other by transformer_mapping_c2.
  std::optional<int64_t> tpCp = llvm::checkedMul(mapping.tp, mapping.cp);
  std::optional<int64_t> tpCpPp =
      tpCp ? llvm::checkedMul(*tpCp, mapping.pp) : std::nullopt;
  if (world && !dp) {
    if (tpCpPp && *tpCpPp > 0 && *world % *tpCpPp == 0)
      dp = *world / *tpCpPp;
    else
      reader.error(path + ".world",
                   "transformer_mapping_c2: world = " + llvm::Twine(*world) +
                       " is not divisible by tp * cp * pp");
  }
  mapping.dp = dp.value_or(0);
  if (world) {
    mapping.world = *world;
  } else if (std::optional<int64_t> product =
                 tpCpPp ? llvm::checkedMul(*tpCpPp, mapping.dp)
                        : std::nullopt) {
    mapping.world = *product;
  } else if (dp) {
    reader.error(path, "transformer_mapping_c2: tp * cp * pp * dp overflows a "
                       "64-bit integer");
  }
  mapping.virtualStages = reader.integer(object, "virtual_stages", path, 1);
  mapping.tpComm = reader.enumeration<TPCommMode>(
      object, "tp_comm", path, TPCommMode::AllReduce,
      {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather});
  mapping.recompute = reader.enumeration<RecomputePolicy>(
      object, "recompute", path, RecomputePolicy::None,
      {RecomputePolicy::None, RecomputePolicy::Selective,
       RecomputePolicy::Full});
  mapping.schedule = reader.enumeration<PipelineSchedule>(
      object, "schedule", path, PipelineSchedule::OneFOneB,
      {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
       PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1});
  mapping.zeroStage = reader.integer(object, "zero_stage", path, 0);
  mapping.bucketBytes = reader.integer(object, "bucket_bytes", path, 0);
  // An uneven layout is given in full, or as Megatron-LM's first- and
  // last-stage block counts with the rest split evenly.
  mapping.pipelineLayout = reader.integerList(object, "pipeline_layout", path);
  std::optional<int64_t> first =
      reader.optionalInteger(object, "first_stage_blocks", path);
  std::optional<int64_t> last =
      reader.optionalInteger(object, "last_stage_blocks", path);
  if ((first || last) && object.get("pipeline_layout")) {
    reader.error(path + ".pipeline_layout",
                 "give pipeline_layout or first_stage_blocks / "
                 "last_stage_blocks, not both");
  } else if ((first || last) && mapping.virtualStages != 1) {
    reader.error(path + (first ? ".first_stage_blocks" : ".last_stage_blocks"),
                 "first_stage_blocks and last_stage_blocks lay out one model "
                 "chunk per stage; with virtual_stages = " +
                     llvm::Twine(mapping.virtualStages) +
                     " give pipeline_layout");
  } else if (first || last) {
    std::variant<std::vector<int64_t>, RuleViolation> layout =
        firstLastLayout(blocks, mapping.pp, first, last);
    if (auto *violation = std::get_if<RuleViolation>(&layout))
      reader.error(path +
                       (first ? ".first_stage_blocks" : ".last_stage_blocks"),
                   violation->rule + ": " + violation->message);
    else
      mapping.pipelineLayout = std::get<std::vector<int64_t>>(layout);
  }
  // What the critical path overlaps (docs/Estimate.md, "Overlap"): an
  // object of booleans, each false unless given (mapping_overlap_c1, c2).
  if (const llvm::json::Value *overlap = object.get("overlap"))
    if (const llvm::json::Object *options =
            reader.object(overlap, path + ".overlap")) {
      reader.rejectUnknownFields(
          *options, path + ".overlap",
          {"tp_comm", "dp_grad_reduce", "p2p_comm"},
          "mapping_overlap_c1: unknown overlap option; the options are: "
          "tp_comm, dp_grad_reduce, p2p_comm (docs/Estimate.md, "
          "\"Overlap\")");
      auto option = [&](llvm::StringRef name, bool &on) {
        const llvm::json::Value *value = options->get(name);
        if (!value)
          return;
        if (std::optional<bool> given = value->getAsBoolean())
          on = *given;
        else
          reader.error(path + ".overlap." + name.str(),
                       "mapping_overlap_c2: an overlap option is true or "
                       "false, got " +
                           FieldReader::printed(*value));
      };
      option("tp_comm", mapping.overlapTPComm);
      option("dp_grad_reduce", mapping.overlapDPGradReduce);
      option("p2p_comm", mapping.overlapP2PComm);
    }
  return mapping;
}

} // namespace

OwningOpRef<ModuleOp>
blueprint::importTransformerJSON(llvm::SourceMgr &sourceMgr,
                                 MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  import::SourceFields fields(context, buffer->getBufferIdentifier());
  Location loc = fields.documentLocation();
  std::vector<JSONMember> members;
  llvm::Expected<llvm::json::Value> parsed =
      parseJSON(buffer->getBuffer(), &members);
  if (!parsed) {
    emitError(loc) << "import: " << llvm::toString(parsed.takeError());
    return nullptr;
  }
  // The contracts' own values are the members of their objects (depth 2)
  // that hold no object or array.
  for (const JSONMember &member : members)
    fields.add(member.path, member.line, member.column,
               /*inLineage=*/member.depth == 2 && !member.container);
  FieldReader reader(fields);
  const llvm::json::Object *root = reader.object(&*parsed, "$");
  if (!root)
    return nullptr;
  reader.rejectUnknownFields(
      *root, "$", {"name", "model", "training", "inference", "mapping"});
  std::optional<llvm::StringRef> name;
  if (const llvm::json::Value *nameValue = root->get("name"))
    name = nameValue->getAsString();
  if (!name || name->empty())
    reader.error("$.name", "expected a non-empty string naming the run");
  // A run is training or inference: exactly one of the two contracts.
  bool inference = root->get("inference") != nullptr;
  if (inference && root->get("training"))
    reader.error("$", "give \"training\" or \"inference\", not both");
  std::string workloadPath = inference ? "$.inference" : "$.training";
  const llvm::json::Object *modelObject =
      reader.object(root->get("model"), "$.model");
  const llvm::json::Object *workloadObject = reader.object(
      root->get(inference ? "inference" : "training"), workloadPath);
  const llvm::json::Object *mappingObject =
      reader.object(root->get("mapping"), "$.mapping");
  if (reader.failed())
    return nullptr;
  std::optional<NamedConfigModel> named;
  if (modelObject->get("huggingface_config")) {
    named = readNamedConfig(reader, *modelObject, buffer->getBufferIdentifier(),
                            context);
    if (!named)
      return nullptr;
  }
  ModelSpec model = named ? named->model : readModel(reader, *modelObject);
  MappingSpec mapping = readMapping(reader, *mappingObject, model.blocks);
  // A broken model rule names the config the model was read from.
  std::string modelOrigin =
      named ? "$.model (" + named->file + ")" : std::string("$.model");
  import::ContractOrigins origins{
      {modelOrigin, fields.locationOf("$.model")},
      {workloadPath, fields.locationOf(workloadPath)},
      {"$.mapping", fields.locationOf("$.mapping")},
      { "$",
        loc }};
  std::string symbol = import::sanitizeSymbolName(*name);
  Location opLoc =
      fields.specLocation(named ? llvm::ArrayRef<Location>(named->lineage)
                                : llvm::ArrayRef<Location>());
  if (inference) {
    InferenceSpec spec = readInference(reader, *workloadObject);
    if (reader.failed())
      return nullptr;
    return import::buildInferenceModule(opLoc, symbol, model, spec, mapping,
                                        origins);
  }
  TrainingSpec training = readTraining(reader, *workloadObject);
  if (reader.failed())
    return nullptr;
  return import::buildTrainingModule(opLoc, symbol, model, training, mapping,
                                     origins);
}
