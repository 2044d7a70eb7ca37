// RUN: blueprint-opt %s | FileCheck %s
// RUN: blueprint-opt %s | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --emit-bytecode | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --mlir-print-op-generic | blueprint-opt | FileCheck %s

// CHECK-LABEL: dist.program @block source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
// CHECK-SAME: mapping = <world = 4, tp = 4, pp = 1, dp = 1
// CHECK: dist.mesh @tp_mesh axes = ["tp"] shape = [4]
// CHECK: dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[\], \["tp"\]\]}}> owners = [0, 1, 2, 3]
// CHECK: dist.boundary @w parameter : tensor<64x256xbf16> sharding = <@tp_mesh, {{\[\[\], \["tp"\]\]}}>
// CHECK: %[[G:.*]] = dist.all_gather "gather" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 8192 ops = 0 reads {x = 2048} writes {x_full = 8192} stashed {}
// CHECK: %[[M:.*]] = dist.task "fc" forward matmul per_micro_batch on @tp_mesh ops = 1048576 gemm = [1, 64, 128, 64] reads {w = 8192, x_full = 8192} writes {h = 8192} stashed {x = 2048} after(%[[G]])
// CHECK: %[[R:.*]] = dist.reduce_scatter "scatter" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = sum participants = 4 message = 8192 ops = 1536 reads {h = 8192} writes {y = 2048} stashed {} after(%[[M]])
// CHECK: %[[A:.*]] = dist.all_reduce "sync" weight_grad per_iteration on @tp_mesh ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4 message = 512 ops = 96 reads {d_w = 512} writes {d_w = 512} stashed {} after(%[[M]], %[[R]])
// A discardable attribute is printed after the op's own fields (the ops'
// formats place every property themselves; see AsmFormat.td).
// CHECK: %{{.*}} = dist.task "step" optimizer vector per_iteration on @tp_mesh ops = 16 reads {"w-master" = 4} writes {"w-master" = 4} stashed {} after(%[[A]]) {note = "hand-written"}
// CHECK: dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, {{\[\[\], \["tp"\]\]}}> produced_by %[[R]]
dist.program @block source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = none,
               schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  dist.boundary @x activation_in : tensor<2x32x64xbf16>
      sharding = <@tp_mesh, [[], ["tp"]]> owners = [0, 1, 2, 3]
  dist.boundary @w parameter : tensor<64x256xbf16>
      sharding = <@tp_mesh, [[], ["tp"]]>
  %g = dist.all_gather "gather" forward per_micro_batch on @tp_mesh
      axes = ["tp"] participants = 4 message = 8192 ops = 0
      reads {x = 2048} writes {x_full = 8192} stashed {}
  %m = dist.task "fc" forward matmul per_micro_batch on @tp_mesh
      ops = 1048576 gemm = [1, 64, 128, 64]
      reads {x_full = 8192, w = 8192} writes {h = 8192}
      stashed {x = 2048} after(%g)
  %r = dist.reduce_scatter "scatter" forward per_micro_batch on @tp_mesh
      axes = ["tp"] reduction = sum participants = 4 message = 8192
      ops = 1536 reads {h = 8192} writes {y = 2048} stashed {} after(%m)
  %a = dist.all_reduce "sync" weight_grad per_iteration on @tp_mesh
      ranks [0, 1, 2, 3] axes = ["tp"] reduction = sum participants = 4
      message = 512 ops = 96 reads {d_w = 512} writes {d_w = 512} stashed {}
      after(%m, %r)
  %s = dist.task "step" optimizer vector per_iteration on @tp_mesh ops = 16
      reads {"w-master" = 4} writes {"w-master" = 4} stashed {} after(%a)
      {note = "hand-written"}
  dist.boundary @y activation_out : tensor<2x32x64xbf16>
      sharding = <@tp_mesh, [[], ["tp"]]> produced_by %r
}

// On a two-axis mesh, a collective over one axis may run on some of its
// groups: ranks [2, 3] are the tp group of dp rank 1 (dist_collective_c5).
// CHECK-LABEL: dist.program @grid
// CHECK: dist.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
// CHECK: dist.all_reduce "half" forward per_micro_batch on @mesh ranks [2, 3] axes = ["tp"]
dist.program @grid source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 2, pp = 1, dp = 2, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none,
               schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
  %0 = dist.all_reduce "half" forward per_micro_batch on @mesh ranks [2, 3]
      axes = ["tp"] reduction = sum participants = 2 message = 8 ops = 2
      reads {b = 8} writes {b = 8} stashed {}
}

// Work ops are never folded, merged or erased: two identical tasks and two
// identical collectives survive canonicalize and CSE.
// RUN: blueprint-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: dist.program @twins
// KEEP-COUNT-2: dist.task "twin"
// KEEP-COUNT-2: dist.all_reduce "twin_sync"
// KEEP-COUNT-2: dist.all_to_all "twin_exchange"
dist.program @twins source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none,
               schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [2]
  %0 = dist.task "twin" forward vector per_micro_batch on @tp_mesh ops = 8
      reads {a = 8} writes {b = 8} stashed {}
  %1 = dist.task "twin" forward vector per_micro_batch on @tp_mesh ops = 8
      reads {a = 8} writes {b = 8} stashed {}
  %2 = dist.all_reduce "twin_sync" forward per_micro_batch on @tp_mesh
      axes = ["tp"] reduction = sum participants = 2 message = 8 ops = 2
      reads {b = 8} writes {b = 8} stashed {}
  %3 = dist.all_reduce "twin_sync" forward per_micro_batch on @tp_mesh
      axes = ["tp"] reduction = sum participants = 2 message = 8 ops = 2
      reads {b = 8} writes {b = 8} stashed {}
  %4 = dist.all_to_all "twin_exchange" forward per_micro_batch on @tp_mesh
      axes = ["tp"] participants = 2 message = 8 ops = 0
      reads {b = 8} writes {c = 8} stashed {}
  %5 = dist.all_to_all "twin_exchange" forward per_micro_batch on @tp_mesh
      axes = ["tp"] participants = 2 message = 8 ops = 0
      reads {b = 8} writes {c = 8} stashed {}
}

// An all-to-all (token dispatch over the expert-parallel ranks) reads and
// writes each participant's whole buffer and carries no reduction.
// CHECK-LABEL: dist.program @exchange
// CHECK: %[[D:.*]] = dist.all_to_all "dispatch" forward per_micro_batch on @mesh axes = ["dp"] participants = 4 message = 4096 ops = 0 reads {routed = 4096} writes {dispatched = 4096} stashed {}
// CHECK: dist.all_to_all "combine_grad" activation_grad per_micro_batch on @mesh ranks [0, 1, 2, 3] axes = ["dp"] participants = 4 message = 4096 ops = 0 reads {d_combined = 4096} writes {d_expert_out = 4096} stashed {} after(%[[D]])
dist.program @exchange source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 1, dp = 4, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none,
               schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["dp"] shape = [4]
  %d = dist.all_to_all "dispatch" forward per_micro_batch on @mesh
      axes = ["dp"] participants = 4 message = 4096 ops = 0
      reads {routed = 4096} writes {dispatched = 4096} stashed {}
  %c = dist.all_to_all "combine_grad" activation_grad per_micro_batch
      on @mesh ranks [0, 1, 2, 3] axes = ["dp"] participants = 4
      message = 4096 ops = 0 reads {d_combined = 4096}
      writes {d_expert_out = 4096} stashed {} after(%d)
}
