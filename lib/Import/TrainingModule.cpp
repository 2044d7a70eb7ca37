//===- TrainingModule.cpp - Shared tail of the ModelIR importers ----------===//

#include "TrainingModule.h"

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace blueprint;

/// Reports every violated rule, `<origin>: <rule>: <message>`, contracts
/// first and their composition only when they hold; then builds the module
/// with `create` and verifies it.
static OwningOpRef<ModuleOp>
checkAndBuild(Location loc, const import::ContractOrigins &origins,
              std::vector<workload::RuleViolation> modelRules,
              std::vector<workload::RuleViolation> workloadRules,
              std::vector<workload::RuleViolation> mappingRules,
              llvm::function_ref<std::vector<workload::RuleViolation>()>
                  compositionRules,
              llvm::function_ref<void(OpBuilder &)> create) {
  bool valid = true;
  auto report = [&](const std::string &origin,
                    const std::vector<workload::RuleViolation> &violations) {
    for (const workload::RuleViolation &violation : violations)
      emitError(loc) << "import: " << origin << ": " << violation.rule << ": "
                     << violation.message;
    valid &= violations.empty();
  };
  report(origins.model, modelRules);
  report(origins.training, workloadRules);
  report(origins.mapping, mappingRules);
  if (!valid)
    return nullptr;
  report(origins.composition, compositionRules());
  if (!valid)
    return nullptr;

  loc.getContext()->getOrLoadDialect<transformer::TransformerDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  create(builder);
  // The rules above are the verifier's rules; verifying again guards the
  // attribute round trip (defaults left out of the printed form).
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> blueprint::import::buildTrainingModule(
    Location loc, StringRef name, const workload::ModelSpec &model,
    const workload::TrainingSpec &training,
    const workload::MappingSpec &mapping, const ContractOrigins &origins) {
  MLIRContext *context = loc.getContext();
  return checkAndBuild(
      loc, origins, workload::checkModel(model),
      workload::checkTraining(training), workload::checkMapping(mapping),
      [&] {
        return workload::checkTrainingComposition(model, training, mapping);
      },
      [&](OpBuilder &builder) {
        transformer::DecoderTrainingOp::create(
            builder, loc, builder.getStringAttr(name),
            transformer::getModelAttr(context, model),
            transformer::getTrainingAttr(context, training),
            transformer::getMappingAttr(context, mapping));
      });
}

OwningOpRef<ModuleOp> blueprint::import::buildInferenceModule(
    Location loc, StringRef name, const workload::ModelSpec &model,
    const workload::InferenceSpec &inference,
    const workload::MappingSpec &mapping, const ContractOrigins &origins) {
  MLIRContext *context = loc.getContext();
  return checkAndBuild(
      loc, origins, workload::checkModel(model),
      workload::checkInference(inference), workload::checkMapping(mapping),
      [&] {
        return workload::checkInferenceComposition(model, inference, mapping);
      },
      [&](OpBuilder &builder) {
        transformer::DecoderInferenceOp::create(
            builder, loc, builder.getStringAttr(name),
            transformer::getModelAttr(context, model),
            transformer::getInferenceAttr(context, inference),
            transformer::getMappingAttr(context, mapping));
      });
}

std::string blueprint::import::sanitizeSymbolName(StringRef label) {
  std::string name;
  for (char c : label)
    name.push_back(llvm::isAlnum(c) ? c : '_');
  if (name.empty() || llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  return name;
}
