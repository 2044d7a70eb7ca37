//===- Passes.cpp - C API of Blueprint's passes ---------------------------===//

#include "Blueprint-c/Passes.h"

#include "Blueprint/Transforms/Passes.h"

#include "mlir/CAPI/Pass.h"

// The generated definitions name the passes' create and register functions
// unqualified, as upstream's C API files do.
using namespace blueprint;

#ifdef __cplusplus
extern "C" {
#endif

#include "Blueprint/Transforms/Passes.capi.cpp.inc"

#ifdef __cplusplus
}
#endif
