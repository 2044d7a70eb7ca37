//===- Translations.cpp - mlir-translate registration of the importers ----===//

#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

void blueprint::registerImportTranslations() {
  auto registerDialects = [](mlir::DialectRegistry &registry) {
    blueprint::registerAllDialects(registry);
  };
  static mlir::TranslateToMLIRRegistration importJSON(
      "import-transformer-json",
      "import a JSON model/training/mapping spec into ModelIR",
      [](llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context) {
        return blueprint::importTransformerJSON(sourceMgr, context);
      },
      registerDialects);
  static mlir::TranslateToMLIRRegistration importMegatron(
      "import-megatron-args",
      "import a Megatron-LM launch argument list into ModelIR",
      [](llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context) {
        return blueprint::importMegatronArgs(sourceMgr, context);
      },
      registerDialects);
}
