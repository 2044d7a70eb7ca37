// RUN: blueprint-opt %s -split-input-file -verify-diagnostics

// dist_template_c1: per-iteration work in a forward template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    // expected-error @+1 {{dist_template_c1: fc is per_iteration work but template @fwd (forward) runs per_micro_batch}}
    %0 = dist.task "fc" forward matmul per_iteration on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
}

// -----

// dist_template_c1: per-micro-batch work in a step template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @step block step {
    // expected-error @+1 {{dist_template_c1: adamw_step is per_micro_batch work but template @step (step) runs per_iteration}}
    %0 = dist.task "adamw_step" optimizer vector per_micro_batch on @mesh ops = 4 reads {w = 8} writes {w = 8} stashed {}
  }
}

// -----

// dist_template_c2: gradient work in a forward template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    // expected-error @+1 {{dist_template_c2: fc (activation_grad) does not belong to a forward template}}
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
}

// -----

// dist_template_c2: a weight gradient in an input_grad template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @bi block input_grad {
    // expected-error @+1 {{dist_template_c2: fc (weight_grad) does not belong to a input_grad template}}
    %0 = dist.task "fc" weight_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_w = 8} stashed {}
  }
}

// -----

// dist_template_c2: an optimizer step in a weight_grad template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @bw block weight_grad {
    // expected-error @+1 {{dist_template_c2: adamw_step (optimizer) does not belong to a weight_grad template}}
    %0 = dist.task "adamw_step" optimizer vector per_micro_batch on @mesh ops = 4 reads {w = 8} writes {w = 8} stashed {}
  }
}

// -----

// dist_template_c3: an empty template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  // expected-error @+1 {{dist_template_c3: a template holds at least one work op}}
  dist.template @fwd block forward {
  }
}

// -----

// dist_template_c3: a template holds work ops only
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
    // expected-error @+1 {{dist_template_c3: a template holds work ops only}}
    builtin.module {}
  }
}

// -----

// dist_stage_c1: index past the last stage
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  // expected-error @+1 {{dist_stage_c1: index 1 is not a pipeline stage (pp = 1)}}
  dist.stage 1 {
  }
}

// -----

// dist_stage_c1: negative index
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  // expected-error @+1 {{dist_stage_c1: index -1 is not a pipeline stage (pp = 1)}}
  dist.stage -1 {
  }
}

// -----

// dist_stage_c2: an op other than an instance, send, receive, task or collective in a stage
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
    // expected-error @+1 {{dist_stage_c2: a stage holds instances, sends, receives, tasks and collectives only}}
    builtin.module {}
  }
}

// -----

// dist_instance_c1: no such template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    // expected-error @+1 {{dist_instance_c1: @nope does not name a dist.template of the program}}
    %3 = dist.instance @nope chunk 0 micro_batch 1 blocks [0, 2] after(%2)
    %9 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_instance_c1: a symbol of the program that is not a template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    // expected-error @+1 {{dist_instance_c1: @mesh does not name a dist.template of the program}}
    %3 = dist.instance @mesh chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// A mesh and a template of one name: the program's symbol table rejects
// the second definition, whatever the instances name.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  // expected-note @+1 {{see existing symbol definition here}}
  dist.mesh @fwd axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  // expected-error @+1 {{redefinition of symbol named 'fwd'}}
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_instance_c2: a per-micro-batch template without micro_batch
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c2: template @fwd runs per micro-batch: give micro_batch}}
    %0 = dist.instance @fwd chunk 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_instance_c2: a step template with micro_batch
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.template @step block step {
    %0 = dist.task "adamw_step" optimizer vector per_iteration on @mesh ops = 4 reads {w = 8} writes {w = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
    // expected-error @+1 {{dist_instance_c2: template @step runs once per iteration: no micro_batch}}
    %4 = dist.instance @step chunk 0 micro_batch 0 blocks [0, 2] after(%3)
  }
}

// -----

// dist_instance_c2: micro_batch out of range
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    // expected-error @+1 {{dist_instance_c2: micro_batch 2 is not a micro-batch of the iteration (0..1)}}
    %3 = dist.instance @bwd chunk 0 micro_batch 2 blocks [0, 2] after(%2)
  }
}

// -----

