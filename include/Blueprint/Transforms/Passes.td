//===- Passes.td - Blueprint passes -----------------------------*- tablegen -*-===//

#ifndef BLUEPRINT_TRANSFORMS_PASSES
#define BLUEPRINT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def DistributeTransformer
    : Pass<"distribute-transformer", "::mlir::ModuleOp"> {
  let summary = "Derive the exact distributed work of each ModelIR training op";
  let description = [{
    Replaces every `transformer.decoder_training` op by a `dist.program`
    holding the exact work of one decoder block (one micro-batch, every rank
    of the tensor-parallel mesh) and its once-per-iteration work, as derived
    by the work algebra (docs/WorkAlgebra.md): a `dist.mesh` for the TP axis,
    the block's boundary values with their sharding, one `dist.task` per
    matmul or vector invocation and one collective op per all-reduce,
    reduce-scatter or all-gather, in conservative stage order (forward,
    recompute, backward, per-iteration; serial within a stage, each op
    depending on the previous one). The block output is produced by the last
    forward op. The program records the SHA-256 digest of the source op
    printed without locations.

    Every op carries lineage in its location:
    `fused<#dist.lineage<model, primitive, phase, cause>>["<primitive>.<phase>",
    <source location>]`.

    Before:
    ```mlir
    transformer.decoder_training @gpt model = <...> training = <...>
        mapping = <world = 2, tp = 2, ...>
    ```
    After:
    ```mlir
    dist.program @gpt source_digest = "sha256:..." mapping = <...> {
      dist.mesh @tp_mesh axes = ["tp"] shape = [2]
      dist.boundary @x activation_in : tensor<...> sharding = <@tp_mesh, []>
      %0 = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ...
      ...
    }
    ```
    An overflowing count or an invalid source is a diagnostic at the source
    op ("derivation: ..."); the module is then left unchanged.

    With `scope=iteration` a training op becomes the program of one whole
    training iteration instead (docs/WholeRun.md): a mesh of the `pp`,
    `dp` and `tp` axes; one `dist.template` per model part and pass (the
    block's forward, backward or, under zero-bubble, input- and
    weight-gradient passes, and its once-per-iteration step); and one
    `dist.stage` per pipeline stage holding, in the order the mapping's
    schedule runs them, the instances of those templates for each
    micro-batch and model chunk, the pipeline sends and receives between
    adjacent chunks, and the data-parallel gradient reductions in buckets.
    Each op's location names its stage, model chunk, micro-batch and
    blocks. An inference op becomes the program of its whole generation
    (docs/WholeRun.md, "Inference runs"): a `block_prefill` template and
    one `block_decode_<L>` template per decode step, and on each stage the
    prefill then every decode step, with the block outputs sent down the
    pipeline and the sampled tokens sent back from the last stage to the
    first.
  }];
  let options = [
    Option<"scope", "scope", "std::string", /*default=*/"\"block\"",
           "What a program holds: `block` (one block, one micro-batch or "
           "decode step) or `iteration` (the whole training iteration or "
           "generation)">
  ];
  let dependentDialects = ["::blueprint::dist::DistDialect"];
}

def ExpandWholeRun : Pass<"expand-whole-run", "::mlir::ModuleOp"> {
  let summary = "Write every instance of a whole-run program out in full";
  let description = [{
    The expanded form of a whole-run `dist.program` (docs/WholeRun.md), for
    small runs and for export: every `dist.instance` gets a body holding its
    template's work once per block of its range (once for an edge or a
    step), in order, each repetition after the previous one. The templates
    stay, as the reference `dist_instance_c5` checks each copy against; the
    totals are unchanged (`--work-summary` reads the copies). Each copy's
    location adds `block <index>` (or `once`) and the instance's placement
    (stage, chunk, micro-batch) to the template op's lineage. A block-scope
    program is left as it is; an instance already expanded is kept.

    ```mlir
    %1 = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] {
      %2 = dist.task "norm1" forward vector per_micro_batch on @mesh ...
      ...
    }
    ```
  }];
  let dependentDialects = ["::blueprint::dist::DistDialect"];
}

