//===- HuggingFaceConfig.h - A Hugging Face config.json as a model -*- C++
//-*-===//
//
// The model contract a Hugging Face `config.json` describes
// (docs/ImportHuggingFace.md). A JSON spec names the config in place of its
// model fields; this reads the config itself.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_IMPORT_HUGGINGFACECONFIG_H
#define BLUEPRINT_IMPORT_HUGGINGFACECONFIG_H

#include "Blueprint/Workload/Spec.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace blueprint::import {

/// A model read from a config: every field but `seqLength`, which a config
/// does not state (it is 0), and the lineage of the keys it was read from.
struct HuggingFaceModel {
  workload::ModelSpec model;
  /// `"$.<key>"(file:line:column)` per key the model was read from.
  llvm::SmallVector<mlir::Location> lineage;
};

/// Reads `text`, the config.json named `file` (errors name it and are
/// reported at the offending key): its `model_type` must be one of
/// llama, mistral, mixtral, qwen2, gpt2, and every key must be one the mapping
/// reads or one known not to change the work. Nothing on error.
std::optional<HuggingFaceModel>
readHuggingFaceConfig(llvm::StringRef text, llvm::StringRef file,
                      mlir::MLIRContext *context);

} // namespace blueprint::import

#endif // BLUEPRINT_IMPORT_HUGGINGFACECONFIG_H
