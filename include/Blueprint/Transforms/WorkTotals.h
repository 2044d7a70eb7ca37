//===- WorkTotals.h - Totals of the work a program holds --------*- C++ -*-===//
//
// The totals `--work-summary` prints, as a library: any program op (a
// `dist.program`, a `pplan.plan`) summed through WorkFactsOpInterface with
// the algebra's checked summarize(). Observers and tools share it.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_TRANSFORMS_WORKTOTALS_H
#define BLUEPRINT_TRANSFORMS_WORKTOTALS_H

#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Inference.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/JSON.h"

namespace blueprint {

/// The totals of one program, per cadence present.
struct ProgramTotals {
  std::string name;
  std::vector<std::pair<workload::Cadence, workload::WorkSummary>> cadences;
  /// For an inference program: the whole generation (the prefill plus every
  /// decode step), in closed form from its contracts.
  std::optional<workload::GenerationWork> generation;
  /// For a whole-run program: each stage's per-rank totals over the
  /// iteration (summarizeStages); `cadences` is then empty.
  std::vector<workload::StageTotals> stages;
};

/// Sums the work ops nested in `program` (and, for an inference program,
/// derives its whole generation); an overflow is reported on the program
/// and yields failure.
mlir::FailureOr<ProgramTotals> summarizeProgram(mlir::Operation *program);

/// The per-rank totals of every stage of a whole-run `dist.program`
/// (docs/WholeRun.md), read off the IR: each instance adds its template's
/// work times its repetitions, each stage-level op its own. The same
/// totals as workload::summarizeWholeRun computes without IR; an overflow
/// is reported on the program and yields failure.
mlir::FailureOr<std::vector<workload::StageTotals>>
summarizeStages(mlir::Operation *program);

/// Streams `{"<cadence>": {"by_engine": {...}, "by_phase": {...},
/// "by_phase_engine": [...], "total": {...}}}` (docs/DistSpec.md), keys in
/// sorted order as a serialized json::Object has them.
void writeJSON(llvm::json::OStream &json, const ProgramTotals &totals);

/// The same as a json::Object, for callers that look values up.
llvm::json::Object toJSON(const ProgramTotals &totals);

/// The JSON object of one set of totals (invocations, ops, read_bytes, ...).
llvm::json::Object toJSON(const workload::WorkTotals &totals);

} // namespace blueprint

#endif // BLUEPRINT_TRANSFORMS_WORKTOTALS_H
