//===- SystemProfile.cpp - Strict loaders for profiles and bindings -------===//
//
// Reads the SystemProfile and NetworkTierBinding schemas of docs/Estimate.md.
// Every problem is reported with its JSON path and the label of the rule it
// breaks; reading goes on after a problem so that one run lists every broken
// rule. Unknown fields are rejected so that a typo never silently drops a
// number or its source.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Support/JSON.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>
#include <cmath>

using namespace blueprint;
using namespace blueprint::estimate;
using workload::DataType;

llvm::StringRef estimate::stringifyCapability(Capability capability) {
  switch (capability) {
  case Capability::Matmul:
    return "matmul";
  case Capability::Vector:
    return "vector";
  }
  llvm_unreachable("unknown capability");
}

size_t Efficiency::stepFor(int64_t size) const {
  size_t index = 0;
  for (size_t i = 1; i < steps.size(); ++i)
    if (steps[i].minSize <= size)
      index = i;
  return index;
}

const ComputeRate *SystemProfile::rate(Capability capability,
                                       DataType type) const {
  auto it = compute.find({capability, type});
  return it == compute.end() ? nullptr : &it->second;
}

int64_t MemoryProfile::usableCapacityBytes() const {
  if (!usableFraction)
    return capacityBytes.value;
  assert(capacityBytes.value >= 0 && usableFraction->numerator > 0 &&
         usableFraction->numerator <= usableFraction->denominator &&
         "the loader enforces profile_usable_fraction and capacity > 0");
  // capacity * numerator needs up to 126 bits; the quotient is at most the
  // capacity (numerator <= denominator), so it always fits int64_t.
  constexpr unsigned kWidth = 128;
  llvm::APInt product =
      llvm::APInt(kWidth, static_cast<uint64_t>(capacityBytes.value)) *
      llvm::APInt(kWidth, static_cast<uint64_t>(usableFraction->numerator));
  return static_cast<int64_t>(
      product
          .udiv(llvm::APInt(kWidth,
                            static_cast<uint64_t>(usableFraction->denominator)))
          .getZExtValue());
}

const NetworkTier *SystemProfile::tier(llvm::StringRef tierName) const {
  for (const NetworkTier &candidate : networkTiers)
    if (candidate.name == tierName)
      return &candidate;
  return nullptr;
}

namespace {

/// Labels of the loader rules (docs/Estimate.md, "Loader rules").
namespace rule {
constexpr llvm::StringLiteral kShape = "profile_shape";
constexpr llvm::StringLiteral kUnknownField = "profile_unknown_field";
constexpr llvm::StringLiteral kMissingField = "profile_missing_field";
constexpr llvm::StringLiteral kSource = "profile_source";
constexpr llvm::StringLiteral kPositive = "profile_positive";
constexpr llvm::StringLiteral kNonNegative = "profile_non_negative";
constexpr llvm::StringLiteral kEfficiencyRange = "profile_efficiency_range";
constexpr llvm::StringLiteral kEfficiencyForm = "profile_efficiency_form";
constexpr llvm::StringLiteral kTableOrder = "profile_table_order";
constexpr llvm::StringLiteral kVocabulary = "profile_vocabulary";
constexpr llvm::StringLiteral kTierName = "profile_tier_name";
constexpr llvm::StringLiteral kBindingShape = "binding_shape";
constexpr llvm::StringLiteral kUsableFraction = "profile_usable_fraction";
constexpr llvm::StringLiteral kTileList = "profile_tile_list";
} // namespace rule

std::string printed(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream(text) << value;
  return text;
}

/// The keys of `object` in sorted order: llvm::json::Object is a hash map,
/// and reports must not depend on its iteration order.
std::vector<std::string> sortedKeys(const llvm::json::Object &object) {
  std::vector<std::string> keys;
  for (const auto &entry : object)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  return keys;
}

/// Reads typed fields out of JSON objects, recording each problem as
/// "<path>: <message> [<rule>]" and going on, so one run reports every
/// broken rule.
class FieldReader {
public:
  void error(const std::string &path, const llvm::Twine &message,
             llvm::StringRef ruleLabel) {
    problems.push_back(path + ": " + message.str() + " [" + ruleLabel.str() +
                       "]");
  }

