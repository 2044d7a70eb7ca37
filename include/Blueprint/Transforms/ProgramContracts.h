//===- ProgramContracts.h - The contracts a program carries -----*- C++ -*-===//

#ifndef BLUEPRINT_TRANSFORMS_PROGRAMCONTRACTS_H
#define BLUEPRINT_TRANSFORMS_PROGRAMCONTRACTS_H

#include "Blueprint/Workload/ProgramWork.h"

#include "mlir/IR/Operation.h"

#include <optional>

namespace blueprint {

/// The plain contracts of a `dist.program` or `pplan.plan`.
struct ProgramContracts {
  workload::ModelSpec model;
  workload::MappingSpec mapping;
  workload::WorkloadContract workload;
};

/// The contracts `op` carries, or std::nullopt if it is not a program.
std::optional<ProgramContracts> getProgramContracts(mlir::Operation *op);

} // namespace blueprint

#endif // BLUEPRINT_TRANSFORMS_PROGRAMCONTRACTS_H
