//===- TransformerDialect.cpp - ModelIR dialect ---------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>
#include <tuple>

using namespace mlir;
using namespace blueprint::transformer;
using blueprint::workload::RunShape;

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.cpp.inc"

void TransformerDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.cpp.inc"
      >();
}

struct RunShapeMemo::Shapes {
  using Key = std::tuple<ModelAttr, MappingAttr, TrainingAttr, InferenceAttr>;
  std::mutex lock;
  llvm::DenseMap<Key, std::unique_ptr<const std::optional<RunShape>>> byKey;
};

RunShapeMemo::RunShapeMemo() : shapes(std::make_unique<Shapes>()) {}
RunShapeMemo::~RunShapeMemo() = default;

const std::optional<RunShape> &RunShapeMemo::of(ModelAttr model,
                                                MappingAttr mapping,
                                                TrainingAttr training,
                                                InferenceAttr inference) {
  std::lock_guard<std::mutex> held(shapes->lock);
  std::unique_ptr<const std::optional<RunShape>> &shape =
      shapes->byKey[{model, mapping, training, inference}];
  if (!shape) {
    std::optional<blueprint::workload::TrainingSpec> trainingSpec;
    if (training)
      trainingSpec = training.getSpec();
    std::optional<blueprint::workload::InferenceSpec> inferenceSpec;
    if (inference)
      inferenceSpec = inference.getSpec();
    shape = std::make_unique<const std::optional<RunShape>>(
        blueprint::workload::runShapeOf(model.getSpec(), mapping.getSpec(),
                                        trainingSpec, inferenceSpec));
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
