//===- Module.cpp - The blueprint._blueprint extension module -------------===//
//
// The C++ half of the Python package (docs/Python.md): thin functions over
// the plain libraries the tools call. Everything crosses as text - specs,
// profiles, grids and suites as JSON in, bindings as JSON or as the tools'
// --binding value; totals, rows, IR and checkpoint records as the tools' own
// output - so the package's results are the tools' byte for byte, and exact
// integers (the 128-bit totals of an iteration among them) reach Python as
// ints through its JSON parser. A binding crosses back parsed, as an opaque
// object, so that only the tools' parser reads it.
//
// This file alone is compiled with exceptions, which pybind11 needs. The
// libraries are not: they report failure as llvm::Error or as diagnostics,
// which this file turns into DiagnosticError, raised in Python as
// blueprint.BlueprintError. It throws nothing through a library: the
// callbacks the libraries call are noexcept, so an allocation failure in one
// aborts the process, as allocation failure does in LLVM (docs/Python.md),
// rather than unwinding through frames built without exceptions.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Checkpoint/Checkpoint.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Support/DiagnosticCapture.h"
#include "Blueprint/Sweep/Search.h"
#include "Blueprint/Sweep/Suite.h"
#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Transforms/WorkTotals.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Threading.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace blueprint;

namespace {

/// A rejection: what was being done (`stage`, e.g. "import") and the error
/// diagnostics, in emission order.
class DiagnosticError : public std::runtime_error {
public:
  DiagnosticError(std::string stage, std::vector<std::string> diagnostics)
      : std::runtime_error(llvm::join(diagnostics, "\n")),
        stage(std::move(stage)), diagnostics(std::move(diagnostics)) {}

  std::string stage;
  std::vector<std::string> diagnostics;
};

/// Throws the message of `error` (one diagnostic per line) as `stage`'s.
[[noreturn]] void raise(llvm::StringRef stage, llvm::Error error) {
  llvm::SmallVector<llvm::StringRef> lines;
  std::string message = llvm::toString(std::move(error));
  llvm::StringRef(message).split(lines, '\n', -1, /*KeepEmpty=*/false);
  throw DiagnosticError(stage.str(),
                        std::vector<std::string>(lines.begin(), lines.end()));
}

/// The value, or the error thrown as `stage`'s.
template <typename T> T take(llvm::StringRef stage, llvm::Expected<T> value) {
  if (!value)
    raise(stage, value.takeError());
  return std::move(*value);
}

/// The worker count the tools default to: one per hardware thread.
unsigned workerCount(unsigned threads) {
  return threads ? threads
                 : llvm::hardware_concurrency().compute_thread_count();
}

/// A binding given as a JSON object from mesh axis to tier.
estimate::NetworkTierBinding parseBinding(const std::string &bindingJSON) {
  return take("binding", estimate::parseNetworkTierBinding(bindingJSON));
}

/// A binding given as the tools' --binding value, "axis:tier,...", split at
/// every comma as their comma-separated option splits it (an empty entry is
/// one, which the tools reject), and checked by the tools' own parser.
estimate::NetworkTierBinding parseBindingEntries(const std::string &entries) {
  llvm::SmallVector<llvm::StringRef> split;
  llvm::StringRef(entries).split(split, ',', -1, /*KeepEmpty=*/true);
  return take("binding",
              estimate::parseNetworkTierBindingEntries(
                  std::vector<std::string>(split.begin(), split.end())));
}

/// A profile and a binding checked against each other, as blueprint-sweep
/// checks its options.
sweep::Target parseTarget(const std::string &profileJSON,
                          const estimate::NetworkTierBinding &binding) {
  sweep::Target target{
      take("profile", estimate::parseSystemProfile(profileJSON)), binding};
  if (llvm::Error error = sweep::checkTarget(target))
    raise("binding", std::move(error));
  return target;
}

/// The name of the profile `profileJSON`, whose errors name `path`, the file
/// it was read from, when given.
std::string checkProfile(const std::string &profileJSON,
                         const std::optional<std::string> &path) {
  return take("profile",
              estimate::parseSystemProfile(profileJSON, path.value_or("")))
      .name;
}

/// The ModelIR symbol of the spec, after the importer's every check.
std::string checkSpec(const std::string &specJSON, const std::string &label) {
  return take("import", sweep::importContracts(specJSON, label)).name;
}

/// The textual IR after the pipeline, each published checkpoint as its JSON
/// record and IR, and the work summary of the result when asked for.
struct PipelineOutput {
  std::string ir;
  std::vector<std::pair<std::string, std::string>> checkpoints;
  std::optional<std::string> workSummary;
};

/// Imports the spec and runs `pipeline` (a textual pass pipeline,
/// `builtin.module(...)`) under the pass manager's verifier, with a checkpoint
/// session publishing in memory when `checkpoints`, as blueprint-opt does.
PipelineOutput runPipeline(const std::string &specJSON,
                           const std::string &label,
                           const std::string &pipeline, bool checkpoints,
                           bool workSummary) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  std::vector<std::string> errors;
  DiagnosticCapture capture(context, errors);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(specJSON, label), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importTransformerJSON(sourceMgr, &context);
  if (!module)
    throw DiagnosticError("import", errors);

