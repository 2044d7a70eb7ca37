//===- blueprint-opt.cpp - The Blueprint optimizer driver -----------------===//
//
// mlir-opt with the Blueprint dialects and passes registered. Every standard
// mlir-opt flag keeps working: the command line is parsed by MLIR's own
// option machinery, and Blueprint's checkpoint session is attached through
// the pass-pipeline setup hook of the resulting configuration.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Checkpoint/Checkpoint.h"
#include "Blueprint/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

static llvm::cl::OptionCategory checkpointCategory(
    "Blueprint checkpoint options (docs/Checkpoints.md)");

static llvm::cl::opt<std::string> checkpointDir(
    "blueprint-checkpoint-dir",
    llvm::cl::desc("Write every published checkpoint (IR and JSON record) "
                   "into this directory"),
    llvm::cl::value_desc("directory"), llvm::cl::cat(checkpointCategory));

static llvm::cl::list<std::string> observerNames(
    "blueprint-observe",
    llvm::cl::desc("Built-in checkpoint observers to run: conservation, "
                   "mesh, recompute, no-target-fields, reference"),
    llvm::cl::CommaSeparated, llvm::cl::cat(checkpointCategory));

static llvm::cl::opt<std::string> referenceFile(
    "blueprint-reference-file",
    llvm::cl::desc("JSON file of expected totals for the 'reference' "
                   "observer"),
    llvm::cl::value_desc("file"), llvm::cl::cat(checkpointCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  blueprint::registerAllDialects(registry);
  blueprint::registerAllPasses();
  // The generic clean-ups users combine with Blueprint pipelines.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Blueprint optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();

  // Checkpointing is opt-in: without it blueprint-opt is plain mlir-opt.
  bool audit = !checkpointDir.empty() || !observerNames.empty();
  blueprint::CheckpointSession session({checkpointDir, "blueprint-opt"});
  for (const std::string &name : observerNames) {
    llvm::Expected<std::unique_ptr<blueprint::CheckpointObserver>> observer =
        blueprint::createBuiltinObserver(name, referenceFile);
    if (!observer) {
      llvm::errs() << "error: " << llvm::toString(observer.takeError())
                   << "\n";
      return EXIT_FAILURE;
    }
    session.addObserver(std::move(*observer));
  }
  if (audit) {
    mlir::MlirOptMainConfig cliPipeline = config;
    config.setPassPipelineSetupFn([&, cliPipeline](mlir::PassManager &pm) {
      if (mlir::failed(cliPipeline.setupPassPipeline(pm)))
        return mlir::failure();
      return session.instrument(pm);
    });
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  // Under checkpointing the output is held back until the session says no
  // transition was rejected: a rejected stage publishes no output.
  std::string held;
  llvm::raw_string_ostream heldStream(held);
  std::unique_ptr<llvm::ToolOutputFile> output;
  if (!audit) {
    output = mlir::openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      llvm::errs() << errorMessage << "\n";
      return EXIT_FAILURE;
    }
  }
  llvm::raw_ostream &os =
      audit ? static_cast<llvm::raw_ostream &>(heldStream) : output->os();
  if (mlir::failed(
          mlir::MlirOptMain(os, std::move(input), registry, config)) ||
      mlir::failed(session.status()))
    return EXIT_FAILURE;
  if (audit) {
    output = mlir::openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      llvm::errs() << errorMessage << "\n";
      return EXIT_FAILURE;
    }
    output->os() << held;
  }
  output->keep();
  return EXIT_SUCCESS;
}
