// RUN: blueprint-opt %s -split-input-file -verify-diagnostics

// dist_program_c1
// expected-error @+1 {{dist_program_c1: source_digest must be 'sha256:' followed by 64 lowercase hex digits, got 'sha256:ABC'}}
dist.program @p source_digest = "sha256:ABC" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// missing source digest (required attribute)
// expected-error @+1 {{expected 'source_digest'}}
dist.program @p model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_program_c2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_program_c2: axis 'tp' has 8 ranks but the mapping says tp = 4}}
  dist.mesh @tp_mesh axes = ["tp"] shape = [8]
}

// -----

// dist_program_c2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_program_c2: axis 'sp' is not a parallelism of the mapping (tp, pp, dp, cp, edp or ep)}}
  dist.mesh @m axes = ["sp"] shape = [4]
}

// -----

// dist_program_c10: the expert-parallel axis splits the data-parallel
// ranks only at ep > 1; this mapping has ep = 1.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_program_c10: axis 'ep' splits the data-parallel ranks at ep > 1; the mapping has ep = 1, whose mesh names 'dp'}}
  dist.mesh @m axes = ["ep"] shape = [1]
}

// -----

// dist_program_c2: a cp axis has the mapping's cp ranks (so a collective
// over cp has cp participants, dist_collective_c2); cp = 1 here.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_program_c2: axis 'cp' has 2 ranks but the mapping says cp = 1}}
  dist.mesh @tp_mesh axes = ["cp", "tp"] shape = [2, 4]
}

// -----

// dist_collective_c2: the key/value exchange over cp = 2 declares 4
// participants.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  dist.mesh @tp_mesh axes = ["cp", "tp"] shape = [2, 4]
  // expected-error @+1 {{dist_collective_c2: participants = 4 but axes ["cp"] span 2 ranks}}
  %0 = dist.all_gather "cp_kv_gather" forward per_micro_batch on @tp_mesh axes = ["cp"] participants = 4 message = 16 ops = 0 reads {kv = 4} writes {kv = 16} stashed {}
}

// -----

// dist_mesh_c1
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_mesh_c1: axes and shape must have the same non-zero length, got 1 axes and 2 sizes}}
  dist.mesh @tp_mesh axes = ["tp"] shape = [4, 1]
}

// -----

// dist_mesh_c1
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_mesh_c1: axis 'tp' must have a positive size, got 0}}
  dist.mesh @tp_mesh axes = ["tp"] shape = [0]
}

// -----

// dist_mesh_c1
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_mesh_c1: axis 'tp' is named twice}}
  dist.mesh @tp_mesh axes = ["tp", "tp"] shape = [4, 4]
}

// -----

// dist_boundary_c1 (unresolved mesh)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c1: sharding mesh @nowhere does not name a valid dist.mesh of the program}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@nowhere, []>
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c1 (shard rank)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c1: sharding lists 4 dimensions but the tensor 'tensor<2x32x64xbf16>' has rank 3}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, [[], [], [], ["tp"]]>
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c1 (unknown axis)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c1: mesh @tp_mesh has no axis 'dp'}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, [["dp"]]>
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c1 (axis twice)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c1: axis 'tp' splits more than one dimension}}
  dist.boundary @x activation_in : tensor<8x32x64xbf16> sharding = <@tp_mesh, [["tp"], ["tp"]]>
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c1 (indivisible)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c1: dimension 0 of size 2 is not divisible into 4 shards}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, [["tp"]]>
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c2: owners names rank 4, which is not a rank of mesh @tp_mesh (ranks 0..3)}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [0, 4]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c2: owners must list distinct ranks in increasing order, got 1 after 2}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> owners = [2, 1]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_boundary_c3 (input with producer)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  // expected-error @+1 {{dist_boundary_c3: input 'activation_in' cannot have a producer}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> produced_by %0
}

// -----

// dist_boundary_c3 (output without producer)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  // expected-error @+1 {{dist_boundary_c3: output 'activation_out' must be produced_by the token of a work op}}
  dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []>
}

// -----

// dist_boundary_c3 (optimizer posing as activation producer)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %0 = dist.task "adamw_step" optimizer vector per_iteration on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  // expected-error @+1 {{dist_boundary_c3: output 'activation_out' must be produced by forward work, not by adamw_step (optimizer)}}
  dist.boundary @y activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> produced_by %0
}

