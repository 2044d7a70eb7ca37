//===- Batch.cpp - Batch inputs, rows and the parallel run ----------------===//
//
// A batch is a JSON list of specs or a grid over one base spec; either way
// each configuration reaches the pipeline as the spec text the JSON importer
// reads, so a row equals what blueprint-translate | blueprint-opt computes
// for that spec. Rows are formatted by the workers and emitted in index
// order.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Support/JSON.h"
#include "Blueprint/Sweep/Sweep.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace blueprint;
using namespace blueprint::sweep;

llvm::Error sweep::checkTarget(const Target &target) {
  std::vector<std::string> meshAxes;
  for (const estimate::MeshAxis &axis :
       estimate::makeEstimateInput(workload::TrainingSpec(),
                                   workload::MappingSpec())
           .mesh)
    meshAxes.push_back(axis.name);
  // A binding may name cp for every row: the estimate binds it where a row
  // has cp > 1 and ignores it at cp = 1 (docs/Sweep.md); likewise edp and
  // ep, bound at ep > 1 and ignored at ep = 1.
  meshAxes.push_back(workload::kContextParallelAxis.str());
  meshAxes.push_back(workload::kExpertDataParallelAxis.str());
  meshAxes.push_back(workload::kExpertParallelAxis.str());
  for (const auto &[axis, tier] : target.binding.tierOfAxis) {
    if (!llvm::is_contained(meshAxes, axis))
      return llvm::createStringError("binding: '" + axis +
                                     "' is not a mesh axis; expected " +
                                     llvm::join(meshAxes, ", "));
    if (!target.profile.tier(tier))
      return llvm::createStringError(
          "binding: profile '" + target.profile.name +
          "' has no network tier named '" + tier + "'");
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

namespace {

/// A grid axis: the spec field it writes and the JSON kind of its values.
struct GridAxis {
  llvm::StringLiteral name;
  /// "mapping" or "training".
  llvm::StringLiteral contract;
  bool integral;
};

/// In expansion order (the last varies fastest).
constexpr GridAxis kGridAxes[] = {
    {"tp", "mapping", true},         {"cp", "mapping", true},
    {"pp", "mapping", true},         {"dp", "mapping", true},
    {"ep", "mapping", true},         {"micro_batch", "training", true},
    {"recompute", "mapping", false}, {"tp_comm", "mapping", false},
    {"cp_comm", "mapping", false}};

const GridAxis *findGridAxis(llvm::StringRef name) {
  for (const GridAxis &axis : kGridAxes)
    if (axis.name == name)
      return &axis;
  return nullptr;
}

llvm::Error joinedError(llvm::ArrayRef<std::string> errors) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::join(errors, "\n"));
}

} // namespace

llvm::Expected<Grid> Grid::parse(const llvm::json::Value &input) {
  std::vector<std::string> errors;
  const llvm::json::Object *root = input.getAsObject();
  if (!root)
    return joinedError({"$: expected a grid object {\"spec\": ..., "
                        "\"grid\": ...}, got " +
                        printed(input)});
  std::vector<std::string> unknown;
  for (const auto &entry : *root)
    if (entry.first != "spec" && entry.first != "grid")
      unknown.push_back(entry.first.str());
  llvm::sort(unknown);
  for (const std::string &key : unknown)
    errors.push_back("$." + key +
                     ": unknown field; expected one of: spec, grid");

  Grid grid;
  const llvm::json::Object *spec = root->getObject("spec");
  if (!spec)
    errors.push_back(root->get("spec") ? "$.spec: expected a spec object "
                                         "(docs/ImportJSON.md)"
                                       : "$.spec: missing required object");
  const llvm::json::Object *axes = root->getObject("grid");
  if (!axes)
    errors.push_back(root->get("grid")
                         ? "$.grid: expected an object from axis to values"
                         : "$.grid: missing required object");
  if (!spec || !axes)
    return joinedError(errors);

  std::vector<std::string> expected;
  for (const GridAxis &axis : kGridAxes)
    expected.push_back(axis.name.str());
  std::vector<std::string> unknownAxes;
  for (const auto &entry : *axes)
    if (!findGridAxis(entry.first))
      unknownAxes.push_back(entry.first.str());
  llvm::sort(unknownAxes);
  for (const std::string &name : unknownAxes)
    errors.push_back(
        "$.grid." + name +
        ": unknown grid axis; expected one of: " + llvm::join(expected, ", "));

  std::optional<size_t> count = 1;
  for (const GridAxis &axis : kGridAxes) {
    const llvm::json::Value *given = axes->get(axis.name);
    if (!given)
      continue;
    std::string path = ("$.grid." + axis.name).str();
    const llvm::json::Array *values = given->getAsArray();
    if (!values || values->empty()) {
      errors.push_back(path + ": expected a non-empty list of values, got " +
                       printed(*given));
      continue;
    }
    for (auto [position, value] : llvm::enumerate(*values)) {
      bool rightKind = axis.integral ? exactInteger(value).has_value()
                                     : value.getAsString().has_value();
      if (!rightKind)
        errors.push_back(path + "[" + std::to_string(position) +
                         "]: expected " +
                         (axis.integral ? "an integer" : "a string") +
                         ", got " + printed(value));
    }
    const llvm::json::Value *contract = spec->get(axis.contract);
    if (!contract || !contract->getAsObject())
      errors.push_back(("$.spec." + axis.contract +
                        ": expected an object (grid axis '" + axis.name +
                        "' writes into it)")
                           .str());
    if (count)
      count = llvm::checkedMulUnsigned(*count, values->size());
    grid.axisNames.push_back(axis.name.str());
    grid.axisValues.push_back(*values);
  }
  if (!count)
    errors.push_back("$.grid: the number of configurations overflows");
  if (!errors.empty())
    return joinedError(errors);
  grid.base = *spec;
  grid.numConfigurations = *count;
  return grid;
}

