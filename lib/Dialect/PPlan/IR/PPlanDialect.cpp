//===- PPlanDialect.cpp - PortablePlanIR dialect --------------------------===//

#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace blueprint::pplan;

#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanTypes.cpp.inc"

void PPlanDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.cpp.inc"
      >();
}

void PPlanDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Blueprint/Dialect/PPlan/IR/PPlanAttrs.cpp.inc"
      >();
}

void PPlanDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Blueprint/Dialect/PPlan/IR/PPlanTypes.cpp.inc"
      >();
}
