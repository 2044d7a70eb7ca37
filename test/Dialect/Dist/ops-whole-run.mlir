// RUN: blueprint-opt %s | FileCheck %s
// RUN: blueprint-opt %s | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --emit-bytecode | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --mlir-print-op-generic | blueprint-opt | FileCheck %s

// A whole-run program (pp = 2, two micro-batches, one_f_one_b) with an
// explicit, uneven pipeline layout, edge templates and a tied-embedding
// gradient all-reduce over the group of the first and last stage.

// CHECK-LABEL: dist.program @run
// CHECK-SAME: mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, pipeline_layout = [1, 3]> {
// CHECK: dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
// CHECK: dist.template @embedding_forward embedding forward {
// CHECK-NEXT: dist.task "embedding" forward vector per_micro_batch on @mesh ops = 4 reads {tokens = 8} writes {x = 8} stashed {}
// CHECK: dist.template @block_forward block forward {
// CHECK: dist.template @block_backward block backward {
// CHECK: dist.template @head_forward head forward {
// CHECK: dist.template @block_step block step {
// CHECK-NEXT: dist.task "adamw_step" optimizer vector per_iteration on @mesh
// CHECK: dist.stage 0 {
// CHECK-NEXT: %[[E0:.*]] = dist.instance @embedding_forward chunk 0 micro_batch 0{{$}}
// CHECK-NEXT: %[[F0:.*]] = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1] after(%[[E0]])
// CHECK-NEXT: dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%[[F0]])
// CHECK: %[[R0:.*]] = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(
// CHECK-NEXT: dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%[[R0]])
// CHECK: %[[B1:.*]] = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 1] after(
// CHECK-NEXT: %[[AR:.*]] = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%[[B1]])
// CHECK-NEXT: dist.instance @block_step chunk 0 blocks [0, 1] after(%[[AR]])
// CHECK: dist.stage 1 {
// CHECK-NEXT: %[[R:.*]] = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192{{$}}
// CHECK-NEXT: %[[F:.*]] = dist.instance @block_forward chunk 1 micro_batch 0 blocks [1, 4] after(%[[R]])
// CHECK-NEXT: %[[H:.*]] = dist.instance @head_forward chunk 1 micro_batch 0 after(%[[F]])
// CHECK-NEXT: %[[B:.*]] = dist.instance @block_backward chunk 1 micro_batch 0 blocks [1, 4] after(%[[H]])
// CHECK-NEXT: dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%[[B]])
// CHECK: dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 2
// CHECK-NEXT: dist.instance @block_step chunk 1 blocks [1, 4] after(

// The new mapping fields and schedule on a ModelIR op.
// CHECK-LABEL: transformer.decoder_training @zb
// CHECK-SAME: mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = zero_bubble_h1, pipeline_layout = [1, 3], zero_stage = 1, bucket_bytes = 33554432>

// Defaults (zero_stage = 0, bucket_bytes = 0, no layout) are not printed.
// CHECK-LABEL: transformer.decoder_training @defaults
// CHECK-SAME: schedule = one_f_one_b>
dist.program @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b,
               pipeline_layout = [1, 3]> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @embedding_forward embedding forward {
    %0 = dist.task "embedding" forward vector per_micro_batch on @mesh
        ops = 4 reads {tokens = 8} writes {x = 8} stashed {}
  }
  dist.template @block_forward block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh
        ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @block_backward block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh
        ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.template @head_forward head forward {
    %0 = dist.task "lm_head" forward matmul per_micro_batch on @mesh
        ops = 4 reads {y = 8} writes {logits = 8} stashed {y = 8}
  }
  dist.template @block_step block step {
    %0 = dist.task "adamw_step" optimizer vector per_iteration on @mesh
        ops = 4 reads {w = 8} writes {w = 8} stashed {}
  }
  dist.stage 0 {
    %e0 = dist.instance @embedding_forward chunk 0 micro_batch 0
    %0 = dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1] after(%e0)
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %e1 = dist.instance @embedding_forward chunk 0 micro_batch 1 after(%0)
    %2 = dist.instance @block_forward chunk 0 micro_batch 1 blocks [0, 1] after(%e1)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @block_backward chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    %8 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh
        axes = ["pp"] group [0, 1] reduction = sum participants = 2
        message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {}
        after(%7)
    %9 = dist.instance @block_step chunk 0 blocks [0, 1] after(%8)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @block_forward chunk 1 micro_batch 0 blocks [1, 4] after(%0)
    %h0 = dist.instance @head_forward chunk 1 micro_batch 0 after(%1)
    %2 = dist.instance @block_backward chunk 1 micro_batch 0 blocks [1, 4] after(%h0)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @block_forward chunk 1 micro_batch 1 blocks [1, 4] after(%4)
    %h1 = dist.instance @head_forward chunk 1 micro_batch 1 after(%5)
    %6 = dist.instance @block_backward chunk 1 micro_batch 1 blocks [1, 4] after(%h1)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
    %8 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh
        axes = ["pp"] group [0, 1] reduction = sum participants = 2
        message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {}
        after(%6)
    %9 = dist.instance @block_step chunk 1 blocks [1, 4] after(%8)
  }
}

transformer.decoder_training @zb
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = zero_bubble_h1, pipeline_layout = [1, 3], zero_stage = 1, bucket_bytes = 33554432>

transformer.decoder_training @defaults
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 0, bucket_bytes = 0>
