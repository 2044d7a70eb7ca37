//===- Passes.td - Blueprint passes -----------------------------*- tablegen -*-===//

#ifndef BLUEPRINT_TRANSFORMS_PASSES
#define BLUEPRINT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

#endif // BLUEPRINT_TRANSFORMS_PASSES
