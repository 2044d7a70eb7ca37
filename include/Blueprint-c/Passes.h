/*===- Passes.h - C API of Blueprint's passes --------------------*- C -*-===*\
|*                                                                            *|
|* mlirRegisterBlueprintPasses() registers every Blueprint pass for textual   *|
|* pipelines (mlirParsePassPipeline, mlirOpPassManagerAddPipeline);           *|
|* mlirCreateBlueprint<Pass>() creates one pass with its default options,     *|
|* e.g. mlirCreateBlueprintDistributeTransformer(). Generated from            *|
|* include/Blueprint/Transforms/Passes.td (docs/CAPI.md).                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef BLUEPRINT_C_PASSES_H
#define BLUEPRINT_C_PASSES_H

#include "mlir-c/Pass.h"

#include "Blueprint/Transforms/Passes.capi.h.inc"

#endif /* BLUEPRINT_C_PASSES_H */
