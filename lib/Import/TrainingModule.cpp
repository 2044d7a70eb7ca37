//===- TrainingModule.cpp - Shared tail of the ModelIR importers ----------===//

#include "TrainingModule.h"

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace blueprint;

OwningOpRef<ModuleOp> blueprint::import::buildTrainingModule(
    Location loc, StringRef name, const workload::ModelSpec &model,
    const workload::TrainingSpec &training,
    const workload::MappingSpec &mapping, const ContractOrigins &origins) {
  bool valid = true;
  auto report = [&](const std::string &origin,
                    const std::vector<workload::RuleViolation> &violations) {
    for (const workload::RuleViolation &violation : violations)
      emitError(loc) << "import: " << origin << ": " << violation.rule << ": "
                     << violation.message;
    valid &= violations.empty();
  };
  report(origins.model, workload::checkModel(model));
  report(origins.training, workload::checkTraining(training));
  report(origins.mapping, workload::checkMapping(mapping));
  if (!valid)
    return nullptr;
  report(origins.composition,
         workload::checkTrainingComposition(model, training, mapping));
  if (!valid)
    return nullptr;

  MLIRContext *context = loc.getContext();
  context->getOrLoadDialect<transformer::TransformerDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  transformer::DecoderTrainingOp::create(
      builder, loc, builder.getStringAttr(name),
      transformer::getModelAttr(context, model),
      transformer::getTrainingAttr(context, training),
      transformer::getMappingAttr(context, mapping));
  // The rules above are the verifier's rules; verifying again guards the
  // attribute round trip (defaults left out of the printed form).
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

std::string blueprint::import::sanitizeSymbolName(StringRef label) {
  std::string name;
  for (char c : label)
    name.push_back(llvm::isAlnum(c) ? c : '_');
  if (name.empty() || llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  return name;
}
