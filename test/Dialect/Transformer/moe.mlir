// RUN: blueprint-opt %s | FileCheck %s
// RUN: blueprint-opt %s | blueprint-opt | FileCheck %s
// RUN: blueprint-opt %s --emit-bytecode | blueprint-opt | FileCheck %s

// Mixture-of-experts models (#transformer.moe inside #transformer.model,
// docs/TransformerSpec.md) print, parse and serialise back to themselves.
// The models are held as module attributes here, apart from any run; a run
// of a uniform one is in test/Transforms/mixture-of-experts.test, of one
// that mixes dense and MoE blocks in test/Transforms/mixed-moe-layout.test. Fields at
// their defaults (expert_ffn_hidden = ffn_hidden, shared_experts = 0,
// first_dense_blocks = 0, moe_layer_frequency = 1, expert_imbalance_percent
// = 100, router = softmax_topk, router_groups = 1, router_groups_per_token =
// 1) are dropped: @defaults_spelled_out and @mixtral are the same
// attribute. @deepseek_v3 is the bundled DeepSeek-V3 config's router
// (docs/ImportHuggingFace.md).

// CHECK: test.deepseek_like = #transformer.model<hidden = 7168, heads = 128, ffn_hidden = 18432, seq_length = 4096, vocab = 129280, blocks = 61, norm = rmsnorm, activation = swiglu, max_positions = 163840, moe = <experts = 256, experts_per_token = 8, expert_ffn_hidden = 2048, shared_experts = 1, first_dense_blocks = 3, capacity_factor_percent = 125, expert_imbalance_percent = 150>>
// CHECK-SAME: test.deepseek_v3 = #transformer.model<{{.*}}moe = <experts = 256, experts_per_token = 8, expert_ffn_hidden = 2048, shared_experts = 1, first_dense_blocks = 3, router = sigmoid_group_limited, router_groups = 8, router_groups_per_token = 4>>
// CHECK-SAME: test.defaults_spelled_out = #transformer.model<hidden = 4096, heads = 32, ffn_hidden = 14336, seq_length = 4096, vocab = 32000, blocks = 32, norm = rmsnorm, activation = swiglu, kv_heads = 8, moe = <experts = 8, experts_per_token = 2>>
// CHECK-SAME: test.every_other = #transformer.model<{{.*}}moe = <experts = 16, experts_per_token = 1, moe_layer_frequency = 2>>
// CHECK-SAME: test.mixtral = #transformer.model<hidden = 4096, heads = 32, ffn_hidden = 14336, seq_length = 4096, vocab = 32000, blocks = 32, norm = rmsnorm, activation = swiglu, kv_heads = 8, moe = <experts = 8, experts_per_token = 2>>
module attributes {
  test.mixtral = #transformer.model<hidden = 4096, heads = 32,
      ffn_hidden = 14336, seq_length = 4096, vocab = 32000, blocks = 32,
      norm = rmsnorm, activation = swiglu, kv_heads = 8,
      moe = <experts = 8, experts_per_token = 2>>,
  test.defaults_spelled_out = #transformer.model<hidden = 4096, heads = 32,
      ffn_hidden = 14336, seq_length = 4096, vocab = 32000, blocks = 32,
      norm = rmsnorm, activation = swiglu, kv_heads = 8,
      moe = <experts = 8, experts_per_token = 2, expert_ffn_hidden = 14336,
             shared_experts = 0, first_dense_blocks = 0,
             moe_layer_frequency = 1, expert_imbalance_percent = 100,
             router = softmax_topk, router_groups = 1,
             router_groups_per_token = 1>>,
  test.deepseek_like = #transformer.model<hidden = 7168, heads = 128,
      ffn_hidden = 18432, seq_length = 4096, vocab = 129280, blocks = 61,
      norm = rmsnorm, activation = swiglu, max_positions = 163840,
      moe = <experts = 256, experts_per_token = 8, expert_ffn_hidden = 2048,
             shared_experts = 1, first_dense_blocks = 3,
             capacity_factor_percent = 125, expert_imbalance_percent = 150>>,
  test.deepseek_v3 = #transformer.model<hidden = 7168, heads = 128,
      ffn_hidden = 18432, seq_length = 4096, vocab = 129280, blocks = 61,
      norm = rmsnorm, activation = swiglu, max_positions = 163840,
      moe = <experts = 256, experts_per_token = 8, expert_ffn_hidden = 2048,
             shared_experts = 1, first_dense_blocks = 3,
             router = sigmoid_group_limited, router_groups = 8,
             router_groups_per_token = 4>>,
  test.every_other = #transformer.model<hidden = 1024, heads = 16,
      ffn_hidden = 4096, seq_length = 2048, vocab = 1024, blocks = 8,
      norm = layernorm, activation = gelu,
      moe = <experts = 16, experts_per_token = 1, moe_layer_frequency = 2>>
} {}
