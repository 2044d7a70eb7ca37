//===- FieldReader.h - Typed fields of a JSON input -------------*- C++ -*-===//
//
// The JSON importers (the spec of docs/ImportJSON.md and the Hugging Face
// config.json it may name, docs/ImportHuggingFace.md) read their fields
// through one reader: every problem names the JSON path of the field and is
// reported at its line and column.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_IMPORT_FIELDREADER_H
#define BLUEPRINT_IMPORT_FIELDREADER_H

#include "Blueprint/Import/TrainingModule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::import {

/// Reads typed fields out of the JSON objects of one document, reporting
/// each problem as `import: <document>: <path>: <message>` at the field's
/// line and column (`import: <path>: <message>` for the spec itself, whose
/// document the location names). After the first problem `failed()` is
/// true; reading goes on so that one run reports every malformed field.
class FieldReader {
public:
  /// `document` names the file in every message; empty for the spec.
  FieldReader(const SourceFields &fields, llvm::StringRef document = "")
      : fields(fields),
        prefix(document.empty() ? std::string() : (document + ": ").str()) {}

  bool failed() const { return hasFailed; }

  void error(const std::string &path, const llvm::Twine &message);

  /// The object at `path`, or nullptr (reported) if it is missing or not an
  /// object.
  const llvm::json::Object *object(const llvm::json::Value *value,
                                   const std::string &path);

  /// Rejects keys of `object` that are not in `known`, each with `message`
  /// (by default, the list of known keys).
  void rejectUnknownFields(const llvm::json::Object &object,
                           const std::string &path,
                           llvm::ArrayRef<llvm::StringLiteral> known,
                           std::optional<std::string> message = std::nullopt);

  /// A 64-bit integer field; `fallback` makes it optional.
  int64_t integer(const llvm::json::Object &object, llvm::StringRef key,
                  const std::string &path,
                  std::optional<int64_t> fallback = std::nullopt);

  /// An optional integer field that stays absent when not given.
  std::optional<int64_t> optionalInteger(const llvm::json::Object &object,
                                         llvm::StringRef key,
                                         const std::string &path);

  /// An optional list of 64-bit integers; empty when not given.
  std::vector<int64_t> integerList(const llvm::json::Object &object,
                                   llvm::StringRef key,
                                   const std::string &path);

  bool boolean(const llvm::json::Object &object, llvm::StringRef key,
               const std::string &path, bool fallback);

  /// A string field; `fallback` makes it optional. Nothing (reported) when
  /// it is missing or not a string.
  std::optional<std::string>
  string(const llvm::json::Object &object, llvm::StringRef key,
         const std::string &path,
         std::optional<llvm::StringRef> fallback = std::nullopt);

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
        spelled ? workload::symbolizeEnum<EnumT>(*spelled) : std::nullopt;
    if (result)
      return *result;
    std::string choices;
    llvm::raw_string_ostream os(choices);
    llvm::interleaveComma(allowed, os, [&](EnumT e) {
      os << '"' << workload::stringifyEnum(e) << '"';
    });
    error(fieldPath, "expected one of " + choices + ", got " + printed(*value));
    return allowed.front();
  }

  /// `value` as JSON text, for messages.
  static std::string printed(const llvm::json::Value &value);

private:
  const SourceFields &fields;
  std::string prefix;
  bool hasFailed = false;
};

/// The head dimension of a model: `given`, else workload::implicitHeadDim
/// (qk_nope_head_dim + qk_rope_head_dim under multi-head latent attention,
/// hidden / heads otherwise); a broken rule is reported at `path`.
int64_t headDimension(FieldReader &reader, std::optional<int64_t> given,
                      int64_t hidden, int64_t heads, const std::string &path,
                      std::optional<int64_t> qkNopeHeadDim = std::nullopt,
                      std::optional<int64_t> qkRopeHeadDim = std::nullopt);

} // namespace blueprint::import

#endif // BLUEPRINT_IMPORT_FIELDREADER_H
