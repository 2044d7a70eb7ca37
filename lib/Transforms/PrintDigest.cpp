//===- PrintDigest.cpp - Print stable digests -----------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Support/Digest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace blueprint {
#define GEN_PASS_DEF_PRINTDIGEST
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;

namespace {
struct PrintDigestPass
    : blueprint::impl::PrintDigestBase<PrintDigestPass> {
  using PrintDigestBase::PrintDigestBase;

  void runOnOperation() override {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output) {
      getOperation().emitError() << "print-digest: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = output->os();
    os << "module " << blueprint::computeDigest(getOperation()) << "\n";
    for (Operation &op : getOperation().getBody()->getOperations())
      if (auto name = op.getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName()))
        os << op.getName() << " @" << name.getValue() << " "
           << blueprint::computeDigest(&op) << "\n";
    output->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
