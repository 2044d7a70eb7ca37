//===- Import.h - Typed importers into ModelIR ------------------*- C++ -*-===//
//
// Importers that turn external descriptions of a training run into a module
// holding one verified `transformer.decoder_training` op. Bad input yields a
// diagnostic that names the field (a JSON path or a Megatron flag) and the
// rule; nothing is imported then.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_IMPORT_IMPORT_H
#define BLUEPRINT_IMPORT_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace blueprint {

/// Imports the JSON training spec of docs/ImportJSON.md from the main buffer
/// of `sourceMgr`.
mlir::OwningOpRef<mlir::ModuleOp>
importTransformerJSON(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);

/// Imports a Megatron-LM launch argument list (docs/ImportMegatron.md) from
/// the main buffer of `sourceMgr`.
mlir::OwningOpRef<mlir::ModuleOp>
importMegatronArgs(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);

/// Registers both importers as mlir-translate style translations
/// (`--import-transformer-json`, `--import-megatron-args`).
void registerImportTranslations();

} // namespace blueprint

#endif // BLUEPRINT_IMPORT_IMPORT_H
