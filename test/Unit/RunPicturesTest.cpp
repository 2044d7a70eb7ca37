//===- RunPicturesTest.cpp - The timeline and memory SVG pictures ---------===//
//
// A two-stage run built by hand (graph, timing, critical path, buffers and
// their sweep): the pictures are well-formed XML, deterministic, and show
// what they promise: one row per stage, one rect per step that takes stage
// time, one arrow per message with the critical ones distinct, escaped
// labels, the peak and its value, legends and axis ticks. The search
// scatter: cells at fixed edges whose number does not grow with the
// configurations, fitting and other cells apart, escaped labels, the
// capacity line and log-scale ticks.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/RunPictures.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

using namespace blueprint;
using namespace blueprint::analysis;
using namespace blueprint::workload;

namespace {

//===----------------------------------------------------------------------===//
// A small XML well-formedness check
//===----------------------------------------------------------------------===//

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
         c == ':' || c == '.';
}

/// Checks `text` from `pos` for character data without markup: every '&'
/// starts a predefined or numeric entity and no '<' occurs before `end`.
std::string checkCharacterData(const std::string &text, size_t pos,
                               size_t end) {
  for (size_t i = pos; i < end; ++i) {
    if (text[i] == '<')
      return "raw '<' at " + std::to_string(i);
    if (text[i] != '&')
      continue;
    size_t semicolon = text.find(';', i);
    if (semicolon == std::string::npos || semicolon >= end)
      return "unterminated entity at " + std::to_string(i);
    std::string entity = text.substr(i + 1, semicolon - i - 1);
    static const std::set<std::string> predefined = {"amp", "lt", "gt", "quot",
                                                     "apos"};
    bool numeric = entity.size() > 1 && entity[0] == '#';
    if (numeric) {
      bool hex = entity[1] == 'x';
      size_t first = hex ? 2 : 1;
      numeric = entity.size() > first;
      for (size_t j = first; j < entity.size(); ++j)
        numeric &= hex ? std::isxdigit(static_cast<unsigned char>(entity[j]))
                       : std::isdigit(static_cast<unsigned char>(entity[j]));
    }
    if (!numeric && !predefined.count(entity))
      return "unknown entity '&" + entity + ";' at " + std::to_string(i);
    i = semicolon;
  }
  return "";
}

/// Empty if `text` is a well-formed XML document (an optional declaration,
/// comments, one root element, matched tags, quoted unique attributes,
/// valid entities), else what is wrong.
std::string wellFormedError(const std::string &text) {
  std::vector<std::string> open;
  size_t roots = 0;
  size_t pos = 0;
  if (text.compare(0, 5, "<?xml") == 0) {
    pos = text.find("?>");
    if (pos == std::string::npos)
      return "unterminated declaration";
    pos += 2;
  }
  while (pos < text.size()) {
    size_t lt = text.find('<', pos);
    size_t dataEnd = lt == std::string::npos ? text.size() : lt;
    if (open.empty()) {
      for (size_t i = pos; i < dataEnd; ++i)
        if (!std::isspace(static_cast<unsigned char>(text[i])))
          return "text outside the root at " + std::to_string(i);
    } else if (std::string error = checkCharacterData(text, pos, dataEnd);
               !error.empty()) {
      return error;
    }
    if (lt == std::string::npos)
      break;
    if (text.compare(lt, 4, "<!--") == 0) {
      size_t end = text.find("-->", lt + 4);
      if (end == std::string::npos)
        return "unterminated comment";
      pos = end + 3;
      continue;
    }
    size_t i = lt + 1;
    bool closing = i < text.size() && text[i] == '/';
    if (closing)
      ++i;
    size_t nameStart = i;
    while (i < text.size() && isNameChar(text[i]))
      ++i;
    std::string name = text.substr(nameStart, i - nameStart);
    if (name.empty())
      return "tag without a name at " + std::to_string(lt);
    if (closing) {
      while (i < text.size() &&
             std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
      if (i >= text.size() || text[i] != '>')
        return "malformed closing tag at " + std::to_string(lt);
      if (open.empty() || open.back() != name)
        return "closing </" + name + "> does not match at " +
               std::to_string(lt);
      open.pop_back();
      pos = i + 1;
      continue;
    }
    std::set<std::string> attributes;
    bool selfClosing = false;
    while (true) {
      bool space = false;
      while (i < text.size() &&
             std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
        space = true;
      }
      if (i >= text.size())
        return "unterminated tag <" + name + ">";
      if (text[i] == '>') {
        ++i;
        break;
      }
      if (text[i] == '/') {
        if (i + 1 >= text.size() || text[i + 1] != '>')
          return "stray '/' in <" + name + ">";
        selfClosing = true;
        i += 2;
        break;
      }
      if (!space)
        return "attributes not separated in <" + name + ">";
      size_t attributeStart = i;
      while (i < text.size() && isNameChar(text[i]))
        ++i;
      std::string attribute = text.substr(attributeStart, i - attributeStart);
      if (attribute.empty())
        return "bad attribute in <" + name + "> at " + std::to_string(i);
      if (!attributes.insert(attribute).second)
        return "duplicate attribute " + attribute + " in <" + name + ">";
      if (i >= text.size() || text[i] != '=')
        return "attribute " + attribute + " without a value";
      ++i;
      if (i >= text.size() || (text[i] != '"' && text[i] != '\''))
        return "unquoted attribute " + attribute;
      char quote = text[i++];
      size_t valueEnd = text.find(quote, i);
      if (valueEnd == std::string::npos)
        return "unterminated attribute " + attribute;
      if (std::string error = checkCharacterData(text, i, valueEnd);
          !error.empty())
        return "in attribute " + attribute + ": " + error;
      i = valueEnd + 1;
    }
    if (open.empty() && ++roots > 1)
      return "more than one root element";
    if (!selfClosing)
      open.push_back(name);
    pos = i;
  }
  if (!open.empty())
    return "unclosed <" + open.back() + ">";
  if (roots != 1)
    return "no root element";
  return "";
}

size_t countOf(const std::string &text, const std::string &needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size()))
    ++count;
  return count;
}

