//===- JSON.h - Parsing JSON input with bounded nesting ---------*- C++ -*-===//
//
// Every JSON file Blueprint reads (specs, profiles, bindings, sweep inputs,
// reference files) goes through parseJSON: a scan without recursion first
// refuses a document nested deeper than kMaxJSONNestingDepth, then
// llvm::json::parse, which recurses once per level of `[` or `{` and
// overflows the stack at about 100,000 levels. The same scan can report
// where each object member starts, for diagnostics and lineage.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SUPPORT_JSON_H
#define BLUEPRINT_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blueprint {

/// Blueprint's inputs nest a few levels (a spec 2, a reference file 5); no
/// JSON written by hand or generated for them comes near this bound.
inline constexpr unsigned kMaxJSONNestingDepth = 64;

/// Where an object member starts: the opening quote of its key.
struct JSONMember {
  /// JSON path, `$.model.hidden`, `$.checkpoints[0].stage` (keys as
  /// written, escapes included).
  std::string path;
  /// 1-based.
  unsigned line = 0;
  unsigned column = 0;
  /// Objects and arrays enclosing the member: 1 for a member of the
  /// document's top-level object.
  unsigned depth = 0;
  /// Whether its value is an object or an array.
  bool container = false;
};

/// Parses `text` as llvm::json::parse does, after refusing nesting deeper
/// than kMaxJSONNestingDepth ("invalid JSON: nesting deeper than 64 levels
/// at line 1, column 65 ..."). With `members`, also lists where every
/// object member starts, in document order.
llvm::Expected<llvm::json::Value>
parseJSON(llvm::StringRef text, std::vector<JSONMember> *members = nullptr);

/// The error of the input file `inputFile` (`-` for standard input), as the
/// tools and the Python package report one: "<inputFile>: <message>".
llvm::Error inputError(llvm::StringRef inputFile, const llvm::Twine &message);

/// parseJSON of the text of input file `inputFile`; a failure is its
/// inputError ("<inputFile>: invalid JSON: ...").
llvm::Expected<llvm::json::Value> parseJSONInput(llvm::StringRef text,
                                                 llvm::StringRef inputFile);

/// The value as a signed 64-bit integer when it is one exactly: a JSON
/// integer in range, or a double with no fraction strictly inside the
/// range. llvm::json::Value::getAsInteger also takes a double of exactly
/// 2^63 (it compares with double(INT64_MAX), which rounds up to 2^63) and
/// converts it out of range; every reader of an input integer calls this
/// instead.
std::optional<int64_t> exactInteger(const llvm::json::Value &value);

} // namespace blueprint

#endif // BLUEPRINT_SUPPORT_JSON_H