std::vector<llvm::json::Value> Grid::point(size_t index) const {
  std::vector<llvm::json::Value> values(axisValues.size(), nullptr);
  for (size_t axis = axisValues.size(); axis-- > 0;) {
    size_t extent = axisValues[axis].size();
    values[axis] = axisValues[axis][index % extent];
    index /= extent;
  }
  return values;
}

llvm::json::Value Grid::spec(size_t index) const {
  llvm::json::Object spec = base;
  for (auto [name, value] : llvm::zip(axisNames, point(index)))
    (*spec.getObject(findGridAxis(name)->contract))[name] = std::move(value);
  return spec;
}

//===----------------------------------------------------------------------===//
// Batch
//===----------------------------------------------------------------------===//

namespace {

/// "line L, column C" of `offset` in `text`.
std::string position(llvm::StringRef text, size_t offset) {
  llvm::StringRef before = text.take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      offset - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1);
  return "line " + std::to_string(line) + ", column " +
         std::to_string(column + 1);
}

/// The [begin, end) offsets of the elements of the JSON array `text`, found
/// by scanning strings, escapes and bracket nesting. The elements themselves
/// are not validated here: each is parsed by the importer.
llvm::Expected<std::vector<std::pair<size_t, size_t>>>
splitList(llvm::StringRef text) {
  auto invalid = [&](size_t offset, const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid JSON at " + position(text, offset) +
                                       ": " + message);
  };
  auto isSpace = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  std::vector<std::pair<size_t, size_t>> elements;
  size_t at = text.find('[') + 1;
  llvm::SmallVector<char> open;
  size_t begin = at;
  bool inString = false;
  for (; at < text.size(); ++at) {
    char c = text[at];
    if (inString) {
      if (c == '\\')
        ++at;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      open.push_back(c);
    } else if (c == ']' || c == '}') {
      if (open.empty() && c == ']')
        break;
      if (open.empty() || open.back() != (c == ']' ? '[' : '{'))
        return invalid(at, "unmatched '" + llvm::Twine(c) + "'");
      open.pop_back();
    } else if (c == ',' && open.empty()) {
      elements.push_back({begin, at});
      begin = at + 1;
    }
  }
  if (at >= text.size())
    return invalid(text.size(), "the list is not closed with ']'");
  llvm::StringRef last = text.slice(begin, at);
  if (!last.trim().empty() || !elements.empty())
    elements.push_back({begin, at});
  for (auto [index, range] : llvm::enumerate(elements))
    if (text.slice(range.first, range.second).trim().empty())
      return invalid(range.first,
                     "element " + llvm::Twine(index) + " of the list is empty");
  for (size_t rest = at + 1; rest < text.size(); ++rest)
    if (!isSpace(text[rest]))
      return invalid(rest, "text after the end of the list");
  return elements;
}

} // namespace

