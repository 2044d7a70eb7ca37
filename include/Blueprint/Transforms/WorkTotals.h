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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/APInt.h"
#include "llvm/Support/JSON.h"

namespace blueprint {

/// The totals of one whole iteration over every rank of a whole-run
/// program: each stage's per-rank totals times its tp x dp x cp ranks, as
/// exact 128-bit counts (a full-scale iteration's operations exceed 64 bits).
struct IterationTotals {
  /// The fields of a WorkTotals, in the order of its JSON keys
  /// (invocations, message_bytes, min_transfer_bytes, ops, read_bytes,
  /// stash_bytes, write_bytes).
  using Row = std::array<llvm::APInt, 7>;
  int64_t ranks = 0;
  std::array<Row, workload::kNumEngines> byEngine;
  Row total;
  llvm::APInt pipelineMessages;
  llvm::APInt pipelineBytes;
};

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
  /// For a whole-run program: the iteration over every rank.
  std::optional<IterationTotals> iteration;
  /// A whole-run inference program: its stages' totals cover the whole
  /// generation, and each states the bytes it wrote to its KV cache per
  /// rank (StageTotals::kvCacheWriteBytes).
  bool inferenceRun = false;
};

/// Sums the work ops nested in `program` (and, for an inference program,
/// derives its whole generation); an overflow is reported on the program
/// and yields failure.
mlir::FailureOr<ProgramTotals> summarizeProgram(mlir::Operation *program);

/// The totals of every program directly in `module` that holds work (a
/// `dist.program`, a `pplan.plan`), in module order: what `--work-summary`
/// reports. An overflow is reported on its program and yields failure.
mlir::FailureOr<std::vector<ProgramTotals>>
summarizePrograms(mlir::ModuleOp module);

/// Writes `--work-summary=format=json`: `{"programs": [...]}` with every
/// program's cadences, stages, iteration and generation (docs/DistSpec.md),
/// keys sorted; the iteration's 128-bit counts are exact JSON integers.
void writeWorkSummaryJSON(llvm::ArrayRef<ProgramTotals> programs,
                          llvm::raw_ostream &os);

/// The per-rank totals of every stage of a whole-run `dist.program`
/// (docs/WholeRun.md), read off the IR: each instance adds its template's
/// work times its repetitions, each stage-level op its own. The same
/// totals as workload::summarizeWholeRun computes without IR; an overflow
/// is reported on the program and yields failure.
mlir::FailureOr<std::vector<workload::StageTotals>>
summarizeStages(mlir::Operation *program);

/// The key of each field of IterationTotals::Row, in order.
std::array<llvm::StringLiteral, 7> totalsFieldNames();

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
