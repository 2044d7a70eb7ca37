//===- JSON.cpp - Parsing JSON input with bounded nesting -----------------===//

#include "Blueprint/Support/JSON.h"

#include "llvm/ADT/SmallVector.h"

using namespace blueprint;

namespace {
/// One open object or array of the scan: its path, whether it is an object,
/// the index of the array element being read.
struct Frame {
  std::string path;
  bool object;
  size_t index = 0;
};
} // namespace

/// Follows only strings and brackets, so it never recurses and runs in one
/// pass; malformed JSON is left to the parser to report.
static llvm::Error scanLayout(llvm::StringRef text,
                              std::vector<JSONMember> *members) {
  llvm::SmallVector<Frame> stack;
  std::string lastKey;
  bool expectingKey = false;
  unsigned line = 1;
  size_t lineStart = 0;
  auto columnOf = [&](size_t offset) {
    return static_cast<unsigned>(offset - lineStart + 1);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      if (!stack.empty() && stack.back().object && expectingKey) {
        lastKey = stack.back().path + "." +
                  text.slice(start + 1, std::min(i, text.size())).str();
        if (members) {
          size_t next = text.find_first_not_of(" \t\r\n:", i + 1);
          bool container = next != llvm::StringRef::npos &&
                           (text[next] == '{' || text[next] == '[');
          members->push_back({lastKey, line, columnOf(start),
                              static_cast<unsigned>(stack.size()), container});
        }
        expectingKey = false;
      }
      continue;
    }
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '{':
    case '[': {
      if (stack.size() >= kMaxJSONNestingDepth)
        return llvm::createStringError(
            "invalid JSON: nesting deeper than %u levels at line %u, column "
            "%u (Blueprint's inputs nest a few levels; deeper documents are "
            "refused before parsing)",
            kMaxJSONNestingDepth, line, columnOf(i));
      std::string path = stack.empty() ? std::string("$")
                         : stack.back().object
                             ? lastKey
                             : stack.back().path + "[" +
                                   std::to_string(stack.back().index) + "]";
      stack.push_back({std::move(path), c == '{'});
      expectingKey = c == '{';
      break;
    }
    case '}':
    case ']':
      if (!stack.empty())
        stack.pop_back();
      expectingKey = false;
      break;
    case ',':
      if (!stack.empty()) {
        expectingKey = stack.back().object;
        ++stack.back().index;
      }
      break;
    default:
      break;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::json::Value>
blueprint::parseJSON(llvm::StringRef text, std::vector<JSONMember> *members) {
  if (llvm::Error error = scanLayout(text, members))
    return std::move(error);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return llvm::createStringError("invalid JSON: " +
                                   llvm::toString(parsed.takeError()));
  return parsed;
}

llvm::Error blueprint::inputError(llvm::StringRef inputFile,
                                  const llvm::Twine &message) {
  return llvm::createStringError(inputFile + ": " + message);
}

llvm::Expected<llvm::json::Value>
blueprint::parseJSONInput(llvm::StringRef text, llvm::StringRef inputFile) {
  llvm::Expected<llvm::json::Value> parsed = parseJSON(text);
  if (!parsed)
    return inputError(inputFile, llvm::toString(parsed.takeError()));
  return parsed;
}

std::optional<int64_t> blueprint::exactInteger(const llvm::json::Value &value) {
  // Only a double is inexact here: an integer the parser kept as int64 or
  // uint64 answers getAsUINT64 when it is not negative, and a negative one
  // is within range.
  std::optional<double> number = value.getAsNumber();
  if (number && !value.getAsUINT64() && *number >= 0x1p63)
    return std::nullopt;
  return value.getAsInteger();
}
