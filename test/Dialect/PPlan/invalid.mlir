// RUN: blueprint-opt %s -split-input-file -verify-diagnostics

// pplan_c1: a kernel on a task
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_c1: attribute 'kernel' is not a field of pplan.task; a portable plan cannot carry target fields}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16} {kernel = "cutlass_gemm"}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_c1: a device on a buffer
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  // expected-error @+1 {{pplan_c1: attribute 'device' is not a field of pplan.buffer}}
  pplan.buffer @x boundary bytes = 16 consumers(%0) {device = 3 : i64}
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_c1: a duration on a group
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  // expected-error @+1 {{pplan_c1: attribute 'duration_us' is not a field of pplan.group}}
  pplan.group @any parallel {duration_us = 12 : i64}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_c1: a queue on a capability
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+1 {{pplan_c1: attribute 'queue' is not a field of pplan.capability}}
  pplan.capability @matmul matmul {queue = "q0"}
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_c1: a duration on the plan
// expected-error @+1 {{pplan_c1: attribute 'duration' is not a field of pplan.plan}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> attributes {duration = 3 : i64} {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_c1: a foreign op in a plan
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  // expected-error @+1 {{pplan_c1: only pplan ops may appear in a portable plan}}
  %c = builtin.unrealized_conversion_cast to i32
}

// -----

// pplan_plan_c1
// expected-error @+1 {{pplan_plan_c1: source_digest must be 'sha256:' followed by 64 lowercase hex digits, got 'md5:00'}}
pplan.plan @p source_digest = "md5:00" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_plan_c2: a hand-edited task breaks conservation
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 2048, memory = 48, network = 0> ops = 2048 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  // expected-error @+1 {{pplan_plan_c2: conservation of per_micro_batch forward matmul ops: the distributed IR has 1024, the plan's tasks have 2048}}
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_plan_c2: stash edited
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  // expected-error @+1 {{pplan_plan_c2: conservation of per_micro_batch forward matmul stash bytes: the distributed IR has 8, the plan's tasks have 16}}
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 8
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_plan_c2: missing row
// expected-error @+1 {{pplan_plan_c2: no ledger row records the distributed IR's per_micro_batch forward collective work, so task sync cannot be checked for conservation}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
}

// -----

// pplan_plan_c2: duplicate row
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
  // expected-error @+1 {{pplan_plan_c2: a second ledger row for the same cadence, phase and engine}}
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_plan_c2: negative ledger
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  // expected-error @+1 {{pplan_plan_c2: ledger totals must be non-negative, got -1}}
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = -1 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c1: unresolved capability
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c1: @tensor_core does not name a pplan.capability of the plan}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @tensor_core group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c1: capability does not cover the task
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c1: fc requires the matmul capability, but @all_reduce provides collective_all_reduce}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @all_reduce group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c2
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c2: @stage9 does not name a pplan.group of the plan}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @stage9 demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c3: hand-edited facts
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c3: task fc (forward) declares compute demand 1024 but its facts imply 1000}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1000 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c3: network demand
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c3: task sync (forward) declares network demand 32 but its facts imply 16}}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 32> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c4: negative ops
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c4: ops must be non-negative, got -1}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = -1, memory = 48, network = 0> ops = -1 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c4: negative bytes
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c4: read bytes of tensor 'w' must be non-negative, got -16}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = -16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c4: collective without facts
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c4: collective work needs its collective facts}}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c4: facts on non-collective work
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c4: only collective work has collective facts}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c4: participants
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c4: a collective needs participants > 0 and a non-negative message divisible by them, got participants = 3, message = 16}}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 3, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c4: reduction
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c4: an all_reduce must reduce (reduction = sum)}}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = none, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c5
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %t = builtin.unrealized_conversion_cast to !pplan.token
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c5: every dependency must be the token of a task of the same plan}}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%t)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c6
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c6: only forward work stashes, but fc (weight_grad) stashes 1 tensors}}
  %0 = pplan.task "fc" weight_grad matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch weight_grad matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c8: a mesh axis in a block-scope plan
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c8: only a collective of a pplan.stage names a mesh axis; a collective of a template or a block-scope plan spans tp}}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "tp" ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_buffer_c1
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  // expected-error @+1 {{pplan_buffer_c1: bytes must be non-negative, got -16}}
  pplan.buffer @x boundary bytes = -16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_buffer_c2
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  // expected-error @+1 {{pplan_buffer_c2: producer sync (forward) does not write 'w'}}
  pplan.buffer @w persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_buffer_c3
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  // expected-error @+1 {{pplan_buffer_c3: consumer sync (forward) does not read 'x'}}
  pplan.buffer @x boundary bytes = 16 consumers(%0, %1)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_buffer_c4
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  // expected-error @+1 {{pplan_buffer_c4: buffer 'x' has neither a producer nor a consumer}}
  pplan.buffer @x boundary bytes = 16
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_buffer_c6: a cause at plan level
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  // expected-error @+1 {{pplan_buffer_c6: a plan-level buffer has no cause and no live interval: its tasks are its producer and consumers}}
  pplan.buffer @h persistent cause weights bytes = 16 live [0, 1] producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_buffer_c6: a lifetime at plan level
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  // expected-error @+1 {{pplan_buffer_c6: a plan-level buffer has no cause and no live interval: its tasks are its producer and consumers}}
  pplan.buffer @h persistent bytes = 16 live [0, 1] producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_plan_c3
