//===- MemoryReport.cpp - Peak memory of each stage of a whole-run plan ---===//
//
// A thin pass over PlanMemoryAnalysis (lib/Transforms/PlanAnalyses.cpp):
// reads each whole-run plan's buffer lifetimes, prints each stage's peak
// with what is live there, and optionally draws it (RunPictures). The plan
// is never changed.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/PlanAnalyses.h"

#include "Blueprint/Analysis/RunPictures.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace blueprint {
#define GEN_PASS_DEF_MEMORYREPORT
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// "pplan.instance @block_backward chunk 0 micro_batch 3": the stage op at a
/// position, as the report names it.
std::string describeStageOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([](pplan::InstanceOp instance) {
        std::string text = "pplan.instance @" +
                           instance.getTemplateName().str() + " chunk " +
                           std::to_string(instance.getChunk());
        if (instance.getMicroBatchAttr())
          text += " micro_batch " +
                  std::to_string(instance.getMicroBatchAttr().getInt());
        return text;
      })
      .Case<pplan::SendOp, pplan::RecvOp>([](auto transfer) {
        return transfer->getName().getStringRef().str() + " " +
               workload::stringifyEnum(transfer.getMessage()).str() +
               " micro_batch " + std::to_string(transfer.getMicroBatch()) +
               " chunk " + std::to_string(transfer.getChunk());
      })
      .Case([](pplan::TaskOp task) {
        return "pplan.task \"" + task.getPrimitive().str() + "\"";
      })
      .Default([](Operation *other) {
        return other->getName().getStringRef().str();
      });
}

/// The stage's ops at its positions (its buffers not counted).
llvm::SmallVector<Operation *> stageOps(pplan::PlanOp plan, int64_t index) {
  llvm::SmallVector<Operation *> ops;
  for (pplan::StageOp stage : plan.getBody().getOps<pplan::StageOp>())
    if (stage.getIndex() == index)
      for (Operation &op : stage.getBody().front())
        if (!llvm::isa<pplan::BufferOp>(op))
          ops.push_back(&op);
  return ops;
}

