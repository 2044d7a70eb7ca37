//===- TransformerDialect.cpp - ModelIR dialect ---------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace blueprint::transformer;

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.cpp.inc"

void TransformerDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.cpp.inc"
      >();
}

const std::optional<blueprint::workload::RunShape> &
RunShapeMemo::of(Attribute model, Attribute mapping, Attribute training,
                 Attribute inference) {
  std::lock_guard<std::mutex> held(lock);
  std::unique_ptr<const std::optional<blueprint::workload::RunShape>> &shape =
      shapes[{model, mapping, training, inference}];
  if (!shape) {
    std::optional<blueprint::workload::TrainingSpec> trainingSpec;
    if (auto attr = llvm::dyn_cast_if_present<TrainingAttr>(training))
      trainingSpec = attr.getSpec();
    std::optional<blueprint::workload::InferenceSpec> inferenceSpec;
    if (auto attr = llvm::dyn_cast_if_present<InferenceAttr>(inference))
      inferenceSpec = attr.getSpec();
    shape =
        std::make_unique<const std::optional<blueprint::workload::RunShape>>(
            blueprint::workload::runShapeOf(
                llvm::cast<ModelAttr>(model).getSpec(),
                llvm::cast<MappingAttr>(mapping).getSpec(), trainingSpec,
                inferenceSpec));
  }
  return *shape;
}

const std::optional<blueprint::workload::RunShape> &
blueprint::transformer::runShapeOf(ModelAttr model, MappingAttr mapping,
                                   TrainingAttr training,
                                   InferenceAttr inference) {
  // The model's dialect is loaded: it made the attribute.
  return model.getContext()
      ->getLoadedDialect<TransformerDialect>()
      ->runShapes()
      .of(model, mapping, training, inference);
}
