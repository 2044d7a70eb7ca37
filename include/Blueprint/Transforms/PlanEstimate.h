//===- PlanEstimate.h - The estimate of one portable plan -------*- C++ -*-===//
//
// What `--estimate` computes for one `pplan.plan`, as a library: the plan's
// tasks, read through WorkFactsOpInterface, costed by lib/Estimate. The pass
// and batch evaluations (blueprint-sweep) share it.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_TRANSFORMS_PLANESTIMATE_H
#define BLUEPRINT_TRANSFORMS_PLANESTIMATE_H

#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Estimate/Estimate.h"

namespace blueprint {

/// Costs every task of `plan` on `profile` under `binding`; every collective
/// of the block spans the tensor-parallel mesh axis.
llvm::Expected<estimate::EstimateReport>
estimatePlan(pplan::PlanOp plan, const estimate::SystemProfile &profile,
             const estimate::NetworkTierBinding &binding,
             const estimate::EstimateOptions &options = {});

} // namespace blueprint

#endif // BLUEPRINT_TRANSFORMS_PLANESTIMATE_H
