//===- Rows.cpp - What batch and search rows share ------------------------===//

#include "Rows.h"

#include <array>
#include <optional>
#include <utility>

using namespace blueprint;
using namespace blueprint::sweep;

namespace {
/// The timed figures of a run, in row order, each as its JSON number text
/// (times by estimate::formatSeconds), absent without a time.
std::array<std::pair<llvm::StringLiteral, std::optional<std::string>>, 8>
runTimes(const RunFigures &run) {
  auto time = [](std::optional<estimate::Picoseconds> value) {
    return value ? std::optional<std::string>(estimate::formatSeconds(*value))
                 : std::nullopt;
  };
  auto rate = [](std::optional<double> value) {
    return value ? std::optional<std::string>(sweep::printed(*value))
                 : std::nullopt;
  };
  return {
      {{"iteration_seconds", time(run.iterationPicoseconds)},
       {"exposed_communication_seconds",
        time(run.exposedCommunicationPicoseconds)},
       {"model_flops_utilization", rate(run.modelFlopsUtilization)},
       {"hardware_flops_utilization", rate(run.hardwareFlopsUtilization)},
       {"tokens_per_second", rate(run.tokensPerSecond)},
       {"gpu_hours_per_million_tokens", rate(run.gpuHoursPerMillionTokens)},
       {"time_to_first_token_seconds", time(run.timeToFirstTokenPicoseconds)},
       {"time_per_output_token_seconds",
        time(run.timePerOutputTokenPicoseconds)}}};
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
      if (value) {
        json.attributeBegin(key);
        json.rawValue(*value);
        json.attributeEnd();
      }
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
    cells.push_back(run && value ? csvField(*value) : "");
  cells.push_back(run && run->timeUnavailable ? csvField(*run->timeUnavailable)
                                              : "");
}
