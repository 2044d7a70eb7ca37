// The portable plan of a whole training iteration (docs/PPlanSpec.md,
// "Whole run"): the compact form of the distributed IR (templates, stages of
// instances, transfers and stage-level tasks), one communication buffer per
// pipeline message and one ledger row per stage, phase and engine, which
// the plan's verifier (pplan_plan_c7) checks against the stage's instances
// times their templates. The small model of docs/WholeRun.md under 1F1B,
// ZB-H1 (split backward: the gradient messages leave input_grad instances)
// and interleaved 1F1B (two model chunks per stage).
// Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer=scope=iteration --plan-portable
// and review the difference.
// RUN: blueprint-opt %s -split-input-file --distribute-transformer=scope=iteration --plan-portable | FileCheck %s

// CHECK-LABEL: pplan.plan @small source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @backward serial
// CHECK-NEXT: pplan.group @per_iteration serial
// CHECK-NEXT: pplan.group @stage_0 serial
// CHECK-NEXT: pplan.group @stage_1 serial
// CHECK-NEXT: pplan.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1572864, memory = 57728, network = 0> ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 32768, network = 0> ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 57600, memory = 32768, network = 0> ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 24576, memory = 40960, network = 0> ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 32768, network = 0> ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2097152, memory = 74240, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 147456, memory = 65536, network = 0> ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 172032, network = 0> ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 294912, memory = 98304, network = 0> ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 172032, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 16384, memory = 34816, network = 0> ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 57344, network = 0> ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8192, memory = 40960, network = 0> ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 40960, memory = 49152, network = 0> ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1572864, memory = 57344, network = 0> ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1572864, memory = 131072, network = 0> ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 12288, memory = 26112, network = 0> ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 799744, memory = 1699456, network = 0> ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "word_embedding" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 0, memory = 16896, network = 0> ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "position_embedding" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 25088, network = 0> ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "position_embedding" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 41472, network = 0> ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "word_embedding" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 41472, network = 0> ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy_max" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8192, memory = 16640, network = 0> ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy_exp" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 24960, memory = 51008, network = 0> ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8320, memory = 66304, network = 0> ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "loss_average" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 194, memory = 516, network = 0> ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "loss_average" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 66, memory = 512, network = 0> ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8320, memory = 49984, network = 0> ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 90112, network = 0> ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "edge_adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 163840, memory = 348160, network = 0> ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "edge_adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 133120, memory = 282880, network = 0> ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 0 group @stage_0 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @collective_all_reduce group @stage_0 demand = <compute = 55104, memory = 881664, network = 440832> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 440832> axis "dp" ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @stage_0 demand = <compute = 4096, memory = 65536, network = 32768> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 32768> axis "pp" group [0, 1] ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 220416 live [0, 15]
// CHECK-NEXT: pplan.buffer @gradients persistent cause gradients bytes = 440832 live [0, 15]
// CHECK-NEXT: pplan.buffer @optimizer_state persistent cause optimizer_state bytes = 1322496 live [0, 15]
// CHECK-NEXT: pplan.buffer @work_0 temporary cause working_set bytes = 16384 live [0, 0] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @embedding_stash_mb0_chunk0 stash cause edge_activations bytes = 4096 live [0, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 16384 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 360448 live [1, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 8192 live [1, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_3 temporary cause working_set bytes = 16384 live [3, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @embedding_stash_mb1_chunk0 stash cause edge_activations bytes = 4096 live [3, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 16384 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk0 stash cause block_activations bytes = 360448 live [4, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 8192 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 8192 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 65536 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_8 temporary cause working_set bytes = 8192 live [8, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb1_chunk1 communication cause pipeline_receive bytes = 8192 live [9, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_10 temporary cause working_set bytes = 65536 live [10, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_11 temporary cause working_set bytes = 8192 live [11, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 1 group @stage_1 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @collective_all_reduce group @stage_1 demand = <compute = 54144, memory = 866304, network = 433152> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 433152> axis "dp" ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @stage_1 demand = <compute = 4096, memory = 65536, network = 32768> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 32768> axis "pp" group [0, 1] ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_step chunk 1 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 216576 live [0, 15]
// CHECK-NEXT: pplan.buffer @gradients persistent cause gradients bytes = 433152 live [0, 15]
// CHECK-NEXT: pplan.buffer @optimizer_state persistent cause optimizer_state bytes = 1299456 live [0, 15]
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 8192 live [0, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 16384 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk1 stash cause block_activations bytes = 360448 live [1, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_2 temporary cause working_set bytes = 50496 live [2, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @head_stash_mb0_chunk1 stash cause edge_activations bytes = 49152 live [2, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_3 temporary cause working_set bytes = 24576 live [3, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 65536 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 8192 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 8192 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 16384 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk1 stash cause block_activations bytes = 360448 live [7, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_8 temporary cause working_set bytes = 50496 live [8, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @head_stash_mb1_chunk1 stash cause edge_activations bytes = 49152 live [8, 9] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_9 temporary cause working_set bytes = 24576 live [9, 9] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_10 temporary cause working_set bytes = 65536 live [10, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb1_chunk1 communication cause pipeline_send bytes = 8192 live [10, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward matmul invocations = 24 ops = 27262976 read = 790016 write = 393216 message = 0 stash = 393216
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward vector invocations = 50 ops = 1346560 read = 660480 write = 647168 message = 0 stash = 335872
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 24 ops = 29360128 read = 950272 write = 393216 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad vector invocations = 38 ops = 1778688 read = 877568 write = 475136 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad matmul invocations = 16 ops = 25165824 read = 1310720 write = 786432 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad vector invocations = 28 ops = 327680 read = 539648 write = 78848 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad collective invocations = 2 ops = 59200 read = 473600 write = 473600 message = 473600 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration optimizer vector invocations = 3 ops = 1763328 read = 1763328 write = 1983744 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward matmul invocations = 26 ops = 29360128 read = 839168 write = 425984 message = 0 stash = 409600
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward vector invocations = 54 ops = 1454980 read = 744448 write = 740488 message = 0 stash = 409600
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 26 ops = 31457280 read = 1015808 write = 409600 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad vector invocations = 42 ops = 1869444 read = 953728 write = 508416 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad matmul invocations = 18 ops = 27262976 read = 1425408 write = 851968 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad vector invocations = 26 ops = 352256 read = 473088 write = 14336 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad collective invocations = 2 ops = 58240 read = 465920 write = 465920 message = 465920 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration optimizer vector invocations = 3 ops = 1732608 read = 1732608 write = 1949184 message = 0 stash = 0
transformer.decoder_training @small
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// CHECK-LABEL: pplan.plan @zero_bubble source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = zero_bubble_h1> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @backward serial
// CHECK-NEXT: pplan.group @per_iteration serial
// CHECK-NEXT: pplan.group @stage_0 serial
// CHECK-NEXT: pplan.group @stage_1 serial
// CHECK-NEXT: pplan.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1572864, memory = 57728, network = 0> ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 32768, network = 0> ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 57600, memory = 32768, network = 0> ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 24576, memory = 40960, network = 0> ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 32768, network = 0> ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2097152, memory = 74240, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 147456, memory = 65536, network = 0> ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_input_grad block input_grad {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 294912, memory = 98304, network = 0> ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 57344, network = 0> ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8192, memory = 40960, network = 0> ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 40960, memory = 49152, network = 0> ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1572864, memory = 57344, network = 0> ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_weight_grad block weight_grad {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 172032, network = 0> ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 172032, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 16384, memory = 34816, network = 0> ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1572864, memory = 131072, network = 0> ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 12288, memory = 26112, network = 0> ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 799744, memory = 1699456, network = 0> ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "word_embedding" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 0, memory = 16896, network = 0> ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "position_embedding" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 25088, network = 0> ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "position_embedding" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 41472, network = 0> ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "word_embedding" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 41472, network = 0> ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy_max" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8192, memory = 16640, network = 0> ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy_exp" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 24960, memory = 51008, network = 0> ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8320, memory = 66304, network = 0> ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "loss_average" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 194, memory = 516, network = 0> ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "loss_average" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 66, memory = 512, network = 0> ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8320, memory = 49984, network = 0> ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 90112, network = 0> ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "edge_adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 163840, memory = 348160, network = 0> ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "edge_adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 133120, memory = 282880, network = 0> ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 0 group @stage_0 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_input_grad chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_weight_grad chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_input_grad chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_weight_grad chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @collective_all_reduce group @stage_0 demand = <compute = 55104, memory = 881664, network = 440832> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 440832> axis "dp" ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @stage_0 demand = <compute = 4096, memory = 65536, network = 32768> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 32768> axis "pp" group [0, 1] ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 220416 live [0, 17]
// CHECK-NEXT: pplan.buffer @gradients persistent cause gradients bytes = 440832 live [0, 17]
// CHECK-NEXT: pplan.buffer @optimizer_state persistent cause optimizer_state bytes = 1322496 live [0, 17]
// CHECK-NEXT: pplan.buffer @work_0 temporary cause working_set bytes = 16384 live [0, 0] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @embedding_stash_mb0_chunk0 stash cause edge_activations bytes = 4096 live [0, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 16384 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 212992 live [1, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_stash_mb0_chunk0 stash cause weight_grad_inputs bytes = 147456 live [1, 9] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 8192 live [1, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_3 temporary cause working_set bytes = 16384 live [3, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @embedding_stash_mb1_chunk0 stash cause edge_activations bytes = 4096 live [3, 12] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 16384 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk0 stash cause block_activations bytes = 212992 live [4, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_stash_mb1_chunk0 stash cause weight_grad_inputs bytes = 147456 live [4, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 8192 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 8192 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 40960 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_inputs_mb0_chunk0 stash cause weight_grad_inputs bytes = 180224 live [7, 9] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_8 temporary cause working_set bytes = 8192 live [8, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb1_chunk1 communication cause pipeline_receive bytes = 8192 live [10, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_11 temporary cause working_set bytes = 40960 live [11, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_inputs_mb1_chunk0 stash cause weight_grad_inputs bytes = 180224 live [11, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_12 temporary cause working_set bytes = 8192 live [12, 12] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 1 group @stage_1 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_input_grad chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_input_grad chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_weight_grad chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_weight_grad chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @collective_all_reduce group @stage_1 demand = <compute = 54144, memory = 866304, network = 433152> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 433152> axis "dp" ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @stage_1 demand = <compute = 4096, memory = 65536, network = 32768> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 32768> axis "pp" group [0, 1] ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_step chunk 1 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 216576 live [0, 17]
// CHECK-NEXT: pplan.buffer @gradients persistent cause gradients bytes = 433152 live [0, 17]
// CHECK-NEXT: pplan.buffer @optimizer_state persistent cause optimizer_state bytes = 1299456 live [0, 17]
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 8192 live [0, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 16384 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk1 stash cause block_activations bytes = 212992 live [1, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_stash_mb0_chunk1 stash cause weight_grad_inputs bytes = 147456 live [1, 12] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_2 temporary cause working_set bytes = 50496 live [2, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @head_stash_mb0_chunk1 stash cause edge_activations bytes = 49152 live [2, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_3 temporary cause working_set bytes = 24576 live [3, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 40960 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_inputs_mb0_chunk1 stash cause weight_grad_inputs bytes = 180224 live [4, 12] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 8192 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 8192 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 16384 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk1 stash cause block_activations bytes = 212992 live [7, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_stash_mb1_chunk1 stash cause weight_grad_inputs bytes = 147456 live [7, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_8 temporary cause working_set bytes = 50496 live [8, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @head_stash_mb1_chunk1 stash cause edge_activations bytes = 49152 live [8, 9] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_9 temporary cause working_set bytes = 24576 live [9, 9] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_10 temporary cause working_set bytes = 40960 live [10, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weight_grad_inputs_mb1_chunk1 stash cause weight_grad_inputs bytes = 180224 live [10, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb1_chunk1 communication cause pipeline_send bytes = 8192 live [10, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward matmul invocations = 24 ops = 27262976 read = 790016 write = 393216 message = 0 stash = 393216
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward vector invocations = 50 ops = 1346560 read = 660480 write = 647168 message = 0 stash = 335872
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 24 ops = 29360128 read = 950272 write = 393216 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad vector invocations = 38 ops = 1778688 read = 877568 write = 475136 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad matmul invocations = 16 ops = 25165824 read = 1310720 write = 786432 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad vector invocations = 28 ops = 327680 read = 539648 write = 78848 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad collective invocations = 2 ops = 59200 read = 473600 write = 473600 message = 473600 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration optimizer vector invocations = 3 ops = 1763328 read = 1763328 write = 1983744 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward matmul invocations = 26 ops = 29360128 read = 839168 write = 425984 message = 0 stash = 409600
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward vector invocations = 54 ops = 1454980 read = 744448 write = 740488 message = 0 stash = 409600
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 26 ops = 31457280 read = 1015808 write = 409600 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad vector invocations = 42 ops = 1869444 read = 953728 write = 508416 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad matmul invocations = 18 ops = 27262976 read = 1425408 write = 851968 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad vector invocations = 26 ops = 352256 read = 473088 write = 14336 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad collective invocations = 2 ops = 58240 read = 465920 write = 465920 message = 465920 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration optimizer vector invocations = 3 ops = 1732608 read = 1732608 write = 1949184 message = 0 stash = 0
transformer.decoder_training @zero_bubble
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = zero_bubble_h1>

// -----

// CHECK-LABEL: pplan.plan @interleaved source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b> {
// CHECK-NEXT: pplan.capability @vector_elementwise vector_elementwise
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @collective_all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @backward serial
// CHECK-NEXT: pplan.group @per_iteration serial
// CHECK-NEXT: pplan.group @stage_0 serial
// CHECK-NEXT: pplan.group @stage_1 serial
// CHECK-NEXT: pplan.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1572864, memory = 57728, network = 0> ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 32768, network = 0> ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 57600, memory = 32768, network = 0> ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 24576, memory = 40960, network = 0> ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 262144, memory = 32768, network = 0> ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2097152, memory = 74240, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 147456, memory = 65536, network = 0> ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 16512, network = 0> ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc2" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 172032, network = 0> ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "activation" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 294912, memory = 98304, network = 0> ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 73728, network = 0> ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 2097152, memory = 172032, network = 0> ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "fc1_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 16384, memory = 34816, network = 0> ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm2" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "mlp_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 8704, network = 0> ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 24576, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "out_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_v_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 57344, network = 0> ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8192, memory = 40960, network = 0> ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "softmax" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 40960, memory = 49152, network = 0> ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qk_matmul" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 524288, memory = 49152, network = 0> ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1572864, memory = 57344, network = 0> ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_proj" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1572864, memory = 131072, network = 0> ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "qkv_bias" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 12288, memory = 26112, network = 0> ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "norm1" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "attn_residual" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 24576, network = 0> ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 799744, memory = 1699456, network = 0> ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "word_embedding" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 0, memory = 16896, network = 0> ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "position_embedding" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 4096, memory = 25088, network = 0> ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_dropout" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 12288, memory = 20480, network = 0> ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_dropout" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 20480, network = 0> ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "position_embedding" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 41472, network = 0> ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "word_embedding" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 4096, memory = 41472, network = 0> ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 28928, memory = 16640, network = 0> ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy_max" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8192, memory = 16640, network = 0> ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy_exp" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 24960, memory = 51008, network = 0> ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8320, memory = 66304, network = 0> ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "loss_average" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 194, memory = 516, network = 0> ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "loss_average" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 66, memory = 512, network = 0> ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "cross_entropy" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 8320, memory = 49984, network = 0> ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 40960, network = 0> ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "lm_head_logits" weight_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 1048576, memory = 90112, network = 0> ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" activation_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 41088, memory = 24704, network = 0> ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "final_norm" weight_grad vector per_micro_batch requires @vector_elementwise group @backward demand = <compute = 20480, memory = 17408, network = 0> ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "edge_adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 163840, memory = 348160, network = 0> ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "edge_adamw_step" optimizer vector per_iteration requires @vector_elementwise group @per_iteration demand = <compute = 133120, memory = 282880, network = 0> ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 0 group @stage_0 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 0 micro_batch 1 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 2 micro_batch 0 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 0 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 2 micro_batch 1 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 1 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 0 chunk 3 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 2 micro_batch 0 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 0 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 1 chunk 3 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 2 micro_batch 1 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 1 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 0 micro_batch 1 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @collective_all_reduce group @stage_0 demand = <compute = 55104, memory = 881664, network = 440832> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 440832> axis "dp" ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @stage_0 demand = <compute = 4096, memory = 65536, network = 32768> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 32768> axis "pp" group [0, 1] ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 2 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 220416 live [0, 28]
// CHECK-NEXT: pplan.buffer @gradients persistent cause gradients bytes = 440832 live [0, 28]
// CHECK-NEXT: pplan.buffer @optimizer_state persistent cause optimizer_state bytes = 1322496 live [0, 28]
// CHECK-NEXT: pplan.buffer @work_0 temporary cause working_set bytes = 16384 live [0, 0] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @embedding_stash_mb0_chunk0 stash cause edge_activations bytes = 4096 live [0, 20] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 16384 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 180224 live [1, 19] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 8192 live [1, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_3 temporary cause working_set bytes = 16384 live [3, 3] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @embedding_stash_mb1_chunk0 stash cause edge_activations bytes = 4096 live [3, 23] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 16384 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk0 stash cause block_activations bytes = 180224 live [4, 22] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 8192 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk1 communication cause pipeline_receive bytes = 8192 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 16384 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk2 stash cause block_activations bytes = 180224 live [7, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk2 communication cause pipeline_send bytes = 8192 live [7, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb1_chunk1 communication cause pipeline_receive bytes = 8192 live [9, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_10 temporary cause working_set bytes = 16384 live [10, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk2 stash cause block_activations bytes = 180224 live [10, 16] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb1_chunk2 communication cause pipeline_send bytes = 8192 live [10, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb0_chunk3 communication cause pipeline_receive bytes = 8192 live [12, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_13 temporary cause working_set bytes = 65536 live [13, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb0_chunk2 communication cause pipeline_send bytes = 8192 live [13, 14] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb1_chunk3 communication cause pipeline_receive bytes = 8192 live [15, 16] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_16 temporary cause working_set bytes = 65536 live [16, 16] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb1_chunk2 communication cause pipeline_send bytes = 8192 live [16, 17] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 8192 live [18, 19] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_19 temporary cause working_set bytes = 65536 live [19, 19] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_20 temporary cause working_set bytes = 8192 live [20, 20] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb1_chunk1 communication cause pipeline_receive bytes = 8192 live [21, 22] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_22 temporary cause working_set bytes = 65536 live [22, 22] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_23 temporary cause working_set bytes = 8192 live [23, 23] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 1 group @stage_1 {
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 1 micro_batch 1 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 0 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 3 micro_batch 0 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_forward chunk 3 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation micro_batch 1 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_forward chunk 3 micro_batch 1 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_forward chunk 3 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_backward chunk 3 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 3 micro_batch 0 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 0 chunk 3 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_backward chunk 3 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 3 micro_batch 1 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 1 chunk 3 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 0 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.recv activation_grad micro_batch 1 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_backward chunk 1 micro_batch 1 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @collective_all_reduce group @stage_1 demand = <compute = 54144, memory = 866304, network = 433152> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 433152> axis "dp" ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @collective_all_reduce group @stage_1 demand = <compute = 4096, memory = 65536, network = 32768> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 32768> axis "pp" group [0, 1] ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 1 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @block_step chunk 3 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = pplan.instance @head_step chunk 3 after(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 216576 live [0, 28]
// CHECK-NEXT: pplan.buffer @gradients persistent cause gradients bytes = 433152 live [0, 28]
// CHECK-NEXT: pplan.buffer @optimizer_state persistent cause optimizer_state bytes = 1299456 live [0, 28]
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 8192 live [0, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_1 temporary cause working_set bytes = 16384 live [1, 1] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk1 stash cause block_activations bytes = 180224 live [1, 19] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk1 communication cause pipeline_send bytes = 8192 live [1, 2] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 8192 live [3, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_4 temporary cause working_set bytes = 16384 live [4, 4] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk1 stash cause block_activations bytes = 180224 live [4, 22] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_mb1_chunk1 communication cause pipeline_send bytes = 8192 live [4, 5] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk2 communication cause pipeline_receive bytes = 8192 live [6, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_7 temporary cause working_set bytes = 16384 live [7, 7] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk3 stash cause block_activations bytes = 180224 live [7, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_8 temporary cause working_set bytes = 50496 live [8, 8] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @head_stash_mb0_chunk3 stash cause edge_activations bytes = 49152 live [8, 12] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_mb1_chunk2 communication cause pipeline_receive bytes = 8192 live [9, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_10 temporary cause working_set bytes = 16384 live [10, 10] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @stash_mb1_chunk3 stash cause block_activations bytes = 180224 live [10, 16] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_11 temporary cause working_set bytes = 50496 live [11, 11] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @head_stash_mb1_chunk3 stash cause edge_activations bytes = 49152 live [11, 15] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_12 temporary cause working_set bytes = 24576 live [12, 12] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_13 temporary cause working_set bytes = 65536 live [13, 13] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb0_chunk3 communication cause pipeline_send bytes = 8192 live [13, 14] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_15 temporary cause working_set bytes = 24576 live [15, 15] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_16 temporary cause working_set bytes = 65536 live [16, 16] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb1_chunk3 communication cause pipeline_send bytes = 8192 live [16, 17] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb0_chunk2 communication cause pipeline_receive bytes = 8192 live [18, 19] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_19 temporary cause working_set bytes = 65536 live [19, 19] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 8192 live [19, 20] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb1_chunk2 communication cause pipeline_receive bytes = 8192 live [21, 22] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @work_22 temporary cause working_set bytes = 65536 live [22, 22] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb1_chunk1 communication cause pipeline_send bytes = 8192 live [22, 23] producer(%{{[0-9]+}}) consumers(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward matmul invocations = 24 ops = 27262976 read = 790016 write = 393216 message = 0 stash = 393216
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward vector invocations = 50 ops = 1346560 read = 660480 write = 647168 message = 0 stash = 335872
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 24 ops = 29360128 read = 950272 write = 393216 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad vector invocations = 38 ops = 1778688 read = 877568 write = 475136 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad matmul invocations = 16 ops = 25165824 read = 1310720 write = 786432 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad vector invocations = 28 ops = 327680 read = 539648 write = 78848 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad collective invocations = 2 ops = 59200 read = 473600 write = 473600 message = 473600 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration optimizer vector invocations = 3 ops = 1763328 read = 1763328 write = 1983744 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward matmul invocations = 26 ops = 29360128 read = 839168 write = 425984 message = 0 stash = 409600
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward vector invocations = 54 ops = 1454980 read = 744448 write = 740488 message = 0 stash = 409600
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 26 ops = 31457280 read = 1015808 write = 409600 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad vector invocations = 42 ops = 1869444 read = 953728 write = 508416 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad matmul invocations = 18 ops = 27262976 read = 1425408 write = 851968 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad vector invocations = 26 ops = 352256 read = 473088 write = 14336 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad collective invocations = 2 ops = 58240 read = 465920 write = 465920 message = 465920 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration optimizer vector invocations = 3 ops = 1732608 read = 1732608 write = 1949184 message = 0 stash = 0
transformer.decoder_training @interleaved
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>
