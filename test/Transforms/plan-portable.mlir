// Golden PortablePlanIR of a small model (h = 64, a = 4, f = 256, s = 32,
// b = 2): sequence parallelism with selective recompute at TP = 2, and
// all-reduce with full recompute at TP = 4. Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer --plan-portable
// and review the difference.
// RUN: blueprint-opt %s -split-input-file --distribute-transformer --plan-portable | FileCheck %s

// CHECK-LABEL: pplan.plan @sp_selective source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = selective, schedule = one_f_one_b> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @collective_all_gather collective_all_gather
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_reduce_scatter collective_reduce_scatter
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @recompute serial
// CHECK-NEXT: pplan.group @backward serial
// CHECK-NEXT: pplan.group @per_iteration serial
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 14464, memory = 8448, network = 0> ops = 14464 reads {norm1_beta = 128, norm1_gamma = 128, x = 4096} writes {x_norm1 = 4096} stashed {x = 4096}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_f" forward collective per_micro_batch requires @collective_all_gather group @forward demand = <compute = 0, memory = 12288, network = 4096> collective = <kind = all_gather, reduction = none, participants = 2, message = 8192> ops = 0 reads {x_norm1 = 4096} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 786432, memory = 32960, network = 0> ops = 786432 reads {b_qkv = 192, w_qkv = 12288, x_norm1 = 8192} writes {k = 4096, q = 4096, v = 4096} stashed {x_norm1 = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 131072, memory = 16384, network = 0> ops = 131072 reads {k = 4096, q = 4096} writes {scores = 8192} stashed {k = 4096, q = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28800, memory = 16384, network = 0> ops = 28800 reads {scores = 8192} writes {probs = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {probs = 8192} writes {attn_dropout_mask = 4096, probs_dropped = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 131072, memory = 16384, network = 0> ops = 131072 reads {probs_dropped = 8192, v = 4096} writes {context = 4096} stashed {v = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 16384, network = 0> ops = 262144 reads {context = 4096, w_out = 4096} writes {attn_proj = 8192} stashed {context = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_g" forward collective per_micro_batch requires @collective_reduce_scatter group @forward demand = <compute = 2048, memory = 12288, network = 4096> collective = <kind = reduce_scatter, reduction = sum, participants = 2, message = 8192> ops = 2048 reads {attn_proj = 8192} writes {attn_proj = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 2048, memory = 8320, network = 0> ops = 2048 reads {attn_proj = 4096, b_out = 128} writes {attn_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 6144, memory = 10240, network = 0> ops = 6144 reads {attn_out = 4096} writes {attn_out_dropped = 4096, attn_residual_dropout_mask = 2048} stashed {attn_residual_dropout_mask = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 2048, memory = 12288, network = 0> ops = 2048 reads {attn_out_dropped = 4096, x = 4096} writes {h_attn = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 14464, memory = 8448, network = 0> ops = 14464 reads {h_attn = 4096, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 4096} stashed {h_attn = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_f" forward collective per_micro_batch requires @collective_all_gather group @forward demand = <compute = 0, memory = 12288, network = 4096> collective = <kind = all_gather, reduction = none, participants = 2, message = 8192> ops = 0 reads {x_norm2 = 4096} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1048576, memory = 41216, network = 0> ops = 1048576 reads {b_fc1 = 256, w_fc1 = 16384, x_norm2 = 8192} writes {fc1_out = 16384} stashed {x_norm2 = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 73728, memory = 32768, network = 0> ops = 73728 reads {fc1_out = 16384} writes {act_out = 16384} stashed {fc1_out = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 reads {act_out = 16384, w_fc2 = 16384} writes {mlp_proj = 8192} stashed {act_out = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_g" forward collective per_micro_batch requires @collective_reduce_scatter group @forward demand = <compute = 2048, memory = 12288, network = 4096> collective = <kind = reduce_scatter, reduction = sum, participants = 2, message = 8192> ops = 2048 reads {mlp_proj = 8192} writes {mlp_proj = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 2048, memory = 8320, network = 0> ops = 2048 reads {b_fc2 = 128, mlp_proj = 4096} writes {mlp_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 6144, memory = 10240, network = 0> ops = 6144 reads {mlp_out = 4096} writes {mlp_dropout_mask = 2048, mlp_out_dropped = 4096} stashed {mlp_dropout_mask = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 2048, memory = 12288, network = 0> ops = 2048 reads {h_attn = 4096, mlp_out_dropped = 4096} writes {y = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 131072, memory = 16384, network = 0> ops = 131072 reads {k = 4096, q = 4096} writes {scores = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 28800, memory = 16384, network = 0> ops = 28800 reads {scores = 8192} writes {probs = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {probs = 8192} writes {attn_dropout_mask = 4096, probs_dropped = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 131072, memory = 16384, network = 0> ops = 131072 reads {probs_dropped = 8192, v = 4096} writes {context = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 10240, network = 0> ops = 2048 reads {d_y = 4096, mlp_dropout_mask = 2048} writes {d_mlp_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 4608, network = 0> ops = 2048 reads {d_b_fc2 = 256, d_mlp_out = 4096} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_g" activation_grad collective per_micro_batch requires @collective_all_gather group @backward demand = <compute = 0, memory = 12288, network = 4096> collective = <kind = all_gather, reduction = none, participants = 2, message = 8192> ops = 0 reads {d_mlp_out = 4096} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 reads {d_mlp_out = 8192, w_fc2 = 16384} writes {d_act_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 90112, network = 0> ops = 1048576 reads {act_out = 16384, d_mlp_out = 8192, d_w_fc2 = 32768} writes {d_w_fc2 = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 147456, memory = 49152, network = 0> ops = 147456 reads {d_act_out = 16384, fc1_out = 16384} writes {d_fc1_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 reads {d_fc1_out = 16384, w_fc1 = 16384} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_f" activation_grad collective per_micro_batch requires @collective_reduce_scatter group @backward demand = <compute = 2048, memory = 12288, network = 4096> collective = <kind = reduce_scatter, reduction = sum, participants = 2, message = 8192> ops = 2048 reads {d_x_norm2 = 8192} writes {d_x_norm2 = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1_wgrad_gather" recommunication collective per_micro_batch requires @collective_all_gather group @backward demand = <compute = 0, memory = 12288, network = 4096> collective = <kind = all_gather, reduction = none, participants = 2, message = 8192> ops = 0 reads {x_norm2 = 4096} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 90112, network = 0> ops = 1048576 reads {d_fc1_out = 16384, d_w_fc1 = 32768, x_norm2 = 8192} writes {d_w_fc1 = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8192, memory = 17408, network = 0> ops = 8192 reads {d_b_fc1 = 512, d_fc1_out = 16384} writes {d_b_fc1 = 512} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20544, memory = 12416, network = 0> ops = 20544 reads {d_x_norm2 = 4096, h_attn = 4096, norm2_gamma = 128} writes {d_h_attn = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 10240, memory = 9216, network = 0> ops = 10240 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 4096, h_attn = 4096} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 12288, network = 0> ops = 2048 reads {d_h_attn = 4096, d_y = 4096} writes {d_h_attn = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 10240, network = 0> ops = 2048 reads {attn_residual_dropout_mask = 2048, d_h_attn = 4096} writes {d_attn_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 4608, network = 0> ops = 2048 reads {d_attn_out = 4096, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_g" activation_grad collective per_micro_batch requires @collective_all_gather group @backward demand = <compute = 0, memory = 12288, network = 4096> collective = <kind = all_gather, reduction = none, participants = 2, message = 8192> ops = 0 reads {d_attn_out = 4096} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 262144, memory = 16384, network = 0> ops = 262144 reads {d_attn_out = 8192, w_out = 4096} writes {d_context = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 262144, memory = 28672, network = 0> ops = 262144 reads {context = 4096, d_attn_out = 8192, d_w_out = 8192} writes {d_w_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 262144, memory = 28672, network = 0> ops = 262144 reads {d_context = 4096, probs_dropped = 8192, v = 4096} writes {d_probs_dropped = 8192, d_v = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {attn_dropout_mask = 4096, d_probs_dropped = 8192} writes {d_probs = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 24576, network = 0> ops = 20480 reads {d_probs = 8192, probs = 8192} writes {d_scores = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 262144, memory = 24576, network = 0> ops = 262144 reads {d_scores = 8192, k = 4096, q = 4096} writes {d_k = 4096, d_q = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 786432, memory = 32768, network = 0> ops = 786432 reads {d_k = 4096, d_q = 4096, d_v = 4096, w_qkv = 12288} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_f" activation_grad collective per_micro_batch requires @collective_reduce_scatter group @backward demand = <compute = 2048, memory = 12288, network = 4096> collective = <kind = reduce_scatter, reduction = sum, participants = 2, message = 8192> ops = 2048 reads {d_x_norm1 = 8192} writes {d_x_norm1 = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_wgrad_gather" recommunication collective per_micro_batch requires @collective_all_gather group @backward demand = <compute = 0, memory = 12288, network = 4096> collective = <kind = all_gather, reduction = none, participants = 2, message = 8192> ops = 0 reads {x_norm1 = 4096} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 786432, memory = 69632, network = 0> ops = 786432 reads {d_k = 4096, d_q = 4096, d_v = 4096, d_w_qkv = 24576, x_norm1 = 8192} writes {d_w_qkv = 24576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 6144, memory = 13056, network = 0> ops = 6144 reads {d_b_qkv = 384, d_k = 4096, d_q = 4096, d_v = 4096} writes {d_b_qkv = 384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20544, memory = 12416, network = 0> ops = 20544 reads {d_x_norm1 = 4096, norm1_gamma = 128, x = 4096} writes {d_x = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 10240, memory = 9216, network = 0> ops = 10240 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 4096, x = 4096} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 12288, network = 0> ops = 2048 reads {d_h_attn = 4096, d_x = 4096} writes {d_x = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "sp_param_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @per_iteration demand = <compute = 192, memory = 3072, network = 1536> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 1536> ops = 192 reads {d_sequence_parallel_params = 1536} writes {d_sequence_parallel_params = 1536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 402944, memory = 856256, network = 0> ops = 402944 reads {adam_m = 100736, adam_v = 100736, d_params = 100736, params_master = 100736} writes {adam_m = 100736, adam_v = 100736, d_params = 100736, params = 50368, params_master = 100736} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @x boundary bytes = 4096 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_y boundary bytes = 4096 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm1_gamma boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_qkv boundary bytes = 12288 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_qkv boundary bytes = 192 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_out boundary bytes = 4096 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_out boundary bytes = 128 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm2_gamma boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_fc1 boundary bytes = 16384 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_fc1 boundary bytes = 256 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_fc2 boundary bytes = 16384 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_fc2 boundary bytes = 128 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm1_beta boundary bytes = 128 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm2_beta boundary bytes = 128 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @params_master boundary bytes = 100736 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @adam_m boundary bytes = 100736 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @adam_v boundary bytes = 100736 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @y boundary bytes = 4096 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_x boundary bytes = 4096 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm1_gamma boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_qkv boundary bytes = 24576 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_qkv boundary bytes = 384 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_out boundary bytes = 8192 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_out boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm2_gamma boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_fc1 boundary bytes = 32768 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_fc1 boundary bytes = 512 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_fc2 boundary bytes = 32768 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_fc2 boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm1_beta boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm2_beta boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger per_micro_batch forward matmul invocations = 6 ops = 3407872 read = 106944 write = 57344 message = 0 stash = 40960
// CHECK-NEXT: pplan.ledger per_micro_batch forward vector invocations = 11 ops = 164224 read = 74496 write = 73728 message = 0 stash = 28672
// CHECK-NEXT: pplan.ledger per_micro_batch forward collective invocations = 4 ops = 4096 read = 24576 write = 24576 message = 32768 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch recompute matmul invocations = 2 ops = 262144 read = 20480 write = 12288 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch recompute vector invocations = 2 ops = 41088 read = 16384 write = 20480 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch activation_grad matmul invocations = 6 ops = 3670016 read = 126976 write = 57344 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch activation_grad vector invocations = 9 ops = 221312 read = 106752 write = 57344 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch activation_grad collective invocations = 4 ops = 4096 read = 24576 write = 24576 message = 32768 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch weight_grad matmul invocations = 4 ops = 3145728 read = 180224 write = 98304 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch weight_grad vector invocations = 6 ops = 38912 read = 55680 write = 2432 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch recommunication collective invocations = 2 ops = 0 read = 8192 write = 16384 message = 16384 stash = 0
// CHECK-NEXT: pplan.ledger per_iteration weight_grad collective invocations = 1 ops = 192 read = 1536 write = 1536 message = 1536 stash = 0
// CHECK-NEXT: pplan.ledger per_iteration optimizer vector invocations = 1 ops = 402944 read = 402944 write = 453312 message = 0 stash = 0
transformer.decoder_training @sp_selective
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = selective, schedule = one_f_one_b>
// -----
// CHECK-LABEL: pplan.plan @ar_full source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = full, schedule = one_f_one_b> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @recompute serial
// CHECK-NEXT: pplan.group @backward serial
// CHECK-NEXT: pplan.group @per_iteration serial
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 393216, memory = 20576, network = 0> ops = 393216 reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 65536, memory = 8192, network = 0> ops = 65536 reads {k = 2048, q = 2048} writes {scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 14400, memory = 8192, network = 0> ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 6144, memory = 10240, network = 0> ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 65536, memory = 8192, network = 0> ops = 65536 reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 131072, memory = 12288, network = 0> ops = 131072 reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_g" forward collective per_micro_batch requires @collective_all_reduce group @forward demand = <compute = 3072, memory = 16384, network = 12288> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 8192> ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 524288, memory = 24704, network = 0> ops = 524288 reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 36864, memory = 16384, network = 0> ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_g" forward collective per_micro_batch requires @collective_all_reduce group @forward demand = <compute = 3072, memory = 16384, network = 12288> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 8192> ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 393216, memory = 20576, network = 0> ops = 393216 reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 65536, memory = 8192, network = 0> ops = 65536 reads {k = 2048, q = 2048} writes {scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 14400, memory = 8192, network = 0> ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 6144, memory = 10240, network = 0> ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 65536, memory = 8192, network = 0> ops = 65536 reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 131072, memory = 12288, network = 0> ops = 131072 reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_g" recommunication collective per_micro_batch requires @collective_all_reduce group @recompute demand = <compute = 3072, memory = 16384, network = 12288> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 8192> ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 524288, memory = 24704, network = 0> ops = 524288 reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 36864, memory = 16384, network = 0> ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" recompute matmul per_micro_batch requires @matmul group @recompute demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_g" recommunication collective per_micro_batch requires @collective_all_reduce group @recompute demand = <compute = 3072, memory = 16384, network = 12288> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 8192> ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" recompute vector per_micro_batch requires @vector_elementwise group @recompute demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 reads {d_mlp_out = 8192, w_fc2 = 8192} writes {d_act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 reads {act_out = 8192, d_mlp_out = 8192, d_w_fc2 = 16384} writes {d_w_fc2 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 73728, memory = 24576, network = 0> ops = 73728 reads {d_act_out = 8192, fc1_out = 8192} writes {d_fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 reads {d_fc1_out = 8192, w_fc1 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_tp_f" activation_grad collective per_micro_batch requires @collective_all_reduce group @backward demand = <compute = 3072, memory = 16384, network = 12288> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 8192> ops = 3072 reads {d_x_norm2 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 reads {d_fc1_out = 8192, d_w_fc1 = 16384, x_norm2 = 8192} writes {d_w_fc1 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_b_fc1 = 256, d_fc1_out = 8192} writes {d_b_fc1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 131072, memory = 12288, network = 0> ops = 131072 reads {d_attn_out = 8192, w_out = 2048} writes {d_context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 131072, memory = 18432, network = 0> ops = 131072 reads {context = 2048, d_attn_out = 8192, d_w_out = 4096} writes {d_w_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 131072, memory = 14336, network = 0> ops = 131072 reads {d_context = 2048, probs_dropped = 4096, v = 2048} writes {d_probs_dropped = 4096, d_v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 2048, memory = 10240, network = 0> ops = 2048 reads {attn_dropout_mask = 2048, d_probs_dropped = 4096} writes {d_probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 10240, memory = 12288, network = 0> ops = 10240 reads {d_probs = 4096, probs = 4096} writes {d_scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 131072, memory = 12288, network = 0> ops = 131072 reads {d_scores = 4096, k = 2048, q = 2048} writes {d_k = 2048, d_q = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 393216, memory = 20480, network = 0> ops = 393216 reads {d_k = 2048, d_q = 2048, d_v = 2048, w_qkv = 6144} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_tp_f" activation_grad collective per_micro_batch requires @collective_all_reduce group @backward demand = <compute = 3072, memory = 16384, network = 12288> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 8192> ops = 3072 reads {d_x_norm1 = 8192} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 393216, memory = 38912, network = 0> ops = 393216 reads {d_k = 2048, d_q = 2048, d_v = 2048, d_w_qkv = 12288, x_norm1 = 8192} writes {d_w_qkv = 12288} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 3072, memory = 6528, network = 0> ops = 3072 reads {d_b_qkv = 192, d_k = 2048, d_q = 2048, d_v = 2048} writes {d_b_qkv = 192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 204544, memory = 434656, network = 0> ops = 204544 reads {adam_m = 51136, adam_v = 51136, d_params = 51136, params_master = 51136} writes {adam_m = 51136, adam_v = 51136, d_params = 51136, params = 25568, params_master = 51136} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @x boundary bytes = 8192 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_y boundary bytes = 8192 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm1_gamma boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_qkv boundary bytes = 6144 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_qkv boundary bytes = 96 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_out boundary bytes = 2048 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_out boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm2_gamma boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_fc1 boundary bytes = 8192 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_fc1 boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @w_fc2 boundary bytes = 8192 consumers(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @b_fc2 boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm1_beta boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @norm2_beta boundary bytes = 128 consumers(%{{[0-9]+}}, %{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @params_master boundary bytes = 51136 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @adam_m boundary bytes = 51136 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @adam_v boundary bytes = 51136 consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @y boundary bytes = 8192 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_x boundary bytes = 8192 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm1_gamma boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_qkv boundary bytes = 12288 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_qkv boundary bytes = 192 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_out boundary bytes = 4096 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_out boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm2_gamma boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_fc1 boundary bytes = 16384 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_fc1 boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_w_fc2 boundary bytes = 16384 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_b_fc2 boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm1_beta boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @d_norm2_beta boundary bytes = 256 producer(%{{[0-9]+}})
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger per_micro_batch forward matmul invocations = 6 ops = 1703936 read = 61664 write = 36864 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch forward vector invocations = 11 ops = 156224 read = 99072 write = 92160 message = 0 stash = 8192
// CHECK-NEXT: pplan.ledger per_micro_batch forward collective invocations = 2 ops = 6144 read = 16384 write = 16384 message = 16384 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch recompute matmul invocations = 6 ops = 1703936 read = 61664 write = 36864 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch recompute vector invocations = 11 ops = 156224 read = 99072 write = 92160 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch activation_grad matmul invocations = 6 ops = 1835008 read = 71680 write = 36864 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch activation_grad vector invocations = 9 ops = 184576 read = 121088 write = 65536 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch activation_grad collective invocations = 2 ops = 6144 read = 16384 write = 16384 message = 16384 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch weight_grad matmul invocations = 4 ops = 1572864 read = 106496 write = 49152 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch weight_grad vector invocations = 6 ops = 56320 read = 65472 write = 1984 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger per_micro_batch recommunication collective invocations = 2 ops = 6144 read = 16384 write = 16384 message = 16384 stash = 0
// CHECK-NEXT: pplan.ledger per_iteration optimizer vector invocations = 1 ops = 204544 read = 204544 write = 230112 message = 0 stash = 0
transformer.decoder_training @ar_full
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = full, schedule = one_f_one_b>
