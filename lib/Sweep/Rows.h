//===- Rows.h - What batch and search rows share ----------------*- C++ -*-===//
//
// The run figures of a row (JSON object and CSV cells) and CSV quoting, for
// blueprint-sweep's rows (Batch.cpp) and blueprint-search's (Search.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_LIB_SWEEP_ROWS_H
#define BLUEPRINT_LIB_SWEEP_ROWS_H

#include "Blueprint/Sweep/Sweep.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace blueprint::sweep {

/// `value` as JSON text.
std::string printed(const llvm::json::Value &value);

/// RFC 4180 quoting, only where needed.
std::string csvField(llvm::StringRef text);

/// A JSON scalar as a CSV cell: strings unquoted, numbers as JSON prints
/// them.
std::string csvValue(const llvm::json::Value &value);

/// `"stage": ..., "diagnostics": [...]` of a rejected row.
void writeRejectionJSON(llvm::json::OStream &json, llvm::StringRef stage,
                        llvm::ArrayRef<std::string> diagnostics);

/// `"run": {...}` (docs/Sweep.md): the memory figures, then the timed ones
/// or why there are none.
void writeRunJSON(llvm::json::OStream &json, const RunFigures &run);

/// The run_* CSV columns, and their cells (all empty without `run`).
void appendRunCSVColumns(std::vector<std::string> &columns);
void appendRunCSV(std::vector<std::string> &cells, const RunFigures *run);

} // namespace blueprint::sweep

#endif // BLUEPRINT_LIB_SWEEP_ROWS_H
