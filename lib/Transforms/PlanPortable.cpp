//===- PlanPortable.cpp - DistributedTaskIR to PortablePlanIR -------------===//
//
// A thin pass: every `dist` work op becomes a `pplan.task` with the same
// facts and location; the capabilities, demand and stages come from the
// plain helpers of Blueprint/Workload/Plan.h, the ledger from the algebra's
// own summarize().
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Plan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

namespace blueprint {
#define GEN_PASS_DEF_PLANPORTABLE
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// Per-rank bytes of a boundary: its global size divided among the ranks
/// its sharding splits it over (workload::shardBytes, as the conservation
/// check computes it from the derived tensor).
llvm::Expected<int64_t> bytesPerRank(dist::BoundaryOp boundary,
                                     dist::MeshOp mesh) {
  auto type = llvm::cast<RankedTensorType>(boundary.getType());
  workload::OverflowGuard guard;
  int64_t shards = 1;
  for (Attribute axes : boundary.getSharding().getSplitAxes())
    for (StringRef axis :
         llvm::cast<ArrayAttr>(axes).getAsValueRange<StringAttr>())
      shards = guard.mul(shards, mesh.getAxisSize(axis).value_or(1),
                         "boundary shards");
  if (guard.failed())
    return guard.error("planning");
  // dist_boundary_c5: the element type is a work-algebra datatype.
  workload::DataType dataType = *dist::getDataType(type.getElementType());
  return workload::shardBytes(type.getShape(), workload::bytesOf(dataType),
                              shards, boundary.getSymName());
}

workload::CapabilityKind
capabilityOf(const workload::InvocationFigures &invocation) {
  return workload::requiredCapability(
      invocation.engine, invocation.collective
                             ? std::optional(invocation.collective->kind)
                             : std::nullopt);
}

class PlanBuilder {
public:
  PlanBuilder(dist::ProgramOp program, OpBuilder &builder)
      : program(program), builder(builder), context(builder.getContext()) {}

