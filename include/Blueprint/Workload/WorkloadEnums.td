//===- WorkloadEnums.td - Closed vocabularies of the workload --*- tablegen -*-===//
//
// The closed sets shared by the plain work algebra and the dialects: one
// definition, generated as plain C++ enums (namespace blueprint::workload)
// with stringify/symbolize functions, and used as attribute parameters by the
// `transformer`, `dist` and `pplan` dialects and as op properties by `dist`
// and `pplan` (end of this file).
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_ENUMS
#define BLUEPRINT_WORKLOAD_ENUMS

include "mlir/IR/EnumAttr.td"

class Workload_Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::blueprint::workload";
  let genSpecializedAttr = 0;
}

def Workload_NormKind : Workload_Enum<"NormKind", "normalization kind", [
  I32EnumAttrCase<"LayerNorm", 0, "layernorm">,
  I32EnumAttrCase<"RMSNorm", 1, "rmsnorm">
]>;

// GeLU and ReLU are plain MLPs; SwiGLU is a gated MLP whose FC1 produces the
// gate and the up projection (2 x ffn_hidden columns).
def Workload_ActivationKind : Workload_Enum<"ActivationKind",
    "MLP activation kind", [
  I32EnumAttrCase<"GeLU", 0, "gelu">,
  I32EnumAttrCase<"ReLU", 1, "relu">,
  I32EnumAttrCase<"SwiGLU", 2, "swiglu">
]>;

// Which linear layers of a block add a bias: every one (GPT-2, GPT-3,
// Megatron's default), only the QKV projection (Qwen2), or none (Llama,
// Mistral, Mixtral, DeepSeek; Megatron's --disable-bias-linear).
def Workload_LinearBias : Workload_Enum<"LinearBias", "linear-layer biases", [
  I32EnumAttrCase<"All", 0, "all">,
  I32EnumAttrCase<"QKVOnly", 1, "qkv">,
  I32EnumAttrCase<"None", 2, "none">
]>;

// How token positions enter the model: a learned absolute table added to the
// word embeddings (GPT), or rotary embeddings applied to every query and key
// (RoPE, Su et al. 2021; Llama and its descendants).
def Workload_PositionEmbedding : Workload_Enum<"PositionEmbedding",
    "position embedding", [
  I32EnumAttrCase<"Learned", 0, "learned">,
  I32EnumAttrCase<"Rotary", 1, "rotary">
]>;

// How the router of a mixture-of-experts block picks a token's experts
// (docs/TransformerSpec.md, "Mixture-of-experts"): softmax over the expert
// logits and top-k renormalised (Mixtral, Megatron-Core TopKRouter), or
// DeepSeek-V3's sigmoid scores with the score-correction bias and a top-k
// limited to the best groups of experts (DeepSeek-V3 Sec. 2.1.2, Eqs. 12-16;
// transformers' DeepseekV3TopkRouter).
def Workload_RouterKind : Workload_Enum<"RouterKind", "router", [
  I32EnumAttrCase<"SoftmaxTopK", 0, "softmax_topk">,
  I32EnumAttrCase<"SigmoidGroupLimited", 1, "sigmoid_group_limited">
]>;

def Workload_DataType : Workload_Enum<"DataType", "element datatype", [
  I32EnumAttrCase<"F32", 0, "f32">,
  I32EnumAttrCase<"BF16", 1, "bf16">,
  I32EnumAttrCase<"F16", 2, "f16">,
  I32EnumAttrCase<"FP8", 3, "fp8">
]>;

def Workload_TPCommMode : Workload_Enum<"TPCommMode",
    "tensor-parallel communication mode", [
  I32EnumAttrCase<"AllReduce", 0, "all_reduce">,
  I32EnumAttrCase<"ReduceScatterAllGather", 1, "reduce_scatter_all_gather">
]>;

// How the context-parallel ranks exchange keys and values (and, backward,
// their gradients): around a ring in cp - 1 point-to-point steps
// (TransformerEngine's AttnFuncWithCPAndKVP2P, Megatron's
// --cp-comm-type p2p), or by an all-gather of K and V and a reduce-scatter
// of dK and dV (AttnFuncWithCPAndKVAllGather, --cp-comm-type all_gather).
def Workload_CPCommMode : Workload_Enum<"CPCommMode",
    "context-parallel communication mode", [
  I32EnumAttrCase<"Ring", 0, "ring">,
  I32EnumAttrCase<"AllGather", 1, "all_gather">
]>;

