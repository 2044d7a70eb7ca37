//===- DistDialect.cpp - DistributedTaskIR dialect ------------------------===//

#include "Blueprint/Dialect/Dist/IR/DistDialect.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"

using namespace mlir;
using namespace blueprint::dist;

#include "Blueprint/Dialect/Dist/IR/DistDialect.cpp.inc"

void DistDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "Blueprint/Dialect/Dist/IR/DistOps.cpp.inc"
      >();
}
