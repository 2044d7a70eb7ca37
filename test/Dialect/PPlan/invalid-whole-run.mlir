// RUN: blueprint-opt %s -split-input-file -verify-diagnostics

// The rules of a whole-run plan (docs/PPlanSpec.md, "Whole run"), one
// violation each, on the plan of test/Dialect/PPlan/ops-whole-run.mlir.

// pplan_c1: a device on an instance
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    // expected-error @+1 {{pplan_c1: attribute 'device' is not a field of pplan.instance; a portable plan cannot carry target fields}}
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1] {device = 3}
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c5: a block-scope task in a whole-run plan
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  // expected-error @+1 {{pplan_plan_c5: a whole-run plan holds capabilities, groups, templates, stages, objectives and ledger rows only, not block-scope tasks or buffers}}
  %9 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c5: a ledger row without a stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  // expected-error @+1 {{pplan_plan_c5: every ledger row of a whole-run plan names a stage}}
  pplan.ledger per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c5: a pipeline stage without its pplan.stage
// expected-error @+1 {{pplan_plan_c5: pipeline stage 1 has no pplan.stage}}
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
    pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c5: a stage's row in a block-scope plan
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.group @forward serial
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  // expected-error @+1 {{pplan_plan_c5: only a whole-run plan has ledger rows of a stage}}
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
}

// -----

// pplan_plan_c6: a message sent twice
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    // expected-error @+1 {{pplan_plan_c6: the activation of micro-batch 0 leaving model chunk 0 is sent twice}}
    %9 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [3, 4] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c6: bytes differ
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    // expected-error @+1 {{pplan_plan_c6: the activation of micro-batch 0 leaving model chunk 0 is sent as 10 bytes but received as 12}}
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 12
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 12 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c6: a send never received
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    // expected-error @+1 {{pplan_plan_c6: the activation of micro-batch 1 leaving model chunk 0 is sent but never received}}
    %9 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [3, 4] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c7: a stage's ops edited
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  // expected-error @+1 {{pplan_plan_c7: conservation of stage 0 forward matmul ops: the distributed IR has 101, the plan's stage has 100}}
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 101 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c7: a stage's work without a row
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  // expected-error @+1 {{pplan_plan_c7: no ledger row records stage 0's forward matmul work, so it cannot be checked for conservation}}
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c7: a stage's row per micro-batch
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  // expected-error @+1 {{pplan_plan_c7: a stage's ledger row holds its totals over the iteration (per_iteration), not per_micro_batch}}
  pplan.ledger stage 0 per_micro_batch forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c7: a second row
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  // expected-error @+1 {{pplan_plan_c7: a second ledger row for the same stage, phase and engine}}
  pplan.ledger stage 0 per_iteration forward matmul invocations = 2 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c7: a row of no stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  // expected-error @+1 {{pplan_plan_c7: the ledger records stage 2, which is not a pipeline stage}}
  pplan.ledger stage 2 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_template_c1: an empty template
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  // expected-error @+1 {{pplan_template_c1: a template holds at least one task}}
  pplan.template @empty block backward {
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_template_c1: per-iteration work in a forward template
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    // expected-error @+1 {{pplan_template_c1: fc is per_iteration work but template @block_forward (forward) runs per_micro_batch}}
    %0 = pplan.task "fc" forward matmul per_iteration requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_stage_c1: index out of range
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  // expected-error @+1 {{pplan_stage_c1: index 2 is not a pipeline stage (pp = 2)}}
  pplan.stage 2 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_stage_c2: a parallel stage group
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 parallel
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  // expected-error @+1 {{pplan_stage_c2: @stage_1 does not name a serial pplan.group of the plan}}
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_stage_c2: a stage task in another group
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_stage_c2: stage-level task dp_grad_allreduce joins @backward, not its stage's @stage_0}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @backward demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_stage_c3: a foreign op in a stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    // expected-error @+1 {{pplan_stage_c3: a stage holds instances, sends, receives, tasks and buffers only}}
    builtin.module {}
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 2] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [3, 4] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_instance_c1: no such template
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    // expected-error @+1 {{pplan_instance_c1: @block_step does not name a pplan.template of the plan}}
    %3 = pplan.instance @block_step chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_instance_c1: a symbol of the plan that is not a template
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    // expected-error @+1 {{pplan_instance_c1: @matmul does not name a pplan.template of the plan}}
    %3 = pplan.instance @matmul chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// A group and a template of one name: the plan's symbol table rejects the
