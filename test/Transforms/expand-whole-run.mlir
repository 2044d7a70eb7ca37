// The expanded form (docs/WholeRun.md): every instance holds its template's
// work once per block of its range, each repetition after the previous one,
// with the block in its location; the totals are those of the compact form.
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --expand-whole-run --mlir-print-debuginfo | FileCheck %s
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --work-summary=format=json -o /dev/null > %t.compact.json
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --expand-whole-run --work-summary=format=json -o /dev/null > %t.expanded.json
// RUN: diff %t.compact.json %t.expanded.json
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --expand-whole-run | blueprint-opt --expand-whole-run | FileCheck %s --check-prefix=AGAIN

transformer.decoder_training @small
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 4, tp = 1, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// The first forward of stage 0: the embedding once, then blocks 0 and 1.
// CHECK-LABEL: dist.stage 0 {
// CHECK: dist.instance @embedding_forward chunk 0 micro_batch 0 {
// CHECK: dist.task "word_embedding" forward
// CHECK-SAME: loc(#[[ONCE0:loc[0-9]+]])
// CHECK: dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2]
// CHECK-NEXT: %[[FIRST:[0-9]+]] = dist.task "norm1" forward vector
// CHECK-SAME: loc(#[[B0:loc[0-9]+]])
// CHECK: %[[LAST:[0-9]+]] = dist.task "mlp_residual" forward vector
// CHECK-NEXT: dist.task "norm1" forward vector {{.*}} after(%[[LAST]]) loc(#[[B1:loc[0-9]+]])
// CHECK: #[[PLACE0:loc[0-9]+]] = loc("stage 0 chunk 0 micro_batch 0 blocks [0, 2) block_forward")
// CHECK: loc("block 0")
// CHECK: loc("block 1")

// Expanding an expanded program changes nothing: each instance has one copy
// per block.
// AGAIN-LABEL: dist.stage 0 {
// AGAIN: dist.instance @block_forward chunk 0 micro_batch 0 blocks [0, 2] after({{.*}}) {
// AGAIN-COUNT-2: dist.task "norm1" forward
// AGAIN-NOT: dist.task "norm1" forward
// AGAIN: dist.instance @block_forward chunk 0 micro_batch 1
