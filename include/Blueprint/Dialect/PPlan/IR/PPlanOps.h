//===- PPlanOps.h - PortablePlanIR operations -------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_PPLAN_IR_PPLANOPS_H
#define BLUEPRINT_DIALECT_PPLAN_IR_PPLANOPS_H

#include "Blueprint/Dialect/PPlan/IR/PPlanDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace blueprint::pplan {
/// The abstract resource all plan tasks write (see PPlanOps.td).
struct WorkResource : public mlir::SideEffects::Resource::Base<WorkResource> {
  llvm::StringRef getName() final { return "pplan.work"; }
};
} // namespace blueprint::pplan

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanTypes.h.inc"

#define GET_OP_CLASSES
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h.inc"

namespace blueprint::pplan {
/// The semantic work `work` conserves if it is a fused task
/// (pplan_task_c10: TaskOp::getFusedFigures; none for a kernel a
/// transformation adds), std::nullopt for any other op: what the totals of a
/// stage or template count instead of its own figures.
std::optional<llvm::SmallVector<workload::InvocationFigures>>
fusedFiguresOf(WorkFactsOpInterface work);
} // namespace blueprint::pplan

#endif // BLUEPRINT_DIALECT_PPLAN_IR_PPLANOPS_H
