//===- TransformerDialect.h - ModelIR dialect -------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H
#define BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h.inc"

#endif // BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H
