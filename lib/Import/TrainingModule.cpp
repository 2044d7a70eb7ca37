//===- TrainingModule.cpp - Shared tail of the ModelIR importers ----------===//

#include "Blueprint/Import/TrainingModule.h"

#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace blueprint;

/// Reports every broken rule of the run, `<origin>: <rule>: <message>`
/// (contracts first, their composition only when they hold); then builds
/// the module with `create` and verifies it.
static OwningOpRef<ModuleOp>
checkAndBuild(Location loc, const import::ContractOrigins &origins,
              const workload::RunViolations &violations,
              llvm::function_ref<void(OpBuilder &)> create) {
  auto report = [&](const import::ContractOrigin &origin,
                    const std::vector<workload::RuleViolation> &rules) {
    for (const workload::RuleViolation &rule : rules)
      emitError(origin.location) << import::violationText(origin.name, rule);
  };
  report(origins.model, violations.model);
  report(origins.training, violations.workload);
  report(origins.mapping, violations.mapping);
  report(origins.composition, violations.composition);
  if (!violations.empty())
    return nullptr;

  loc.getContext()->getOrLoadDialect<transformer::TransformerDialect>();
  // The module is the document; the op carries the fields' lineage.
  OwningOpRef<ModuleOp> module = ModuleOp::create(origins.composition.location);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  create(builder);
  // The rules above are the verifier's rules; verifying again guards the
  // attribute round trip (defaults left out of the printed form).
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

std::string
blueprint::import::violationText(llvm::StringRef origin,
                                 const workload::RuleViolation &violation) {
  return ("import: " + origin + ": " + violation.rule + ": " +
          violation.message)
      .str();
}

OwningOpRef<ModuleOp> blueprint::import::buildTrainingModule(
    Location loc, StringRef name, const workload::ModelSpec &model,
    const workload::TrainingSpec &training,
    const workload::MappingSpec &mapping, const ContractOrigins &origins) {
  MLIRContext *context = loc.getContext();
  return checkAndBuild(
      loc, origins, workload::checkTrainingRun(model, training, mapping),
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
      loc, origins, workload::checkInferenceRun(model, inference, mapping),
      [&](OpBuilder &builder) {
        transformer::DecoderInferenceOp::create(
            builder, loc, builder.getStringAttr(name),
            transformer::getModelAttr(context, model),
            transformer::getInferenceAttr(context, inference),
            transformer::getMappingAttr(context, mapping));
      });
}

import::SourceFields::SourceFields(MLIRContext *context,
                                   StringRef fileName) :context(context),
    fileName(StringAttr::get(context, fileName)),
    document(FileLineColLoc::get(this->fileName, 1, 1)){}

void import::SourceFields::add(StringRef field, unsigned line, unsigned column,
                               bool inLineage){
    // A repeated field (a JSON object with a duplicate key, which the parser
    // resolves to the last value) keeps its last position.
    Location location = FileLineColLoc::get(fileName, line, column);
auto [it, inserted] = indexOf.try_emplace(field, fields.size());
if (inserted)
  fields.push_back({field.str(), location, inLineage});
else
  fields[it->second] = {field.str(), location, inLineage};
}

Location import::SourceFields::locationOf(StringRef field) const {
  for (StringRef name = field; !name.empty();) {
    auto it = indexOf.find(name);
    if (it != indexOf.end())
      return fields[it->second].location;
    size_t dot = name.rfind('.');
    if (dot == StringRef::npos)
      break;
    name = name.take_front(dot);
  }
  return document;
}

llvm::SmallVector<Location> import::SourceFields::lineage() const {
  llvm::SmallVector<Location> parts;
  for (const Field &field : fields)
    if (field.inLineage)
      parts.push_back(
          NameLoc::get(StringAttr::get(context, field.name), field.location));
  return parts;
}

Location
import::SourceFields::specLocation(llvm::ArrayRef<Location> imported) const {
  llvm::SmallVector<Location> parts = lineage();
  llvm::append_range(parts, imported);
  if (parts.empty())
    return document;
  return FusedLoc::get(context, parts, StringAttr::get(context, "spec"));
}

std::string blueprint::import::sanitizeSymbolName(StringRef label) {
  std::string name;
  for (char c : label)
    name.push_back(llvm::isAlnum(c) ? c : '_');
  if (name.empty() || llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  return name;
}
