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

#define GEN_PASS_REGISTRATION
#include "Blueprint/Transforms/Passes.h.inc"

} // namespace blueprint

#endif // BLUEPRINT_TRANSFORMS_PASSES_H
