//===- DistOps.td - DistributedTaskIR operations ----------------*- tablegen -*-===//

#ifndef BLUEPRINT_DIST_OPS
#define BLUEPRINT_DIST_OPS

include "Blueprint/Dialect/Dist/IR/DistAttrs.td"
include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.td"
include "Blueprint/Interfaces/WorkFactsInterface.td"
include "Blueprint/Support/AsmFormat.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

/// The abstract resource every piece of work writes: it keeps identical
/// tasks and collectives apart under CSE and alive under DCE.
def Dist_WorkResource : Resource<"::blueprint::dist::WorkResource">;

//===----------------------------------------------------------------------===//
// dist.program
//===----------------------------------------------------------------------===//

def Dist_ProgramOp : Dist_Op<"program", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "the distributed work of one ModelIR source";
  let description = [{
    Holds the logical mesh, boundary values and work derived from one
    `transformer.decoder_training` op, whose contracts it keeps (so
    `--verify-conservation` can re-derive the work and compare): today one decoder block for one
    micro-batch on every rank of the tensor-parallel mesh, plus the block's
    once-per-iteration work. Ops run in program order within each rank
    (conservative: forward, recompute, backward, then per-iteration work,
    serial within each stage) and the tokens make that order explicit.

    Rules:
    1. `dist_program_c1`: `source_digest` is `sha256:` followed by 64
       lowercase hexadecimal digits (the digest of the ModelIR op printed
       without locations);
    2. `dist_program_c2`: every mesh axis is named `tp`, `pp`, `dp`, `cp`,
       `edp` or `ep` and its size equals that degree of `mapping` (`edp` =
       dp / ep; so a collective over `cp` has `cp` participants,
       `dist_collective_c2`);
    3. `dist_program_c3`: the program carries exactly one workload contract,
       `training` or `inference`; a block-scope inference program has a
       `decode_context` exactly when its generation has decode steps, and it
       is one of their context lengths (the program holds the prefill and
       that decode step); a whole-run inference program (one with templates
       or stages) holds every step of the generation and has no
       `decode_context`;
    4. `dist_program_c4`: the contracts compose: every rule of the ModelIR
       op they came from holds (`decoder_training_c*` or
       `decoder_inference_c*`, reported under this label), so a program
       edited or written by hand cannot describe a run that could not be
       imported. It is checked before the decode context of `c3`, which
       computes with the lengths `decoder_inference_c8` bounds;
    5. `dist_program_c10`: at `ep > 1` no mesh names `dp`: the
       data-parallel ranks are the axes `edp` x `ep` (Megatron-Core's
       expert grid, `edp` = dp / ep); at `ep = 1` no mesh names `edp` or
       `ep`. Checked before `c2`. (`c5` .. `c9` are the whole-run rules,
       docs/WholeRun.md.)

    ```mlir
    dist.program @gpt source_digest = "sha256:0123...cdef"
        model = <...> training = <...>
        mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
                   tp_comm = all_reduce, recompute = none,
                   schedule = one_f_one_b> {
      dist.mesh @tp_mesh axes = ["tp"] shape = [4]
      ...
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

//===----------------------------------------------------------------------===//
// dist.mesh
//===----------------------------------------------------------------------===//

def Dist_MeshOp : Dist_Op<"mesh", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "a logical mesh of ranks with named axes";
  let description = [{
    As upstream `shard.grid`: `shape[i]` ranks along axis `axes[i]`; ranks
    are numbered 0 .. product(shape) - 1 in row-major order.

    Rules: `dist_mesh_c1`: `axes` and `shape` have the same, non-zero
    length; sizes are positive; axis names are unique.

    ```mlir
    dist.mesh @tp_mesh axes = ["tp"] shape = [8]
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    StrArrayAttr:$axes,
    DenseI64ArrayAttr:$shape
  );
  let assemblyFormat = "$sym_name `axes` `=` $axes `shape` `=` $shape attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of ranks (product of the shape; 0 if it overflows).
    int64_t getNumRanks();
    /// Size of the named axis, or std::nullopt.
    std::optional<int64_t> getAxisSize(::llvm::StringRef axis);
  }];
}

//===----------------------------------------------------------------------===//
// dist.boundary
//===----------------------------------------------------------------------===//