  /// All problems as one error, or success.
  llvm::Error finish(llvm::StringRef what) {
    if (problems.empty())
      return llvm::Error::success();
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid " + what + ":\n" +
                                       llvm::join(problems, "\n"));
  }

  /// The object `value` (at `path`), or nullptr (reported) if it is missing
  /// or not an object.
  const llvm::json::Object *object(const llvm::json::Value *value,
                                   const std::string &path) {
    if (!value) {
      error(path, "missing required field", rule::kMissingField);
      return nullptr;
    }
    const llvm::json::Object *result = value->getAsObject();
    if (!result)
      error(path, "expected an object, got " + printed(*value), rule::kShape);
    return result;
  }

  /// The array `value` (at `path`), or nullptr (reported).
  const llvm::json::Array *array(const llvm::json::Value *value,
                                 const std::string &path) {
    if (!value) {
      error(path, "missing required field", rule::kMissingField);
      return nullptr;
    }
    const llvm::json::Array *result = value->getAsArray();
    if (!result)
      error(path, "expected an array, got " + printed(*value), rule::kShape);
    return result;
  }

  /// Rejects the keys of `object` that are not in `known`.
  void rejectUnknownFields(const llvm::json::Object &object,
                           const std::string &path,
                           llvm::ArrayRef<llvm::StringRef> known) {
    for (const std::string &key : sortedKeys(object))
      if (!llvm::is_contained(known, key))
        error(path + "." + key,
              "unknown field; expected one of: " + llvm::join(known, ", "),
              rule::kUnknownField);
  }