// -----

// dist_boundary_c4 (input never read)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  // expected-error @+1 {{dist_boundary_c4: no work of the program reads input 'w'}}
  dist.boundary @w parameter : tensor<64xbf16> sharding = <@tp_mesh, []>
}

// -----

// dist_boundary_c4 (producer does not write)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  // expected-error @+1 {{dist_boundary_c4: producer t does not write 'z'}}
  dist.boundary @z activation_out : tensor<2x32x64xbf16> sharding = <@tp_mesh, []> produced_by %0
}

// -----

// dist_work_c1
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_work_c1: @dp_mesh does not name a valid dist.mesh of the program}}
  %0 = dist.task "t" forward vector per_micro_batch on @dp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_work_c2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_work_c2: ranks names rank 7, which is not a rank of mesh @tp_mesh (ranks 0..3)}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ranks [1, 7] ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_work_c3 (negative ops)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_work_c3: ops must be non-negative, got -4}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = -4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_work_c3 (negative bytes)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_work_c3: write bytes of tensor 'y' must be non-negative, got -8}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = -8} stashed {}
}

// -----

// dist_work_c4 (unresolved dependency)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  %t = builtin.unrealized_conversion_cast to !dist.token
  // expected-error @+1 {{dist_work_c4: every dependency must be the token of an op of the same program, template or stage}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {} after(%t)
}

// -----

// dist_work_c5
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_work_c5: only forward work stashes, but t (activation_grad) stashes 1 tensors}}
  %0 = dist.task "t" activation_grad vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
}

// -----

// dist_task_c1
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_task_c1: a task runs on a matmul or vector engine}}
  %0 = dist.task "t" forward collective per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_collective_c1 (no axes)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c1: axes must name at least one mesh axis}}
  %0 = dist.all_reduce "ar" forward per_micro_batch on @tp_mesh axes = [] reduction = sum participants = 4 message = 64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c1 (unknown axis)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c1: mesh @tp_mesh has no axis 'dp'}}
  %0 = dist.all_reduce "ar" forward per_micro_batch on @tp_mesh axes = ["dp"] reduction = sum participants = 4 message = 64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c1 (axis twice)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c1: axis 'tp' is named twice}}
  %0 = dist.all_reduce "ar" forward per_micro_batch on @tp_mesh axes = ["tp", "tp"] reduction = sum participants = 4 message = 64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c2: participants = 8 but axes ["tp"] span 4 ranks}}
  %0 = dist.all_reduce "ar" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = sum participants = 8 message = 64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c3
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c3: a all_reduce must reduce (reduction = sum or max)}}
  %0 = dist.all_reduce "ar" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = none participants = 4 message = 64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c3
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c3: a reduce_scatter must reduce (reduction = sum or max)}}
  %0 = dist.reduce_scatter "ar" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = none participants = 4 message = 64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c4 (negative volume)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c4: message bytes must be non-negative, got -64}}
  %0 = dist.all_reduce "ar" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = sum participants = 4 message = -64 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c4 (indivisible)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c4: message bytes 66 are not divisible by participants = 4}}
  %0 = dist.all_gather "ag" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 66 ops = 48 reads {y = 64} writes {y = 64} stashed {}
}

// -----

// tensor listed twice
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+2 {{tensor 'x' is listed twice}}
  // expected-error @+1 {{invalid value for property reads, expected bytes per logical tensor}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8, x = 4} writes {y = 8} stashed {}
}

// -----

// dist_program_c3
// expected-error @+1 {{dist_program_c3: a program carries exactly one workload contract, training or inference}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> inference = <batch = 2, prompt_length = 16, generated_tokens = 8, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_program_c3
// expected-error @+1 {{dist_program_c3: a program carries exactly one workload contract, training or inference}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu>  mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_program_c3
// expected-error @+1 {{dist_program_c3: decode_context belongs to inference programs}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> decode_context = 20 mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_program_c3
// expected-error @+1 {{dist_program_c3: generated_tokens = 8 has decode steps: decode_context is required}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 8, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_program_c3
// expected-error @+1 {{dist_program_c3: decode_context = 16 is not a decode step of this generation (context lengths 17 .. 23)}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 8, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 16 mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_program_c3
// expected-error @+1 {{dist_program_c3: generated_tokens = 1 has no decode step, but decode_context = 17 is given}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 1, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 17 mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// dist_boundary_c1: a boundary before an invalid mesh (ops verify in order)
// is reported, never divided by the mesh's zero size.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{dist_boundary_c1: sharding mesh @m does not name a valid dist.mesh of the program}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@m, [["tp"]]>
  dist.mesh @m axes = ["tp"] shape = [0]
}

