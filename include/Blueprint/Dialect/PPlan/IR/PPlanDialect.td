//===- PPlanDialect.td - PortablePlanIR dialect -----------------*- tablegen -*-===//

#ifndef BLUEPRINT_PPLAN_DIALECT
#define BLUEPRINT_PPLAN_DIALECT

include "mlir/IR/OpBase.td"

def PPlan_Dialect : Dialect {
  let name = "pplan";
  let cppNamespace = "::blueprint::pplan";
  let summary = "PortablePlanIR: exact work as a target-neutral plan";
  let description = [{
    The `pplan` dialect is Blueprint's PortablePlanIR, modelled on CIRCT's
    `ssp` scheduling-problem IR. A `pplan.plan` keeps the exact work facts of
    every distributed task, states what each task requires (a capability:
    matmul, vector-elementwise, or a collective by kind — never an
    implementation), its abstract resource demand, the logical concurrency
    group it belongs to, the boundary buffers with their producers and
    consumers, the plan's objectives, and a conservation ledger of the
    distributed IR's totals.

    Nothing target-specific can be expressed: there is no field for a
    kernel, opcode, device, memory bank, queue, route or duration, only
    `pplan` ops may appear in a plan, and every `pplan` op rejects
    attributes it does not define (`pplan_c1`), so a target name cannot be
    smuggled in.
  }];
  let dependentDialects = ["::blueprint::transformer::TransformerDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

#endif // BLUEPRINT_PPLAN_DIALECT
