module {
  dist.program @tiny source_digest = "sha256:1dc64fee12437fc81b62c424ead20c15eafaed934b38218dfc164072d8022d34" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = reduce_scatter_all_gather, recompute = selective, schedule = one_f_one_b> {
    dist.mesh @tp_mesh axes = ["tp"] shape = [1]
    dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0]
    dist.boundary @d_y activation_grad_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0]
    dist.boundary @norm1_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
    dist.boundary @w_qkv parameter : tensor<64x192xbf16> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0]
    dist.boundary @b_qkv parameter : tensor<192xbf16> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    dist.boundary @w_out parameter : tensor<64x64xbf16> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    dist.boundary @b_out parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
    dist.boundary @norm2_gamma parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
    dist.boundary @w_fc1 parameter : tensor<64x256xbf16> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0]
    dist.boundary @b_fc1 parameter : tensor<256xbf16> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    dist.boundary @w_fc2 parameter : tensor<256x64xbf16> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    dist.boundary @b_fc2 parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
    dist.boundary @norm1_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
    dist.boundary @norm2_beta parameter : tensor<64xbf16> sharding = <@tp_mesh, []> owners = [0]
    dist.boundary @params_master optimizer_state : tensor<49984xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    dist.boundary @adam_m optimizer_state : tensor<49984xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    dist.boundary @adam_v optimizer_state : tensor<49984xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0]
    %0 = dist.task "norm1" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
    %1 = dist.task "qkv_proj" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 1572864 reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%0)
    %2 = dist.task "qk_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 262144 reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%1)
    %3 = dist.task "softmax" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {} after(%2)
    %4 = dist.task "attn_dropout" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {} after(%3)
    %5 = dist.task "attn_v_matmul" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 262144 reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {v = 8192} after(%4)
    %6 = dist.task "out_proj" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%5)
    %7 = dist.task "out_proj_bias" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%6)
    %8 = dist.task "attn_residual_dropout" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%7)
    %9 = dist.task "attn_residual" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%8)
    %10 = dist.task "norm2" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%9)
    %11 = dist.task "fc1" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%10)
    %12 = dist.task "activation" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%11)
    %13 = dist.task "fc2" forward matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%12)
    %14 = dist.task "fc2_bias" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%13)
    %15 = dist.task "mlp_dropout" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%14)
    %16 = dist.task "mlp_residual" forward vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%15)
    %17 = dist.task "qk_matmul" recompute matmul per_micro_batch on @tp_mesh ranks [0] ops = 262144 reads {k = 8192, q = 8192} writes {scores = 16384} stashed {} after(%16)
    %18 = dist.task "softmax" recompute vector per_micro_batch on @tp_mesh ranks [0] ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {} after(%17)
    %19 = dist.task "attn_dropout" recompute vector per_micro_batch on @tp_mesh ranks [0] ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {} after(%18)
    %20 = dist.task "attn_v_matmul" recompute matmul per_micro_batch on @tp_mesh ranks [0] ops = 262144 reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {} after(%19)
    %21 = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {} after(%20)
    %22 = dist.task "fc2_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%21)
    %23 = dist.task "fc2" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%22)
    %24 = dist.task "fc2" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%23)
    %25 = dist.task "activation" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%24)
    %26 = dist.task "fc1" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%25)
    %27 = dist.task "fc1" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 2097152 reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%26)
    %28 = dist.task "fc1_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%27)
    %29 = dist.task "norm2" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%28)
    %30 = dist.task "norm2" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%29)
    %31 = dist.task "mlp_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%30)
    %32 = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%31)
    %33 = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%32)
    %34 = dist.task "out_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%33)
    %35 = dist.task "out_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%34)
    %36 = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%35)
    %37 = dist.task "attn_dropout" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%36)
    %38 = dist.task "softmax" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%37)
    %39 = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 524288 reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%38)
    %40 = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 1572864 reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%39)
    %41 = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @tp_mesh ranks [0] ops = 1572864 reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%40)
    %42 = dist.task "qkv_bias" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%41)
    %43 = dist.task "norm1" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%42)
    %44 = dist.task "norm1" weight_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%43)
    %45 = dist.task "attn_residual" activation_grad vector per_micro_batch on @tp_mesh ranks [0] ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%44)
    %46 = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ranks [0] ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {} after(%45)
    dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0] produced_by %16
    dist.boundary @d_x activation_grad_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0] produced_by %45
    dist.boundary @d_norm1_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %44
    dist.boundary @d_w_qkv parameter_grad : tensor<64x192xf32> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0] produced_by %41
    dist.boundary @d_b_qkv parameter_grad : tensor<192xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0] produced_by %42
    dist.boundary @d_w_out parameter_grad : tensor<64x64xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0] produced_by %35
    dist.boundary @d_b_out parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %33
    dist.boundary @d_norm2_gamma parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %30
    dist.boundary @d_w_fc1 parameter_grad : tensor<64x256xf32> sharding = <@tp_mesh, [[], ["tp"]]> owners = [0] produced_by %27
    dist.boundary @d_b_fc1 parameter_grad : tensor<256xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0] produced_by %28
    dist.boundary @d_w_fc2 parameter_grad : tensor<256x64xf32> sharding = <@tp_mesh, [["tp"]]> owners = [0] produced_by %24
    dist.boundary @d_b_fc2 parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %22
    dist.boundary @d_norm1_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %44
    dist.boundary @d_norm2_beta parameter_grad : tensor<64xf32> sharding = <@tp_mesh, []> owners = [0] produced_by %30
  }
}

