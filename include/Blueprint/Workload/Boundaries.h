//===- Boundaries.h - The tensors crossing a block's boundary ---*- C++ -*-===//
//
// The logical tensors a decoder block's derived work exchanges with the rest
// of the run: its input activation and incoming gradient, its parameters and
// optimizer state (inputs), its output activation, outgoing gradient and
// parameter gradients (outputs). Names are those the work algebra reads and
// writes (docs/WorkAlgebra.md); shapes are global (unsharded).
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_BOUNDARIES_H
#define BLUEPRINT_WORKLOAD_BOUNDARIES_H

#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/Spec.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// The phase whose work produces a boundary output of `role`
/// (activation_out: forward, activation_grad_out: activation_grad,
/// parameter_grad: weight_grad); std::nullopt for an input role.
std::optional<Phase> producingPhase(BoundaryRole role);

struct BoundaryTensor {
  std::string name;
  BoundaryRole role = BoundaryRole::ActivationIn;
  /// Global shape, outermost first; activations are [b, s, h].
  std::vector<int64_t> shape;
  DataType type = DataType::BF16;
  /// The dimension split over the tensor-parallel ranks, if any.
  std::optional<unsigned> tpSplitDim;
  /// The dimension split over the context-parallel ranks: a training
  /// activation's sequence at cp > 1 (each cp rank holds its s / cp
  /// load-balanced tokens), outside the tensor-parallel split when both
  /// split it (sequence parallelism).
  std::optional<unsigned> cpSplitDim = std::nullopt;

  bool isOutput() const { return producingPhase(role).has_value(); }
};

/// Bytes one rank holds of a tensor of `shape` with `elementBytes`-byte
/// elements split into `shards` equal shards: product(shape) x elementBytes
/// / shards. Fails, naming `what`, if the product overflows int64_t, if
/// `shards` is not positive or does not divide it.
llvm::Expected<int64_t> shardBytes(llvm::ArrayRef<int64_t> shape,
                                   int64_t elementBytes, int64_t shards,
                                   llvm::StringRef what);

/// Bytes one rank holds of `tensor` (split over `tp` ranks along its
/// tpSplitDim and over `cp` ranks along its cpSplitDim, replicated
/// otherwise): the size of its per-rank buffer.
llvm::Expected<int64_t> bytesPerRank(const BoundaryTensor &tensor, int64_t tp,
                                     int64_t cp = 1);

/// The boundary tensors of one block for one micro-batch under `mapping`.
/// Fails if the contracts do not compose or a size overflows.
llvm::Expected<std::vector<BoundaryTensor>>
blockBoundaries(const ModelSpec &model, const TrainingSpec &training,
                const MappingSpec &mapping);

/// The boundary tensors of one block of an inference program: its
/// parameters and its KV cache (role kv_cache) at the end of the
/// generation, [batch / dp, positions, columns] with positions
/// prompt_length + generated_tokens - 1 (the window's under a sliding
/// window): `k_cache` and `v_cache` of kv_heads x head_dim columns split over
/// the TP ranks along the heads, or under multi-head latent attention one
/// `kv_cache` of kv_lora_rank + qk_rope_head_dim columns replicated on every
/// TP rank.
llvm::Expected<std::vector<BoundaryTensor>>
inferenceBoundaries(const ModelSpec &model, const InferenceSpec &inference,
                    const MappingSpec &mapping);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_BOUNDARIES_H