// expected-error @+1 {{pplan_plan_c3: a program carries exactly one workload contract, training or inference}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> inference = <batch = 2, prompt_length = 16, generated_tokens = 8, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// pplan_plan_c3
// expected-error @+1 {{pplan_plan_c3: a program carries exactly one workload contract, training or inference}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu>  mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// pplan_plan_c3
// expected-error @+1 {{pplan_plan_c3: decode_context belongs to inference programs}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> decode_context = 20 mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// pplan_plan_c3
// expected-error @+1 {{pplan_plan_c3: generated_tokens = 8 has decode steps: decode_context is required}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 8, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// pplan_plan_c3
// expected-error @+1 {{pplan_plan_c3: decode_context = 16 is not a decode step of this generation (context lengths 17 .. 23)}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 8, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 16 mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// pplan_plan_c3
// expected-error @+1 {{pplan_plan_c3: generated_tokens = 1 has no decode step, but decode_context = 17 is given}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> inference = <batch = 2, prompt_length = 16, generated_tokens = 1, activation_type = bf16, weight_type = bf16, kv_cache_type = bf16> decode_context = 17 mapping = <world = 4, tp = 4, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// A buffer's kind is a keyword of a closed vocabulary.
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+2 {{expected one of [boundary, persistent, stash, temporary, communication] for buffer kind, got: scratch}}
  // expected-error @+1 {{invalid value for property kind, expected buffer kind}}
  pplan.buffer @x scratch bytes = 16
}

// -----

// Ledger totals are 64-bit integers: a larger total is rejected, never
// wrapped.
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  // expected-error @+2 {{integer value too large}}
  // expected-error @+1 {{invalid value for property ops, expected 64-bit integer (required)}}
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 18446744073709551616 read = 32 write = 16 message = 0 stash = 16
}

// -----

// In the generic form a buffer's kind and bytes must be given.
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.group @forward serial
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 16, memory = 32, network = 0> ops = 16 reads {x = 16} writes {h = 16} stashed {}
  // expected-error @+1 {{property 'bytes' failed to satisfy constraint: 64-bit integer (required)}}
  "pplan.buffer"(%0) <{kind = 0 : i32, sym_name = "x", operandSegmentSizes = array<i32: 0, 1>}> : (!pplan.token) -> ()
}

// -----

// In the generic form a task's byte lists are dictionaries of i64 counts.
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.group @forward serial
  // expected-error @+1 {{the bytes of tensor 'x' must be a 64-bit integer}}
  %0 = "pplan.task"() <{capability = @matmul, group = @forward, demand = #pplan.demand<compute = 16, memory = 32, network = 0>, primitive = "fc", phase = 0 : i32, engine = 0 : i32, cadence = 0 : i32, ops = 16 : i64, reads = {x = 1.0 : f32}, writes = {h = 16 : i64}, stashed = {}}> : () -> !pplan.token
}

