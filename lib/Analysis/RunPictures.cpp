//===- RunPictures.cpp - A whole run's time and memory as SVG -------------===//
//
// Hand-written SVG. Every coordinate goes through formatPixels (two decimals,
// trailing zeros dropped, no negative zero) and every number in text through
// a fixed printf format, so the output is byte-identical across compilers.
// Tick steps are found by repeated multiplication by ten, not by log/pow;
// the search scatter's log axes likewise place values from a table of cell
// edges (10^(i/40)), not by log10.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/RunPictures.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace blueprint;
using namespace blueprint::analysis;

namespace {

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

std::string escapeXML(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      // Control characters other than tab and newline are not XML 1.0.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
        out += ' ';
      else
        out += c;
    }
  }
  return out;
}

/// A pixel coordinate: two decimals, trailing zeros dropped.
std::string formatPixels(double value) {
  if (value > -0.005 && value < 0.005)
    return "0";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.2f", value);
  while (!text.empty() && text.back() == '0')
    text.pop_back();
  if (!text.empty() && text.back() == '.')
    text.pop_back();
  return text;
}

std::string formatFixed(double value, int decimals) {
  if (value > -0.5e-9 && value < 0.5e-9)
    value = 0;
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.*f", decimals, value);
  return text;
}

/// 1, 2 or 5 times a power of ten, at least `raw` (> 0).
double niceStep(double raw) {
  if (!(raw > 0))
    return 1;
  double base = 1;
  while (base * 10 <= raw)
    base *= 10;
  while (base > raw)
    base /= 10;
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (base * factor >= raw * (1 - 1e-9))
      return base * factor;
  return base * 10;
}

/// The decimals a tick label needs for a step of `step`.
int decimalsOf(double step) {
  int decimals = 0;
  double scaled = step;
  while (scaled < 0.999999 && decimals < 9) {
    scaled *= 10;
    ++decimals;
  }
  return decimals;
}

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = kKiB * 1024;
constexpr int64_t kGiB = kMiB * 1024;
constexpr int64_t kTiB = kGiB * 1024;

struct BinaryUnit {
  double scale;
  const char *name;
};

BinaryUnit binaryUnitOf(int64_t bytes) {
  if (bytes >= kTiB)
    return {static_cast<double>(kTiB), "TiB"};
  if (bytes >= kGiB)
    return {static_cast<double>(kGiB), "GiB"};
  if (bytes >= kMiB)
    return {static_cast<double>(kMiB), "MiB"};
  if (bytes >= kKiB)
    return {static_cast<double>(kKiB), "KiB"};
  return {1, "B"};
}

/// "1.18 MiB", "512 B".
std::string formatBinary(int64_t bytes) {
  BinaryUnit unit = binaryUnitOf(bytes);
  if (unit.scale == 1)
    return std::to_string(bytes) + " B";
  return formatFixed(static_cast<double>(bytes) / unit.scale, 2) + " " +
         unit.name;
}

/// Writes an SVG header of `width` x `height` with a white background.
void beginSVG(llvm::raw_ostream &os, double width, double height,
              llvm::StringRef title) {
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << formatPixels(width) << "\" height=\"" << formatPixels(height)
     << "\" viewBox=\"0 0 " << formatPixels(width) << " "
     << formatPixels(height)
     << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  os << "<title>" << escapeXML(title) << "</title>\n";
  os << "<rect class=\"background\" x=\"0\" y=\"0\" width=\""
     << formatPixels(width) << "\" height=\"" << formatPixels(height)
     << "\" fill=\"#ffffff\"/>\n";
}

void legendEntry(llvm::raw_ostream &os, double x, double y,
                 llvm::StringRef colour, llvm::StringRef label) {
  os << "<rect class=\"legend\" x=\"" << formatPixels(x) << "\" y=\""
     << formatPixels(y - 10) << "\" width=\"14\" height=\"12\" fill=\""
     << colour << "\" stroke=\"#333333\" stroke-width=\"0.5\"/>\n";
  os << "<text x=\"" << formatPixels(x + 19) << "\" y=\"" << formatPixels(y)
     << "\">" << escapeXML(label) << "</text>\n";
}

//===----------------------------------------------------------------------===//
// Timeline
//===----------------------------------------------------------------------===//

/// What a timeline rect shows, in legend order.
enum class Category {
  Forward,
  Backward,
  InputGrad,
  WeightGrad,
  StageWork,
  Collective,
  Prefill,
  Decode,
};
constexpr size_t kNumCategories = 8;

struct CategoryStyle {
  const char *label;
  const char *fill;
};

constexpr std::array<CategoryStyle, kNumCategories> kCategoryStyles = {{
    {"forward", "#4e79a7"},
    {"backward", "#f28e2b"},
    {"input_grad", "#e15759"},
    {"weight_grad", "#76b7b2"},
    {"step / stage work", "#59a14f"},
    {"collective", "#b07aa1"},
    {"prefill", "#edc948"},
    {"decode", "#9c755f"},
}};

const CategoryStyle &styleOf(Category category) {
  return kCategoryStyles[static_cast<size_t>(category)];
}

Category categoryOf(const GraphStep &step) {
  if (step.kind == StepKind::Collective)
    return Category::Collective;
  if (step.kind == StepKind::StageWork)
    return Category::StageWork;
  switch (step.pass) {
  case workload::PipelinePass::Forward:
    return Category::Forward;
  case workload::PipelinePass::Backward:
    return Category::Backward;
  case workload::PipelinePass::InputGrad:
    return Category::InputGrad;
  case workload::PipelinePass::WeightGrad:
    return Category::WeightGrad;
  case workload::PipelinePass::Step:
    return Category::StageWork;
  case workload::PipelinePass::Prefill:
    return Category::Prefill;
  case workload::PipelinePass::Decode:
    return Category::Decode;
  }
  return Category::StageWork;
}

/// Above this many steps a stage's rects carry no micro-batch numbers.
constexpr size_t kMaxLabelledSteps = 2000;

constexpr double kTimelineLeft = 80;
constexpr double kTimelinePlotWidth = 1000;
constexpr double kTimelineRight = 300;
constexpr double kTimelineTop = 64;
constexpr double kRowHeight = 30;
constexpr double kRowGap = 14;
constexpr double kLegendColumn = 150;

/// One message: a send and the receive of its channel.
struct Message {
  int64_t channel;
  size_t fromStage;
  size_t fromStep;
  size_t toStage;
  size_t toStep;
};

std::vector<Message> pairMessages(const RunGraph &graph) {
  // Sends and receives of each channel in (stage, step) order.
  std::map<int64_t, std::vector<std::pair<size_t, size_t>>> sends, receives;
  for (auto [stageIndex, stage] : llvm::enumerate(graph.stages)) {
    for (auto [stepIndex, step] : llvm::enumerate(stage)) {
      if (!step.channel)
        continue;
      if (step.kind == StepKind::Send)
        sends[*step.channel].push_back({stageIndex, stepIndex});
      else if (step.kind == StepKind::Receive)
        receives[*step.channel].push_back({stageIndex, stepIndex});
    }
  }
  std::vector<Message> messages;
  for (const auto &[channel, channelSends] : sends) {
    auto found = receives.find(channel);
    if (found == receives.end())
      continue;
    size_t count = std::min(channelSends.size(), found->second.size());
    for (size_t i = 0; i < count; ++i)
      messages.push_back({channel, channelSends[i].first,
                          channelSends[i].second, found->second[i].first,
                          found->second[i].second});
  }
  return messages;
}