// dist_instance_c2: negative micro_batch
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c2: micro_batch -1 is not a micro-batch of the iteration (0..1)}}
    %0 = dist.instance @fwd chunk 0 micro_batch -1 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_instance_c3: the model chunk of another stage
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c3: model chunk 1 is not held by stage 0}}
    %0 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: a model chunk past the last
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    // expected-error @+1 {{dist_instance_c3: model chunk 3 is not held by stage 1}}
    %1 = dist.instance @fwd chunk 3 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: blocks other than the chunk's
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c3: a block instance of model chunk 0 runs its blocks [0, 1)}}
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: a block instance without blocks
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    // expected-error @+1 {{dist_instance_c3: a block instance of model chunk 1 runs its blocks [1, 2)}}
    %1 = dist.instance @fwd chunk 1 micro_batch 0 after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: a block instance starts within its chunk, not at an
// earlier stage's block 0
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    // expected-error @+1 {{dist_instance_c3: a block instance of model chunk 1 runs its blocks [1, 2)}}
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: the embedding on the last model chunk
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.template @emb embedding forward {
    %0 = dist.task "embedding" forward vector per_micro_batch on @mesh ops = 4 reads {tokens = 8} writes {x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    // expected-error @+1 {{dist_instance_c3: the embedding runs on model chunk 0, without blocks}}
    %9 = dist.instance @emb chunk 1 micro_batch 0 after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: the head on the first model chunk
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.template @head head forward {
    %0 = dist.task "lm_head" forward matmul per_micro_batch on @mesh ops = 4 reads {y = 8} writes {logits = 8} stashed {y = 8}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_instance_c3: the head runs on model chunk 1, without blocks}}
    %9 = dist.instance @head chunk 0 micro_batch 0
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c3: an edge instance with blocks
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.template @emb embedding forward {
    %0 = dist.task "embedding" forward vector per_micro_batch on @mesh ops = 4 reads {tokens = 8} writes {x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_instance_c3: the embedding runs on model chunk 0, without blocks}}
    %9 = dist.instance @emb chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c4: a dependency that is no dist op's token
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %t = builtin.unrealized_conversion_cast to !dist.token
    // expected-error @+1 {{dist_instance_c4: every dependency must be the token of an op of the same program, template or stage}}
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0, %t)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_message_c1: micro_batch out of range
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_message_c1: micro_batch 2 is not a micro-batch of the iteration (0..1)}}
    %1 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c1: the last model chunk sends no activation
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
    // expected-error @+1 {{dist_message_c1: model chunk 1 sends no activation (model chunks 0..1)}}
    %8 = dist.send activation micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c1: the first model chunk receives no gradient
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    // expected-error @+1 {{dist_message_c1: model chunk 0 sends no activation_grad (model chunks 0..1)}}
    %4 = dist.recv activation_grad micro_batch 0 chunk 0 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c1: a stage sends for a chunk it does not hold
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    // expected-error @+1 {{dist_message_c1: the activation of micro-batch 0 leaving model chunk 0 is sent by stage 0, not 1}}
    %9 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c1: a stage receives what another stage receives
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    // expected-error @+1 {{dist_message_c1: the activation of micro-batch 0 leaving model chunk 0 is received by stage 1, not 0}}
    %9 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c2: a send to the wrong peer
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_message_c2: the activation of micro-batch 0 leaving model chunk 0 goes to stage 1, not 0}}
    %1 = dist.send activation micro_batch 0 chunk 0 to 0 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c2: a receive from the wrong peer
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    // expected-error @+1 {{dist_message_c2: the activation of micro-batch 0 leaving model chunk 0 comes from stage 0, not 1}}
    %0 = dist.recv activation micro_batch 0 chunk 0 from 1 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c3: negative bytes
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_message_c3: bytes must be non-negative, got -1}}
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = -1 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_message_c4: a dependency that is no dist op's token
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %t = builtin.unrealized_conversion_cast to !dist.token
    // expected-error @+1 {{dist_message_c4: every dependency must be the token of an op of the same program, template or stage}}
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%t)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c5: block-scope work in a whole-run program
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  // expected-error @+1 {{dist_program_c5: a whole-run program holds meshes, templates and stages only, not block-scope work or boundaries}}
  %t = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c5: a boundary in a whole-run program (read by block-scope work, which follows it)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  // expected-error @+1 {{dist_program_c5: a whole-run program holds meshes, templates and stages only, not block-scope work or boundaries}}
  dist.boundary @x activation_in : tensor<2x32x64xbf16> sharding = <@mesh, []>
  %t = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c5: a pipeline stage without its dist.stage
// expected-error @+1 {{dist_program_c5: pipeline stage 1 has no dist.stage}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
}

// -----

