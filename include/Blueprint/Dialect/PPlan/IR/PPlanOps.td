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
    groups, tasks, buffers, objectives and the conservation ledger. From a
    whole-run program it holds, instead of tasks and boundary buffers,
    templates and stages (the compact form of docs/WholeRun.md) and one
    ledger row per stage, phase and engine.

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
       `inference`, with a `decode_context` as for `dist.program` (none in
       a whole-run inference plan);
    5. `pplan_plan_c4`: the contracts compose, as `dist_program_c4`;
    6. `pplan_plan_c5`: a whole-run plan (one with templates or stages,
       from a whole-run `dist.program`, docs/WholeRun.md) describes a
       training or inference run and holds capabilities, groups, templates, stages,
       objectives and ledger rows only, one stage per pipeline stage, and
       every ledger row names a stage; a block-scope plan has no row with a
       stage;
    7. `pplan_plan_c6`: every `pplan.send` has exactly one `pplan.recv` of
       the same message (what, micro-batch, chunk) with the same bytes, and
       the reverse;
    8. `pplan_plan_c7` (stage conservation): for every stage and (phase,
       engine), the stage's ledger row equals the stage's totals: each
       instance's template tasks times its repetitions plus the stage-level
       tasks; every (stage, phase, engine) with work has exactly one row,
       of cadence `per_iteration` (`per_generation` in an inference run:
       the stage's totals over the whole generation);
    9. `pplan_plan_c8`: each stage's block instances of one pass of one
       micro-batch through one chunk (a generation step, a chunk's step)
       run every block of the chunk: one instance, or one per segment of
       one block kind, each continuing the previous one's blocks in the
       pass's direction (as `dist_program_c8`, docs/WholeRun.md "Block
       kinds").

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
  let extraClassDeclaration = [{
    /// Whether the plan is of a whole training iteration (it holds
    /// templates or stages, docs/WholeRun.md) rather than of one block.
    bool isWholeRun();
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

def PPlan_TaskOp : PPlan_Op<"task", [
    ParentOneOf<["PlanOp", "TemplateOp", "StageOp"]>,
    MemoryEffects<[MemWrite<PPlan_WorkResource>]>,
    DeclareOpInterfaceMethods<WorkFactsOpInterface, ["getGemmCover"]>]> {
  let summary = "a unit of exact work with its requirements";
  let description = [{
    Keeps the exact facts of one distributed task (operations, bytes read,
    written and stashed per logical tensor, and for a collective its kind,
    reduction, participants and message bytes), the capability it requires,
    the concurrency group it belongs to and its abstract resource demand.
    Its location carries the lineage of the distributed task. In a
    whole-run plan a task is the work of a `pplan.template` (run by every
    `pplan.instance` of it) or stage-level work of a `pplan.stage` (a
    data-parallel reduction, the sharded optimizer step); a stage-level
    collective keeps the mesh `axis` and `group` of its `dist` collective.

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
    5. `pplan_task_c5`: dependencies are tokens of tasks of the same plan
       (of the same template, or of ops of the same stage);
    6. `pplan_task_c6`: only forward work stashes;
    7. `pplan_task_c7`: a collective's read and write bytes fit its message,
       as `dist_collective_c6`;
    8. `pplan_task_c8` (mesh axis): a collective task that is a direct child
       of a `pplan.stage` names the mesh `axis` it runs along (`tp`, `pp`,
       `dp` or `cp`; `edp` and `ep` for `dp` at ep > 1; the first of the
       `dist` collective's `axes`), the `inner_axes` it also spans (the
       rest of them: `cp` for the data-parallel gradient reduction at
       cp > 1, `ep` for the dense one at ep > 1) and, for a subset of one
       axis, its `group` of positions (as `dist_collective_c7`); a
       collective of a template or of a block-scope plan spans `tp` and
       names no axis, except the key/value exchange, which names `axis
       "cp"`, and at ep > 1 the expert dispatcher's collectives, which
       name `axis "ep"` (the token counts' all-gather with `inner_axes
       ["tp"]`); no other task carries `axis`, `inner_axes` or `group`; a
       `group` comes only with an `axis` and without `inner_axes`, and
       names at least two distinct positions of the axis, `0 .. size - 1`
       under the plan's mapping, in increasing order (a `pp` group holds the
       stage's own index); inner axes are distinct mesh axes other than
       `axis`; the collective's `participants` are the group's positions
       (with a group) or the product of its axes' sizes (without);
    9. `pplan_task_c9` (GEMM shape): `gemm`, when present, lists the GEMMs
       of a matmul task as `[batch, M, N, K, ...]`, as `dist_task_c2`:
       positive batch, non-negative extents, `ops` = the sum of
       2 batch M N K; only matmul tasks carry it. A fused task (with
       `implementation`, c10) lists the GEMMs its kernel executes and its
       `ops` also count the vector work between them, so for it, and only
       for it, the sum is at most `ops`; every other matmul task's GEMMs
       make exactly its `ops`. The estimate's tile model (docs/Estimate.md)
       reads it and holds its tasks to the same clause: it costs
       `ops` minus the sum (the vector work) only on a fused task.
    10. `pplan_task_c10` (implementation): `implementation` and `fuses` come
        together; a task with them is the fused task of an implementation
        transformation (`--apply-implementation`, docs/Estimate.md
        "Implementation transformations"): `implementation` names a known
        transformation, `fuses` lists at least one `#pplan.fused_work` (the
        semantic work of each task it replaced), each of the task's phase
        with non-negative figures and of a primitive in the
        transformation's pattern (an attention-core task for
        `flash-attention`; a row-parallel tail's bias add, hidden dropout
        or residual add for `fused-bias-dropout-add`; an AdamW step
        (`adamw_step`, `edge_adamw_step`) for `megatron-float16-optimizer`,
        which executes more operations than it replaces (the gradient norm,
        the unscale); `fused-softmax` and
        `fused-bias-gelu` fuse none), the task executes at least the fused work's operations
        (fusion removes none), and the task is no collective; a
        transformation that adds kernels (`megatron-unfused-attention-glue`:
        the QKV bias add after its GEMM, the context layer's permute copy,
        the Q/K/V gradients' concatenation and the alpha scalings of QK^T's
        operand gradients, Megatron-LM cfd2e21 mpu/layers.py 237-239,
        model/transformer.py 301 and 247-251, mpu/utils.py 46) instead has
        an empty `fuses` (`fuses []`, no semantic work: conservation counts
        nothing for it), a vector engine and a primitive that is one of the
        kernels it adds (`workload::isAddedBy`: `qkv_bias_add`,
        `context_permute_copy`, `qkv_grad_concat`, or
        `<tensor>_alpha_scale` of the one tensor it writes), and only it
        has an empty `fuses`. The
        task's own `ops`, `reads`, `writes` and `stashed` are what the fused
        kernel executes; conservation (`pplan_plan_c2`,
        `--verify-conservation`) counts its `fuses` instead.

    ```mlir
    %12 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration
        requires @collective_all_reduce group @stage_1 demand = <...>
        collective = <kind = all_reduce, reduction = sum, participants = 2,
                      message = 433152> axis "dp" ops = ...
    %13 = pplan.task "embedding_grad_sync" weight_grad collective
        per_iteration requires @collective_all_reduce group @stage_1
        demand = <...> collective = <...> axis "pp" group [0, 3] ops = ...
    %14 = pplan.task "flash_attention" forward matmul per_micro_batch
        requires @matmul group @forward demand = <...>
        implementation "flash-attention" fuses [#pplan.fused_work<
        primitive = "qk_matmul", phase = forward, engine = matmul, ...>, ...]
        ops = ...
    ```
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
    OptionalAttr<StrAttr>:$axis,
    OptionalAttr<DenseI64ArrayAttr>:$axis_group,
    Workload_I64Prop:$ops,
    Blueprint_TensorBytesProp:$reads,
    Blueprint_TensorBytesProp:$writes,
    Blueprint_TensorBytesProp:$stashed,
    Variadic<PPlan_TokenType>:$deps,
    OptionalAttr<StrArrayAttr>:$inner_axes,
    OptionalAttr<DenseI64ArrayAttr>:$gemm,
    OptionalAttr<StrAttr>:$implementation,
    OptionalAttr<TypedArrayAttrBase<PPlan_FusedWorkAttr,
                                    "the semantic work of fused tasks">>:$fuses,
    OptionalAttr<I64Attr>:$ready_blocks
  );
  let results = (outs PPlan_TokenType:$done);
  let assemblyFormat = [{
    $primitive prop-dict `` $phase $engine
    $cadence `requires` $capability `group` $group
    `demand` `=` $demand (`collective` `=` $collective^)?
    (`axis` $axis^)? (`inner_axes` $inner_axes^)? (`group` $axis_group^)?
    (`implementation` $implementation^)? (`fuses` $fuses^)?
    `ops` `=` $ops (`gemm` `=` $gemm^)? `reads` $reads
    `writes` $writes
    `stashed` $stashed
    (`ready_blocks` `=` $ready_blocks^)?
    (`after` `(` $deps^ `)`)? attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat # [{
    /// The semantic work of a fused task (`fuses`, pplan_task_c10), one
    /// entry per task it replaced; empty for any other task.
    ::llvm::SmallVector<::blueprint::workload::InvocationFigures>
    getFusedFigures();
  }];
  let hasVerifier = 1;
}

def PPlan_BufferOp : PPlan_Op<"buffer", [
    ParentOneOf<["PlanOp", "StageOp"]>, Symbol, AttrSizedOperandSegments]> {
  let summary = "a buffer with its size, producer, consumers and lifetime";
  let description = [{
    A logical buffer of `bytes` per rank. Its symbol name is the logical
    tensor it holds; `producer` is the op writing it (none for a plan input
    or for persistent state) and `consumers` the ops reading it.

    A block-scope plan derives `boundary` buffers (the block's inputs and
    outputs) at plan level, with no cause and no lifetime: its tasks are
    the producer and consumers. A whole-run plan holds its buffers in the
    `pplan.stage`s, one per buffer of one rank of the stage, each with the
    `cause` it exists for and its lifetime `live [start, end]`: the buffer
    is live at every position from `start` to `end`, both included. A
    stage's positions are the indices, in order and from 0, of its ops
    that are not buffers (instances, sends, receives, stage-level tasks);
    the producer and consumers are ops of the stage. Each cause belongs to
    one kind:

    | kind | causes |
    |---|---|
    | `persistent` | `weights`, `gradients`, `optimizer_state` |
    | `stash` | `block_activations`, `edge_activations`, `weight_grad_inputs`, `kv_cache` |
    | `temporary` | `working_set` |
    | `communication` | `pipeline_send`, `pipeline_receive`, `gathered_message`, `gradient_bucket`, `gathered_parameters` |

    A `persistent` buffer lives over the whole stage and has no producer or
    consumers; every other buffer of a stage lives from its producer to
    its last consumer.

    A pipeline message buffer (`pipeline_send` or `pipeline_receive`)
    holds one pipeline message on one rank of the stage. Its symbol names
    the message (`send_<what>_mb<M>_chunk<C>` or `recv_...`). Outgoing
    (`pipeline_send`): the producer is the block instance whose pass makes
    the message (a forward instance for an activation, a backward or
    input-gradient instance for an activation gradient) of the message's
    micro-batch and chunk, the one consumer the `pplan.send`. Incoming
    (`pipeline_receive`): the producer is the `pplan.recv`, the consumers
    the block instances of the receiving chunk (chunk + 1 for an
    activation, chunk - 1 for a gradient) and the same micro-batch that
    read it.

    Rules (`pplan_buffer_c*`):
    1. `pplan_buffer_c1`: `bytes` is non-negative;
    2. `pplan_buffer_c2`: the producer of a plan-level buffer is a task of
       the plan that writes the buffer; of a stage's buffer, an op of the
       same stage;
    3. `pplan_buffer_c3`: every consumer of a plan-level buffer is a task
       of the plan that reads the buffer; of a stage's buffer, an op of the
       same stage;
    4. `pplan_buffer_c4`: a plan-level buffer has a producer or at least
       one consumer;
    5. `pplan_buffer_c5`: a `communication` buffer is in a stage; a
       pipeline message buffer has exactly one message end: a
       `pipeline_send` buffer a `pplan.send` consumer fed by one block
       instance producer, a `pipeline_receive` buffer a `pplan.recv`
       producer feeding block instances (or, for a message scattered over
       the TP ranks, the `pipeline_gather` task that reassembles it into a
       `gathered_message` buffer); the instances run the pass and
       micro-batch of the message on the chunk that makes (sends) or reads
       (receives) it (a token of step t is made by the last chunk's prefill
       or decode of step t and read by the first chunk's decode of step
       t + 1), and `bytes` are the message's bytes;
    6. `pplan_buffer_c6`: a buffer in a stage has a `cause` and a `live`
       interval, and the cause belongs to the buffer's kind (the table
       above); a stage holds buffers of every kind but `boundary`; a
       plan-level buffer has neither a cause nor a lifetime;
    7. `pplan_buffer_c7`: `live` is two positions `[start, end]` of the
       stage with `0 <= start <= end < positions`;
    8. `pplan_buffer_c8`: a `persistent` buffer has no producer and no
       consumers and lives over the whole stage, `[0, positions - 1]`;
       every other buffer of a stage has a producer, whose position is
       `start`;
    9. `pplan_buffer_c9`: no consumer runs before the producer;
    10. `pplan_buffer_c10`: `end` is the position of the last consumer (of
        the producer when there is none): a buffer is neither freed before
        its last consumer nor outlives it.

    Rules 7 to 10 are checked by the stage, which numbers its positions
    once.

    ```mlir
    pplan.buffer @x boundary bytes = 4096 consumers(%0, %11)
    pplan.buffer @y boundary bytes = 4096 producer(%20)
    pplan.stage 0 group @stage_0 {
      %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2]
      %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 8192
          after(%0)
      ...
      pplan.buffer @weights persistent cause weights bytes = 65536
          live [0, 9]
      pplan.buffer @send_activation_mb0_chunk0 communication
          cause pipeline_send bytes = 8192 live [0, 1] producer(%0)
          consumers(%1)
      pplan.buffer @stash_mb0_chunk0 stash cause block_activations
          bytes = 8192 live [0, 7] producer(%0) consumers(%7)
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Workload_BufferKindProp:$kind,
    OptionalProp<Workload_BufferCauseProp>:$cause,
    Workload_I64Prop:$bytes,
    OptionalAttr<DenseI64ArrayAttr>:$live,
    Optional<PPlan_TokenType>:$producer,
    Variadic<PPlan_TokenType>:$consumers
  );
  let assemblyFormat = [{
    $sym_name prop-dict `` $kind (`cause` $cause^)? `bytes` `=` $bytes
    (`live` $live^)?
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

    In a whole-run plan every row names a `stage`: the per-rank totals of
    that pipeline stage over the whole iteration (cadence `per_iteration`),
    as `--work-summary` reads them off the `dist.program`
    (`summarizeStages`). Rule `pplan_plan_c7` keeps the stage's instances
    times their templates' tasks, plus its stage-level tasks, equal to them.

    ```mlir
    pplan.ledger per_micro_batch forward matmul invocations = 6
        ops = 3407872 read = 106944 write = 57344 message = 0 stash = 40960
    pplan.ledger stage 1 per_iteration forward matmul invocations = 28
        ops = ... read = ... write = ... message = 0 stash = ...
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
    Workload_I64Prop:$stash,
    OptionalAttr<I64Attr>:$stage
  );
  let assemblyFormat = [{
    (`stage` $stage^)? $cadence prop-dict `` $phase
    $engine `invocations` `=` $invocations `ops` `=` $ops
    `read` `=` $read `write` `=` $write `message` `=` $message
    `stash` `=` $stash attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The whole run (docs/WholeRun.md): templates, stages, instances, transfers
//===----------------------------------------------------------------------===//

def PPlan_TemplateOp : PPlan_PlanMember<"template", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "the tasks of one block or model edge in one pass, once";
  let description = [{
    The plan of a `dist.template`: the tasks one rank runs for one decoder
    block (`block`), the embeddings (`embedding`) or the final norm, LM
    head and loss (`head`) in one pass of one micro-batch (`forward`,
    `backward`, `input_grad`, `weight_grad`) or once per iteration
    (`step`), or in an inference run the prefill (`prefill`) or one decode
    step at context length `context_length` (`decode`, printed `context L`). Its tasks have their capability, concurrency group and
    demand as in a block-scope plan, and depend on one another in template
    order; every `pplan.instance` of a stage runs them.

    Rules: `pplan_template_c1`: the template holds `pplan.task` ops only
    and at least one, each of the template's cadence (`per_iteration` for
    `step`, `per_generation` for `prefill`, `per_decode_step` for
    `decode`, `per_micro_batch` otherwise); `pplan_template_c2`: a `decode`
    template states its positive `context_length`, any other template none.

    ```mlir
    pplan.template @block_forward block forward {
      %0 = pplan.task "norm1" forward vector per_micro_batch
          requires @vector_elementwise group @forward demand = <...> ...
      ...
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Workload_ModelPartProp:$part,
    Workload_PipelinePassProp:$pass,
    OptionalAttr<I64Attr>:$context_length
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name prop-dict `` $part $pass (`context` $context_length^)?
    attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat # [{
    /// The cadence of the template's tasks: per iteration for `step`, per
    /// generation for `prefill`, per decode step for `decode`.
    ::blueprint::workload::Cadence getCadence();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def PPlan_StageOp : PPlan_PlanMember<"stage", [
    SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "what every rank of one pipeline stage runs, in order";
  let description = [{
    The plan of a `dist.stage`: the instances of templates, the
    point-to-point transfers of pipeline messages, the stage-level tasks
    (data-parallel and tied-embedding collectives, the sharded optimizer
    step, each naming its mesh axis) and the buffers, with their
    lifetimes, of the ranks whose `pp` coordinate is `index`. The stage is serial: its ops run one after another in
    order, which its concurrency group `group` (a `serial` group) states;
    tokens (`after`) are the dependencies within the stage, and a receive
    depends on the send of the same message in another stage. An
    instance's template tasks keep their own groups. The stage's
    positions are the indices, in order and from 0, of its ops that are
    not buffers; a buffer's lifetime `live [start, end]` is an interval of
    them (`pplan_buffer_c7` .. `c10`, checked here, which numbers the
    positions once). The stage is the symbol table of its buffers; the
    templates, groups and capabilities its ops name are the plan's,
    resolved in the plan.

    Rules (`pplan_stage_c*`):
    1. `pplan_stage_c1`: `index` is a pipeline stage, 0 <= index < pp;
    2. `pplan_stage_c2`: `group` names a `serial` `pplan.group` of the
       plan, and every stage-level task joins it;
    3. `pplan_stage_c3`: the stage holds only instances, sends, receives,
       tasks and buffers;
    4. `pplan_stage_c4`: a task with `ready_blocks = k` (a data-parallel
       gradient bucket issued beside the backward under the mapping's
       `overlap_dp_grad_reduce`: it waits for only the first k blocks of
       the instance its last `after` token names) is a data-parallel
       gradient reduction (a collective `dp_grad_allreduce` or
       `dp_grad_reduce_scatter`) with at least one `after` token, the last
       a backward or weight-gradient block instance of the stage running
       more than k >= 1 blocks; `ready_blocks` stands only in a stage,
       never on a template's task (checked by the task).

    ```mlir
    pplan.stage 1 group @stage_1 {
      %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
      %1 = pplan.instance @block_forward chunk 1 micro_batch 0
          blocks [2, 4] after(%0)
      ...
      pplan.buffer @recv_activation_mb0_chunk0 communication
          cause pipeline_receive bytes = 8192 live [0, 1] producer(%0)
          consumers(%1)
    }
    ```
  }];
  let arguments = (ins Workload_I64Prop:$index, FlatSymbolRefAttr:$group);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "prop-dict `` $index `group` $group attr-dict-with-keyword $body";
  let extraClassDeclaration = Blueprint_PropertiesInFormat # [{
    /// The stage's per-rank totals over the iteration: every instance's
    /// template tasks times its repetitions, plus the stage-level tasks
    /// (the pplan mirror of blueprint::summarizeStages). An overflow or a
    /// missing template is an error naming the op.
    ::llvm::Expected<::blueprint::workload::StageTotals> summarizeWork();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def PPlan_InstanceOp : PPlan_Op<"instance", [
    HasParent<"StageOp">, MemoryEffects<[MemWrite<PPlan_WorkResource>]>]> {
  let summary = "a stage runs a template for a micro-batch and blocks";
  let description = [{
    Runs the tasks of `template` once for each block of `blocks` (the
    half-open range [first, end) of model block indices, for a `block`
    template; absent for an edge template, which runs once), for
    micro-batch `micro_batch` (absent for a `step` template) of model chunk
    `chunk`, after the ops producing `deps`.

    Rules (`pplan_instance_c*`, as `dist_instance_c1..c4`):
    1. `pplan_instance_c1`: `template` names a `pplan.template` of the
       plan;
    2. `pplan_instance_c2`: `micro_batch` is given exactly for a template
       that is not a `step`, and is a micro-batch of the iteration (in an
       inference run, a step of the generation);
    3. `pplan_instance_c3`: `chunk` is a model chunk of the enclosing
       stage; a `block` instance's `blocks` are that chunk's blocks under
       the mapping's layout, or, when they mix dense and MoE blocks, one
       of their maximal segments of one block kind (docs/WholeRun.md,
       "Block kinds"); an `embedding`
       instance runs on the first model chunk and a `head` instance on the
       last, without `blocks`;
    4. `pplan_instance_c4`: every dependency is the token of an op of the
       same stage.

    ```mlir
    %3 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4]
        after(%2)
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$template_name,
    Workload_I64Prop:$chunk,
    OptionalAttr<I64Attr>:$micro_batch,
    OptionalAttr<DenseI64ArrayAttr>:$blocks,
    Variadic<PPlan_TokenType>:$deps
  );
  let results = (outs PPlan_TokenType:$done);
  let assemblyFormat = [{
    $template_name prop-dict `` `chunk` $chunk
    (`micro_batch` $micro_batch^)? (`blocks` $blocks^)?
    (`after` `(` $deps^ `)`)? attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat # [{
    /// How many times the template's tasks run: the blocks of the range,
    /// or 1 for an edge template.
    int64_t getRepetitions();
    /// The template it runs, if `template` names one.
    TemplateOp lookupTemplate();
  }];
  let hasVerifier = 1;
}

class PPlan_TransferOp<string mnemonic, string peer>
    : PPlan_Op<mnemonic, [HasParent<"StageOp">,
                          MemoryEffects<[MemWrite<PPlan_WorkResource>]>]> {
  let arguments = (ins
    Workload_PipelineMessageProp:$message,
    Workload_I64Prop:$micro_batch,
    Workload_I64Prop:$chunk,
    Workload_I64Prop:$peer,
    Workload_I64Prop:$bytes,
    Variadic<PPlan_TokenType>:$deps
  );
  let results = (outs PPlan_TokenType:$done);
  let assemblyFormat = !strconcat([{
    prop-dict `` $message `micro_batch` $micro_batch `chunk` $chunk }],
    "`" # peer # "`", [{ $peer `bytes` `=` $bytes
    (`after` `(` $deps^ `)`)? attr-dict
  }]);
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

defvar PPlan_TransferRules = [{
    A point-to-point transfer of one pipeline message, named by what it
    carries (`activation` forward, `activation_grad` backward, `token` the
    sampled token ids of an inference step, back to the first stage), its
    micro-batch (generation step) and the model chunk that sends it; `bytes` is what each
    rank of the sending stage sends to its counterpart (same TP and DP
    coordinates) on the peer stage. The op itself is the requirement of a
    point-to-point transfer capability (no `pplan.capability` kind names
    one); its abstract demand is `bytes` of network, no compute.

    Rules (`pplan_transfer_c*`, as `dist_message_c1..c4`):
    1. `pplan_transfer_c1`: `micro_batch` is a micro-batch of the iteration
       and `chunk` a model chunk that has a neighbour in the message's
       direction (an activation leaves chunk g for chunk g + 1, a gradient
       for chunk g - 1, a token the last chunk for the first), held by the
       sending stage; tokens only in an inference run at pp > 1, for steps
       0 .. generated_tokens - 2, and no activation gradient in one;
    2. `pplan_transfer_c2`: the peer stage holds the other end (the
       neighbour for a send, the chunk for a receive);
    3. `pplan_transfer_c3`: `bytes` is non-negative;
    4. `pplan_transfer_c4`: every dependency is the token of an op of the
       same stage.
    The plan pairs them (`pplan_plan_c6`).
}];

def PPlan_SendOp : PPlan_TransferOp<"send", "to"> {
  let summary = "transfer a pipeline message to another stage";
  let description = [{
    The stage sends the activation (or activation gradient) of one
    micro-batch leaving model chunk `chunk` to stage `to`, asynchronously.
  }] # PPlan_TransferRules # [{

    ```mlir
    %2 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 8192
        after(%1)
    ```
  }];
}

def PPlan_RecvOp : PPlan_TransferOp<"recv", "from"> {
  let summary = "receive a pipeline message from another stage";
  let description = [{
    The stage waits for the activation (or activation gradient) of one
    micro-batch that model chunk `chunk` of stage `from` sends.
  }] # PPlan_TransferRules # [{

    ```mlir
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    ```
  }];
}

#endif // BLUEPRINT_PPLAN_OPS
