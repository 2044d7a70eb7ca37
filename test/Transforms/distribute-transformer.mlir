// Golden DistributedTaskIR of a small model (h = 64, a = 4, f = 256, s = 32,
// b = 2) under TP = 1 and TP = 4, all-reduce vs reduce-scatter + all-gather,
// and each recompute policy. Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer
// and review the difference; the counts are checked against closed forms in
// test/Unit/BlockWorkTest.cpp.
// RUN: blueprint-opt %s -split-input-file --distribute-transformer | FileCheck %s

// CHECK-LABEL: dist.program @tp1 source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @tp_mesh axes = ["tp"] shape = [1]
// CHECK-NEXT: dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @d_y activation_grad_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @w_qkv parameter : tensor<64x192xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @b_qkv parameter : tensor<192xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
// CHECK-NEXT: dist.boundary @params_master optimizer_state : tensor<49984xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @adam_m optimizer_state : tensor<49984xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: dist.boundary @adam_v optimizer_state : tensor<49984xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0]
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ranks [0] ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_x activation_grad_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_qkv parameter_grad : tensor<64x192xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_qkv parameter_grad : tensor<192xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_out parameter_grad : tensor<64x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_out parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc1 parameter_grad : tensor<64x256xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc1 parameter_grad : tensor<256xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc2 parameter_grad : tensor<256x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc2 parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %{{[0-9]+}}
transformer.decoder_training @tp1
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// CHECK-LABEL: dist.program @tp4ar source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @tp_mesh axes = ["tp"] shape = [4]
// CHECK-NEXT: dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @d_y activation_grad_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_qkv parameter : tensor<64x192xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_qkv parameter : tensor<192xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @params_master optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_m optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_v optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 32, 16] reads {k = 2048, q = 2048} writes {scores = 4096} stashed {k = 2048, q = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {probs = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {attn_dropout_mask = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 16, 32] reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {probs_dropped = 4096, v = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 64, 16] reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {context = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {fc1_out = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {act_out = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_mlp_out = 8192, w_fc2 = 8192} writes {d_act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, d_mlp_out = 8192, d_w_fc2 = 16384} writes {d_w_fc2 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 73728 reads {d_act_out = 8192, fc1_out = 8192} writes {d_fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, w_fc1 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm2 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, d_w_fc1 = 16384, x_norm2 = 8192} writes {d_w_fc1 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_b_fc1 = 256, d_fc1_out = 8192} writes {d_b_fc1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 16, 64] reads {d_attn_out = 8192, w_out = 2048} writes {d_context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 16, 64, 64] reads {context = 2048, d_attn_out = 8192, d_w_out = 4096} writes {d_w_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 32, 16, 2, 32, 16, 32] reads {d_context = 2048, probs_dropped = 4096, v = 2048} writes {d_probs_dropped = 4096, d_v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 2048 reads {attn_dropout_mask = 2048, d_probs_dropped = 4096} writes {d_probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10240 reads {d_probs = 4096, probs = 4096} writes {d_scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 16, 32, 2, 32, 16, 32] reads {d_scores = 4096, k = 2048, q = 2048} writes {d_k = 2048, d_q = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 64, 48] reads {d_k = 2048, d_q = 2048, d_v = 2048, w_qkv = 6144} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm1 = 8192} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {d_k = 2048, d_q = 2048, d_v = 2048, d_w_qkv = 12288, x_norm1 = 8192} writes {d_w_qkv = 12288} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {d_b_qkv = 192, d_k = 2048, d_q = 2048, d_v = 2048} writes {d_b_qkv = 192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ranks [0, 1, 2, 3] ops = 204544 reads {adam_m = 51136, adam_v = 51136, d_params = 51136, params_master = 51136} writes {adam_m = 51136, adam_v = 51136, d_params = 51136, params = 25568, params_master = 51136} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_x activation_grad_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_qkv parameter_grad : tensor<64x192xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_qkv parameter_grad : tensor<192xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_out parameter_grad : tensor<64x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_out parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc1 parameter_grad : tensor<64x256xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc1 parameter_grad : tensor<256xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc2 parameter_grad : tensor<256x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc2 parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
transformer.decoder_training @tp4ar
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// CHECK-LABEL: dist.program @tp4sp source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @tp_mesh axes = ["tp"] shape = [4]
// CHECK-NEXT: dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @d_y activation_grad_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_qkv parameter : tensor<64x192xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_qkv parameter : tensor<192xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @params_master optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_m optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_v optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {x = 2048}
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "attn_tp_f" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm1 = 2048} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {x_norm1 = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 32, 16] reads {k = 2048, q = 2048} writes {scores = 4096} stashed {k = 2048, q = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {probs = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {attn_dropout_mask = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 16, 32] reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {probs_dropped = 4096, v = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 64, 16] reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {context = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "attn_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_proj = 2048, b_out = 128} writes {attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {attn_out = 2048} writes {attn_out_dropped = 2048, attn_residual_dropout_mask = 1024} stashed {attn_residual_dropout_mask = 1024} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_out_dropped = 2048, x = 2048} writes {h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 7232 reads {h_attn = 2048, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 2048} stashed {h_attn = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "mlp_tp_f" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm2 = 2048} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {x_norm2 = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {fc1_out = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {act_out = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "mlp_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {b_fc2 = 128, mlp_proj = 2048} writes {mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {mlp_out = 2048} writes {mlp_dropout_mask = 1024, mlp_out_dropped = 2048} stashed {mlp_dropout_mask = 1024} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {h_attn = 2048, mlp_out_dropped = 2048} writes {y = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_y = 2048, mlp_dropout_mask = 1024} writes {d_mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_b_fc2 = 256, d_mlp_out = 2048} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "mlp_tp_g" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {d_mlp_out = 2048} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_mlp_out = 8192, w_fc2 = 8192} writes {d_act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, d_mlp_out = 8192, d_w_fc2 = 16384} writes {d_w_fc2 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 73728 reads {d_act_out = 8192, fc1_out = 8192} writes {d_fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, w_fc1 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "mlp_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm2 = 8192} writes {d_x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fc1_wgrad_gather" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm2 = 2048} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, d_w_fc1 = 16384, x_norm2 = 8192} writes {d_w_fc1 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_b_fc1 = 256, d_fc1_out = 8192} writes {d_b_fc1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10272 reads {d_x_norm2 = 2048, h_attn = 2048, norm2_gamma = 128} writes {d_h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 5120 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 2048, h_attn = 2048} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_h_attn = 2048, d_y = 2048} writes {d_h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_residual_dropout_mask = 1024, d_h_attn = 2048} writes {d_attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_attn_out = 2048, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "attn_tp_g" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {d_attn_out = 2048} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 16, 64] reads {d_attn_out = 8192, w_out = 2048} writes {d_context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 16, 64, 64] reads {context = 2048, d_attn_out = 8192, d_w_out = 4096} writes {d_w_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 32, 16, 2, 32, 16, 32] reads {d_context = 2048, probs_dropped = 4096, v = 2048} writes {d_probs_dropped = 4096, d_v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 2048 reads {attn_dropout_mask = 2048, d_probs_dropped = 4096} writes {d_probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10240 reads {d_probs = 4096, probs = 4096} writes {d_scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 16, 32, 2, 32, 16, 32] reads {d_scores = 4096, k = 2048, q = 2048} writes {d_k = 2048, d_q = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 64, 48] reads {d_k = 2048, d_q = 2048, d_v = 2048, w_qkv = 6144} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "attn_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm1 = 8192} writes {d_x_norm1 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "qkv_wgrad_gather" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm1 = 2048} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {d_k = 2048, d_q = 2048, d_v = 2048, d_w_qkv = 12288, x_norm1 = 8192} writes {d_w_qkv = 12288} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {d_b_qkv = 192, d_k = 2048, d_q = 2048, d_v = 2048} writes {d_b_qkv = 192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10272 reads {d_x_norm1 = 2048, norm1_gamma = 128, x = 2048} writes {d_x = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 5120 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 2048, x = 2048} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_h_attn = 2048, d_x = 2048} writes {d_x = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "sp_param_grad_sync" weight_grad per_iteration on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 1536 ops = 288 reads {d_sequence_parallel_params = 1536} writes {d_sequence_parallel_params = 1536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ranks [0, 1, 2, 3] ops = 204544 reads {adam_m = 51136, adam_v = 51136, d_params = 51136, params_master = 51136} writes {adam_m = 51136, adam_v = 51136, d_params = 51136, params = 25568, params_master = 51136} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_x activation_grad_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_qkv parameter_grad : tensor<64x192xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_qkv parameter_grad : tensor<192xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_out parameter_grad : tensor<64x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_out parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc1 parameter_grad : tensor<64x256xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc1 parameter_grad : tensor<256xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc2 parameter_grad : tensor<256x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc2 parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
transformer.decoder_training @tp4sp
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = none, schedule = one_f_one_b>

// -----

// CHECK-LABEL: dist.program @selective source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = selective, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @tp_mesh axes = ["tp"] shape = [4]
// CHECK-NEXT: dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @d_y activation_grad_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_qkv parameter : tensor<64x192xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_qkv parameter : tensor<192xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @params_master optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_m optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_v optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 32, 16] reads {k = 2048, q = 2048} writes {scores = 4096} stashed {k = 2048, q = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 16, 32] reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {v = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 64, 16] reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {context = 2048} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {fc1_out = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {act_out = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 32, 16] reads {k = 2048, q = 2048} writes {scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 16, 32] reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_mlp_out = 8192, w_fc2 = 8192} writes {d_act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, d_mlp_out = 8192, d_w_fc2 = 16384} writes {d_w_fc2 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 73728 reads {d_act_out = 8192, fc1_out = 8192} writes {d_fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, w_fc1 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "mlp_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm2 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, d_w_fc1 = 16384, x_norm2 = 8192} writes {d_w_fc1 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_b_fc1 = 256, d_fc1_out = 8192} writes {d_b_fc1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 16, 64] reads {d_attn_out = 8192, w_out = 2048} writes {d_context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 16, 64, 64] reads {context = 2048, d_attn_out = 8192, d_w_out = 4096} writes {d_w_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 32, 16, 2, 32, 16, 32] reads {d_context = 2048, probs_dropped = 4096, v = 2048} writes {d_probs_dropped = 4096, d_v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 2048 reads {attn_dropout_mask = 2048, d_probs_dropped = 4096} writes {d_probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10240 reads {d_probs = 4096, probs = 4096} writes {d_scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 16, 32, 2, 32, 16, 32] reads {d_scores = 4096, k = 2048, q = 2048} writes {d_k = 2048, d_q = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 64, 48] reads {d_k = 2048, d_q = 2048, d_v = 2048, w_qkv = 6144} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "attn_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm1 = 8192} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {d_k = 2048, d_q = 2048, d_v = 2048, d_w_qkv = 12288, x_norm1 = 8192} writes {d_w_qkv = 12288} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {d_b_qkv = 192, d_k = 2048, d_q = 2048, d_v = 2048} writes {d_b_qkv = 192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ranks [0, 1, 2, 3] ops = 204544 reads {adam_m = 51136, adam_v = 51136, d_params = 51136, params_master = 51136} writes {adam_m = 51136, adam_v = 51136, d_params = 51136, params = 25568, params_master = 51136} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_x activation_grad_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_qkv parameter_grad : tensor<64x192xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_qkv parameter_grad : tensor<192xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_out parameter_grad : tensor<64x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_out parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc1 parameter_grad : tensor<64x256xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc1 parameter_grad : tensor<256xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc2 parameter_grad : tensor<256x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc2 parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
transformer.decoder_training @selective
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = selective, schedule = one_f_one_b>

// -----

// CHECK-LABEL: dist.program @fullsp source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = full, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @tp_mesh axes = ["tp"] shape = [4]
// CHECK-NEXT: dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @d_y activation_grad_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_qkv parameter : tensor<64x192xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_qkv parameter : tensor<192xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @params_master optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_m optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: dist.boundary @adam_v optimizer_state : tensor<51136xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3]
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {x = 2048}
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "attn_tp_f" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm1 = 2048} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 32, 16] reads {k = 2048, q = 2048} writes {scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 16, 32] reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 64, 16] reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "attn_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_proj = 2048, b_out = 128} writes {attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {attn_out = 2048} writes {attn_out_dropped = 2048, attn_residual_dropout_mask = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_out_dropped = 2048, x = 2048} writes {h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 7232 reads {h_attn = 2048, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "mlp_tp_f" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm2 = 2048} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "mlp_tp_g" forward per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {b_fc2 = 128, mlp_proj = 2048} writes {mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {mlp_out = 2048} writes {mlp_dropout_mask = 1024, mlp_out_dropped = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {h_attn = 2048, mlp_out_dropped = 2048} writes {y = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "attn_tp_f" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm1 = 2048} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {b_qkv = 96, w_qkv = 6144, x_norm1 = 8192} writes {k = 2048, q = 2048, v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 32, 16] reads {k = 2048, q = 2048} writes {scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 14400 reads {scores = 4096} writes {probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 6144 reads {probs = 4096} writes {attn_dropout_mask = 2048, probs_dropped = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 65536 gemm = [2, 32, 16, 32] reads {probs_dropped = 4096, v = 2048} writes {context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 64, 16] reads {context = 2048, w_out = 2048} writes {attn_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "attn_tp_g" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {attn_proj = 8192} writes {attn_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_proj = 2048, b_out = 128} writes {attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {attn_out = 2048} writes {attn_out_dropped = 2048, attn_residual_dropout_mask = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_out_dropped = 2048, x = 2048} writes {h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 7232 reads {h_attn = 2048, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "mlp_tp_f" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm2 = 2048} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {b_fc1 = 128, w_fc1 = 8192, x_norm2 = 8192} writes {fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 36864 reads {fc1_out = 8192} writes {act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" recompute matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, w_fc2 = 8192} writes {mlp_proj = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "mlp_tp_g" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {mlp_proj = 8192} writes {mlp_proj = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {b_fc2 = 128, mlp_proj = 2048} writes {mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {mlp_out = 2048} writes {mlp_dropout_mask = 1024, mlp_out_dropped = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" recompute vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {h_attn = 2048, mlp_out_dropped = 2048} writes {y = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_y = 2048, mlp_dropout_mask = 1024} writes {d_mlp_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_b_fc2 = 256, d_mlp_out = 2048} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "mlp_tp_g" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {d_mlp_out = 2048} writes {d_mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_mlp_out = 8192, w_fc2 = 8192} writes {d_act_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {act_out = 8192, d_mlp_out = 8192, d_w_fc2 = 16384} writes {d_w_fc2 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 73728 reads {d_act_out = 8192, fc1_out = 8192} writes {d_fc1_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, w_fc1 = 8192} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "mlp_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm2 = 8192} writes {d_x_norm2 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fc1_wgrad_gather" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm2 = 2048} writes {x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 524288 gemm = [1, 64, 64, 64] reads {d_fc1_out = 8192, d_w_fc1 = 16384, x_norm2 = 8192} writes {d_w_fc1 = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 4096 reads {d_b_fc1 = 256, d_fc1_out = 8192} writes {d_b_fc1 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10272 reads {d_x_norm2 = 2048, h_attn = 2048, norm2_gamma = 128} writes {d_h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 5120 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 2048, h_attn = 2048} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_h_attn = 2048, d_y = 2048} writes {d_h_attn = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {attn_residual_dropout_mask = 1024, d_h_attn = 2048} writes {d_attn_out = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_attn_out = 2048, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "attn_tp_g" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {d_attn_out = 2048} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 64, 16, 64] reads {d_attn_out = 8192, w_out = 2048} writes {d_context = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [1, 16, 64, 64] reads {context = 2048, d_attn_out = 8192, d_w_out = 4096} writes {d_w_out = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 32, 16, 2, 32, 16, 32] reads {d_context = 2048, probs_dropped = 4096, v = 2048} writes {d_probs_dropped = 4096, d_v = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 2048 reads {attn_dropout_mask = 2048, d_probs_dropped = 4096} writes {d_probs = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10240 reads {d_probs = 4096, probs = 4096} writes {d_scores = 4096} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 131072 gemm = [2, 32, 16, 32, 2, 32, 16, 32] reads {d_scores = 4096, k = 2048, q = 2048} writes {d_k = 2048, d_q = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 64, 48] reads {d_k = 2048, d_q = 2048, d_v = 2048, w_qkv = 6144} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "attn_tp_f" activation_grad per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 3072 reads {d_x_norm1 = 8192} writes {d_x_norm1 = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "qkv_wgrad_gather" recommunication per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x_norm1 = 2048} writes {x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 393216 gemm = [1, 64, 48, 64] reads {d_k = 2048, d_q = 2048, d_v = 2048, d_w_qkv = 12288, x_norm1 = 8192} writes {d_w_qkv = 12288} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 3072 reads {d_b_qkv = 192, d_k = 2048, d_q = 2048, d_v = 2048} writes {d_b_qkv = 192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 10272 reads {d_x_norm1 = 2048, norm1_gamma = 128, x = 2048} writes {d_x = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 5120 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 2048, x = 2048} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0, 1, 2, 3] ops = 1024 reads {d_h_attn = 2048, d_x = 2048} writes {d_x = 2048} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "sp_param_grad_sync" weight_grad per_iteration on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 1536 ops = 288 reads {d_sequence_parallel_params = 1536} writes {d_sequence_parallel_params = 1536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ranks [0, 1, 2, 3] ops = 204544 reads {adam_m = 51136, adam_v = 51136, d_params = 51136, params_master = 51136} writes {adam_m = 51136, adam_v = 51136, d_params = 51136, params = 25568, params_master = 51136} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_x activation_grad_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_qkv parameter_grad : tensor<64x192xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_qkv parameter_grad : tensor<192xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_out parameter_grad : tensor<64x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_out parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc1 parameter_grad : tensor<64x256xf32> sharding = <@tp_mesh, {{\[\[}}], ["tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc1 parameter_grad : tensor<256xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_w_fc2 parameter_grad : tensor<256x64xf32> sharding = <@tp_mesh, {{\[\[}}"tp"]]> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_b_fc2 parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm1_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
// CHECK-NEXT: dist.boundary @d_norm2_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0, 1, 2, 3] produced_by %{{[0-9]+}}
transformer.decoder_training @fullsp
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = full, schedule = one_f_one_b>
