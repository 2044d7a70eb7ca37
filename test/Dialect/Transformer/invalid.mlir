// RUN: blueprint-opt %s -split-input-file -verify-diagnostics

// transformer_model_c1
// expected-error @+2 {{transformer_model_c1: hidden must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 0, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c1
// expected-error @+2 {{transformer_model_c1: blocks must be positive, got -3}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = -3, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c1
// expected-error @+2 {{transformer_model_c1: kv_heads must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, kv_heads = 0>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c2
// expected-error @+2 {{transformer_model_c2: heads = 16 is not divisible by kv_heads = 6}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, kv_heads = 6>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c3
// expected-error @+2 {{transformer_model_c3: seq_length = 4096 exceeds max_positions = 2048}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 4096, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, max_positions = 2048>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c1
// expected-error @+2 {{transformer_model_c1: attention_window must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, attention_window = 0>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c5
// expected-error @+2 {{transformer_model_c5: attention_window = 4096 exceeds max_positions = 2048: a window longer than every sequence never slides}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, attention_window = 4096>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c1
// expected-error @+2 {{transformer_model_c1: kv_lora_rank must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, q_lora_rank = 256, kv_lora_rank = 0, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c6
// expected-error @+2 {{transformer_model_c6: multi-head latent attention needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim together; given q_lora_rank, missing kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, q_lora_rank = 256>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c6, not c4: a partial MLA spec (one qk dimension) with
// hidden not divisible by heads names the missing MLA fields; the implicit
// head_dim rule of multi-head attention does not apply.
// expected-error @+2 {{transformer_model_c6: multi-head latent attention needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim together; given qk_nope_head_dim, missing kv_lora_rank, qk_rope_head_dim, v_head_dim}}
transformer.decoder_training @m
    model = <hidden = 1000, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, qk_nope_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c9 with an explicit head_dim: the overflowing sum is
// still named, not wrapped.
// expected-error @+2 {{transformer_model_c9: qk_nope_head_dim + qk_rope_head_dim overflows a 64-bit integer}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, head_dim = 96, linear_bias = none, position_embedding = rotary, q_lora_rank = 256, kv_lora_rank = 128, qk_nope_head_dim = 9223372036854775807, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c7
// expected-error @+2 {{transformer_model_c7: multi-head latent attention (kv_lora_rank) needs position_embedding = rotary, got learned: its positions are the decoupled rotary query and key}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, q_lora_rank = 256, kv_lora_rank = 128, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c8
// expected-error @+2 {{transformer_model_c8: multi-head latent attention (kv_lora_rank) needs kv_heads = heads, got kv_heads = 4 and heads = 16: every head's key and value come from the shared latent}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, kv_heads = 4, linear_bias = none, position_embedding = rotary, q_lora_rank = 256, kv_lora_rank = 128, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c9
// expected-error @+2 {{transformer_model_c9: head_dim = 64 differs from qk_nope_head_dim + qk_rope_head_dim = 64 + 32 = 96, the query/key head width of multi-head latent attention}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, head_dim = 64, linear_bias = none, position_embedding = rotary, q_lora_rank = 256, kv_lora_rank = 128, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c10
// expected-error @+2 {{transformer_model_c10: multi-head latent attention (kv_lora_rank) needs linear_bias = none, got all: DeepSeek's projections carry no bias}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, position_embedding = rotary, q_lora_rank = 256, kv_lora_rank = 128, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c4
// expected-error @+2 {{transformer_model_c4: hidden = 1000 is not divisible by heads = 16 and no head_dim is given}}
transformer.decoder_training @m
    model = <hidden = 1000, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_training_c1
// expected-error @+3 {{transformer_training_c1: micro_batch must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 0, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c1
// expected-error @+4 {{transformer_mapping_c1: tp must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 0, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c2
// expected-error @+4 {{transformer_mapping_c2: world = 32 differs from tp * cp * pp * dp = 4 * 1 * 2 * 2 = 16}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 32, tp = 4, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c2 (checked arithmetic)
// expected-error @+4 {{transformer_mapping_c2: tp * cp * pp * dp overflows a 64-bit integer}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 4294967296, pp = 4294967296, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c3
// expected-error @+4 {{transformer_mapping_c3: schedule one_f_one_b has no virtual stages: virtual_stages must be 1, got 2}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c3
// expected-error @+4 {{transformer_mapping_c3: schedule interleaved_one_f_one_b needs virtual_stages >= 2, got 1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>

