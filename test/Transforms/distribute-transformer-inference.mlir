// Golden DistributedTaskIR of a small model's inference (h = 64, a = 4,
// grouped-query attention with 2 key/value heads, TP = 2): the prefill of an
// 8-token prompt for 2 sequences (per_generation) and the decode step at the
// last context length 8 + 4 - 1 = 11 (per_decode_step), with the KV cache as
// a boundary. Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer
// and review the difference; the counts are checked against closed forms in
// test/Unit/InferenceTest.cpp.
// RUN: blueprint-opt %s --distribute-transformer | FileCheck %s
// RUN: blueprint-opt %s --distribute-transformer --verify-conservation --plan-portable --verify-conservation -o /dev/null

// CHECK-LABEL: dist.program @serve source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, kv_heads = 2> inference = <batch = 2, prompt_length = 8, generated_tokens = 4, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 11 mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @tp_mesh axes = ["tp"] shape = [2]
// CHECK-NEXT: dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1]
// CHECK-NEXT: dist.boundary @w_qkv parameter : tensor<64x128xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @b_qkv parameter : tensor<128xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1]
// CHECK-NEXT: dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1]
// CHECK-NEXT: dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1]
// CHECK-NEXT: dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1]
// CHECK-NEXT: dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1]
// CHECK-NEXT: dist.boundary @k_cache kv_cache : tensor<2x11x32xbf16> sharding = <@tp_mesh, {{\[\[}}], [], ["tp"]]> owners = [0, 1]
// CHECK-NEXT: dist.boundary @v_cache kv_cache : tensor<2x11x32xbf16> sharding = <@tp_mesh, {{\[\[}}], [], ["tp"]]> owners = [0, 1]
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" prefill matmul per_generation on @tp_mesh ranks [0, 1] ops = 131072 gemm = [1, 16, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 2048} writes {k = 512, q = 1024, v = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "kv_cache_write" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 0 reads {k = 512, v = 512} writes {k_cache = 512, v_cache = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" prefill matmul per_generation on @tp_mesh ranks [0, 1] ops = 8192 gemm = [4, 8, 8, 16] reads {k = 512, q = 1024} writes {scores = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 1824 reads {scores = 512} writes {probs = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" prefill matmul per_generation on @tp_mesh ranks [0, 1] ops = 8192 gemm = [4, 8, 16, 8] reads {probs = 512, v = 512} writes {context = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" prefill matmul per_generation on @tp_mesh ranks [0, 1] ops = 65536 gemm = [1, 16, 64, 32] reads {context = 1024, w_out = 4096} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" prefill per_generation on @tp_mesh ranks [0, 1] axes = ["tp"] reduction = sum participants = 2 message = 2048 ops = 512 reads {attn_proj = 2048} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 1024 reads {attn_proj = 2048, b_out = 128} writes {attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 1024 reads {attn_out = 2048, x = 2048} writes {h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 7232 reads {h_attn = 2048, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" prefill matmul per_generation on @tp_mesh ranks [0, 1] ops = 262144 gemm = [1, 16, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 2048} writes {fc1_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 18432 reads {fc1_out = 4096} writes {act_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" prefill matmul per_generation on @tp_mesh ranks [0, 1] ops = 262144 gemm = [1, 16, 64, 128] reads {act_out = 4096, w_fc2 = 16384} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" prefill per_generation on @tp_mesh ranks [0, 1] axes = ["tp"] reduction = sum participants = 2 message = 2048 ops = 512 reads {mlp_proj = 2048} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 1024 reads {b_fc2 = 128, mlp_proj = 2048} writes {mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" prefill vector per_generation on @tp_mesh ranks [0, 1] ops = 1024 reads {h_attn = 2048, mlp_out = 2048} writes {y = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" decode matmul per_decode_step on @tp_mesh ranks [0, 1] ops = 16384 gemm = [1, 2, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 256} writes {k = 64, q = 128, v = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "kv_cache_write" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 0 reads {k = 64, v = 64} writes {k_cache = 64, v_cache = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" decode matmul per_decode_step on @tp_mesh ranks [0, 1] ops = 1408 gemm = [4, 1, 11, 16] reads {k_cache = 704, q = 128} writes {scores = 88} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 268 reads {scores = 88} writes {probs = 88} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" decode matmul per_decode_step on @tp_mesh ranks [0, 1] ops = 1408 gemm = [4, 1, 16, 11] reads {probs = 88, v_cache = 704} writes {context = 128} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" decode matmul per_decode_step on @tp_mesh ranks [0, 1] ops = 8192 gemm = [1, 2, 64, 32] reads {context = 128, w_out = 4096} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" decode per_decode_step on @tp_mesh ranks [0, 1] axes = ["tp"] reduction = sum participants = 2 message = 256 ops = 64 reads {attn_proj = 256} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 128 reads {attn_proj = 256, b_out = 128} writes {attn_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 128 reads {attn_out = 256, x = 256} writes {h_attn = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 904 reads {h_attn = 256, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" decode matmul per_decode_step on @tp_mesh ranks [0, 1] ops = 32768 gemm = [1, 2, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 256} writes {fc1_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 2304 reads {fc1_out = 512} writes {act_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" decode matmul per_decode_step on @tp_mesh ranks [0, 1] ops = 32768 gemm = [1, 2, 64, 128] reads {act_out = 512, w_fc2 = 16384} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" decode per_decode_step on @tp_mesh ranks [0, 1] axes = ["tp"] reduction = sum participants = 2 message = 256 ops = 64 reads {mlp_proj = 256} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 128 reads {b_fc2 = 128, mlp_proj = 256} writes {mlp_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" decode vector per_decode_step on @tp_mesh ranks [0, 1] ops = 128 reads {h_attn = 256, mlp_out = 256} writes {y = 256} stashed {} after(%{{[0-9]+}})
transformer.decoder_inference @serve
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu,
             kv_heads = 2>
    inference = <batch = 2, prompt_length = 8, generated_tokens = 4,
                 activation_type = bf16, weight_type = bf16,
                 kv_cache_type = bf16>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
