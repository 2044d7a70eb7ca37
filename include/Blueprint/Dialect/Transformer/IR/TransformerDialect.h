//===- TransformerDialect.h - ModelIR dialect -------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H
#define BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H

#include "mlir/IR/Dialect.h"

#include <memory>
#include <optional>

namespace blueprint::workload {
struct RunShape;
} // namespace blueprint::workload

namespace blueprint::transformer {
class ModelAttr;
class MappingAttr;
class TrainingAttr;
class InferenceAttr;

/// The run shape (workload::runShapeOf) of each set of contracts one
/// context met, by their attributes: a whole-run program's every instance,
/// send and receive verifies against its program's shape, which would
/// otherwise be composed again for each of them. Attributes are uniqued and
/// live as long as their context, which owns the dialect and this memo, so
/// equal attributes are equal contracts. Verifiers may run on several
/// threads: a lock guards the map. Read through transformer::runShapeOf.
class RunShapeMemo {
public:
  RunShapeMemo();
  ~RunShapeMemo();

  /// The shape of the run of `model`, `mapping` (both given) and one of
  /// `training` and `inference` (null for the other), if they compose. The
  /// reference stays valid as long as the context.
  const std::optional<workload::RunShape> &of(ModelAttr model,
                                              MappingAttr mapping,
                                              TrainingAttr training,
                                              InferenceAttr inference);

private:
  struct Shapes;
  std::unique_ptr<Shapes> shapes;
};
} // namespace blueprint::transformer

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h.inc"

#endif // BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H