  /// A required non-empty string field; `ruleLabel` names what an empty or
  /// mistyped value breaks.
  std::string string(const llvm::json::Object &object, llvm::StringRef key,
                     const std::string &path, llvm::StringRef ruleLabel) {
    std::string fieldPath = path + "." + key.str();
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      error(fieldPath, "missing required field", rule::kMissingField);
      return {};
    }
    std::optional<llvm::StringRef> text = value->getAsString();
    if (!text || text->empty()) {
      error(fieldPath, "expected a non-empty string, got " + printed(*value),
            ruleLabel);
      return {};
    }
    return text->str();
  }

  /// A finite number at `path`; nullopt (reported) otherwise.
  std::optional<double> number(const llvm::json::Value *value,
                               const std::string &path) {
    if (!value) {
      error(path, "missing required field", rule::kMissingField);
      return std::nullopt;
    }
    std::optional<double> result = value->getAsNumber();
    if (!result || !std::isfinite(*result)) {
      error(path, "expected a finite number, got " + printed(*value),
            rule::kShape);
      return std::nullopt;
    }
    return result;
  }

  /// A 64-bit integer at `path`; nullopt (reported) otherwise.
  std::optional<int64_t> integer(const llvm::json::Value *value,
                                 const std::string &path) {
    if (!value) {
      error(path, "missing required field", rule::kMissingField);
      return std::nullopt;
    }
    std::optional<int64_t> result = exactInteger(*value);
    if (!result)
      error(path,
            "expected an integer in [-2^63, 2^63 - 1], got " + printed(*value),
            rule::kShape);
    return result;
  }

  /// {"value": <number>, "source": <string>} with value > 0, or with value
  /// >= 0 when `allowZero`.
  SourcedNumber sourcedNumber(const llvm::json::Object &parent,
                              llvm::StringRef key, const std::string &path,
                              bool allowZero = false) {
    std::string fieldPath = path + "." + key.str();
    SourcedNumber result;
    const llvm::json::Object *object = this->object(parent.get(key), fieldPath);
    if (!object)
      return result;
    rejectUnknownFields(*object, fieldPath, {"value", "source"});
    std::string valuePath = fieldPath + ".value";
    if (std::optional<double> value = number(object->get("value"), valuePath)) {
      if (allowZero && *value < 0)
        error(valuePath,
              "must be a non-negative number, got " +
                  printed(*object->get("value")),
              rule::kNonNegative);
      else if (!allowZero && *value <= 0)
        error(valuePath,
              "must be a positive number, got " +
                  printed(*object->get("value")),
              rule::kPositive);
      result.value = *value;
    }
    result.source = string(*object, "source", fieldPath, rule::kSource);
    return result;
  }

  /// {"value": <integer>, "source": <string>} with value > 0.
  SourcedCount sourcedCount(const llvm::json::Object &parent,
                            llvm::StringRef key, const std::string &path) {
    std::string fieldPath = path + "." + key.str();
    SourcedCount result;
    const llvm::json::Object *object = this->object(parent.get(key), fieldPath);
    if (!object)
      return result;
    rejectUnknownFields(*object, fieldPath, {"value", "source"});
    std::string valuePath = fieldPath + ".value";
    if (std::optional<int64_t> value =
            integer(object->get("value"), valuePath)) {
      if (*value <= 0)
        error(valuePath,
              "must be a positive integer, got " + std::to_string(*value),
              rule::kPositive);
      result.value = *value;
    }
    result.source = string(*object, "source", fieldPath, rule::kSource);
    return result;
  }

  /// {"numerator": <integer>, "denominator": <integer>, "source": <string>}
  /// with 0 < numerator <= denominator.
  SourcedFraction usableFraction(const llvm::json::Object &parent,
                                 const std::string &path) {
    std::string fieldPath = path + ".usable_fraction";
    SourcedFraction result;
    const llvm::json::Object *object =
        this->object(parent.get("usable_fraction"), fieldPath);
    if (!object)
      return result;
    rejectUnknownFields(*object, fieldPath,
                        {"numerator", "denominator", "source"});
    std::optional<int64_t> numerator =
        integer(object->get("numerator"), fieldPath + ".numerator");
    std::optional<int64_t> denominator =
        integer(object->get("denominator"), fieldPath + ".denominator");
    if (numerator && denominator) {
      if (*numerator <= 0 || *denominator < *numerator)
        error(fieldPath,
              "must satisfy 0 < numerator <= denominator, got " +
                  std::to_string(*numerator) + "/" +
                  std::to_string(*denominator),
              rule::kUsableFraction);
      else {
        result.numerator = *numerator;
        result.denominator = *denominator;
      }
    }
    result.source = string(*object, "source", fieldPath, rule::kSource);
    return result;
  }

  /// An efficiency factor in (0, 1] at `path`.
  double efficiencyFactor(const llvm::json::Value *value,
                          const std::string &path) {
    std::optional<double> factor = number(value, path);
    if (!factor)
      return 1;
    if (!(*factor > 0 && *factor <= 1))
      error(path, "efficiency must be in (0, 1], got " + printed(*value),
            rule::kEfficiencyRange);
    return *factor;
  }

  /// {"sm_count": c, "tiles": t, "sustained": n} at `path`, each
  /// {"value", "source"}: a positive SM count (profile_positive), a
  /// non-empty list of [tile_m, tile_n] pairs (profile_tile_list) of
  /// positive integers (profile_positive) and a sustained fraction in
  /// (0, 1] (profile_efficiency_range). The L2 read bandwidth that bounds
  /// its tiles is the chip's, declared once in "memory" (readMemory).
  TileModel tileModel(const llvm::json::Object &object,
                      const std::string &path) {
    rejectUnknownFields(object, path, {"sm_count", "tiles", "sustained"});
    TileModel model;
    model.smCount = sourcedCount(object, "sm_count", path);
    tileList(object, path + ".tiles", model);
    model.sustained = sourcedNumber(object, "sustained", path);
    if (model.sustained.value > 1)
      error(path + ".sustained.value",
            "a sustained fraction must be in (0, 1], got " +
                printed(llvm::json::Value(model.sustained.value)),
            rule::kEfficiencyRange);
    return model;
  }

  /// The "tiles" field of a tile model at `path`: {"value": [[tile_m,
  /// tile_n], ...], "source": s}, the list non-empty and each pair two
  /// positive integers.
  void tileList(const llvm::json::Object &parent, const std::string &path,
                TileModel &model) {
    const llvm::json::Object *object = this->object(parent.get("tiles"), path);
    if (!object)
      return;
    rejectUnknownFields(*object, path, {"value", "source"});
    std::string valuePath = path + ".value";
    if (const llvm::json::Array *tiles =
            array(object->get("value"), valuePath)) {
      if (tiles->empty())
        error(valuePath, "a tile model needs at least one tile",
              rule::kTileList);
      for (size_t i = 0; i < tiles->size(); ++i) {
        std::string tilePath = valuePath + "[" + std::to_string(i) + "]";
        const llvm::json::Array *pair = array(&(*tiles)[i], tilePath);
        if (!pair)
          continue;
        if (pair->size() != 2) {
          error(tilePath,
                "a tile is [tile_m, tile_n], got " + printed((*tiles)[i]),
                rule::kTileList);
          continue;
        }
        GemmTile tile;
        int64_t *extents[] = {&tile.tileM, &tile.tileN};
        for (size_t e = 0; e < 2; ++e) {
          std::string extentPath = tilePath + "[" + std::to_string(e) + "]";
          std::optional<int64_t> extent = integer(&(*pair)[e], extentPath);
          if (!extent)
            continue;
          if (*extent <= 0)
            error(extentPath,
                  "a tile extent must be a positive integer, got " +
                      std::to_string(*extent),
                  rule::kPositive);
          *extents[e] = *extent;
        }
        model.tiles.push_back(tile);
      }
    }
    model.tilesSource = string(*object, "source", path, rule::kSource);
  }

  /// The optional "efficiency" field of `parent`: {"flat": f, "source": s}
  /// or {"by_<unit>": [{"min_<unit>": n, "efficiency": f}, ...], "source": s}
  /// with n strictly increasing from 0, or, where `tileModelAllowed` (a
  /// matmul rate), {"tile_model": {...}, "source": s}.
  std::optional<Efficiency> efficiency(const llvm::json::Object &parent,
                                       const std::string &parentPath,
                                       llvm::StringRef unit,
                                       bool tileModelAllowed = false) {
    if (!parent.get("efficiency"))
      return std::nullopt;
    std::string path = parentPath + ".efficiency";
    const llvm::json::Object *object =
        this->object(parent.get("efficiency"), path);
    if (!object)
      return std::nullopt;
    std::string tableKey = ("by_" + unit).str();
    std::string minKey = ("min_" + unit).str();
    llvm::SmallVector<llvm::StringRef, 4> forms = {"flat", tableKey, "source"};
    if (tileModelAllowed)
      forms.insert(forms.begin() + 2, "tile_model");
    rejectUnknownFields(*object, path, forms);

    Efficiency result;
    const llvm::json::Value *flat = object->get("flat");
    const llvm::json::Value *table = object->get(tableKey);
    const llvm::json::Value *tiles = object->get("tile_model");
    int declared = (flat != nullptr) + (table != nullptr) + (tiles != nullptr);
    if (tiles && !tileModelAllowed) {
      error(path + ".tile_model",
            "a tile model is declared only for a matmul rate",
            rule::kEfficiencyForm);
    } else if (declared != 1) {
      error(path,
            tileModelAllowed
                ? "declare exactly one of 'flat', '" + tableKey +
                      "' or 'tile_model'"
                : "declare exactly one of 'flat' or '" + tableKey + "'",
            rule::kEfficiencyForm);
    } else if (tiles) {
      result.flat = false;
      if (const llvm::json::Object *model =
              this->object(tiles, path + ".tile_model"))
        result.tileModel = tileModel(*model, path + ".tile_model");
    } else if (flat) {
      result.flat = true;
      result.steps.push_back({0, efficiencyFactor(flat, path + ".flat")});
    } else if (const llvm::json::Array *steps =
                   array(table, path + "." + tableKey)) {
      result.flat = false;
      if (steps->empty())
        error(path + "." + tableKey, "a table needs at least one entry",
              rule::kTableOrder);
      for (size_t i = 0; i < steps->size(); ++i) {
        std::string stepPath =
            path + "." + tableKey + "[" + std::to_string(i) + "]";
        const llvm::json::Object *step = this->object(&(*steps)[i], stepPath);
        if (!step)
          continue;
        rejectUnknownFields(*step, stepPath, {minKey, "efficiency"});
        EfficiencyStep parsed;
        std::string minPath = stepPath + "." + minKey;
        std::optional<int64_t> minSize = integer(step->get(minKey), minPath);
        parsed.minSize = minSize.value_or(0);
        parsed.efficiency =
            efficiencyFactor(step->get("efficiency"), stepPath + ".efficiency");
        if (minSize && i == 0 && *minSize != 0)
          error(minPath,
                "the first entry must start at 0 so that every size is "
                "covered, got " +
                    std::to_string(*minSize),
                rule::kTableOrder);
        if (minSize && i > 0 && !result.steps.empty() &&
            *minSize <= result.steps.back().minSize)
          error(minPath,
                minKey + " must be strictly increasing, got " +
                    std::to_string(*minSize) + " after " +
                    std::to_string(result.steps.back().minSize),
                rule::kTableOrder);
        result.steps.push_back(parsed);
      }
    }
    result.source = string(*object, "source", path, rule::kSource);
    return result;
  }

