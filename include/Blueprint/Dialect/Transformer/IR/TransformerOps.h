//===- TransformerOps.h - ModelIR operations --------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMEROPS_H
#define BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMEROPS_H

#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h.inc"

#endif // BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMEROPS_H