const StepTiming *timingOf(const CriticalPathReport &report, size_t stage,
                           size_t step) {
  if (stage >= report.timing.size() || step >= report.timing[stage].size())
    return nullptr;
  return &report.timing[stage][step];
}

} // namespace

void analysis::writeTimelineSVG(const RunGraph &graph,
                                const CriticalPathReport &report,
                                llvm::StringRef title, llvm::raw_ostream &os) {
  size_t numStages = graph.stages.size();

  // The time axis spans the iteration (or the last end, if later).
  // Geometry in binary64 seconds; the labels print the exact times.
  estimate::Picoseconds last = report.iterationPicoseconds;
  for (const auto &stage : report.timing)
    for (const StepTiming &timing : stage)
      last = std::max(last, timing.end);
  double span = estimate::secondsOf(last);
  if (!(span > 0))
    span = 1e-3;
  double spanMs = span * 1e3;
  double tickStep = niceStep(spanMs / 10);
  int tickDecimals = decimalsOf(tickStep);
  double pixelsPerSecond = kTimelinePlotWidth / span;
  auto xOf = [&](double seconds) {
    return kTimelineLeft + seconds * pixelsPerSecond;
  };
  auto rowTop = [&](size_t stage) {
    return kTimelineTop + static_cast<double>(stage) * (kRowHeight + kRowGap);
  };

  // Which steps and transfers lie on the critical path.
  std::vector<std::vector<bool>> criticalStep(numStages),
      criticalTransfer(numStages);
  for (size_t stage = 0; stage < numStages; ++stage) {
    criticalStep[stage].assign(graph.stages[stage].size(), false);
    criticalTransfer[stage].assign(graph.stages[stage].size(), false);
  }
  for (const PathSegment &segment : report.path) {
    if (segment.stage < 0 || static_cast<size_t>(segment.stage) >= numStages)
      continue;
    auto stage = static_cast<size_t>(segment.stage);
    if (segment.step >= graph.stages[stage].size())
      continue;
    (segment.transfer ? criticalTransfer : criticalStep)[stage][segment.step] =
        true;
    // A blocking send holds its transfer itself (docs/Estimate.md,
    // "Overlap"): on the path, its message is.
    if (graph.stages[stage][segment.step].kind == StepKind::Send &&
        segment.end > segment.start)
      criticalTransfer[stage][segment.step] = true;
  }

  // Which categories occur (prefill and decode are listed only then).
  std::array<bool, kNumCategories> present{};
  for (const auto &stage : graph.stages)
    for (const GraphStep &step : stage)
      present[static_cast<size_t>(categoryOf(step))] = true;
  std::vector<Category> legend = {Category::Forward,   Category::Backward,
                                  Category::InputGrad, Category::WeightGrad,
                                  Category::StageWork, Category::Collective};
  for (Category category : {Category::Prefill, Category::Decode})
    if (present[static_cast<size_t>(category)])
      legend.push_back(category);

  double plotBottom =
      numStages == 0 ? kTimelineTop : rowTop(numStages) - kRowGap;
  double axisY = plotBottom + 6;
  double legendY = axisY + 48;
  size_t legendEntries = legend.size() + 3;
  double width = kTimelineLeft + kTimelinePlotWidth + kTimelineRight;
  size_t perLine = static_cast<size_t>(
      (kTimelinePlotWidth + kTimelineRight / 2) / kLegendColumn);
  size_t legendLines = (legendEntries + perLine - 1) / perLine;
  double height = legendY + static_cast<double>(legendLines) * 20 + 8;

  beginSVG(os, width, height, title);
  os << "<defs>\n"
        "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
        "markerUnits=\"userSpaceOnUse\" markerWidth=\"8\" markerHeight=\"8\" "
        "orient=\"auto\">"
        "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555555\"/></marker>\n"
        "<marker id=\"arrow-critical\" viewBox=\"0 0 10 10\" refX=\"10\" "
        "refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"10\" "
        "markerHeight=\"10\" orient=\"auto\">"
        "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#d62728\"/></marker>\n"
        "</defs>\n";

  // Header.
  os << "<text x=\"" << formatPixels(kTimelineLeft)
     << "\" y=\"22\" font-size=\"16\" font-weight=\"bold\">" << escapeXML(title)
     << "</text>\n";
  os << "<text x=\"" << formatPixels(kTimelineLeft) << "\" y=\"42\">iteration "
     << estimate::formatMilliseconds(report.iterationPicoseconds, 3)
     << " ms, exposed communication "
     << estimate::formatMilliseconds(report.exposedCommunicationPicoseconds, 3)
     << " ms</text>\n";

  // Grid lines and the time axis.
  os << "<g class=\"axis\" stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (size_t i = 0;; ++i) {
    double tickMs = static_cast<double>(i) * tickStep;
    if (tickMs > spanMs * (1 + 1e-9))
      break;
    double x = xOf(tickMs / 1e3);
    os << "<line x1=\"" << formatPixels(x) << "\" y1=\""
       << formatPixels(kTimelineTop - 4) << "\" x2=\"" << formatPixels(x)
       << "\" y2=\"" << formatPixels(axisY + 4) << "\"/>\n";
  }
  os << "</g>\n";
  os << "<line x1=\"" << formatPixels(kTimelineLeft) << "\" y1=\""
     << formatPixels(axisY) << "\" x2=\""
     << formatPixels(kTimelineLeft + kTimelinePlotWidth) << "\" y2=\""
     << formatPixels(axisY) << "\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
  os << "<g class=\"ticks\" text-anchor=\"middle\">\n";
  for (size_t i = 0;; ++i) {
    double tickMs = static_cast<double>(i) * tickStep;
    if (tickMs > spanMs * (1 + 1e-9))
      break;
    os << "<text x=\"" << formatPixels(xOf(tickMs / 1e3)) << "\" y=\""
       << formatPixels(axisY + 16) << "\">" << formatFixed(tickMs, tickDecimals)
       << "</text>\n";
  }
  os << "</g>\n";
  os << "<text x=\"" << formatPixels(kTimelineLeft + kTimelinePlotWidth / 2)
     << "\" y=\"" << formatPixels(axisY + 32)
     << "\" text-anchor=\"middle\">time (ms)</text>\n";

  // Rows and steps.
  for (size_t stage = 0; stage < numStages; ++stage) {
    const std::vector<GraphStep> &steps = graph.stages[stage];
    double top = rowTop(stage);
    os << "<g class=\"stage\" id=\"stage-" << stage << "\">\n";
    os << "<rect class=\"row\" x=\"" << formatPixels(kTimelineLeft) << "\" y=\""
       << formatPixels(top) << "\" width=\"" << formatPixels(kTimelinePlotWidth)
       << "\" height=\"" << formatPixels(kRowHeight)
       << "\" fill=\"#f4f4f4\"/>\n";
    os << "<text x=\"8\" y=\"" << formatPixels(top + kRowHeight / 2 + 4)
       << "\">stage " << stage << "</text>\n";
    if (stage < report.stages.size()) {
      const StageTime &time = report.stages[stage];
      os << "<text x=\"" << formatPixels(kTimelineLeft + kTimelinePlotWidth + 8)
         << "\" y=\"" << formatPixels(top + kRowHeight / 2 + 4)
         << "\" font-size=\"11\">busy "
         << estimate::formatMilliseconds(
                time.computePicoseconds + time.collectivePicoseconds, 3)
         << " ms, bubble "
         << estimate::formatMilliseconds(time.bubblePicoseconds, 3)
         << " ms</text>\n";
    }
    bool numbered = steps.size() <= kMaxLabelledSteps;
    for (auto [stepIndex, step] : llvm::enumerate(steps)) {
      if (step.kind == StepKind::Send || step.kind == StepKind::Receive)
        continue;
      const StepTiming *timing = timingOf(report, stage, stepIndex);
      if (!timing || !(timing->end > timing->start))
        continue;
      double x = xOf(estimate::secondsOf(timing->start));
      double w =
          estimate::secondsOf(timing->end - timing->start) * pixelsPerSecond;
      bool critical = criticalStep[stage][stepIndex];
      const CategoryStyle &style = styleOf(categoryOf(step));
      os << "<rect class=\"step" << (critical ? " critical" : "") << "\" x=\""
         << formatPixels(x) << "\" y=\"" << formatPixels(top + 2)
         << "\" width=\"" << formatPixels(w) << "\" height=\""
         << formatPixels(kRowHeight - 4) << "\" fill=\"" << style.fill << "\"";
      // A thick outline would hide a narrow step.
      if (critical)
        os << " stroke=\"#111111\" stroke-width=\"" << (w < 6 ? "1" : "2.5")
           << "\"";
      else
        os << " stroke=\"#ffffff\" stroke-width=\"0.5\"";
      os << "><title>" << escapeXML(step.label) << "\n"
         << estimate::formatMilliseconds(timing->start, 3) << " ms to "
         << estimate::formatMilliseconds(timing->end, 3) << " ms"
         << (critical ? " (critical path)" : "") << "</title></rect>\n";
      if (numbered && step.microBatch) {
        std::string text = std::to_string(*step.microBatch);
        if (w >= 7.0 * static_cast<double>(text.size()) + 4)
          os << "<text x=\"" << formatPixels(x + w / 2) << "\" y=\""
             << formatPixels(top + kRowHeight / 2 + 4)
             << "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#ffffff\" "
                "pointer-events=\"none\">"
             << text << "</text>\n";
      }
    }
    os << "</g>\n";
  }

  // Messages: ordinary ones first, the critical transfers on top.
  std::vector<Message> messages = pairMessages(graph);
  for (bool criticalPass : {false, true}) {
    for (const Message &message : messages) {
      bool critical = criticalTransfer[message.fromStage][message.fromStep];
      if (critical != criticalPass)
        continue;
      const StepTiming *sent =
          timingOf(report, message.fromStage, message.fromStep);
      const StepTiming *received =
          timingOf(report, message.toStage, message.toStep);
      if (!sent || !received)
        continue;
      // From the sender's edge facing the receiver, where the send starts
      // (a blocking send lasts its transfer), to the receiver's edge facing
      // the sender.
      bool down = message.toStage >= message.fromStage;
      double y1 = rowTop(message.fromStage) + (down ? kRowHeight : 0);
      double y2 = rowTop(message.toStage) + (down ? 0 : kRowHeight);
      if (message.toStage == message.fromStage)
        y2 = rowTop(message.toStage) + kRowHeight / 2;
      const GraphStep &send = graph.stages[message.fromStage][message.fromStep];
      os << "<line class=\"message" << (critical ? " critical" : "")
         << "\" x1=\"" << formatPixels(xOf(estimate::secondsOf(sent->start)))
         << "\" y1=\"" << formatPixels(y1) << "\" x2=\""
         << formatPixels(xOf(estimate::secondsOf(received->end))) << "\" y2=\""
         << formatPixels(y2) << "\" stroke=\""
         << (critical ? "#d62728" : "#555555") << "\" stroke-width=\""
         << (critical ? "2.5" : "1") << "\" marker-end=\"url(#"
         << (critical ? "arrow-critical" : "arrow") << ")\"><title>"
         << escapeXML(send.label) << "\nchannel " << message.channel
         << ": stage " << message.fromStage << " to stage " << message.toStage
         << ", sent " << estimate::formatMilliseconds(sent->start, 3)
         << " ms, transfer "
         << estimate::formatMilliseconds(
                // longestPath rounded it already: it is a duration.
                estimate::picosecondsOf(send.transferSeconds).value_or(0), 3)
         << " ms, received " << estimate::formatMilliseconds(received->end, 3)
         << " ms" << (critical ? " (critical path)" : "")
         << "</title></line>\n";
    }
  }

  // Legend.
  os << "<g class=\"legend\">\n";
  size_t entry = 0;
  auto nextEntry = [&](double &x, double &y) {
    x = kTimelineLeft + static_cast<double>(entry % perLine) * kLegendColumn;
    y = legendY + static_cast<double>(entry / perLine) * 20;
    ++entry;
  };
  for (Category category : legend) {
    double x, y;
    nextEntry(x, y);
    legendEntry(os, x, y, styleOf(category).fill, styleOf(category).label);
  }
  {
    double x, y;
    nextEntry(x, y);
    os << "<rect class=\"legend\" x=\"" << formatPixels(x) << "\" y=\""
       << formatPixels(y - 10)
       << "\" width=\"14\" height=\"12\" fill=\"none\" stroke=\"#111111\" "
          "stroke-width=\"2.5\"/>\n";
    os << "<text x=\"" << formatPixels(x + 19) << "\" y=\"" << formatPixels(y)
       << "\">critical path</text>\n";
  }
  for (bool critical : {false, true}) {
    double x, y;
    nextEntry(x, y);
    os << "<line x1=\"" << formatPixels(x) << "\" y1=\"" << formatPixels(y - 4)
       << "\" x2=\"" << formatPixels(x + 14) << "\" y2=\""
       << formatPixels(y - 4) << "\" stroke=\""
       << (critical ? "#d62728\" stroke-width=\"2.5\" "
                      "marker-end=\"url(#arrow-critical)\"/>\n"
                    : "#555555\" stroke-width=\"1\" "
                      "marker-end=\"url(#arrow)\"/>\n");
    os << "<text x=\"" << formatPixels(x + 19) << "\" y=\"" << formatPixels(y)
       << "\">" << (critical ? "critical transfer" : "message") << "</text>\n";
  }
  os << "</g>\n";
  os << "</svg>\n";
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

