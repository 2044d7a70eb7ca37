//===- TransformerOps.cpp - ModelIR operations ----------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::transformer;

#define GET_OP_CLASSES
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.cpp.inc"

/// Reports every broken rule of the op's run, each as "<rule>: <message>".
/// Contracts built in C++ with ::get (not ::getChecked) reach the op
/// verifier unverified, hence the contracts' own rules are checked again.
static LogicalResult reportRules(Operation *op,
                                 const workload::RunViolations &violations) {
  return reportViolations([op] { return op->emitOpError(); }, violations.all());
}

LogicalResult DecoderTrainingOp::verify() {
  return reportRules(*this, workload::checkTrainingRun(getModel().getSpec(),
                                                       getTraining().getSpec(),
                                                       getMapping().getSpec()));
}

LogicalResult DecoderInferenceOp::verify() {
  return reportRules(*this, workload::checkInferenceRun(
                                getModel().getSpec(), getInference().getSpec(),
                                getMapping().getSpec()));
}

workload::TrainingComposition DecoderTrainingOp::getComposition() {
  return workload::composeTraining(getModel().getSpec(),
                                   getTraining().getSpec(),
                                   getMapping().getSpec())
      .value_or(workload::TrainingComposition());
}