llvm::Expected<Batch> Batch::parse(llvm::StringRef json) {
  Batch batch;
  llvm::StringRef trimmed = json.ltrim();
  if (trimmed.starts_with("[")) {
    llvm::Expected<std::vector<std::pair<size_t, size_t>>> ranges =
        splitList(json);
    if (!ranges)
      return ranges.takeError();
    batch.listText = json.str();
    batch.specRanges = std::move(*ranges);
    return batch;
  }
  llvm::Expected<llvm::json::Value> parsed = parseJSON(json);
  if (!parsed)
    return parsed.takeError();
  if (!parsed->getAsObject())
    return joinedError({"$: expected a JSON list of specs "
                        "(docs/ImportJSON.md) or a grid object {\"spec\": "
                        "..., \"grid\": ...}, got " +
                        printed(*parsed)});
  llvm::Expected<Grid> grid = Grid::parse(*parsed);
  if (!grid)
    return grid.takeError();
  batch.grid = std::move(*grid);
  return batch;
}

size_t Batch::size() const { return grid ? grid->size() : specRanges.size(); }

llvm::ArrayRef<std::string> Batch::axes() const {
  return grid ? grid->axes() : llvm::ArrayRef<std::string>();
}

std::vector<llvm::json::Value> Batch::point(size_t index) const {
  return grid ? grid->point(index) : std::vector<llvm::json::Value>();
}

