//===- PipelineFuzzer.cpp - Fuzz the IR parser, verifiers and pipeline ---===//
//
// Any text given to blueprint-opt is rejected by the parser or a verifier,
// or runs through the pipeline (distribution, planning, conservation, work
// summary, digests) without crashing. Seed corpus test/Fuzz/corpus/ir,
// dictionary test/Fuzz/dict/ir.dict (docs/Fuzzing.md).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A copy ends in NUL, as the parser's lexer expects of its buffer (and as
  // llvm::MemoryBuffer guarantees); libFuzzer's data does not.
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  mlir::ParserConfig config(&blueprint::fuzz::context());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (module)
    blueprint::fuzz::runPipeline(*module);
  return 0;
}