// second definition, whatever the instances name.
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  // expected-note @+1 {{see existing symbol definition here}}
  pplan.group @block_forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  // expected-error @+1 {{redefinition of symbol named 'block_forward'}}
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_instance_c2: a micro-batch out of range
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    // expected-error @+1 {{pplan_instance_c2: micro_batch 1 is not a micro-batch of the iteration (0..0)}}
    %0 = pplan.instance @block_forward chunk 0 micro_batch 1 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_instance_c2: no micro-batch
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    // expected-error @+1 {{pplan_instance_c2: template @block_forward runs per micro-batch: give micro_batch}}
    %0 = pplan.instance @block_forward chunk 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_instance_c3: the chunk of another stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    // expected-error @+1 {{pplan_instance_c3: model chunk 1 is not held by stage 0}}
    %0 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_instance_c3: blocks of another chunk
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    // expected-error @+1 {{pplan_instance_c3: a block instance of model chunk 0 runs its blocks [0, 1)}}
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: a micro-batch out of range
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{pplan_transfer_c1: micro_batch 3 is not a micro-batch of the iteration (0..0)}}
    %1 = pplan.send activation micro_batch 3 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: the last chunk sends no activation
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{pplan_transfer_c1: model chunk 1 sends no activation (model chunks 0..1)}}
    %1 = pplan.send activation micro_batch 0 chunk 1 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: sent by the wrong stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    // expected-error @+1 {{pplan_transfer_c1: the activation_grad of micro-batch 0 leaving model chunk 1 is sent by stage 1, not 0}}
    %2 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_transfer_c2: the wrong peer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    // expected-error @+1 {{pplan_transfer_c2: the activation of micro-batch 0 leaving model chunk 0 comes from stage 0, not 1}}
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 1 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_transfer_c3: negative bytes
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    // expected-error @+1 {{pplan_transfer_c3: bytes must be non-negative, got -1}}
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = -1 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c5: a communication buffer outside a stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  // expected-error @+1 {{pplan_buffer_c5: a communication buffer belongs to a pplan.stage}}
  pplan.buffer @m communication bytes = 10
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c6: a boundary buffer in a stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    // expected-error @+1 {{pplan_buffer_c6: a boundary buffer belongs to a block-scope plan, not to a pplan.stage}}
    pplan.buffer @send_activation_mb0_chunk0 boundary bytes = 10 producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c5: the wrong producer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    // expected-error @+1 {{pplan_buffer_c5: the activation of micro-batch 0 leaving model chunk 0 must be made by a block forward instance of micro-batch 0 on model chunk 0}}
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [3, 3] producer(%3) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c5: no message end
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    // expected-error @+1 {{pplan_buffer_c5: a pipeline_send buffer is drained by one pplan.send}}
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 3] producer(%0) consumers(%3)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c5: the buffer's bytes differ from the message's
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    // expected-error @+1 {{pplan_buffer_c5: the buffer holds 20 bytes but the message is 10}}
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 20 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a group without an axis
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: a group names positions along a mesh axis: give the axis}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> group [0, 1] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a stage-level collective without its axis
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: stage-level collective dp_grad_allreduce names its mesh axis (axis "tp", "pp", "dp" or "cp"; "edp" or "ep" for "dp" at ep > 1)}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: not a mesh axis
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: axis must be "tp", "pp", "dp" or "cp" ("edp" and "ep" for "dp" at ep > 1), got "ep"}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "ep" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: inner axes without the axis they are inside
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: inner axes follow the outermost mesh axis: give the axis}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> inner_axes ["cp"] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: inner axes with a group
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: a group names positions along a single axis: no inner axes with a group}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" inner_axes ["cp"] group [0, 1] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: an inner axis that is not a mesh axis
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: inner axis must be "tp", "pp", "dp" or "cp" ("edp" and "ep" for "dp" at ep > 1), got "ep"}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" inner_axes ["ep"] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: an axis named twice
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: axis dp is named twice}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" inner_axes ["dp"] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: the gradient reduction over dp x cp has dp * cp = 4 participants
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: the collective has 2 participants but axis dp x cp spans 4 ranks}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" inner_axes ["cp"] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a template's collective names no axis but cp
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, cp = 2> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
    // expected-error @+1 {{pplan_task_c8: only a collective of a pplan.stage names a mesh axis; a collective of a template or a block-scope plan spans tp, or names axis "cp" alone}}
    %1 = pplan.task "attn_tp_g" forward collective per_micro_batch requires @all_reduce group @forward demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%0)
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a template's key/value exchange spans the cp ranks (cp = 1 here)
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
    // expected-error @+1 {{pplan_task_c8: the collective has 2 participants but axis cp spans 1 ranks}}
    %1 = pplan.task "attn_tp_g" forward collective per_micro_batch requires @all_reduce group @forward demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "cp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%0)
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: participants are not the axis size
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: the collective has 4 participants but axis dp spans 2 ranks}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 24> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a group of one position
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: a group names at least two positions of axis pp}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 0> collective = <kind = all_reduce, reduction = sum, participants = 1, message = 16> axis "pp" group [0] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: group positions out of order
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: group positions must be distinct positions of axis pp (0..1) in increasing order, got 0}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "pp" group [1, 0] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a group position beyond the axis
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: group positions must be distinct positions of axis pp (0..1) in increasing order, got 2}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "pp" group [0, 2] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: participants are not the group size
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: the collective has 4 participants but its group along axis pp has 2 positions}}
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 24> collective = <kind = all_reduce, reduction = sum, participants = 4, message = 16> axis "pp" group [0, 1] ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a mesh axis on work that is not a collective
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_task_c8: only a collective of a pplan.stage names a mesh axis; this task is not a collective}}
    %4 = pplan.task "fc" weight_grad matmul per_iteration requires @matmul group @stage_0 demand = <compute = 8, memory = 32, network = 0> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a mesh axis on a template's collective
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
    // expected-error @+1 {{pplan_task_c8: only a collective of a pplan.stage names a mesh axis; a collective of a template or a block-scope plan spans tp}}
    %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @forward demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "tp" ops = 8 reads {y = 16} writes {y = 16} stashed {} after(%0)
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_task_c8: a pipeline group without the stage (the plan stops at the
// task, before pplan_plan_c5 would ask for the other stages)
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 8, tp = 1, pp = 4, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @stage_2 serial
  pplan.stage 2 group @stage_2 {
    // expected-error @+1 {{pplan_task_c8: stage 2 is not a position of the group}}
    %0 = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @all_reduce group @stage_2 demand = <compute = 4, memory = 16, network = 8> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 8> axis "pp" group [0, 3] ops = 4 reads {e = 8} writes {e = 8} stashed {}
  }
}

