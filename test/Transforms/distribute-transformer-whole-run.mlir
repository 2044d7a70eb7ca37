// Golden whole-run DistributedTaskIR (docs/WholeRun.md) of a small model:
// 4 blocks, PP 2, DP 2, 4 micro-batches, under each pipeline schedule
// (1F1B, GPipe, interleaved 1F1B with 2 virtual stages, ZB-H1) and an
// uneven layout with sharded optimizer state and two gradient buckets, and
// ZeRO-3's parameter gathers.
// Regenerate with
//   utils/update-golden-checks.py build %s -- --distribute-transformer=scope=iteration
// and review the difference; the stage orders are checked against
// Megatron-LM's and the totals against closed forms in
// test/Unit/PipelineTest.cpp and test/Unit/WholeRunTest.cpp.
// RUN: blueprint-opt %s -split-input-file --distribute-transformer=scope=iteration | FileCheck %s

// CHECK-LABEL: dist.program @one_f_one_b source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 1]
// CHECK-NEXT: dist.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @mesh ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @mesh ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @mesh ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @mesh ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @mesh ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @mesh ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @mesh ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @mesh ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @mesh ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @mesh ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @mesh ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" forward vector per_micro_batch on @mesh ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" forward vector per_micro_batch on @mesh ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" forward vector per_micro_batch on @mesh ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" forward matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_max" forward vector per_micro_batch on @mesh ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_exp" forward vector per_micro_batch on @mesh ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" forward vector per_micro_batch on @mesh ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" forward vector per_micro_batch on @mesh ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" activation_grad vector per_micro_batch on @mesh ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" activation_grad vector per_micro_batch on @mesh ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" activation_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" weight_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 440832 ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 433152 ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_step chunk 1 after(%{{[0-9]+}})
transformer.decoder_training @one_f_one_b
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// -----

// CHECK-LABEL: dist.program @gpipe source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = gpipe> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 1]
// CHECK-NEXT: dist.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @mesh ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @mesh ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @mesh ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @mesh ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @mesh ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @mesh ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @mesh ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @mesh ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @mesh ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @mesh ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @mesh ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" forward vector per_micro_batch on @mesh ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" forward vector per_micro_batch on @mesh ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" forward vector per_micro_batch on @mesh ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" forward matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_max" forward vector per_micro_batch on @mesh ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_exp" forward vector per_micro_batch on @mesh ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" forward vector per_micro_batch on @mesh ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" forward vector per_micro_batch on @mesh ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" activation_grad vector per_micro_batch on @mesh ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" activation_grad vector per_micro_batch on @mesh ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" activation_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" weight_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 440832 ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 433152 ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_step chunk 1 after(%{{[0-9]+}})
transformer.decoder_training @gpipe
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = gpipe>

// -----

// CHECK-LABEL: dist.program @interleaved source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 1]
// CHECK-NEXT: dist.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @mesh ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @mesh ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @mesh ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @mesh ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @mesh ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @mesh ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @mesh ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @mesh ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @mesh ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @mesh ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @mesh ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" forward vector per_micro_batch on @mesh ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" forward vector per_micro_batch on @mesh ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" forward vector per_micro_batch on @mesh ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" forward matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_max" forward vector per_micro_batch on @mesh ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_exp" forward vector per_micro_batch on @mesh ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" forward vector per_micro_batch on @mesh ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" forward vector per_micro_batch on @mesh ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" activation_grad vector per_micro_batch on @mesh ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" activation_grad vector per_micro_batch on @mesh ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" activation_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" weight_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 2 micro_batch 0 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 2 micro_batch 1 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 2 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 3 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 2 micro_batch 0 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 3 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 3 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 2 micro_batch 1 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 2 micro_batch 2 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 2 micro_batch 3 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 3 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 2 micro_batch 2 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 3 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 2 micro_batch 3 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 2 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 2 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 3 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 440832 ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 2 blocks [2, 3] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 1 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 3 micro_batch 0 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 3 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 3 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 3 micro_batch 0 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 3 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 3 micro_batch 1 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 3 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 3 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 3 micro_batch 1 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 3 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 2 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 3 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 1 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 3 micro_batch 2 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 3 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 3 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 3 micro_batch 2 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 3 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 3 micro_batch 3 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 3 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 3 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 3 micro_batch 3 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 3 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 2 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 2 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 3 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 433152 ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 1 blocks [1, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 3 blocks [3, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_step chunk 3 after(%{{[0-9]+}})
transformer.decoder_training @interleaved
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 2, tp_comm = all_reduce, recompute = none, schedule = interleaved_one_f_one_b>

