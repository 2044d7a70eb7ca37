//===- EstimatePlan.cpp - Cost portable plans against a SystemProfile -----===//
//
// A thin pass over lib/Estimate: reads each plan's tasks through
// WorkFactsOpInterface, costs them, prints the report. The plan is never
// changed, so the SystemProfile and the binding can never reach a digest.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/PlanAnalyses.h"
#include "Blueprint/Transforms/PlanEstimate.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace blueprint {
#define GEN_PASS_DEF_ESTIMATE
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

struct EstimatePass : blueprint::impl::EstimateBase<EstimatePass> {
  using EstimateBase::EstimateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const llvm::Twine &message) {
      module.emitError() << "estimate: " << message;
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

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    for (Operation &op : module.getBody()->getOperations()) {
      if (llvm::isa<dist::ProgramOp>(op))
        return fail("@" + SymbolTable::getSymbolName(&op).getValue() +
                    " is distributed IR; an estimate costs a portable plan "
                    "(run --plan-portable first)");
      auto plan = llvm::dyn_cast<pplan::PlanOp>(op);
      if (!plan)
        continue;
      if (plan.isWholeRun())
        return fail("@" + plan.getSymName() +
                    " is a whole-run plan (docs/WholeRun.md); --estimate "
                    "costs the block-scope plan of one block and one "
                    "micro-batch (--distribute-transformer without "
                    "scope=iteration)");
      llvm::Expected<estimate::EstimateReport> report =
          estimatePlan(plan, *profile, *tiers);
      if (!report)
        return fail("@" + plan.getSymName() + ": " +
                    llvm::toString(report.takeError()));
      output->os() << (format == "json" ? "" : "plan @" + plan.getSymName().str() + "\n");
      if (format == "json")
        estimate::printEstimateJSON(*report, output->os());
      else
        estimate::printEstimateTable(*report, output->os());
    }
    output->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace

llvm::Expected<estimate::EstimateReport>
blueprint::estimatePlan(pplan::PlanOp plan,
                        const estimate::SystemProfile &profile,
                        const estimate::NetworkTierBinding &binding,
                        const estimate::EstimateOptions &options) {
  // Matmul and vector work computes in the workload's activation type.
  workload::DataType computeType =
      plan.getTrainingAttr() ? plan.getTrainingAttr().getActivationType()
                             : plan.getInferenceAttr().getActivationType();
  estimate::EstimateInput input =
      estimate::makeEstimateInput(computeType, plan.getMapping().getSpec());
  auto tasks = plan.getBody().getOps<pplan::TaskOp>();
  input.tasks.reserve(llvm::range_size(tasks));
  for (pplan::TaskOp task : tasks) {
    auto work = llvm::cast<WorkFactsOpInterface>(task.getOperation());
    llvm::Expected<workload::InvocationFigures> figures = figuresOf(work);
    if (!figures)
      return figures.takeError();
    // A block's collective spans the axis its task names (pplan_task_c8:
    // cp for the key/value exchange), tp otherwise.
    input.tasks.push_back(estimate::makeEstimateTask(
        *figures, task.getCadence(),
        figures->collective ? figures->collective->axis
                            : estimate::kTensorParallelAxis.str()));
  }
  return estimate::estimateWork(input, profile, binding, options);
}
