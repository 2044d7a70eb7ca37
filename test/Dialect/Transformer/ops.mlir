// RUN: blueprint-opt %s | FileCheck %s
// RUN: blueprint-opt %s | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --emit-bytecode | blueprint-opt | FileCheck %s

// Fields at their defaults (kv_heads = heads, head_dim = hidden / heads,
// max_positions = seq_length, dropouts on) are not printed.
// CHECK-LABEL: transformer.decoder_training @gpt
// CHECK-SAME: model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
// CHECK-SAME: training = <global_batch = 32, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
// CHECK-SAME: mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
transformer.decoder_training @gpt
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu,
             kv_heads = 16, max_positions = 512>
    training = <global_batch = 32, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32, attention_dropout = true>
    mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// Grouped-query attention, an explicit head_dim, a longer position table,
// RMSNorm with SwiGLU, no dropout, sequence parallelism with selective
// recompute under the interleaved schedule.
// CHECK-LABEL: transformer.decoder_training @llama_like
// CHECK-SAME: norm = rmsnorm, activation = swiglu, kv_heads = 8, max_positions = 8192>
// head_dim = 128 is hidden / heads, so it is not printed.
// CHECK-SAME: activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32, attention_dropout = false, hidden_dropout = false>
// CHECK-SAME: mapping = <world = 64, tp = 8, pp = 4, dp = 2, virtual_stages = 2, tp_comm = reduce_scatter_all_gather, recompute = selective, schedule = interleaved_one_f_one_b>
transformer.decoder_training @llama_like
    model = <hidden = 4096, heads = 32, ffn_hidden = 14336, seq_length = 4096,
             vocab = 128256, blocks = 32, norm = rmsnorm, activation = swiglu,
             kv_heads = 8, max_positions = 8192>
    training = <global_batch = 64, micro_batch = 1, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32, attention_dropout = false,
                hidden_dropout = false>
    mapping = <world = 64, tp = 8, pp = 4, dp = 2, virtual_stages = 2,
               tp_comm = reduce_scatter_all_gather, recompute = selective,
               schedule = interleaved_one_f_one_b>

// The model semantics of today's open models (a Mistral-like block): no
// linear biases, rotary positions, untied embeddings, a sliding window. Their
// defaults (linear_bias = all, position_embedding = learned,
// tied_embeddings = true, no window) are not printed.
// CHECK-LABEL: transformer.decoder_training @mistral_like
// CHECK-SAME: kv_heads = 8, max_positions = 32768, linear_bias = none, position_embedding = rotary, tied_embeddings = false, attention_window = 4096>
transformer.decoder_training @mistral_like
    model = <hidden = 4096, heads = 32, ffn_hidden = 14336, seq_length = 8192,
             vocab = 32000, blocks = 32, norm = rmsnorm, activation = swiglu,
             kv_heads = 8, max_positions = 32768, linear_bias = none,
             position_embedding = rotary, tied_embeddings = false,
             attention_window = 4096>
    training = <global_batch = 64, micro_batch = 1, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// CHECK-LABEL: transformer.decoder_training @defaults_spelled_out
// CHECK-SAME: norm = layernorm, activation = gelu>
// CHECK-LABEL: transformer.decoder_training @qkv_bias
// CHECK-SAME: activation = swiglu, linear_bias = qkv>
transformer.decoder_training @defaults_spelled_out
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu,
             linear_bias = all, position_embedding = learned,
             tied_embeddings = true>
    training = <global_batch = 4, micro_batch = 1, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
transformer.decoder_training @qkv_bias
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu,
             linear_bias = qkv>
    training = <global_batch = 4, micro_batch = 1, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// Multi-head latent attention, DeepSeek-V3's attention: head_dim resolves to
