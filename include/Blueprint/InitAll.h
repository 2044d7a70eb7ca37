//===- InitAll.h - Register every Blueprint dialect and pass ----*- C++ -*-===//
//
// The one registration entry point: blueprint-opt, blueprint-translate and
// any MLIR compiler embedding Blueprint call these.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_INITALL_H
#define BLUEPRINT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace blueprint {

/// Adds the `transformer`, `dist` and `pplan` dialects to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every Blueprint pass (and pass pipeline) with the global pass
/// registry, for textual pipelines and mlir-opt style command lines.
void registerAllPasses();

} // namespace blueprint

#endif // BLUEPRINT_INITALL_H