// -----

// transformer_mapping_c4
// expected-error @+4 {{transformer_mapping_c4: schedule interleaved_one_f_one_b needs pp >= 2, got 1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>

// -----

// decoder_training_c1
// expected-error @+1 {{decoder_training_c1: global_batch = 10 is not divisible by dp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 10, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 1, dp = 4, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c2
// expected-error @+1 {{decoder_training_c2: local batch global_batch / dp = 6 is not divisible by micro_batch = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 12, micro_batch = 4, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c3
// expected-error @+1 {{decoder_training_c3: blocks = 10 is not divisible by pp * virtual_stages = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 10, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>

// -----

// decoder_training_c4 .. c8: one mapping breaks five TP divisibility rules;
// each is reported.
// expected-error @+5 {{decoder_training_c4: heads = 12 is not divisible by tp = 8}}
// expected-error @+4 {{decoder_training_c5: kv_heads = 12 is not divisible by tp = 8}}
// expected-error @+3 {{decoder_training_c6: hidden = 1020 is not divisible by tp = 8}}
// expected-error @+2 {{decoder_training_c7: ffn_hidden = 4100 is not divisible by tp = 8}}
// expected-error @+1 {{decoder_training_c8: vocab = 1001 is not divisible by tp = 8}}
transformer.decoder_training @m
    model = <hidden = 1020, heads = 12, ffn_hidden = 4100, seq_length = 512, vocab = 1001, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c5 alone (grouped-query attention)
// expected-error @+1 {{decoder_training_c5: kv_heads = 2 is not divisible by tp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, kv_heads = 2>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c9: the same sequence length is fine under all_reduce
// with micro-batches of 2: the cross-entropy's 2 x 510 = 1020 tokens split
// over tp = 4 (decoder_training_c16).
transformer.decoder_training @ok
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 510, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
// expected-error @+1 {{decoder_training_c9: seq_length (tp_comm = reduce_scatter_all_gather) = 510 is not divisible by tp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 510, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c16: without sequence parallelism the cross-entropy
// all-reduces per-token values over tp = 4, but a micro-batch of 1 x 510
// tokens does not split into 4.
// expected-error @+1 {{decoder_training_c16: micro_batch * seq_length / cp (the tokens per context-parallel rank without sequence parallelism) = 510 is not divisible by tp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 510, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c10
// expected-error @+1 {{decoder_training_c10: microbatches = 6 is not divisible by pp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 6, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 4, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>

// -----

// An unknown closed-set value is a parse error naming the choices.
transformer.decoder_training @m
    // expected-error @+2 {{expected ::blueprint::workload::NormKind to be one of: layernorm, rmsnorm}}
    // expected-error @+1 {{failed to parse Transformer_ModelAttr parameter 'norm'}}
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = batchnorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c5
// expected-error @+4 {{transformer_mapping_c5: zero_stage must be 0, 1, 2 or 3, got 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 4>

// -----

// transformer_mapping_c6
// expected-error @+4 {{transformer_mapping_c6: bucket_bytes must not be negative, got -1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, bucket_bytes = -1>

// -----

// decoder_training_c11: one entry per model chunk (pp * virtual_stages)
// expected-error @+1 {{decoder_training_c11: pipeline_layout has 3 entries; it needs pp * virtual_stages = 2, one per model chunk}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [2, 3, 3]>

// -----

// decoder_training_c12
// expected-error @+1 {{decoder_training_c12: pipeline_layout[0] = 0: model chunk 0 holds no block}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [0, 8]>

// -----

// decoder_training_c12: a negative entry
// expected-error @+2 {{decoder_training_c12: pipeline_layout[1] = -1: model chunk 1 holds no block}}
// expected-error @+1 {{decoder_training_c13: pipeline_layout sums to 7 blocks; the model has blocks = 8}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [8, -1]>

// -----

// decoder_training_c13
// expected-error @+1 {{decoder_training_c13: pipeline_layout sums to 7 blocks; the model has blocks = 8}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [3, 4]>

// -----

