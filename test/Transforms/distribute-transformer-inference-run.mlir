// Golden whole-run DistributedTaskIR (docs/WholeRun.md, "Inference runs") of
// a small model's whole generation: 4 blocks, PP 2, TP 2, DP 2, grouped-query
// attention with 2 key/value heads, 2 sequences per replica with 8-token
// prompts and 3 generated tokens: the prefill template (per_generation), the
// decode templates at context 9 and 10 (per_decode_step), and on each stage
// the prefill then both decode steps, with the block outputs sent from stage
// 0 to stage 1 and the sampled tokens of steps 0 and 1 sent back.
// Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer=scope=iteration
// and review the difference; the totals are checked against
// deriveInferenceGeneration's closed forms in test/Unit/WholeRunTest.cpp.
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration | FileCheck %s
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --verify-conservation --work-summary | FileCheck %s --check-prefix=SUMMARY
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --work-summary=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --expand-whole-run --verify-conservation --plan-portable --verify-conservation -o /dev/null

// SUMMARY: program @serve, stage 0 (one rank, the whole generation): 3 pipeline messages sent (2560 bytes), 2 received (32 bytes), KV cache written 2560 bytes
// SUMMARY: program @serve, stage 1 (one rank, the whole generation): 2 pipeline messages sent (32 bytes), 3 received (2560 bytes), KV cache written 2560 bytes
// SUMMARY: program @serve, the whole generation (2 stages x 4 ranks): 20 pipeline messages (10368 bytes)
// JSON: "kv_cache_write_bytes": 2560,
// JSON: "kv_cache_write_bytes": 2560,