//===----------------------------------------------------------------------===//
// The checker itself must reject what it is there to catch.
//===----------------------------------------------------------------------===//

TEST(RunPicturesTest, WellFormednessCheckRejectsBrokenXML) {
  EXPECT_EQ(wellFormedError("<a><b x=\"1\"/>t &amp; &#60;</a>"), "");
  EXPECT_NE(wellFormedError("<a><b></a></b>"), "");
  EXPECT_NE(wellFormedError("<a>x < y</a>"), "");
  EXPECT_NE(wellFormedError("<a>x & y</a>"), "");
  EXPECT_NE(wellFormedError("<a t=\"<\"/>"), "");
  EXPECT_NE(wellFormedError("<a x=\"1\" x=\"2\"/>"), "");
  EXPECT_NE(wellFormedError("<a>"), "");
  EXPECT_NE(wellFormedError("<a/><b/>"), "");
}

//===----------------------------------------------------------------------===//
// The timeline
//===----------------------------------------------------------------------===//

GraphStep compute(std::string label, PipelinePass pass, int64_t microBatch,
                  double seconds) {
  GraphStep step;
  step.label = std::move(label);
  step.kind = StepKind::Compute;
  step.pass = pass;
  step.microBatch = microBatch;
  step.seconds = seconds;
  return step;
}

GraphStep message(StepKind kind, int64_t channel) {
  GraphStep step;
  step.label =
      (kind == StepKind::Send ? "send " : "receive ") + std::to_string(channel);
  step.kind = kind;
  step.channel = channel;
  step.transferSeconds = kind == StepKind::Send ? 0.1e-3 : 0;
  return step;
}

GraphStep stageLevel(std::string label, StepKind kind, double seconds) {
  GraphStep step;
  step.label = std::move(label);
  step.kind = kind;
  step.pass = PipelinePass::Step;
  step.seconds = seconds;
  return step;
}

/// Two stages, two micro-batches, 1F1B-like: forward 1 ms, backward 2 ms,
/// transfers 0.1 ms, a 0.5 ms collective on each stage and 0.3 ms of
/// optimizer work on stage 0. Times in milliseconds below.
struct TwoStageRun {
  RunGraph graph;
  CriticalPathReport report;

  TwoStageRun() {
    using P = PipelinePass;
    graph.stages.resize(2);
    std::vector<GraphStep> &s0 = graph.stages[0];
    s0.push_back(compute("forward mb 0", P::Forward, 0, 1e-3));   // 0 [0, 1]
    s0.push_back(message(StepKind::Send, 100));                   // 1 [1, 1]
    s0.push_back(compute("forward mb 1", P::Forward, 1, 1e-3));   // 2 [1, 2]
    s0.push_back(message(StepKind::Send, 101));                   // 3 [2, 2]
    s0.push_back(message(StepKind::Receive, 200));                // 4 [2, 4.2]
    s0.push_back(compute("backward mb 0", P::Backward, 0, 2e-3)); // 5
    s0.push_back(message(StepKind::Receive, 201)); // 6 [6.2, 7.2]
    s0.push_back(compute("backward mb 1", P::Backward, 1, 2e-3)); // 7
    s0.push_back(stageLevel("gradient all-reduce", StepKind::Collective,
                            0.5e-3)); // 8 [9.2, 9.7]
    s0.push_back(stageLevel("optimizer <&> step", StepKind::StageWork,
                            0.3e-3)); // 9 [9.7, 10]
    std::vector<GraphStep> &s1 = graph.stages[1];
    s1.push_back(message(StepKind::Receive, 100));                // 0 [0, 1.1]
    s1.push_back(compute("forward mb 0", P::Forward, 0, 1e-3));   // 1
    s1.push_back(compute("backward mb 0", P::Backward, 0, 2e-3)); // 2
    s1.push_back(message(StepKind::Send, 200));                 // 3 [4.1, 4.1]
    s1.push_back(message(StepKind::Receive, 101));              // 4 [4.1, 4.1]
    s1.push_back(compute("forward mb 1", P::Forward, 1, 1e-3)); // 5
    s1.push_back(compute("backward mb 1", P::Backward, 1, 2e-3)); // 6
    s1.push_back(message(StepKind::Send, 201)); // 7 [7.1, 7.1]
    s1.push_back(stageLevel("gradient all-reduce", StepKind::Collective,
                            0.5e-3)); // 8 [7.1, 7.6]

    // Milliseconds to picoseconds (10^9 each), exact at 0.1 ms.
    auto at = [](double ms) {
      return static_cast<estimate::Picoseconds>(std::llround(ms * 1e9));
    };
    auto ms = [&](double start, double end) {
      return StepTiming{at(start), at(end)};
    };
    report.timing = {
        {ms(0, 1), ms(1, 1), ms(1, 2), ms(2, 2), ms(2, 4.2), ms(4.2, 6.2),
         ms(6.2, 7.2), ms(7.2, 9.2), ms(9.2, 9.7), ms(9.7, 10)},
        {ms(0, 1.1), ms(1.1, 2.1), ms(2.1, 4.1), ms(4.1, 4.1), ms(4.1, 4.1),
         ms(4.1, 5.1), ms(5.1, 7.1), ms(7.1, 7.1), ms(7.1, 7.6)}};
    report.iterationPicoseconds = at(10);
    auto segment = [&](int64_t stage, size_t step, bool transfer = false) {
      const StepTiming &timing = report.timing[stage][step];
      return PathSegment{stage, step, transfer, timing.start,
                         transfer ? timing.end + at(0.1) : timing.end};
    };
    report.path = {segment(0, 0),       segment(0, 1, true), segment(1, 0),
                   segment(1, 1),       segment(1, 2),       segment(1, 4),
                   segment(1, 5),       segment(1, 6),       segment(1, 7),
                   segment(1, 7, true), segment(0, 6),       segment(0, 7),
                   segment(0, 8),       segment(0, 9)};
    report.exposedCommunicationPicoseconds = at(0.7);
    report.pathComputePicoseconds = at(9.3);
    report.stages = {StageTime{at(6.3), at(0.5), at(3.2)},
                     StageTime{at(6), at(0.5), at(3.5)}};
  }
};