// decoder_training_c11 .. c13 replace c3: 7 blocks over pp = 2 compose with
// an explicit layout ...
transformer.decoder_training @ok
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 7, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [3, 4]>
// ... but not without one.
// expected-error @+1 {{decoder_training_c3: blocks = 7 is not divisible by pp * virtual_stages = 2}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 7, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c11 with virtual stages: one entry per model chunk
// expected-error @+1 {{decoder_training_c11: pipeline_layout has 2 entries; it needs pp * virtual_stages = 4, one per model chunk}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b, pipeline_layout = [4, 4]>

// -----

// decoder_inference_c12: zero_stage is a training field
// expected-error @+1 {{decoder_inference_c12: zero_stage, bucket_bytes, pipeline_layout and overlap_tp_comm are training fields: inference needs zero_stage = 0, bucket_bytes = 0, no pipeline_layout and no overlap_tp_comm}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 2, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 1>

// -----

// decoder_inference_c12: bucket_bytes is a training field
// expected-error @+1 {{decoder_inference_c12: zero_stage, bucket_bytes, pipeline_layout and overlap_tp_comm are training fields: inference needs zero_stage = 0, bucket_bytes = 0, no pipeline_layout and no overlap_tp_comm}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 2, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, bucket_bytes = 1024>

// -----

// decoder_inference_c12: pipeline_layout is a training field
// expected-error @+1 {{decoder_inference_c12: zero_stage, bucket_bytes, pipeline_layout and overlap_tp_comm are training fields: inference needs zero_stage = 0, bucket_bytes = 0, no pipeline_layout and no overlap_tp_comm}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 2, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 2, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [4, 4]>

// -----

// decoder_inference_c12: overlap_tp_comm is a training field (the pairs it
// overlaps are backward GEMMs)
// expected-error @+1 {{decoder_inference_c12: zero_stage, bucket_bytes, pipeline_layout and overlap_tp_comm are training fields: inference needs zero_stage = 0, bucket_bytes = 0, no pipeline_layout and no overlap_tp_comm}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 2, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, overlap_tp_comm = true>

// -----

// overlap_tp_comm is a boolean
// expected-error @+5 {{expected integer value}}
// expected-error @+4 {{failed to parse Transformer_MappingAttr parameter 'overlap_tp_comm' which is to be a `bool`}}
transformer.decoder_training @t
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 2, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, overlap_tp_comm = yes>

// -----

// transformer_mapping_c1: the context-parallel degree is positive.
// expected-error @+4 {{transformer_mapping_c1: cp must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 8, tp = 4, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 0>

// -----

// transformer_mapping_c2 counts the context-parallel ranks: 4 * 2 * 1 * 2.
// expected-error @+4 {{transformer_mapping_c2: world = 8 differs from tp * cp * pp * dp = 4 * 2 * 1 * 2 = 16}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 8, tp = 4, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2>

// -----

// context_parallel_c1: 2 * cp = 8 load-balanced chunks do not divide 1020
// positions.
// expected-error @+1 {{context_parallel_c1: seq_length = 1020 is not divisible by 2 * cp (the load-balanced chunks) = 8}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 1020, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 4, cp_comm = all_gather>

// -----

// context_parallel_c2: sequence parallelism shards each CP rank's
// 520 / 4 = 130 tokens over tp = 4 (520 alone is divisible by tp and by 8).
// expected-error @+1 {{context_parallel_c2: seq_length / cp (tp_comm = reduce_scatter_all_gather) = 130 is not divisible by tp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 520, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b, cp = 4>

// -----

// context_parallel_c3: no context parallelism under a sliding window.
// expected-error @+1 {{context_parallel_c3: cp = 2 with attention_window = 128: context parallelism is defined for full causal attention; a sliding window needs cp = 1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, attention_window = 128>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 8, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2>

// -----

// decoder_training_c10 is reported at cp = 2: the micro-batch count is
// global_batch / (micro_batch * dp), the cp ranks share their sequences.
// expected-error @+1 {{decoder_training_c10: microbatches = 6 is not divisible by pp = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 6, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 8, tp = 1, pp = 4, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b, cp = 2>

// -----

// context_parallel_c1 (checked arithmetic): 2 * cp overflows.
// expected-error @+1 {{context_parallel_c1: 2 * cp overflows a 64-bit integer}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4611686018427387904, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 4611686018427387904>

// -----