  std::string parseErrors;
  llvm::raw_string_ostream parseStream(parseErrors);
  mlir::FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(pipeline, parseStream);
  if (mlir::failed(parsed))
    throw DiagnosticError("pipeline",
                          {"invalid pipeline '" + pipeline +
                           "': " + llvm::StringRef(parseErrors).trim().str()});
  if (parsed->getOpAnchorName() != mlir::ModuleOp::getOperationName())
    throw DiagnosticError("pipeline", {"invalid pipeline '" + pipeline +
                                       "': expected builtin.module(...)"});
  // A pass manager on the module itself, running the parsed passes (a
  // pipeline parsed into a pass manager would be nested in the module).
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  static_cast<mlir::OpPassManager &>(pm) = *parsed;
  CheckpointSession session({/*directory=*/"", "blueprint-python"});
  if (checkpoints && mlir::failed(session.instrument(pm)))
    throw DiagnosticError("pipeline", errors);
  if (mlir::failed(pm.run(*module)) || mlir::failed(session.status()))
    throw DiagnosticError("pipeline", errors);

  PipelineOutput output;
  llvm::raw_string_ostream(output.ir) << *module << "\n";
  for (const std::unique_ptr<Checkpoint> &checkpoint :
       session.getCheckpoints()) {
    std::string record;
    llvm::raw_string_ostream recordStream(record);
    checkpoint->writeJSON(recordStream, checkpoint->fileStem() + ".mlir");
    output.checkpoints.emplace_back(std::move(record), checkpoint->ir);
  }
  if (workSummary) {
    mlir::FailureOr<std::vector<ProgramTotals>> programs =
        summarizePrograms(*module);
    if (mlir::failed(programs))
      throw DiagnosticError("work-summary", errors);
    output.workSummary.emplace();
    llvm::raw_string_ostream summaryStream(*output.workSummary);
    writeWorkSummaryJSON(*programs, summaryStream);
  }
  return output;
}

/// The batch row (docs/Sweep.md) of one spec: blueprint-sweep's row of a
/// list holding only that spec. A rejected spec raises.
std::string estimateSpec(const std::string &specJSON, const std::string &label,
                         const std::string &profileJSON,
                         const estimate::NetworkTierBinding &binding) {
  sweep::Target target = parseTarget(profileJSON, binding);
  sweep::Evaluator evaluator(target);
  sweep::Evaluation evaluation = evaluator.evaluateSpec(specJSON, label);
  if (!evaluation.valid())
    throw DiagnosticError(sweep::stringifyStage(*evaluation.rejectedAt).str(),
                          evaluation.diagnostics);
  return sweep::formatRow(sweep::RowFormat::JSONLines, 0, {}, {}, evaluation);
}

/// blueprint-sweep's JSON rows of a batch (a list of specs or a grid).
std::vector<std::string>
evaluateBatch(const std::string &batchJSON, const std::string &profileJSON,
              const estimate::NetworkTierBinding &binding, unsigned threads) {
  sweep::Target target = parseTarget(profileJSON, binding);
  sweep::Batch batch = take("grid", sweep::Batch::parse(batchJSON));
  std::vector<std::string> rows;
  sweep::runBatch(
      batch, target, workerCount(threads), sweep::RowFormat::JSONLines,
      [&](llvm::StringRef row) noexcept { rows.push_back(row.str()); });
  return rows;
}

/// blueprint-search's JSON rows of a space read from `inputFile`, and its
/// errors, which name the file.
std::vector<std::string> search(
    const std::string &spaceJSON, const std::string &inputFile,
    const std::string &profileJSON, const estimate::NetworkTierBinding &binding,
    const std::vector<int64_t> &gpus, std::optional<int64_t> globalBatch,
    std::optional<size_t> top, bool pareto, bool throughIR, unsigned threads) {
  estimate::SystemProfile profile =
      take("profile", estimate::parseSystemProfile(profileJSON));
  sweep::SearchSpace space =
      take("space", sweep::parseSearchSpace(spaceJSON, inputFile, binding,
                                            profile, gpus, globalBatch));
  sweep::SearchOptions options;
  options.threads = workerCount(threads);
  options.throughIR = throughIR;
  options.top = top;
  options.pareto = pareto;
  std::vector<std::string> rows;
  take("search", sweep::runSearch(space, profile, options,
                                  [&](llvm::StringRef row) noexcept {
                                    rows.push_back(row.str());
                                  }));
  return rows;
}