// CHECK-LABEL: dist.program @serve source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16, vocab = 128, blocks = 4, norm = layernorm, activation = gelu, kv_heads = 2> inference = <batch = 4, prompt_length = 8, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 8, tp = 2, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 2]
// CHECK-NEXT: dist.template @block_prefill block prefill {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" prefill vector per_generation on @mesh ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" prefill matmul per_generation on @mesh ops = 131072 gemm = [1, 16, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 2048} writes {k = 512, q = 1024, v = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "kv_cache_write" prefill vector per_generation on @mesh ops = 0 reads {k = 512, v = 512} writes {k_cache = 512, v_cache = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" prefill matmul per_generation on @mesh ops = 8192 gemm = [4, 8, 8, 16] reads {k = 512, q = 1024} writes {scores = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" prefill vector per_generation on @mesh ops = 1824 reads {scores = 512} writes {probs = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" prefill matmul per_generation on @mesh ops = 8192 gemm = [4, 8, 16, 8] reads {probs = 512, v = 512} writes {context = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" prefill matmul per_generation on @mesh ops = 65536 gemm = [1, 16, 64, 32] reads {context = 1024, w_out = 4096} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" prefill per_generation on @mesh axes = ["tp"] reduction = sum participants = 2 message = 2048 ops = 512 reads {attn_proj = 2048} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" prefill vector per_generation on @mesh ops = 1024 reads {attn_proj = 2048, b_out = 128} writes {attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" prefill vector per_generation on @mesh ops = 1024 reads {attn_out = 2048, x = 2048} writes {h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" prefill vector per_generation on @mesh ops = 7232 reads {h_attn = 2048, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" prefill matmul per_generation on @mesh ops = 262144 gemm = [1, 16, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 2048} writes {fc1_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" prefill vector per_generation on @mesh ops = 18432 reads {fc1_out = 4096} writes {act_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" prefill matmul per_generation on @mesh ops = 262144 gemm = [1, 16, 64, 128] reads {act_out = 4096, w_fc2 = 16384} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" prefill per_generation on @mesh axes = ["tp"] reduction = sum participants = 2 message = 2048 ops = 512 reads {mlp_proj = 2048} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" prefill vector per_generation on @mesh ops = 1024 reads {b_fc2 = 128, mlp_proj = 2048} writes {mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" prefill vector per_generation on @mesh ops = 1024 reads {h_attn = 2048, mlp_out = 2048} writes {y = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_decode_9 block decode context 9 {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" decode vector per_decode_step on @mesh ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" decode matmul per_decode_step on @mesh ops = 16384 gemm = [1, 2, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 256} writes {k = 64, q = 128, v = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "kv_cache_write" decode vector per_decode_step on @mesh ops = 0 reads {k = 64, v = 64} writes {k_cache = 64, v_cache = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" decode matmul per_decode_step on @mesh ops = 1152 gemm = [4, 1, 9, 16] reads {k_cache = 576, q = 128} writes {scores = 72} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" decode vector per_decode_step on @mesh ops = 220 reads {scores = 72} writes {probs = 72} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" decode matmul per_decode_step on @mesh ops = 1152 gemm = [4, 1, 16, 9] reads {probs = 72, v_cache = 576} writes {context = 128} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" decode matmul per_decode_step on @mesh ops = 8192 gemm = [1, 2, 64, 32] reads {context = 128, w_out = 4096} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" decode per_decode_step on @mesh axes = ["tp"] reduction = sum participants = 2 message = 256 ops = 64 reads {attn_proj = 256} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" decode vector per_decode_step on @mesh ops = 128 reads {attn_proj = 256, b_out = 128} writes {attn_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" decode vector per_decode_step on @mesh ops = 128 reads {attn_out = 256, x = 256} writes {h_attn = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" decode vector per_decode_step on @mesh ops = 904 reads {h_attn = 256, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" decode matmul per_decode_step on @mesh ops = 32768 gemm = [1, 2, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 256} writes {fc1_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" decode vector per_decode_step on @mesh ops = 2304 reads {fc1_out = 512} writes {act_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" decode matmul per_decode_step on @mesh ops = 32768 gemm = [1, 2, 64, 128] reads {act_out = 512, w_fc2 = 16384} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" decode per_decode_step on @mesh axes = ["tp"] reduction = sum participants = 2 message = 256 ops = 64 reads {mlp_proj = 256} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" decode vector per_decode_step on @mesh ops = 128 reads {b_fc2 = 128, mlp_proj = 256} writes {mlp_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" decode vector per_decode_step on @mesh ops = 128 reads {h_attn = 256, mlp_out = 256} writes {y = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_decode_10 block decode context 10 {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" decode vector per_decode_step on @mesh ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" decode matmul per_decode_step on @mesh ops = 16384 gemm = [1, 2, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 256} writes {k = 64, q = 128, v = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "kv_cache_write" decode vector per_decode_step on @mesh ops = 0 reads {k = 64, v = 64} writes {k_cache = 64, v_cache = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" decode matmul per_decode_step on @mesh ops = 1280 gemm = [4, 1, 10, 16] reads {k_cache = 640, q = 128} writes {scores = 80} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" decode vector per_decode_step on @mesh ops = 244 reads {scores = 80} writes {probs = 80} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" decode matmul per_decode_step on @mesh ops = 1280 gemm = [4, 1, 16, 10] reads {probs = 80, v_cache = 640} writes {context = 128} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" decode matmul per_decode_step on @mesh ops = 8192 gemm = [1, 2, 64, 32] reads {context = 128, w_out = 4096} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" decode per_decode_step on @mesh axes = ["tp"] reduction = sum participants = 2 message = 256 ops = 64 reads {attn_proj = 256} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" decode vector per_decode_step on @mesh ops = 128 reads {attn_proj = 256, b_out = 128} writes {attn_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" decode vector per_decode_step on @mesh ops = 128 reads {attn_out = 256, x = 256} writes {h_attn = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" decode vector per_decode_step on @mesh ops = 904 reads {h_attn = 256, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" decode matmul per_decode_step on @mesh ops = 32768 gemm = [1, 2, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 256} writes {fc1_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" decode vector per_decode_step on @mesh ops = 2304 reads {fc1_out = 512} writes {act_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" decode matmul per_decode_step on @mesh ops = 32768 gemm = [1, 2, 64, 128] reads {act_out = 512, w_fc2 = 16384} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" decode per_decode_step on @mesh axes = ["tp"] reduction = sum participants = 2 message = 256 ops = 64 reads {mlp_proj = 256} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" decode vector per_decode_step on @mesh ops = 128 reads {b_fc2 = 128, mlp_proj = 256} writes {mlp_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" decode vector per_decode_step on @mesh ops = 128 reads {h_attn = 256, mlp_out = 256} writes {y = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 2]
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_decode_10 chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_prefill chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_decode_9 chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_decode_10 chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
transformer.decoder_inference @serve
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16,
             vocab = 128, blocks = 4, norm = layernorm, activation = gelu,
             kv_heads = 2>
    inference = <batch = 4, prompt_length = 8, generated_tokens = 3,
                 activation_type = bf16, weight_type = bf16,
                 kv_cache_type = bf16>
    mapping = <world = 8, tp = 2, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