// -----

// pplan_buffer_c5: a pipeline_receive buffer drained by a send
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    // expected-error @+1 {{pplan_buffer_c5: a pipeline_receive buffer is filled by a pplan.recv}}
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c6: a stage buffer without a cause
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c6: a buffer of a stage has a cause and a live interval}}
    pplan.buffer @stash_mb0_chunk0 stash bytes = 10 live [0, 3] producer(%0) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c6: a stage buffer without a lifetime
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c6: a buffer of a stage has a cause and a live interval}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 producer(%0) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c6: a cause of another kind
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c6: a weights buffer is persistent, not stash}}
    pplan.buffer @stash_mb0_chunk0 stash cause weights bytes = 10 live [0, 3] producer(%0) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c6: a pipeline message that is not a communication buffer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c6: a pipeline_send buffer is communication, not temporary}}
    pplan.buffer @x temporary cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c7: one position
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c7: live names two positions [start, end], got 1}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [0] producer(%0) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c7: beyond the stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c7: buffer 'weights' lives over [0, 5], which is not an interval 0 <= start <= end < 5 of the stage's positions}}
    pplan.buffer @weights persistent cause weights bytes = 40 live [0, 5]
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c7: start after end
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c7: buffer 'stash_mb0_chunk0' lives over [3, 0], which is not an interval 0 <= start <= end < 5 of the stage's positions}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [3, 0] producer(%0) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c7: a negative start
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c7: buffer 'stash_mb0_chunk0' lives over [-1, 3], which is not an interval 0 <= start <= end < 5 of the stage's positions}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [-1, 3] producer(%0) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c8: persistent state with a producer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c8: buffer 'gradients' is persistent: it has no producer and no consumers}}
    pplan.buffer @gradients persistent cause gradients bytes = 16 live [0, 4] producer(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c8: persistent state over part of the stage
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c8: buffer 'weights' is persistent: it lives over the whole stage, [0, 4], not [0, 3]}}
    pplan.buffer @weights persistent cause weights bytes = 40 live [0, 3]
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c8: a stash without a producer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c8: buffer 'stash_mb0_chunk0' is stash: it has a producer, whose position starts its lifetime}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [0, 3] consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c8: a lifetime that starts before its producer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c8: buffer 'stash_mb0_chunk0' starts at position 0 but its producer is at position 1}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [0, 3] producer(%1) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c9: read before it is produced
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c9: buffer 'bucket' is read before it is produced: the consumer at position 0 runs before the producer at position 3}}
    pplan.buffer @bucket communication cause gradient_bucket bytes = 16 live [3, 3] producer(%3) consumers(%0)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c10: freed before its last consumer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c10: buffer 'stash_mb0_chunk0' is freed before its last consumer: it lives until position 2 but its last consumer is at position 3}}
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [0, 2] producer(%0) consumers(%1, %3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_buffer_c10: outlives its last consumer
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    // expected-error @+1 {{pplan_buffer_c10: buffer 'bucket' outlives its last consumer: it lives until position 4 but its last use, its producer, is at position 3}}
    pplan.buffer @bucket communication cause gradient_bucket bytes = 16 live [3, 4] producer(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// The inference rules (docs/WholeRun.md, "Inference runs"), on a trimmed
// plan of --distribute-transformer=scope=iteration --plan-portable: pp 2,
// G = 2 (the prefill and one decode step), one block per stage and one task
// per template.

// pplan_template_c1: per_decode_step work in the prefill template (per_generation)
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    // expected-error @+1 {{pplan_template_c1: norm1 is per_decode_step work but template @block_prefill (prefill) runs per_generation}}
    %0 = pplan.task "norm1" prefill vector per_decode_step requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_template_c1: per_generation work in a decode template (per_decode_step)
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    // expected-error @+1 {{pplan_template_c1: norm1 is per_generation work but template @block_decode_9 (decode) runs per_decode_step}}
    %0 = pplan.task "norm1" decode vector per_generation requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_template_c2: a decode template without its context
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  // expected-error @+1 {{pplan_template_c2: decode template @block_decode_9 states its positive context length}}
  pplan.template @block_decode_9 block decode {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_template_c2: a decode template with context 0
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  // expected-error @+1 {{pplan_template_c2: decode template @block_decode_9 states its positive context length}}
  pplan.template @block_decode_9 block decode context 0 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_template_c2: a context on the prefill template
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  // expected-error @+1 {{pplan_template_c2: only a decode template has a context, not a prefill template}}
  pplan.template @block_prefill block prefill context 8 {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_plan_c3: a whole-run inference plan with a decode_context
// expected-error @+1 {{pplan_plan_c3: a whole-run inference plan holds every step of the generation, so it has no decode_context}}
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 9 mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_plan_c5: an inference run without its last stage
// expected-error @+1 {{pplan_plan_c5: pipeline stage 1 has no pplan.stage}}
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_instance_c2: a step beyond the generation
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    // expected-error @+1 {{pplan_instance_c2: micro_batch 2 is not a step of the generation (0..1)}}
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 2 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_instance_c2: a decode instance without its step
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    // expected-error @+1 {{pplan_instance_c2: template @block_decode_9 runs per micro-batch: give micro_batch}}
    %3 = pplan.instance @block_decode_9 chunk 0 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: a step beyond the generation
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    // expected-error @+1 {{pplan_transfer_c1: micro_batch 2 is not a step of the generation (0..1)}}
    %4 = pplan.send activation micro_batch 2 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: a token in a training plan
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    // expected-error @+1 {{pplan_transfer_c1: only an inference run sends tokens}}
    %4 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}


// -----

// pplan_transfer_c1: a token not from the last model chunk
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    // expected-error @+1 {{pplan_transfer_c1: a token leaves the last model chunk (1) for the first, at pp > 1, not model chunk 0}}
    %2 = pplan.recv token micro_batch 0 chunk 0 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: a token after the last step
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    // expected-error @+1 {{pplan_transfer_c1: the token of step 1 feeds step 2, which the generation does not run (the last token is never fed back)}}
    %5 = pplan.send token micro_batch 1 chunk 1 to 0 bytes = 16 after(%4)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: a token at pp = 1
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 2]
    // expected-error @+1 {{pplan_transfer_c1: a token leaves the last model chunk (0) for the first, at pp > 1, not model chunk 0}}
    %1 = pplan.send token micro_batch 0 chunk 0 to 0 bytes = 16 after(%0)
    %2 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 2] after(%0)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 2 ops = 14464 read = 4608 write = 4096 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 2 ops = 1808 read = 1024 write = 512 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: an activation_grad in an inference plan
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    // expected-error @+1 {{pplan_transfer_c1: an inference run sends no activation_grad}}
    %5 = pplan.send activation_grad micro_batch 1 chunk 1 to 0 bytes = 256 after(%4)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_transfer_c1: a token sent by the first stage
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    // expected-error @+1 {{pplan_transfer_c1: the token of micro-batch 0 leaving model chunk 1 is sent by stage 1, not 0}}
    %5 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_transfer_c2: a token from the wrong stage
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    // expected-error @+1 {{pplan_transfer_c2: the token of micro-batch 0 leaving model chunk 1 comes from stage 1, not 0}}
    %2 = pplan.recv token micro_batch 0 chunk 1 from 0 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_buffer_c5: a received token read by the step that sampled it
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    // expected-error @+1 {{pplan_buffer_c5: the token of micro-batch 0 leaving model chunk 1 must be read by a block prefill or decode instance of micro-batch 1 on model chunk 0}}
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 2] producer(%2) consumers(%0)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_buffer_c5: a sent token made by the next step
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    // expected-error @+1 {{pplan_buffer_c5: the token of micro-batch 0 leaving model chunk 1 must be made by a block prefill or decode instance of micro-batch 0 on model chunk 1}}
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [4, 4] producer(%4) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_plan_c7: an inference stage row per decode step
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  // expected-error @+1 {{pplan_plan_c7: a stage's ledger row holds its totals over the generation (per_generation), not per_decode_step}}
  pplan.ledger stage 0 per_decode_step decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_plan_c7: an inference stage row of the iteration
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  // expected-error @+1 {{pplan_plan_c7: a stage's ledger row holds its totals over the generation (per_generation), not per_iteration}}
  pplan.ledger stage 1 per_iteration prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_plan_c7: an inference stage row with the wrong ops
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  // expected-error @+1 {{pplan_plan_c7: conservation of stage 0 decode vector ops: the distributed IR has 905, the plan's stage has 904}}
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 905 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 1 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
}