std::string timelineOf(const RunGraph &graph, const CriticalPathReport &report,
                       llvm::StringRef title) {
  std::string svg;
  llvm::raw_string_ostream os(svg);
  writeTimelineSVG(graph, report, title, os);
  return svg;
}

TEST(RunPicturesTest, TimelineIsWellFormedAndDeterministic) {
  TwoStageRun run;
  std::string svg =
      timelineOf(run.graph, run.report, "two <stages> & \"1F1B\"");
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            std::string::npos);
  EXPECT_EQ(svg, timelineOf(run.graph, run.report, "two <stages> & \"1F1B\""));
}

TEST(RunPicturesTest, TimelineHeaderAndRows) {
  TwoStageRun run;
  std::string svg =
      timelineOf(run.graph, run.report, "two <stages> & \"1F1B\"");
  EXPECT_NE(svg.find("two &lt;stages&gt; &amp; &quot;1F1B&quot;"),
            std::string::npos);
  EXPECT_NE(svg.find(">iteration 10.000 ms, exposed communication 0.700 "
                     "ms</text>"),
            std::string::npos);
  EXPECT_EQ(countOf(svg, ">stage 0</text>"), 1u);
  EXPECT_EQ(countOf(svg, ">stage 1</text>"), 1u);
  EXPECT_EQ(countOf(svg, ">stage 2</text>"), 0u);
  EXPECT_NE(svg.find(">busy 6.800 ms, bubble 3.200 ms</text>"),
            std::string::npos);
  // Ticks: 10 ms at a 1 ms step, labelled 0 to 10.
  size_t ticksBegin = svg.find("<g class=\"ticks\"");
  ASSERT_NE(ticksBegin, std::string::npos);
  std::string ticks =
      svg.substr(ticksBegin, svg.find("</g>", ticksBegin) - ticksBegin);
  EXPECT_EQ(countOf(ticks, "<text"), 11u) << ticks;
  EXPECT_NE(ticks.find(">0</text>"), std::string::npos);
  EXPECT_NE(ticks.find(">10</text>"), std::string::npos);
  EXPECT_EQ(ticks.find(">11</text>"), std::string::npos);
}

TEST(RunPicturesTest, TimelineStepsAndPath) {
  TwoStageRun run;
  std::string svg = timelineOf(run.graph, run.report, "t");
  // One rect per step that takes stage time: 6 on stage 0 and 5 on stage 1
  // (the receive at 2-4.2 ms waits, it does not work: no rect).
  EXPECT_EQ(countOf(svg, "<rect class=\"step"), 11u);
  EXPECT_EQ(countOf(svg, "<rect class=\"step critical\""), 8u);
  EXPECT_EQ(countOf(svg, "<title>receive "), 0u);
  // Forward mb 0 of stage 0: 0-1 ms of 10 ms on a 1000 px axis from x 80,
  // on the critical path, with its tooltip.
  EXPECT_NE(svg.find("<rect class=\"step critical\" x=\"80\" y=\"66\" "
                     "width=\"100\" height=\"26\" fill=\"#4e79a7\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>forward mb 0\n0.000 ms to 1.000 ms (critical "
                     "path)</title>"),
            std::string::npos);
  // Backward mb 0 of stage 0 (4.2-6.2 ms) is off the path.
  EXPECT_NE(svg.find("<rect class=\"step\" x=\"500\" y=\"66\" width=\"200\""),
            std::string::npos);
  // Micro-batch numbers on the eight compute steps, none on the rest.
  EXPECT_EQ(countOf(svg, "pointer-events=\"none\">"), 8u);
  // The label with XML specials is escaped.
  EXPECT_NE(svg.find("optimizer &lt;&amp;&gt; step"), std::string::npos);
  EXPECT_EQ(svg.find("<&>"), std::string::npos);
  // Legend.
  for (const char *label :
       {">forward</text>", ">backward</text>", ">input_grad</text>",
        ">weight_grad</text>", ">step / stage work</text>",
        ">collective</text>", ">critical path</text>", ">message</text>",
        ">critical transfer</text>"})
    EXPECT_EQ(countOf(svg, label), 1u) << label;
  EXPECT_EQ(countOf(svg, ">prefill</text>"), 0u);
}