// dist_program_c5: a stage twice
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
  // expected-error @+1 {{dist_program_c5: stage 0 appears twice}}
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c5: templates without stages are a whole-run program too
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  // expected-error @+1 {{dist_program_c5: a whole-run program holds meshes, templates and stages only, not block-scope work or boundaries}}
  %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
}

// -----

// dist_program_c8: an inference run's stage runs a training pass
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 1, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_program_c8: an inference run's stages run block prefill and decode instances only, not a block forward}}
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
  }
}

// -----

// dist_program_c6: a send without its receive
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_program_c6: the activation of micro-batch 0 leaving model chunk 0 is sent but never received}}
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2]
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c6: a receive without its send
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    // expected-error @+1 {{dist_program_c6: the activation of micro-batch 1 leaving model chunk 0 is received but never sent}}
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c6: sent and received bytes differ
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    // expected-error @+1 {{dist_program_c6: the activation_grad of micro-batch 1 leaving model chunk 1 is sent as 8192 bytes but received as 4096}}
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 4096 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c6: a message sent twice
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    // expected-error @+1 {{dist_program_c6: the activation of micro-batch 0 leaving model chunk 0 is sent twice}}
    %9 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c6: a message received twice
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    // expected-error @+1 {{dist_program_c6: the activation of micro-batch 0 leaving model chunk 0 is received twice}}
    %9 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c7: stage 0 runs F0 B0 F1 B1, stage 1 runs F0 F1 B0 B1:
// stage 0 waits for the gradient of micro-batch 0 before sending the
// activation of micro-batch 1, which stage 1 waits for first.
// expected-error @+1 {{dist_program_c7: the stages deadlock through their messages: stage 0 waits for the activation_grad of micro-batch 0 leaving model chunk 1 from stage 1; stage 1 waits for the activation of micro-batch 1 leaving model chunk 0 from stage 0;}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    // expected-note @+1 {{stage 0 is blocked here}}
    %2 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%0)
    %3 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%3)
    %5 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%4)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    // expected-note @+1 {{stage 1 is blocked here}}
    %2 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%1)
    %3 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%2)
    %4 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%3)
    %5 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_program_c8: a stage order missing a backward
// expected-error @+1 {{dist_program_c8: pipeline_order_c2: stage 0 has no slot for backward of micro-batch 1, virtual chunk 0}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
  }
}

// -----

// dist_program_c8: a backward before its forward
// expected-error @+1 {{dist_program_c8: pipeline_order_c3: stage 0 slot 0: backward of micro-batch 0, virtual chunk 0 precedes its forward (slot 1)}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c8: a pass twice
// expected-error @+1 {{dist_program_c8: pipeline_order_c2: stage 0 slot 4: forward of micro-batch 1, virtual chunk 0 repeats slot 2}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
    %4 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%3)
  }
}

// -----

// dist_program_c8: a pass the schedule does not run
// expected-error @+1 {{dist_program_c8: pipeline_order_c1: stage 0 slot 1: input_grad of micro-batch 0, virtual chunk 0: schedule one_f_one_b runs no input_grad pass}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.template @bi block input_grad {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bi chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c9: the GPipe order in a one_f_one_b program
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    // expected-error @+1 {{dist_program_c9: stage 0 slot 1 runs the forward of micro-batch 1, virtual chunk 0, but schedule one_f_one_b runs the backward of micro-batch 0, virtual chunk 0}}
    %1 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%0)
    %2 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c9: the one_f_one_b order in a gpipe program
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = gpipe> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    // expected-error @+1 {{dist_program_c9: stage 0 slot 1 runs the backward of micro-batch 0, virtual chunk 0, but schedule gpipe runs the forward of micro-batch 1, virtual chunk 0}}
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_collective_c7: a group along two axes
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c7: a group names at least two positions along a single axis}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp", "dp"] group [0, 1] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c7: a group of one position
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c7: a group names at least two positions along a single axis}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0] reduction = sum participants = 1 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c7: unsorted group
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c7: group positions must be distinct positions of axis "pp" (0..1) in increasing order, got 0}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [1, 0] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c7: a repeated position
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c7: group positions must be distinct positions of axis "pp" (0..1) in increasing order, got 0}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 0] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c7: a position out of range
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c7: group positions must be distinct positions of axis "pp" (0..1) in increasing order, got 2}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 2] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c7: a group with ranks
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c7: a group collective lists no ranks: the group names them}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh ranks [0, 1] axes = ["pp"] group [0, 1] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c2: participants count the group's positions
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c2: participants = 4 but axes ["pp"] span 2 ranks}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = sum participants = 4 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_collective_c7: stage 0 not in the group of stages 1 and 2
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 3, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 3, tp = 1, pp = 3, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [3, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{dist_collective_c7: stage 0 is not a position of the group}}
    %1 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [1, 2] reduction = sum participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%0)
  }
}

