//===- TransformerOps.cpp - ModelIR operations ----------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::transformer;

#define GET_OP_CLASSES
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.cpp.inc"

LogicalResult DecoderTrainingOp::verify() {
  workload::ModelSpec model = getModel().getSpec();
  workload::TrainingSpec training = getTraining().getSpec();
  workload::MappingSpec mapping = getMapping().getSpec();
  // Contracts built in C++ with ::get (not ::getChecked) reach this point
  // unverified; check them before composing them.
  std::vector<workload::RuleViolation> violations = workload::checkModel(model);
  for (auto &&more :
       {workload::checkTraining(training), workload::checkMapping(mapping)})
    violations.insert(violations.end(), more.begin(), more.end());
  if (violations.empty())
    violations = workload::checkTrainingComposition(model, training, mapping);
  for (const workload::RuleViolation &violation : violations)
    emitOpError() << violation.rule << ": " << violation.message;
  return failure(!violations.empty());
}

workload::TrainingComposition DecoderTrainingOp::getComposition() {
  return workload::composeTraining(getModel().getSpec(),
                                   getTraining().getSpec(),
                                   getMapping().getSpec())
      .value_or(workload::TrainingComposition());
}