namespace {

constexpr double kMemoryLeft = 90;
constexpr double kMemoryPlotWidth = 1000;
constexpr double kMemoryRight = 30;
constexpr double kMemoryTop = 40;
constexpr double kPanelTitle = 40;
constexpr double kPanelPlotHeight = 200;
constexpr double kPanelAxis = 44;
constexpr double kPanelHeight = kPanelTitle + kPanelPlotHeight + kPanelAxis;

/// Kinds in stacking order, bottom first: what lives all run long first.
constexpr std::array<workload::BufferKind, 5> kStackOrder = {
    workload::BufferKind::Persistent, workload::BufferKind::Stash,
    workload::BufferKind::Temporary, workload::BufferKind::Communication,
    workload::BufferKind::Boundary};

const char *fillOf(workload::BufferKind kind) {
  switch (kind) {
  case workload::BufferKind::Persistent:
    return "#4e79a7";
  case workload::BufferKind::Stash:
    return "#f28e2b";
  case workload::BufferKind::Temporary:
    return "#59a14f";
  case workload::BufferKind::Communication:
    return "#b07aa1";
  case workload::BufferKind::Boundary:
    return "#9c755f";
  }
  return "#bab0ac";
}

/// Appends the step-shaped outline of `values` (constant across each
/// position) from left to right, or right to left, as polygon points.
void appendSteps(std::string &points, llvm::ArrayRef<int64_t> values,
                 bool reverse, llvm::function_ref<double(size_t)> xOf,
                 llvm::function_ref<double(int64_t)> yOf) {
  auto add = [&](double x, double y) {
    if (!points.empty())
      points += ' ';
    points += formatPixels(x);
    points += ',';
    points += formatPixels(y);
  };
  size_t n = values.size();
  if (n == 0)
    return;
  if (!reverse) {
    add(xOf(0), yOf(values[0]));
    for (size_t i = 1; i < n; ++i) {
      if (values[i] == values[i - 1])
        continue;
      add(xOf(i), yOf(values[i - 1]));
      add(xOf(i), yOf(values[i]));
    }
    add(xOf(n), yOf(values[n - 1]));
    return;
  }
  add(xOf(n), yOf(values[n - 1]));
  for (size_t i = n - 1; i > 0; --i) {
    if (values[i] == values[i - 1])
      continue;
    add(xOf(i), yOf(values[i]));
    add(xOf(i), yOf(values[i - 1]));
  }
  add(xOf(0), yOf(values[0]));
}

const workload::StageBuffers *
buffersOf(llvm::ArrayRef<workload::StageBuffers> buffers, int64_t stage) {
  for (const workload::StageBuffers &entry : buffers)
    if (entry.stage == stage)
      return &entry;
  return nullptr;
}

void writePanel(const workload::StageMemory &memory,
                const workload::StageBuffers *buffers, double top,
                llvm::raw_ostream &os) {
  size_t positions = memory.liveBytes.size();
  if (buffers)
    positions = std::max(positions, buffers->positions);
  double plotTop = top + kPanelTitle;
  double plotBottom = plotTop + kPanelPlotHeight;

  os << "<g class=\"panel\" id=\"stage-" << memory.stage << "\">\n";
  os << "<text x=\"" << formatPixels(kMemoryLeft) << "\" y=\""
     << formatPixels(top + 16)
     << "\" font-size=\"14\" font-weight=\"bold\">stage " << memory.stage
     << "</text>\n";

  // The y axis: binary-unit ticks up to a round size at or above the peak.
  int64_t maxBytes = memory.peakBytes;
  for (int64_t live : memory.liveBytes)
    maxBytes = std::max(maxBytes, live);
  BinaryUnit unit = binaryUnitOf(std::max<int64_t>(maxBytes, 1));
  double maxUnits = std::max(static_cast<double>(maxBytes) / unit.scale, 1e-9);
  double yStep = niceStep(maxUnits / 5);
  if (unit.scale == 1)
    yStep = std::max(yStep, 1.0);
  size_t yTicks = 1;
  while (static_cast<double>(yTicks) * yStep < maxUnits * (1 - 1e-12))
    ++yTicks;
  double yTop = static_cast<double>(yTicks) * yStep * unit.scale;
  int yDecimals = decimalsOf(yStep);
  auto yOf = [&](int64_t bytes) {
    return plotBottom - static_cast<double>(bytes) / yTop * kPanelPlotHeight;
  };
  double pixelsPerPosition =
      kMemoryPlotWidth / static_cast<double>(std::max<size_t>(positions, 1));
  auto xOf = [&](size_t position) {
    return kMemoryLeft + static_cast<double>(position) * pixelsPerPosition;
  };

  os << "<rect class=\"plot\" x=\"" << formatPixels(kMemoryLeft) << "\" y=\""
     << formatPixels(plotTop) << "\" width=\"" << formatPixels(kMemoryPlotWidth)
     << "\" height=\"" << formatPixels(kPanelPlotHeight)
     << "\" fill=\"#f8f8f8\"/>\n";
  os << "<g class=\"yticks\" text-anchor=\"end\" font-size=\"11\">\n";
  for (size_t i = 0; i <= yTicks; ++i) {
    double units = static_cast<double>(i) * yStep;
    double y = plotBottom - units * unit.scale / yTop * kPanelPlotHeight;
    os << "<line x1=\"" << formatPixels(kMemoryLeft - 4) << "\" y1=\""
       << formatPixels(y) << "\" x2=\""
       << formatPixels(kMemoryLeft + kMemoryPlotWidth) << "\" y2=\""
       << formatPixels(y) << "\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n";
    os << "<text x=\"" << formatPixels(kMemoryLeft - 6) << "\" y=\""
       << formatPixels(y + 4) << "\">";
    if (i == 0)
      os << "0";
    else
      os << formatFixed(units, yDecimals) << " " << unit.name;
    os << "</text>\n";
  }
  os << "</g>\n";

  // The x axis: positions.
  double xStep = std::max(niceStep(static_cast<double>(positions) / 10), 1.0);
  os << "<line x1=\"" << formatPixels(kMemoryLeft) << "\" y1=\""
     << formatPixels(plotBottom) << "\" x2=\""
     << formatPixels(kMemoryLeft + kMemoryPlotWidth) << "\" y2=\""
     << formatPixels(plotBottom)
     << "\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
  os << "<g class=\"xticks\" text-anchor=\"middle\" font-size=\"11\">\n";
  for (size_t i = 0;; ++i) {
    auto position = static_cast<size_t>(static_cast<double>(i) * xStep);
    if (position > positions)
      break;
    os << "<line x1=\"" << formatPixels(xOf(position)) << "\" y1=\""
       << formatPixels(plotBottom) << "\" x2=\"" << formatPixels(xOf(position))
       << "\" y2=\"" << formatPixels(plotBottom + 4)
       << "\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
    os << "<text x=\"" << formatPixels(xOf(position)) << "\" y=\""
       << formatPixels(plotBottom + 16) << "\">" << position << "</text>\n";
  }
  os << "</g>\n";
  os << "<text x=\"" << formatPixels(kMemoryLeft + kMemoryPlotWidth / 2)
     << "\" y=\"" << formatPixels(plotBottom + 32)
     << "\" text-anchor=\"middle\" font-size=\"11\">schedule position</text>\n";

  // Stacked areas by kind.
  size_t n = memory.liveBytes.size();
  bool byKind = memory.liveByKind.size() == n;
  if (byKind && n > 0) {
    std::vector<int64_t> below(n, 0), above(n, 0);
    for (workload::BufferKind kind : kStackOrder) {
      auto k = static_cast<size_t>(kind);
      int64_t largest = 0;
      for (size_t i = 0; i < n; ++i) {
        above[i] = below[i] + memory.liveByKind[i][k];
        largest = std::max(largest, memory.liveByKind[i][k]);
      }
      if (largest > 0) {
        std::string points;
        appendSteps(points, above, /*reverse=*/false, xOf, yOf);
        appendSteps(points, below, /*reverse=*/true, xOf, yOf);
        os << "<polygon class=\"area " << workload::stringifyEnum(kind)
           << "\" points=\"" << points << "\" fill=\"" << fillOf(kind)
           << "\" fill-opacity=\"0.85\"><title>"
           << workload::stringifyEnum(kind) << ": up to " << largest
           << " bytes (" << formatBinary(largest)
           << ") at one position</title></polygon>\n";
      }
      below.swap(above);
    }
  }
  if (n > 0) {
    std::string points;
    appendSteps(points, memory.liveBytes, /*reverse=*/false, xOf, yOf);
    os << "<polyline class=\"total\" points=\"" << points
       << "\" fill=\"none\" stroke=\"#222222\" stroke-width=\"1.2\"/>\n";
  }

  // The peak.
  double peakX = xOf(memory.peakPosition) + pixelsPerPosition / 2;
  double peakY = yOf(memory.peakBytes);
  os << "<line class=\"peak\" x1=\"" << formatPixels(peakX) << "\" y1=\""
     << formatPixels(plotTop) << "\" x2=\"" << formatPixels(peakX) << "\" y2=\""
     << formatPixels(plotBottom)
     << "\" stroke=\"#d62728\" stroke-width=\"1\" "
        "stroke-dasharray=\"4,3\"/>\n";
  os << "<circle class=\"peak\" cx=\"" << formatPixels(peakX) << "\" cy=\""
     << formatPixels(peakY)
     << "\" r=\"4\" fill=\"#d62728\" stroke=\"#ffffff\" stroke-width=\"1\">"
     << "<title>peak " << memory.peakBytes << " bytes at position "
     << memory.peakPosition;
  for (size_t cause = 0; cause < workload::kNumBufferCauses; ++cause) {
    int64_t bytes = memory.peakByCause[cause];
    if (bytes == 0)
      continue;
    os << "\n"
       << workload::stringifyEnum(static_cast<workload::BufferCause>(cause))
       << ": " << bytes << " bytes (" << formatBinary(bytes) << ")";
  }
  if (buffers) {
    // The largest buffers live at the peak, ties in index order.
    std::vector<size_t> live;
    for (size_t index : memory.liveAtPeak)
      if (index < buffers->buffers.size())
        live.push_back(index);
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) {
      int64_t bytesA = buffers->buffers[a].bytes;
      int64_t bytesB = buffers->buffers[b].bytes;
      return bytesA != bytesB ? bytesA > bytesB : a < b;
    });
    constexpr size_t kListed = 8;
    for (size_t i = 0; i < live.size() && i < kListed; ++i) {
      const workload::RunBuffer &buffer = buffers->buffers[live[i]];
      os << "\n"
         << escapeXML(buffer.name) << " ("
         << workload::stringifyEnum(buffer.cause) << "): " << buffer.bytes
         << " bytes";
    }
    if (live.size() > kListed)
      os << "\n... and " << (live.size() - kListed) << " more";
  }
  os << "</title></circle>\n";
  bool rightHalf = peakX > kMemoryLeft + kMemoryPlotWidth / 2;
  os << "<text class=\"peak\" x=\""
     << formatPixels(rightHalf ? peakX - 6 : peakX + 6) << "\" y=\""
     << formatPixels(plotTop - 6) << "\" text-anchor=\""
     << (rightHalf ? "end" : "start") << "\" fill=\"#d62728\">peak "
     << memory.peakBytes << " bytes (" << formatBinary(memory.peakBytes)
     << ") at position " << memory.peakPosition << "</text>\n";
  os << "</g>\n";
}

} // namespace

