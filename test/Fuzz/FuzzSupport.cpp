//===- FuzzSupport.cpp - What the Blueprint fuzz harnesses share ----------===//

#include "FuzzSupport.h"

#include "Blueprint/InitAll.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

MLIRContext &blueprint::fuzz::context() {
  static MLIRContext *shared = [] {
    DialectRegistry registry;
    blueprint::registerAllDialects(registry);
    auto *context = new MLIRContext(registry);
    context->loadAllAvailableDialects();
    context->disableMultithreading();
    context->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    return context;
  }();
  return *shared;
}

void blueprint::fuzz::require(bool holds, const char *invariant) {
  if (holds)
    return;
  llvm::errs() << "blueprint fuzz: invariant broken: " << invariant << "\n";
  std::abort();
}

void blueprint::fuzz::runPipeline(ModuleOp module) {
  require(succeeded(verify(module)), "the pipeline's input verifies");
  // Digests print the IR without verifying it again.
  (void)computeDigest(module);
  PassManager pm(module->getContext());
  pm.enableVerifier(true);
  pm.addPass(createVerifyConservation());
  pm.addPass(createDistributeTransformer());
  pm.addPass(createVerifyConservation());
  pm.addPass(createPlanPortable());
  pm.addPass(createVerifyConservation());
  WorkSummaryOptions summary;
  summary.format = "json";
  summary.outputFile = "/dev/null";
  pm.addPass(createWorkSummary(summary));
  if (failed(pm.run(module)))
    return;
  require(succeeded(verify(module)), "a successful pipeline's output verifies");
  (void)computeDigest(module);
}

void blueprint::fuzz::runImporter(
    const uint8_t *data, size_t size, llvm::StringRef bufferName,
    llvm::function_ref<OwningOpRef<ModuleOp>(llvm::SourceMgr &, MLIRContext *)>
        importer) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          bufferName),
      llvm::SMLoc());
  if (OwningOpRef<ModuleOp> module = importer(sourceMgr, &context()))
    runPipeline(*module);
}