def PlanPortable : Pass<"plan-portable", "::mlir::ModuleOp"> {
  let summary = "Convert distributed work into a target-neutral portable plan";
  let description = [{
    Replaces every `dist.program` by a `pplan.plan` that records the
    program's digest and contracts and holds:
    - one `pplan.capability` per capability its work requires (matmul,
      vector-elementwise, each collective kind used);
    - one serial `pplan.group` per stage (forward, recompute, backward,
      per-iteration): conservative, serial within a stage;
    - one `pplan.task` per `dist` task or collective, with the same exact
      facts, the capability it requires, its group, its abstract demand and
      the same location (so lineage carries through), depending on the
      previous task;
    - one `boundary` `pplan.buffer` per `dist.boundary`, sized per rank,
      with its producer and consumers;
    - the objectives `minimize_step_latency` and `minimize_peak_memory`;
    - the conservation ledger: the distributed program's totals by cadence,
      phase and engine class.

    Before:
    ```mlir
    dist.program @gpt source_digest = "sha256:..." ... {
      %0 = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ...
    }
    ```
    After:
    ```mlir
    pplan.plan @gpt source_digest = "sha256:<digest of the dist.program>" ... {
      pplan.capability @vector_elementwise vector_elementwise
      pplan.group @forward serial
      %0 = pplan.task "norm1" forward vector per_micro_batch
          requires @vector_elementwise group @forward demand = <...> ...
      pplan.ledger per_micro_batch forward vector invocations = 11 ...
    }
    ```
  }];
  let dependentDialects = ["::blueprint::pplan::PPlanDialect"];
}

def VerifyConservation : Pass<"verify-conservation", "::mlir::ModuleOp"> {
  let summary = "Check that every program conserves the derived work";
  let description = [{
    A contract check usable after any stage. For every `dist.program` and
    `pplan.plan`, re-derives the block's work from the contracts the program
    carries (docs/WorkAlgebra.md) and checks that the program holds exactly
    those invocations: every derived (cadence, phase, primitive) has one work
    op with the same operations, bytes read, written and stashed, GEMM
    shapes (a matmul without its `gemm` is a mismatch too, although
    `dist_task_c2` and `pplan_task_c9` accept hand-written IR without it)
    and collective facts, and no other work exists. A mismatch names the task,
    the quantity, the expected and the found value. The plan's own rules
    (ledger conservation, resource coverage, buffer legality, no target
    fields) are checked by its verifier, which runs after this pass.
  }];
}

def PrintDigest : Pass<"print-digest", "::mlir::ModuleOp"> {
  let summary = "Print the stable digest of the module and of each program";
  let description = [{
    Prints `sha256:<hex>` of the module and of every top-level symbol op
    (ModelIR op, `dist.program`, `pplan.plan`), each printed without
    locations (docs/Checkpoints.md). The same IR gives the same digest
    whatever file, format (text or bytecode) or thread count it came from.

    ```
    module sha256:3f0c...
    dist.program @gpt sha256:9a41...
    ```
  }];
  let options = [
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "where to print the digests ('-' is standard output)">
  ];
}

