//===- PPlanAttrs.td - PortablePlanIR attributes and types ------*- tablegen -*-===//

#ifndef BLUEPRINT_PPLAN_ATTRS
#define BLUEPRINT_PPLAN_ATTRS

include "Blueprint/Dialect/PPlan/IR/PPlanDialect.td"
include "Blueprint/Workload/WorkloadEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def PPlan_CollectiveAttr : AttrDef<PPlan_Dialect, "Collective"> {
  let mnemonic = "collective";
  let summary = "the logical facts of a collective task";
  let description = [{
    Kind, reduction, participants and logical message bytes (the whole
    unsharded tensor) of a collective — the semantics, not an algorithm.

    ```mlir
    #pplan.collective<kind = all_reduce, reduction = sum, participants = 8,
                      message = 100663296>
    ```
  }];
  let parameters = (ins
    EnumParameter<Workload_CollectiveKind>:$kind,
    EnumParameter<Workload_ReductionKind>:$reduction,
    "int64_t":$participants,
    "int64_t":$message
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def PPlan_DemandAttr : AttrDef<PPlan_Dialect, "Demand"> {
  let summary = "abstract resource demand of a task";
  let mnemonic = "demand";
  let description = [{
    What a task asks of whatever runs it, in target-neutral units: compute
    operations, memory traffic (bytes read plus written) and network bytes
    (the per-rank bandwidth lower bound of a collective, for any
    algorithm). Derived from the task's facts, which rule `pplan_task_c3`
    checks.

    ```mlir
    #pplan.demand<compute = 115964116992, memory = 97517568, network = 0>
    ```
  }];
  let parameters = (ins "int64_t":$compute, "int64_t":$memory,
                        "int64_t":$network);
  let assemblyFormat = "`<` struct(params) `>`";
}

def PPlan_TokenType : TypeDef<PPlan_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "completion of a plan task, for explicit dependencies";
}

#endif // BLUEPRINT_PPLAN_ATTRS
