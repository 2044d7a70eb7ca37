//===- DiagnosticCapture.h - Diagnostics collected, not printed -*- C++ -*-===//
//
// A rejected configuration is a row, not a failure of the batch, and a
// rejection seen from Python is an exception: either way its error
// diagnostics are collected, never printed.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SUPPORT_DIAGNOSTICCAPTURE_H
#define BLUEPRINT_SUPPORT_DIAGNOSTICCAPTURE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace blueprint {

/// Collects the error diagnostics emitted while it is in scope; everything
/// else the context emits is dropped.
class DiagnosticCapture {
public:
  // The handler is noexcept: it runs inside library frames built without
  // exceptions, even when it is compiled with them (in the Python module),
  // so a failed allocation aborts, as in LLVM, instead of unwinding them.
  DiagnosticCapture(mlir::MLIRContext &context,
                    std::vector<std::string> &errors)
      : handler(&context, [&errors](mlir::Diagnostic &diagnostic) noexcept {
          if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
            errors.push_back(diagnostic.str());
          return mlir::success();
        }) {}

private:
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace blueprint

#endif // BLUEPRINT_SUPPORT_DIAGNOSTICCAPTURE_H