def ApplyImplementation
    : Pass<"apply-implementation", "::mlir::ModuleOp"> {
  let summary = "Replace plan tasks by the fused kernels of an implementation";
  let description = [{
    Target-specific implementation as an explicit, source-linked
    transformation (MISSION seed 004; docs/Estimate.md "Implementation
    transformations"): for every block-scope training `pplan.plan`, applies
    the listed transformations in order. `flash-attention` (Dao et al.,
    NeurIPS 2022, Alg. 1-4) replaces the attention core's tasks of each
    phase (QK^T, softmax, dropout, P·V forward or recompute; their
    activation gradients) by one `flash_attention` task whose facts are
    what the fused kernel executes (no S or P traffic, the fp32 logsumexp
    written and, instead of the S-sized stash, stashed; the backward's
    recomputation of S, P and the dropout mask added) and whose
    `implementation` and `fuses` keep the transformation and the semantic
    work of every task it replaced (`pplan_task_c10`). Its location is
    `fused<"apply-implementation: flash-attention">[<originals>]`.
    `fused-bias-dropout-add` (Megatron-LM `bias_dropout_add_fused_train`,
    `--bias-dropout-fusion`) replaces each row-parallel tail of a forward
    or recompute phase (bias add, hidden dropout, residual add) by one
    vector task `bias_dropout_add` that reads the tail's inputs once and
    writes its sum and the dropout mask; the backward is unchanged.
    `megatron-float16-optimizer` (Megatron-LM
    `Float16OptimizerWithFloat16Params.step`, `--fp16` or `--bf16`,
    `--clip-grad` 1.0) replaces each AdamW step (`adamw_step`,
    `edge_adamw_step`; on a whole-run plan in its `block_step` or `edge_step`
    template) by one `megatron_optimizer_step` (`edge_megatron_optimizer_step`)
    whose bytes are the step's separate passes over the rank's parameters:
    the fp16 gradients copied to fp32 main gradients, unscaled under an fp16
    loss scale, their norm for clipping, FusedAdam over fp32, the main
    parameters copied to the model's, the gradient buffer zeroed.
    `megatron-unfused-attention-glue` (Megatron-LM cfd2e21) adds, without
    replacing any task, the vector kernels the runs execute around the
    attention core that the plan does not have: after each forward or
    recompute `qkv_proj` that reads `b_qkv`, `qkv_bias_add` (the bias added
    after the GEMM, mpu/layers.py 237-239; reads q, k, v and b_qkv, writes
    q, k, v); after each forward or recompute `attn_v_matmul`,
    `context_permute_copy` (transformer.py 301; reads and writes the
    context); after the activation gradient of `qk_matmul`, one
    `<tensor>_alpha_scale` per tensor it writes (baddbmm's backward
    multiplies each operand gradient by alpha, transformer.py 247-251); and
    before the activation gradient of `qkv_proj`, `qkv_grad_concat`
    (split_backward's concatenation, mpu/utils.py 46; reads d_q, d_k, d_v,
    writes d_qkv). Each carries `implementation` and an empty `fuses`.
    `fused-softmax` and `fused-bias-gelu` find their pattern absent in
    today's algebra (scale and mask are inside `softmax`, the fc1 bias
    inside `fc1`) and leave the plan unchanged with a remark saying why.
    Without the pass every plan is unchanged.

    Rules: `apply_implementation_c1`: every name is a known transformation,
    listed once, and the list is not empty, and a kernel-adding
    transformation is not applied to a plan an earlier pass already gave its
    kernels (they would be added twice); `apply_implementation_c2`: a
    transformed plan is a training plan with contracts, block-scope or
    whole-run (an inference plan is refused, and so is a module without a
    plan: the pass runs after `--plan-portable`); on a whole-run plan the
    templates' attention cores are fused and the stage buffers they size
    shrink with them, so `--memory-report` and `--critical-path` read the
    transformed plan; `apply_implementation_c3`: attention-core tasks are
    forward, recompute or activation-gradient work; `apply_implementation_c4`:
    each phase's attention core has QK^T, softmax and P·V, and there is a
    forward one; `apply_implementation_c5`: an AdamW step that
    `megatron-float16-optimizer` transforms carries `deriveAdamWStep`'s
    tensors (reads `params_master`, `adam_m`, `adam_v`, `d_params`; writes
    `params`) and 16 operations per parameter; `apply_implementation_c6`:
    that step is of 16-bit parameters (2 bytes each) with fp32 main
    parameters (4 bytes each), as Megatron-LM's
    Float16OptimizerWithFloat16Params (fp32 weights are refused);
    `apply_implementation_c7`: a tensor an added kernel of
    `megatron-unfused-attention-glue` reads is a whole number of activation
    elements; `apply_implementation_c8`: `megatron-unfused-attention-glue`
    and `flash-attention` are never both in a plan, whether listed together
    or applied by chained passes (FlashAttention runs no baddbmm/bmm core,
    so the glue's copy and alpha scalings do not exist beside it).

    ```
    blueprint-opt gpt.mlir --distribute-transformer --plan-portable \
        --apply-implementation="transformations=flash-attention"
    ```
  }];
  let options = [
    ListOption<"transformations", "transformations", "std::string",
               "implementation transformations to apply, in order "
               "(flash-attention, fused-softmax, fused-bias-gelu, "
               "fused-bias-dropout-add, megatron-float16-optimizer, "
               "megatron-unfused-attention-glue)">
  ];
}

def Estimate : Pass<"estimate", "::mlir::ModuleOp"> {
  let summary = "Cost every portable plan against a SystemProfile";
  let description = [{
    A derived artifact, never a change to the plan: for every `pplan.plan`,
    costs each task against a SystemProfile (`profile=`, JSON,
    docs/Estimate.md) under a NetworkTierBinding (`binding=axis:tier,...` or
    `binding-file=`), given only here, and prints the estimate report (a
    table or JSON): per task a roofline time (operations over the effective
    peak vs bytes over the effective bandwidth) or, for a collective, a ring
    alpha-beta time, the binding resource and the profile fields and plan
    facts behind each figure; totals by cadence and phase; and the
    stage-serial block time. The IR, and so every digest, is unchanged.

    ```
    blueprint-opt plan.mlir --estimate="profile=profiles/a100-80gb.json binding=tp:nvlink"
    ```
  }];
  let options = [
    Option<"profileFile", "profile", "std::string", /*default=*/"",
           "SystemProfile JSON file">,
    ListOption<"binding", "binding", "std::string",
               "mesh axis to network tier, as axis:tier">,
    Option<"bindingFile", "binding-file", "std::string", /*default=*/"",
           "NetworkTierBinding JSON file (instead of binding=)">,
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "table or json">,
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "where to print the report ('-' is standard output)">
  ];
}

def ModelSummary : Pass<"model-summary", "::mlir::ModuleOp"> {
  let summary = "Print the model-level quantities and iteration time of every training plan";
  let description = [{
    A derived report, never a change to the plan: for every `pplan.plan` of
    a training run, reads the block's tasks (through `WorkFactsOpInterface`),
    its block-output buffer and its contracts and prints
    (docs/ModelSummary.md):
    - parameters per block and per model, with the word embedding (tied to
      the LM head, or an untied output layer), the learned position
      embedding (none under rotary embeddings) and the final norm;
    - weight, gradient and optimizer-state bytes per rank of the first
      pipeline stage, with and without sharding the optimizer over DP, and
      its activation bytes under the schedule's micro-batches in flight;
    - model and hardware matmul FLOPs per iteration, LM-head logits
      included;
    - tensor-, pipeline- and data-parallel communication bytes per rank;
    - with `profile=`, the iteration time composed from the block estimate
      (as `--estimate`) and the pipeline schedule, term by term
      (micro-batches, bubble, pipeline transfers, LM head, embedding,
      tied-embedding gradient all-reduce, DP gradient all-reduce, optimizer
      step), and the
      model and hardware FLOPs utilization.

    Collectives and transfers over the `pp` and `dp` axes need a network
    tier in `binding=` when the axis has more than one rank.

    `implementations=<name>,...` costs the composed time's block under the
    implementation transformations listed (the rules of
    `--apply-implementation`, applied to the block's per-micro-batch and
    per-iteration tasks in the summary; the counts stay the plan's semantic
    work). It needs `profile=` and a
    block-scope plan (`model_summary_c3`).

    ```
    blueprint-opt plan.mlir --model-summary="profile=profiles/a100-80gb.json binding=tp:nvlink,pp:infiniband format=json"
    ```
  }];
  let options = [
    Option<"profileFile", "profile", "std::string", /*default=*/"",
           "SystemProfile JSON file; without it no time is composed">,
    ListOption<"binding", "binding", "std::string",
               "mesh axis to network tier, as axis:tier">,
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "table or json">,
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "where to print the summary ('-' is standard output)">,
    ListOption<"implementations", "implementations", "std::string",
               "implementation transformations the composed time costs the "
               "block under (docs/ModelSummary.md)">
  ];
}

def WorkSummary : Pass<"work-summary", "::mlir::ModuleOp"> {
  let summary = "Print the work totals by cadence, phase and engine class";
  let description = [{
    Sums the exact facts of every work op (anything implementing
    `WorkFactsOpInterface`: `dist` tasks and collectives, `pplan` tasks) of
    each program: invocations, operations, read, write, logical message,
    minimum per-rank transfer and stashed bytes, by cadence (per micro-batch,
    per iteration) and phase and engine class, and prints them as a table or
    as JSON. The IR is not changed.

    ```
    blueprint-opt --distribute-transformer --work-summary=format=json in.mlir
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "table or json">,
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "where to print the summary ('-' is standard output)">,
    ListOption<"implementations", "implementations", "std::string",
               "implementation transformations the composed time costs the "
               "block under (docs/ModelSummary.md)">
  ];
}

def MemoryReport : Pass<"memory-report", "::mlir::ModuleOp"> {
  let summary = "Print each stage's peak memory from a whole-run plan's buffer lifetimes";
  let description = [{
    A derived report, never a change to the plan: for every whole-run
    `pplan.plan` (`--distribute-transformer=scope=iteration
    --plan-portable`), sweeps the lifetimes of each stage's buffers
    (docs/Memory.md) and prints, per pipeline stage (the rank class of its
    TP and DP ranks): the peak live bytes of one rank, the position (the
    stage op) where it first occurs, the live bytes there by buffer kind
    and by cause, the buffers live there, and the largest bytes each cause
    reaches alone. `memory-svg=FILE` also draws live bytes over each
    stage's schedule, stacked by kind, the peak marked.

    ```
    blueprint-opt model.mlir --distribute-transformer=scope=iteration --plan-portable --memory-report=memory-svg=memory.svg
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "table or json">,
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "where to print the report ('-' is standard output)">,
    Option<"memorySVG", "memory-svg", "std::string", /*default=*/"",
           "also draw live bytes over the schedule into this SVG file">
  ];
}

def CriticalPath : Pass<"critical-path", "::mlir::ModuleOp"> {
  let summary = "Print the iteration time as the longest path through a whole-run plan";
  let description = [{
    A derived report, never a change to the plan: for every whole-run
    `pplan.plan`, costs each step against a SystemProfile (`profile=`)
    under a NetworkTierBinding (`binding=axis:tier,...` or
    `binding-file=`), as `--estimate` costs tasks, and walks the plan's
    dependency graph (docs/Memory.md, "Time"): stages run their ops in
    order, a send holds its stage for its point-to-point transfer (or,
    under the mapping's `overlap_p2p_comm`, costs it nothing) and its
    message arrives a transfer after the send starts, a receive waits for
    it. Prints the
    iteration time (the longest path), the communication exposed on it,
    each stage's compute, collective and bubble time, and the critical
    path step by step. `timeline-svg=FILE` also draws the schedule as a
    Gantt chart with the critical path highlighted.

    ```
    blueprint-opt model.mlir --distribute-transformer=scope=iteration --plan-portable --critical-path="profile=profiles/a100-80gb.json binding=tp:nvlink,pp:infiniband,dp:infiniband"
    ```
  }];
  let options = [
    Option<"profileFile", "profile", "std::string", /*default=*/"",
           "SystemProfile JSON file">,
    ListOption<"binding", "binding", "std::string",
               "mesh axis to network tier, as axis:tier">,
    Option<"bindingFile", "binding-file", "std::string", /*default=*/"",
           "NetworkTierBinding JSON file (instead of binding=)">,
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "table or json">,
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "where to print the report ('-' is standard output)">,
    Option<"timelineSVG", "timeline-svg", "std::string", /*default=*/"",
           "also draw the schedule as a Gantt chart into this SVG file">
  ];
}

#endif // BLUEPRINT_TRANSFORMS_PASSES