// -----

// A boundary's type is a statically shaped tensor: a dynamic dimension
// would make every split look even.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{type attribute of statically shaped tensor of any type values}}
  dist.boundary @x activation_in : tensor<?x32x64xbf16> sharding = <@tp_mesh, [["tp"]]>
}

// -----

// A work op's phase, engine and cadence are keywords of closed vocabularies.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+2 {{expected one of [forward, recompute, activation_grad, weight_grad, optimizer, recommunication, prefill, decode] for work phase, got: sideways}}
  // expected-error @+1 {{invalid value for property phase, expected work phase}}
  %0 = dist.task "t" sideways vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// Operation counts are 64-bit integers: a larger count is rejected, never
// wrapped.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+2 {{integer value too large}}
  // expected-error @+1 {{invalid value for property ops, expected 64-bit integer (required)}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 9223372036854775808 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// In the generic form a tensor byte list is a dictionary of i64 byte counts.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{the bytes of tensor 'x' must be a 64-bit integer}}
  %0 = "dist.task"() <{cadence = 0 : i32, engine = 1 : i32, mesh = @tp_mesh, ops = 4 : i64, phase = 0 : i32, primitive = "t", reads = {x = 8 : i32}, stashed = {}, writes = {y = 8 : i64}}> : () -> !dist.token
}

// -----

dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{expected a dictionary of tensor byte counts}}
  %0 = "dist.task"() <{cadence = 0 : i32, engine = 1 : i32, mesh = @tp_mesh, ops = 4 : i64, phase = 0 : i32, primitive = "t", reads = [8], stashed = {}, writes = {y = 8 : i64}}> : () -> !dist.token
}

// -----

// In the generic form every enum and integer fact must be given: an
// omitted one is not read as its first case or as 0.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{property 'phase' failed to satisfy constraint: work phase}}
  %0 = "dist.task"() <{mesh = @tp_mesh, primitive = "t", cadence = 0 : i32, engine = 1 : i32, ops = 4 : i64, reads = {}, writes = {}, stashed = {}}> : () -> !dist.token
}

// -----


dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{property 'ops' failed to satisfy constraint: 64-bit integer (required)}}
  %0 = "dist.task"() <{mesh = @tp_mesh, primitive = "t", phase = 0 : i32, cadence = 0 : i32, engine = 1 : i32, reads = {}, writes = {}, stashed = {}}> : () -> !dist.token
}

// -----

// An enum's generic value is an i32 case value; other numbers are no case.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{property 'phase' failed to satisfy constraint: work phase}}
  %0 = "dist.task"() <{mesh = @tp_mesh, primitive = "t", phase = 99 : i32, cadence = 0 : i32, engine = 1 : i32, ops = 4 : i64, reads = {x = 8 : i64}, writes = {y = 8 : i64}, stashed = {}}> : () -> !dist.token
}

// -----

// A wider integer is not truncated into a case.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{expected an i32 case value of work phase}}
  %0 = "dist.task"() <{mesh = @tp_mesh, primitive = "t", phase = 4294967296 : i64, cadence = 0 : i32, engine = 1 : i32, ops = 4 : i64, reads = {x = 8 : i64}, writes = {y = 8 : i64}, stashed = {}}> : () -> !dist.token
}

// -----

// Integer facts are i64 in the generic form.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{expected an i64 integer}}
  %0 = "dist.task"() <{mesh = @tp_mesh, primitive = "t", phase = 0 : i32, cadence = 0 : i32, engine = 1 : i32, ops = 4 : i8, reads = {x = 8 : i64}, writes = {y = 8 : i64}, stashed = {}}> : () -> !dist.token
}

// -----

// A tensor has a name.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+2 {{a tensor name must not be empty}}
  // expected-error @+1 {{invalid value for property reads, expected bytes per logical tensor}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {"" = 8} writes {y = 8} stashed {}
}

// -----

