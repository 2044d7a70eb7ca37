//===- FuzzSupport.h - What the Blueprint fuzz harnesses share --*- C++ -*-===//
//
// One MLIRContext for the whole fuzzing run (a fresh context per input runs
// at about 20 inputs per second instead of thousands), diagnostics
// swallowed (bad input is expected; only crashes, sanitizer reports and
// broken invariants count), and the pipeline every accepted input runs
// through.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_TEST_FUZZ_FUZZSUPPORT_H
#define BLUEPRINT_TEST_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

namespace blueprint::fuzz {

/// The context every input is processed in: the Blueprint dialects loaded,
/// multithreading off, every diagnostic dropped.
mlir::MLIRContext &context();

/// Aborts (a finding for libFuzzer) when `holds` is false: an invariant of
/// the compiler, not a property of the input, is broken.
void require(bool holds, const char *invariant);

/// Runs `module`, which must verify, through the whole pipeline:
/// distribution, planning, conservation after each, the work summary and
/// the digest. Any stage may reject the input with a diagnostic; none may
/// crash, and a verified output must stay verified.
void runPipeline(mlir::ModuleOp module);

/// Gives the input, as a buffer named `bufferName`, to `importer` (one of
/// Blueprint's importers), and runs what it imports through runPipeline.
void runImporter(const uint8_t *data, size_t size, llvm::StringRef bufferName,
                 llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(
                     llvm::SourceMgr &, mlir::MLIRContext *)>
                     importer);

} // namespace blueprint::fuzz

#endif // BLUEPRINT_TEST_FUZZ_FUZZSUPPORT_H