private:
  std::vector<std::string> problems;
};

constexpr Capability kCapabilities[] = {Capability::Matmul, Capability::Vector};
constexpr DataType kDataTypes[] = {DataType::F32, DataType::BF16, DataType::F16,
                                   DataType::FP8};

template <typename Range> std::string quotedList(const Range &names) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(names, os,
                        [&](const auto &name) { os << '\'' << name << '\''; });
  return text;
}

void readCompute(FieldReader &reader, const llvm::json::Object &root,
                 SystemProfile &profile) {
  const std::string path = "$.compute";
  const llvm::json::Object *compute = reader.object(root.get("compute"), path);
  if (!compute)
    return;
  std::vector<llvm::StringRef> capabilityNames;
  for (Capability capability : kCapabilities)
    capabilityNames.push_back(stringifyCapability(capability));
  std::vector<llvm::StringRef> typeNames;
  for (DataType type : kDataTypes)
    typeNames.push_back(workload::stringifyEnum(type));

  for (const std::string &capabilityName : sortedKeys(*compute)) {
    std::string capabilityPath = path + "." + capabilityName;
    auto capability = llvm::find_if(kCapabilities, [&](Capability c) {
      return stringifyCapability(c) == capabilityName;
    });
    if (capability == std::end(kCapabilities)) {
      reader.error(capabilityPath,
                   "unknown capability; expected one of " +
                       quotedList(capabilityNames),
                   rule::kVocabulary);
      continue;
    }
    const llvm::json::Object *rates =
        reader.object(compute->get(capabilityName), capabilityPath);
    if (!rates)
      continue;
    for (const std::string &typeName : sortedKeys(*rates)) {
      std::string typePath = capabilityPath + "." + typeName;
      std::optional<DataType> type =
          workload::symbolizeEnum<DataType>(typeName);
      if (!type) {
        reader.error(typePath,
                     "unknown datatype; expected one of " +
                         quotedList(typeNames),
                     rule::kVocabulary);
        continue;
      }
      const llvm::json::Object *rate =
          reader.object(rates->get(typeName), typePath);
      if (!rate)
        continue;
      reader.rejectUnknownFields(*rate, typePath,
                                 {"peak_ops_per_second", "efficiency"});
      ComputeRate parsed;
      parsed.peakOpsPerSecond =
          reader.sourcedNumber(*rate, "peak_ops_per_second", typePath);
      parsed.efficiency = reader.efficiency(*rate, typePath, "ops",
                                            /*tileModelAllowed=*/*capability ==
                                                Capability::Matmul);
      profile.compute[{*capability, *type}] = std::move(parsed);
    }
  }
}