// Byte counts are 64-bit integers: a larger count is rejected, never
// wrapped.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+2 {{integer value too large}}
  // expected-error @+1 {{invalid value for property reads, expected bytes per logical tensor}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 9223372036854775808} writes {y = 8} stashed {}
}

// -----

// dist_program_c4: the contracts compose (tp = 3 divides neither heads = 4
// nor hidden = 64); each broken rule is reported.
// expected-error @+6 {{dist_program_c4: decoder_training_c16: micro_batch * seq_length / cp (the tokens per context-parallel rank without sequence parallelism) = 64 is not divisible by tp = 3}}
// expected-error @+5 {{dist_program_c4: decoder_training_c4: heads = 4 is not divisible by tp = 3}}
// expected-error @+4 {{dist_program_c4: decoder_training_c5: kv_heads = 4 is not divisible by tp = 3}}
// expected-error @+3 {{dist_program_c4: decoder_training_c6: hidden = 64 is not divisible by tp = 3}}
// expected-error @+2 {{dist_program_c4: decoder_training_c7: ffn_hidden = 256 is not divisible by tp = 3}}
// expected-error @+1 {{dist_program_c4: decoder_training_c8: vocab = 128 is not divisible by tp = 3}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 3, tp = 3, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [3]
}

// -----

// dist_program_c4 for an inference program: prompt_length + generated_tokens
// overflows, which decoder_inference_c8 reports instead of a wrapped context.
// expected-error @+1 {{dist_program_c4: decoder_inference_c8: prompt_length + generated_tokens overflows a 64-bit integer}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 9223372036854775807, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 3 mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [1]
}

// -----

// dist_collective_c5: ranks [0, 2] are half of the one tp group of 4.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c5: ranks must run the collective in whole groups of 4 participants along axes ["tp"], but of the group of rank 0 only 2 listed}}
  %0 = dist.all_reduce "s" forward per_micro_batch on @tp_mesh ranks [0, 2] axes = ["tp"] reduction = sum participants = 4 message = 64 ops = 12 reads {x = 64} writes {x = 64} stashed {}
}

// -----

// dist_collective_c5: on a [dp, tp] mesh of 2 x 2, ranks [1, 2] are as many
// as a group of 2 but half of each of two tp groups ({0, 1} and {2, 3}).
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 2, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
  // expected-error @+1 {{dist_collective_c5: ranks must run the collective in whole groups of 2 participants along axes ["tp"], but of the group of rank 1 only 1 listed}}
  %0 = dist.all_reduce "s" forward per_micro_batch on @mesh ranks [1, 2] axes = ["tp"] reduction = sum participants = 2 message = 8 ops = 2 reads {b = 8} writes {b = 8} stashed {}
}

// -----

// dist_collective_c6: an all-reduce reads and writes the whole message.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c6: all_reduce of message 64 over 4 participants: each reads 64 bytes and writes 64, but this one reads 64 and writes 16}}
  %0 = dist.all_reduce "s" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = sum participants = 4 message = 64 ops = 12 reads {x = 64} writes {x = 16} stashed {}
}

// -----

// dist_collective_c6: a reduce-scatter writes its shard.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c6: reduce_scatter of message 64 over 4 participants: each reads 64 bytes and writes 16, but this one reads 64 and writes 64}}
  %0 = dist.reduce_scatter "s" forward per_micro_batch on @tp_mesh axes = ["tp"] reduction = sum participants = 4 message = 64 ops = 12 reads {x = 64} writes {x = 64} stashed {}
}

// -----

// dist_collective_c6: an all-gather reads its shard.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c6: all_gather of message 64 over 4 participants: each reads 16 bytes and writes 64, but this one reads 8 and writes 64}}
  %0 = dist.all_gather "g" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 64 ops = 0 reads {x = 8} writes {x = 64} stashed {}
}

// -----

// dist_boundary_c5: the element type is a datatype of the work algebra.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_boundary_c5: element type 'index' is not a datatype of the work algebra (f32, bf16, f16, f8E4M3FN)}}
  dist.boundary @x activation_in : tensor<4xindex> sharding = <@tp_mesh, []>
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_collective_c1: an all-to-all names axes of the mesh
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c1: mesh @tp_mesh has no axis 'ep'}}
  %0 = dist.all_to_all "a2a" forward per_micro_batch on @tp_mesh axes = ["ep"] participants = 4 message = 64 ops = 0 reads {x = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c2: an all-to-all's participants are its axes' ranks
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c2: participants = 8 but axes ["tp"] span 4 ranks}}
  %0 = dist.all_to_all "a2a" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 8 message = 64 ops = 0 reads {x = 64} writes {y = 64} stashed {}
}

