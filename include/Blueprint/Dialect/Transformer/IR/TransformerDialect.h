//===- TransformerDialect.h - ModelIR dialect -------------------*- C++ -*-===//

#ifndef BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H
#define BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H

#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

namespace blueprint::transformer {
/// The run shape (workload::runShapeOf) of each set of contracts one
/// context met, by their attributes: a whole-run program's every instance,
/// send and receive verifies against its program's shape, which would
/// otherwise be composed again for each of them. Attributes are uniqued and
/// live as long as their context, which owns the dialect and this memo, so
/// equal attributes are equal contracts. Verifiers may run on several
/// threads: a lock guards the map.
class RunShapeMemo {
public:
  /// The shape of the run of `model`, `mapping` and one of `training` and
  /// `inference` (a null attribute for the other), if they compose. The
  /// reference stays valid as long as the context.
  const std::optional<workload::RunShape> &of(mlir::Attribute model,
                                              mlir::Attribute mapping,
                                              mlir::Attribute training,
                                              mlir::Attribute inference);

private:
  using Key = std::tuple<mlir::Attribute, mlir::Attribute, mlir::Attribute,
                         mlir::Attribute>;
  std::mutex lock;
  llvm::DenseMap<Key, std::unique_ptr<const std::optional<workload::RunShape>>>
      shapes;
};
} // namespace blueprint::transformer

#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h.inc"

#endif // BLUEPRINT_DIALECT_TRANSFORMER_IR_TRANSFORMERDIALECT_H