void analysis::writeMemorySVG(llvm::ArrayRef<workload::StageBuffers> buffers,
                              llvm::ArrayRef<workload::StageMemory> memory,
                              llvm::StringRef title, llvm::raw_ostream &os) {
  // The boundary kind belongs to block-scope plans; list it only if used.
  bool boundary = false;
  for (const workload::StageMemory &stage : memory)
    for (const auto &live : stage.liveByKind)
      boundary |= live[static_cast<size_t>(workload::BufferKind::Boundary)] > 0;

  double width = kMemoryLeft + kMemoryPlotWidth + kMemoryRight;
  double legendY =
      kMemoryTop + static_cast<double>(memory.size()) * kPanelHeight + 16;
  double height = legendY + 20;
  beginSVG(os, width, height, title);
  os << "<text x=\"" << formatPixels(kMemoryLeft)
     << "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" << escapeXML(title)
     << "</text>\n";

  for (auto [index, stage] : llvm::enumerate(memory))
    writePanel(stage, buffersOf(buffers, stage.stage),
               kMemoryTop + static_cast<double>(index) * kPanelHeight, os);

  os << "<g class=\"legend\">\n";
  double x = kMemoryLeft;
  for (workload::BufferKind kind : kStackOrder) {
    if (kind == workload::BufferKind::Boundary && !boundary)
      continue;
    legendEntry(os, x, legendY, fillOf(kind), workload::stringifyEnum(kind));
    x += 140;
  }
  os << "<line x1=\"" << formatPixels(x) << "\" y1=\""
     << formatPixels(legendY - 4) << "\" x2=\"" << formatPixels(x + 14)
     << "\" y2=\"" << formatPixels(legendY - 4)
     << "\" stroke=\"#222222\" stroke-width=\"1.2\"/>\n";
  os << "<text x=\"" << formatPixels(x + 19) << "\" y=\""
     << formatPixels(legendY) << "\">total</text>\n";
  x += 140;
  os << "<circle cx=\"" << formatPixels(x + 7) << "\" cy=\""
     << formatPixels(legendY - 4) << "\" r=\"4\" fill=\"#d62728\"/>\n";
  os << "<text x=\"" << formatPixels(x + 19) << "\" y=\""
     << formatPixels(legendY) << "\">peak</text>\n";
  os << "</g>\n";
  os << "</svg>\n";
}

