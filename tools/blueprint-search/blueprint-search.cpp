//===- blueprint-search.cpp - The fastest mapping that fits ---------------===//
//
// Design-space search (docs/Sweep.md, "Search"): reads a search space - a
// base spec and a grid, or with --gpus every valid configuration on that
// many GPUs - evaluates every configuration as a whole run on the fast path
// (or through the MLIR pipeline with --through-ir), and writes every row, or
// the K fastest that fit (--top) and the Pareto front over time, memory per
// GPU and GPUs (--pareto), each of those re-derived through the pipeline.
// --svg draws the space as a scatter of time against memory.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/RunPictures.h"
#include "Blueprint/Sweep/Search.h"
#include "Blueprint/Sweep/Suite.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <memory>

using namespace blueprint;

static llvm::cl::OptionCategory searchCategory("blueprint-search options");

static llvm::cl::opt<std::string>
    inputFile(llvm::cl::Positional,
              llvm::cl::desc("<space: {\"spec\": ..., \"grid\": {...}}>"),
              llvm::cl::init("-"), llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string>
    outputFile("o", llvm::cl::desc("Output file for the rows"),
               llvm::cl::value_desc("file"), llvm::cl::init("-"),
               llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string>
    profileFile("profile", llvm::cl::desc("SystemProfile JSON file"),
                llvm::cl::value_desc("file"), llvm::cl::cat(searchCategory));

static llvm::cl::list<std::string> bindingEntries(
    "binding",
    llvm::cl::desc("Base binding of mesh axes to network tiers, axis:tier"),
    llvm::cl::CommaSeparated, llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string> bindingFile(
    "binding-file",
    llvm::cl::desc("Base NetworkTierBinding JSON file (instead of --binding)"),
    llvm::cl::value_desc("file"), llvm::cl::cat(searchCategory));

static llvm::cl::list<int64_t>
    gpus("gpus",
         llvm::cl::desc("Search every valid configuration on this many GPUs "
                        "(a list searches each count)"),
         llvm::cl::CommaSeparated, llvm::cl::cat(searchCategory));

static llvm::cl::opt<int64_t>
    globalBatch("global-batch",
                llvm::cl::desc("Global batch of every configuration"),
                llvm::cl::init(0), llvm::cl::cat(searchCategory));

static llvm::cl::opt<unsigned>
    top("top",
        llvm::cl::desc("Report the K fastest configurations that fit, "
                       "re-derived through the MLIR pipeline"),
        llvm::cl::init(0), llvm::cl::cat(searchCategory));

static llvm::cl::opt<bool>
    pareto("pareto",
           llvm::cl::desc("Report the Pareto front over time, memory per GPU "
                          "and GPUs, re-derived through the MLIR pipeline"),
           llvm::cl::init(false), llvm::cl::cat(searchCategory));

static llvm::cl::opt<bool> throughIR(
    "through-ir",
    llvm::cl::desc("Evaluate every configuration through the MLIR pipeline "
                   "instead of the fast path"),
    llvm::cl::init(false), llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string>
    format("format", llvm::cl::desc("Row format: jsonl or csv"),
           llvm::cl::init("jsonl"), llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string>
    svgFile("svg", llvm::cl::desc("Write a scatter of time against memory"),
            llvm::cl::value_desc("file"), llvm::cl::cat(searchCategory));

static llvm::cl::opt<unsigned>
    jobs("jobs",
         llvm::cl::desc("Worker threads (default: one per hardware thread)"),
         llvm::cl::init(0), llvm::cl::cat(searchCategory));

static llvm::cl::opt<bool>
    stats("search-stats",
          llvm::cl::desc("Print configurations, valid, feasible, seconds, "
                         "configurations per second, shapes derived, "
                         "runs through a skeleton, runs a query ruled out "
                         "by their persistent state and by a bound of "
                         "their peak, the shape cache's peak, "
                         "configurations timed, timing plans derived, "
                         "configurations skipped as slower than the K-th "
                         "best and the evaluation's seconds, CPU seconds "
                         "and rate to stderr"),
          llvm::cl::init(false), llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string> checkpointDir(
    "checkpoint-dir",
    llvm::cl::desc("Write the pipeline checkpoints of every reported "
                   "configuration (--top, --pareto) to <dir>/<index>/"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(searchCategory));

static llvm::cl::opt<std::string> suiteFile(
    "suite",
    llvm::cl::desc("Run a scenario suite: the best mapping of every scenario "
                   "on every candidate system, and the candidates ranked"),
    llvm::cl::value_desc("file"), llvm::cl::cat(searchCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "error: " << message << "\n";
  return EXIT_FAILURE;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::HideUnrelatedOptions(searchCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Blueprint search: the fastest mapping that fits\n");

  unsigned threads = jobs ? jobs.getValue()
                          : llvm::hardware_concurrency().compute_thread_count();
  if (!suiteFile.empty()) {
    for (llvm::cl::Option *option : std::initializer_list<llvm::cl::Option *>{
             &inputFile, &profileFile, &bindingFile, std::addressof(gpus),
             &globalBatch, &top, &pareto, &throughIR, &format, &svgFile,
             &checkpointDir, &stats})
      if (option->getNumOccurrences())
        return fail("--suite takes its scenarios, systems and profiles from "
                    "the suite file; " +
                    (option->ArgStr.empty() ? llvm::Twine("an input file")
                                            : "--" + option->ArgStr) +
                    " cannot be given with it");
    if (!bindingEntries.empty())
      return fail("--suite: the binding of every configuration is searched; "
                  "--binding cannot be given with it");
    std::string errorMessage;
    std::unique_ptr<llvm::MemoryBuffer> input =
        mlir::openInputFile(suiteFile, &errorMessage);
    if (!input)
      return fail(errorMessage);
    llvm::Expected<sweep::Suite> suite =
        sweep::parseSuiteInput(input->getBuffer(), suiteFile);
    if (!suite)
      return fail(llvm::toString(suite.takeError()));
    llvm::Expected<sweep::SuiteReport> report =
        sweep::runSuite(*suite, threads);
    if (!report)
      return fail(llvm::toString(report.takeError()));
    std::unique_ptr<llvm::ToolOutputFile> output =
        mlir::openOutputFile(outputFile, &errorMessage);
    if (!output)
      return fail(errorMessage);
    sweep::writeSuiteReport(*suite, *report, output->os());
    output->keep();
    return EXIT_SUCCESS;
  }

  if (format != "jsonl" && format != "csv")
    return fail("--format must be 'jsonl' or 'csv', got '" + format + "'");
  if (jobs.getNumOccurrences() && jobs == 0)
    return fail("--jobs must be at least 1");
  if (top.getNumOccurrences() && top == 0)
    return fail("--top must be at least 1");
  if (!checkpointDir.empty() && !top && !pareto)
    return fail("--checkpoint-dir keeps the audit trail of the reported "
                "configurations: give --top=K or --pareto");
  if (!checkpointDir.empty() && llvm::sys::fs::exists(checkpointDir) &&
      !llvm::sys::fs::is_directory(checkpointDir))
    return fail("--checkpoint-dir: '" + checkpointDir +
                "' exists and is not a directory");
  if (globalBatch.getNumOccurrences() && globalBatch < 1)
    return fail("--global-batch must be at least 1");
  if (profileFile.empty())
    return fail("--profile=<SystemProfile JSON file> is required");
  if (!bindingEntries.empty() && !bindingFile.empty())
    return fail("give at most one of --binding=axis:tier,... and "
                "--binding-file=<file>");

  llvm::Expected<estimate::SystemProfile> profile =
      estimate::loadSystemProfile(profileFile);
  if (!profile)
    return fail(llvm::toString(profile.takeError()));
  estimate::NetworkTierBinding baseBinding;
  if (!bindingEntries.empty() || !bindingFile.empty()) {
    llvm::Expected<estimate::NetworkTierBinding> binding =
        bindingFile.empty()
            ? estimate::parseNetworkTierBindingEntries(bindingEntries)
            : estimate::loadNetworkTierBinding(bindingFile);
    if (!binding)
      return fail(llvm::toString(binding.takeError()));
    baseBinding = std::move(*binding);
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &errorMessage);
  if (!input)
    return fail(errorMessage);
  std::optional<int64_t> batch;
  if (globalBatch.getNumOccurrences())
    batch = globalBatch;
  llvm::Expected<sweep::SearchSpace> space = sweep::parseSearchSpace(
      input->getBuffer(), inputFile, baseBinding, *profile, gpus, batch);
  if (!space)
    return fail(llvm::toString(space.takeError()));

  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &errorMessage);
  if (!output)
    return fail(errorMessage);
  sweep::SearchOptions options;
  options.threads = threads;
  options.throughIR = throughIR;
  options.format =
      format == "csv" ? sweep::RowFormat::CSV : sweep::RowFormat::JSONLines;
  if (top)
    options.top = top;
  options.pareto = pareto;
  options.checkpointDirectory = checkpointDir;
  // The rows are the same; only --search-stats' feasible count tells.
  options.skipExcluded = true;
  if (options.format == sweep::RowFormat::CSV)
    output->os() << sweep::searchCSVHeader(
                        options.top.has_value(),
                        space->lists("overlap_tp_comm"),
                        space->lists("overlap_dp_grad_reduce"),
                        space->lists("overlap_p2p_comm"),
                        space->hasExpertParallelFields())
                 << "\n";

  analysis::SearchScatter scatter;
  auto plot = [&](const sweep::Configuration &,
                  const sweep::RunEvaluation &result) {
    if (result.valid() && result.run.iterationPicoseconds)
      scatter.add(estimate::secondsOf(*result.run.iterationPicoseconds),
                  result.run.peakBytes, result.run.fits);
  };
  auto started = std::chrono::steady_clock::now();
  // Only the scatter observes every configuration: without it, a query
  // (--top, --pareto) times only the configurations that fit.
  llvm::Expected<sweep::SearchSummary> summary = sweep::runSearch(
      *space, *profile, options,
      [&](llvm::StringRef row) { output->os() << row << "\n"; },
      svgFile.empty() ? llvm::function_ref<void(const sweep::Configuration &,
                                                const sweep::RunEvaluation &)>()
                      : plot);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  if (!summary)
    return fail(llvm::toString(summary.takeError()));
  if (stats)
    llvm::errs()
        << "configurations " << summary->configurations << ", valid "
        << summary->valid << ", feasible " << summary->feasible << ", seconds "
        << llvm::format("%.3f", seconds) << ", configurations/s "
        << llvm::format("%.0f",
                        summary->configurations / std::max(seconds, 1e-9))
        << ", shapes derived " << summary->shapesDerived
        << ", runs through a skeleton " << summary->shapedRuns
        << ", runs ruled out by their persistent state "
        << summary->runsRuledOut << ", runs ruled out by a bound of their peak "
        << summary->runsRuledOutByBound << ", shape cache entries at peak "
        << summary->shapeEntriesHeld << ", shape cache bytes at peak "
        << summary->shapeBytesHeld << ", configurations timed "
        << summary->timed << ", timing plans derived "
        << summary->timingPlansDerived
        << ", configurations skipped as slower than the K-th best "
        << summary->skipped << ", evaluation seconds "
        << llvm::format("%.3f", summary->evaluationSeconds)
        << ", evaluation CPU seconds "
        << llvm::format("%.3f", summary->evaluationCPUSeconds)
        << ", configurations per evaluation CPU-second "
        << llvm::format("%.0f",
                        summary->configurations /
                            std::max(summary->evaluationCPUSeconds, 1e-9))
        << "\n";

  if (!svgFile.empty()) {
    std::vector<analysis::ScatterLabel> labels;
    // The front's rows say what each point is; only the best is named in
    // the picture, where the front's names would overlap.
    for (const sweep::Ranked &point : summary->front)
      labels.push_back(
          {point.picoseconds(), point.evaluation.run.peakBytes, "", false});
    if (summary->best) {
      const sweep::Ranked &best = *summary->best;
      labels.push_back({best.picoseconds(), best.evaluation.run.peakBytes,
                        "best: " + sweep::describeMapping(best.configuration),
                        true});
    }
    std::unique_ptr<llvm::ToolOutputFile> svg =
        mlir::openOutputFile(svgFile, &errorMessage);
    if (!svg)
      return fail(errorMessage);
    scatter.write(svg->os(), (space->title() + " on " + profile->name).str(),
                  profile->memory.usableCapacityBytes(), labels);
    svg->keep();
  }
  output->keep();
  return EXIT_SUCCESS;
}
