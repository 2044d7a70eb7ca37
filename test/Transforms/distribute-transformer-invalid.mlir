// RUN: blueprint-opt %s -split-input-file --distribute-transformer -verify-diagnostics

// A model every composition rule accepts but whose work overflows 64 bits is
// a derivation diagnostic naming the quantity, never a wrapped number; the
// source op stays as it was.
// expected-error @+1 {{derivation: }}
transformer.decoder_training @huge
    model = <hidden = 1099511627776, heads = 1024, ffn_hidden = 4398046511104,
             seq_length = 1048576, vocab = 1024, blocks = 2, norm = layernorm,
             activation = gelu>
    training = <global_batch = 1024, micro_batch = 1024, activation_type = bf16,
                weight_type = bf16, gradient_type = f32,
                optimizer_state_type = f32>
    mapping = <world = 8, tp = 8, pp = 1, dp = 1, virtual_stages = 1,
               tp_comm = all_reduce, recompute = none, schedule = one_f_one_b>
