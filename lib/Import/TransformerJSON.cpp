//===- TransformerJSON.cpp - Import a JSON training spec ------------------===//
//
// Reads the JSON schema of docs/ImportJSON.md. Every error names the JSON
// path of the offending field and is reported at its line and column;
// unknown fields are rejected so that a typo never silently falls back to a
// default. The imported op's location names every field it was read from.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/TrainingModule.h"

#include "Blueprint/Import/Import.h"
#include "Blueprint/Support/JSON.h"
#include "Blueprint/Workload/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::workload;

namespace {

/// Reads typed fields out of JSON objects, reporting each problem with its
/// JSON path at the field's line and column. After the first problem
/// `failed()` is true; reading goes on so that one run reports every
/// malformed field.
class FieldReader {
public:
  explicit FieldReader(const import::SourceFields &fields) : fields(fields) {}

  bool failed() const { return hasFailed; }

  void error(const std::string &path, const llvm::Twine &message) {
    emitError(fields.locationOf(path))
        << "import: " << path << ": " << message.str();
    hasFailed = true;
  }

  /// The object at `path`, or nullptr (reported) if it is missing or not an
  /// object.
  const llvm::json::Object *object(const llvm::json::Value *value,
                                   const std::string &path) {
    if (!value) {
      error(path, "missing required object");
      return nullptr;
    }
    const llvm::json::Object *result = value->getAsObject();
    if (!result)
      error(path, "expected an object");
    return result;
  }

  /// Rejects keys of `object` that are not in `known`.
  void rejectUnknownFields(const llvm::json::Object &object,
                           const std::string &path,
                           llvm::ArrayRef<llvm::StringLiteral> known) {
    llvm::SmallVector<std::string> unknown;
    for (const auto &entry : object)
      if (!llvm::is_contained(known, entry.first.str()))
        unknown.push_back(entry.first.str());
    llvm::sort(unknown);
    for (const std::string &key : unknown)
      error(path + "." + key,
            "unknown field; expected one of: " + llvm::join(known, ", "));
  }

  /// A 64-bit integer field; `fallback` makes it optional.
  int64_t integer(const llvm::json::Object &object, llvm::StringRef key,
                  const std::string &path,
                  std::optional<int64_t> fallback = std::nullopt) {
    std::string fieldPath = path + "." + key.str();
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (fallback)
        return *fallback;
      error(fieldPath, "missing required integer");
      return 0;
    }
    if (std::optional<int64_t> result = value->getAsInteger())
      return *result;
    if (value->getAsNumber() || value->getAsUINT64())
      error(fieldPath, "expected an integer in [-2^63, 2^63 - 1], got " +
                           printed(*value) +
                           " (non-integral or out of 64-bit range)");
    else
      error(fieldPath, "expected an integer, got " + printed(*value));
    return 0;
  }

  /// An optional integer field that stays absent when not given.
  std::optional<int64_t> optionalInteger(const llvm::json::Object &object,
                                         llvm::StringRef key,
                                         const std::string &path) {
    if (!object.get(key))
      return std::nullopt;
    return integer(object, key, path);
  }

  /// An optional list of 64-bit integers; empty when not given.
  std::vector<int64_t> integerList(const llvm::json::Object &object,
                                   llvm::StringRef key,
                                   const std::string &path) {
    std::string fieldPath = path + "." + key.str();
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return {};
    const llvm::json::Array *array = value->getAsArray();
    if (!array) {
      error(fieldPath, "expected a list of integers, got " + printed(*value));
      return {};
    }
    std::vector<int64_t> result;
    for (auto [index, element] : llvm::enumerate(*array)) {
      std::optional<int64_t> number = element.getAsInteger();
      if (!number) {
        error(fieldPath + "[" + std::to_string(index) + "]",
              "expected an integer, got " + printed(element));
        continue;
      }
      result.push_back(*number);
    }
    return result;
  }

