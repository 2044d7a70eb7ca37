//===- FieldReader.cpp - Typed fields of a JSON input ---------------------===//

#include "Blueprint/Import/FieldReader.h"
#include "Blueprint/Support/JSON.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

using namespace blueprint;
using namespace blueprint::import;

void FieldReader::error(const std::string &path, const llvm::Twine &message) {
  mlir::emitError(fields.locationOf(path))
      << "import: " << prefix << path << ": " << message.str();
  hasFailed = true;
}

const llvm::json::Object *FieldReader::object(const llvm::json::Value *value,
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

void FieldReader::rejectUnknownFields(const llvm::json::Object &object,
                                      const std::string &path,
                                      llvm::ArrayRef<llvm::StringLiteral> known,
                                      std::optional<std::string> message) {
  llvm::SmallVector<std::string> unknown;
  for (const auto &entry : object)
    if (!llvm::is_contained(known, entry.first.str()))
      unknown.push_back(entry.first.str());
  llvm::sort(unknown);
  for (const std::string &key : unknown)
    error(path + "." + key,
          message.value_or("unknown field; expected one of: " +
                           llvm::join(known, ", ")));
}

int64_t FieldReader::integer(const llvm::json::Object &object,
                             llvm::StringRef key, const std::string &path,
                             std::optional<int64_t> fallback) {
  std::string fieldPath = path + "." + key.str();
  const llvm::json::Value *value = object.get(key);
  if (!value) {
    if (fallback)
      return *fallback;
    error(fieldPath, "missing required integer");
    return 0;
  }
  if (std::optional<int64_t> result = exactInteger(*value))
    return *result;
  if (value->getAsNumber() || value->getAsUINT64())
    error(fieldPath, "expected an integer in [-2^63, 2^63 - 1], got " +
                         printed(*value) +
                         " (non-integral or out of 64-bit range)");
  else
    error(fieldPath, "expected an integer, got " + printed(*value));
  return 0;
}

std::optional<int64_t>
FieldReader::optionalInteger(const llvm::json::Object &object,
                             llvm::StringRef key, const std::string &path) {
  if (!object.get(key))
    return std::nullopt;
  return integer(object, key, path);
}

std::vector<int64_t> FieldReader::integerList(const llvm::json::Object &object,
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
    std::optional<int64_t> number = exactInteger(element);
    if (!number) {
      error(fieldPath + "[" + std::to_string(index) + "]",
            "expected an integer, got " + printed(element));
      continue;
    }
    result.push_back(*number);
  }
  return result;
}

bool FieldReader::boolean(const llvm::json::Object &object, llvm::StringRef key,
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

std::optional<std::string>
FieldReader::string(const llvm::json::Object &object, llvm::StringRef key,
                    const std::string &path,
                    std::optional<llvm::StringRef> fallback) {
  std::string fieldPath = path + "." + key.str();
  const llvm::json::Value *value = object.get(key);
  if (!value) {
    if (fallback)
      return fallback->str();
    error(fieldPath, "missing required string");
    return std::nullopt;
  }
  if (std::optional<llvm::StringRef> result = value->getAsString())
    return result->str();
  error(fieldPath, "expected a string, got " + printed(*value));
  return std::nullopt;
}

std::string FieldReader::printed(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream(text) << value;
  return text;
}

int64_t import::headDimension(FieldReader &reader, std::optional<int64_t> given,
                              int64_t hidden, int64_t heads,
                              const std::string &path,
                              std::optional<int64_t> qkNopeHeadDim,
                              std::optional<int64_t> qkRopeHeadDim) {
  if (given)
    return *given;
  std::variant<int64_t, workload::RuleViolation> implicit =
      workload::implicitHeadDim(hidden, heads, qkNopeHeadDim, qkRopeHeadDim);
  if (auto *violation = std::get_if<workload::RuleViolation>(&implicit)) {
    reader.error(path, violation->rule + ": " + violation->message);
    return 0;
  }
  return std::get<int64_t>(implicit);
}
