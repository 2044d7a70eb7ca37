//===- DistOps.h - DistributedTaskIR operations -----------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_DIST_IR_DISTOPS_H
#define BLUEPRINT_DIALECT_DIST_IR_DISTOPS_H

#include "Blueprint/Dialect/Dist/IR/DistDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Workload/BlockWork.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace blueprint::dist {
/// The abstract resource all distributed work writes (see DistDialect.td).
struct WorkResource
    : public mlir::SideEffects::Resource::Base<WorkResource> {
  llvm::StringRef getName() final { return "dist.work"; }
};
} // namespace blueprint::dist

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistTypes.h.inc"

#define GET_OP_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistOps.h.inc"

#endif // BLUEPRINT_DIALECT_DIST_IR_DISTOPS_H
