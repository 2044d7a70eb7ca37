//===- blueprint-translate.cpp - Import external specs into ModelIR -------===//
//
// mlir-translate with Blueprint's importers: `--import-transformer-json` and
// `--import-megatron-args`.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/Import.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  blueprint::registerImportTranslations();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv,
                                              "Blueprint translation driver"))
             ? 1
             : 0;
}
