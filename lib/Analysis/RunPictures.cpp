//===- RunPictures.cpp - A whole run's time and memory as SVG -------------===//
//
// Hand-written SVG. Every coordinate goes through formatPixels (two decimals,
// trailing zeros dropped, no negative zero) and every number in text through
// a fixed printf format, so the output is byte-identical across compilers.
// Tick steps are found by repeated multiplication by ten, not by log/pow.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/RunPictures.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <array>
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

std::string formatMilliseconds(double seconds) {
  return formatFixed(seconds * 1e3, 3);
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
  double span = report.iterationSeconds;
  for (const auto &stage : report.timing)
    for (const StepTiming &timing : stage)
      span = std::max(span, timing.end);
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
     << formatMilliseconds(report.iterationSeconds)
     << " ms, exposed communication "
     << formatMilliseconds(report.exposedCommunicationSeconds)
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
         << formatMilliseconds(time.computeSeconds + time.collectiveSeconds)
         << " ms, bubble " << formatMilliseconds(time.bubbleSeconds)
         << " ms</text>\n";
    }
    bool numbered = steps.size() <= kMaxLabelledSteps;
    for (auto [stepIndex, step] : llvm::enumerate(steps)) {
      if (step.kind == StepKind::Send || step.kind == StepKind::Receive)
        continue;
      const StepTiming *timing = timingOf(report, stage, stepIndex);
      if (!timing || !(timing->end > timing->start))
        continue;
      double x = xOf(timing->start);
      double w = (timing->end - timing->start) * pixelsPerSecond;
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
         << formatMilliseconds(timing->start) << " ms to "
         << formatMilliseconds(timing->end) << " ms"
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
      // From the sender's edge facing the receiver to the receiver's edge
      // facing the sender.
      bool down = message.toStage >= message.fromStage;
      double y1 = rowTop(message.fromStage) + (down ? kRowHeight : 0);
      double y2 = rowTop(message.toStage) + (down ? 0 : kRowHeight);
      if (message.toStage == message.fromStage)
        y2 = rowTop(message.toStage) + kRowHeight / 2;
      const GraphStep &send = graph.stages[message.fromStage][message.fromStep];
      os << "<line class=\"message" << (critical ? " critical" : "")
         << "\" x1=\"" << formatPixels(xOf(sent->end)) << "\" y1=\""
         << formatPixels(y1) << "\" x2=\"" << formatPixels(xOf(received->end))
         << "\" y2=\"" << formatPixels(y2) << "\" stroke=\""
         << (critical ? "#d62728" : "#555555") << "\" stroke-width=\""
         << (critical ? "2.5" : "1") << "\" marker-end=\"url(#"
         << (critical ? "arrow-critical" : "arrow") << ")\"><title>"
         << escapeXML(send.label) << "\nchannel " << message.channel
         << ": stage " << message.fromStage << " to stage " << message.toStage
         << ", sent " << formatMilliseconds(sent->end) << " ms, transfer "
         << formatMilliseconds(send.transferSeconds) << " ms, received "
         << formatMilliseconds(received->end) << " ms"
         << (critical ? " (critical path)" : "") << "</title></line>\n";
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
