//===- Passes.h - Blueprint passes ------------------------------*- C++ -*-===//

#ifndef BLUEPRINT_TRANSFORMS_PASSES_H
#define BLUEPRINT_TRANSFORMS_PASSES_H

#include "Blueprint/Dialect/Dist/IR/DistDialect.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace blueprint {

#define GEN_PASS_DECL
#include "Blueprint/Transforms/Passes.h.inc"

/// The check of --verify-conservation for one `dist.program` or
/// `pplan.plan` (other ops pass): re-derives the work from the contracts the
/// program carries and reports, as an error on the offending op, the first
/// task, quantity, expected and found value that differ.
mlir::LogicalResult verifyConservation(mlir::Operation *program);

#define GEN_PASS_REGISTRATION
#include "Blueprint/Transforms/Passes.h.inc"

} // namespace blueprint

#endif // BLUEPRINT_TRANSFORMS_PASSES_H