void readMemory(FieldReader &reader, const llvm::json::Object &root,
                SystemProfile &profile) {
  const std::string path = "$.memory";
  const llvm::json::Object *memory = reader.object(root.get("memory"), path);
  if (!memory)
    return;
  reader.rejectUnknownFields(*memory, path,
                             {"capacity_bytes", "bandwidth_bytes_per_second",
                              "efficiency", "usable_fraction",
                              "l2_read_bandwidth_bytes_per_second"});
  profile.memory.capacityBytes =
      reader.sourcedCount(*memory, "capacity_bytes", path);
  profile.memory.bandwidthBytesPerSecond =
      reader.sourcedNumber(*memory, "bandwidth_bytes_per_second", path);
  profile.memory.efficiency = reader.efficiency(*memory, path, "bytes");
  if (memory->get("usable_fraction"))
    profile.memory.usableFraction = reader.usableFraction(*memory, path);
  // The GPU's L2 read bandwidth, optional and positive (profile_positive):
  // one property of the chip, declared once, bounds the tiles of every
  // matmul tile model (docs/Estimate.md, "Tile model"). readCompute ran
  // first.
  if (!memory->get("l2_read_bandwidth_bytes_per_second"))
    return;
  SourcedNumber l2 =
      reader.sourcedNumber(*memory, "l2_read_bandwidth_bytes_per_second", path);
  for (auto &[key, rate] : profile.compute)
    if (rate.efficiency && rate.efficiency->tileModel)
      rate.efficiency->tileModel->l2ReadBandwidth = l2;
}

