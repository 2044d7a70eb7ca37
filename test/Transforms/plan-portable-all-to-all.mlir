// An all-to-all through plan-portable and the estimate: the task requires
// the collective_all_to_all capability, its network demand is what one
// participant sends, (n-1)/n * M = 3/4 * 4096 = 3072 bytes, and the
// estimate costs it as a pairwise exchange (docs/Estimate.md).
// RUN: blueprint-opt %s --plan-portable | FileCheck %s
// RUN: blueprint-opt %s --plan-portable --estimate="profile=%blueprint_src/profiles/a100-80gb.json binding=tp:nvlink" -o /dev/null | FileCheck %s --check-prefix=ESTIMATE

// CHECK: pplan.capability @collective_all_to_all collective_all_to_all
// CHECK: pplan.task "moe_dispatch" forward collective per_micro_batch requires @collective_all_to_all group @forward demand = <compute = 0, memory = 8192, network = 3072> collective = <kind = all_to_all, reduction = none, participants = 4, message = 4096>
// ESTIMATE: pairwise all_to_all over mesh axis 'tp' (participants 4) on tier 'nvlink': (4-1)/4 * message_bytes 4096
dist.program @exchange source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %d = dist.all_to_all "moe_dispatch" forward per_micro_batch on @tp_mesh
      axes = ["tp"] participants = 4 message = 4096 ops = 0
      reads {routed = 4096} writes {dispatched = 4096} stashed {}
}