TEST(RunPicturesTest, TimelineMessages) {
  TwoStageRun run;
  std::string svg = timelineOf(run.graph, run.report, "t");
  // Four messages, the two transfers on the path in red.
  EXPECT_EQ(countOf(svg, "<line class=\"message"), 4u);
  EXPECT_EQ(countOf(svg, "<line class=\"message critical\""), 2u);
  // Channel 100: sent at 1 ms from the bottom of stage 0's row (y 94),
  // received at 1.1 ms at the top of stage 1's row (y 108).
  EXPECT_NE(svg.find("<line class=\"message critical\" x1=\"180\" y1=\"94\" "
                     "x2=\"190\" y2=\"108\" stroke=\"#d62728\""),
            std::string::npos)
      << svg;
  // Channel 200 goes up: from the top of stage 1 (y 108) at 4.1 ms to the
  // bottom of stage 0 (y 94) at 4.2 ms, not critical.
  EXPECT_NE(svg.find("<line class=\"message\" x1=\"490\" y1=\"108\" "
                     "x2=\"500\" y2=\"94\" stroke=\"#555555\""),
            std::string::npos);
  EXPECT_NE(svg.find("marker-end=\"url(#arrow-critical)\""), std::string::npos);

  // A send without a receive of its channel draws nothing.
  run.graph.stages[1][0].channel = 999;
  svg = timelineOf(run.graph, run.report, "t");
  EXPECT_EQ(countOf(svg, "<line class=\"message"), 3u);
  EXPECT_EQ(countOf(svg, "<line class=\"message critical\""), 1u);
}