//===----------------------------------------------------------------------===//
// Search scatter
//===----------------------------------------------------------------------===//

namespace {

/// Both axes of the scatter are cut into this many cells a decade.
constexpr int64_t kCellsPerDecade = 40;

/// 10^(i/40) for i in [0, 40]: the cell edges within a decade, so no cell
/// depends on the libm at hand.
constexpr std::array<double, kCellsPerDecade + 1> kCellEdges = {{
    1.0,
    1.0592537251772889,
    1.1220184543019633,
    1.1885022274370185,
    1.2589254117941673,
    1.333521432163324,
    1.4125375446227544,
    1.4962356560944334,
    1.5848931924611134,
    1.6788040181225603,
    1.7782794100389228,
    1.8836490894898006,
    1.9952623149688795,
    2.113489039836647,
    2.2387211385683394,
    2.371373705661655,
    2.51188643150958,
    2.6607250597988097,
    2.8183829312644537,
    2.9853826189179595,
    3.1622776601683795,
    3.3496543915782766,
    3.5481338923357546,
    3.7583740428844417,
    3.9810717055349727,
    4.216965034285822,
    4.466835921509631,
    4.7315125896148045,
    5.011872336272723,
    5.3088444423098835,
    5.623413251903491,
    5.956621435290105,
    6.3095734448019325,
    6.683439175686146,
    7.0794578438413795,
    7.498942093324558,
    7.943282347242815,
    8.413951416451951,
    8.912509381337456,
    9.440608762859235,
    10.0,
}};

/// 40 log10(2) and 40 log10(5): where the ticks 2 and 5 lie in a decade.
constexpr double kTwoPosition = 12.041199826559248;
constexpr double kFivePosition = 27.958800173440753;

int64_t floorDiv(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if (value % divisor != 0 && value < 0)
    --quotient;
  return quotient;
}

/// 10^decade by repeated multiplication or division by ten.
double powerOfTen(int64_t decade) {
  double power = 1;
  for (int64_t i = 0; i < decade; ++i)
    power *= 10;
  for (int64_t i = 0; i > decade; --i)
    power /= 10;
  return power;
}

/// Where a positive value lies on a log axis of 40 units a decade: the cell
/// it falls in and its position (40 log10 of it, interpolated linearly
/// between the cell's edges).
struct LogPlace {
  int64_t cell;
  double position;
};

LogPlace logPlace(double value) {
  int64_t decade = 0;
  double power = 1;
  while (power * 10 <= value) {
    power *= 10;
    ++decade;
  }
  while (power > value) {
    power /= 10;
    --decade;
  }
  double mantissa = power > 0 ? value / power : kCellEdges.back();
  // The last edge at or below the mantissa, in [0, 39].
  const double *above =
      std::upper_bound(kCellEdges.begin() + 1, kCellEdges.end() - 1, mantissa);
  auto edge = static_cast<int64_t>(above - kCellEdges.begin()) - 1;
  double low = kCellEdges[static_cast<size_t>(edge)];
  double high = kCellEdges[static_cast<size_t>(edge) + 1];
  double fraction = std::clamp((mantissa - low) / (high - low), 0.0, 1.0);
  int64_t cell = decade * kCellsPerDecade + edge;
  return {cell, static_cast<double>(cell) + fraction};
}

/// The lower edge of `cell` (the upper edge is that of the next cell).
double cellValue(int64_t cell) {
  int64_t decade = floorDiv(cell, kCellsPerDecade);
  auto edge = static_cast<size_t>(cell - decade * kCellsPerDecade);
  return powerOfTen(decade) * kCellEdges[edge];
}

/// A cell's time edge (seconds, positive) for its tooltip, in milliseconds
/// as every printed time: rounded to the picosecond, the upper edge of a
/// cell of times near 2^63 picoseconds (106 days) at most INT64_MAX.
std::string edgeMilliseconds(double seconds) {
  return estimate::formatMilliseconds(
      estimate::picosecondsOf(seconds).value_or(INT64_MAX), 3);
}

/// Peak bytes in GiB, at least one byte (the division by 2^30 is exact).
double gibibytesOf(int64_t bytes) {
  return static_cast<double>(std::max<int64_t>(bytes, 1)) /
         static_cast<double>(kGiB);
}

/// GiB back to whole bytes, for labels.
int64_t bytesOf(double gibibytes) {
  double bytes = gibibytes * static_cast<double>(kGiB);
  if (!(bytes < 9.2e18))
    return INT64_MAX;
  return static_cast<int64_t>(bytes + 0.5);
}

/// A tick of a log axis: mantissa (1, 2 or 5) times 10^decade.
struct Tick {
  int64_t decade;
  int mantissa;
};

double positionOf(Tick tick) {
  double offset = tick.mantissa == 1   ? 0
                  : tick.mantissa == 2 ? kTwoPosition
                                       : kFivePosition;
  return static_cast<double>(tick.decade * kCellsPerDecade) + offset;
}

Tick nextTick(Tick tick) {
  if (tick.mantissa == 1)
    return {tick.decade, 2};
  if (tick.mantissa == 2)
    return {tick.decade, 5};
  return {tick.decade + 1, 1};
}

/// The decade a position lies in.
int64_t decadeOf(double position) {
  auto decade = static_cast<int64_t>(position / kCellsPerDecade);
  if (static_cast<double>(decade * kCellsPerDecade) > position)
    --decade;
  return decade;
}

/// The greatest tick at or below `position`.
Tick tickAtOrBelow(double position) {
  int64_t decade = decadeOf(position);
  double rest = position - static_cast<double>(decade * kCellsPerDecade);
  for (int mantissa : {5, 2})
    if (positionOf({0, mantissa}) <= rest + 1e-9)
      return {decade, mantissa};
  return {decade, 1};
}

/// The least tick at or above `position`.
Tick tickAtOrAbove(double position) {
  int64_t decade = decadeOf(position);
  double rest = position - static_cast<double>(decade * kCellsPerDecade);
  for (int mantissa : {1, 2, 5})
    if (positionOf({0, mantissa}) >= rest - 1e-9)
      return {decade, mantissa};
  return {decade + 1, 1};
}

/// "5", "200", "0.02", "1e-15": a tick's value, written exactly.
std::string formatTick(Tick tick) {
  std::string digits = std::to_string(tick.mantissa);
  if (tick.decade >= 0 && tick.decade <= 15)
    return digits + std::string(static_cast<size_t>(tick.decade), '0');
  if (tick.decade < 0 && tick.decade >= -12)
    return "0." + std::string(static_cast<size_t>(-tick.decade - 1), '0') +
           digits;
  return digits + "e" + std::to_string(tick.decade);
}

/// A log axis from `low` to `high` (positions, 40 a decade) and its ticks.
struct LogAxis {
  double low;
  double high;
  std::vector<Tick> ticks;
};

/// The axis over [lowest, highest] rounded out to ticks at 1, 2 and 5
/// times powers of ten, or, across more than six decades, at powers of ten
/// (every `stride` decades, so there are at most about 17).
LogAxis logAxisOf(double lowest, double highest) {
  Tick low = tickAtOrBelow(lowest);
  Tick high = tickAtOrAbove(highest);
  LogAxis axis;
  if (high.decade - low.decade <= 6) {
    if (!(positionOf(high) > positionOf(low)))
      high = nextTick(low);
    for (Tick tick = low; positionOf(tick) <= positionOf(high) + 1e-9;
         tick = nextTick(tick))
      axis.ticks.push_back(tick);
  } else {
    int64_t stride = 1 + (high.decade - low.decade) / 16;
    low.mantissa = 1;
    Tick tick = low;
    axis.ticks.push_back(tick);
    while (positionOf(tick) < highest - 1e-9) {
      tick.decade += stride;
      axis.ticks.push_back(tick);
    }
    high = tick;
  }
  axis.low = positionOf(low);
  axis.high = positionOf(high);
  return axis;
}

std::string plural(int64_t count, llvm::StringRef noun) {
  return std::to_string(count) + " " + noun.str() + (count == 1 ? "" : "s");
}

constexpr double kScatterLeft = 96;
constexpr double kScatterPlotWidth = 800;
constexpr double kScatterRight = 40;
constexpr double kScatterTop = 70;
constexpr double kScatterPlotHeight = 480;
constexpr double kScatterAxis = 44;
/// A cell is drawn as a rect of its size but between these, at its centre.
constexpr double kCellMinPixels = 3;
constexpr double kCellMaxPixels = 10;

constexpr const char *kFitsFill = "#1f77b4";
constexpr const char *kExceedsFill = "#b8b8b8";
constexpr const char *kParetoFill = "#ff7f0e";
constexpr const char *kBestFill = "#d62728";
constexpr const char *kCapacityStroke = "#444444";
/// A white outline under text drawn over the cells, so it stays legible.
constexpr const char *kHalo =
    " stroke=\"#ffffff\" stroke-width=\"3\" stroke-opacity=\"0.8\" "
    "paint-order=\"stroke\"";

} // namespace

