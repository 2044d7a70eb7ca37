//===- DiagnosticCapture.h - Diagnostics into rows --------------*- C++ -*-===//
//
// A rejected configuration is a row, not a failure of the batch: its error
// diagnostics are collected, never printed.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_LIB_SWEEP_DIAGNOSTICCAPTURE_H
#define BLUEPRINT_LIB_SWEEP_DIAGNOSTICCAPTURE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace blueprint::sweep {

/// Collects the error diagnostics emitted while it is in scope; everything
/// else the context emits is dropped.
class DiagnosticCapture {
public:
  DiagnosticCapture(mlir::MLIRContext &context,
                    std::vector<std::string> &errors)
      : handler(&context, [&errors](mlir::Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
            errors.push_back(diagnostic.str());
          return mlir::success();
        }) {}

private:
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace blueprint::sweep

#endif // BLUEPRINT_LIB_SWEEP_DIAGNOSTICCAPTURE_H
