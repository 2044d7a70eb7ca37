//===- DistAttrs.cpp - DistributedTaskIR attributes and types -------------===//

#include "Blueprint/Dialect/Dist/IR/DistOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::dist;

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistTypes.cpp.inc"

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Blueprint/Dialect/Dist/IR/DistAttrs.cpp.inc"
      >();
}

void DistDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Blueprint/Dialect/Dist/IR/DistTypes.cpp.inc"
      >();
}