void SearchScatter::add(double seconds, int64_t peakBytes, bool fits) {
  if (!(seconds > 0) || !std::isfinite(seconds))
    return;
  Counts &counts =
      cells[{logPlace(seconds).cell, logPlace(gibibytesOf(peakBytes)).cell}];
  ++(fits ? counts.fitting : counts.exceeding);
  ++count;
}

size_t SearchScatter::configurations() const { return count; }

void SearchScatter::write(llvm::raw_ostream &os, llvm::StringRef title,
                          int64_t capacityBytes,
                          llvm::ArrayRef<ScatterLabel> labels) const {
  if (cells.empty()) {
    beginSVG(os, 600, 80, title);
    os << "<text x=\"20\" y=\"24\" font-size=\"16\" font-weight=\"bold\">"
       << escapeXML(title) << "</text>\n";
    os << "<text class=\"empty\" x=\"20\" y=\"54\">no configuration has a "
          "time</text>\n";
    os << "</svg>\n";
    return;
  }

  // The range: the occupied cells, the labels and the capacity.
  double xLowest = static_cast<double>(cells.begin()->first.first);
  double xHighest = xLowest + 1;
  double yLowest = static_cast<double>(cells.begin()->first.second);
  double yHighest = yLowest + 1;
  int64_t fitting = 0;
  for (const auto &[cell, counts] : cells) {
    auto x = static_cast<double>(cell.first);
    auto y = static_cast<double>(cell.second);
    xLowest = std::min(xLowest, x);
    xHighest = std::max(xHighest, x + 1);
    yLowest = std::min(yLowest, y);
    yHighest = std::max(yHighest, y + 1);
    fitting += counts.fitting;
  }
  struct Placed {
    const ScatterLabel *label;
    double x;
    double y;
  };
  std::vector<Placed> placed;
  for (const ScatterLabel &label : labels) {
    if (label.picoseconds <= 0)
      continue;
    Placed place{&label,
                 logPlace(estimate::secondsOf(label.picoseconds)).position,
                 logPlace(gibibytesOf(label.peakBytes)).position};
    xLowest = std::min(xLowest, place.x);
    xHighest = std::max(xHighest, place.x);
    yLowest = std::min(yLowest, place.y);
    yHighest = std::max(yHighest, place.y);
    placed.push_back(place);
  }
  bool anyPareto = false, anyBest = false;
  for (const Placed &place : placed)
    (place.label->best ? anyBest : anyPareto) = true;
  bool capacity = capacityBytes > 0;
  double capacityY = 0;
  if (capacity) {
    capacityY = logPlace(gibibytesOf(capacityBytes)).position;
    yLowest = std::min(yLowest, capacityY);
    yHighest = std::max(yHighest, capacityY);
  }
  LogAxis xAxis = logAxisOf(xLowest, xHighest);
  LogAxis yAxis = logAxisOf(yLowest, yHighest);

  double plotTop = kScatterTop;
  double plotBottom = plotTop + kScatterPlotHeight;
  double plotRight = kScatterLeft + kScatterPlotWidth;
  auto xOf = [&](double position) {
    return kScatterLeft + (position - xAxis.low) / (xAxis.high - xAxis.low) *
                              kScatterPlotWidth;
  };
  auto yOf = [&](double position) {
    return plotBottom - (position - yAxis.low) / (yAxis.high - yAxis.low) *
                            kScatterPlotHeight;
  };
  double legendY = plotBottom + kScatterAxis + 24;
  double width = plotRight + kScatterRight;
  double height = legendY + 20;

  beginSVG(os, width, height, title);
  os << "<text x=\"" << formatPixels(kScatterLeft)
     << "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" << escapeXML(title)
     << "</text>\n";
  os << "<text x=\"" << formatPixels(kScatterLeft) << "\" y=\"44\">"
     << plural(static_cast<int64_t>(count), "configuration") << ", " << fitting
     << " fit</text>\n";
  os << "<rect class=\"plot\" x=\"" << formatPixels(kScatterLeft) << "\" y=\""
     << formatPixels(plotTop) << "\" width=\""
     << formatPixels(kScatterPlotWidth) << "\" height=\""
     << formatPixels(kScatterPlotHeight) << "\" fill=\"#f8f8f8\"/>\n";

  // Axes: grid lines and ticks at the axis' ticks.
  os << "<g class=\"xticks\" text-anchor=\"middle\" font-size=\"11\">\n";
  for (Tick tick : xAxis.ticks) {
    double x = xOf(positionOf(tick));
    os << "<line x1=\"" << formatPixels(x) << "\" y1=\""
       << formatPixels(plotTop) << "\" x2=\"" << formatPixels(x) << "\" y2=\""
       << formatPixels(plotBottom + 4)
       << "\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n";
    os << "<text x=\"" << formatPixels(x) << "\" y=\""
       << formatPixels(plotBottom + 16) << "\">" << formatTick(tick)
       << "</text>\n";
  }
  os << "</g>\n";
  os << "<g class=\"yticks\" text-anchor=\"end\" font-size=\"11\">\n";
  for (Tick tick : yAxis.ticks) {
    double y = yOf(positionOf(tick));
    os << "<line x1=\"" << formatPixels(kScatterLeft - 4) << "\" y1=\""
       << formatPixels(y) << "\" x2=\"" << formatPixels(plotRight) << "\" y2=\""
       << formatPixels(y) << "\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n";
    os << "<text x=\"" << formatPixels(kScatterLeft - 6) << "\" y=\""
       << formatPixels(y + 4) << "\">" << formatTick(tick) << "</text>\n";
  }
  os << "</g>\n";
  os << "<polyline class=\"axes\" points=\"" << formatPixels(kScatterLeft)
     << "," << formatPixels(plotTop) << " " << formatPixels(kScatterLeft) << ","
     << formatPixels(plotBottom) << " " << formatPixels(plotRight) << ","
     << formatPixels(plotBottom)
     << "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
  os << "<text x=\"" << formatPixels(kScatterLeft + kScatterPlotWidth / 2)
     << "\" y=\"" << formatPixels(plotBottom + 34)
     << "\" text-anchor=\"middle\">iteration time (s, log scale)</text>\n";
  double yTitleX = 20;
  double yTitleY = plotTop + kScatterPlotHeight / 2;
  os << "<text x=\"" << formatPixels(yTitleX) << "\" y=\""
     << formatPixels(yTitleY) << "\" text-anchor=\"middle\" transform=\"rotate("
     << "-90 " << formatPixels(yTitleX) << " " << formatPixels(yTitleY)
     << ")\">peak memory per GPU (GiB, log scale)</text>\n";

  // Cells: those where nothing fits first, so the highlighted are on top.
  os << "<g class=\"cells\">\n";
  for (bool fits : {false, true}) {
    for (const auto &[cell, counts] : cells) {
      if ((counts.fitting > 0) != fits)
        continue;
      double x0 = xOf(static_cast<double>(cell.first));
      double x1 = xOf(static_cast<double>(cell.first + 1));
      double y0 = yOf(static_cast<double>(cell.second));
      double y1 = yOf(static_cast<double>(cell.second + 1));
      double w = std::clamp(x1 - x0, kCellMinPixels, kCellMaxPixels);
      double h = std::clamp(y0 - y1, kCellMinPixels, kCellMaxPixels);
      os << "<rect class=\"cell " << (fits ? "fits" : "exceeds") << "\" x=\""
         << formatPixels((x0 + x1 - w) / 2) << "\" y=\""
         << formatPixels((y0 + y1 - h) / 2) << "\" width=\"" << formatPixels(w)
         << "\" height=\"" << formatPixels(h) << "\" fill=\""
         << (fits ? kFitsFill : kExceedsFill) << "\" fill-opacity=\"0.85\">"
         << "<title>"
         << plural(counts.fitting + counts.exceeding, "configuration") << ", "
         << counts.fitting << " fit\ntime "
         << edgeMilliseconds(cellValue(cell.first)) << " to "
         << edgeMilliseconds(cellValue(cell.first + 1)) << " ms\npeak "
         << formatBinary(bytesOf(cellValue(cell.second))) << " to "
         << formatBinary(bytesOf(cellValue(cell.second + 1)))
         << "</title></rect>\n";
    }
  }
  os << "</g>\n";

  // The usable capacity (the bytes `fits` compares against), labelled as
  // such so that a fraction below 1/1 is not read as the device's memory.
  std::string capacityText;
  if (capacity) {
    double gibibytes =
        static_cast<double>(capacityBytes) / static_cast<double>(kGiB);
    capacityText = "usable " + formatFixed(gibibytes, 2) + " GiB";
    double y = yOf(capacityY);
    os << "<line class=\"capacity\" x1=\"" << formatPixels(kScatterLeft)
       << "\" y1=\"" << formatPixels(y) << "\" x2=\"" << formatPixels(plotRight)
       << "\" y2=\"" << formatPixels(y) << "\" stroke=\"" << kCapacityStroke
       << "\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n";
    os << "<text class=\"capacity\" x=\"" << formatPixels(plotRight - 4)
       << "\" y=\"" << formatPixels(y - 5) << "\" text-anchor=\"end\"" << kHalo
       << " fill=\"" << kCapacityStroke << "\">" << capacityText << "</text>\n";
  }

  // The labels, the best last, on top of the Pareto front.
  os << "<g class=\"labels\">\n";
  for (bool best : {false, true}) {
    for (const Placed &place : placed) {
      if (place.label->best != best)
        continue;
      const ScatterLabel &label = *place.label;
      double x = xOf(place.x);
      double y = yOf(place.y);
      const char *kind = label.best ? "best" : "pareto";
      std::string text = escapeXML(label.text);
      os << "<circle class=\"label " << kind << "\" cx=\"" << formatPixels(x)
         << "\" cy=\"" << formatPixels(y) << "\" r=\""
         << (label.best ? "6" : "4") << "\" fill=\""
         << (label.best ? kBestFill : kParetoFill)
         << "\" stroke=\"#222222\" stroke-width=\"1\"><title>" << text
         << "\ntime " << estimate::formatMilliseconds(label.picoseconds, 3)
         << " ms, peak " << label.peakBytes << " bytes ("
         << formatBinary(label.peakBytes) << ")</title></circle>\n";
      if (label.text.empty())
        continue;
      bool rightPart = x > kScatterLeft + kScatterPlotWidth * 0.7;
      os << "<text class=\"label " << kind << "\" x=\""
         << formatPixels(rightPart ? x - 9 : x + 9) << "\" y=\""
         << formatPixels(y + 4) << "\" text-anchor=\""
         << (rightPart ? "end" : "start") << "\"" << kHalo
         << (label.best ? " fill=\"#d62728\" font-weight=\"bold\""
                        : " fill=\"#333333\" font-size=\"11\"")
         << ">" << text << "</text>\n";
    }
  }
  os << "</g>\n";

  // Legend.
  os << "<g class=\"legend\">\n";
  double x = kScatterLeft;
  legendEntry(os, x, legendY, kFitsFill, "fits");
  x += 140;
  legendEntry(os, x, legendY, kExceedsFill, "does not fit");
  x += 140;
  if (capacity) {
    os << "<line x1=\"" << formatPixels(x) << "\" y1=\""
       << formatPixels(legendY - 4) << "\" x2=\"" << formatPixels(x + 14)
       << "\" y2=\"" << formatPixels(legendY - 4) << "\" stroke=\""
       << kCapacityStroke
       << "\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n";
    os << "<text x=\"" << formatPixels(x + 19) << "\" y=\""
       << formatPixels(legendY) << "\">" << capacityText << "</text>\n";
    x += 180;
  }
  if (anyPareto) {
    os << "<circle cx=\"" << formatPixels(x + 7) << "\" cy=\""
       << formatPixels(legendY - 4) << "\" r=\"4\" fill=\"" << kParetoFill
       << "\" stroke=\"#222222\" stroke-width=\"1\"/>\n";
    os << "<text x=\"" << formatPixels(x + 19) << "\" y=\""
       << formatPixels(legendY) << "\">Pareto front</text>\n";
    x += 140;
  }
  if (anyBest) {
    os << "<circle cx=\"" << formatPixels(x + 7) << "\" cy=\""
       << formatPixels(legendY - 4) << "\" r=\"6\" fill=\"" << kBestFill
       << "\" stroke=\"#222222\" stroke-width=\"1\"/>\n";
    os << "<text x=\"" << formatPixels(x + 19) << "\" y=\""
       << formatPixels(legendY) << "\" font-weight=\"bold\">best</text>\n";
  }
  os << "</g>\n";
  os << "</svg>\n";
}
