//===- TransformerAttrs.td - ModelIR contracts ------------------*- tablegen -*-===//

#ifndef BLUEPRINT_TRANSFORMER_ATTRS
#define BLUEPRINT_TRANSFORMER_ATTRS

include "Blueprint/Dialect/Transformer/IR/TransformerDialect.td"
include "Blueprint/Workload/WorkloadEnums.td"
include "mlir/IR/AttrTypeBase.td"

/// A closed-set parameter with a default value: left out of the printed
/// attribute when it holds the default, so IR written before the parameter
/// existed parses to the same attribute.
class Transformer_DefaultValuedEnumParameter<EnumAttrInfo info, string value>
    : EnumParameter<info> {
  let defaultValue = value;
  let comparator = "$_lhs == $_rhs";
}

class Transformer_Attr<string name, string attrMnemonic>
    : AttrDef<Transformer_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Transformer_MoEAttr : Transformer_Attr<"MoE", "moe"> {
  let summary = "mixture-of-experts MLPs of a model";
  let description = [{
    The `moe` field of `#transformer.model` (docs/TransformerSpec.md): in
    every MoE block a router (a matmul hidden -> `experts` logits, softmax,
    top-`experts_per_token`) sends each token to `experts_per_token` of the
    `experts` routed experts, and each token also passes through
    `shared_experts` always-active experts; every expert is an MLP of the
    model's activation and width `expert_ffn_hidden` (default: the model's
    `ffn_hidden`, as Mixtral). Block i (counted from 0) is an MoE block when
    `i >= first_dense_blocks` and `moe_layer_frequency` divides i
    (DeepSeek-V3's `first_k_dense_replace` and `moe_layer_freq`); the others
    keep the dense MLP. `capacity_factor_percent` bounds the tokens of one
    expert to ceil(C * k * tokens / (100 * E)) (default: dropless) and
    `expert_imbalance_percent` declares the most loaded expert's load over
    the balanced one (default 100: balanced). `router` says how experts are
    picked: `softmax_topk` (default; softmax, top-k, renormalised) or
    `sigmoid_group_limited` (DeepSeek-V3 Sec. 2.1.2: sigmoid scores plus a
    score-correction bias of `experts` elements per MoE block, a buffer
    updated outside backpropagation; the experts form `router_groups`
    groups, a token's experts come from its `router_groups_per_token` best
    groups, each group scored by the sum of its two best biased scores; the
    selected experts' sigmoid scores renormalised and multiplied by the
    routed scaling factor). Optional fields are printed only when they
    differ from their default. The model verifier checks the rules
    `transformer_model_c11` to `c19`.

    ```mlir
    #transformer.model<hidden = 4096, heads = 32, ffn_hidden = 14336, ...,
                       moe = <experts = 8, experts_per_token = 2>>
    ```
  }];
  let parameters = (ins
    "int64_t":$experts,
    "int64_t":$experts_per_token,
    OptionalParameter<"std::optional<int64_t>">:$expert_ffn_hidden,
    DefaultValuedParameter<"int64_t", "0">:$shared_experts,
    DefaultValuedParameter<"int64_t", "0">:$first_dense_blocks,
    DefaultValuedParameter<"int64_t", "1">:$moe_layer_frequency,
    OptionalParameter<"std::optional<int64_t>">:$capacity_factor_percent,
    DefaultValuedParameter<"int64_t", "100">:$expert_imbalance_percent,
    Transformer_DefaultValuedEnumParameter<Workload_RouterKind,
        "::blueprint::workload::RouterKind::SoftmaxTopK">:$router,
    DefaultValuedParameter<"int64_t", "1">:$router_groups,
    DefaultValuedParameter<"int64_t", "1">:$router_groups_per_token
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def Transformer_ModelAttr : Transformer_Attr<"Model", "model"> {
  let summary = "the model contract: dimensions and semantics";
  let description = [{
    Dimensions and semantics of a decoder-only Transformer, independent of
    how it is trained or mapped. `kv_heads` (grouped-query attention),
    `head_dim` and `max_positions` are optional and default to `heads`,
    `hidden / heads` and `seq_length`; a printed attribute omits them when
    they hold their default, so IR written before a field existed still
    parses to the same value. So do the optional semantics:
    `linear_bias` (`all`, `qkv` or `none`; default `all`),
    `position_embedding` (`learned` or `rotary`; default `learned`),
    `tied_embeddings` (default `true`), `attention_window` (the keys a
    query attends to under sliding-window attention; default: all before
    it), `moe` (mixture-of-experts MLPs, `#transformer.moe`; default: a
    dense model). Multi-head latent attention (DeepSeek-V2 Sec. 2.1) is on
    when `kv_lora_rank` is given, with `qk_nope_head_dim`, `qk_rope_head_dim`
    and `v_head_dim`, and optionally `q_lora_rank` (absent: a plain query
    projection); under it `head_dim` defaults to
    `qk_nope_head_dim + qk_rope_head_dim`.

    Rules (`transformer_model_c*`, docs/TransformerSpec.md):
    1. every dimension is positive (`attention_window` too, when given);
    2. `kv_heads` divides `heads`;
    3. `seq_length <= max_positions`;
    4. without an explicit `head_dim`, `heads` divides `hidden`;
    5. `attention_window <= max_positions`;
    6. the MLA dimensions `kv_lora_rank`, `qk_nope_head_dim`,
       `qk_rope_head_dim`, `v_head_dim` come together, `q_lora_rank` only
       with them;
    7. MLA needs `position_embedding = rotary`;
    8. MLA needs `kv_heads = heads`;
    9. under MLA, `head_dim = qk_nope_head_dim + qk_rope_head_dim`;
    10. MLA needs `linear_bias = none`;
    11. `moe`: `experts >= 2`;
    12. `moe`: `experts_per_token` is positive;
    13. `moe`: `experts_per_token <= experts`;
    14. `moe`: `expert_ffn_hidden`, `moe_layer_frequency` and
        `capacity_factor_percent` are positive, `shared_experts` and
        `first_dense_blocks` are not negative;
    15. `moe`: at least one block is an MoE block;
    16. `moe`: `100 <= expert_imbalance_percent` and
        `expert_imbalance_percent * experts_per_token <= 100 * experts`.
    17. `moe`: `router_groups` and `router_groups_per_token` are positive,
        and both are 1 under `router = softmax_topk`;
    18. `moe`: `router_groups` divides `experts` into groups of at least 2
        experts, and `router_groups_per_token <= router_groups`;
    19. `moe`: `experts_per_token <= router_groups_per_token * experts /
        router_groups` (the selected groups hold the k experts).

    ```mlir
    #transformer.model<hidden = 6144, heads = 64, ffn_hidden = 24576,
                       seq_length = 2048, vocab = 51200, blocks = 48,
                       norm = layernorm, activation = gelu>
    ```
  }];
  let parameters = (ins
    "int64_t":$hidden,
    "int64_t":$heads,
    "int64_t":$ffn_hidden,
    "int64_t":$seq_length,
    "int64_t":$vocab,
    "int64_t":$blocks,
    EnumParameter<Workload_NormKind>:$norm,
    EnumParameter<Workload_ActivationKind>:$activation,
    OptionalParameter<"std::optional<int64_t>">:$kv_heads,
    OptionalParameter<"std::optional<int64_t>">:$head_dim,
    OptionalParameter<"std::optional<int64_t>">:$max_positions,
    Transformer_DefaultValuedEnumParameter<Workload_LinearBias,
        "::blueprint::workload::LinearBias::All">:$linear_bias,
    Transformer_DefaultValuedEnumParameter<Workload_PositionEmbedding,
        "::blueprint::workload::PositionEmbedding::Learned">:$position_embedding,
    DefaultValuedParameter<"bool", "true">:$tied_embeddings,
    OptionalParameter<"std::optional<int64_t>">:$attention_window,
    OptionalParameter<"std::optional<int64_t>">:$q_lora_rank,
    OptionalParameter<"std::optional<int64_t>">:$kv_lora_rank,
    OptionalParameter<"std::optional<int64_t>">:$qk_nope_head_dim,
    OptionalParameter<"std::optional<int64_t>">:$qk_rope_head_dim,
    OptionalParameter<"std::optional<int64_t>">:$v_head_dim,
    OptionalParameter<"::blueprint::transformer::MoEAttr">:$moe
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  // One model has one attribute: an optional field spelled at its default
  // value is dropped on construction, so `kv_heads = heads` written out and
  // left out give the same attribute, the same printed IR and the same digest.
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "int64_t":$hidden, "int64_t":$heads,
        "int64_t":$ffn_hidden, "int64_t":$seq_length, "int64_t":$vocab,
        "int64_t":$blocks, "::blueprint::workload::NormKind":$norm,
        "::blueprint::workload::ActivationKind":$activation,
        "std::optional<int64_t>":$kv_heads, "std::optional<int64_t>":$head_dim,
        "std::optional<int64_t>":$max_positions,
        "::blueprint::workload::LinearBias":$linear_bias,
        "::blueprint::workload::PositionEmbedding":$position_embedding,
        "bool":$tied_embeddings,
        "std::optional<int64_t>":$attention_window,
        "std::optional<int64_t>":$q_lora_rank,
        "std::optional<int64_t>":$kv_lora_rank,
        "std::optional<int64_t>":$qk_nope_head_dim,
        "std::optional<int64_t>":$qk_rope_head_dim,
        "std::optional<int64_t>":$v_head_dim,
        "::blueprint::transformer::MoEAttr":$moe), [{
      auto unlessDefault = [](std::optional<int64_t> value,
                              std::optional<int64_t> defaultValue) {
        return value == defaultValue ? std::nullopt : value;
      };
      std::optional<int64_t> defaultHeadDim;
      std::variant<int64_t, ::blueprint::workload::RuleViolation> implicit =
          ::blueprint::workload::implicitHeadDim(hidden, heads,
                                                 qk_nope_head_dim,
                                                 qk_rope_head_dim);
      if (auto *dimension = std::get_if<int64_t>(&implicit))
        defaultHeadDim = *dimension;
      return $_get($_ctxt, hidden, heads, ffn_hidden, seq_length, vocab,
                   blocks, norm, activation, unlessDefault(kv_heads, heads),
                   unlessDefault(head_dim, defaultHeadDim),
                   unlessDefault(max_positions, seq_length), linear_bias,
                   position_embedding, tied_embeddings, attention_window,
                   q_lora_rank, kv_lora_rank, qk_nope_head_dim,
                   qk_rope_head_dim, v_head_dim,
                   ::blueprint::transformer::withoutDefaultExpertWidth(
                       moe, ffn_hidden));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The plain contract, with optional fields resolved to their defaults.
    ::blueprint::workload::ModelSpec getSpec() const;
  }];
}

def Transformer_TrainingAttr : Transformer_Attr<"Training", "training"> {
  let summary = "the training-workload contract: batch and datatypes";
  let description = [{
    What one training iteration processes: the global batch (sequences per
    optimizer step), the micro-batch (sequences per forward/backward pass),
    the datatypes of activations, weights, weight gradients and optimizer
    state, and whether attention and hidden dropout are applied (each
    dropout keeps a 1-byte mask for the backward pass). Dropouts default to
    `true` and are printed only when disabled.

    Rules (`transformer_training_c*`): 1. both batch sizes are positive.

    ```mlir
    #transformer.training<global_batch = 1536, micro_batch = 1,
                          activation_type = bf16, weight_type = bf16,
                          gradient_type = bf16, optimizer_state_type = f32>
    ```
  }];
  let parameters = (ins
    "int64_t":$global_batch,
    "int64_t":$micro_batch,
    EnumParameter<Workload_DataType>:$activation_type,
    EnumParameter<Workload_DataType>:$weight_type,
    EnumParameter<Workload_DataType>:$gradient_type,
    EnumParameter<Workload_DataType>:$optimizer_state_type,
    DefaultValuedParameter<"bool", "true">:$attention_dropout,
    DefaultValuedParameter<"bool", "true">:$hidden_dropout
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::blueprint::workload::TrainingSpec getSpec() const;
  }];
}

def Transformer_InferenceAttr : Transformer_Attr<"Inference", "inference"> {
  let summary = "the inference-workload contract: batch, lengths, datatypes";
  let description = [{
    What one generation serves: `batch` prompts of `prompt_length` tokens,
    each extended by `generated_tokens` tokens, with the datatypes of
    activations, weights and the KV cache (docs/Inference.md).

    Rules (`transformer_inference_c*`): 1. `batch`, `prompt_length` and
    `generated_tokens` are positive.

    ```mlir
    #transformer.inference<batch = 8, prompt_length = 2048,
                           generated_tokens = 256, activation_type = bf16,
                           weight_type = bf16, kv_cache_type = bf16>
    ```
  }];
  let parameters = (ins
    "int64_t":$batch,
    "int64_t":$prompt_length,
    "int64_t":$generated_tokens,
    EnumParameter<Workload_DataType>:$activation_type,
    EnumParameter<Workload_DataType>:$weight_type,
    EnumParameter<Workload_DataType>:$kv_cache_type
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::blueprint::workload::InferenceSpec getSpec() const;
  }];
}

