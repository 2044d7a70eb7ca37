//===- TrainingModule.h - Shared tail of the ModelIR importers --*- C++ -*-===//

#ifndef BLUEPRINT_LIB_IMPORT_TRAININGMODULE_H
#define BLUEPRINT_LIB_IMPORT_TRAININGMODULE_H

#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace blueprint::import {

/// Where each contract came from in the source, used to prefix rule
/// violations (a JSON path such as `$.model`, or a Megatron flag group).
struct ContractOrigins {
  std::string model;
  /// The training or inference contract.
  std::string training;
  std::string mapping;
  std::string composition;
};

/// Checks every rule of the three contracts and their composition, reporting
/// each violation at `loc` as `<origin>: <rule>: <message>`; on success
/// returns a module holding the verified `transformer.decoder_training` op.
mlir::OwningOpRef<mlir::ModuleOp>
buildTrainingModule(mlir::Location loc, llvm::StringRef name,
                    const workload::ModelSpec &model,
                    const workload::TrainingSpec &training,
                    const workload::MappingSpec &mapping,
                    const ContractOrigins &origins);

/// The same for an inference run: a module holding the verified
/// `transformer.decoder_inference` op (origins.training names the inference
/// contract's origin).
mlir::OwningOpRef<mlir::ModuleOp>
buildInferenceModule(mlir::Location loc, llvm::StringRef name,
                     const workload::ModelSpec &model,
                     const workload::InferenceSpec &inference,
                     const workload::MappingSpec &mapping,
                     const ContractOrigins &origins);

/// A symbol name made of [A-Za-z0-9_] from an arbitrary label (a file name).
std::string sanitizeSymbolName(llvm::StringRef label);

} // namespace blueprint::import

#endif // BLUEPRINT_LIB_IMPORT_TRAININGMODULE_H