struct MemoryReportPass : blueprint::impl::MemoryReportBase<MemoryReportPass> {
  using MemoryReportBase::MemoryReportBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const llvm::Twine &message) {
      module.emitError() << "memory-report: " << message;
      signalPassFailure();
    };
    if (format != "table" && format != "json")
      return fail("format must be 'table' or 'json', got '" + format + "'");
    llvm::SmallVector<pplan::PlanOp> plans;
    for (Operation &op : module.getBody()->getOperations()) {
      if (llvm::isa<dist::ProgramOp>(op))
        return fail("@" + SymbolTable::getSymbolName(&op).getValue() +
                    " is distributed IR; the buffers and their lifetimes are "
                    "in its portable plan (run --plan-portable first)");
      auto plan = llvm::dyn_cast<pplan::PlanOp>(op);
      if (!plan)
        continue;
      if (!plan.isWholeRun())
        return fail("@" + plan.getSymName() +
                    " is a block-scope plan; buffer lifetimes are derived for "
                    "a whole-run plan (--distribute-transformer="
                    "scope=iteration --plan-portable)");
      plans.push_back(plan);
    }
    if (plans.empty())
      return fail("the module has no whole-run pplan.plan");
    if (!memorySVG.empty() && plans.size() != 1)
      return fail("memory-svg draws one plan; the module has " +
                  llvm::Twine(plans.size()));

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    std::vector<const PlanMemoryAnalysis *> analyses;
    for (pplan::PlanOp plan : plans) {
      const auto &analysis = getChildAnalysis<PlanMemoryAnalysis>(plan);
      if (analysis.error())
        return fail(*analysis.error());
      analyses.push_back(&analysis);
    }
    if (format == "json") {
      llvm::json::OStream json(output->os(), 2);
      json.object([&] {
        json.attributeArray("plans", [&] {
          for (auto [plan, analysis] : llvm::zip(plans, analyses))
            writeJSON(plan, *analysis, json);
        });
      });
      output->os() << "\n";
    } else {
      for (auto [plan, analysis] : llvm::zip(plans, analyses))
        printTable(plan, *analysis, output->os());
    }
    if (!memorySVG.empty()) {
      std::unique_ptr<llvm::ToolOutputFile> svg =
          openOutputFile(memorySVG, &error);
      if (!svg)
        return fail(error);
      analysis::writeMemorySVG(
          analyses.front()->buffers(), analyses.front()->memory(),
          "@" + plans.front().getSymName().str() + ": live bytes per rank",
          svg->os());
      svg->keep();
    }
    output->keep();
    markAllAnalysesPreserved();
  }

  static void printTable(pplan::PlanOp plan, const PlanMemoryAnalysis &result,
                         llvm::raw_ostream &os) {
    os << "plan @" << plan.getSymName()
       << ": peak memory of one rank of each pipeline stage\n";
    for (auto [buffers, memory] :
         llvm::zip(result.buffers(), result.memory())) {
      llvm::SmallVector<Operation *> ops = stageOps(plan, memory.stage);
      os << "stage " << memory.stage << ": peak " << memory.peakBytes
         << " bytes at position " << memory.peakPosition << " of "
         << buffers.positions;
      if (memory.peakPosition < ops.size())
        os << " (" << describeStageOp(ops[memory.peakPosition]) << ")";
      os << "\n  by kind:";
      for (size_t kind = 0; kind < workload::kNumBufferKinds; ++kind)
        if (memory.peakByKind[kind] != 0)
          os << " "
             << workload::stringifyEnum(static_cast<workload::BufferKind>(kind))
             << " " << memory.peakByKind[kind];
      os << "\n  by cause:";
      for (size_t cause = 0; cause < workload::kNumBufferCauses; ++cause)
        if (memory.peakByCause[cause] != 0)
          os << " "
             << workload::stringifyEnum(
                    static_cast<workload::BufferCause>(cause))
             << " " << memory.peakByCause[cause];
      os << "\n  largest alone:";
      for (size_t cause = 0; cause < workload::kNumBufferCauses; ++cause)
        if (memory.maxByCause[cause] != 0)
          os << " "
             << workload::stringifyEnum(
                    static_cast<workload::BufferCause>(cause))
             << " " << memory.maxByCause[cause];
      os << "\n  live at the peak (" << memory.liveAtPeak.size()
         << " buffers):\n";
      for (size_t index : memory.liveAtPeak) {
        const workload::RunBuffer &buffer = buffers.buffers[index];
        os << "    @" << buffer.name << " "
           << workload::stringifyEnum(buffer.kind()) << " "
           << workload::stringifyEnum(buffer.cause) << " " << buffer.bytes
           << " bytes live [" << buffer.start << ", " << buffer.end << "]\n";
      }
    }
  }

  static void writeJSON(pplan::PlanOp plan, const PlanMemoryAnalysis &result,
                        llvm::json::OStream &json) {
    auto byEnum = [&](llvm::StringRef name, llvm::ArrayRef<int64_t> bytes,
                      auto stringify) {
      json.attributeObject(name, [&] {
        for (auto [index, value] : llvm::enumerate(bytes))
          if (value != 0)
            json.attribute(stringify(index), value);
      });
    };
    auto kindName = [](size_t kind) {
      return workload::stringifyEnum(static_cast<workload::BufferKind>(kind));
    };
    auto causeName = [](size_t cause) {
      return workload::stringifyEnum(static_cast<workload::BufferCause>(cause));
    };
    json.object([&] {
      json.attribute("plan", plan.getSymName());
      json.attributeArray("stages", [&] {
        for (size_t stage = 0; stage < result.memory().size(); ++stage) {
          const workload::StageBuffers &buffers = result.buffers()[stage];
          const workload::StageMemory &memory = result.memory()[stage];
          llvm::SmallVector<Operation *> ops = stageOps(plan, memory.stage);
          json.object([&] {
            json.attribute("stage", memory.stage);
            json.attribute("positions",
                           static_cast<int64_t>(buffers.positions));
            json.attribute("buffers",
                           static_cast<int64_t>(buffers.buffers.size()));
            json.attribute("peak_bytes", memory.peakBytes);
            json.attribute("peak_position",
                           static_cast<int64_t>(memory.peakPosition));
            if (memory.peakPosition < ops.size())
              json.attribute("peak_op",
                             describeStageOp(ops[memory.peakPosition]));
            byEnum("by_kind", memory.peakByKind, kindName);
            byEnum("by_cause", memory.peakByCause, causeName);
            byEnum("largest_by_cause", memory.maxByCause, causeName);
            json.attributeArray("live_at_peak", [&] {
              for (size_t index : memory.liveAtPeak) {
                const workload::RunBuffer &buffer = buffers.buffers[index];
                json.object([&] {
                  json.attribute("name", buffer.name);
                  json.attribute("kind",
                                 workload::stringifyEnum(buffer.kind()));
                  json.attribute("cause",
                                 workload::stringifyEnum(buffer.cause));
                  json.attribute("bytes", buffer.bytes);
                  json.attribute("start", static_cast<int64_t>(buffer.start));
                  json.attribute("end", static_cast<int64_t>(buffer.end));
                });
              }
            });
          });
        }
      });
    });
  }
};

} // namespace
