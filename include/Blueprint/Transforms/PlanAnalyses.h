//===- PlanAnalyses.h - Memory and time of a whole-run plan -----*- C++ -*-===//
//
// What `--memory-report` and `--critical-path` read off a whole-run
// `pplan.plan` (docs/Memory.md): its stages' buffers with their lifetimes,
// swept by workload::analyzeMemory, and its dependency graph with every
// step's estimated time, walked by analysis::longestPath. The plain path
// (workload::deriveBuffers, analysis::runGraphOf) builds the same
// structures from a WholeRun without IR; tests prove both agree.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_TRANSFORMS_PLANANALYSES_H
#define BLUEPRINT_TRANSFORMS_PLANANALYSES_H

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Workload/Lifetimes.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace blueprint {

/// The buffers of every stage of a whole-run plan, by stage index, at the
/// positions of the stage's ops (its buffers not counted). Fails, naming the
/// buffer, if a stage buffer has no cause or lifetime (a plan the verifier
/// rejects).
llvm::Expected<std::vector<workload::StageBuffers>>
stageBuffersOf(pplan::PlanOp plan);

/// The peak of every stage of a whole-run plan: an MLIR analysis, computed
/// once per plan and kept while the plan is unchanged.
class PlanMemoryAnalysis {
public:
  explicit PlanMemoryAnalysis(mlir::Operation *plan);

  /// Set when the plan's buffers could not be read or swept.
  const std::optional<std::string> &error() const { return failure; }
  const std::vector<workload::StageBuffers> &buffers() const {
    return stageBuffers;
  }
  const std::vector<workload::StageMemory> &memory() const {
    return stageMemory;
  }

private:
  std::vector<workload::StageBuffers> stageBuffers;
  std::vector<workload::StageMemory> stageMemory;
  std::optional<std::string> failure;
};

/// The dependency graph of a whole-run plan (its stages by index) with
/// every step's time under
/// `profile` and `binding`: an instance lasts its template's estimated
/// tasks times its repetitions, a stage-level task its estimate over its
/// mesh axis (its group), a send its point-to-point transfer.
llvm::Expected<analysis::RunGraph>
planGraphOf(pplan::PlanOp plan, const estimate::SystemProfile &profile,
            const estimate::NetworkTierBinding &binding);

/// What a report pass costs work on: the SystemProfile of `profile=` and
/// the binding of `binding-file=` (a JSON file) or `binding=axis:tier,...`.
struct CostTarget {
  estimate::SystemProfile profile;
  estimate::NetworkTierBinding binding;
};

/// Loads a CostTarget; an error when `profileFile` is empty ("needs
/// profile=..."), a file does not load, or both binding forms are given.
llvm::Expected<CostTarget> loadCostTarget(llvm::StringRef profileFile,
                                          llvm::ArrayRef<std::string> entries,
                                          llvm::StringRef bindingFile);

} // namespace blueprint

#endif // BLUEPRINT_TRANSFORMS_PLANANALYSES_H