/// The JSON lines of blueprint-search --suite on a suite read from
/// `inputFile`, whose profile paths are relative to its folder; errors in
/// the suite name the file.
std::vector<std::string> runSuite(const std::string &suiteJSON,
                                  const std::string &inputFile,
                                  unsigned threads) {
  sweep::Suite suite =
      take("suite", sweep::parseSuiteInput(suiteJSON, inputFile));
  sweep::SuiteReport report =
      take("suite", sweep::runSuite(suite, workerCount(threads)));
  std::string text;
  llvm::raw_string_ostream os(text);
  sweep::writeSuiteReport(suite, report, os);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  return std::vector<std::string>(lines.begin(), lines.end());
}

} // namespace

PYBIND11_MODULE(_blueprint, m) {
  m.doc() = "The C++ half of the blueprint package: JSON text in, the "
            "tools' output out. Use the functions of `blueprint`.";
  registerAllPasses();

  // Raised as blueprint.BlueprintError, which the pure-Python part of the
  // package defines with its rule and path readers.
  py::register_exception_translator([](std::exception_ptr pending) {
    try {
      if (pending)
        std::rethrow_exception(pending);
    } catch (const DiagnosticError &error) {
      py::object instance =
          py::module_::import("blueprint.errors")
              .attr("BlueprintError")(error.stage, error.diagnostics);
      PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(instance.ptr())),
                      instance.ptr());
    }
  });

  using release = py::call_guard<py::gil_scoped_release>;
  // Opaque to Python: made by parse_binding or parse_binding_entries and
  // passed back in as is, so that only the tools' parser reads a binding.
  py::class_<estimate::NetworkTierBinding>(
      m, "NetworkTierBinding",
      "A network tier binding the tools' parser accepted.");
  m.def("parse_binding", &parseBinding, py::arg("binding_json"), release(),
        "Parses a binding given as a JSON object from mesh axis to tier.");
  m.def("parse_binding_entries", &parseBindingEntries, py::arg("entries"),
        release(),
        "Parses a binding given as the tools' --binding value, "
        "\"axis:tier,...\".");
  m.def("check_spec", &checkSpec, py::arg("spec_json"), py::arg("label"),
        release(), "Imports a spec; returns its ModelIR symbol.");
  m.def("check_profile", &checkProfile, py::arg("profile_json"),
        py::arg("path"), release(),
        "Parses a SystemProfile; returns its name.");
  m.def(
      "run_pipeline",
      [](const std::string &specJSON, const std::string &label,
         const std::string &pipeline, bool checkpoints, bool workSummary) {
        PipelineOutput output;
        {
          py::gil_scoped_release released;
          output =
              runPipeline(specJSON, label, pipeline, checkpoints, workSummary);
        }
        return py::make_tuple(output.ir, output.checkpoints,
                              output.workSummary);
      },
      py::arg("spec_json"), py::arg("label"), py::arg("pipeline"),
      py::arg("checkpoints"), py::arg("work_summary"),
      "Imports a spec and runs a pass pipeline; returns (IR, [(record, IR)], "
      "work summary or None).");
  m.def("estimate", &estimateSpec, py::arg("spec_json"), py::arg("label"),
        py::arg("profile_json"), py::arg("binding"), release(),
        "The blueprint-sweep row of one spec.");
  m.def("evaluate_batch", &evaluateBatch, py::arg("batch_json"),
        py::arg("profile_json"), py::arg("binding"), py::arg("threads"),
        release(), "The blueprint-sweep rows of a batch.");
  m.def("search", &search, py::arg("space_json"), py::arg("input_file"),
        py::arg("profile_json"), py::arg("binding"), py::arg("gpus"),
        py::arg("global_batch"), py::arg("top"), py::arg("pareto"),
        py::arg("through_ir"), py::arg("threads"), release(),
        "The blueprint-search rows of a space.");
  m.def("run_suite", &runSuite, py::arg("suite_json"), py::arg("input_file"),
        py::arg("threads"), release(),
        "The blueprint-search --suite lines of a suite.");
}
