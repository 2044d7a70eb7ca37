//===- TrainingModule.h - Shared tail of the ModelIR importers --*- C++ -*-===//

#ifndef BLUEPRINT_IMPORT_TRAININGMODULE_H
#define BLUEPRINT_IMPORT_TRAININGMODULE_H

#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace blueprint::import {

/// Where the fields of a spec came from: each given field's name (a JSON
/// path such as `$.model.hidden`, or a Megatron flag such as
/// `--hidden-size`) and its line and column in the source, in source order.
/// Imported ops carry them in their location, so the lineage of every task
/// and value derived from the op ends at the spec fields it was imported
/// from (docs/Checkpoints.md).
class SourceFields {
public:
  SourceFields(mlir::MLIRContext *context, llvm::StringRef fileName);

  /// Records that `field` starts at `line`:`column` (1-based). Only fields
  /// marked `inLineage` (the contracts' own values, not the objects that
  /// hold them or workload-neutral flags) become part of specLocation().
  void add(llvm::StringRef field, unsigned line, unsigned column,
           bool inLineage);

  /// Where `field` is, or the nearest enclosing JSON object that is
  /// (`$.model.hidden` falls back to `$.model`, then to the document);
  /// the document's start for a field never given.
  mlir::Location locationOf(llvm::StringRef field) const;

  /// The document's start, `file:1:1`.
  mlir::Location documentLocation() const { return document; }

  /// A named location per lineage field, `"<field>"(file:line:column)`, in
  /// source order.
  llvm::SmallVector<mlir::Location> lineage() const;

  /// The location of the imported op: `fused<"spec">[...]` of lineage(),
  /// then `imported` (the lineage of a document the spec names, such as a
  /// Hugging Face config); the document's start when there is none.
  mlir::Location
  specLocation(llvm::ArrayRef<mlir::Location> imported = {}) const;

private:
  struct Field {
    std::string name;
    mlir::Location location;
    bool inLineage;
  };
  mlir::MLIRContext *context;
  mlir::StringAttr fileName;
  mlir::Location document;
  std::vector<Field> fields;
  llvm::StringMap<size_t> indexOf;
};

/// Where each contract came from in the source, used to prefix rule
/// violations (a JSON path such as `$.model`, or a Megatron flag group) and
/// to place their diagnostics.
struct ContractOrigin {
  std::string name;
  mlir::Location location;
};
struct ContractOrigins {
  ContractOrigin model;
  /// The training or inference contract.
  ContractOrigin training;
  ContractOrigin mapping;
  ContractOrigin composition;
};

/// How an importer reports a broken rule of the contract from `origin`:
/// `import: <origin>: <rule>: <message>`.
std::string violationText(llvm::StringRef origin,
                          const workload::RuleViolation &violation);

/// Checks every rule of the three contracts and their composition, reporting
/// each violation at its contract's origin as `<origin>: <rule>: <message>`;
/// on success returns a module holding the verified
/// `transformer.decoder_training` op, located at `loc`.
mlir::OwningOpRef<mlir::ModuleOp> buildTrainingModule(
    mlir::Location loc, llvm::StringRef name, const workload::ModelSpec &model,
    const workload::TrainingSpec &training,
    const workload::MappingSpec &mapping, const ContractOrigins &origins);

/// The same for an inference run: a module holding the verified
/// `transformer.decoder_inference` op (origins.training names the inference
/// contract's origin).
mlir::OwningOpRef<mlir::ModuleOp> buildInferenceModule(
    mlir::Location loc, llvm::StringRef name, const workload::ModelSpec &model,
    const workload::InferenceSpec &inference,
    const workload::MappingSpec &mapping, const ContractOrigins &origins);

/// A symbol name made of [A-Za-z0-9_] from an arbitrary label (a file name).
std::string sanitizeSymbolName(llvm::StringRef label);

} // namespace blueprint::import

#endif // BLUEPRINT_IMPORT_TRAININGMODULE_H