  bool boolean(const llvm::json::Object &object, llvm::StringRef key,
               const std::string &path, bool fallback) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return fallback;
    if (std::optional<bool> result = value->getAsBoolean())
      return *result;
    error(path + "." + key.str(),
          "expected true or false, got " + printed(*value));
    return fallback;
  }

  /// A closed-set field spelled as in the IR (`symbolizeEnum`).
  template <typename EnumT>
  EnumT enumeration(const llvm::json::Object &object, llvm::StringRef key,
                    const std::string &path, std::optional<EnumT> fallback,
                    llvm::ArrayRef<EnumT> allowed) {
    std::string fieldPath = path + "." + key.str();
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (fallback)
        return *fallback;
      error(fieldPath, "missing required field");
      return allowed.front();
    }
    std::optional<llvm::StringRef> spelled = value->getAsString();
    std::optional<EnumT> result =
        spelled ? symbolizeEnum<EnumT>(*spelled) : std::nullopt;
    if (result)
      return *result;
    std::string choices;
    llvm::raw_string_ostream os(choices);
    llvm::interleaveComma(allowed, os,
                          [&](EnumT e) { os << '"' << stringifyEnum(e) << '"'; });
    error(fieldPath, "expected one of " + choices + ", got " + printed(*value));
    return allowed.front();
  }

private:
  static std::string printed(const llvm::json::Value &value) {
    std::string text;
    llvm::raw_string_ostream(text) << value;
    return text;
  }

  const import::SourceFields &fields;
  bool hasFailed = false;
};

constexpr DataType kDataTypes[] = {DataType::F32, DataType::BF16, DataType::F16,
                                   DataType::FP8};

ModelSpec readModel(FieldReader &reader, const llvm::json::Object &object) {
  const std::string path = "$.model";
  reader.rejectUnknownFields(object, path,
                             {"hidden",
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
                              "v_head_dim"});
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
  std::variant<int64_t, RuleViolation> implicit = implicitHeadDim(
      model.hidden, model.heads, model.qkNopeHeadDim, model.qkRopeHeadDim);
  if (headDim)
    model.headDim = *headDim;
  else if (auto *dimension = std::get_if<int64_t>(&implicit))
    model.headDim = *dimension;
  else
    reader.error(path, std::get<RuleViolation>(implicit).rule + ": " +
                           std::get<RuleViolation>(implicit).message);
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
  return model;
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
       "zero_stage", "bucket_bytes"});
  MappingSpec mapping;
  mapping.tp = reader.integer(object, "tp", path);
  mapping.pp = reader.integer(object, "pp", path);
  std::optional<int64_t> dp = reader.optionalInteger(object, "dp", path);
  std::optional<int64_t> world = reader.optionalInteger(object, "world", path);
  if (!dp && !world)
    reader.error(path, "give dp, world, or both (world = tp * pp * dp)");
  // A world alone determines dp and a dp alone determines world; both given
  // are checked against each other by transformer_mapping_c2.
  std::optional<int64_t> tpTimesPp = llvm::checkedMul(mapping.tp, mapping.pp);
  if (world && !dp) {
    if (tpTimesPp && *tpTimesPp > 0 && *world % *tpTimesPp == 0)
      dp = *world / *tpTimesPp;
    else
      reader.error(path + ".world",
                   "transformer_mapping_c2: world = " + llvm::Twine(*world) +
                       " is not divisible by tp * pp");
  }
  mapping.dp = dp.value_or(0);
  if (world) {
    mapping.world = *world;
  } else if (std::optional<int64_t> product =
                 tpTimesPp ? llvm::checkedMul(*tpTimesPp, mapping.dp)
                           : std::nullopt) {
    mapping.world = *product;
  } else if (dp) {
    reader.error(path, "transformer_mapping_c2: tp * pp * dp overflows a "
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
  ModelSpec model = readModel(reader, *modelObject);
  MappingSpec mapping = readMapping(reader, *mappingObject, model.blocks);
  import::ContractOrigins origins{
      {"$.model", fields.locationOf("$.model")},
      {workloadPath, fields.locationOf(workloadPath)},
      {"$.mapping", fields.locationOf("$.mapping")},
      { "$",
        loc }};
  std::string symbol = import::sanitizeSymbolName(*name);
  Location opLoc = fields.specLocation();
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
