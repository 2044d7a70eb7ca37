// Every task, collective and boundary carries its lineage in its location:
// a named location "<primitive>.<phase>" fused with the source op's location,
// with a #dist.lineage<...> naming the model, primitive, phase and cause.
// RUN: blueprint-opt %s --distribute-transformer --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// CHECK: dist.all_gather "attn_tp_f" forward {{.*}} loc(fused<#dist.lineage<model = "lin", primitive = "attn_tp_f", phase = forward, cause = "{{[^"]+}}">>["attn_tp_f.forward", "{{.*}}distribute-transformer-lineage.mlir":[[LINE:[0-9]+]]:1])
// CHECK: dist.task "qkv_proj" forward matmul {{.*}} loc(fused<#dist.lineage<model = "lin", primitive = "qkv_proj", phase = forward, cause = "{{[^"]+}}">>["qkv_proj.forward", "{{.*}}":[[LINE]]:1])
// CHECK: dist.task "qk_matmul" recompute matmul {{.*}} loc(fused<#dist.lineage<model = "lin", primitive = "qk_matmul", phase = recompute, cause = "selective recompute{{[^"]*}}">>["qk_matmul.recompute", "{{.*}}":[[LINE]]:1])
// CHECK: dist.all_gather "qkv_wgrad_gather" recommunication {{.*}} loc(fused<#dist.lineage<model = "lin", primitive = "qkv_wgrad_gather", phase = recommunication, {{.*}}>>["qkv_wgrad_gather.recommunication", "{{.*}}":[[LINE]]:1])
// CHECK: dist.boundary @y activation_out {{.*}} loc("{{.*}}distribute-transformer-lineage.mlir":[[LINE]]:1)
transformer.decoder_training @lin
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = selective,
               schedule = one_f_one_b>
