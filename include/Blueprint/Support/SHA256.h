//===- SHA256.h - SHA-256 on the CPU's SHA extensions -----------*- C++ -*-===//
//
// Every pipeline run hashes printed IR for its digests (Digest.h), so
// SHA-256 is on the path of every configuration a sweep evaluates.
// llvm::SHA256 is portable C at about 55 instructions per byte; x86 CPUs
// with the SHA extensions (SHA-NI) compress a 64-byte block in a few dozen
// instructions. This hasher uses the extensions when the CPU has them and
// llvm::SHA256 otherwise; either way the result is SHA-256 (FIPS 180-4).
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SUPPORT_SHA256_H
#define BLUEPRINT_SUPPORT_SHA256_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cstdint>

namespace blueprint {

class SHA256Hasher {
public:
  SHA256Hasher();

  void update(llvm::ArrayRef<uint8_t> data);
  /// The digest of everything updated so far; the hasher is spent after.
  std::array<uint8_t, 32> final();

  /// Whether this CPU runs the SHA-extension path.
  static bool usesSHAExtensions();

private:
  bool accelerated;
  /// The SHA-extension path: chaining state, a partial block, total bytes.
  std::array<uint32_t, 8> state;
  std::array<uint8_t, 64> block;
  size_t blockBytes = 0;
  uint64_t totalBytes = 0;
  /// The portable path.
  llvm::SHA256 portable;
};

} // namespace blueprint

#endif // BLUEPRINT_SUPPORT_SHA256_H
