//===- ProgramWork.h - All the block work one program holds -----*- C++ -*-===//
//
// A program (`dist.program`, `pplan.plan`) carries the model and mapping
// contracts and one workload contract: training, or inference together with
// the context length of the decode step it holds. These functions derive all
// the block work and boundary tensors such a program holds, once, for the
// pass that builds it and the checks that re-derive it.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_PROGRAMWORK_H
#define BLUEPRINT_WORKLOAD_PROGRAMWORK_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Inference.h"

#include <optional>
#include <string>
#include <vector>

namespace blueprint::workload {

/// Exactly one of `training` and `inference` is set.
struct WorkloadContract {
  std::optional<TrainingSpec> training;
  std::optional<InferenceSpec> inference;
  /// The context length L of the decode step an inference program holds;
  /// absent when the generation has no decode step (generated_tokens = 1).
  std::optional<int64_t> decodeContext;
};

/// The decode step an inference program holds by default: the generation's
/// last, at L = prompt_length + generated_tokens - 1, the largest cache;
/// none if generated_tokens = 1. Fails if L overflows int64_t (only a
/// contract that breaks decoder_inference_c8 can make it).
llvm::Expected<std::optional<int64_t>>
defaultDecodeContext(const InferenceSpec &inference);

/// Why `decodeContext` does not fit `inference`'s generation, if it does
/// not: a decode step exists exactly when generated_tokens > 1, at a context
/// length in [prompt_length + 1, prompt_length + generated_tokens - 1].
std::optional<std::string>
decodeContextViolation(const InferenceSpec &inference,
                       std::optional<int64_t> decodeContext);

/// The broken rules of a program's run (checkTrainingRun or
/// checkInferenceRun); a program without a workload contract has none here
/// (decodeContextViolation and the program verifiers report that).
RunViolations checkProgramRun(const ModelSpec &model,
                              const MappingSpec &mapping,
                              const WorkloadContract &workload);

/// All the block work of a program: for training the per-micro-batch and
/// the per-iteration work; for inference the prefill and, if any, the decode
/// step at decodeContext.
llvm::Expected<std::vector<BlockWork>>
deriveProgramWork(const ModelSpec &model, const MappingSpec &mapping,
                  const WorkloadContract &workload);

/// The boundary tensors of a program (blockBoundaries or
/// inferenceBoundaries).
llvm::Expected<std::vector<BoundaryTensor>>
programBoundaries(const ModelSpec &model, const MappingSpec &mapping,
                  const WorkloadContract &workload);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_PROGRAMWORK_H