// decoder_training_c14: MLA under tensor parallelism needs sequence
// parallelism (its duplicated down-projections run on the sequence shard).
// expected-error @+1 {{decoder_training_c14: multi-head latent attention (kv_lora_rank) under tp = 4 needs tp_comm = reduce_scatter_all_gather (sequence parallelism), got all_reduce}}
transformer.decoder_training @mla_without_sp
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, q_lora_rank = 256, kv_lora_rank = 128, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c15: tp divides the latent norms' parameters (their
// gradients join sp_param_grad_sync, split evenly over the TP ranks):
// 250 + 128 = 378 under RMSNorm.
// expected-error @+1 {{decoder_training_c15: the latent norms' parameters, (q_lora_rank + kv_lora_rank) x 1 = 378, are not divisible by tp = 4: their gradients join sp_param_grad_sync, whose message splits evenly over the TP ranks}}
transformer.decoder_training @mla_uneven_latent
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, q_lora_rank = 250, kv_lora_rank = 128, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c11: one expert is a dense MLP
// expected-error @+2 {{transformer_model_c11: experts must be at least 2 (one expert is a dense MLP), got 1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 1, experts_per_token = 1>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c12: k <= 0
// expected-error @+2 {{transformer_model_c12: experts_per_token must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 0>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c13: k > E
// expected-error @+2 {{transformer_model_c13: experts_per_token = 9 exceeds experts = 8: top-k routing picks k distinct experts}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 9>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c14: expert width
// expected-error @+2 {{transformer_model_c14: expert_ffn_hidden must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, expert_ffn_hidden = 0>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c14: layer frequency
// expected-error @+2 {{transformer_model_c14: moe_layer_frequency must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, moe_layer_frequency = 0>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c14: shared experts
// expected-error @+2 {{transformer_model_c14: shared_experts must not be negative, got -1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, shared_experts = -1>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c14: first dense blocks
// expected-error @+2 {{transformer_model_c14: first_dense_blocks must not be negative, got -2}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, first_dense_blocks = -2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c14: capacity factor
// expected-error @+2 {{transformer_model_c14: capacity_factor_percent must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, capacity_factor_percent = 0>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c15: every block dense (blocks 0..7: 6 and 7 are past first_dense_blocks, neither a multiple of 5)
// expected-error @+2 {{transformer_model_c15: no block has experts: first_dense_blocks = 6 and moe_layer_frequency = 5 leave all 8 blocks dense}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, first_dense_blocks = 6, moe_layer_frequency = 5>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c16: below the balanced load
// expected-error @+2 {{transformer_model_c16: expert_imbalance_percent = 99 must lie in [100, 100 * experts / experts_per_token] = [100, 400]: the worst expert carries at least the balanced load and at most every token}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, expert_imbalance_percent = 99>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c16: more than every token (8 * 100 / 2 = 400)
// expected-error @+2 {{transformer_model_c16: expert_imbalance_percent = 401 must lie in [100, 100 * experts / experts_per_token] = [100, 400]: the worst expert carries at least the balanced load and at most every token}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, expert_imbalance_percent = 401>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c16 (checked arithmetic): 100 * experts overflows and is
// named, not printed as a wrapped bound.
// expected-error @+2 {{transformer_model_c16: expert_imbalance_percent = 100: 100 * experts overflows a 64-bit integer}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 100000000000000000, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c17: group counts are positive
// expected-error @+2 {{transformer_model_c17: router_groups must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, router = sigmoid_group_limited, router_groups = 0>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c17: softmax_topk has no expert groups
// expected-error @+2 {{transformer_model_c17: router = softmax_topk has no expert groups: router_groups = 2 and router_groups_per_token = 1 must be 1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, router_groups = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c18: 8 experts do not split into 3 groups
// expected-error @+2 {{transformer_model_c18: router_groups = 3 must divide experts = 8 into groups of at least 2 experts: a group's score is the sum of its two best scores}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, router = sigmoid_group_limited, router_groups = 3>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c18: groups of one expert (8 groups of 8 experts) have no top-2
// expected-error @+2 {{transformer_model_c18: router_groups = 8 must divide experts = 8 into groups of at least 2 experts: a group's score is the sum of its two best scores}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, router = sigmoid_group_limited, router_groups = 8>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c18: more groups per token than groups
// expected-error @+2 {{transformer_model_c18: router_groups_per_token = 3 exceeds router_groups = 2}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, router = sigmoid_group_limited, router_groups = 2, router_groups_per_token = 3>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// transformer_model_c19: 1 of 4 groups of 2 experts holds 2 < k = 3 experts
// expected-error @+2 {{transformer_model_c19: experts_per_token = 3 exceeds the 2 experts of the router_groups_per_token = 1 selected groups of 2 experts}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 3, router = sigmoid_group_limited, router_groups = 4>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_moe_c2: MoE training under tp > 1 needs sequence parallelism
// (Megatron-Core MoELayer).
// expected-error @+1 {{decoder_moe_c2: mixture-of-experts training under tp = 2 needs tp_comm = reduce_scatter_all_gather (sequence parallelism), got all_reduce: the router runs on each rank's sequence shard}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_moe_c3: each expert is split over tp like the dense MLP.
// expected-error @+1 {{decoder_moe_c3: expert_ffn_hidden = 1000 is not divisible by tp = 16}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2, expert_ffn_hidden = 1000>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 16, tp = 16, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b>