def Workload_RecomputePolicy : Workload_Enum<"RecomputePolicy",
    "activation recompute policy", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Selective", 1, "selective">,
  I32EnumAttrCase<"Full", 2, "full">
]>;

def Workload_PipelineSchedule : Workload_Enum<"PipelineSchedule",
    "pipeline schedule", [
  I32EnumAttrCase<"GPipe", 0, "gpipe">,
  I32EnumAttrCase<"OneFOneB", 1, "one_f_one_b">,
  I32EnumAttrCase<"Interleaved1F1B", 2, "interleaved_one_f_one_b">,
  I32EnumAttrCase<"ZeroBubbleH1", 3, "zero_bubble_h1">
]>;

// The passes of one micro-batch through one model chunk in a pipeline
// schedule: a forward, and a backward that is one pass (GPipe, 1F1B,
// interleaved 1F1B) or, under zero-bubble schedules, an input-gradient pass
// followed later by a weight-gradient pass (Qi et al. 2023, "B" and "W").
def Workload_PipelinePass : Workload_Enum<"PipelinePass", "pipeline pass", [
  I32EnumAttrCase<"Forward", 0, "forward">,
  I32EnumAttrCase<"Backward", 1, "backward">,
  I32EnumAttrCase<"InputGrad", 2, "input_grad">,
  I32EnumAttrCase<"WeightGrad", 3, "weight_grad">,
  // The once-per-iteration work after the last pass: gradient reductions and
  // the optimizer step. Never part of a stage's micro-batch order.
  I32EnumAttrCase<"Step", 4, "step">,
  // Inference (docs/WholeRun.md, "Inference runs"): the forward of the whole
  // prompt, once per generation, and the forward of one new token per
  // sequence at one context length. Never part of a training order
  // (pipeline_order_c1 rejects them).
  I32EnumAttrCase<"Prefill", 5, "prefill">,
  I32EnumAttrCase<"Decode", 6, "decode">
]>;

// What a template of the whole-run program holds: a decoder block, or the
// model's edges on the first stage (embeddings) and the last (final norm,
// LM head and loss).
def Workload_ModelPart : Workload_Enum<"ModelPart", "model part", [
  I32EnumAttrCase<"Block", 0, "block">,
  I32EnumAttrCase<"Embedding", 1, "embedding">,
  I32EnumAttrCase<"Head", 2, "head">
]>;

// What a pipeline message carries between adjacent model chunks, or, in an
// inference run, the sampled token ids the last stage sends back to the
// first stage for the next generation step.
def Workload_PipelineMessage : Workload_Enum<"PipelineMessage",
    "pipeline message", [
  I32EnumAttrCase<"Activation", 0, "activation">,
  I32EnumAttrCase<"ActivationGrad", 1, "activation_grad">,
  I32EnumAttrCase<"Token", 2, "token">
]>;

// Training work is forward, recompute, backward (activation_grad,
// weight_grad), optimizer and recommunication; inference work is the forward
// of the prompt (prefill) and of one new token per sequence (decode).
def Workload_Phase : Workload_Enum<"Phase", "work phase", [
  I32EnumAttrCase<"Forward", 0, "forward">,
  I32EnumAttrCase<"Recompute", 1, "recompute">,
  I32EnumAttrCase<"ActivationGrad", 2, "activation_grad">,
  I32EnumAttrCase<"WeightGrad", 3, "weight_grad">,
  I32EnumAttrCase<"Optimizer", 4, "optimizer">,
  I32EnumAttrCase<"Recommunication", 5, "recommunication">,
  I32EnumAttrCase<"Prefill", 6, "prefill">,
  I32EnumAttrCase<"Decode", 7, "decode">
]>;

def Workload_Engine : Workload_Enum<"Engine", "engine class", [
  I32EnumAttrCase<"Matmul", 0, "matmul">,
  I32EnumAttrCase<"Vector", 1, "vector">,
  I32EnumAttrCase<"Collective", 2, "collective">
]>;

def Workload_CollectiveKind : Workload_Enum<"CollectiveKind",
    "collective kind", [
  I32EnumAttrCase<"AllReduce", 0, "all_reduce">,
  I32EnumAttrCase<"ReduceScatter", 1, "reduce_scatter">,
  I32EnumAttrCase<"AllGather", 2, "all_gather">,
  I32EnumAttrCase<"AllToAll", 3, "all_to_all">
]>;