// -----

// CHECK-LABEL: dist.program @zero_bubble source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = zero_bubble_h1> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 1]
// CHECK-NEXT: dist.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @mesh ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @mesh ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @mesh ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @mesh ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @mesh ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_input_grad block input_grad {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @mesh ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @mesh ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @mesh ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_weight_grad block weight_grad {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @mesh ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @mesh ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_step block step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "adamw_step" optimizer vector per_iteration on @mesh ops = 799744 reads {adam_m = 199936, adam_v = 199936, d_params = 199936, params_master = 199936} writes {adam_m = 199936, adam_v = 199936, d_params = 199936, params = 99968, params_master = 199936} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" forward vector per_micro_batch on @mesh ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" forward vector per_micro_batch on @mesh ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" forward vector per_micro_batch on @mesh ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" forward matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_max" forward vector per_micro_batch on @mesh ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_exp" forward vector per_micro_batch on @mesh ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" forward vector per_micro_batch on @mesh ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" forward vector per_micro_batch on @mesh ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" activation_grad vector per_micro_batch on @mesh ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" activation_grad vector per_micro_batch on @mesh ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" activation_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" weight_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_step embedding step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 163840 reads {adam_m = 40960, adam_v = 40960, d_params = 40960, params_master = 40960} writes {adam_m = 40960, adam_v = 40960, d_params = 40960, params = 20480, params_master = 40960} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_step head step {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "edge_adamw_step" optimizer vector per_iteration on @mesh ops = 133120 reads {adam_m = 33280, adam_v = 33280, d_params = 33280, params_master = 33280} writes {adam_m = 33280, adam_v = 33280, d_params = 33280, params = 16640, params_master = 33280} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 440832 ops = 55104 reads {d_params = 440832} writes {d_params = 440832} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_step chunk 0 after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_input_grad chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_weight_grad chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "dp_grad_allreduce" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 433152 ops = 54144 reads {d_params = 433152} writes {d_params = 433152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_step chunk 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_step chunk 1 after(%{{[0-9]+}})
transformer.decoder_training @zero_bubble
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = zero_bubble_h1>

// -----