std::string Batch::specText(size_t index) const {
  if (grid)
    return printed(grid->spec(index));
  auto [begin, end] = specRanges[index];
  return listText.substr(begin, end - begin);
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

namespace {

/// The keys of toJSON(WorkTotals), in CSV column order.
constexpr llvm::StringLiteral kTotalKeys[] = {
    "invocations", "ops",           "read_bytes",
    "write_bytes", "message_bytes", "min_transfer_bytes",
    "stash_bytes"};

/// The stage-serial block times under their row keys.
std::array<std::pair<llvm::StringLiteral, double>, 4>
blockTimes(const estimate::StageSerialTime &block) {
  return {{{"forward", block.forward},
           {"recompute", block.recompute},
           {"backward", block.backward},
           {"combined", block.combined}}};
}

/// The totals of `cadence`, or nullptr if the program has no such work.
const workload::WorkSummary *summaryOf(const ProgramTotals &totals,
                                       workload::Cadence cadence) {
  for (const auto &[present, summary] : totals.cadences)
    if (present == cadence)
      return &summary;
  return nullptr;
}

/// Block times exist for training work, which runs per micro-batch.
bool hasBlockTimes(const Evaluation &evaluation) {
  return evaluation.valid() &&
         summaryOf(evaluation.totals, workload::Cadence::PerMicroBatch);
}

std::string formatJSONRow(size_t index, llvm::ArrayRef<std::string> axes,
                          llvm::ArrayRef<llvm::json::Value> point,
                          const Evaluation &evaluation) {
  std::string row;
  llvm::raw_string_ostream os(row);
  // A string stream is unbuffered: the JSON writer's character-by-character
  // output would each be a call that grows the string.
  os.SetBuffered();
  llvm::json::OStream json(os);
  json.object([&] {
    json.attribute("index", static_cast<int64_t>(index));
    json.attribute("name", evaluation.program);
    if (!axes.empty())
      json.attributeObject("point", [&] {
        for (auto [axis, value] : llvm::zip(axes, point))
          json.attribute(axis, value);
      });
    json.attribute("valid", evaluation.valid());
    if (!evaluation.valid()) {
      writeRejectionJSON(json, stringifyStage(*evaluation.rejectedAt),
                         evaluation.diagnostics);
      return;
    }
    json.attributeBegin("totals");
    writeJSON(json, evaluation.totals);
    json.attributeEnd();
    json.attributeObject("cadence_seconds", [&] {
      for (const auto &entry : evaluation.totals.cadences)
        json.attribute(
            workload::stringifyEnum(entry.first),
            evaluation.cadenceSeconds[static_cast<size_t>(entry.first)]);
    });
    if (hasBlockTimes(evaluation))
      json.attributeObject("block_seconds", [&] {
        for (auto [key, seconds] : blockTimes(evaluation.block))
          json.attribute(key, seconds);
      });
    writeRunJSON(json, evaluation.run);
  });
  os.flush();
  return row;
}

std::string formatCSVRow(size_t index, llvm::ArrayRef<llvm::json::Value> point,
                         const Evaluation &evaluation) {
  std::vector<std::string> cells = {std::to_string(index),
                                    csvField(evaluation.program)};
  for (const llvm::json::Value &value : point)
    cells.push_back(csvValue(value));
  cells.push_back(evaluation.valid() ? "true" : "false");
  cells.push_back(
      evaluation.valid() ? "" : stringifyStage(*evaluation.rejectedAt).str());
  cells.push_back(csvField(llvm::join(evaluation.diagnostics, "; ")));
  for (workload::Cadence cadence : workload::allCadences()) {
    const workload::WorkSummary *summary =
        summaryOf(evaluation.totals, cadence);
    std::optional<llvm::json::Object> totals;
    if (summary)
      totals = toJSON(summary->total());
    for (llvm::StringLiteral key : kTotalKeys)
      cells.push_back(totals ? csvValue(*totals->get(key)) : "");
    cells.push_back(
        summary
            ? csvValue(evaluation.cadenceSeconds[static_cast<size_t>(cadence)])
            : "");
  }
  bool blockTimesPresent = hasBlockTimes(evaluation);
  for (auto [key, seconds] : blockTimes(evaluation.block))
    cells.push_back(blockTimesPresent ? csvValue(seconds) : "");
  appendRunCSV(cells, evaluation.valid() ? &evaluation.run : nullptr);
  return llvm::join(cells, ",");
}

} // namespace

std::string sweep::csvHeader(llvm::ArrayRef<std::string> axes) {
  std::vector<std::string> columns = {"index", "name"};
  columns.insert(columns.end(), axes.begin(), axes.end());
  for (const char *column : {"valid", "stage", "diagnostics"})
    columns.push_back(column);
  for (workload::Cadence cadence : workload::allCadences()) {
    for (llvm::StringLiteral key : kTotalKeys)
      columns.push_back((workload::stringifyEnum(cadence) + "_" + key).str());
    columns.push_back((workload::stringifyEnum(cadence) + "_seconds").str());
  }
  for (auto [key, seconds] : blockTimes({}))
    columns.push_back(("block_" + key + "_seconds").str());
  appendRunCSVColumns(columns);
  return llvm::join(columns, ",");
}

std::string sweep::formatRow(RowFormat format, size_t index,
                             llvm::ArrayRef<std::string> axes,
                             llvm::ArrayRef<llvm::json::Value> point,
                             const Evaluation &evaluation) {
  if (format == RowFormat::CSV)
    return formatCSVRow(index, point, evaluation);
  return formatJSONRow(index, axes, point, evaluation);
}

//===----------------------------------------------------------------------===//
// The parallel run
//===----------------------------------------------------------------------===//

void sweep::runBatch(const Batch &batch, const Target &target, unsigned threads,
                     RowFormat format,
                     llvm::function_ref<void(llvm::StringRef row)> emit) {
  // More workers than configurations or than a few per core only cost
  // threads and evaluators.
  threads = std::clamp<unsigned>(
      threads, 1u,
      std::max<unsigned>(
          1u, std::min<size_t>(batch.size(),
                               4 * std::max(1u, std::thread::hardware_concurrency()))));
  // The pool outlives the context that shares it with mlir::parallelFor.
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
  mlir::MLIRContext driver(mlir::MLIRContext::Threading::DISABLED);
  if (threads > 1)
    driver.setThreadPool(pool);
  std::vector<std::unique_ptr<Evaluator>> evaluators(threads);

  // A chunk is evaluated in parallel, then its rows are emitted in order:
  // only one chunk of rows is ever held.
  const size_t chunkSize = 256 * static_cast<size_t>(threads);
  std::vector<std::string> rows;
  for (size_t begin = 0; begin < batch.size(); begin += chunkSize) {
    size_t end = std::min(batch.size(), begin + chunkSize);
    rows.assign(end - begin, std::string());
    std::atomic<size_t> next(begin);
    mlir::parallelFor(&driver, 0, threads, [&](size_t worker) {
      if (!evaluators[worker])
        evaluators[worker] = std::make_unique<Evaluator>(target);
      for (size_t index = next++; index < end; index = next++) {
        // One source label for all: a label per configuration would unique
        // a new location (and every lineage location built on it) per
        // configuration. Rows carry the index instead.
        Evaluation evaluation =
            evaluators[worker]->evaluateSpec(batch.specText(index), "batch");
        rows[index - begin] = formatRow(format, index, batch.axes(),
                                        batch.point(index), evaluation);
      }
    });
    for (const std::string &row : rows)
      emit(row);
  }
}