def Dist_BoundaryOp : Dist_Op<"boundary", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "a value crossing the program's boundary, with its sharding";
  let description = [{
    A logical tensor that enters or leaves the derived work: the block's
    input activation and incoming gradient, its parameters and optimizer
    state (inputs), its output activation, outgoing gradient and parameter
    gradients (outputs). The symbol name is the logical tensor name the
    tasks read or write; the type is the global (unsharded) tensor; the
    sharding says how ranks split it; `owners` (default: every rank of the
    mesh) says which ranks hold it.

    Rules:
    1. `dist_boundary_c1` (shard): the sharding's mesh resolves; it lists at
       most rank(type) dimensions; every axis exists in the mesh and is used
       once; each split dimension is divisible by the product of its axes'
       sizes;
    2. `dist_boundary_c2` (ownership): `owners` are distinct ranks of the
       mesh in increasing order;
    3. `dist_boundary_c3`: an output has a producer (`produced_by`) whose
       phase makes that role — `activation_out` by `forward` work,
       `activation_grad_out` by `activation_grad` work, `parameter_grad` by
       `weight_grad` work (so optimizer work can never pose as the producer
       of an activation) — and an input has none;
    4. `dist_boundary_c4` (references): some work op of the program reads an
       input, and the producer writes its output;
    5. `dist_boundary_c5`: the element type is a datatype of the work
       algebra (`f32`, `bf16`, `f16`, `f8E4M3FN`).

    ```mlir
    dist.boundary @x activation_in : tensor<4x2048x6144xbf16>
        sharding = <@tp_mesh, [[], ["tp"], []]>
    dist.boundary @y activation_out : tensor<4x2048x6144xbf16>
        sharding = <@tp_mesh, [[], ["tp"], []]> produced_by %t41
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Workload_BoundaryRoleProp:$role,
    TypeAttrOf<AnyStaticShapeTensor>:$type,
    Dist_ShardingAttr:$sharding,
    OptionalAttr<DenseI64ArrayAttr>:$owners,
    Optional<Dist_TokenType>:$producer
  );
  let assemblyFormat = [{
    $sym_name prop-dict `` $role `:` $type `sharding` `=` $sharding
    (`owners` `=` $owners^)? (`produced_by` $producer^)? attr-dict
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Work: tasks and collectives
//===----------------------------------------------------------------------===//

/// Arguments every piece of work has.
defvar Dist_WorkArguments = (ins
  StrAttr:$primitive,
  Workload_PhaseProp:$phase,
  Workload_CadenceProp:$cadence,
  FlatSymbolRefAttr:$mesh,
  OptionalAttr<DenseI64ArrayAttr>:$ranks,
  Workload_I64Prop:$ops,
  Blueprint_TensorBytesProp:$reads,
  Blueprint_TensorBytesProp:$writes,
  Blueprint_TensorBytesProp:$stashed,
  Variadic<Dist_TokenType>:$deps
);

class Dist_WorkOp<string mnemonic, list<Trait> traits = []>
    : Dist_Op<mnemonic, !listconcat(traits, [
        ParentOneOf<["ProgramOp", "TemplateOp", "StageOp", "InstanceOp"]>,
        MemoryEffects<[MemWrite<Dist_WorkResource>]>,
        DeclareOpInterfaceMethods<WorkFactsOpInterface>])> {
  let results = (outs Dist_TokenType:$done);
  let hasVerifier = 1;
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
}

def Dist_TaskOp : Dist_WorkOp<"task"> {
  let summary = "a matmul or vector primitive invocation on every rank";
  let description = [{
    One invocation of a primitive of the work algebra (docs/WorkAlgebra.md)
    on each rank of `mesh` (or of `ranks`): exact operations and the bytes
    it reads, writes and stashes for the backward pass, per logical tensor,
    on one rank. Runs after the work producing `deps`.

    Rules (shared by all work ops, `dist_work_c*`):
    1. `dist_work_c1`: `mesh` names a `dist.mesh` of the program;
    2. `dist_work_c2`: `ranks` are distinct ranks of the mesh in
       increasing order;
    3. `dist_work_c3`: `ops` and every byte count are non-negative 64-bit
       integers;
    4. `dist_work_c4`: every dependency is the token of a work op of the
       same program;
    5. `dist_work_c5`: only `forward` work stashes;
    and `dist_task_c1`: the engine is `matmul` or `vector` (collectives are
    their own ops); `dist_task_c2`: `gemm`, when present, lists the GEMMs
    of a matmul task as `[batch, M, N, K, ...]` (four extents per GEMM,
    C[M,N] = A[M,K] B[K,N] run `batch` times), with a positive batch,
    non-negative extents and `ops` = the sum of 2 batch M N K (checked
    arithmetic); only matmul tasks carry it. Every matmul the workload
    derives carries it; hand-written IR may leave it out.

    ```mlir
    %t1 = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh
        ops = 115964116992 gemm = [1, 4096, 2304, 6144]
        reads {w_qkv = 28311552, x_norm1 = 50331648}
        writes {qkv = 18874368} stashed {} after(%t0)
    ```
  }];
  let arguments = !con(Dist_WorkArguments, (ins Workload_EngineProp:$engine,
      OptionalAttr<DenseI64ArrayAttr>:$gemm));
  let assemblyFormat = [{
    $primitive prop-dict `` $phase $engine $cadence `on` $mesh (`ranks` $ranks^)?
    `ops` `=` $ops (`gemm` `=` $gemm^)? `reads` $reads
    `writes` $writes
    `stashed` $stashed
    (`after` `(` $deps^ `)`)? attr-dict
  }];
}

class Dist_CollectiveOp<string mnemonic, string kind, bit reduces>
    : Dist_WorkOp<mnemonic> {
  let arguments = !con(Dist_WorkArguments, (ins
    StrArrayAttr:$mesh_axes,
    OptionalAttr<DenseI64ArrayAttr>:$group,
    Workload_I64Prop:$participants,
    Workload_I64Prop:$message_bytes),
    !if(reduces, (ins Workload_ReductionKindProp:$reduction,
                      OptionalAttr<I64Attr>:$ready_blocks), (ins)),
    (ins UnitAttr:$point_to_point));
  let assemblyFormat = !strconcat([{
    $primitive prop-dict `` $phase $cadence `on` $mesh (`ranks` $ranks^)?
    `axes` `=` $mesh_axes (`group` $group^)? }], !if(reduces, "`reduction` `=` $reduction", ""), [{
    `participants` `=` $participants `message` `=` $message_bytes
    (`point_to_point` $point_to_point^)?
    `ops` `=` $ops `reads` $reads
    `writes` $writes
    `stashed` $stashed }], !if(reduces, "(`ready_blocks` `=` $ready_blocks^)?", ""), [{
    (`after` `(` $deps^ `)`)? attr-dict
  }]);
  let extraClassDeclaration = Blueprint_PropertiesInFormat # [{
    /// The collective kind this op performs.
    static constexpr ::blueprint::workload::CollectiveKind kKind =
        ::blueprint::workload::CollectiveKind::}] # kind # [{;
  }];
}

defvar Dist_CollectiveRules = [{
    `point_to_point` says the implementation issues the transfer as
    point-to-point sends and receives, not as one collective call (the
    context-parallel exchanges under `cp_comm = ring`); such a transfer pays
    no per-call latency (docs/Estimate.md, "Per-call latency").

    Rules (besides `dist_work_c1` .. `dist_work_c5`, `dist_collective_c*`):
    1. `dist_collective_c1`: `axes` is non-empty and names distinct axes of
       the mesh;
    2. `dist_collective_c2`: `participants` is the product of those axes'
       sizes, or, with a `group`, the number of its positions;
    3. `dist_collective_c3`: an all-reduce or reduce-scatter reduces
       (`sum` or `max`), never `none` (all-gather and all-to-all carry no
       reduction);
    4. `dist_collective_c4`: `message` (the logical, unsharded tensor in
       bytes) is non-negative and divisible by `participants`;
    5. `dist_collective_c5`: `ranks`, when given, run the collective in
       whole groups: with each rank, every rank that differs from it only
       along `axes` (its group of `participants` ranks) is listed;
    6. `dist_collective_c6`: the bytes each participant reads and writes
       fit the message M: an all-reduce reads and writes M, a
       reduce-scatter reads M and writes M / participants, an all-gather
       reads M / participants and writes M, an all-to-all reads M and
       writes M (each participant's whole buffer, of which it sends
       M / participants to every other participant);
    7. `dist_collective_c7`: a `group` (the positions along a single axis
       that take part, e.g. the first and last pipeline stage of a tied
       embedding) names distinct positions of that axis in increasing
       order, at least two;
    8. `dist_collective_c8`: a collective that does not reduce (all-gather,
       all-to-all) has `ops = 0`.
}];

def Dist_AllReduceOp : Dist_CollectiveOp<"all_reduce", "AllReduce", 1> {
  let summary = "all-reduce of a logical tensor over mesh axes";
  let description = [{
    Every participant contributes a partial tensor of `message` bytes and
    receives the reduced tensor (Megatron's f/g operators).
  }] # Dist_CollectiveRules # [{

    ```mlir
    %t5 = dist.all_reduce "out_proj_allreduce" forward per_micro_batch
        on @tp_mesh axes = ["tp"] reduction = sum participants = 8
        message = 100663296 ops = 44040192
        reads {attn_out_partial = 100663296} writes {attn_out = 100663296}
        stashed {} after(%t4)
    ```
  }];
}

def Dist_ReduceScatterOp
    : Dist_CollectiveOp<"reduce_scatter", "ReduceScatter", 1> {
  let summary = "reduce-scatter of a logical tensor over mesh axes";
  let description = [{
    Every participant contributes a partial tensor of `message` bytes and
    receives its 1/participants shard of the reduced tensor (sequence
    parallelism's replacement of the forward all-reduce).
  }] # Dist_CollectiveRules;
}

def Dist_AllGatherOp : Dist_CollectiveOp<"all_gather", "AllGather", 0> {
  let summary = "all-gather of a logical tensor over mesh axes";
  let description = [{
    Every participant contributes its shard and receives the whole tensor
    of `message` bytes. An all-gather does not reduce.
  }] # Dist_CollectiveRules;
}

def Dist_AllToAllOp : Dist_CollectiveOp<"all_to_all", "AllToAll", 0> {
  let summary = "all-to-all exchange of a logical tensor over mesh axes";
  let description = [{
    Every participant holds a buffer of `message` bytes cut into
    `participants` equal chunks and sends chunk j to participant j; it
    receives one chunk from each, a buffer of `message` bytes again
    (mixture-of-experts token dispatch and combine over expert-parallel
    ranks, Lepikhin et al. 2020, GShard Sec. 2.2). An all-to-all does not
    reduce. Like every work op it writes the work resource, so CSE and
    canonicalisation never fold two identical exchanges into one.
  }] # Dist_CollectiveRules # [{

    ```mlir
    %t7 = dist.all_to_all "moe_dispatch" forward per_micro_batch
        on @mesh axes = ["dp"] participants = 8 message = 67108864 ops = 0
        reads {routed = 67108864} writes {dispatched = 67108864}
        stashed {} after(%t6)
    ```
  }];
}

//===----------------------------------------------------------------------===//
// The whole run: templates, stages and their order
//===----------------------------------------------------------------------===//

def Dist_TemplateOp : Dist_Op<"template", [
    Symbol, HasParent<"ProgramOp">, IsolatedFromAbove, NoTerminator,
    SingleBlock, NoRegionArguments]> {
  let summary = "the work of one block or model edge in one pass, once";
  let description = [{
    The tasks and collectives one rank of a pipeline stage runs for one
    decoder block (`block`), the embeddings of the first stage
    (`embedding`) or the final norm, LM head and loss of the last (`head`),
    in one pass of one micro-batch (`forward`, `backward`, or under
    zero-bubble schedules `input_grad` and `weight_grad`) or once per
    iteration (`step`: gradient synchronisation and the optimizer step).
    In an inference run a block template is the prefill of the whole
    prompt (`prefill`, once per generation) or one decode step (`decode`)
    at the context length `context_length` (printed `context L`;
    docs/WholeRun.md, "Inference runs").
    A whole-run program states each such piece of work once; every
    `dist.instance` of a stage runs it, for one micro-batch (generation
    step) and a range of blocks (docs/WholeRun.md). The work ops inside say
    nothing of micro-batch or block: the instance does.

    Rules (`dist_template_c*`):
    1. `dist_template_c1`: the work has the template's cadence:
       `per_iteration` for `step`, `per_generation` for `prefill`,
       `per_decode_step` for `decode`, `per_micro_batch` otherwise;
    2. `dist_template_c2`: the work's phases belong to the pass: `forward`
       holds forward work; `backward` recompute, gradients and
       recommunication; `input_grad` the same without weight gradients;
       `weight_grad` weight gradients and the recommunication they need;
       `step` optimizer and weight-gradient synchronisation; `prefill`
       prefill work; `decode` decode work;
    3. `dist_template_c3`: the template holds only work ops and at least
       one;
    4. `dist_template_c4`: a `decode` template states its
       `context_length` (positive), any other template none. That its work is
       the decode step at that context is checked by the program
       (`dist_program_c9`) and by `--verify-conservation`.

    ```mlir
    dist.template @block_forward block forward {
      %0 = dist.task "norm1" forward vector per_micro_batch on @mesh
          ops = 229376 reads {x = 65536} writes {x_norm1 = 65536}
          stashed {x = 65536}
      ...
    }
    dist.template @block_decode_17 block decode context 17 {
      %0 = dist.task "norm1" decode vector per_decode_step on @mesh ...
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
    /// The cadence of the template's work: per iteration for `step`, per
    /// generation for `prefill`, per decode step for `decode`.
    ::blueprint::workload::Cadence getCadence();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Dist_StageOp : Dist_Op<"stage", [
    HasParent<"ProgramOp">, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "what every rank of one pipeline stage runs, in order";
  let description = [{
    The program of the ranks whose `pp` coordinate is `index`: instances of
    templates, pipeline sends and receives, and the data-parallel and
    tied-embedding collectives, in the order the stage runs them. Tokens
    (`after`) are the dependencies within the stage; a receive depends on
    its send through the message they share (micro-batch, model chunk and
    what it carries), which the program verifier matches
    (docs/WholeRun.md). The TP and DP coordinates are not cloned: every
    rank of the stage runs this program on its own shard.

    Rules: `dist_stage_c1`: `index` is a pipeline stage, 0 <= index < pp;
    `dist_stage_c2`: the stage holds only instances, sends, receives,
    tasks (stage-level work such as the sharded optimizer step) and
    collectives; `dist_stage_c3`: when the stage reduce-scatters its
    gradients (a sharded optimizer), its optimizer step covers exactly the
    rank's shard of them, one parameter per gradient element of its 1/dp
    of every bucket (at ep > 1: 1/dp of each dense bucket, 1/edp of each
    expert bucket, and at edp = 1, where the expert buckets have no
    reduction, the stage's whole expert parameters,
    `stageExpertParameters`); `dist_stage_c4`: a collective with `ready_blocks = k`
    (a data-parallel gradient bucket issued beside the backward under the
    mapping's `overlap_dp_grad_reduce`, which waits for only the first k
    blocks of the instance its last `after` token names) is a
    data-parallel gradient reduction (`dp_grad_allreduce` or
    `dp_grad_reduce_scatter`) with at least one `after` token, the last a
    backward or weight-gradient block instance of the stage running more
    than k >= 1 blocks; `ready_blocks` stands only in a stage, never on a
    template's collective (checked by the collective).

    ```mlir
    dist.stage 1 {
      %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 65536
      %1 = dist.instance @block_forward chunk 1 micro_batch 0
          blocks [2, 4] after(%0)
      ...
    }
    ```
  }];
  let arguments = (ins Workload_I64Prop:$index);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "prop-dict `` $index attr-dict-with-keyword $body";
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Dist_InstanceOp : Dist_Op<"instance", [
    HasParent<"StageOp">, MemoryEffects<[MemWrite<Dist_WorkResource>]>,
    NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a stage runs a template for a micro-batch and blocks";
  let description = [{
    Runs the work of `template` once for each block of `blocks` (the
    half-open range [first, end) of model block indices, for a `block`
    template; absent for an edge template, which runs once), for
    micro-batch `micro_batch` (absent for a `step` template) of model chunk
    `chunk`. In an inference run `micro_batch` is the generation step: 0
    for the prefill, t for the t-th decode step (context prompt_length +
    t). Runs after the work producing `deps`.

    Rules (`dist_instance_c*`):
    1. `dist_instance_c1`: `template` names a `dist.template` of the
       program;
    2. `dist_instance_c2`: `micro_batch` is given exactly for a template
       that is not a `step`, and is a micro-batch of the iteration (a step
       of the generation, 0 .. generated_tokens - 1);
    3. `dist_instance_c3`: `chunk` is a model chunk of the enclosing stage;
       a `block` instance's `blocks` are that chunk's blocks under the
       mapping's layout, or, when they mix dense and MoE blocks, one of
       their maximal segments of one block kind (`blockSegmentsOf`,
       docs/WholeRun.md, "Block kinds"); an `embedding` instance runs on
       the first model chunk and a `head` instance on the last, without
       `blocks`;
    4. `dist_instance_c4`: every dependency is the token of an op of the
       same stage;
    5. `dist_instance_c5`: an expanded instance (one with a body, as
       `--expand-whole-run` writes it) holds the template's work once per
       repetition, in order: the same ops with the same facts (primitive,
       phase, engine, cadence, operations, bytes, collective).

    ```mlir
    %3 = dist.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4]
        after(%2)
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$template_name,
    Workload_I64Prop:$chunk,
    OptionalAttr<I64Attr>:$micro_batch,
    OptionalAttr<DenseI64ArrayAttr>:$blocks,
    Variadic<Dist_TokenType>:$deps
  );
  let results = (outs Dist_TokenType:$done);
  let regions = (region MaxSizedRegion<1>:$body);
  let assemblyFormat = [{
    $template_name prop-dict `` `chunk` $chunk
    (`micro_batch` $micro_batch^)? (`blocks` $blocks^)?
    (`after` `(` $deps^ `)`)? attr-dict-with-keyword ($body^)?
  }];
  let extraClassDeclaration = Blueprint_PropertiesInFormat # [{
    /// How many times the template's work runs: the blocks of the range,
    /// or 1 for an edge template.
    int64_t getRepetitions();
    /// Whether the body holds the expanded work.
    bool isExpanded() { return !getBody().empty(); }
    /// The template it runs, if `template` names one of the program.
    TemplateOp lookupTemplate();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

class Dist_PipelineMessageOp<string mnemonic, string peer>
    : Dist_Op<mnemonic, [HasParent<"StageOp">,
                         MemoryEffects<[MemWrite<Dist_WorkResource>]>]> {
  let arguments = (ins
    Workload_PipelineMessageProp:$message,
    Workload_I64Prop:$micro_batch,
    Workload_I64Prop:$chunk,
    Workload_I64Prop:$peer,
    Workload_I64Prop:$bytes,
    Variadic<Dist_TokenType>:$deps
  );
  let results = (outs Dist_TokenType:$done);
  let assemblyFormat = !strconcat([{
    prop-dict `` $message `micro_batch` $micro_batch `chunk` $chunk }],
    "`" # peer # "`", [{ $peer `bytes` `=` $bytes
    (`after` `(` $deps^ `)`)? attr-dict
  }]);
  let extraClassDeclaration = Blueprint_PropertiesInFormat;
  let hasVerifier = 1;
}

defvar Dist_PipelineMessageRules = [{
    A message is named by what it carries (`activation` forward,
    `activation_grad` backward, or in an inference run `token`: the token
    ids step `micro_batch` sampled, which the last stage sends back to the
    first for the next step), its micro-batch (generation step) and the
    model chunk that sends it; `bytes` is what each rank of the sending
    stage sends to its counterpart (same TP and DP coordinates) of the peer
    stage.

    Rules (`dist_message_c*`):
    1. `dist_message_c1`: `micro_batch` is a micro-batch of the iteration
       (a step of the generation) and `chunk` a model chunk of the sending
       stage that has a neighbour in the message's direction (an activation
       leaves chunk g for chunk g + 1, a gradient for chunk g - 1); a
       `token` is sent only in an inference run with pp > 1, by the last
       model chunk to the first, for the steps 0 .. generated_tokens - 2
       (the last token is never fed back); an inference run sends no
       `activation_grad`;
    2. `dist_message_c2`: the peer stage holds that neighbour (for a
       `token`, the first model chunk's stage receives it from the last's);
    3. `dist_message_c3`: `bytes` is non-negative;
    4. `dist_message_c4`: every dependency is the token of an op of the
       same stage.
    The program pairs them: every send has exactly one receive of the same
    message with the same bytes, and the reverse (`dist_program_c6`).
}];

def Dist_SendOp : Dist_PipelineMessageOp<"send", "to"> {
  let summary = "send a pipeline message to the next or previous stage";
  let description = [{
    The stage sends the activation (or activation gradient, or sampled
    token ids) of one micro-batch leaving model chunk `chunk` to stage
    `to`. Sends are
    asynchronous: a send never waits for its receive.
  }] # Dist_PipelineMessageRules # [{

    ```mlir
    %2 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 65536
        after(%1)
    ```
  }];
}

def Dist_RecvOp : Dist_PipelineMessageOp<"recv", "from"> {
  let summary = "receive a pipeline message from another stage";
  let description = [{
    The stage waits for the activation (or activation gradient, or sampled
    token ids) of one micro-batch that model chunk `chunk` of stage `from`
    sends.
  }] # Dist_PipelineMessageRules # [{

    ```mlir
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 65536
    ```
  }];
}

#endif // BLUEPRINT_DIST_OPS
