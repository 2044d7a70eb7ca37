//===- InitAll.cpp - Register every Blueprint dialect and pass ------------===//

#include "Blueprint/InitAll.h"

#include "Blueprint/Dialect/Dist/IR/DistDialect.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "Blueprint/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void blueprint::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<transformer::TransformerDialect, dist::DistDialect,
                  pplan::PPlanDialect>();
}

void blueprint::registerAllPasses() { registerBlueprintPasses(); }
