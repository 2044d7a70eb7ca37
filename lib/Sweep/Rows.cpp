//===- Rows.cpp - What batch and search rows share ------------------------===//

#include "Rows.h"

#include <array>
#include <optional>
#include <utility>

using namespace blueprint;
using namespace blueprint::sweep;

namespace {
/// The timed figures of a run, in row order, each absent without a time.
std::array<std::pair<llvm::StringLiteral, std::optional<double>>, 8>
runTimes(const RunFigures &run) {
  return {{{"iteration_seconds", run.iterationSeconds},
           {"exposed_communication_seconds", run.exposedCommunicationSeconds},
           {"model_flops_utilization", run.modelFlopsUtilization},
           {"hardware_flops_utilization", run.hardwareFlopsUtilization},
           {"tokens_per_second", run.tokensPerSecond},
           {"gpu_hours_per_million_tokens", run.gpuHoursPerMillionTokens},
           {"time_to_first_token_seconds", run.timeToFirstTokenSeconds},
           {"time_per_output_token_seconds", run.timePerOutputTokenSeconds}}};
}
} // namespace

std::string sweep::printed(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream(text) << value;
  return text;
}

std::string sweep::csvField(llvm::StringRef text) {
  if (text.find_first_of(",\"\n\r") == llvm::StringRef::npos)
    return text.str();
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string sweep::csvValue(const llvm::json::Value &value) {
  if (std::optional<llvm::StringRef> text = value.getAsString())
    return csvField(*text);
  return csvField(printed(value));
}

void sweep::writeRejectionJSON(llvm::json::OStream &json, llvm::StringRef stage,
                               llvm::ArrayRef<std::string> diagnostics) {
  json.attribute("stage", stage);
  json.attributeArray("diagnostics", [&] {
    for (const std::string &diagnostic : diagnostics)
      json.value(diagnostic);
  });
}

void sweep::writeRunJSON(llvm::json::OStream &json, const RunFigures &run) {
  json.attributeObject("run", [&] {
    json.attribute("peak_bytes", run.peakBytes);
    json.attribute("peak_stage", run.peakStage);
    json.attribute("fits", run.fits);
    json.attribute("margin_bytes", run.marginBytes);
    if (run.timeUnavailable) {
      json.attribute("time_unavailable", *run.timeUnavailable);
      return;
    }
    for (auto [key, value] : runTimes(run))
      if (value)
        json.attribute(key, *value);
  });
}

void sweep::appendRunCSVColumns(std::vector<std::string> &columns) {
  for (const char *column :
       {"run_peak_bytes", "run_peak_stage", "run_fits", "run_margin_bytes"})
    columns.push_back(column);
  for (auto [key, value] : runTimes({}))
    columns.push_back(("run_" + key).str());
  columns.push_back("run_time_unavailable");
}

void sweep::appendRunCSV(std::vector<std::string> &cells,
                         const RunFigures *run) {
  auto cell = [](const llvm::json::Value &value) { return csvValue(value); };
  cells.push_back(run ? cell(run->peakBytes) : "");
  cells.push_back(run ? cell(run->peakStage) : "");
  cells.push_back(run ? (run->fits ? "true" : "false") : "");
  cells.push_back(run ? cell(run->marginBytes) : "");
  for (auto [key, value] : runTimes(run ? *run : RunFigures()))
    cells.push_back(run && value ? cell(*value) : "");
  cells.push_back(run && run->timeUnavailable ? csvField(*run->timeUnavailable)
                                              : "");
}