// -----

// pplan_plan_c4: the contracts compose (tp = 3 does not divide hidden = 64).
// expected-error @+6 {{pplan_plan_c4: decoder_training_c16: micro_batch * seq_length / cp (the tokens per context-parallel rank without sequence parallelism) = 64 is not divisible by tp = 3}}
// expected-error @+5 {{pplan_plan_c4: decoder_training_c4: heads = 4 is not divisible by tp = 3}}
// expected-error @+4 {{pplan_plan_c4: decoder_training_c5: kv_heads = 4 is not divisible by tp = 3}}
// expected-error @+3 {{pplan_plan_c4: decoder_training_c6: hidden = 64 is not divisible by tp = 3}}
// expected-error @+2 {{pplan_plan_c4: decoder_training_c7: ffn_hidden = 256 is not divisible by tp = 3}}
// expected-error @+1 {{pplan_plan_c4: decoder_training_c8: vocab = 128 is not divisible by tp = 3}}
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 3, tp = 3, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
}

// -----

// pplan_task_c7: a collective's buffers fit its message (a reduce-scatter
// writes its 1/participants shard).
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @reduce_scatter collective_reduce_scatter
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c7: reduce_scatter of message 16 over 2 participants: each reads 16 bytes and writes 8, but this one reads 16 and writes 16}}
  %0 = pplan.task "sync" forward collective per_micro_batch requires @reduce_scatter group @any demand = <compute = 8, memory = 32, network = 8> collective = <kind = reduce_scatter, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {}
}

// -----

// pplan_task_c4: an all-to-all (MoE token dispatch) moves tokens and reduces nothing
pplan.plan @exchange source_digest = "sha256:a7f876715d46ebc3b3412141954772fce919bb11fd7b9dd0593d92af018d2945" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 1, dp = 4, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @collective_all_to_all collective_all_to_all
  pplan.group @forward serial
  // expected-error @+1 {{pplan_task_c4: an all_to_all does not reduce}}
  %0 = pplan.task "dispatch" forward collective per_micro_batch requires @collective_all_to_all group @forward demand = <compute = 0, memory = 8192, network = 3072> collective = <kind = all_to_all, reduction = sum, participants = 4, message = 4096> ops = 0 reads {routed = 4096} writes {dispatched = 4096} stashed {}
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 0 read = 4096 write = 4096 message = 4096 stash = 0
}

// -----

// pplan_task_c9: ops are not the GEMMs' (2 * 1 * 4 * 8 * 8 = 512)
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c9: ops = 1024 but the GEMMs' 2 * batch * M * N * K sum to 512}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 gemm = [1, 4, 8, 8] reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c9: four extents per GEMM
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  // expected-error @+1 {{pplan_task_c9: gemm lists four extents [batch, M, N, K] per GEMM, got 5}}
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 gemm = [1, 4, 8, 16, 1] reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}

// -----

// pplan_task_c10: a task of a kernel-adding transformation whose primitive
// is none of the kernels it adds (workload::isAddedBy)
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @forward serial
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c10: 'made_up_kernel' is not a kernel megatron-unfused-attention-glue adds (docs/Estimate.md, "Implementation transformations")}}
  %1 = pplan.task "made_up_kernel" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8, memory = 32, network = 0> implementation "megatron-unfused-attention-glue" fuses [] ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
}

// -----

// pplan_task_c10: an alpha scaling named for a tensor it does not write
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @vector_elementwise vector_elementwise
  pplan.group @forward serial
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  // expected-error @+1 {{pplan_task_c10: 'd_q_alpha_scale' is not a kernel megatron-unfused-attention-glue adds}}
  %1 = pplan.task "d_q_alpha_scale" forward vector per_micro_batch requires @vector_elementwise group @forward demand = <compute = 8, memory = 32, network = 0> implementation "megatron-unfused-attention-glue" fuses [] ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
}