// -----

// dist_collective_c3: a grouped all-reduce must reduce
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 8192 after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%0)
    %3 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 8192 after(%2)
    %4 = dist.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 8192 after(%2)
    %5 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%4)
    %6 = dist.recv activation_grad micro_batch 1 chunk 1 from 1 bytes = 8192 after(%5)
    %7 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%6)
    // expected-error @+1 {{dist_collective_c3: a all_reduce must reduce (reduction = sum or max)}}
    %9 = dist.all_reduce "tied_embedding_grad" weight_grad per_iteration on @mesh axes = ["pp"] group [0, 1] reduction = none participants = 2 message = 16 ops = 8 reads {d_w = 16} writes {d_w = 16} stashed {} after(%7)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 8192
    %1 = dist.instance @fwd chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 8192 after(%2)
    %4 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 8192 after(%2)
    %5 = dist.instance @fwd chunk 1 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 1 micro_batch 1 blocks [1, 2] after(%5)
    %7 = dist.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 8192 after(%6)
  }
}

// -----

// dist_instance_c5: an expanded instance with one copy for two blocks
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c5: an expanded instance holds 1 ops of template @fwd x 2 repetitions, but its body holds 1}}
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2] {
      %4 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
    }
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----

// dist_instance_c5: a copy whose facts differ from the template
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2] {
      %4 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
      // expected-error @+1 {{dist_instance_c5: the expanded work differs from template @fwd's fc (forward)}}
      %5 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 5 reads {x = 8} writes {y = 8} stashed {x = 8} after(%4)
    }
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
  }
}

// -----


// dist_template_c4: a decode template states its context
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  // expected-error @+1 {{dist_template_c4: decode template @decode_17 states its positive context length}}
  dist.template @decode_17 block decode {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_template_c4: only a decode template has a context
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  // expected-error @+1 {{dist_template_c4: only a decode template has a context, not a prefill template}}
  dist.template @prefill block prefill context 16 {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_template_c1: a prefill template holds per-generation work
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
// expected-error @+1 {{dist_template_c1: fc is per_micro_batch work but template @prefill (prefill) runs per_generation}}
    %0 = dist.task "fc" prefill matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_template_c2: a decode template holds decode work
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
// expected-error @+1 {{dist_template_c2: fc (prefill) does not belong to a decode template}}
    %0 = dist.task "fc" prefill matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_program_c3: a whole-run inference program has no decode_context
// expected-error @+1 {{dist_program_c3: a whole-run inference program holds every step of the generation, so it has no decode_context}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 17 mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_instance_c2: an inference instance runs a step of the generation
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 2] after(%0)
// expected-error @+1 {{dist_instance_c2: micro_batch 3 is not a step of the generation (0..2)}}
    %2 = dist.instance @decode_18 chunk 0 micro_batch 3 blocks [0, 2] after(%1)
  }
}

// -----

// dist_program_c8: a stage runs every step of the generation
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  // expected-error @+1 {{dist_program_c8: stage 0 runs 2 steps of the generation, which has 3 (the prefill and 2 decode steps)}}
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 2] after(%0)
  }
}

// -----

// dist_program_c8: no step twice
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 2] after(%0)
    %2 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 2] after(%1)
    // expected-error @+1 {{dist_program_c8: stage 0 runs more than the generation's 3 steps}}
    %3 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 2] after(%2)
  }
}

// -----

// dist_program_c9: the prefill runs first
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_program_c9: stage 0 slot 0 runs the decode of step 1, but the generation runs the prefill of step 0}}
    %0 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 2]
    %1 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 2] after(%1)
  }
}

// -----

// dist_program_c9: decode steps in order
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 2]
    // expected-error @+1 {{dist_program_c9: stage 0 slot 1 runs the decode of step 2, but the generation runs the decode of step 1}}
    %1 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 2] after(%0)
    %2 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 2] after(%1)
  }
}

// -----

// dist_program_c9: a decode step runs the template of its context
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 2]
    // expected-error @+1 {{dist_program_c9: decode step 1 runs at context 17 (prompt_length + step), but template @decode_18 is the decode step at context 18}}
    %1 = dist.instance @decode_18 chunk 0 micro_batch 1 blocks [0, 2] after(%0)
    %2 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 2] after(%1)
  }
}