// CHECK-LABEL: dist.program @uneven_zero1 source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [1, 3], zero_stage = 1, bucket_bytes = 300000> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 1]
// CHECK-NEXT: dist.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @mesh ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @mesh ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @mesh ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @mesh ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @mesh ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @mesh ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @mesh ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @mesh ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @mesh ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @mesh ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" forward vector per_micro_batch on @mesh ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" forward vector per_micro_batch on @mesh ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" forward vector per_micro_batch on @mesh ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" forward matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_max" forward vector per_micro_batch on @mesh ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_exp" forward vector per_micro_batch on @mesh ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" forward vector per_micro_batch on @mesh ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" forward vector per_micro_batch on @mesh ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" activation_grad vector per_micro_batch on @mesh ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" activation_grad vector per_micro_batch on @mesh ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" activation_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" weight_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 0
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 2 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 3 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 2 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 3 blocks [0, 1] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 240896 ops = 30112 reads {d_params = 240896} writes {d_params = 120448} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "dp_sharded_optimizer" optimizer vector per_iteration on @mesh ops = 481792 reads {adam_m = 120448, adam_v = 120448, d_params = 120448, params_master = 120448} writes {adam_m = 120448, adam_v = 120448, d_params = 120448, params = 60224, params_master = 120448} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "dp_param_all_gather" optimizer per_iteration on @mesh axes = ["dp"] participants = 2 message = 120448 ops = 0 reads {params = 60224} writes {params = 120448} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 0 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 0 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 1 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 1 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 2 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 2 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 3 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 3 blocks [1, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 433152 ops = 54144 reads {d_params = 433152} writes {d_params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 199936 ops = 24992 reads {d_params = 199936} writes {d_params = 99968} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "dp_sharded_optimizer" optimizer vector per_iteration on @mesh ops = 1266176 reads {adam_m = 316544, adam_v = 316544, d_params = 316544, params_master = 316544} writes {adam_m = 316544, adam_v = 316544, d_params = 316544, params = 158272, params_master = 316544} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "dp_param_all_gather" optimizer per_iteration on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "dp_param_all_gather" optimizer per_iteration on @mesh axes = ["dp"] participants = 2 message = 99968 ops = 0 reads {params = 49984} writes {params = 99968} stashed {} after(%{{[0-9]+}})
transformer.decoder_training @uneven_zero1
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [1, 3], zero_stage = 1, bucket_bytes = 300000>

// -----

// CHECK-LABEL: dist.program @zero3 source_digest = "sha256:{{[0-9a-f]+}}" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 3> {
// CHECK-NEXT: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 1]
// CHECK-NEXT: dist.template @block_forward block forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" forward vector per_micro_batch on @mesh ops = 28928 reads {norm1_beta = 128, norm1_gamma = 128, x = 8192} writes {x_norm1 = 8192} stashed {x = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" forward matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {b_qkv = 384, w_qkv = 24576, x_norm1 = 8192} writes {k = 8192, q = 8192, v = 8192} stashed {x_norm1 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 32, 16] reads {k = 8192, q = 8192} writes {scores = 16384} stashed {k = 8192, q = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" forward vector per_micro_batch on @mesh ops = 57600 reads {scores = 16384} writes {probs = 16384} stashed {probs = 16384} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" forward vector per_micro_batch on @mesh ops = 24576 reads {probs = 16384} writes {attn_dropout_mask = 8192, probs_dropped = 16384} stashed {attn_dropout_mask = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" forward matmul per_micro_batch on @mesh ops = 262144 gemm = [8, 32, 16, 32] reads {probs_dropped = 16384, v = 8192} writes {context = 8192} stashed {probs_dropped = 16384, v = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" forward matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, w_out = 8192} writes {attn_proj = 8192} stashed {context = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_proj = 8192, b_out = 128} writes {attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {attn_out = 8192} writes {attn_out_dropped = 8192, attn_residual_dropout_mask = 4096} stashed {attn_residual_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {attn_out_dropped = 8192, x = 8192} writes {h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" forward vector per_micro_batch on @mesh ops = 28928 reads {h_attn = 8192, norm2_beta = 128, norm2_gamma = 128} writes {x_norm2 = 8192} stashed {h_attn = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {b_fc1 = 512, w_fc1 = 32768, x_norm2 = 8192} writes {fc1_out = 32768} stashed {x_norm2 = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" forward vector per_micro_batch on @mesh ops = 147456 reads {fc1_out = 32768} writes {act_out = 32768} stashed {fc1_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" forward matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {act_out = 32768, w_fc2 = 32768} writes {mlp_proj = 8192} stashed {act_out = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" forward vector per_micro_batch on @mesh ops = 4096 reads {b_fc2 = 128, mlp_proj = 8192} writes {mlp_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {mlp_out = 8192} writes {mlp_dropout_mask = 4096, mlp_out_dropped = 8192} stashed {mlp_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" forward vector per_micro_batch on @mesh ops = 4096 reads {h_attn = 8192, mlp_out_dropped = 8192} writes {y = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @block_backward block backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_y = 8192, mlp_dropout_mask = 4096} writes {d_mlp_out = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_b_fc2 = 256, d_mlp_out = 8192} writes {d_b_fc2 = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_mlp_out = 8192, w_fc2 = 32768} writes {d_act_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc2" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 256, 64, 64] reads {act_out = 32768, d_mlp_out = 8192, d_w_fc2 = 65536} writes {d_w_fc2 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "activation" activation_grad vector per_micro_batch on @mesh ops = 294912 reads {d_act_out = 32768, fc1_out = 32768} writes {d_fc1_out = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" activation_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 64, 256] reads {d_fc1_out = 32768, w_fc1 = 32768} writes {d_x_norm2 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1" weight_grad matmul per_micro_batch on @mesh ops = 2097152 gemm = [1, 64, 256, 64] reads {d_fc1_out = 32768, d_w_fc1 = 65536, x_norm2 = 8192} writes {d_w_fc1 = 65536} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "fc1_bias" weight_grad vector per_micro_batch on @mesh ops = 16384 reads {d_b_fc1 = 1024, d_fc1_out = 32768} writes {d_b_fc1 = 1024} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm2 = 8192, h_attn = 8192, norm2_gamma = 128} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm2" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm2_beta = 256, d_norm2_gamma = 256, d_x_norm2 = 8192, h_attn = 8192} writes {d_norm2_beta = 256, d_norm2_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "mlp_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_y = 8192} writes {d_h_attn = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {attn_residual_dropout_mask = 4096, d_h_attn = 8192} writes {d_attn_out = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj_bias" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_attn_out = 8192, d_b_out = 256} writes {d_b_out = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {d_attn_out = 8192, w_out = 8192} writes {d_context = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "out_proj" weight_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [1, 64, 64, 64] reads {context = 8192, d_attn_out = 8192, d_w_out = 16384} writes {d_w_out = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_v_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 32, 16, 8, 32, 16, 32] reads {d_context = 8192, probs_dropped = 16384, v = 8192} writes {d_probs_dropped = 16384, d_v = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_dropout" activation_grad vector per_micro_batch on @mesh ops = 8192 reads {attn_dropout_mask = 8192, d_probs_dropped = 16384} writes {d_probs = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "softmax" activation_grad vector per_micro_batch on @mesh ops = 40960 reads {d_probs = 16384, probs = 16384} writes {d_scores = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qk_matmul" activation_grad matmul per_micro_batch on @mesh ops = 524288 gemm = [8, 32, 16, 32, 8, 32, 16, 32] reads {d_scores = 16384, k = 8192, q = 8192} writes {d_k = 8192, d_q = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" activation_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 64, 192] reads {d_k = 8192, d_q = 8192, d_v = 8192, w_qkv = 24576} writes {d_x_norm1 = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_proj" weight_grad matmul per_micro_batch on @mesh ops = 1572864 gemm = [1, 64, 192, 64] reads {d_k = 8192, d_q = 8192, d_v = 8192, d_w_qkv = 49152, x_norm1 = 8192} writes {d_w_qkv = 49152} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "qkv_bias" weight_grad vector per_micro_batch on @mesh ops = 12288 reads {d_b_qkv = 768, d_k = 8192, d_q = 8192, d_v = 8192} writes {d_b_qkv = 768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_norm1 = 8192, norm1_gamma = 128, x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "norm1" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_norm1_beta = 256, d_norm1_gamma = 256, d_x_norm1 = 8192, x = 8192} writes {d_norm1_beta = 256, d_norm1_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "attn_residual" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_h_attn = 8192, d_x = 8192} writes {d_x = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" forward vector per_micro_batch on @mesh ops = 0 reads {tokens = 512, w_word_embedding = 8192} writes {word_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" forward vector per_micro_batch on @mesh ops = 4096 reads {position_ids = 512, w_position_embedding = 8192, word_embeddings = 8192} writes {embeddings = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" forward vector per_micro_batch on @mesh ops = 12288 reads {embeddings = 8192} writes {embedding_dropout_mask = 4096, embeddings_dropped = 8192} stashed {embedding_dropout_mask = 4096} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @embedding_backward embedding backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "embedding_dropout" activation_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings_dropped = 8192, embedding_dropout_mask = 4096} writes {d_embeddings = 8192} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "position_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_position_embedding = 16384, position_ids = 512} writes {d_w_position_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "word_embedding" weight_grad vector per_micro_batch on @mesh ops = 4096 reads {d_embeddings = 8192, d_w_word_embedding = 16384, tokens = 512} writes {d_w_word_embedding = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_forward head forward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" forward vector per_micro_batch on @mesh ops = 28928 reads {final_norm_beta = 128, final_norm_gamma = 128, h_final = 8192} writes {x_final = 8192} stashed {h_final = 8192}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" forward matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w_word_embedding = 16384, x_final = 8192} writes {logits = 16384} stashed {x_final = 8192} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_max" forward vector per_micro_batch on @mesh ops = 8192 reads {logits = 16384} writes {logits_max = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy_exp" forward vector per_micro_batch on @mesh ops = 24960 reads {labels = 512, logits = 16384, logits_max = 256} writes {exp_logits = 32768, loss_target = 512, loss_target_mask = 64, sum_exp_logits = 256, target_logits = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" forward vector per_micro_batch on @mesh ops = 8320 reads {exp_logits = 32768, sum_exp_logits = 256, target_logits = 256} writes {loss = 256, loss_softmax = 32768} stashed {loss_softmax = 32768} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" forward vector per_micro_batch on @mesh ops = 194 reads {loss = 256, loss_mask = 256} writes {lm_loss = 4} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.template @head_backward head backward {
// CHECK-NEXT: %{{[0-9]+}} = dist.task "loss_average" activation_grad vector per_micro_batch on @mesh ops = 66 reads {loss_mask = 256} writes {d_loss = 256} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.task "cross_entropy" activation_grad vector per_micro_batch on @mesh ops = 8320 reads {d_loss = 256, loss_softmax = 32768, loss_target = 512, loss_target_mask = 64} writes {d_logits = 16384} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" activation_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 64, 128] reads {d_logits = 16384, w_word_embedding = 16384} writes {d_x_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "lm_head_logits" weight_grad matmul per_micro_batch on @mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {d_logits = 16384, d_w_word_embedding = 32768, x_final = 8192} writes {d_w_word_embedding = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" activation_grad vector per_micro_batch on @mesh ops = 41088 reads {d_x_final = 8192, final_norm_gamma = 128, h_final = 8192} writes {d_h_final = 8192} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "final_norm" weight_grad vector per_micro_batch on @mesh ops = 20480 reads {d_final_norm_beta = 256, d_final_norm_gamma = 256, d_x_final = 8192, h_final = 8192} writes {d_final_norm_beta = 256, d_final_norm_gamma = 256} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 0 {
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {}
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_forward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation micro_batch 3 chunk 0 to 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 2 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 2 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation_grad micro_batch 3 chunk 1 from 1 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 220416 ops = 0 reads {params = 110208} writes {params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 0 micro_batch 3 blocks [0, 2] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @embedding_backward chunk 0 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 440832 ops = 55104 reads {d_params = 440832} writes {d_params = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "dp_sharded_optimizer" optimizer vector per_iteration on @mesh ops = 881664 reads {adam_m = 220416, adam_v = 220416, d_params = 220416, params_master = 220416} writes {adam_m = 220416, adam_v = 220416, d_params = 220416, params = 110208, params_master = 220416} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: }
// CHECK-NEXT: dist.stage 1 {
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 0 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 1 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 1 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 2 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 2 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.recv activation micro_batch 3 chunk 0 from 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" forward per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_forward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_forward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_gather "fsdp_param_gather" recommunication per_micro_batch on @mesh axes = ["dp"] participants = 2 message = 216576 ops = 0 reads {params = 108288} writes {params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @head_backward chunk 1 micro_batch 3 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.instance @block_backward chunk 1 micro_batch 3 blocks [2, 4] after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.send activation_grad micro_batch 3 chunk 1 to 0 bytes = 8192 after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 433152 ops = 54144 reads {d_params = 433152} writes {d_params = 216576} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.all_reduce "embedding_grad_sync" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 32768 ops = 4096 reads {embedding_grad_sync = 32768} writes {embedding_grad_sync = 32768} stashed {} after(%{{[0-9]+}})
// CHECK-NEXT: %{{[0-9]+}} = dist.task "dp_sharded_optimizer" optimizer vector per_iteration on @mesh ops = 866304 reads {adam_m = 216576, adam_v = 216576, d_params = 216576, params_master = 216576} writes {adam_m = 216576, adam_v = 216576, d_params = 216576, params = 108288, params_master = 216576} stashed {} after(%{{[0-9]+}})
transformer.decoder_training @zero3
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 16, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 3>
