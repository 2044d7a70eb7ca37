//===- WorkFactsInterface.h - Exact work facts of an op ---------*- C++ -*-===//

#ifndef BLUEPRINT_INTERFACES_WORKFACTSINTERFACE_H
#define BLUEPRINT_INTERFACES_WORKFACTSINTERFACE_H

#include "Blueprint/Interfaces/TensorBytes.h"
#include "Blueprint/Workload/BlockWork.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"

#include <map>

#include "Blueprint/Interfaces/WorkFactsInterface.h.inc"

namespace blueprint {

/// The plain invocation an op's facts describe (tensor maps in name order);
/// fails if its stash bytes overflow when summed.
llvm::Expected<workload::Invocation> toInvocation(WorkFactsOpInterface op);

/// The figures of an op's facts, read from its properties without
/// materialising an Invocation (no allocation); fails if a byte sum
/// overflows. `primitive` refers to the op's attribute.
llvm::Expected<workload::InvocationFigures>
figuresOf(WorkFactsOpInterface op);

/// Why an op's `gemm` extents are not the GEMMs of its work
/// (workload::matmulShapeViolation under the op's getGemmCover(), and a
/// length that is a multiple of 4), or std::nullopt when they are or the op
/// carries none: the one check behind dist_task_c2 and pplan_task_c9 (the
/// sum at most `ops` only for a fused task, one with `implementation`).
std::optional<std::string> gemmViolation(WorkFactsOpInterface op);

/// The work of a program or plan summarised by cadence, op by op.
using CadenceSummaries = std::map<workload::Cadence, workload::WorkSummary>;

/// Adds `op`'s figures to the summary of its cadence and returns them; fails
/// if a byte sum or a total overflows.
llvm::Expected<workload::InvocationFigures>
addToSummaries(CadenceSummaries &summaries, WorkFactsOpInterface op);

} // namespace blueprint

#endif // BLUEPRINT_INTERFACES_WORKFACTSINTERFACE_H