void readNetworkTiers(FieldReader &reader, const llvm::json::Object &root,
                      SystemProfile &profile) {
  const std::string path = "$.network_tiers";
  const llvm::json::Array *tiers =
      reader.array(root.get("network_tiers"), path);
  if (!tiers)
    return;
  for (size_t i = 0; i < tiers->size(); ++i) {
    std::string tierPath = path + "[" + std::to_string(i) + "]";
    const llvm::json::Object *tier = reader.object(&(*tiers)[i], tierPath);
    if (!tier)
      continue;
    reader.rejectUnknownFields(*tier, tierPath,
                               {"name", "group_size",
                                "bandwidth_bytes_per_second", "latency_seconds",
                                "call_latency_seconds", "efficiency"});
    NetworkTier parsed;
    parsed.name = reader.string(*tier, "name", tierPath, rule::kTierName);
    if (!parsed.name.empty() && profile.tier(parsed.name))
      reader.error(tierPath + ".name",
                   "duplicate tier name '" + parsed.name +
                       "' (tier names must be unique)",
                   rule::kTierName);
    parsed.groupSize = reader.sourcedCount(*tier, "group_size", tierPath);
    parsed.bandwidthBytesPerSecond =
        reader.sourcedNumber(*tier, "bandwidth_bytes_per_second", tierPath);
    parsed.latencySeconds = reader.sourcedNumber(*tier, "latency_seconds",
                                                 tierPath, /*allowZero=*/true);
    // Optional: a profile written before the field, or for a fabric whose
    // collectives pay no fixed cost per call, states none (docs/Estimate.md,
    // "Per-call latency").
    if (tier->get("call_latency_seconds"))
      parsed.callLatencySeconds = reader.sourcedNumber(
          *tier, "call_latency_seconds", tierPath, /*allowZero=*/true);
    parsed.efficiency = reader.efficiency(*tier, tierPath, "bytes");
    profile.networkTiers.push_back(std::move(parsed));
  }
}

