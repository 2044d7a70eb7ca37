//===- TransformerAttrs.h - ModelIR contracts -------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERATTRS_H
#define BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERATTRS_H

#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/ProgramWork.h"
#include "Blueprint/Workload/Spec.h"
#include "Blueprint/Workload/WholeRun.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h.inc"

namespace blueprint::transformer {
/// The attribute form of a plain model contract; fields equal to their
/// defaults (kv_heads = heads, head_dim = hidden / heads, max_positions =
/// seq_length) are left out so the printed IR stays minimal.
ModelAttr getModelAttr(mlir::MLIRContext *context,
                       const workload::ModelSpec &spec);
/// `moe` without an `expert_ffn_hidden` equal to the model's `ffnHidden`
/// (its default), so both spellings are one attribute; null stays null.
MoEAttr withoutDefaultExpertWidth(MoEAttr moe, int64_t ffnHidden);
TrainingAttr getTrainingAttr(mlir::MLIRContext *context,
                             const workload::TrainingSpec &spec);
InferenceAttr getInferenceAttr(mlir::MLIRContext *context,
                               const workload::InferenceSpec &spec);
MappingAttr getMappingAttr(mlir::MLIRContext *context,
                           const workload::MappingSpec &spec);

/// The workload rule of programs (`dist_program_c3`, `pplan_plan_c3`):
/// exactly one of `training` and `inference`, and a `decodeContext` that
/// fits the inference's generation (workload::decodeContextViolation).
/// Returns the violation's message, if any.
std::optional<std::string>
workloadContractViolation(TrainingAttr training, InferenceAttr inference,
                          std::optional<int64_t> decodeContext);
/// Emits one diagnostic per violated rule through `emitError`,
/// `<prefix><rule>: <message>`; failure if there is any. The one way rule
/// violations become diagnostics: attribute and op verifiers, program
/// verifiers and importers.
mlir::LogicalResult
reportViolations(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                 llvm::ArrayRef<workload::RuleViolation> violations,
                 llvm::StringRef prefix = "");

/// The composition rule of programs (`dist_program_c4`, `pplan_plan_c4`):
/// the contracts a program carries compose, exactly as those of the ModelIR
/// op it was derived from had to (workload::checkProgramRun). Emits
/// "<label>: <rule>: <message>" on `program` for every broken rule.
mlir::LogicalResult verifyProgramRun(mlir::Operation *program, ModelAttr model,
                                     MappingAttr mapping, TrainingAttr training,
                                     InferenceAttr inference,
                                     llvm::StringRef label);

/// workload::runShapeOf of the contracts a whole-run program or plan
/// carries (`model` and `mapping` given, `training` or `inference` null),
/// derived once per context (RunShapeMemo): the reference stays valid as
/// long as the context.
const std::optional<workload::RunShape> &runShapeOf(ModelAttr model,
                                                    MappingAttr mapping,
                                                    TrainingAttr training,
                                                    InferenceAttr inference);
} // namespace blueprint::transformer

#endif // BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERATTRS_H
