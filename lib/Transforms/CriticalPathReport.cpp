//===- CriticalPathReport.cpp - Iteration time of a whole-run plan --------===//
//
// A thin pass over planGraphOf and analysis::longestPath: costs each step
// of a whole-run plan against a SystemProfile, walks the dependency graph,
// prints the iteration time, the exposed communication, each stage's
// bubble and the critical path, and optionally draws the schedule. The plan
// is never changed, so the profile never reaches a digest.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/PlanAnalyses.h"

#include "Blueprint/Analysis/RunPictures.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace blueprint {
#define GEN_PASS_DEF_CRITICALPATH
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

struct CriticalPathPass : blueprint::impl::CriticalPathBase<CriticalPathPass> {
  using CriticalPathBase::CriticalPathBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const llvm::Twine &message) {
      module.emitError() << "critical-path: " << message;
      signalPassFailure();
    };
    if (format != "table" && format != "json")
      return fail("format must be 'table' or 'json', got '" + format + "'");
    llvm::Expected<CostTarget> target =
        loadCostTarget(profileFile, binding, bindingFile);
    if (!target)
      return fail(llvm::toString(target.takeError()));
    const estimate::SystemProfile *profile = &target->profile;
    const estimate::NetworkTierBinding *tiers = &target->binding;

    struct PlanPath {
      pplan::PlanOp plan;
      analysis::RunGraph graph;
      analysis::CriticalPathReport report;
    };
    std::vector<PlanPath> paths;
    for (Operation &op : module.getBody()->getOperations()) {
      if (llvm::isa<dist::ProgramOp>(op))
        return fail("@" + SymbolTable::getSymbolName(&op).getValue() +
                    " is distributed IR; the critical path is walked on its "
                    "portable plan (run --plan-portable first)");
      auto plan = llvm::dyn_cast<pplan::PlanOp>(op);
      if (!plan)
        continue;
      if (!plan.isWholeRun())
        return fail("@" + plan.getSymName() +
                    " is a block-scope plan; the critical path needs the "
                    "whole run (--distribute-transformer=scope=iteration "
                    "--plan-portable); --estimate costs a block");
      llvm::Expected<analysis::RunGraph> graph =
          planGraphOf(plan, *profile, *tiers);
      if (!graph)
        return fail(llvm::toString(graph.takeError()));
      llvm::Expected<analysis::CriticalPathReport> report =
          analysis::longestPath(*graph);
      if (!report)
        return fail("@" + plan.getSymName() + ": " +
                    llvm::toString(report.takeError()));
      paths.push_back({plan, std::move(*graph), std::move(*report)});
    }
    if (paths.empty())
      return fail("the module has no whole-run pplan.plan");
    if (!timelineSVG.empty() && paths.size() != 1)
      return fail("timeline-svg draws one plan; the module has " +
                  llvm::Twine(paths.size()));

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    if (format == "json") {
      llvm::json::OStream json(output->os(), 2);
      json.object([&] {
        json.attribute("profile", profile->name);
        json.attributeArray("plans", [&] {
          for (PlanPath &path : paths)
            json.object([&] {
              json.attribute("plan", path.plan.getSymName());
              analysis::writeCriticalPathJSON(path.graph, path.report, json);
            });
        });
      });
      output->os() << "\n";
    } else {
      for (PlanPath &path : paths) {
        output->os() << "plan @" << path.plan.getSymName() << " on profile '"
                     << profile->name << "'\n";
        analysis::printCriticalPathTable(path.graph, path.report, output->os());
      }
    }
    if (!timelineSVG.empty()) {
      std::unique_ptr<llvm::ToolOutputFile> svg =
          openOutputFile(timelineSVG, &error);
      if (!svg)
        return fail(error);
      PlanPath &path = paths.front();
      analysis::writeTimelineSVG(path.graph, path.report,
                                 "@" + path.plan.getSymName().str() + " on " +
                                     profile->name,
                                 svg->os());
      svg->keep();
    }
    output->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
