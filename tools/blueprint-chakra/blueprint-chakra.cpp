//===- blueprint-chakra.cpp - Chakra execution traces of a whole run ------===//
//
// Reads a module holding one whole-run `dist.program` (blueprint-opt
// --distribute-transformer=scope=iteration) and writes one MLCommons Chakra
// execution trace per rank, `<prefix>.<rank>.et`, with the process groups
// of its collectives in `<prefix>.comm_groups.json` (ASTRA-sim's
// communicator-group configuration). docs/Chakra.md maps every field.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Chakra/ChakraExport.h"
#include "Blueprint/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace blueprint;

static llvm::cl::OptionCategory chakraCategory("blueprint-chakra options");

static llvm::cl::opt<std::string>
    inputFile(llvm::cl::Positional,
              llvm::cl::desc("<whole-run module (.mlir, '-' for stdin)>"),
              llvm::cl::init("-"), llvm::cl::cat(chakraCategory));

static llvm::cl::opt<std::string>
    outputPrefix("o", llvm::cl::Required,
                 llvm::cl::desc("Output prefix: writes <prefix>.<rank>.et and "
                                "<prefix>.comm_groups.json"),
                 llvm::cl::value_desc("prefix"), llvm::cl::cat(chakraCategory));

static llvm::cl::opt<std::string> ranksOption(
    "ranks",
    llvm::cl::desc(
        "The ranks that get a trace: 'all' (every rank; a simulator run "
        "needs it, as ASTRA-sim reads <prefix>.<rank>.et for every NPU) or "
        "'one-per-stage' (the lowest rank of each pipeline stage, for "
        "inspection and per-stage totals)"),
    llvm::cl::value_desc("all|one-per-stage"), llvm::cl::init("one-per-stage"),
    llvm::cl::cat(chakraCategory));

/// Prints "blueprint-chakra: error: <message>" and returns 1.
static int reportError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "blueprint-chakra") << message << "\n";
  return 1;
}

/// Writes `contents` to `path`; fails with the reason and the option that
/// named it.
static llvm::Error writeFile(llvm::StringRef path, llvm::StringRef contents) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "-o: cannot write '" + path + "': " + error +
            " (the prefix's directory must exist and be writable)");
  file->os() << contents;
  file->keep();
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(chakraCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Blueprint Chakra exporter: one execution trace per rank of a "
      "whole-run program\n");

  std::optional<chakra::RankSelection> selection =
      chakra::parseRankSelection(ranksOption);
  if (!selection)
    return reportError("--ranks must be 'all' or 'one-per-stage', got '" +
                       ranksOption + "'");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return reportError(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser or a verifier reported why

  auto programs = module->getBody()->getOps<dist::ProgramOp>();
  size_t count = std::distance(programs.begin(), programs.end());
  if (count != 1)
    return reportError(
        "the input must hold exactly one dist.program (the whole run of "
        "blueprint-opt --distribute-transformer=scope=iteration); it holds " +
        llvm::Twine(count));

  llvm::Expected<chakra::ExportSummary> summary = chakra::exportTraces(
      *programs.begin(), *selection, [&](int64_t rank, llvm::StringRef trace) {
        return writeFile(outputPrefix + "." + std::to_string(rank) + ".et",
                         trace);
      });
  if (!summary)
    return reportError(llvm::toString(summary.takeError()));
  if (llvm::Error written =
          writeFile(outputPrefix + ".comm_groups.json",
                    chakra::processGroupsJSON(summary->groups)))
    return reportError(llvm::toString(std::move(written)));
  return 0;
}
