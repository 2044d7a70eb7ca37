//===- blueprint-sweep.cpp - Evaluate many configurations in one process --===//
//
// Batch mode for design-space sweeps (docs/Sweep.md): reads a JSON list of
// specs or a grid over one spec, runs every configuration through the real
// pipeline on a pool of workers, and writes one row per configuration (JSON
// lines or CSV) in input order. A rejected configuration is a row carrying
// its diagnostics; only bad tool input (the batch file, the profile, the
// binding, the options) makes the tool fail.
//
// A separate tool rather than a blueprint-opt mode: blueprint-opt is mlir-opt
// over one IR input with IR output, while a sweep reads specs and writes
// rows, one context per worker.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/Sweep.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace blueprint;

// The tool links all of LLVM's registered options; --help lists only these.
static llvm::cl::OptionCategory sweepCategory("blueprint-sweep options");

static llvm::cl::opt<std::string>
    inputFile(llvm::cl::Positional,
              llvm::cl::desc("<batch: a JSON list of specs or a grid>"),
              llvm::cl::init("-"), llvm::cl::cat(sweepCategory));

static llvm::cl::opt<std::string>
    outputFile("o", llvm::cl::desc("Output file for the rows"),
               llvm::cl::value_desc("file"), llvm::cl::init("-"),
               llvm::cl::cat(sweepCategory));

static llvm::cl::opt<std::string>
    profileFile("profile", llvm::cl::desc("SystemProfile JSON file"),
                llvm::cl::value_desc("file"), llvm::cl::cat(sweepCategory));

static llvm::cl::list<std::string>
    bindingEntries("binding",
                   llvm::cl::desc("Mesh axis to network tier, as axis:tier"),
                   llvm::cl::CommaSeparated, llvm::cl::cat(sweepCategory));

static llvm::cl::opt<std::string> bindingFile(
    "binding-file",
    llvm::cl::desc("NetworkTierBinding JSON file (instead of --binding)"),
    llvm::cl::value_desc("file"), llvm::cl::cat(sweepCategory));

static llvm::cl::opt<std::string>
    format("format", llvm::cl::desc("Row format: jsonl or csv"),
           llvm::cl::init("jsonl"), llvm::cl::cat(sweepCategory));

static llvm::cl::opt<unsigned>
    jobs("jobs",
         llvm::cl::desc("Worker threads (default: one per hardware thread)"),
         llvm::cl::init(0), llvm::cl::cat(sweepCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "error: " << message << "\n";
  return EXIT_FAILURE;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::HideUnrelatedOptions(sweepCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Blueprint sweep: evaluate many configurations\n");

  if (format != "jsonl" && format != "csv")
    return fail("--format must be 'jsonl' or 'csv', got '" + format + "'");
  if (jobs.getNumOccurrences() && jobs == 0)
    return fail("--jobs must be at least 1");
  if (profileFile.empty())
    return fail("--profile=<SystemProfile JSON file> is required");
  if (bindingEntries.empty() == bindingFile.empty())
    return fail("give exactly one of --binding=axis:tier,... and "
                "--binding-file=<file>");

  llvm::Expected<estimate::SystemProfile> profile =
      estimate::loadSystemProfile(profileFile);
  if (!profile)
    return fail(llvm::toString(profile.takeError()));
  llvm::Expected<estimate::NetworkTierBinding> binding =
      bindingFile.empty()
          ? estimate::parseNetworkTierBindingEntries(bindingEntries)
          : estimate::loadNetworkTierBinding(bindingFile);
  if (!binding)
    return fail(llvm::toString(binding.takeError()));
  sweep::Target target{std::move(*profile), std::move(*binding)};
  if (llvm::Error error = sweep::checkTarget(target))
    return fail(llvm::toString(std::move(error)));

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &errorMessage);
  if (!input)
    return fail(errorMessage);
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(input->getBuffer());
  if (!batch)
    return fail(inputFile + ": " + llvm::toString(batch.takeError()));

  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &errorMessage);
  if (!output)
    return fail(errorMessage);
  sweep::RowFormat rowFormat =
      format == "csv" ? sweep::RowFormat::CSV : sweep::RowFormat::JSONLines;
  if (rowFormat == sweep::RowFormat::CSV)
    output->os() << sweep::csvHeader(batch->axes()) << "\n";
  unsigned workers = jobs ? jobs.getValue()
                          : llvm::hardware_concurrency().compute_thread_count();
  sweep::runBatch(*batch, target, workers, rowFormat,
                  [&](llvm::StringRef row) { output->os() << row << "\n"; });
  output->keep();
  return EXIT_SUCCESS;
}