// -----

// dist_message_c1: only an inference run sends tokens
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_message_c1: only an inference run sends tokens}}
    %0 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16
  }
  dist.stage 1 {
  }
}

// -----

// dist_message_c1: an inference run sends no activation gradient
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
    // expected-error @+1 {{dist_message_c1: an inference run sends no activation_grad}}
    %8 = dist.send activation_grad micro_batch 2 chunk 1 to 0 bytes = 256 after(%7)
  }
}

// -----

// dist_message_c1: a token leaves the last model chunk
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    // expected-error @+1 {{dist_message_c1: a token leaves the last model chunk (1) for the first, at pp > 1, not model chunk 0}}
    %2 = dist.recv token micro_batch 0 chunk 0 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_message_c1: the last token is never fed back
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
    // expected-error @+1 {{dist_message_c1: the token of step 2 feeds step 3, which the generation does not run (the last token is never fed back)}}
    %8 = dist.send token micro_batch 2 chunk 1 to 0 bytes = 16 after(%7)
  }
}

// -----

// dist_message_c2: a token goes to the first stage
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    // expected-error @+1 {{dist_message_c2: the token of micro-batch 1 leaving model chunk 1 goes to stage 0, not 1}}
    %5 = dist.send token micro_batch 1 chunk 1 to 1 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_program_c7: a token channel is not an activation channel: stage 0 waits
// for the token before it sends the activation stage 1 needs
// expected-error @+1 {{dist_program_c7: the stages deadlock through their messages: stage 0 waits for the token of micro-batch 0 leaving model chunk 1 from stage 1; stage 1 waits for the activation of micro-batch 0 leaving model chunk 0 from stage 0;}}
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 3, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_17 block decode context 17 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.template @decode_18 block decode context 18 {
    %0 = dist.task "fc" decode matmul per_decode_step on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
    // expected-note @+1 {{stage 0 is blocked here}}
    %2 = dist.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %1 = dist.send activation micro_batch 0 chunk 0 to 1 bytes = 4096 after(%0)
    %3 = dist.instance @decode_17 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = dist.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    %5 = dist.recv token micro_batch 1 chunk 1 from 1 bytes = 16 after(%3)
    %6 = dist.instance @decode_18 chunk 0 micro_batch 2 blocks [0, 1] after(%5)
    %7 = dist.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%6)
  }
  dist.stage 1 {
    // expected-note @+1 {{stage 1 is blocked here}}
    %0 = dist.recv activation micro_batch 0 chunk 0 from 0 bytes = 4096
    %1 = dist.instance @prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = dist.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = dist.instance @decode_17 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    %5 = dist.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    %6 = dist.recv activation micro_batch 2 chunk 0 from 0 bytes = 256 after(%4)
    %7 = dist.instance @decode_18 chunk 1 micro_batch 2 blocks [1, 2] after(%6)
  }
}

// -----

// dist_stage_c3: the sharded step covers more than the rank's shard
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 1> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 2, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
    %4 = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 800 ops = 100 reads {d_params = 800} writes {d_params = 400} stashed {} after(%3)
    // expected-error @+1 {{dist_stage_c3: the optimizer step covers 101 parameters (ops / 16), but the rank's shard of the reduce-scattered gradients holds 100}}
    %5 = dist.task "dp_sharded_optimizer" optimizer vector per_iteration on @mesh ops = 1616 reads {params_master = 404} writes {params_master = 404} stashed {} after(%4)
  }
}

// -----

// dist_stage_c3: gradients reduce-scattered but no step over the shard
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 1> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 2, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  // expected-error @+1 {{dist_stage_c3: the stage reduce-scatters its gradients but runs no optimizer step over its shard}}
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
    %1 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 2] after(%2)
    %4 = dist.reduce_scatter "dp_grad_reduce_scatter" weight_grad per_iteration on @mesh axes = ["dp"] reduction = sum participants = 2 message = 800 ops = 100 reads {d_params = 800} writes {d_params = 400} stashed {} after(%3)
  }
}

// -----

