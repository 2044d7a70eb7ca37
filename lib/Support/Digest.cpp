//===- Digest.cpp - Stable digests of IR ----------------------------------===//

#include "Blueprint/Support/Digest.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

std::string blueprint::computeDigest(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(false).useLocalScope();
  op->print(os, flags);
  llvm::SHA256 hasher;
  hasher.update(text);
  std::array<uint8_t, 32> hash = hasher.final();
  return "sha256:" + llvm::toHex(hash, /*LowerCase=*/true);
}

bool blueprint::isWellFormedDigest(llvm::StringRef digest) {
  return digest.consume_front("sha256:") && digest.size() == 64 &&
         llvm::all_of(digest, [](char c) {
           return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
         });
}
