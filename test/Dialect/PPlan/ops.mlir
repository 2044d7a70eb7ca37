// RUN: blueprint-opt %s | FileCheck %s
// RUN: blueprint-opt %s | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --emit-bytecode | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --mlir-print-op-generic | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --canonicalize --cse | FileCheck %s

// CHECK-LABEL: pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
// CHECK-NEXT: pplan.capability @matmul matmul
// CHECK-NEXT: pplan.capability @all_reduce collective_all_reduce
// CHECK-NEXT: pplan.group @forward serial
// CHECK-NEXT: pplan.group @any parallel
// CHECK-NEXT: %[[FC:.*]] = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 gemm = [1, 8, 8, 8] reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
// CHECK-NEXT: %[[AR:.*]] = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%[[FC]])
// CHECK-NEXT: pplan.buffer @x boundary bytes = 16 consumers(%[[FC]])
// CHECK-NEXT: pplan.buffer @h persistent bytes = 16 producer(%[[AR]])
// CHECK-NEXT: pplan.objective minimize_step_latency
// CHECK-NEXT: pplan.objective minimize_peak_memory
// CHECK-NEXT: pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
// CHECK-NEXT: pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
pplan.plan @p source_digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, norm = layernorm, activation = gelu> training = <global_batch = 4, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b> {
  pplan.capability @matmul matmul
  pplan.capability @all_reduce collective_all_reduce
  pplan.group @forward serial
  pplan.group @any parallel
  %0 = pplan.task "fc" forward matmul per_micro_batch requires @matmul group @forward demand = <compute = 1024, memory = 48, network = 0> ops = 1024 gemm = [1, 8, 8, 8] reads {w = 16, x = 16} writes {h = 16} stashed {x = 16}
  %1 = pplan.task "sync" forward collective per_micro_batch requires @all_reduce group @any demand = <compute = 8, memory = 32, network = 16> collective = <kind = all_reduce, reduction = sum, participants = 2, message = 16> ops = 8 reads {h = 16} writes {h = 16} stashed {} after(%0)
  pplan.buffer @x boundary bytes = 16 consumers(%0)
  pplan.buffer @h persistent bytes = 16 producer(%1)
  pplan.objective minimize_step_latency
  pplan.objective minimize_peak_memory
  pplan.ledger per_micro_batch forward matmul invocations = 1 ops = 1024 read = 32 write = 16 message = 0 stash = 16
  pplan.ledger per_micro_batch forward collective invocations = 1 ops = 8 read = 16 write = 16 message = 16 stash = 0
}
