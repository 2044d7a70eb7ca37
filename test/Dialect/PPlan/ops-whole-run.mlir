// RUN: blueprint-opt %s | FileCheck %s
// RUN: blueprint-opt %s | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --emit-bytecode | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --mlir-print-op-generic | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --canonicalize --cse | FileCheck %s

// A whole-run plan (docs/PPlanSpec.md, "Whole run"): two stages, one
// micro-batch, a template per pass, transfers, stage-level all-reduces
// along the dp axis and along a group of the pp axis (pplan_task_c8),
// buffers of every kind with their causes and lifetimes (pplan_buffer_c6 ..
// c10) and the per-stage ledger.

// CHECK-LABEL: pplan.plan @run source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @backward serial
// CHECK-NEXT: pplan.group @stage_0 serial
// CHECK-NEXT: pplan.group @stage_1 serial
// CHECK-NEXT: pplan.template @block_forward block forward {
// CHECK-NEXT: %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 100, memory = 20, network = 0> ops = 100 reads {x = 10} writes {y = 10} stashed {x = 10}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.template @block_backward block backward {
// CHECK-NEXT: %0 = pplan.task "fc" activation_grad matmul per_micro_batch requires @matmul group @backward demand = <compute = 200, memory = 20, network = 0> ops = 200 reads {dy = 10} writes {dx = 10} stashed {}
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 0 group @stage_0 {
// CHECK-NEXT: %0 = pplan.instance @block_forward chunk 0 micro_batch 0 blocks [0, 1]
// CHECK-NEXT: %1 = pplan.send activation micro_batch 0 chunk 0 to 1 bytes = 10 after(%0)
// CHECK-NEXT: %2 = pplan.recv activation_grad micro_batch 0 chunk 1 from 1 bytes = 10 after(%0)
// CHECK-NEXT: %3 = pplan.instance @block_backward chunk 0 micro_batch 0 blocks [0, 1] after(%2)
// CHECK-NEXT: %4 = pplan.task "dp_grad_allreduce" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> axis "dp" ops = 8 reads {g = 16} writes {g = 16} stashed {} after(%3)
// CHECK-NEXT: %5 = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 4, memory = 16, network = 8> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 8> axis "pp" group [0, 1] ops = 4 reads {e = 8} writes {e = 8} stashed {} after(%4)
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 40 live [0, 5]
// CHECK-NEXT: pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
// CHECK-NEXT: pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
// CHECK-NEXT: pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [0, 3] producer(%0) consumers(%3)
// CHECK-NEXT: pplan.buffer @working_set_backward_mb0_chunk0 temporary cause working_set bytes = 20 live [3, 3] producer(%3)
// CHECK-NEXT: pplan.buffer @gradient_bucket_0 communication cause gradient_bucket bytes = 16 live [3, 4] producer(%3) consumers(%4)
// CHECK-NEXT: }
// CHECK-NEXT: pplan.stage 1 group @stage_1 {
// CHECK-NEXT: %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
// CHECK-NEXT: %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
// CHECK-NEXT: %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
// CHECK-NEXT: %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
// CHECK-NEXT: %4 = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @all_reduce group @stage_1 demand = <compute = 4, memory = 16, network = 8> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 8> axis "pp" group [0, 1] ops = 4 reads {e = 8} writes {e = 8} stashed {} after(%3)
// CHECK-NEXT: pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
// CHECK-NEXT: pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
// CHECK-NEXT: pplan.buffer @weights persistent cause weights bytes = 40 live [0, 4]
// CHECK-NEXT: }
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
// CHECK-NEXT: pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 0 per_iteration weight_grad collective invocations = 2 ops = 12 read = 24 write = 24 message = 24 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
// CHECK-NEXT: pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
// CHECK-NEXT: pplan.ledger stage 1 per_iteration weight_grad collective invocations = 1 ops = 4 read = 8 write = 8 message = 8 stash = 0
// CHECK-NEXT: }

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
    %5 = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @all_reduce group @stage_0 demand = <compute = 4, memory = 16, network = 8> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 8> axis "pp" group [0, 1] ops = 4 reads {e = 8} writes {e = 8} stashed {} after(%4)
    pplan.buffer @weights persistent cause weights bytes = 40 live [0, 5]
    pplan.buffer @send_activation_mb0_chunk0 communication cause pipeline_send bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @recv_activation_grad_mb0_chunk1 communication cause pipeline_receive bytes = 10 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @stash_mb0_chunk0 stash cause block_activations bytes = 10 live [0, 3] producer(%0) consumers(%3)
    pplan.buffer @working_set_backward_mb0_chunk0 temporary cause working_set bytes = 20 live [3, 3] producer(%3)
    pplan.buffer @gradient_bucket_0 communication cause gradient_bucket bytes = 16 live [3, 4] producer(%3) consumers(%4)
  }
  pplan.stage 1 group @stage_1 {
    %0 = pplan.recv activation micro_batch 0 chunk 0 from 0 bytes = 10
    %1 = pplan.instance @block_forward chunk 1 micro_batch 0 blocks [1, 2] after(%0)
    %2 = pplan.instance @block_backward chunk 1 micro_batch 0 blocks [1, 2] after(%1)
    %3 = pplan.send activation_grad micro_batch 0 chunk 1 to 0 bytes = 10 after(%2)
    %4 = pplan.task "embedding_grad_sync" weight_grad collective per_iteration requires @all_reduce group @stage_1 demand = <compute = 4, memory = 16, network = 8> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 8> axis "pp" group [0, 1] ops = 4 reads {e = 8} writes {e = 8} stashed {} after(%3)
    pplan.buffer @recv_activation_mb0_chunk0 communication cause pipeline_receive bytes = 10 live [0, 1] producer(%0) consumers(%1)
    pplan.buffer @send_activation_grad_mb0_chunk1 communication cause pipeline_send bytes = 10 live [2, 3] producer(%2) consumers(%3)
    pplan.buffer @weights persistent cause weights bytes = 40 live [0, 4]
  }
  pplan.objective minimize_step_latency
  pplan.ledger stage 0 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 0 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 0 per_iteration weight_grad collective invocations = 2 ops = 12 read = 24 write = 24 message = 24 stash = 0
  pplan.ledger stage 1 per_iteration forward matmul invocations = 1 ops = 100 read = 10 write = 10 message = 0 stash = 10
  pplan.ledger stage 1 per_iteration activation_grad matmul invocations = 1 ops = 200 read = 10 write = 10 message = 0 stash = 0
  pplan.ledger stage 1 per_iteration weight_grad collective invocations = 1 ops = 4 read = 8 write = 8 message = 8 stash = 0
}
