//===- TransformerOps.cpp - ModelIR operations ----------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::transformer;

#define GET_OP_CLASSES
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.cpp.inc"

/// Reports every violation of the contracts' own rules, then (only if they
/// hold) of their composition. Contracts built in C++ with ::get (not
/// ::getChecked) reach the op verifier unverified, hence the first step.
static LogicalResult
reportRules(Operation *op, std::vector<workload::RuleViolation> contractRules,
            llvm::function_ref<std::vector<workload::RuleViolation>()>
                compositionRules) {
  std::vector<workload::RuleViolation> violations = std::move(contractRules);
  if (violations.empty())
    violations = compositionRules();
  for (const workload::RuleViolation &violation : violations)
    op->emitOpError() << violation.rule << ": " << violation.message;
  return failure(!violations.empty());
}

/// The rules of the model and the mapping, plus `workloadRules`.
static std::vector<workload::RuleViolation>
contractViolations(const workload::ModelSpec &model,
                   const workload::MappingSpec &mapping,
                   std::vector<workload::RuleViolation> workloadRules) {
  std::vector<workload::RuleViolation> violations = workload::checkModel(model);
  for (auto &&more : {std::move(workloadRules), workload::checkMapping(mapping)})
    violations.insert(violations.end(), more.begin(), more.end());
  return violations;
}

LogicalResult DecoderTrainingOp::verify() {
  workload::ModelSpec model = getModel().getSpec();
  workload::TrainingSpec training = getTraining().getSpec();
  workload::MappingSpec mapping = getMapping().getSpec();
  return reportRules(
      *this,
      contractViolations(model, mapping, workload::checkTraining(training)),
      [&] {
        return workload::checkTrainingComposition(model, training, mapping);
      });
}

LogicalResult DecoderInferenceOp::verify() {
  workload::ModelSpec model = getModel().getSpec();
  workload::InferenceSpec inference = getInference().getSpec();
  workload::MappingSpec mapping = getMapping().getSpec();
  return reportRules(
      *this,
      contractViolations(model, mapping, workload::checkInference(inference)),
      [&] {
        return workload::checkInferenceComposition(model, inference, mapping);
      });
}

workload::TrainingComposition DecoderTrainingOp::getComposition() {
  return workload::composeTraining(getModel().getSpec(),
                                   getTraining().getSpec(),
                                   getMapping().getSpec())
      .value_or(workload::TrainingComposition());
}
