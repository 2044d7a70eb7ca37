//===- MegatronImporterFuzzer.cpp - Fuzz the Megatron-arguments importer -===//
//
// Any byte string given to --import-megatron-args is rejected with a
// diagnostic or imported as a verified module, which then goes through the
// pipeline. Seed corpus test/Fuzz/corpus/megatron, dictionary
// test/Fuzz/dict/megatron.dict (docs/Fuzzing.md).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "Blueprint/Import/Import.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.args"),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      blueprint::importMegatronArgs(sourceMgr, &blueprint::fuzz::context());
  if (module)
    blueprint::fuzz::runPipeline(*module);
  return 0;
}
