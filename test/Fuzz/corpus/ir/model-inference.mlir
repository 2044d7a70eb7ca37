module {
  transformer.decoder_inference @serve model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 16, vocab = 128, blocks = 2, norm = layernorm, activation = gelu, max_positions = 32> inference = <batch = 2, prompt_length = 8, generated_tokens = 4, activation_type = bf16, weight_type = bf16, kv_cache_type = fp8> mapping = <world = 2, tp = 2, pp = 1, dp = 1, virtual_stages = 1, tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
}