/// A list of integers written `[5, 6, 6, 5]`; empty (and not printed) when
/// absent.
def Transformer_IntegerListParameter : OptionalArrayRefParameter<"int64_t"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> values;
      if (::mlir::failed($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&] {
                return $_parser.parseInteger(values.emplace_back());
              })))
        return ::mlir::failure();
      return values;
    }()
  }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

// The context-parallel exchange, `ring` unless the mapping says otherwise.
def Transformer_MappingAttr : Transformer_Attr<"Mapping", "mapping"> {
  let summary = "the mapping contract: TP x CP x PP x DP, recompute and "
                "schedule";
  let description = [{
    How the model is laid onto `world` logical ranks: tensor (`tp`),
    pipeline (`pp`) and data (`dp`) parallel degrees, the tensor-parallel
    communication mode (`all_reduce`, Megatron's f/g all-reduces, or
    `reduce_scatter_all_gather`, i.e. sequence parallelism), the activation
    recompute policy and the pipeline schedule, a closed set: `gpipe`,
    `one_f_one_b`, `interleaved_one_f_one_b` with `virtual_stages` model
    chunks per pipeline rank, and `zero_bubble_h1` (Qi et al. 2023, which
    defers weight-gradient passes). No network tier or device appears: those
    are bound only when a plan is costed.

    Optional fields, printed only when they differ from their default
    (docs/WholeRun.md): `pipeline_layout`, the blocks of each of the
    `pp * virtual_stages` model chunks in model order (default: the same
    number in every chunk); `zero_stage`, the data-parallel sharding of
    optimizer state (1), gradients (2) and parameters (3) (default 0: every
    DP rank holds everything); `bucket_bytes`, the gradient bytes per
    data-parallel reduction bucket (default 0: one bucket per stage);
    `cp`, the context-parallel degree (default 1), and `cp_comm`, how the
    `cp` ranks exchange keys and values, `ring` (default) or `all_gather`
    (docs/TransformerSpec.md, "Context parallelism"; a training program at
    `cp > 1` has a `cp` mesh axis, docs/DistSpec.md); `ep`, the
    expert-parallel degree (default 1): the data-parallel ranks of an MoE
    layer that split its experts (docs/TransformerSpec.md, "Expert
    parallelism"; serving runs need `ep = 1`, rule
    `expert_parallel_c6`, and `ep > 1` needs `cp = 1`, rule
    `expert_parallel_c5`, and in training `ep` dividing a rank's kept
    token-expert pairs, rule `expert_parallel_c7`, and `zero_stage <= 2`,
    rule `expert_parallel_c8`).
    `overlap_tp_comm` (default `false`), whether the critical path overlaps
    each column-parallel linear's backward tensor-parallel communication
    with its GEMMs (Megatron-LM's
    `LinearWithGradAccumulationAndAsyncCommunication`, docs/Estimate.md,
    "Overlap"): a time option, the work is the same.
    `overlap_dp_grad_reduce` (default `false`), whether the critical path
    issues each data-parallel gradient bucket's reduction once the last
    micro-batch's backward has produced it, beside the stage's remaining
    backward, gating only the optimizer step (Megatron-Core DDP
    `overlap_grad_reduce`, docs/Estimate.md, "Overlap"): a time option, the
    work is the same; training only and not under ZeRO-3
    (`decoder_training_c17`).
    `overlap_p2p_comm` (default `false`), whether the critical path
    overlaps pipeline sends with compute: a send costs its stage nothing
    and its message arrives a transfer after it starts; without it a send
    holds its stage for its transfer (Megatron-LM's blocking p2p without
    `--overlap-p2p-communication`, docs/Estimate.md, "Overlap"): a time
    option, the work is the same; training and inference.

    Rules (`transformer_mapping_c*`):
    1. `tp`, `pp`, `dp`, `world`, `virtual_stages`, `cp` and `ep` are
       positive;
    2. `world = tp * cp * pp * dp`;
    3. `gpipe`, `one_f_one_b` and `zero_bubble_h1` have
       `virtual_stages = 1`; `interleaved_one_f_one_b` has
       `virtual_stages >= 2`;
    4. `interleaved_one_f_one_b` has `pp >= 2`;
    5. `zero_stage` is 0, 1, 2 or 3;
    6. `bucket_bytes` is not negative.

    ```mlir
    #transformer.mapping<world = 64, tp = 8, pp = 8, dp = 1,
                         virtual_stages = 1, tp_comm = all_reduce,
                         recompute = selective, schedule = one_f_one_b>
    ```
  }];
  let parameters = (ins
    "int64_t":$world,
    "int64_t":$tp,
    "int64_t":$pp,
    "int64_t":$dp,
    "int64_t":$virtual_stages,
    EnumParameter<Workload_TPCommMode>:$tp_comm,
    EnumParameter<Workload_RecomputePolicy>:$recompute,
    EnumParameter<Workload_PipelineSchedule>:$schedule,
    Transformer_IntegerListParameter:$pipeline_layout,
    DefaultValuedParameter<"int64_t", "0">:$zero_stage,
    DefaultValuedParameter<"int64_t", "0">:$bucket_bytes,
    DefaultValuedParameter<"int64_t", "1">:$cp,
    Transformer_DefaultValuedEnumParameter<Workload_CPCommMode,
        "::blueprint::workload::CPCommMode::Ring">:$cp_comm,
    DefaultValuedParameter<"int64_t", "1">:$ep,
    DefaultValuedParameter<"bool", "false">:$overlap_tp_comm,
    DefaultValuedParameter<"bool", "false">:$overlap_dp_grad_reduce,
    DefaultValuedParameter<"bool", "false">:$overlap_p2p_comm
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::blueprint::workload::MappingSpec getSpec() const;
  }];
}

#endif // BLUEPRINT_TRANSFORMER_ATTRS
