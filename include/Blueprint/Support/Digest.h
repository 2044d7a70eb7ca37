//===- Digest.h - Stable digests of IR --------------------------*- C++ -*-===//

#ifndef BLUEPRINT_SUPPORT_DIGEST_H
#define BLUEPRINT_SUPPORT_DIGEST_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace blueprint {

/// `sha256:<64 hex digits>` of `op` printed in its custom form without
/// locations and with attribute aliases inlined: the same IR gives the same
/// digest whatever file it came from and however often it is printed.
/// (OperationEquivalence::computeHash is not stable across runs.)
/// Precondition: `op` verifies; it is not verified again.
std::string computeDigest(mlir::Operation *op);

/// Whether `digest` has the form computeDigest produces.
bool isWellFormedDigest(llvm::StringRef digest);

} // namespace blueprint

#endif // BLUEPRINT_SUPPORT_DIGEST_H