TEST(RunPicturesTest, TimelineOfALongStageHasNoRectText) {
  RunGraph graph;
  CriticalPathReport report;
  graph.stages.resize(1);
  constexpr size_t kSteps = 2500;
  for (size_t i = 0; i < kSteps; ++i) {
    graph.stages[0].push_back(compute("forward mb " + std::to_string(i),
                                      PipelinePass::Forward,
                                      static_cast<int64_t>(i), 1e-6));
  }
  report.timing.resize(1);
  for (size_t i = 0; i < kSteps; ++i)
    report.timing[0].push_back(
        {static_cast<estimate::Picoseconds>(i) * 1'000'000,
         static_cast<estimate::Picoseconds>(i + 1) * 1'000'000});
  report.iterationPicoseconds =
      static_cast<estimate::Picoseconds>(kSteps) * 1'000'000;
  std::string svg = timelineOf(graph, report, "long");
  EXPECT_EQ(wellFormedError(svg), "");
  EXPECT_EQ(countOf(svg, "<rect class=\"step"), kSteps);
  EXPECT_EQ(countOf(svg, "<title>forward mb "), kSteps);
  EXPECT_EQ(countOf(svg, "pointer-events=\"none\">"), 0u);

  // The same stage with few steps, each wide enough, is numbered.
  graph.stages[0].resize(20);
  report.timing[0].resize(20);
  report.iterationPicoseconds = 20'000'000;
  svg = timelineOf(graph, report, "short");
  EXPECT_EQ(countOf(svg, "pointer-events=\"none\">"), 20u);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

constexpr int64_t kMiBytes = 1024 * 1024;
constexpr int64_t kGiBytes = 1024 * kMiBytes;

using KindBytes = std::array<int64_t, kNumBufferKinds>;

KindBytes kinds(int64_t persistent, int64_t stash, int64_t temporary,
                int64_t communication) {
  KindBytes bytes{};
  bytes[static_cast<size_t>(BufferKind::Persistent)] = persistent;
  bytes[static_cast<size_t>(BufferKind::Stash)] = stash;
  bytes[static_cast<size_t>(BufferKind::Temporary)] = temporary;
  bytes[static_cast<size_t>(BufferKind::Communication)] = communication;
  return bytes;
}

RunBuffer buffer(std::string name, BufferCause cause, int64_t bytes,
                 size_t start, size_t end) {
  RunBuffer result;
  result.name = std::move(name);
  result.cause = cause;
  result.bytes = bytes;
  result.start = start;
  result.end = end;
  return result;
}

/// Stage 0 peaks at 1234567 bytes at position 2, stage 1 at 3 GiB at
/// position 1 (no communication buffers there).
struct TwoStageMemory {
  std::vector<StageBuffers> buffers;
  std::vector<StageMemory> memory;

  TwoStageMemory() {
    StageBuffers b0;
    b0.stage = 0;
    b0.positions = 4;
    b0.buffers = {
        buffer("weights", BufferCause::Weights, 1000000, 0, 3),
        buffer("stash_mb<0>", BufferCause::BlockActivations, 100000, 1, 2),
        buffer("stash_mb1", BufferCause::BlockActivations, 100000, 2, 2),
        buffer("working_set", BufferCause::WorkingSet, 4567, 2, 2),
        buffer("recv_grad", BufferCause::PipelineReceive, 30000, 2, 2)};
    StageMemory m0;
    m0.stage = 0;
    m0.liveByKind = {
        kinds(1000000, 0, 4567, 0), kinds(1000000, 100000, 1000, 0),
        kinds(1000000, 200000, 4567, 30000), kinds(1000000, 0, 0, 0)};
    m0.liveBytes = {1004567, 1101000, 1234567, 1000000};
    m0.peakBytes = 1234567;
    m0.peakPosition = 2;
    m0.liveAtPeak = {0, 1, 2, 3, 4};
    m0.peakByKind = kinds(1000000, 200000, 4567, 30000);
    m0.peakByCause[static_cast<size_t>(BufferCause::Weights)] = 1000000;
    m0.peakByCause[static_cast<size_t>(BufferCause::BlockActivations)] = 200000;
    m0.peakByCause[static_cast<size_t>(BufferCause::WorkingSet)] = 4567;
    m0.peakByCause[static_cast<size_t>(BufferCause::PipelineReceive)] = 30000;

    StageBuffers b1;
    b1.stage = 1;
    b1.positions = 3;
    b1.buffers = {
        buffer("weights", BufferCause::Weights, 2 * kGiBytes, 0, 2),
        buffer("stash_mb0", BufferCause::BlockActivations, kGiBytes, 1, 1),
        buffer("working_set", BufferCause::WorkingSet, 512 * kMiBytes, 2, 2)};
    StageMemory m1;
    m1.stage = 1;
    m1.liveByKind = {kinds(2 * kGiBytes, 0, 0, 0),
                     kinds(2 * kGiBytes, kGiBytes, 0, 0),
                     kinds(2 * kGiBytes, 0, 512 * kMiBytes, 0)};
    m1.liveBytes = {2 * kGiBytes, 3 * kGiBytes, 2 * kGiBytes + 512 * kMiBytes};
    m1.peakBytes = 3 * kGiBytes;
    m1.peakPosition = 1;
    m1.liveAtPeak = {0, 1};
    m1.peakByKind = kinds(2 * kGiBytes, kGiBytes, 0, 0);

    buffers = {b0, b1};
    memory = {m0, m1};
  }
};

std::string memoryOf(const TwoStageMemory &run, llvm::StringRef title) {
  std::string svg;
  llvm::raw_string_ostream os(svg);
  writeMemorySVG(run.buffers, run.memory, title, os);
  return svg;
}

TEST(RunPicturesTest, MemoryIsWellFormedAndDeterministic) {
  TwoStageMemory run;
  std::string svg = memoryOf(run, "memory <&>");
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_EQ(svg, memoryOf(run, "memory <&>"));
  EXPECT_NE(svg.find("memory &lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<&>"), std::string::npos);
}

TEST(RunPicturesTest, MemoryPanelsPeaksAndLegend) {
  TwoStageMemory run;
  std::string svg = memoryOf(run, "m");
  EXPECT_EQ(countOf(svg, ">stage 0</text>"), 1u);
  EXPECT_EQ(countOf(svg, ">stage 1</text>"), 1u);
  EXPECT_NE(svg.find(">peak 1234567 bytes (1.18 MiB) at position 2</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">peak 3221225472 bytes (3.00 GiB) at position 1</text>"),
            std::string::npos);
  EXPECT_EQ(countOf(svg, "<circle class=\"peak\""), 2u);
  // The peak's tooltip: its causes and the largest buffers live there,
  // escaped.
  EXPECT_NE(svg.find("\nblock_activations: 200000 bytes (195.31 KiB)"),
            std::string::npos);
  EXPECT_NE(svg.find("\nstash_mb&lt;0&gt; (block_activations): 100000 bytes"),
            std::string::npos);
  EXPECT_LT(svg.find("\nweights (weights): 1000000 bytes"),
            svg.find("\nrecv_grad (pipeline_receive): 30000 bytes"));
  // Stacked areas: four kinds on stage 0, three on stage 1.
  EXPECT_EQ(countOf(svg, "<polygon class=\"area "), 7u);
  EXPECT_EQ(countOf(svg, "<polygon class=\"area communication\""), 1u);
  EXPECT_EQ(countOf(svg, "<polyline class=\"total\""), 2u);
  // Y ticks in binary units: stage 0 (1.18 MiB) at 0.5 MiB steps up to
  // 1.5 MiB, stage 1 (3 GiB) at 1 GiB steps up to 3 GiB.
  EXPECT_NE(svg.find(">0.5 MiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1.5 MiB</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">2.0 MiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1 GiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">3 GiB</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">4 GiB</text>"), std::string::npos);
  // Legend: the four kinds of a whole run, no boundary.
  for (const char *label : {">persistent</text>", ">stash</text>",
                            ">temporary</text>", ">communication</text>"})
    EXPECT_EQ(countOf(svg, label), 1u) << label;
  EXPECT_EQ(countOf(svg, ">boundary</text>"), 0u);
}

TEST(RunPicturesTest, MemoryAreasAreStepShaped) {
  // One stage, one kind: 10 bytes at positions 0-1, 20 at 2, on a 1000 px
  // axis from x 90 (333.33 px a position), y 280 (bottom) up 200 px to 20
  // bytes.
  StageBuffers buffers;
  buffers.stage = 0;
  buffers.positions = 3;
  StageMemory memory;
  memory.stage = 0;
  memory.liveByKind = {kinds(10, 0, 0, 0), kinds(10, 0, 0, 0),
                       kinds(20, 0, 0, 0)};
  memory.liveBytes = {10, 10, 20};
  memory.peakBytes = 20;
  memory.peakPosition = 2;
  std::string svg;
  llvm::raw_string_ostream os(svg);
  writeMemorySVG(buffers, memory, "steps", os);
  EXPECT_EQ(wellFormedError(svg), "");
  EXPECT_NE(svg.find("<polygon class=\"area persistent\" points=\"90,180 "
                     "756.67,180 756.67,80 1090,80 1090,280 90,280\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">peak 20 bytes (20 B) at position 2</text>"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// The search scatter
//===----------------------------------------------------------------------===//

constexpr int64_t kGiB = int64_t(1) << 30;
/// 0.51 s and 1.5 s, the labels' times.
constexpr estimate::Picoseconds kHalfSecondish = 510'000'000'000;
constexpr estimate::Picoseconds kOneAndAHalfSeconds = 1'500'000'000'000;

std::string scatterOf(const SearchScatter &scatter, llvm::StringRef title,
                      int64_t capacityBytes,
                      llvm::ArrayRef<ScatterLabel> labels = {}) {
  std::string svg;
  llvm::raw_string_ostream os(svg);
  scatter.write(os, title, capacityBytes, labels);
  return svg;
}

/// The value of `attribute` in the first tag starting with `tagStart`.
std::string attributeOf(const std::string &svg, const std::string &tagStart,
                        const std::string &attribute) {
  size_t tag = svg.find(tagStart);
  if (tag == std::string::npos)
    return "";
  size_t end = svg.find('>', tag);
  std::string needle = " " + attribute + "=\"";
  size_t at = svg.find(needle, tag);
  if (at == std::string::npos || at > end)
    return "";
  at += needle.size();
  return svg.substr(at, svg.find('"', at) - at);
}

/// `text` with every run of digits replaced by one '#'.
std::string withoutNumbers(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      out += c;
    else if (out.empty() || out.back() != '#')
      out += '#';
  }
  return out;
}

/// Seven configurations, each well inside its own cell (40 cells a decade:
/// 1.02 s lies in [1, 1.059), 2.1 s in [1.995, 2.113), 10.5 GiB in
/// [10, 10.59) and so on), five of which fit, repeated `count` times with a
/// jitter of at most 0.1%, in index order or reversed.
SearchScatter sevenCells(size_t count, bool reversed = false) {
  struct Point {
    double seconds;
    double gibibytes;
    bool fits;
  };
  const Point points[] = {{1.02, 10.5, true}, {1.02, 40.5, true},
                          {2.1, 10.5, true},  {2.1, 90.0, false},
                          {0.51, 60.0, true}, {0.51, 120.0, false},
                          {1.5, 30.0, true}};
  SearchScatter scatter;
  for (size_t n = 0; n < count; ++n) {
    size_t i = reversed ? count - 1 - n : n;
    const Point &point = points[i % 7];
    double jitter = 1 + 1e-4 * static_cast<double>(i % 10);
    scatter.add(point.seconds * jitter,
                static_cast<int64_t>(point.gibibytes * jitter *
                                     static_cast<double>(kGiB)),
                point.fits);
  }
  return scatter;
}

TEST(SearchScatterTest, EmptySaysNoConfigurationHasATime) {
  SearchScatter scatter;
  // Configurations without a time cannot be placed and are not counted.
  scatter.add(0, kGiB, true);
  scatter.add(-1, kGiB, true);
  scatter.add(std::numeric_limits<double>::quiet_NaN(), kGiB, false);
  scatter.add(std::numeric_limits<double>::infinity(), kGiB, false);
  EXPECT_EQ(scatter.configurations(), 0u);
  std::string svg = scatterOf(scatter, "search <none>", 80 * kGiB);
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_NE(svg.find(">no configuration has a time</text>"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("search &lt;none&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<rect class=\"cell"), std::string::npos);
}

TEST(SearchScatterTest, IsWellFormedAndDeterministic) {
  SearchScatter scatter = sevenCells(700);
  std::vector<ScatterLabel> labels = {
      {kHalfSecondish, 60 * kGiB, "tp=8", false},
      {kOneAndAHalfSeconds, 30 * kGiB, "tp=4", true}};
  std::string svg = scatterOf(scatter, "search \"a\" & 'b'", 80 * kGiB, labels);
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            std::string::npos);
  EXPECT_NE(svg.find("search &quot;a&quot; &amp; &apos;b&apos;"),
            std::string::npos);
  EXPECT_EQ(svg, scatterOf(scatter, "search \"a\" & 'b'", 80 * kGiB, labels));
  // The same configurations in another order draw the same.
  EXPECT_EQ(svg, scatterOf(sevenCells(700, /*reversed=*/true),
                           "search \"a\" & 'b'", 80 * kGiB, labels));
  EXPECT_NE(svg.find(">700 configurations, 500 fit</text>"), std::string::npos)
      << svg;
}

TEST(SearchScatterTest, MemoryDoesNotGrowWithConfigurations) {
  SearchScatter few = sevenCells(1000);
  SearchScatter many = sevenCells(100000);
  EXPECT_EQ(few.configurations(), 1000u);
  EXPECT_EQ(many.configurations(), 100000u);
  std::string fewSVG = scatterOf(few, "search", 80 * kGiB);
  std::string manySVG = scatterOf(many, "search", 80 * kGiB);
  EXPECT_EQ(countOf(fewSVG, "<rect class=\"cell "), 7u) << fewSVG;
  EXPECT_EQ(countOf(manySVG, "<rect class=\"cell "), 7u);
  // Only the counts differ: the header and the cells' tooltips.
  EXPECT_NE(manySVG.find(">100000 configurations, 71429 fit</text>"),
            std::string::npos)
      << manySVG;
  EXPECT_NE(manySVG, fewSVG);
  EXPECT_EQ(withoutNumbers(manySVG), withoutNumbers(fewSVG));
  EXPECT_LE(manySVG.size(), fewSVG.size() + 64);
}

TEST(SearchScatterTest, CellsFollowFixedEdges) {
  // 1 s and 1.05 s share the cell [1, 1.0593) s; 1.06 s is the next one.
  // 10 GiB and 10.5 GiB share [10, 10.59) GiB.
  SearchScatter scatter;
  scatter.add(1.0, 10 * kGiB, true);
  scatter.add(1.05, static_cast<int64_t>(10.5 * static_cast<double>(kGiB)),
              true);
  std::string one = scatterOf(scatter, "s", 0);
  EXPECT_EQ(countOf(one, "<rect class=\"cell "), 1u) << one;
  EXPECT_NE(one.find("<title>2 configurations, 2 fit\ntime 1000.000 to "
                     "1059.254 ms\npeak 10.00 GiB to 10.59 GiB</title>"),
            std::string::npos)
      << one;
  scatter.add(1.06, 10 * kGiB, false);
  std::string two = scatterOf(scatter, "s", 0);
  EXPECT_EQ(countOf(two, "<rect class=\"cell "), 2u) << two;
  EXPECT_NE(two.find("<title>1 configuration, 0 fit\ntime 1059.254 to "
                     "1122.018 ms"),
            std::string::npos)
      << two;
}

TEST(SearchScatterTest, FittingAndExceedingCellsDiffer) {
  SearchScatter scatter;
  scatter.add(1.02, 10 * kGiB, true);
  scatter.add(2.1, 90 * kGiB, false);
  // A cell with both is drawn as fitting.
  scatter.add(1.5, 30 * kGiB, false);
  scatter.add(1.5, 30 * kGiB, true);
  std::string svg = scatterOf(scatter, "s", 80 * kGiB);
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_EQ(countOf(svg, "<rect class=\"cell fits\""), 2u) << svg;
  EXPECT_EQ(countOf(svg, "<rect class=\"cell exceeds\""), 1u);
  std::string fits = attributeOf(svg, "<rect class=\"cell fits\"", "fill");
  std::string exceeds =
      attributeOf(svg, "<rect class=\"cell exceeds\"", "fill");
  EXPECT_FALSE(fits.empty());
  EXPECT_FALSE(exceeds.empty());
  EXPECT_NE(fits, exceeds);
  // The muted cells come first, so the highlighted are drawn on top.
  EXPECT_LT(svg.find("<rect class=\"cell exceeds\""),
            svg.find("<rect class=\"cell fits\""));
  EXPECT_NE(svg.find("<title>2 configurations, 1 fit\n"), std::string::npos);
  // The legend shows both.
  EXPECT_NE(svg.find("fill=\"" + fits + "\" stroke=\"#333333\""),
            std::string::npos);
  EXPECT_NE(svg.find(">fits</text>"), std::string::npos);
  EXPECT_NE(svg.find(">does not fit</text>"), std::string::npos);
}

TEST(SearchScatterTest, LabelsAreEscapedAndTheBestStandsOut) {
  SearchScatter scatter = sevenCells(70);
  std::vector<ScatterLabel> labels = {
      {kOneAndAHalfSeconds, 30 * kGiB, "tp=2 <pp=4> & dp=8", true},
      {kHalfSecondish, 60 * kGiB, "front \"x\"", false}};
  std::string svg = scatterOf(scatter, "s", 80 * kGiB, labels);
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_EQ(svg.find("<pp=4>"), std::string::npos);
  EXPECT_EQ(svg.find("& dp"), std::string::npos);
  EXPECT_NE(svg.find("\" fill=\"#d62728\" font-weight=\"bold\">tp=2 "
                     "&lt;pp=4&gt; &amp; dp=8</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">front &quot;x&quot;</text>"), std::string::npos);
  EXPECT_EQ(countOf(svg, "<circle class=\"label best\""), 1u);
  EXPECT_EQ(countOf(svg, "<circle class=\"label pareto\""), 1u);
  EXPECT_NE(attributeOf(svg, "<circle class=\"label best\"", "fill"),
            attributeOf(svg, "<circle class=\"label pareto\"", "fill"));
  EXPECT_EQ(attributeOf(svg, "<circle class=\"label best\"", "r"), "6");
  // The best is drawn last, on top.
  EXPECT_LT(svg.find("<circle class=\"label pareto\""),
            svg.find("<circle class=\"label best\""));
  EXPECT_NE(svg.find(">Pareto front</text>"), std::string::npos);
  EXPECT_NE(svg.find(">best</text>"), std::string::npos);
  // A label without a time is not drawn.
  labels.push_back({0, kGiB, "no time", false});
  EXPECT_EQ(scatterOf(scatter, "s", 80 * kGiB, labels).find("no time"),
            std::string::npos);
}

TEST(SearchScatterTest, TimesPrintFromTheirPicoseconds) {
  // A label's time prints from its integer (estimate::formatMilliseconds,
  // ties to even), not from a binary64: 1,500,000,500,000 ps is
  // 1,500,000.5 us, a tie between 1500.000 and 1500.001 ms, which goes to
  // the even 1500.000; %.3f of its binary64 milliseconds
  // (1500.0005000000001...) printed 1500.001.
  SearchScatter scatter = sevenCells(7);
  std::vector<ScatterLabel> labels = {
      {kOneAndAHalfSeconds + 500'000, 30 * kGiB, "tie", true}};
  std::string svg = scatterOf(scatter, "s", 80 * kGiB, labels);
  EXPECT_NE(svg.find("<title>tie\ntime 1500.000 ms, peak 32212254720 bytes"),
            std::string::npos)
      << svg;
  // A cell's upper time edge beyond 2^63 - 1 ps prints as that many: 9.2e6
  // s (40 log10 = 278.55) lies in cell 278, whose upper edge 10^(279 / 40)
  // = 9.44e6 s exceeds the 9,223,372,036,854,775,807 ps =
  // 9,223,372,036,854.775807 us, which rounds to 9223372036.855 ms.
  SearchScatter far;
  far.add(9.2e6, kGiB, true);
  std::string farSVG = scatterOf(far, "s", 0);
  EXPECT_NE(farSVG.find(" to 9223372036.855 ms\n"), std::string::npos)
      << farSVG;
}

TEST(SearchScatterTest, CapacityLineAndAxes) {
  // Memory from 10.5 GiB (cell 40) to the 80 GiB capacity: the y axis runs
  // from the tick 10 to the tick 100 GiB, 480 px from y 550 up to y 70, 40
  // units (a decade) a side. 80 GiB lies at 40 log10(80) = 76.12 units,
  // 36.12 above the bottom: y = 550 - 36.12 * 12 = 116.55.
  SearchScatter scatter;
  scatter.add(1.02, static_cast<int64_t>(10.5 * static_cast<double>(kGiB)),
              true);
  scatter.add(2.1, 40 * kGiB, true);
  std::string svg = scatterOf(scatter, "s", 80 * kGiB);
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  EXPECT_EQ(countOf(svg, "<line class=\"capacity\""), 1u);
  EXPECT_NE(svg.find("<line class=\"capacity\" x1=\"96\" y1=\"116.55\" "
                     "x2=\"896\" y2=\"116.55\""),
            std::string::npos)
      << svg;
  EXPECT_EQ(attributeOf(svg, "<line class=\"capacity\"", "stroke-dasharray"),
            "6,4");
  EXPECT_EQ(countOf(svg, ">usable 80.00 GiB</text>"), 2u);
  // Y ticks at 10, 20, 50 and 100 GiB. X from 1 s (cell 0) to 2.1 s (cell
  // 12, whose upper edge at 13 units lies above the tick 2 at 12.04), so
  // ticks at 1, 2 and 5 s.
  for (const char *tick :
       {">10</text>", ">20</text>", ">50</text>", ">100</text>", ">1</text>",
        ">2</text>", ">5</text>"})
    EXPECT_EQ(countOf(svg, tick), 1u) << tick;
  EXPECT_EQ(countOf(svg, ">200</text>"), 0u);
  EXPECT_EQ(countOf(svg, ">10</text>"), 1u);
  EXPECT_NE(svg.find(">iteration time (s, log scale)</text>"),
            std::string::npos);
  EXPECT_NE(svg.find(">peak memory per GPU (GiB, log scale)</text>"),
            std::string::npos);
  // No capacity, no line.
  std::string without = scatterOf(scatter, "s", 0);
  EXPECT_EQ(without.find("capacity"), std::string::npos);
  EXPECT_EQ(countOf(without, ">100</text>"), 0u);
}

TEST(SearchScatterTest, ManyDecadesTickAtPowersOfTen) {
  // 1 ms to 10000 s: seven decades, so ticks at powers of ten only.
  SearchScatter scatter;
  // Memory at 3 GiB, so the y ticks are 2 and 5.
  scatter.add(1e-3, 3 * kGiB, true);
  scatter.add(5e3, 3 * kGiB, true);
  std::string svg = scatterOf(scatter, "s", 0);
  EXPECT_EQ(wellFormedError(svg), "") << svg;
  for (const char *tick :
       {">0.001</text>", ">0.01</text>", ">0.1</text>", ">1</text>",
        ">10</text>", ">100</text>", ">1000</text>", ">10000</text>"})
    EXPECT_EQ(countOf(svg, tick), 1u) << tick;
  EXPECT_EQ(countOf(svg, ">0.002</text>"), 0u);
  EXPECT_EQ(countOf(svg, ">5000</text>"), 0u);
}

} // namespace
