//===- PPlanOps.td - PortablePlanIR operations ------------------*- tablegen -*-===//

#ifndef BLUEPRINT_PPLAN_OPS
#define BLUEPRINT_PPLAN_OPS

include "Blueprint/Dialect/PPlan/IR/PPlanAttrs.td"
include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.td"
include "Blueprint/Interfaces/WorkFactsInterface.td"
include "Blueprint/Support/AsmFormat.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class PPlan_Op<string mnemonic, list<Trait> traits = []>
    : Op<PPlan_Dialect, mnemonic, traits>;

class PPlan_PlanMember<string mnemonic, list<Trait> traits = []>
    : PPlan_Op<mnemonic, !listconcat(traits, [HasParent<"PlanOp">])>;

/// The abstract resource every plan task writes, so identical tasks are
/// never merged or erased.
def PPlan_WorkResource : Resource<"::blueprint::pplan::WorkResource">;

def PPlan_PlanOp : PPlan_Op<"plan", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "a target-neutral plan of the exact work of one program";
  let description = [{
    The portable plan derived from one `dist.program` (recorded by the
    SHA-256 digest of that program printed without locations), with the
    ModelIR contracts it descends from. It holds capabilities, concurrency
    groups, tasks, buffers, objectives and the conservation ledger.

    Rules (`pplan_c1` applies to every op of the dialect):
    1. `pplan_c1`: only `pplan` ops appear in a plan, and no `pplan` op
       carries an attribute it does not define (no kernel, device, queue,
       duration or any other target field can be attached);
    2. `pplan_plan_c1`: `source_digest` is `sha256:` and 64 lowercase hex
       digits;
    3. `pplan_plan_c2` (conservation): for every (cadence, phase, engine)
       the ledger row equals the totals of the plan's tasks, and every
       group of tasks has a row;
    4. `pplan_plan_c3`: exactly one workload contract, `training` or
       `inference`, with a `decode_context` as for `dist.program`;
    5. `pplan_plan_c4`: the contracts compose, as `dist_program_c4`.

    ```mlir
    pplan.plan @gpt source_digest = "sha256:..." model = <...>
        training = <...> mapping = <...> {
      pplan.capability @matmul matmul
      pplan.group @forward serial
      %0 = pplan.task "qkv_proj" forward matmul per_micro_batch
          requires @matmul group @forward
          demand = <compute = 786432, memory = 24768, network = 0>
          ops = 786432 reads {...} writes {...} stashed {...}
      pplan.ledger per_micro_batch forward matmul invocations = 1
          ops = 786432 read = 12480 write = 12288 message = 0 stash = 4096
      pplan.objective minimize_step_latency
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    StrAttr:$source_digest,
    Transformer_ModelAttr:$model,
    OptionalAttr<Transformer_TrainingAttr>:$training,
    OptionalAttr<Transformer_InferenceAttr>:$inference,
    OptionalAttr<I64Attr>:$decode_context,
    Transformer_MappingAttr:$mapping
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `source_digest` `=` $source_digest `model` `=` $model
    (`training` `=` $training^)? (`inference` `=` $inference^)?
    (`decode_context` `=` $decode_context^)? `mapping` `=` $mapping
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def PPlan_CapabilityOp : PPlan_PlanMember<"capability", [Symbol]> {
  let summary = "a capability the plan requires of its executor";
  let description = [{
    Declares that some task of the plan needs `kind`: matrix multiply,
    vector-elementwise arithmetic, or a collective of a given kind. It names
    no implementation.

    ```mlir
    pplan.capability @all_reduce collective_all_reduce
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Workload_CapabilityKindProp:$kind);
  let assemblyFormat = "$sym_name $kind attr-dict";
  let hasVerifier = 1;
}

