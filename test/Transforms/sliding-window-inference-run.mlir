// A sliding window of 8 keys over a whole generation (docs/Inference.md,
// "Sliding-window attention"): 2 blocks, one rank, 2 sequences with 6-token
// prompts and 5 generated tokens, so the 4 decode steps run at contexts 7 to
// 10 and the last two of them attend to the window's 8 cached positions
// only. The prefill stores its 6 positions (2 x 6 x 64 x 2 = 1536 bytes of
// keys), each decode step one position; the rolling-buffer cache ends at 8
// positions, 4096 bytes per block, while 5120 were written. Conservation
// holds on the compact and expanded programs and on the plan.
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration | FileCheck %s
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --verify-conservation --work-summary | FileCheck %s --check-prefix=SUMMARY
// RUN: blueprint-opt %s --distribute-transformer=scope=iteration --expand-whole-run --verify-conservation --plan-portable --verify-conservation -o /dev/null
// RUN: blueprint-opt %s --distribute-transformer --work-summary=format=json -o /dev/null | FileCheck %s --check-prefix=GENERATION

// CHECK: dist.template @block_prefill block prefill {
// CHECK: dist.task "kv_cache_write" prefill vector per_generation on @mesh ops = 0 reads {k = 1536, v = 1536} writes {k_cache = 1536, v_cache = 1536}
// With a window of 4 the prefill reads and stores the last 4 positions.
// RUN: sed 's/attention_window = 8/attention_window = 4/' %s | blueprint-opt --distribute-transformer | FileCheck %s --check-prefix=SHORT
// SHORT: dist.task "kv_cache_write" prefill {{.*}} ops = 0 reads {k = 1024, v = 1024} writes {k_cache = 1024, v_cache = 1024}
// The prefill's scores: 2 sequences x 4 heads x 6 x 6 (the window does not
// bind yet).
// CHECK: dist.task "qk_matmul" prefill matmul per_generation on @mesh ops = 9216 gemm = [8, 6, 6, 16] reads {k = 1536, q = 1536} writes {scores = 576}
// CHECK: dist.template @block_decode_7 block decode context 7 {
// CHECK: dist.task "qk_matmul" decode matmul per_decode_step on @mesh ops = 1792 gemm = [8, 1, 7, 16] reads {k_cache = 1792, q = 256} writes {scores = 112}
// CHECK: dist.template @block_decode_8 block decode context 8 {
// CHECK: dist.task "qk_matmul" decode matmul per_decode_step on @mesh ops = 2048 gemm = [8, 1, 8, 16] reads {k_cache = 2048, q = 256} writes {scores = 128}
// Past the window the cache and the scores stop growing.
// CHECK: dist.template @block_decode_9 block decode context 9 {
// CHECK: dist.task "qk_matmul" decode matmul per_decode_step on @mesh ops = 2048 gemm = [8, 1, 8, 16] reads {k_cache = 2048, q = 256} writes {scores = 128}
// CHECK: dist.template @block_decode_10 block decode context 10 {
// CHECK: dist.task "qk_matmul" decode matmul per_decode_step on @mesh ops = 2048 gemm = [8, 1, 8, 16] reads {k_cache = 2048, q = 256} writes {scores = 128}

// SUMMARY: program @serve, stage 0 (one rank, the whole generation): 0 pipeline messages sent (0 bytes), 0 received (0 bytes), KV cache written 10240 bytes

// GENERATION: "final_kv_cache_bytes": 4096,
// GENERATION: "kv_cache_read_bytes": 15872,
// GENERATION: "kv_cache_write_bytes": 5120

transformer.decoder_inference @serve
    model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16,
             vocab = 128, blocks = 2, norm = rmsnorm, activation = swiglu,
             attention_window = 8>
    inference = <batch = 2, prompt_length = 6, generated_tokens = 5,
                 activation_type = bf16, weight_type = bf16,
                 kv_cache_type = bf16>
    mapping = <world = 1, tp = 1, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
