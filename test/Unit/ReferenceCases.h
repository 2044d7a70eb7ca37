//===- ReferenceCases.h - The reference data the unit tests read -*- C++ -*-===//
//
// test/reference/*.json (PROVENANCE.md) as GoogleTest-friendly accessors:
// a missing file or field is a test failure, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_TEST_UNIT_REFERENCECASES_H
#define BLUEPRINT_TEST_UNIT_REFERENCECASES_H

#include "llvm/Support/JSON.h"

namespace blueprint::test {

/// The case list of test/reference/<file>; empty (and a failure) if the
/// file is missing or malformed.
llvm::json::Array loadReferenceCases(llvm::StringRef file);

/// `object[key]` as an integer; a failure (and 0) if absent.
int64_t referenceInteger(const llvm::json::Object &object, llvm::StringRef key);

} // namespace blueprint::test

#endif // BLUEPRINT_TEST_UNIT_REFERENCECASES_H
