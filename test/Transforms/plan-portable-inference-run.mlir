// The portable plan of a whole generation (docs/WholeRun.md, "Inference
// runs"; docs/PPlanSpec.md, "Whole run"): the prefill and decode templates
// with their context lengths, each stage's instances and transfers, one
// communication buffer per activation and token message (a token of step t
// is made by the last stage's step t and read by the first stage's step
// t + 1), and one per_generation ledger row per stage, phase and engine,
// which pplan_plan_c7 checks against the stage's instances.
// Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer=scope=iteration --plan-portable
// and review the difference.
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --plan-portable | FileCheck %s

// CHECK-LABEL: pplan.plan @serve source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16, vocab = 128, blocks = 4, norm = layernorm, activation = gelu, kv_heads = 2> inference = <batch = 4, prompt_length = 8, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 8, tp = 2, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @prefill serial
// CHECK-NEXT: pplan.group @decode serial
// CHECK-NEXT: pplan.group @stage_0 serial
// CHECK-NEXT: pplan.group @stage_1 serial
// CHECK-NEXT: pplan.template @block_prefill block prefill {
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
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_decode_9 block decode context 9 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 16384, memory = 8832, network = 0> ops = 16384 gemm = [1, 2, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 256} writes {k = 64, q = 128, v = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "kv_cache_write" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 0, memory = 256, network = 0> ops = 0 reads {k = 64, v = 64} writes {k_cache = 64, v_cache = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 1152, memory = 776, network = 0> ops = 1152 gemm = [4, 1, 9, 16] reads {k_cache = 576, q = 128} writes {scores = 72} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 220, memory = 144, network = 0> ops = 220 reads {scores = 72} writes {probs = 72} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 1152, memory = 776, network = 0> ops = 1152 gemm = [4, 1, 16, 9] reads {probs = 72, v_cache = 576} writes {context = 128} stashed {} after(%{{[0-9]+}})
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
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_decode_10 block decode context 10 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 16384, memory = 8832, network = 0> ops = 16384 gemm = [1, 2, 64, 64] reads {b_qkv = 128, w_qkv = 8192, x_norm1 = 256} writes {k = 64, q = 128, v = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "kv_cache_write" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 0, memory = 256, network = 0> ops = 0 reads {k = 64, v = 64} writes {k_cache = 64, v_cache = 64} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 1280, memory = 848, network = 0> ops = 1280 gemm = [4, 1, 10, 16] reads {k_cache = 640, q = 128} writes {scores = 80} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 244, memory = 160, network = 0> ops = 244 reads {scores = 80} writes {probs = 80} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" decode matmul per_decode_step requires @matmul group @decode demand = <compute = 1280, memory = 848, network = 0> ops = 1280 gemm = [4, 1, 16, 10] reads {probs = 80, v_cache = 640} writes {context = 128} stashed {} after(%{{[0-9]+}})
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
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 0 group @stage_0 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 2]
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_decode_10 chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 102656 live [0, 7]
// CHECK-NEXT: pplan.buffer @work_0 temporary cause working_set bytes = 10240 live [0, 0] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @kv_cache_mb0_chunk0 stash cause kv_cache bytes = 2048 live [0, 6] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_3 temporary cause working_set bytes = 1280 live [3, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @kv_cache_mb1_chunk0 stash cause kv_cache bytes = 256 live [3, 6] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_token_mb1_chunk1 communication cause pipeline_receive bytes = 16 live [5, 6] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_6 temporary cause working_set bytes = 1280 live [6, 6] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @kv_cache_mb2_chunk0 stash cause kv_cache bytes = 256 live [6, 6] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb2_chunk0 communication cause pipeline_send bytes = 256 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 1 group @stage_1 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_decode_10 chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 100864 live [0, 7]
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 10240 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @kv_cache_mb0_chunk1 stash cause kv_cache bytes = 2048 live [1, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 1280 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @kv_cache_mb1_chunk1 stash cause kv_cache bytes = 256 live [4, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_token_mb1_chunk1 communication cause pipeline_send bytes = 16 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb2_chunk0 communication cause pipeline_receive bytes = 256 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 1280 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @kv_cache_mb2_chunk1 stash cause kv_cache bytes = 256 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger stage 0 per_generation prefill matmul invocations = 12 ops = 1474560 read = 114432 write = 23552 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_generation prefill vector invocations = 18 ops = 77632 read = 45568 write = 35840 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_generation prefill collective invocations = 4 ops = 2048 read = 8192 write = 8192 message = 8192 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_generation decode matmul invocations = 24 ops = 370176 read = 192048 write = 5936 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_generation decode vector invocations = 36 ops = 19424 read = 14128 write = 9008 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_generation decode collective invocations = 8 ops = 512 read = 2048 write = 2048 message = 2048 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_generation prefill matmul invocations = 12 ops = 1474560 read = 114432 write = 23552 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_generation prefill vector invocations = 18 ops = 77632 read = 45568 write = 35840 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_generation prefill collective invocations = 4 ops = 2048 read = 8192 write = 8192 message = 8192 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_generation decode matmul invocations = 24 ops = 370176 read = 192048 write = 5936 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_generation decode vector invocations = 36 ops = 19424 read = 14128 write = 9008 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_generation decode collective invocations = 8 ops = 512 read = 2048 write = 2048 message = 2048 stash = 0
transformer.decoder_inference @serve
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16,
             vocab = 128, blocks = 4, norm = layernorm, activation = gelu,
             kv_heads = 2>
    inference = <batch = 4, prompt_length = 8, generated_tokens = 3,
                 activation_type = bf16, weight_type = bf16,
                 kv_cache_type = bf16>
    mapping = <world = 8, tp = 2, pp = 2, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
