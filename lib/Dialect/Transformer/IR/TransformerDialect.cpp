//===- TransformerDialect.cpp - ModelIR dialect ---------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace blueprint::transformer;

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.cpp.inc"

void TransformerDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.cpp.inc"
      >();
}
