//===- PPlanDialect.h - PortablePlanIR dialect ------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_PPLAN_IR_PPLANDIALECT_H
#define BLUEPRINT_DIALECT_PPLAN_IR_PPLANDIALECT_H

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "mlir/IR/Dialect.h"

#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.h.inc"

#endif // BLUEPRINT_DIALECT_PPLAN_IR_PPLANDIALECT_H
