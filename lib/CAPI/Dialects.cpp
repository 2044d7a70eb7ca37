//===- Dialects.cpp - C API of Blueprint's dialects and importers ---------===//

#include "Blueprint-c/Dialects.h"

#include "Blueprint/Dialect/Dist/IR/DistDialect.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(
    Transformer, transformer, blueprint::transformer::TransformerDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dist, dist, blueprint::dist::DistDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(PPlan, pplan,
                                      blueprint::pplan::PPlanDialect)

void mlirBlueprintRegisterAllDialects(MlirDialectRegistry registry) {
  blueprint::registerAllDialects(*unwrap(registry));
}

namespace {
using Importer = mlir::OwningOpRef<mlir::ModuleOp> (*)(llvm::SourceMgr &,
                                                       mlir::MLIRContext *);

/// Runs `importer` on a copy of `text` named `bufferName`: the importers
/// keep locations into the buffer, and the caller's string need not outlive
/// the call.
MlirModule importFrom(Importer importer, MlirContext context,
                      MlirStringRef text, MlirStringRef bufferName) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(text), unwrap(bufferName)),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importer(sourceMgr, unwrap(context));
  return MlirModule{module.release().getOperation()};
}
} // namespace

MlirModule mlirBlueprintImportTransformerJSON(MlirContext context,
                                              MlirStringRef spec,
                                              MlirStringRef bufferName) {
  return importFrom(blueprint::importTransformerJSON, context, spec,
                    bufferName);
}

MlirModule mlirBlueprintImportMegatronArgs(MlirContext context,
                                           MlirStringRef arguments,
                                           MlirStringRef bufferName) {
  return importFrom(blueprint::importMegatronArgs, context, arguments,
                    bufferName);
}