// -----

// pplan_plan_c7: an inference stage without its decode row
pplan.plan @serve source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 64> inference = <batch = 2, prompt_length = 8, generated_tokens = 2, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 2, tp = 1, pp = 2, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @prefill serial
  pplan.group @decode serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_prefill block prefill {
    %0 = pplan.task "norm1" prefill vector per_generation requires @vector_elementwise group @prefill demand = <compute = 7232, memory = 4352, network = 0> ops = 7232 reads {norm1_beta = 128, norm1_gamma = 128, x = 2048} writes {x_norm1 = 2048} stashed {}
  }
  pplan.template @block_decode_9 block decode context 9 {
    %0 = pplan.task "norm1" decode vector per_decode_step requires @vector_elementwise group @decode demand = <compute = 904, memory = 768, network = 0> ops = 904 reads {norm1_beta = 128, norm1_gamma = 128, x = 256} writes {x_norm1 = 256} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    %0 = pplan.instance @block_prefill chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 2048 after(%0)
    %2 = pplan.recv token micro_batch 0 chunk 1 from 1 bytes = 16 after(%0)
    %3 = pplan.instance @block_decode_9 chunk 0 micro_batch 1 blocks [0, 1] after(%2)
    %4 = pplan.send activation micro_batch 1 chunk 0 to 1 bytes = 256 after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_token_mb0_chunk1 communication cause pipeline_receive bytes = 16 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @send_activation_mb1_chunk0 communication cause pipeline_send bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  // expected-error @+1 {{pplan_plan_c7: no ledger row records stage 1's decode vector work, so it cannot be checked for conservation}}
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 2048
    %1 = pplan.instance @block_prefill chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.send token micro_batch 0 chunk 1 to 0 bytes = 16 after(%1)
    %3 = pplan.recv activation micro_batch 1 chunk 0 from 0 bytes = 256 after(%1)
    %4 = pplan.instance @block_decode_9 chunk 1 micro_batch 1 blocks [1, 2] after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 2048 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_token_mb0_chunk1 communication cause pipeline_send bytes = 16 live [1, 2] producer(%1) consumers(%2)
    pplan.buffer @recv_activation_mb1_chunk0 communication cause pipeline_receive bytes = 256 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
  pplan.ledger stage 0 per_generation decode vector invocations = 1 ops = 904 read = 512 write = 256 message = 0 stash = 0
  pplan.ledger stage 1 per_generation prefill vector invocations = 1 ops = 7232 read = 2304 write = 2048 message = 0 stash = 0
}

