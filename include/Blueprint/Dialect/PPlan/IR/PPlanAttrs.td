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
    unsharded tensor) of a collective — the semantics, not an algorithm —
    and, as `point_to_point = true`, that the implementation issues it as
    point-to-point sends rather than one collective call (such a transfer
    pays no per-call latency, docs/Estimate.md "Per-call latency").

    ```mlir
    #pplan.collective<kind = all_reduce, reduction = sum, participants = 8,
                      message = 100663296>
    ```
  }];
  let parameters = (ins
    EnumParameter<Workload_CollectiveKind>:$kind,
    EnumParameter<Workload_ReductionKind>:$reduction,
    "int64_t":$participants,
    "int64_t":$message,
    DefaultValuedParameter<"bool", "false">:$point_to_point
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

def PPlan_FusedWorkAttr : AttrDef<PPlan_Dialect, "FusedWork"> {
  let mnemonic = "fused_work";
  let summary = "the semantic work of one task a fused task replaced";
  let description = [{
    What one original task of the distributed IR did, kept on the fused
    task that replaced it (`--apply-implementation`, docs/Estimate.md
    "Implementation transformations"): its primitive, phase, engine,
    operations and total bytes read, written and stashed. Conservation
    (`pplan_plan_c2`, `--verify-conservation`) counts these, not the fused
    task's executed facts.

    ```mlir
    #pplan.fused_work<primitive = "qk_matmul", phase = forward,
                      engine = matmul, ops = 131072, read = 8192,
                      write = 8192, stash = 8192>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"primitive id">:$primitive,
    EnumParameter<Workload_Phase>:$phase,
    EnumParameter<Workload_Engine>:$engine,
    "int64_t":$ops,
    "int64_t":$read,
    "int64_t":$write,
    "int64_t":$stash
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def PPlan_TokenType : TypeDef<PPlan_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "completion of a plan task, for explicit dependencies";
}

#endif // BLUEPRINT_PPLAN_ATTRS
