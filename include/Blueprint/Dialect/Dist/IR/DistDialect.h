//===- DistDialect.h - DistributedTaskIR dialect ----------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_DIST_IR_DISTDIALECT_H
#define BLUEPRINT_DIALECT_DIST_IR_DISTDIALECT_H

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "mlir/IR/Dialect.h"

#include "Blueprint/Dialect/Dist/IR/DistDialect.h.inc"

#endif // BLUEPRINT_DIALECT_DIST_IR_DISTDIALECT_H