// -----

// pplan_plan_c8: each pass of a chunk runs every block of the chunk, one
// instance per segment of one block kind (as dist_program_c8): block 0 is
// dense, blocks 1..3 have experts; stage 0's forward runs the dense block 0
// of its chunk's [0, 2) and drops the MoE block 1
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = rmsnorm, activation = swiglu, linear_bias = none, position_embedding = rotary, tied_embeddings = false, moe = <experts = 4, experts_per_token = 2, expert_ffn_hidden = 32, first_dense_blocks = 1>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @backward serial
  pplan.group @stage_0 serial
  pplan.group @stage_1 serial
  pplan.template @block_forward block forward {
    %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
  }
  pplan.template @block_backward block backward {
    %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
  }
  pplan.stage 0 group @stage_0 {
    // expected-error @+1 {{pplan_plan_c8: the instances of this forward through model chunk 0 run blocks [0, 1), not the chunk's [0, 2)}}
    %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
    %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
    %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
    %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [1, 2] after(%2)
    %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [2, 4] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [2, 4] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
}

// -----

// pplan_plan_c4 carries the expert-parallel rules: dp = 2 and E = 4 split
// over ep = 2 (c1..c3 hold), and the run is refused under ZeRO-3
// (expert_parallel_c8).
// expected-error @+1 {{pplan_plan_c4: expert_parallel_c8: zero_stage = 3 with ep = 2}}
pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu, linear_bias = none, moe = <experts = 4, experts_per_token = 2>> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 1, pp = 1, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b, zero_stage = 3, ep = 2> {
}