def PPlan_GroupOp : PPlan_PlanMember<"group", [Symbol]> {
  let summary = "a logical concurrency group of tasks";
  let description = [{
    Tasks of a `serial` group run one after another in plan order; tasks of
    a `parallel` group may run together. Today's plans are conservative: one
    serial group per stage (forward, recompute, backward, per-iteration).

    ```mlir
    pplan.group @forward serial
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Workload_ConcurrencyKindProp:$concurrency);
  let assemblyFormat = "$sym_name $concurrency attr-dict";
  let hasVerifier = 1;
}

def PPlan_TaskOp : PPlan_PlanMember<"task", [
    MemoryEffects<[MemWrite<PPlan_WorkResource>]>,
    DeclareOpInterfaceMethods<WorkFactsOpInterface>]> {
  let summary = "a unit of exact work with its requirements";
  let description = [{
    Keeps the exact facts of one distributed task (operations, bytes read,
    written and stashed per logical tensor, and for a collective its kind,
    reduction, participants and message bytes), the capability it requires,
    the concurrency group it belongs to and its abstract resource demand.
    Its location carries the lineage of the distributed task.

    Rules:
    1. `pplan_task_c1` (resource coverage): `requires` names a
       `pplan.capability` that covers the task — `matmul` for matmul work,
       `vector_elementwise` for vector work, the collective capability of
       the same kind for a collective;
    2. `pplan_task_c2`: `group` names a `pplan.group`;
    3. `pplan_task_c3`: `demand` is what the facts imply: compute = `ops`,
       memory = bytes read + written, network = the collective's per-rank
       lower bound (0 for other work);
    4. `pplan_task_c4`: operations and byte counts are non-negative;
       `collective` is present exactly for collective work, with
       `participants > 0`, non-negative `message` divisible by
       `participants`, and a reduction unless it is an all-gather;
    5. `pplan_task_c5`: dependencies are tokens of tasks of the same plan;
    6. `pplan_task_c6`: only forward work stashes;
    7. `pplan_task_c7`: a collective's read and write bytes fit its message,
       as `dist_collective_c6`.
  }];
  let arguments = (ins
    StrAttr:$primitive,
    Workload_PhaseProp:$phase,
    Workload_EngineProp:$engine,
    Workload_CadenceProp:$cadence,
    FlatSymbolRefAttr:$capability,
    FlatSymbolRefAttr:$group,
    PPlan_DemandAttr:$demand,
    OptionalAttr<PPlan_CollectiveAttr>:$collective,
    Workload_I64Prop:$ops,
    Blueprint_TensorBytesProp:$reads,
    Blueprint_TensorBytesProp:$writes,
    Blueprint_TensorBytesProp:$stashed,
    Variadic<PPlan_TokenType>:$deps
  );
  let results = (outs PPlan_TokenType:$done);
  let assemblyFormat = [{
    $primitive prop-dict `` $phase $engine
    $cadence `requires` $capability `group` $group
    `demand` `=` $demand (`collective` `=` $collective^)?
    `ops` `=` $ops `reads` $reads
    `writes` $writes
    `stashed` $stashed
    (`after` `(` $deps^ `)`)? attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

def PPlan_BufferOp : PPlan_PlanMember<"buffer", [
    Symbol, AttrSizedOperandSegments]> {
  let summary = "a buffer with its size, producer and consumers";
  let description = [{
    A logical buffer of `bytes` per rank. Its symbol name is the logical
    tensor it holds; `producer` is the task writing it (none for a plan
    input) and `consumers` the tasks reading it. Today only `boundary`
    buffers are derived (the block's inputs and outputs); `persistent`,
    `stash`, `temporary` and `communication` buffers name the lifetimes
    later plans will materialize.

    Rules (`pplan_buffer_c*`):
    1. `bytes` is non-negative;
    2. the producer is a task of the plan that writes the buffer;
    3. every consumer is a task of the plan that reads the buffer;
    4. a buffer has a producer or at least one consumer.

    ```mlir
    pplan.buffer @x boundary bytes = 4096 consumers(%0, %11)
    pplan.buffer @y boundary bytes = 4096 producer(%20)
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Workload_BufferKindProp:$kind,
    Workload_I64Prop:$bytes,
    Optional<PPlan_TokenType>:$producer,
    Variadic<PPlan_TokenType>:$consumers
  );
  let assemblyFormat = [{
    $sym_name prop-dict `` $kind `bytes` `=` $bytes
    (`producer` `(` $producer^ `)`)? (`consumers` `(` $consumers^ `)`)?
    attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

def PPlan_ObjectiveOp : PPlan_PlanMember<"objective"> {
  let summary = "an objective the plan declares as intent";
  let description = [{
    What a scheduler of this plan should optimize. Declared intent only:
    no target-specific weight or deadline.

    ```mlir
    pplan.objective minimize_peak_memory
    ```
  }];
  let arguments = (ins Workload_ObjectiveKindProp:$kind);
  let assemblyFormat = "$kind attr-dict";
  let hasVerifier = 1;
}

def PPlan_LedgerOp : PPlan_PlanMember<"ledger"> {
  let summary = "the distributed IR's totals, for conservation";
  let description = [{
    The totals of the distributed program the plan comes from, for one
    (cadence, phase, engine): invocations, operations, bytes read, written
    and stashed, and logical message bytes. Rule `pplan_plan_c2` keeps the
    plan's tasks equal to them.

    ```mlir
    pplan.ledger per_micro_batch forward matmul invocations = 6
        ops = 3407872 read = 106944 write = 57344 message = 0 stash = 40960
    ```
  }];
  let arguments = (ins
    Workload_CadenceProp:$cadence,
    Workload_PhaseProp:$phase,
    Workload_EngineProp:$engine,
    Workload_I64Prop:$invocations,
    Workload_I64Prop:$ops,
    Workload_I64Prop:$read,
    Workload_I64Prop:$write,
    Workload_I64Prop:$message,
    Workload_I64Prop:$stash
  );
  let assemblyFormat = [{
    $cadence prop-dict `` $phase
    $engine `invocations` `=` $invocations `ops` `=` $ops
    `read` `=` $read `write` `=` $write `message` `=` $message
    `stash` `=` $stash attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

#endif // BLUEPRINT_PPLAN_OPS