// The reduction vocabulary of the upstream `shard` dialect (ReductionKind),
// plus `none` for collectives that do not reduce (all-gather, all-to-all).
def Workload_ReductionKind : Workload_Enum<"ReductionKind", "reduction kind", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"None", 1, "none">,
  I32EnumAttrCase<"Max", 2, "max">
]>;

// How often a BlockWork happens, so totals are never multiplied by the wrong
// count: once per micro-batch (forward, recompute, backward) or once per
// iteration (the optimizer step and the synchronisation before it) in
// training; once per generation (the prefill of a batch of prompts) or once
// per decode step (one new token per sequence) in inference.
def Workload_Cadence : Workload_Enum<"Cadence", "work cadence", [
  I32EnumAttrCase<"PerMicroBatch", 0, "per_micro_batch">,
  I32EnumAttrCase<"PerIteration", 1, "per_iteration">,
  I32EnumAttrCase<"PerGeneration", 2, "per_generation">,
  I32EnumAttrCase<"PerDecodeStep", 3, "per_decode_step">
]>;

// What a tensor crossing a program's boundary is to the program: inputs
// (activation_in, activation_grad_in, parameter, optimizer_state, and the
// kv_cache an inference program reads and appends to) and outputs
// with the phase that produces them (activation_out by forward work,
// activation_grad_out by activation-gradient work, parameter_grad by
// weight-gradient work).
def Workload_BoundaryRole : Workload_Enum<"BoundaryRole", "boundary role", [
  I32EnumAttrCase<"ActivationIn", 0, "activation_in">,
  I32EnumAttrCase<"ActivationGradIn", 1, "activation_grad_in">,
  I32EnumAttrCase<"Parameter", 2, "parameter">,
  I32EnumAttrCase<"OptimizerState", 3, "optimizer_state">,
  I32EnumAttrCase<"ActivationOut", 4, "activation_out">,
  I32EnumAttrCase<"ActivationGradOut", 5, "activation_grad_out">,
  I32EnumAttrCase<"ParameterGrad", 6, "parameter_grad">,
  I32EnumAttrCase<"KVCache", 7, "kv_cache">
]>;

// What a portable plan task requires of whatever will run it: a capability,
// never an implementation.
def Workload_CapabilityKind : Workload_Enum<"CapabilityKind", "capability", [
  I32EnumAttrCase<"Matmul", 0, "matmul">,
  I32EnumAttrCase<"VectorElementwise", 1, "vector_elementwise">,
  I32EnumAttrCase<"CollectiveAllReduce", 2, "collective_all_reduce">,
  I32EnumAttrCase<"CollectiveReduceScatter", 3, "collective_reduce_scatter">,
  I32EnumAttrCase<"CollectiveAllGather", 4, "collective_all_gather">,
  I32EnumAttrCase<"CollectiveAllToAll", 5, "collective_all_to_all">
]>;

// What a plan buffer holds (seed 004's buffer classes, docs/Memory.md): a
// block-scope plan's `boundary` tensors; in a whole-run plan's stages the
// `persistent` training state, the `stash` (checkpoint) one pass keeps for
// a later pass, a pass's `temporary` working set and the `communication`
// buffers of messages and collectives.
def Workload_BufferKind : Workload_Enum<"BufferKind", "buffer kind", [
  I32EnumAttrCase<"Boundary", 0, "boundary">,
  I32EnumAttrCase<"Persistent", 1, "persistent">,
  I32EnumAttrCase<"Stash", 2, "stash">,
  I32EnumAttrCase<"Temporary", 3, "temporary">,
  I32EnumAttrCase<"Communication", 4, "communication">
]>;

// Why a whole-run buffer exists (docs/Memory.md): each cause belongs to one
// buffer kind (workload::kindOf).
def Workload_BufferCause : Workload_Enum<"BufferCause", "buffer cause", [
  // persistent
  I32EnumAttrCase<"Weights", 0, "weights">,
  I32EnumAttrCase<"Gradients", 1, "gradients">,
  I32EnumAttrCase<"OptimizerState", 2, "optimizer_state">,
  // stash
  I32EnumAttrCase<"BlockActivations", 3, "block_activations">,
  I32EnumAttrCase<"EdgeActivations", 4, "edge_activations">,
  I32EnumAttrCase<"WeightGradInputs", 5, "weight_grad_inputs">,
  I32EnumAttrCase<"KVCache", 6, "kv_cache">,
  // temporary
  I32EnumAttrCase<"WorkingSet", 7, "working_set">,
  // communication
  I32EnumAttrCase<"PipelineSend", 8, "pipeline_send">,
  I32EnumAttrCase<"PipelineReceive", 9, "pipeline_receive">,
  I32EnumAttrCase<"GatheredMessage", 10, "gathered_message">,
  I32EnumAttrCase<"GradientBucket", 11, "gradient_bucket">,
  I32EnumAttrCase<"GatheredParameters", 12, "gathered_parameters">
]>;