/// The contents of `path`, or an error naming it.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path +
                                       "': " + buffer.getError().message());
  return std::move(*buffer);
}

/// `error` with "<path>: " in front of its message.
llvm::Error prefixed(llvm::StringRef path, llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " +
                                     llvm::toString(std::move(error)));
}

/// parseSystemProfile without a label.
llvm::Expected<SystemProfile> parseUnlabelledProfile(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> parsed = parseJSON(json);
  if (!parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid system profile: " +
                                       llvm::toString(parsed.takeError()));
  FieldReader reader;
  SystemProfile profile;
  if (const llvm::json::Object *root = reader.object(&*parsed, "$")) {
    reader.rejectUnknownFields(
        *root, "$",
        {"name", "description", "compute", "memory", "network_tiers"});
    profile.name = reader.string(*root, "name", "$", rule::kShape);
    if (const llvm::json::Value *description = root->get("description")) {
      if (std::optional<llvm::StringRef> text = description->getAsString())
        profile.description = text->str();
      else
        reader.error("$.description",
                     "expected a string, got " + printed(*description),
                     rule::kShape);
    }
    readCompute(reader, *root, profile);
    readMemory(reader, *root, profile);
    readNetworkTiers(reader, *root, profile);
  }
  if (llvm::Error error = reader.finish("system profile"))
    return std::move(error);
  return profile;
}

} // namespace

llvm::Expected<SystemProfile>
estimate::parseSystemProfile(llvm::StringRef json, llvm::StringRef label) {
  llvm::Expected<SystemProfile> profile = parseUnlabelledProfile(json);
  if (!profile && !label.empty())
    return prefixed(label, profile.takeError());
  return profile;
}

llvm::Expected<SystemProfile>
estimate::loadSystemProfile(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseSystemProfile((*buffer)->getBuffer(), path);
}

llvm::Expected<NetworkTierBinding>
estimate::parseNetworkTierBinding(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> parsed = parseJSON(json);
  if (!parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid network tier binding: " +
                                       llvm::toString(parsed.takeError()));
  FieldReader reader;
  NetworkTierBinding binding;
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    reader.error("$",
                 "expected an object from mesh-axis name to tier name, got " +
                     printed(*parsed),
                 rule::kBindingShape);
  else
    for (const std::string &axis : sortedKeys(*root)) {
      std::string path = "$." + axis;
      const llvm::json::Value &value = *root->get(axis);
      std::optional<llvm::StringRef> tierName = value.getAsString();
      if (axis.empty())
        reader.error(path, "a mesh-axis name must be non-empty",
                     rule::kBindingShape);
      else if (!tierName || tierName->empty())
        reader.error(path,
                     "expected a tier name (non-empty string), got " +
                         printed(value),
                     rule::kBindingShape);
      else
        binding.tierOfAxis[axis] = tierName->str();
    }
  if (llvm::Error error = reader.finish("network tier binding"))
    return std::move(error);
  return binding;
}

llvm::Expected<NetworkTierBinding>
estimate::loadNetworkTierBinding(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<NetworkTierBinding> binding =
      parseNetworkTierBinding((*buffer)->getBuffer());
  if (!binding)
    return prefixed(path, binding.takeError());
  return binding;
}

llvm::Expected<NetworkTierBinding>
estimate::parseNetworkTierBindingEntries(llvm::ArrayRef<std::string> entries) {
  llvm::json::Object object;
  for (const std::string &entry : entries) {
    auto [axis, tier] = llvm::StringRef(entry).split(':');
    if (tier.empty())
      return llvm::createStringError("binding entry '%s' is not axis:tier",
                                     entry.c_str());
    object[axis] = tier;
  }
  std::string json;
  llvm::raw_string_ostream(json) << llvm::json::Value(std::move(object));
  return parseNetworkTierBinding(json);
}
