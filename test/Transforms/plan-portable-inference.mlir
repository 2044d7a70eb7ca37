// Golden PortablePlanIR of a small model's inference (h = 64, a = 4,
// grouped-query attention with 2 key/value heads, TP = 2): the prefill of an
// 8-token prompt for 2 sequences (per_generation) and the decode step at the
// last context length 8 + 4 - 1 = 11 (per_decode_step), with the KV cache as
// a boundary. Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer --plan-portable
// and review the difference; the counts are checked against closed forms in
// test/Unit/InferenceTest.cpp.
// RUN: blueprint-opt %s --distribute-transformer --plan-portable | FileCheck %s

// CHECK-LABEL: pplan.plan @serve source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, kv_heads = 2> inference = <batch = 2, prompt_length = 8, generated_tokens = 4, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 11 mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @prefill serial
// CHECK-NEXT: pplan.group @decode serial
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" prefill matmul per_generation requires @matmul group @prefill demand = <compute = 131072, memory = 12416, network = 0> ops = 131072 gemm = [1, 16, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 2048} writes {k = 512, q = 1024, v = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "kv_cache_write" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 0, memory = 2048, network = 0> ops = 0 reads {k = 512, v = 512} writes {k_cache = 512, v_cache = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" prefill matmul per_generation requires @matmul group @prefill demand = <compute = 8192, memory = 2048, network = 0> ops = 8192 gemm = [4, 8, 8, 16] reads {k = 512, q = 1024} writes {scores = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 1824, memory = 1024, network = 0> ops = 1824 reads {scores = 512} writes {probs = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" prefill matmul per_generation requires @matmul group @prefill demand = <compute = 8192, memory = 2048, network = 0> ops = 8192 gemm = [4, 8, 16, 8] reads {probs = 512, v = 512} writes {context = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" prefill matmul per_generation requires @matmul group @prefill demand = <compute = 65536, memory = 7168, network = 0> ops = 65536 gemm = [1, 16, 64, 32] reads {context = 1024, w_out = 4096} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_g" prefill collective per_generation requires @collective_all_reduce group @prefill demand = <compute = 512, memory = 4096, network = 2048> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 2048> ops = 512 reads {attn_proj = 2048} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 1024, memory = 4224, network = 0> ops = 1024 reads {attn_proj = 2048, b_out = 128} writes {attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 1024, memory = 6144, network = 0> ops = 1024 reads {attn_out = 2048, x = 2048} writes {h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {h_attn = 2048, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" prefill matmul per_generation requires @matmul group @prefill demand = <compute = 262144, memory = 22784, network = 0> ops = 262144 gemm = [1, 16, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 2048} writes {fc1_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 18432, memory = 8192, network = 0> ops = 18432 reads {fc1_out = 4096} writes {act_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" prefill matmul per_generation requires @matmul group @prefill demand = <compute = 262144, memory = 22528, network = 0> ops = 262144 gemm = [1, 16, 64, 128] reads {act_out = 4096, w_fc2 = 16384} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_g" prefill collective per_generation requires @collective_all_reduce group @prefill demand = <compute = 512, memory = 4096, network = 2048> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 2048> ops = 512 reads {mlp_proj = 2048} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 1024, memory = 4224, network = 0> ops = 1024 reads {b_fc2 = 128, mlp_proj = 2048} writes {mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 1024, memory = 6144, network = 0> ops = 1024 reads {h_attn = 2048, mlp_out = 2048} writes {y = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 16384, memory = 8832, network = 0> ops = 16384 gemm = [1, 2, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 256} writes {k = 64, q = 128, v = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "kv_cache_write" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 0, memory = 256, network = 0> ops = 0 reads {k = 64, v = 64} writes {k_cache = 64, v_cache = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 1408, memory = 920, network = 0> ops = 1408 gemm = [4, 1, 11, 16] reads {k_cache = 704, q = 128} writes {scores = 88} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 268, memory = 176, network = 0> ops = 268 reads {scores = 88} writes {probs = 88} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 1408, memory = 920, network = 0> ops = 1408 gemm = [4, 1, 16, 11] reads {probs = 88, v_cache = 704} writes {context = 128} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 8192, memory = 4480, network = 0> ops = 8192 gemm = [1, 2, 64, 32] reads {context = 128, w_out = 4096} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_g" decode collective per_decode_step requires @collective_all_reduce group @decode demand = <compute = 64, memory = 512, network = 256> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 256> ops = 64 reads {attn_proj = 256} writes {attn_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 128, memory = 640, network = 0> ops = 128 reads {attn_proj = 256, b_out = 128} writes {attn_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 128, memory = 768, network = 0> ops = 128 reads {attn_out = 256, x = 256} writes {h_attn = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {h_attn = 256, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 32768, memory = 17408, network = 0> ops = 32768 gemm = [1, 2, 128, 64] reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 256} writes {fc1_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 2304, memory = 1024, network = 0> ops = 2304 reads {fc1_out = 512} writes {act_out = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 32768, memory = 17152, network = 0> ops = 32768 gemm = [1, 2, 64, 128] reads {act_out = 512, w_fc2 = 16384} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_g" decode collective per_decode_step requires @collective_all_reduce group @decode demand = <compute = 64, memory = 512, network = 256> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 256> ops = 64 reads {mlp_proj = 256} writes {mlp_proj = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 128, memory = 640, network = 0> ops = 128 reads {b_fc2 = 128, mlp_proj = 256} writes {mlp_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 128, memory = 768, network = 0> ops = 128 reads {h_attn = 256, mlp_out = 256} writes {y = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm1_gamma boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_qkv boundary bytes = 8192 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_qkv boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_out boundary bytes = 4096 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_out boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm2_gamma boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_fc1 boundary bytes = 16384 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_fc1 boundary bytes = 256 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_fc2 boundary bytes = 16384 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_fc2 boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm1_beta boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm2_beta boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @k_cache boundary bytes = 704 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @v_cache boundary bytes = 704 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger per_generation prefill matmul invocations = 6 ops = 737280 read = 57216 write = 11776 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_generation prefill vector invocations = 9 ops = 38816 read = 22784 write = 17920 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_generation prefill collective invocations = 2 ops = 1024 read = 4096 write = 4096 message = 4096 stash = 0
// CHECK-NEXT: pplan.ledger per_decode_step decode matmul invocations = 6 ops = 92928 read = 48216 write = 1496 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_decode_step decode vector invocations = 9 ops = 4892 read = 3544 write = 2264 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_decode_step decode collective invocations = 2 ops = 128 read = 512 write = 512 message = 512 stash = 0
transformer.decoder_inference @serve
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu,
             kv_heads = 2>
    inference = <batch = 2, prompt_length = 8, generated_tokens = 4,
                 activation_type = bf16, weight_type = bf16,
                 kv_cache_type = bf16>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
