//===- Rules.h - Writing composition rules ----------------------*- C++ -*-===//
//
// Private to BlueprintWorkload: the vocabulary the training rules (Spec.cpp),
// the inference rules (Inference.cpp) and the algebra's own argument checks
// (BlockWork.cpp) state their rules in, and the tensor-parallel divisibility
// rules that every composition with a TP degree shares.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_LIB_WORKLOAD_RULES_H
#define BLUEPRINT_LIB_WORKLOAD_RULES_H

#include "Blueprint/Workload/Spec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <vector>

namespace blueprint::workload::detail {

/// Collects violations; `require(cond, rule, message)` reads like the rule.
class RuleSink {
public:
  void require(bool holds, llvm::StringRef rule, const llvm::Twine &message) {
    if (!holds)
      fail(rule, message);
  }
  /// A broken rule: for a message whose parts cost to build (a std::string
  /// operand of the Twine is built before require() could skip it), test
  /// first and fail only when the rule is broken.
  void fail(llvm::StringRef rule, const llvm::Twine &message) {
    violations.push_back({rule.str(), message.str()});
  }
  /// Rule that a named field is strictly positive.
  void requirePositive(int64_t value, llvm::StringRef field,
                       llvm::StringRef rule) {
    require(value > 0, rule,
            llvm::Twine(field) + " must be positive, got " +
                llvm::Twine(value));
  }
  /// Rule that `divisor` divides `value` (both named); divisor > 0.
  void requireDivides(int64_t value, llvm::StringRef valueName, int64_t divisor,
                      llvm::StringRef divisorName, llvm::StringRef rule) {
    require(divisor > 0 && value % divisor == 0, rule,
            llvm::Twine(valueName) + " = " + llvm::Twine(value) +
                " is not divisible by " + divisorName + " = " +
                llvm::Twine(divisor));
  }
  /// Adds violations found by another check.
  void append(std::vector<RuleViolation> found) {
    llvm::append_range(violations, std::move(found));
  }
  std::vector<RuleViolation> take() { return std::move(violations); }
  bool empty() const { return violations.empty(); }

private:
  std::vector<RuleViolation> violations;
};

/// The labels under which one composition states Megatron's tensor-parallel
/// splits (docs/TransformerSpec.md, docs/Inference.md).
struct TensorParallelRuleLabels {
  llvm::StringRef heads;
  llvm::StringRef kvHeads;
  llvm::StringRef hidden;
  llvm::StringRef ffnHidden;
  /// Empty when the caller's work does not involve the vocabulary (a
  /// block's parameters), so the vocabulary split is not required.
  llvm::StringRef vocab;
};

/// Megatron's tensor parallelism (MLM2019 Sec. 3) splits the attention heads,
/// the key/value heads, the hidden and FFN dimensions and the vocabulary
/// across the TP ranks: `tp` (> 0) divides each, every failure reported under
/// its label in `labels`.
void requireTensorParallelSplits(RuleSink &sink, const ModelSpec &model,
                                 int64_t tp,
                                 const TensorParallelRuleLabels &labels);

/// The context-parallel composition rules every run with a sequence shares
/// (docs/TransformerSpec.md, "Context parallelism"), `context_parallel_c1`,
/// `c2`, `c3` and `c5`; nothing at cp = 1.
void requireContextParallelSplits(RuleSink &sink, const ModelSpec &model,
                                  const MappingSpec &mapping);

/// The expert-parallel composition rules every run shares
/// (docs/TransformerSpec.md, "Expert parallelism"): `expert_parallel_c1`
/// (ep divides dp), `c2` (ep > 1 needs experts), `c3` (ep divides
/// experts) and `c5` (ep > 1 needs cp = 1); nothing at ep = 1.
void requireExpertParallelSplits(RuleSink &sink, const ModelSpec &model,
                                 const MappingSpec &mapping);

} // namespace blueprint::workload::detail

#endif // BLUEPRINT_LIB_WORKLOAD_RULES_H
