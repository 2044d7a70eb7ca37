//===- ProgramWork.cpp - All the block work one program holds -------------===//

#include "Blueprint/Workload/ProgramWork.h"

#include "Blueprint/Workload/Checked.h"

#include "llvm/ADT/Twine.h"

using namespace blueprint::workload;

llvm::Expected<std::optional<int64_t>>
blueprint::workload::defaultDecodeContext(const InferenceSpec &inference) {
  if (inference.generatedTokens <= 1)
    return std::nullopt;
  OverflowGuard guard;
  int64_t tokens = guard.add(inference.promptLength, inference.generatedTokens,
                             "prompt_length + generated_tokens - 1");
  int64_t last = guard.sub(tokens, 1, "prompt_length + generated_tokens - 1");
  if (guard.failed())
    return guard.error("defaultDecodeContext");
  return last;
}

std::optional<std::string> blueprint::workload::decodeContextViolation(
    const InferenceSpec &inference, std::optional<int64_t> decodeContext) {
  llvm::Expected<std::optional<int64_t>> last = defaultDecodeContext(inference);
  if (!last)
    return llvm::toString(last.takeError());
  if (!*last) {
    if (decodeContext)
      return "generated_tokens = 1 has no decode step, but decode_context = " +
             std::to_string(*decodeContext) + " is given";
    return std::nullopt;
  }
  if (!decodeContext)
    return "generated_tokens = " + std::to_string(inference.generatedTokens) +
           " has decode steps: decode_context is required";
  // first <= last, which did not overflow, and generated_tokens > 1.
  int64_t first = inference.promptLength + 1;
  if (*decodeContext < first || *decodeContext > **last)
    return "decode_context = " + std::to_string(*decodeContext) +
           " is not a decode step of this generation (context lengths " +
           std::to_string(first) + " .. " + std::to_string(**last) + ")";
  return std::nullopt;
}

RunViolations
blueprint::workload::checkProgramRun(const ModelSpec &model,
                                     const MappingSpec &mapping,
                                     const WorkloadContract &workload) {
  if (workload.training)
    return checkTrainingRun(model, *workload.training, mapping);
  if (workload.inference)
    return checkInferenceRun(model, *workload.inference, mapping);
  return {};
}

llvm::Expected<std::vector<BlockWork>>
blueprint::workload::deriveProgramWork(const ModelSpec &model,
                                       const MappingSpec &mapping,
                                       const WorkloadContract &workload) {
  std::vector<BlockWork> work;
  auto add = [&](llvm::Expected<BlockWork> block) -> llvm::Error {
    if (!block)
      return block.takeError();
    work.push_back(std::move(*block));
    return llvm::Error::success();
  };
  if (workload.training) {
    if (llvm::Error error =
            add(deriveBlockWork(model, *workload.training, mapping)))
      return std::move(error);
    if (llvm::Error error =
            add(deriveOptimizerWork(model, *workload.training, mapping)))
      return std::move(error);
    return work;
  }
  if (!workload.inference)
    return llvm::createStringError(
        "a program carries a training or an inference contract");
  if (std::optional<std::string> violation = decodeContextViolation(
          *workload.inference, workload.decodeContext))
    return llvm::createStringError(*violation);
  if (llvm::Error error = add(
          deriveInferencePrefill(model, *workload.inference, mapping)))
    return std::move(error);
  if (workload.decodeContext)
    if (llvm::Error error = add(deriveInferenceDecodeStep(
            model, *workload.inference, mapping, *workload.decodeContext)))
      return std::move(error);
  return work;
}

llvm::Expected<std::vector<BoundaryTensor>>
blueprint::workload::programBoundaries(const ModelSpec &model,
                                       const MappingSpec &mapping,
                                       const WorkloadContract &workload) {
  if (workload.training)
    return blockBoundaries(model, *workload.training, mapping);
  if (workload.inference)
    return inferenceBoundaries(model, *workload.inference, mapping);
  return llvm::createStringError(
      "a program carries a training or an inference contract");
}
