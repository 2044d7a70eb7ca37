//===- TransformerDialect.td - ModelIR dialect ------------------*- tablegen -*-===//

#ifndef BLUEPRINT_TRANSFORMER_DIALECT
#define BLUEPRINT_TRANSFORMER_DIALECT

include "mlir/IR/OpBase.td"

def Transformer_Dialect : Dialect {
  let name = "transformer";
  let cppNamespace = "::blueprint::transformer";
  let summary = "ModelIR: typed decoder-only Transformer workloads";
  let description = [{
    The `transformer` dialect is Blueprint's ModelIR. It states *what* is to be
    trained or served as three independent, typed contracts — the model
    (`#transformer.model`), the training workload (`#transformer.training`)
    and the parallel mapping (`#transformer.mapping`) — and a coarse,
    target-neutral op (`transformer.decoder_training`) that composes them.
    Nothing target-specific (no device, kernel, peak rate or latency) can be
    expressed. The composition rules are numbered (`decoder_training_c1`, ...)
    and cited by the verifier, the documentation and the negative tests.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Adds the contract attributes; defined beside their storage classes.
    void registerAttributes();

    /// The run shapes of the contracts met in this context
    /// (transformer::runShapeOf).
    RunShapeMemo &runShapes() { return runShapeMemo; }

  private:
    RunShapeMemo runShapeMemo;
  }];
}

#endif // BLUEPRINT_TRANSFORMER_DIALECT
