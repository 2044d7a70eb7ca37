//===- ProgramContracts.cpp - The contracts a program carries -------------===//

#include "Blueprint/Transforms/ProgramContracts.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace blueprint;

std::optional<ProgramContracts>
blueprint::getProgramContracts(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ProgramContracts>>(op)
      .Case<dist::ProgramOp, pplan::PlanOp>(
          [](auto program) -> std::optional<ProgramContracts> {
            ProgramContracts contracts;
            contracts.model = program.getModel().getSpec();
            contracts.mapping = program.getMapping().getSpec();
            if (transformer::TrainingAttr training = program.getTrainingAttr())
              contracts.workload.training = training.getSpec();
            if (transformer::InferenceAttr inference =
                    program.getInferenceAttr())
              contracts.workload.inference = inference.getSpec();
            contracts.workload.decodeContext = program.getDecodeContext();
            return contracts;
          })
      .Default([](Operation *) { return std::nullopt; });
}
