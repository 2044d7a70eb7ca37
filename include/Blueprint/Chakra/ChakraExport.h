//===- ChakraExport.h - Chakra execution traces of a whole run --*- C++ -*-===//
//
// The whole-run `dist.program` (docs/WholeRun.md) as MLCommons Chakra
// execution traces, one per rank, in the schema of the vendored
// third_party/chakra/et_def.proto: every work op a rank runs becomes a
// compute or collective node, every pipeline send and receive a
// point-to-point node, and the program's dependencies the nodes' data
// dependencies. docs/Chakra.md maps every field.
//
// The traces are read off the IR, not re-derived: a stage's nodes come from
// its ops and its instances' templates, the figures from each op's work
// facts (figuresOf), so they hold exactly what --work-summary sums.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_CHAKRA_CHAKRAEXPORT_H
#define BLUEPRINT_CHAKRA_CHAKRAEXPORT_H

#include "Blueprint/Dialect/Dist/IR/DistOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace blueprint::chakra {

/// Which ranks get a trace: every rank of the mesh, or one per pipeline
/// stage (the stage's lowest rank; every rank of a stage runs the same
/// sequence on its own shard).
enum class RankSelection { All, OnePerStage };

/// The selection `--ranks` names ("all", "one-per-stage"), if it is one.
std::optional<RankSelection> parseRankSelection(llvm::StringRef text);

/// A process group: its id (the `pg_name` of the collectives over it; 1,
/// 2, ..., since 0 names the default group over every rank) and its ranks
/// in increasing order.
using ProcessGroups = std::map<int64_t, std::vector<int64_t>>;

/// What one export writes besides the traces.
struct ExportSummary {
  /// The ranks that got a trace, in increasing order.
  std::vector<int64_t> ranks;
  /// Every process group a collective of the program runs over, on any
  /// rank of the mesh (not only the selected ones): the ids are the same
  /// whichever ranks are exported.
  ProcessGroups groups;
};

/// Writes the trace of each rank of `selection` through `write` (the rank
/// and the encoded trace: a GlobalMetadata message then one Node per node,
/// each preceded by its size as a varint, as Chakra's encodeMessage writes
/// them), in increasing rank order. Fails, naming the rule, if `program` is
/// not a whole-run program, a figure overflows, or `write` fails.
llvm::Expected<ExportSummary> exportTraces(
    dist::ProgramOp program, RankSelection selection,
    llvm::function_ref<llvm::Error(int64_t rank, llvm::StringRef trace)> write);

/// The process groups as ASTRA-sim's communicator-group configuration
/// (`--comm-group-configuration`): `{"<id>": [rank, ...], ...}`.
std::string processGroupsJSON(const ProcessGroups &groups);

} // namespace blueprint::chakra

#endif // BLUEPRINT_CHAKRA_CHAKRAEXPORT_H