// -----

// dist_collective_c4: every participant sends an equal chunk to each
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c4: message bytes 66 are not divisible by participants = 4}}
  %0 = dist.all_to_all "a2a" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 66 ops = 0 reads {x = 66} writes {y = 66} stashed {}
}

// -----

// dist_collective_c6: an all-to-all reads its whole buffer, not a shard
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c6: all_to_all of message 64 over 4 participants: each reads 64 bytes and writes 64, but this one reads 16 and writes 64}}
  %0 = dist.all_to_all "a2a" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 64 ops = 0 reads {x = 16} writes {y = 64} stashed {}
}

// -----

// dist_collective_c6: an all-to-all writes its whole buffer, not the gathered tensor
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c6: all_to_all of message 64 over 4 participants: each reads 64 bytes and writes 64, but this one reads 64 and writes 256}}
  %0 = dist.all_to_all "a2a" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 64 ops = 0 reads {x = 64} writes {y = 256} stashed {}
}

// -----

// dist_collective_c8: an all-gather only moves data
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c8: all_gather does not reduce: ops must be 0, got 48}}
  %0 = dist.all_gather "ag" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 64 ops = 48 reads {x = 16} writes {y = 64} stashed {}
}

// -----

// dist_collective_c8: an all-to-all only moves data
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_collective_c8: all_to_all does not reduce: ops must be 0, got 5}}
  %0 = dist.all_to_all "a2a" forward per_micro_batch on @tp_mesh axes = ["tp"] participants = 4 message = 64 ops = 5 reads {x = 64} writes {y = 64} stashed {}
}

// -----

// dist_program_c4 carries the expert-parallel rules: dp = 2 and E = 4 split
// over ep = 2 (c1..c3 hold), and the run is refused under ZeRO-3
// (expert_parallel_c8).
// expected-error @+1 {{dist_program_c4: expert_parallel_c8: zero_stage = 3 with ep = 2}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 4, experts_per_token = 2>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 3, ep = 2> {
  dist.mesh @dp_mesh axes = ["dp"] shape = [2]
}

// -----

// dist_program_c10 at ep > 1 (review s33 finding 2): the run composes
// (ep = 2 divides dp = 2, E = 4 and P_l = 2 * 2 * 32 = 128), so the mesh is
// checked: its data-parallel ranks are edp x ep, edp = 2 / 2 = 1, and a
// mesh naming "dp" is refused.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 4, experts_per_token = 2>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, ep = 2> {
  // expected-error @+1 {{dist_program_c10: at ep = 2 the data-parallel ranks are the axes 'edp' x 'ep' (edp = dp / ep = 1), not 'dp'}}
  dist.mesh @dp_mesh axes = ["dp"] shape = [2]
}

// -----

// dist_task_c2 (ops are not the GEMMs': 2 * 2 * 4 * 8 * 16 = 2048)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_task_c2: ops = 1024 but the GEMMs' 2 * batch * M * N * K sum to 2048}}
  %0 = dist.task "t" forward matmul per_micro_batch on @tp_mesh ops = 1024 gemm = [2, 4, 8, 16] reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_task_c2 (four extents per GEMM)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_task_c2: gemm lists four extents [batch, M, N, K] per GEMM, got 3}}
  %0 = dist.task "t" forward matmul per_micro_batch on @tp_mesh ops = 1024 gemm = [4, 8, 16] reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_task_c2 (only matmul work)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_task_c2: only matmul work carries GEMM shapes, but vector work has 1}}
  %0 = dist.task "t" forward vector per_micro_batch on @tp_mesh ops = 2048 gemm = [2, 4, 8, 16] reads {x = 8} writes {y = 8} stashed {}
}

// -----

// dist_task_c2 (positive batch)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @tp_mesh axes = ["tp"] shape = [4]
  // expected-error @+1 {{dist_task_c2: GEMM [batch 0, M 4, N 8, K 16] needs a positive batch and non-negative extents}}
  %0 = dist.task "t" forward matmul per_micro_batch on @tp_mesh ops = 0 gemm = [0, 4, 8, 16] reads {x = 8} writes {y = 8} stashed {}
}