  LogicalResult build() {
    // Figures of every work op, in program order.
    llvm::SmallVector<WorkFactsOpInterface> work;
    llvm::SmallVector<workload::InvocationFigures> invocations;
    std::vector<std::pair<workload::Phase, workload::Cadence>> keys;
    CadenceSummaries byCadence;
    for (Operation &op : program.getBody().front()) {
      auto facts = llvm::dyn_cast<WorkFactsOpInterface>(op);
      if (!facts)
        continue;
      llvm::Expected<workload::InvocationFigures> figures =
          addToSummaries(byCadence, facts);
      if (!figures)
        return op.emitOpError()
               << "planning: " << llvm::toString(figures.takeError());
      work.push_back(facts);
      keys.push_back({facts.getPhase(), facts.getCadence()});
      invocations.push_back(*figures);
    }
    std::vector<workload::Stage> stages = workload::assignStages(keys);

    auto plan = pplan::PlanOp::create(
        builder, program.getLoc(), program.getSymNameAttr(),
        builder.getStringAttr(computeDigest(program)), program.getModel(),
        program.getTrainingAttr(), program.getInferenceAttr(),
        program.getDecodeContextAttr(), program.getMapping());
    builder.setInsertionPointToStart(&plan.getBody().emplaceBlock());

    // Capabilities, then groups, each declared once in first-use order.
    llvm::MapVector<workload::CapabilityKind, FlatSymbolRefAttr> capabilities;
    llvm::MapVector<workload::Stage, FlatSymbolRefAttr> groups;
    for (auto [invocation, stage] : llvm::zip(invocations, stages)) {
      capabilities.insert({capabilityOf(invocation), nullptr});
      groups.insert({stage, nullptr});
    }
    for (auto &[kind, symbol] : capabilities) {
      StringRef name = workload::stringifyEnum(kind);
      pplan::CapabilityOp::create(
          builder, program.getLoc(), builder.getStringAttr(name), kind);
      symbol = FlatSymbolRefAttr::get(context, name);
    }
    for (auto &[stage, symbol] : groups) {
      StringRef name = workload::stringifyStage(stage);
      pplan::GroupOp::create(builder, program.getLoc(),
                             builder.getStringAttr(name),
                             workload::ConcurrencyKind::Serial);
      symbol = FlatSymbolRefAttr::get(context, name);
    }

    // Tasks, serial in program order.
    Value previous;
    llvm::StringMap<llvm::SmallVector<Value>> readers;
    llvm::StringMap<Value> lastWriter;
    llvm::DenseMap<Value, Value> planTokenOf;
    for (auto [facts, invocation, stage] :
         llvm::zip(work, invocations, stages)) {
      llvm::Expected<workload::Demand> demand = workload::demandOf(invocation);
      if (!demand)
        return facts->emitOpError()
               << "planning: " << llvm::toString(demand.takeError());
      pplan::CollectiveAttr collective;
      if (invocation.collective)
        collective = pplan::CollectiveAttr::get(
            context, invocation.collective->kind,
            invocation.collective->reduction,
            invocation.collective->participants,
            invocation.collective->messageBytes);
      llvm::SmallVector<Value, 1> deps;
      if (previous)
        deps.push_back(previous);
      auto task = pplan::TaskOp::create(
          builder, facts->getLoc(), pplan::TokenType::get(context),
          facts.getPrimitiveAttr(),
          invocation.phase, invocation.engine, facts.getCadence(),
          capabilities[capabilityOf(invocation)], groups[stage],
          pplan::DemandAttr::get(context, demand->compute, demand->memory,
                                 demand->network),
          collective, invocation.ops,
          facts.getReads(), facts.getWrites(), facts.getStashed(), deps);
      previous = task.getDone();
      planTokenOf[facts->getResult(0)] = previous;
      for (const TensorBytes &read : facts.getReads())
        readers[read.tensor.getValue()].push_back(previous);
    }

    // Boundary buffers.
    for (dist::BoundaryOp boundary : program.getBody().getOps<dist::BoundaryOp>()) {
      auto mesh = llvm::dyn_cast_or_null<dist::MeshOp>(SymbolTable::lookupSymbolIn(
          program, boundary.getSharding().getMesh().getAttr()));
      llvm::Expected<int64_t> bytes = bytesPerRank(boundary, mesh);
      if (!bytes)
        return boundary.emitOpError()
               << "planning: " << llvm::toString(bytes.takeError());
      Value producer;
      llvm::SmallVector<Value> consumers;
      if (Value distProducer = boundary.getProducer())
        producer = planTokenOf.lookup(distProducer);
      else
        consumers = readers.lookup(boundary.getSymName());
      pplan::BufferOp::create(
          builder, boundary.getLoc(), boundary.getSymNameAttr(),
          workload::BufferKind::Boundary, *bytes, producer, consumers);
    }

    for (workload::ObjectiveKind objective :
         {workload::ObjectiveKind::MinimizeStepLatency,
          workload::ObjectiveKind::MinimizePeakMemory})
      pplan::ObjectiveOp::create(builder, program.getLoc(), objective);

    buildLedger(byCadence);
    return success();
  }

private:
  /// One ledger row per (cadence, phase, engine) the program has work in.
  void buildLedger(const CadenceSummaries &byCadence) {
    for (const auto &[cadence, summary] : byCadence)
      for (workload::Phase phase : workload::allPhases())
        for (workload::Engine engine : workload::allEngines()) {
          const workload::WorkTotals &totals = summary.at(phase, engine);
          if (totals.invocations == 0)
            continue;
          pplan::LedgerOp::create(builder, program.getLoc(), cadence, phase,
                                  engine, totals.invocations, totals.ops,
                                  totals.readBytes, totals.writeBytes,
                                  totals.messageBytes, totals.stashBytes);
        }
  }

  dist::ProgramOp program;
  OpBuilder &builder;
  MLIRContext *context;
};

struct PlanPortablePass
    : blueprint::impl::PlanPortableBase<PlanPortablePass> {
  void runOnOperation() override {
    llvm::SmallVector<dist::ProgramOp> programs(
        getOperation().getOps<dist::ProgramOp>());
    for (dist::ProgramOp program : programs) {
      if (dist::isWholeRun(program)) {
        program.emitOpError()
            << "plan-portable: whole-run programs (scope=iteration, "
               "docs/WholeRun.md) are not planned yet; plan the block-scope "
               "program";
        return signalPassFailure();
      }
      OpBuilder builder(program);
      if (failed(PlanBuilder(program, builder).build()))
        return signalPassFailure();
      program.erase();
    }
  }
};

} // namespace