// dist_program_c8: the instances of one pass (one per segment of one block
// kind, docs/WholeRun.md "Block kinds", each continuing the previous one's
// blocks in the pass's direction) run every block of their chunk (block 0
// is dense, block 1 has experts): the first micro-batch's segments do, the
// second's forward runs block 0 only.
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, moe = <experts = 4, experts_per_token = 2, expert_ffn_hidden = 32, first_dense_blocks = 1>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.instance @fwd chunk 0 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @bwd chunk 0 micro_batch 0 blocks [1, 2] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{dist_program_c8: the instances of this forward through model chunk 0 run blocks [0, 1), not the chunk's [0, 2)}}
    %4 = dist.instance @fwd chunk 0 micro_batch 1 blocks [0, 1] after(%3)
    %5 = dist.instance @bwd chunk 0 micro_batch 1 blocks [1, 2] after(%4)
    %6 = dist.instance @bwd chunk 0 micro_batch 1 blocks [0, 1] after(%5)
  }
}

// -----

// dist_instance_c3: a block instance runs its chunk's blocks, not the
// reversed (empty) [1, 1)
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c3: a block instance of model chunk 0 runs its blocks [0, 2)}}
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [1, 1]
  }
}

// -----

// dist_instance_c3: a model of one block kind runs a chunk's blocks as one
// instance, not split in two
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c3: a block instance of model chunk 0 runs its blocks [0, 2)}}
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
  }
}

// -----

// dist_instance_c3: a chunk that mixes block kinds runs one instance per
// segment of one kind, not one over both
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, moe = <experts = 4, experts_per_token = 2, expert_ffn_hidden = 32, first_dense_blocks = 1>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_instance_c3: a block instance of model chunk 0 runs its blocks [0, 2) or one of their segments of one block kind: [0, 1) [1, 2)}}
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 2]
  }
}

// -----

// dist_program_c8: a backward's segments run backwards (the chunk's last
// block first); [0, 1) then [1, 2) is two backward passes of one block each
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, moe = <experts = 4, experts_per_token = 2, expert_ffn_hidden = 32, first_dense_blocks = 1>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.instance @fwd chunk 0 micro_batch 0 blocks [1, 2] after(%0)
    // expected-error @+1 {{dist_program_c8: the instances of this backward through model chunk 0 run blocks [0, 1), not the chunk's [0, 2)}}
    %2 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%1)
    %3 = dist.instance @bwd chunk 0 micro_batch 0 blocks [1, 2] after(%2)
  }
}

// -----

// dist_program_c8: a backward's segments leave no gap: blocks 0 and 2 have
// experts (moe_layer_frequency = 2), block 1 is dense; [2, 3) then [0, 1)
// skip block 1
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 3, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, moe = <experts = 4, experts_per_token = 2, expert_ffn_hidden = 32, moe_layer_frequency = 2>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @fwd block forward {
    %0 = dist.task "fc" forward matmul per_micro_batch on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {x = 8}
  }
  dist.template @bwd block backward {
    %0 = dist.task "fc" activation_grad matmul per_micro_batch on @mesh ops = 4 reads {d_y = 8} writes {d_x = 8} stashed {}
  }
  dist.stage 0 {
    %0 = dist.instance @fwd chunk 0 micro_batch 0 blocks [0, 1]
    %1 = dist.instance @fwd chunk 0 micro_batch 0 blocks [1, 2] after(%0)
    %2 = dist.instance @fwd chunk 0 micro_batch 0 blocks [2, 3] after(%1)
    // expected-error @+1 {{dist_program_c8: the instances of this backward through model chunk 0 run blocks [2, 3), not the chunk's [0, 3)}}
    %3 = dist.instance @bwd chunk 0 micro_batch 0 blocks [2, 3] after(%2)
    %4 = dist.instance @bwd chunk 0 micro_batch 0 blocks [0, 1] after(%3)
  }
}

// -----

// dist_program_c8: an inference step runs every block of the stage's chunk,
// not the prefill of the dense block 0 alone
dist.program @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, moe = <experts = 4, experts_per_token = 2, expert_ffn_hidden = 32, first_dense_blocks = 1>> inference = <batch = 2, prompt_length = 16, generated_tokens = 1, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  dist.mesh @mesh axes = ["pp", "dp", "tp"] shape = [1, 1, 1]
  dist.template @prefill block prefill {
    %0 = dist.task "fc" prefill matmul per_generation on @mesh ops = 4 reads {x = 8} writes {y = 8} stashed {}
  }
  dist.stage 0 {
    // expected-error @+1 {{dist_program_c8: the instances of this prefill through model chunk 0 run blocks [0, 1), not the chunk's [0, 2)}}
    %0 = dist.instance @prefill chunk 0 micro_batch 0 blocks [0, 1]
  }
}
