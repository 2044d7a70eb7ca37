// RUN: blueprint-opt %s -split-input-file -verify-diagnostics

// The rules of transformer.decoder_inference (docs/Inference.md); the model
// and mapping contracts' own rules are those of training (invalid.mlir).

// transformer_inference_c1
// expected-error @+3 {{transformer_inference_c1: batch must be positive, got 0}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 0, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_inference_c1
// expected-error @+1 {{decoder_inference_c1: batch = 6 is not divisible by dp = 4}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 6, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 1, pp = 1, dp = 4, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_inference_c2
// expected-error @+1 {{decoder_inference_c2: blocks = 6 is not divisible by pp = 4}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 6, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 1, pp = 4, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_inference_c3 and c4 (kv_heads defaults to heads)
// expected-error @+2 {{decoder_inference_c3: heads = 18 is not divisible by tp = 4}}
// expected-error @+1 {{decoder_inference_c4: kv_heads = 18 is not divisible by tp = 4}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 18, head_dim = 64, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_inference_c8
// expected-error @+1 {{decoder_inference_c8: prompt_length + generated_tokens = 256 + 300 = 556 exceeds max_positions = 512}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 300, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// decoder_inference_c9
// expected-error @+1 {{decoder_inference_c9: inference has no backward pass: recompute must be none, got selective}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = selective, schedule = one_f_one_b>

// -----

// decoder_inference_c10
// expected-error @+1 {{decoder_inference_c10: inference runs no interleaved pipeline schedule: virtual_stages must be 1, got 2}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 8, tp = 4, pp = 2, dp = 1, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>

// -----

// decoder_inference_c11
// expected-error @+1 {{decoder_inference_c11: tp_comm = reduce_scatter_all_gather with tp = 4: a decode step's single position per sequence cannot be split by sequence parallelism; inference needs all_reduce}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b>

// -----

// decoder_inference_c5 .. c7
// expected-error @+3 {{decoder_inference_c5: hidden = 1020 is not divisible by tp = 8}}
// expected-error @+2 {{decoder_inference_c6: ffn_hidden = 4100 is not divisible by tp = 8}}
// expected-error @+1 {{decoder_inference_c7: vocab = 1001 is not divisible by tp = 8}}
transformer.decoder_inference @s
    model = <hidden = 1020, heads = 16, ffn_hidden = 4100, seq_length = 512, vocab = 1001, blocks = 8, norm = layernorm, activation = gelu, head_dim = 64>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// context_parallel_c4: inference runs without context parallelism.
// expected-error @+1 {{context_parallel_c4: cp = 2: inference runs without context parallelism (a decode step's single position per sequence cannot be split); cp must be 1}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = layernorm, activation = gelu>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 8, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2>

// -----

// decoder_moe_c3: serving splits every expert over tp as training does.
// expected-error @+1 {{decoder_moe_c3: expert_ffn_hidden = 1002 is not divisible by tp = 4}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2, expert_ffn_hidden = 1002>>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// expert_parallel_c1 .. c3 hold for serving too; c6, serving's own rule,
// refuses ep = 2 (the serving all-to-alls are not derived). dp = 2 and E = 8
// split over ep = 2.
// expected-error @+1 {{expert_parallel_c6: ep = 2: serving with expert parallelism}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    inference = <batch = 8, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 2>

// -----

// expert_parallel_c3 in serving: 8 experts do not split over ep = 16
// (dp = 16 does); serving's own rule c6 is reported with it.
// expected-error @+2 {{expert_parallel_c3: experts = 8 is not divisible by ep = 16}}
// expected-error @+1 {{expert_parallel_c6: ep = 16: serving with expert parallelism}}
transformer.decoder_inference @s
    model = <hidden = 1024, heads = 16, ffn_hidden = 4096, seq_length = 512, vocab = 1024, blocks = 8, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 8, experts_per_token = 2>>
    inference = <batch = 16, prompt_length = 256, generated_tokens = 64, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16>
    mapping = <world = 16, tp = 1, pp = 1, dp = 16, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 16>
