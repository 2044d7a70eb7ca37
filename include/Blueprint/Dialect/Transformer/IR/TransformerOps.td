//===- TransformerOps.td - ModelIR operations -------------------*- tablegen -*-===//

#ifndef BLUEPRINT_TRANSFORMER_OPS
#define BLUEPRINT_TRANSFORMER_OPS

include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

class Transformer_Op<string mnemonic, list<Trait> traits = []>
    : Op<Transformer_Dialect, mnemonic, traits>;

def Transformer_DecoderTrainingOp
    : Transformer_Op<"decoder_training", [Symbol]> {
  let summary = "a decoder-only Transformer training run, as one coarse op";
  let description = [{
    Composes the model, training-workload and mapping contracts into one
    training run. The op is target-neutral: it says what must be computed,
    for which batch, on which logical mesh — never how or where. The
    `--distribute-transformer` pass expands it into `dist` tasks.

    The verifier enforces the composition rules (docs/TransformerSpec.md),
    each with its own diagnostic naming the fields and values:

    1. `decoder_training_c1`: `dp` divides `global_batch` (local batch);
    2. `decoder_training_c2`: `micro_batch` divides `global_batch / dp`
       (micro-batch count);
    3. `decoder_training_c3`: `pp * virtual_stages` divides `blocks`
       (blocks per virtual chunk);
    4. `decoder_training_c4`: `tp` divides `heads`;
    5. `decoder_training_c5`: `tp` divides `kv_heads`;
    6. `decoder_training_c6`: `tp` divides `hidden`;
    7. `decoder_training_c7`: `tp` divides `ffn_hidden`;
    8. `decoder_training_c8`: `tp` divides `vocab` (vocabulary-parallel
       embedding and LM head);
    9. `decoder_training_c9`: at `cp = 1`, under
       `reduce_scatter_all_gather`, `tp` divides `seq_length` (at `cp > 1`,
       `context_parallel_c2` replaces it);
    10. `decoder_training_c10`: under `interleaved_one_f_one_b`, `pp`
        divides the micro-batch count (Megatron runs micro-batches in groups
        of `pp`).
    11. `decoder_training_c11` .. `c13`: a `pipeline_layout` replaces `c3`:
        it has `pp * virtual_stages` entries (`c11`), none of them zero
        (`c12`), summing to `blocks` (`c13`) (docs/WholeRun.md).
    12. `decoder_training_c14`: under multi-head latent attention with
        `tp > 1`, `tp_comm = reduce_scatter_all_gather`;
    13. `decoder_training_c15`: under multi-head latent attention, `tp`
        divides `kv_lora_rank` and `q_lora_rank`;
    14. `decoder_moe_c2`: under `tp > 1` a model with `moe` trains with
        `tp_comm = reduce_scatter_all_gather`; `decoder_moe_c3`: `tp`
        divides `expert_ffn_hidden`;
    15. `context_parallel_c1` .. `c3` (at `cp > 1`): `2 * cp` divides
        `seq_length` (`c1`); under `reduce_scatter_all_gather`, `tp` divides
        `seq_length / cp` (`c2`); no `attention_window` (`c3`);
    16. `decoder_training_c16`: at `tp > 1` without sequence parallelism,
        `tp` divides `micro_batch * seq_length / cp` (the tokens per
        context-parallel rank; the vocabulary-parallel cross-entropy
        all-reduces one fp32 value per token over the TP ranks);
        `decoder_training_c17`: `overlap_dp_grad_reduce` needs
        `zero_stage` 0, 1 or 2 (ZeRO-3's per-pass gathers are not modelled
        beside overlapped reductions);
    17. `expert_parallel_c1` .. `c3` and `c5` (at `ep > 1`): `ep` divides
        `dp` (`c1`); the model has `moe` (`c2`); `ep` divides `experts`
        (`c3`); `cp = 1` (`c5`); `zero_stage <= 2` (`c8`, ZeRO-3's
        parameter gathers of expert-parallel blocks are not derived); and,
        once the rules above hold, `ep` divides the token-expert pairs a
        rank's router call keeps (`c7`, the equal chunks of the
        all-to-alls);
    18. once every rule above holds, the MoE blocks the work algebra does
        not derive yet: `decoder_moe_c5`, MLP biases (`linear_bias = all`)
        (`expert_parallel_c4`, which refused experts split over `ep > 1`
        ranks in training, is retired: they are derived).
        (`decoder_moe_c1`, blocks of both kinds, and `decoder_moe_c4`,
        shared experts, are retired: they are derived. Dense and MoE blocks
        mix in one run (`first_dense_blocks`, `moe_layer_frequency`): each
        block is derived with its kind's MLP, docs/WholeRun.md, "Block
        kinds".)

    ```mlir
    transformer.decoder_training @gpt3_175b
        model = <hidden = 12288, heads = 96, ffn_hidden = 49152,
                 seq_length = 2048, vocab = 51200, blocks = 96,
                 norm = layernorm, activation = gelu>
        training = <global_batch = 1536, micro_batch = 1,
                    activation_type = bf16, weight_type = bf16,
                    gradient_type = bf16, optimizer_state_type = f32>
        mapping = <world = 1536, tp = 8, pp = 16, dp = 12,
                   virtual_stages = 1, tp_comm = reduce_scatter_all_gather,
                   recompute = selective, schedule = one_f_one_b>
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Transformer_ModelAttr:$model,
    Transformer_TrainingAttr:$training,
    Transformer_MappingAttr:$mapping
  );
  let assemblyFormat = [{
    $sym_name attr-dict
    `model` `=` $model
    `training` `=` $training
    `mapping` `=` $mapping
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// local batch, micro-batch count and blocks per virtual chunk; only
    /// meaningful on a verified op.
    ::blueprint::workload::TrainingComposition getComposition();
  }];
}

def Transformer_DecoderInferenceOp
    : Transformer_Op<"decoder_inference", [Symbol]> {
  let summary = "a decoder-only Transformer serving run: prefill and decode";
  let description = [{
    Composes the model, inference-workload and mapping contracts into one
    generation: a prefill of the whole prompt, then one decode step per
    further generated token, each attending to the KV cache. The
    `--distribute-transformer` pass expands it into prefill and decode
    tasks.

    The verifier enforces the composition rules (docs/Inference.md):

    1. `decoder_inference_c1`: `dp` divides `batch`;
    2. `decoder_inference_c2`: `pp` divides `blocks`;
    3. `decoder_inference_c3` .. `c7`: `tp` divides `heads`, `kv_heads`,
       `hidden`, `ffn_hidden` and `vocab`;
    4. `decoder_inference_c8`: `prompt_length + generated_tokens` is within
       `max_positions` (the context fits the model);
    5. `decoder_inference_c9`: `recompute = none` (there is no backward);
    6. `decoder_inference_c10`: `virtual_stages = 1`;
    7. `decoder_inference_c11`: `tp_comm = all_reduce` when `tp > 1` (a
       decode step's single position cannot be split along the sequence).
    8. `decoder_inference_c12`: `zero_stage = 0`, `bucket_bytes = 0`, no
       `pipeline_layout` and no `overlap_tp_comm` (training fields);
       `decoder_inference_c13`: no `overlap_dp_grad_reduce` (no gradient
       reduction to overlap).
    9. `context_parallel_c4`: `cp = 1` (a decode step's single position per
       sequence cannot be split over the sequence);
    10. `decoder_moe_c3`: `tp` divides `expert_ffn_hidden`;
    11. `expert_parallel_c1` .. `c3` and `c5` (at `ep > 1`): `ep` divides
        `dp`, the model has `moe`, `ep` divides `experts`, `cp = 1`;
        `expert_parallel_c6`: a model with `moe` is served at `ep = 1` (the
        serving all-to-alls are not derived);
    12. once every rule above holds, the MoE blocks the work algebra does
        not derive yet: `decoder_moe_c5`, MLP biases.

    ```mlir
    transformer.decoder_inference @serve
        model = <hidden = 12288, heads = 96, ffn_hidden = 49152,
                 seq_length = 2048, vocab = 51200, blocks = 96,
                 norm = layernorm, activation = gelu, max_positions = 4096>
        inference = <batch = 8, prompt_length = 2048, generated_tokens = 256,
                     activation_type = bf16, weight_type = bf16,
                     kv_cache_type = bf16>
        mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1,
                   tp_comm = all_reduce, recompute = none,
                   schedule = one_f_one_b>
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Transformer_ModelAttr:$model,
    Transformer_InferenceAttr:$inference,
    Transformer_MappingAttr:$mapping
  );
  let assemblyFormat = [{
    $sym_name attr-dict
    `model` `=` $model
    `inference` `=` $inference
    `mapping` `=` $mapping
  }];
  let hasVerifier = 1;
}

#endif // BLUEPRINT_TRANSFORMER_OPS
