/*===- Dialects.h - C API of Blueprint's dialects and importers --*- C -*-===*\
|*                                                                            *|
|* The `transformer`, `dist` and `pplan` dialects for compilers that embed    *|
|* Blueprint through the MLIR C API (docs/CAPI.md), with the same handles     *|
|* upstream dialects have: insert them into a registry with                   *|
|* mlirDialectHandleInsertDialect or load them into a context with            *|
|* mlirDialectHandleLoadDialect.                                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef BLUEPRINT_C_DIALECTS_H
#define BLUEPRINT_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Transformer, transformer);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dist, dist);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(PPlan, pplan);

/// Inserts the three Blueprint dialects into `registry`.
MLIR_CAPI_EXPORTED void
mlirBlueprintRegisterAllDialects(MlirDialectRegistry registry);

/// Imports the JSON training or inference spec `spec` (docs/ImportJSON.md)
/// into a module holding one verified `transformer` op, as
/// `blueprint-translate --import-transformer-json` does. `bufferName` names
/// the spec in locations and diagnostics (a file name); a Hugging Face
/// config the spec names by a relative path (docs/ImportHuggingFace.md) is
/// read from the directory of `bufferName`. The dialects must be
/// registered in `context`. On bad input the diagnostics (naming the field
/// and the rule) go to the context's diagnostic handlers and the returned
/// module is null (mlirModuleIsNull).
MLIR_CAPI_EXPORTED MlirModule mlirBlueprintImportTransformerJSON(
    MlirContext context, MlirStringRef spec, MlirStringRef bufferName);

/// The same for a Megatron-LM launch argument list (docs/ImportMegatron.md),
/// as `blueprint-translate --import-megatron-args` does.
MLIR_CAPI_EXPORTED MlirModule mlirBlueprintImportMegatronArgs(
    MlirContext context, MlirStringRef arguments, MlirStringRef bufferName);

#ifdef __cplusplus
}
#endif

#endif /* BLUEPRINT_C_DIALECTS_H */