def Workload_ConcurrencyKind : Workload_Enum<"ConcurrencyKind",
    "concurrency of a group", [
  I32EnumAttrCase<"Serial", 0, "serial">,
  I32EnumAttrCase<"Parallel", 1, "parallel">
]>;

def Workload_ObjectiveKind : Workload_Enum<"ObjectiveKind", "plan objective", [
  I32EnumAttrCase<"MinimizeStepLatency", 0, "minimize_step_latency">,
  I32EnumAttrCase<"MinimizePeakMemory", 1, "minimize_peak_memory">
]>;

//===----------------------------------------------------------------------===//
// The vocabularies as op properties
//===----------------------------------------------------------------------===//

// `dist` and `pplan` ops hold these enums (and their integer facts) as
// non-attribute properties: the C++ value is stored inline in the op, where
// an enum attribute would be uniqued in the context on every op built and
// checked again by every verification (bench/README.md). An op format
// prints and parses one as its bare keyword (`forward`).
//
// In the generic form (`<{phase = 0 : i32}>`) a property must be given, as
// an i32 case value: its storage starts out of range, so an omitted one
// fails the property's constraint when the op is verified, as does a value
// that is no case.
class Workload_EnumProp<EnumInfo info> : EnumProp<info> {
  let storageTypeValueOverride = "static_cast<" # info.cppType # ">(~0u)";
  let convertFromAttribute = [{
    auto intAttr = ::llvm::dyn_cast_if_present<::mlir::IntegerAttr>($_attr);
    if (!intAttr || !intAttr.getType().isSignlessInteger(32)) {
      if ($_diag)
        $_diag() << "expected an i32 case value of }] # info.summary # [{";
      return ::mlir::failure();
    }
    $_storage = static_cast<}] # info.cppType #
        [{>(intAttr.getValue().getZExtValue());
    return ::mlir::success();
  }];
}

def Workload_PhaseProp : Workload_EnumProp<Workload_Phase>;
def Workload_EngineProp : Workload_EnumProp<Workload_Engine>;
def Workload_CadenceProp : Workload_EnumProp<Workload_Cadence>;
def Workload_ReductionKindProp : Workload_EnumProp<Workload_ReductionKind>;
def Workload_BoundaryRoleProp : Workload_EnumProp<Workload_BoundaryRole>;
def Workload_CapabilityKindProp : Workload_EnumProp<Workload_CapabilityKind>;
def Workload_BufferKindProp : Workload_EnumProp<Workload_BufferKind>;
def Workload_BufferCauseProp : Workload_EnumProp<Workload_BufferCause>;
def Workload_ConcurrencyKindProp : Workload_EnumProp<Workload_ConcurrencyKind>;
def Workload_ObjectiveKindProp : Workload_EnumProp<Workload_ObjectiveKind>;
def Workload_PipelinePassProp : Workload_EnumProp<Workload_PipelinePass>;
def Workload_ModelPartProp : Workload_EnumProp<Workload_ModelPart>;
def Workload_PipelineMessageProp : Workload_EnumProp<Workload_PipelineMessage>;

// An integer fact (an operation or byte count, a participant count): an
// `int64_t` property, an i64 in the generic form. Its storage starts at
// INT64_MIN, which no count can be, so an omitted one fails the constraint
// when the op is verified; the ops' own rules check the sign of the others.
def Workload_I64Prop : IntProp<"int64_t", "64-bit integer (required)"> {
  let storageTypeValueOverride = "std::numeric_limits<int64_t>::min()";
  let predicate = CPred<"$_self != std::numeric_limits<int64_t>::min()">;
  let convertFromAttribute = [{
    auto intAttr = ::llvm::dyn_cast_if_present<::mlir::IntegerAttr>($_attr);
    if (!intAttr || !intAttr.getType().isSignlessInteger(64)) {
      if ($_diag)
        $_diag() << "expected an i64 integer";
      return ::mlir::failure();
    }
    $_storage = intAttr.getInt();
    return ::mlir::success();
  }];
}

#endif // BLUEPRINT_WORKLOAD_ENUMS
