//===- DistOps.h - DistributedTaskIR operations -----------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_DIST_IR_DISTOPS_H
#define BLUEPRINT_DIALECT_DIST_IR_DISTOPS_H

#include "Blueprint/Dialect/Dist/IR/DistDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Boundaries.h"

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

namespace blueprint::dist {
/// Whether `program` holds a whole training iteration (dist.stage ops,
/// docs/WholeRun.md) rather than one block.
bool isWholeRun(ProgramOp program);

/// The MLIR element type of a work-algebra datatype.
mlir::Type getElementType(mlir::MLIRContext *context, workload::DataType type);
/// The work-algebra datatype of an MLIR element type, if it is one.
std::optional<workload::DataType> getDataType(mlir::Type type);

/// What a `dist.boundary` of a derived boundary tensor declares: its global
/// type, and its sharding over `mesh`: split over the `cp` axis along the
/// tensor's context-parallel dimension, then over `axis` along its TP
/// dimension, replicated without either.
mlir::RankedTensorType getBoundaryType(mlir::MLIRContext *context,
                                       const workload::BoundaryTensor &tensor);
ShardingAttr getBoundarySharding(mlir::MLIRContext *context,
                                 mlir::FlatSymbolRefAttr mesh,
                                 llvm::StringRef axis,
                                 const workload::BoundaryTensor &tensor);
} // namespace blueprint::dist

#endif // BLUEPRINT_DIALECT_DIST_IR_DISTOPS_H