// -----

// decoder_moe_c5: the experts' MLP biases are not derived yet (linear_bias
// defaults to all).
// expected-error @+1 {{decoder_moe_c5: linear_bias = all gives the experts' MLPs biases, whose work is not derived yet: an MoE block needs linear_bias = none or qkv}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, moe = <experts = 8, experts_per_token = 2, expert_imbalance_percent = 400>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_training_c15 without a query latent: kv_lora_rank = 126 alone.
// expected-error @+1 {{decoder_training_c15: the latent norms' parameters, (q_lora_rank + kv_lora_rank) x 1 = 126, are not divisible by tp = 4}}
transformer.decoder_training @mla_uneven_kv_latent
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, kv_lora_rank = 126, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b>

// -----

// transformer_mapping_c1: the expert-parallel degree is positive.
// expected-error @+4 {{transformer_mapping_c1: ep must be positive, got 0}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 0>

// -----

// expert_parallel_c1: EP is carved out of the data-parallel ranks
// (Megatron-LM), so ep = 4 cannot split dp = 2.
// expected-error @+1 {{expert_parallel_c1: dp = 2 is not divisible by ep = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 4>

// -----

// expert_parallel_c2: a dense model has no experts to split.
// expected-error @+1 {{expert_parallel_c2: ep = 2 needs a model with experts (moe): expert parallelism splits the experts of the MoE layers}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 2>

// -----

// expert_parallel_c3: each EP rank holds E / ep whole experts; 6 experts
// do not split over ep = 4 (dp = 4 is divisible by 4).
// expected-error @+1 {{expert_parallel_c3: experts = 6 is not divisible by ep = 4}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 6, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 1, dp = 4, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 4>

// -----

// expert_parallel_c8: ep = 2 composes (2 | dp = 2, 2 | E = 8, 2 | P_l =
// 2 * 1 * 2048) and its training work is derived, but not under ZeRO-3.
// expected-error @+1 {{expert_parallel_c8: zero_stage = 3 with ep = 2}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 3, ep = 2>

// -----

// expert_parallel_c5: ep = 2 with cp = 2 (world 4 = tp 1 * cp 2 * pp 1 *
// dp 2; 2 | dp, 2 | E = 8, 2 * cp = 4 | seq_length 2048) is refused:
// Megatron-LM's EP groups take the CP ranks first, which the mesh does not
// model.
// expected-error @+1 {{expert_parallel_c5: ep = 2 with cp = 2: Megatron-LM places expert-parallel groups over the context-parallel ranks first, which the mesh [pp, edp, ep, tp] does not model; expert parallelism needs cp = 1}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2, ep = 2>

// -----

// decoder_training_c17: overlapped data-parallel reductions are refused
// under ZeRO-3, whose per-pass gathers over dp are not modelled beside them
// (ZeRO-2 composes).
transformer.decoder_training @ok
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 2, overlap_dp_grad_reduce = true>
// expected-error @+1 {{decoder_training_c17: overlap_dp_grad_reduce (mapping.overlap.dp_grad_reduce) needs zero_stage 0, 1 or 2, got zero_stage = 3}}
transformer.decoder_training @m
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 1, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 3, overlap_dp_grad_reduce = true>

// -----

// decoder_inference_c13: a serving run has no gradient reduction to overlap
// expected-error @+1 {{decoder_inference_c13: overlap_dp_grad_reduce (mapping.overlap.dp_grad_reduce) is a training option: inference has no gradient reduction}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 2, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, overlap_dp_grad_reduce = true>
