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

/// MLIR's parser recurses once per level of nesting of attributes, types,
/// locations and regions, with no bound of its own, so deep enough input
/// exhausts the stack in upstream code, as it does in mlir-opt. The harness
/// leaves such input out (docs/Fuzzing.md): Blueprint's code starts after
/// the parser, and no IR it reads nests anywhere near this deep.
static bool nestsDeeperThan(llvm::StringRef text, unsigned bound) {
  unsigned depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
      continue;
    }
    if (c == '"')
      quoted = true;
    else if (c == '(' || c == '[' || c == '{' || c == '<')
      depth += 1;
    else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0)
      depth -= 1;
    if (depth > bound)
      return true;
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (nestsDeeperThan(text, 256))
    return 0;
  // A copy ends in NUL, as the parser's lexer expects of its buffer (and as
  // llvm::MemoryBuffer guarantees); libFuzzer's data does not.
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  mlir::ParserConfig config(&blueprint::fuzz::context());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (module)
    blueprint::fuzz::runPipeline(*module);
  return 0;
}