// qk_nope_head_dim + qk_rope_head_dim = 192 (not hidden / heads = 56) and,
// spelled out at that default, is dropped; without a query latent
// q_lora_rank is absent.
// CHECK-LABEL: transformer.decoder_training @deepseek_v3_like
// CHECK-SAME: activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, q_lora_rank = 1536, kv_lora_rank = 512, qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128>
// CHECK-LABEL: transformer.decoder_training @deepseek_v2_lite_like
// CHECK-SAME: position_embedding = rotary, kv_lora_rank = 512, qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128>
transformer.decoder_training @deepseek_v3_like
    model = <hidden = 7168, heads = 128, ffn_hidden = 18432, seq_length = 4096,
             vocab = 129280, blocks = 61, norm = rmsnorm, activation = swiglu,
             head_dim = 192, linear_bias = none, position_embedding = rotary,
             tied_embeddings = false, q_lora_rank = 1536, kv_lora_rank = 512,
             qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128>
    training = <global_batch = 64, micro_batch = 1, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = none,
               schedule = one_f_one_b>
transformer.decoder_training @deepseek_v2_lite_like
    model = <hidden = 2048, heads = 16, ffn_hidden = 10944, seq_length = 4096,
             vocab = 102400, blocks = 27, norm = rmsnorm, activation = swiglu,
             linear_bias = none, position_embedding = rotary,
             kv_lora_rank = 512, qk_nope_head_dim = 128, qk_rope_head_dim = 64,
             v_head_dim = 128>
    training = <global_batch = 64, micro_batch = 1, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = none,
               schedule = one_f_one_b>

// Every remaining closed-set value.
// CHECK-LABEL: transformer.decoder_training @small
// CHECK-SAME: activation = relu
// CHECK-SAME: activation_type = f16, weight_type = fp8, gradient_type = f16, optimizer_state_type = f32
// CHECK-SAME: recompute = full, schedule = gpipe
transformer.decoder_training @small
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = relu>
    training = <global_batch = 4, micro_batch = 1, activation_type = f16,
                weight_type = fp8, gradient_type = f16,
                optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = full, schedule = gpipe>

// An inference run: prefill and decode over a KV cache.
// CHECK-LABEL: transformer.decoder_inference @serve
// CHECK-SAME: model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu, kv_heads = 4, max_positions = 1024>
// CHECK-SAME: inference = <batch = 8, prompt_length = 512, generated_tokens = 128, activation_type = bf16, weight_type = bf16, kv_cache_type = fp8>
// CHECK-SAME: mapping = <world = 8, tp = 4, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
transformer.decoder_inference @serve
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu,
             kv_heads = 4, max_positions = 1024>
    inference = <batch = 8, prompt_length = 512, generated_tokens = 128,
                 activation_type = bf16, weight_type = bf16,
                 kv_cache_type = fp8>
    mapping = <world = 8, tp = 4, pp = 1, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// cp = 1 is the default and not printed; cp_comm is printed when it is not
// the default ring, and cp = 1 with either exchange is today's run.
// CHECK-LABEL: transformer.decoder_training @cp_fields
// CHECK-SAME: mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp_comm = all_gather>
transformer.decoder_training @cp_fields
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 32, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b,
               cp = 1, cp_comm = all_gather>

// overlap_tp_comm is printed only when true: a mapping without it, or with
// it false, prints as before.
// CHECK-LABEL: transformer.decoder_training @overlap_fields
// CHECK-SAME: schedule = one_f_one_b, overlap_tp_comm = true>
transformer.decoder_training @overlap_fields
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 32, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b,
               overlap_tp_comm = true>
// CHECK-LABEL: transformer.decoder_training @overlap_false
// CHECK-SAME: schedule = one_f_one_b>
transformer.decoder_training @overlap_false
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 32, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b,
               overlap_tp_comm = false>
// overlap_p2p_comm (pipeline sends overlapped with compute) likewise: printed
// only when true.
// CHECK-LABEL: transformer.decoder_training @overlap_p2p
// CHECK-SAME: schedule = one_f_one_b, overlap_p2p_comm = true>
transformer.decoder_training @overlap_p2p
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 32, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b,
               overlap_p2p_comm = true>
// CHECK-LABEL: transformer.decoder_training @overlap_p2p_false
// CHECK-SAME: schedule = one_f_one_b>
transformer.decoder_training @overlap_p2p_false
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512,
             vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    training = <global_batch = 32, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 16, tp = 4, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b,
               overlap_p2p_comm = false>
