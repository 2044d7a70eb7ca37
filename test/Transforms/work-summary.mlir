// The work summary prints the totals by cadence, phase and engine class.
// RUN: blueprint-opt %s --distribute-transformer --work-summary -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: blueprint-opt %s --distribute-transformer --work-summary=format=json -o /dev/null | FileCheck %s --check-prefix=JSON

// Canonicalize and CSE never fold work: the totals are the same after them.
// RUN: blueprint-opt %s --distribute-transformer --work-summary="format=json output=%t.before.json" -o /dev/null
// RUN: blueprint-opt %s --distribute-transformer --canonicalize --cse --work-summary="format=json output=%t.after.json" -o /dev/null
// RUN: diff %t.before.json %t.after.json

// A bad option is a diagnostic.
// RUN: not blueprint-opt %s --distribute-transformer --work-summary=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: work-summary: format must be 'table' or 'json', got 'xml'

// Forward matmul ops of one block on one rank: (24bsh^2 + 4bs^2h)/t with
// b = 2, s = 32, h = 64, t = 2 is (6291456 + 524288)/2 = 3407872. The
// activation gradients add the linear layers' 24bsh^2/t = 3145728 and twice
// the attention core, 3670016; the weight gradients the linear layers only,
// 3145728; selective recompute adds QK^T and AV, 4bs^2h/t = 262144.
// TABLE: program @sum, per_micro_batch (one block, one rank)
// TABLE-NEXT: phase            engine     count                    ops         read_bytes        write_bytes    message_bytes   transfer_bytes      stash_bytes
// TABLE-NEXT: forward          matmul         6                3407872
// TABLE: recompute        matmul         2                 262144
// TABLE: activation_grad  matmul         6                3670016
// TABLE: weight_grad      matmul         4                3145728
// TABLE: program @sum, per_iteration (one block, one rank)

// JSON: "cadences": {
// JSON: "per_iteration": {
// JSON: "per_micro_batch": {
// JSON: "by_phase": {
// JSON: "activation_grad": {
// JSON: "recommunication": {
// JSON: "by_phase_engine": [
// JSON: "engine": "matmul",
// JSON-NEXT: "invocations": 6,
// JSON-NEXT: "message_bytes": 0,
// JSON-NEXT: "min_transfer_bytes": 0,
// JSON-NEXT: "ops": 3407872,
// JSON-NEXT: "phase": "forward",
// JSON: "program": "sum"
transformer.decoder_training @sum
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
             vocab = 128, blocks = 2, norm = layernorm, activation = gelu>
    training = <global_batch = 4, micro_batch = 2, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = reduce_scatter_all_gather, recompute = selective,
               schedule = one_f_one_b>
