// --work-summary of a whole-run program (docs/WholeRun.md): each stage's
// per-rank totals, then the whole iteration over every rank as exact
// 128-bit integers. The iteration's totals are the stages' times tp x dp:
// here stage 0 and stage 1 of a pp = 2 run of 2 x 2 ranks each. The numbers
// are checked against closed forms in test/Unit/WholeRunTest.cpp; this test
// checks how they are reported.
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --work-summary -o /dev/null | FileCheck %s
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --work-summary=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --work-summary=format=json -o /dev/null | python3 -c "import json,sys; p=json.load(sys.stdin)['programs'][0]; r=p['iteration']['ranks_per_stage']; assert r == 4; t=p['iteration']['total']; s=p['stages']; assert all(t[k] == r*sum(x['total'][k] for x in s) for k in t), t; assert p['iteration']['pipeline_messages_sent'] == r*sum(x['pipeline_messages_sent'] for x in s); print('iteration = stages x ranks')" | FileCheck %s --check-prefix=SUM

transformer.decoder_training @small
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
    training = <global_batch = 8, micro_batch = 2, activation_type = bf16, weight_type = bf16, gradient_type = f32, optimizer_state_type = f32>
    mapping = <world = 8, tp = 2, pp = 2, dp = 2, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>

// CHECK: program @small, stage 0 (one rank, the whole iteration): 2 pipeline messages sent ({{[0-9]+}} bytes), 2 received
// CHECK: program @small, stage 1 (one rank, the whole iteration): 2 pipeline messages sent
// CHECK: program @small, the whole iteration (2 stages x 4 ranks): 16 pipeline messages
// CHECK-NEXT: engine invocations message_bytes min_transfer_bytes ops read_bytes stash_bytes write_bytes
// CHECK-NEXT: iteration matmul
// CHECK-NEXT: iteration vector
// CHECK-NEXT: iteration collective
// CHECK-NEXT: iteration total

// JSON: "iteration": {
// JSON-NEXT: "by_engine": {
// JSON-NEXT: "collective": {
// JSON: "pipeline_bytes_sent": {{[0-9]+}},
// JSON-NEXT: "pipeline_messages_sent": 16,
// JSON-NEXT: "ranks_per_stage": 4,
// JSON-NEXT: "total": {
// JSON: "program": "small",
// JSON-NEXT: "stages": [

// SUM: iteration = stages x ranks
