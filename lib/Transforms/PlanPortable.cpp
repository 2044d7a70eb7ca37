//===- PlanPortable.cpp - DistributedTaskIR to PortablePlanIR -------------===//
//
// A thin pass: every `dist` work op becomes a `pplan.task` with the same
// facts and location; the capabilities, demand and stages come from the
// plain helpers of Blueprint/Workload/Plan.h, the ledger from the algebra's
// own summarize(). A whole-run program (docs/WholeRun.md) keeps its compact
// form: templates become `pplan.template`s, stages `pplan.stage`s of
// instances, transfers and stage-level tasks (a collective with its mesh
// axis), with one communication buffer per pipeline message (its cause and
// lifetime in the stage's order) and one ledger row per stage, phase and
// engine (summarizeStages).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/WholeRunRules.h"
#include "Blueprint/Support/Digest.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/Boundaries.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/Plan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

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

    createPlan();

    // Capabilities, then groups, each declared once in first-use order.
    llvm::MapVector<workload::CapabilityKind, FlatSymbolRefAttr> capabilities;
    llvm::MapVector<workload::Stage, FlatSymbolRefAttr> groups;
    for (auto [invocation, stage] : llvm::zip(invocations, stages)) {
      capabilities.insert({capabilityOf(invocation), nullptr});
      groups.insert({stage, nullptr});
    }
    declareSymbols(capabilities, groups);

    // Tasks, serial in program order.
    Value previous;
    llvm::StringMap<llvm::SmallVector<Value>> readers;
    llvm::StringMap<Value> lastWriter;
    llvm::DenseMap<Value, Value> planTokenOf;
    for (auto [facts, invocation, stage] :
         llvm::zip(work, invocations, stages)) {
      llvm::SmallVector<Value, 1> deps;
      if (previous)
        deps.push_back(previous);
      FailureOr<pplan::TaskOp> task = createTask(
          facts, invocation, capabilities.lookup(capabilityOf(invocation)),
          groups.lookup(stage), deps);
      if (failed(task))
        return failure();
      previous = task->getDone();
      planTokenOf[facts->getResult(0)] = previous;
      for (const TensorBytes &read : facts.getReads())
        readers[read.tensor.getValue()].push_back(previous);
    }

    // Boundary buffers.
    for (dist::BoundaryOp boundary :
         program.getBody().getOps<dist::BoundaryOp>()) {
      auto mesh =
          llvm::dyn_cast_or_null<dist::MeshOp>(SymbolTable::lookupSymbolIn(
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
      pplan::BufferOp::create(builder, boundary.getLoc(),
                              boundary.getSymNameAttr(),
                              workload::BufferKind::Boundary, std::nullopt,
                              *bytes, DenseI64ArrayAttr(), producer, consumers);
    }

    for (workload::ObjectiveKind objective :
         {workload::ObjectiveKind::MinimizeStepLatency,
          workload::ObjectiveKind::MinimizePeakMemory})
      pplan::ObjectiveOp::create(builder, program.getLoc(), objective);

    buildLedger(byCadence);
    return success();
  }

  /// The plan of a whole-run program: its templates and stages in the
  /// compact form, the per-stage ledger from summarizeStages.
  LogicalResult buildWholeRun() {
    FailureOr<std::vector<workload::StageTotals>> stageTotals =
        summarizeStages(program);
    if (failed(stageTotals))
      return failure();
    Block &body = program.getBody().front();
    llvm::SmallVector<dist::TemplateOp> templates(
        body.getOps<dist::TemplateOp>());
    llvm::SmallVector<dist::StageOp> stages(body.getOps<dist::StageOp>());

    // Figures and groups of every template task, then of every stage-level
    // task, in program order.
    llvm::DenseMap<Operation *, workload::InvocationFigures> figuresOfOp;
    llvm::DenseMap<Operation *, workload::Stage> groupOfOp;
    llvm::MapVector<workload::CapabilityKind, FlatSymbolRefAttr> capabilities;
    llvm::MapVector<workload::Stage, FlatSymbolRefAttr> groups;
    auto record = [&](WorkFactsOpInterface facts) -> LogicalResult {
      llvm::Expected<workload::InvocationFigures> figures = figuresOf(facts);
      if (!figures)
        return facts->emitOpError()
               << "planning: " << llvm::toString(figures.takeError());
      capabilities.insert({capabilityOf(*figures), nullptr});
      figuresOfOp[facts] = *figures;
      return success();
    };
    for (dist::TemplateOp templateOp : templates) {
      llvm::SmallVector<WorkFactsOpInterface> work(
          templateOp.getBody().getOps<WorkFactsOpInterface>());
      std::vector<std::pair<workload::Phase, workload::Cadence>> keys;
      for (WorkFactsOpInterface facts : work) {
        if (failed(record(facts)))
          return failure();
        keys.push_back({facts.getPhase(), facts.getCadence()});
      }
      for (auto [facts, stage] :
           llvm::zip(work, workload::assignStages(keys))) {
        groupOfOp[facts] = stage;
        groups.insert({stage, nullptr});
      }
    }
    for (dist::StageOp stage : stages)
      for (WorkFactsOpInterface facts :
           stage.getBody().getOps<WorkFactsOpInterface>())
        if (failed(record(facts)))
          return failure();

    createPlan();
    declareSymbols(capabilities, groups);
    llvm::SmallVector<FlatSymbolRefAttr> stageGroups;
    for (dist::StageOp stage : stages) {
      std::string name = "stage_" + std::to_string(stage.getIndex());
      pplan::GroupOp::create(builder, stage.getLoc(),
                             builder.getStringAttr(name),
                             workload::ConcurrencyKind::Serial);
      stageGroups.push_back(FlatSymbolRefAttr::get(context, name));
    }

    // Templates: their tasks in order, each after the previous.
    for (dist::TemplateOp templateOp : templates) {
      auto planTemplate = pplan::TemplateOp::create(
          builder, templateOp.getLoc(), templateOp.getSymNameAttr(),
          templateOp.getPart(), templateOp.getPass(),
          templateOp.getContextLengthAttr());
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&planTemplate.getBody().emplaceBlock());
      Value previous;
      for (WorkFactsOpInterface facts :
           templateOp.getBody().getOps<WorkFactsOpInterface>()) {
        const workload::InvocationFigures &invocation =
            figuresOfOp.find(facts)->second;
        llvm::SmallVector<Value, 1> deps;
        if (previous)
          deps.push_back(previous);
        FailureOr<pplan::TaskOp> task = createTask(
            facts, invocation, capabilities.lookup(capabilityOf(invocation)),
            groups.lookup(groupOfOp.lookup(facts)), deps);
        if (failed(task))
          return failure();
        previous = task->getDone();
      }
    }

    // Stages: every op with the dependencies of the distributed IR, and
    // the buffers of the run the contracts define.
    FailureOr<
        std::pair<workload::WholeRun, std::vector<workload::StageBuffers>>>
        derived = deriveRunBuffers();
    if (failed(derived))
      return failure();
    for (auto [stage, group] : llvm::zip(stages, stageGroups))
      if (failed(buildStage(
              stage, group, figuresOfOp, capabilities, derived->first,
              derived->second[static_cast<size_t>(stage.getIndex())])))
        return failure();

    for (workload::ObjectiveKind objective :
         {workload::ObjectiveKind::MinimizeStepLatency,
          workload::ObjectiveKind::MinimizePeakMemory})
      pplan::ObjectiveOp::create(builder, program.getLoc(), objective);

    // One ledger row per stage, phase and engine with work, over the
    // iteration (the generation of an inference run).
    workload::Cadence runCadence = program.getInferenceAttr()
                                       ? workload::Cadence::PerGeneration
                                       : workload::Cadence::PerIteration;
    for (const workload::StageTotals &stage : *stageTotals)
      for (workload::Phase phase : workload::allPhases())
        for (workload::Engine engine : workload::allEngines()) {
          const workload::WorkTotals &totals = stage.work.at(phase, engine);
          if (totals.invocations == 0)
            continue;
          pplan::LedgerOp::create(builder, program.getLoc(), runCadence, phase,
                                  engine, totals.invocations, totals.ops,
                                  totals.readBytes, totals.writeBytes,
                                  totals.messageBytes, totals.stashBytes,
                                  builder.getI64IntegerAttr(stage.stage));
        }
    return success();
  }

private:
  /// The whole run of the program's contracts and its buffers.
  FailureOr<std::pair<workload::WholeRun, std::vector<workload::StageBuffers>>>
  deriveRunBuffers() {
    workload::ModelSpec model = program.getModel().getSpec();
    workload::MappingSpec mapping = program.getMapping().getSpec();
    std::optional<workload::TrainingSpec> training;
    if (program.getTrainingAttr())
      training = program.getTrainingAttr().getSpec();
    llvm::Expected<workload::WholeRun> run =
        training ? workload::deriveWholeRun(model, *training, mapping)
                 : workload::deriveInferenceRun(
                       model, program.getInferenceAttr().getSpec(), mapping);
    if (!run)
      return program.emitOpError()
             << "planning: " << llvm::toString(run.takeError());
    if (failed(checkTemplates(*run)))
      return failure();
    llvm::Expected<std::vector<workload::StageBuffers>> buffers =
        workload::deriveBuffers(*run, mapping, training);
    if (!buffers)
      return program.emitOpError()
             << "planning: " << llvm::toString(buffers.takeError());
    return std::make_pair(std::move(*run), std::move(*buffers));
  }

  /// The buffers' bytes come from the derivation's templates: every
  /// template of the program must hold exactly the derivation's work (the
  /// same tasks in order, with the same operations and tensors).
  LogicalResult checkTemplates(const workload::WholeRun &run) {
    llvm::StringMap<dist::TemplateOp> templates;
    for (auto templateOp : program.getBody().getOps<dist::TemplateOp>())
      templates[templateOp.getSymName()] = templateOp;
    auto sorted = [](std::vector<workload::TensorAccess> tensors) {
      llvm::sort(tensors, [](const workload::TensorAccess &lhs,
                             const workload::TensorAccess &rhs) {
        return lhs.tensor < rhs.tensor;
      });
      return tensors;
    };
    for (const workload::RunTemplate &derived : run.templates) {
      auto found = templates.find(derived.name);
      if (found == templates.end())
        return program.emitOpError()
               << "planning: the derivation of the contracts has template @"
               << derived.name << ", which the program does not define";
      llvm::SmallVector<WorkFactsOpInterface> work(
          found->second.getBody().getOps<WorkFactsOpInterface>());
      auto differs = [&](Operation *op) {
        return op->emitOpError()
               << "planning: template @" << derived.name
               << " differs from the derivation of the contracts here; the "
                  "stages' buffers are derived from the contracts";
      };
      if (work.size() != derived.work.invocations.size())
        return differs(found->second);
      for (auto [facts, invocation] :
           llvm::zip(work, derived.work.invocations)) {
        llvm::Expected<workload::Invocation> held = toInvocation(facts);
        if (!held) {
          llvm::consumeError(held.takeError());
          return differs(facts);
        }
        if (held->primitive != invocation.primitive ||
            held->phase != invocation.phase ||
            held->engine != invocation.engine ||
            held->ops != invocation.ops ||
            held->collective != invocation.collective ||
            sorted(held->reads) != sorted(invocation.reads) ||
            sorted(held->writes) != sorted(invocation.writes) ||
            sorted(held->stashed) != sorted(invocation.stashed))
          return differs(facts);
      }
    }
    return success();
  }

  pplan::PlanOp createPlan() {
    auto plan = pplan::PlanOp::create(
        builder, program.getLoc(), program.getSymNameAttr(),
        builder.getStringAttr(computeDigest(program)), program.getModel(),
        program.getTrainingAttr(), program.getInferenceAttr(),
        program.getDecodeContextAttr(), program.getMapping());
    builder.setInsertionPointToStart(&plan.getBody().emplaceBlock());
    return plan;
  }

  /// Declares each capability and group once, in first-use order.
  void
  declareSymbols(llvm::MapVector<workload::CapabilityKind, FlatSymbolRefAttr>
                     &capabilities,
                 llvm::MapVector<workload::Stage, FlatSymbolRefAttr> &groups) {
    for (auto &[kind, symbol] : capabilities) {
      StringRef name = workload::stringifyEnum(kind);
      pplan::CapabilityOp::create(builder, program.getLoc(),
                                  builder.getStringAttr(name), kind);
      symbol = FlatSymbolRefAttr::get(context, name);
    }
    for (auto &[stage, symbol] : groups) {
      StringRef name = workload::stringifyStage(stage);
      pplan::GroupOp::create(builder, program.getLoc(),
                             builder.getStringAttr(name),
                             workload::ConcurrencyKind::Serial);
      symbol = FlatSymbolRefAttr::get(context, name);
    }
  }

  /// The task of one distributed work op, with its demand; a stage-level
  /// collective (`inStage`) keeps its mesh axis and group (pplan_task_c8).
  FailureOr<pplan::TaskOp> createTask(
      WorkFactsOpInterface facts, const workload::InvocationFigures &invocation,
      FlatSymbolRefAttr capability, FlatSymbolRefAttr group, ValueRange deps,
      bool inStage = false, IntegerAttr readyBlocks = nullptr) {
    llvm::Expected<workload::Demand> demand = workload::demandOf(invocation);
    if (!demand)
      return facts->emitOpError()
             << "planning: " << llvm::toString(demand.takeError());
    pplan::CollectiveAttr collective;
    StringAttr axis;
    ArrayAttr innerAxes;
    DenseI64ArrayAttr axisGroup;
    if (invocation.collective) {
      collective = pplan::CollectiveAttr::get(
          context, invocation.collective->kind,
          invocation.collective->reduction, invocation.collective->participants,
          invocation.collective->messageBytes,
          invocation.collective->pointToPoint);
      ArrayAttr axes;
      llvm::TypeSwitch<Operation *>(facts)
          .Case<dist::AllReduceOp, dist::ReduceScatterOp, dist::AllGatherOp,
                dist::AllToAllOp>([&](auto op) {
            axes = op.getMeshAxes();
            axisGroup = op.getGroupAttr();
          });
      if (!axes || axes.empty())
        return facts->emitOpError() << "planning: a collective runs along a "
                                       "mesh axis";
      // A stage-level collective keeps its axes; a template's collective
      // spans tp unless it is the key/value exchange over cp or, at ep > 1,
      // an expert dispatcher's collective over ep (and tp) (pplan_task_c8).
      auto first = llvm::cast<StringAttr>(axes[0]);
      bool expertAxis = first.getValue() == workload::kExpertParallelAxis;
      if (inStage || expertAxis ||
          first.getValue() == workload::kContextParallelAxis)
        axis = first;
      if ((inStage || expertAxis) && axes.size() > 1)
        innerAxes = builder.getArrayAttr(axes.getValue().drop_front());
      if (!inStage)
        axisGroup = DenseI64ArrayAttr();
    }
    return pplan::TaskOp::create(
        builder, facts->getLoc(), pplan::TokenType::get(context),
        facts.getPrimitiveAttr(), invocation.phase, invocation.engine,
        facts.getCadence(), capability, group,
        pplan::DemandAttr::get(context, demand->compute, demand->memory,
                               demand->network),
        collective, axis, axisGroup, invocation.ops, facts.getReads(),
        facts.getWrites(), facts.getStashed(), deps, innerAxes,
        facts.getGemmExtents().empty()
            ? DenseI64ArrayAttr()
            : builder.getDenseI64ArrayAttr(facts.getGemmExtents()),
        /*implementation=*/nullptr, /*fuses=*/nullptr, readyBlocks);
  }

  /// The pplan.stage of `stage`: instances, transfers and stage-level tasks
  /// in order, then its buffers (createBuffers), `buffers` of `run`.
  LogicalResult
  buildStage(dist::StageOp stage, FlatSymbolRefAttr group,
             const llvm::DenseMap<Operation *, workload::InvocationFigures>
                 &figuresOfOp,
             const llvm::MapVector<workload::CapabilityKind, FlatSymbolRefAttr>
                 &capabilities,
             const workload::WholeRun &run,
             const workload::StageBuffers &buffers) {
    auto planStage = pplan::StageOp::create(builder, stage.getLoc(),
                                            stage.getIndex(), group);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&planStage.getBody().emplaceBlock());
    Type token = pplan::TokenType::get(context);
    llvm::DenseMap<Value, Value> tokenOf;
    auto depsOf = [&](ValueRange distDeps) {
      llvm::SmallVector<Value, 1> deps;
      for (Value dep : distDeps)
        deps.push_back(tokenOf.lookup(dep));
      return deps;
    };
    for (Operation &op : stage.getBody().front()) {
      Value done;
      if (auto instance = llvm::dyn_cast<dist::InstanceOp>(op)) {
        auto planInstance = pplan::InstanceOp::create(
            builder, instance.getLoc(), token, instance.getTemplateNameAttr(),
            instance.getChunk(), instance.getMicroBatchAttr(),
            instance.getBlocksAttr(), depsOf(instance.getDeps()));
        done = planInstance.getDone();
      } else if (auto send = llvm::dyn_cast<dist::SendOp>(op)) {
        auto planSend = pplan::SendOp::create(
            builder, send.getLoc(), token, send.getMessage(),
            send.getMicroBatch(), send.getChunk(), send.getPeer(),
            send.getBytes(), depsOf(send.getDeps()));
        done = planSend.getDone();
      } else if (auto recv = llvm::dyn_cast<dist::RecvOp>(op)) {
        auto planRecv = pplan::RecvOp::create(
            builder, recv.getLoc(), token, recv.getMessage(),
            recv.getMicroBatch(), recv.getChunk(), recv.getPeer(),
            recv.getBytes(), depsOf(recv.getDeps()));
        done = planRecv.getDone();
      } else if (auto facts = llvm::dyn_cast<WorkFactsOpInterface>(op)) {
        const workload::InvocationFigures &invocation =
            figuresOfOp.find(facts)->second;
        FailureOr<pplan::TaskOp> task = createTask(
            facts, invocation, capabilities.lookup(capabilityOf(invocation)),
            group, depsOf(op.getOperands()), /*inStage=*/true,
            llvm::dyn_cast_or_null<IntegerAttr>(op.getAttr(kReadyBlocksAttr)));
        if (failed(task))
          return failure();
        done = task->getDone();
      } else {
        return op.emitOpError() << "planning: not a stage op of a whole run";
      }
      if (op.getNumResults() == 1)
        tokenOf[op.getResult(0)] = done;
    }

    return createBuffers(planStage, run, buffers);
  }

  /// The buffers of `stage`, after its ops: what deriveBuffers derives for
  /// the same stage of the run its contracts define (docs/Memory.md), each
  /// with its producer, consumers and lifetime over the stage's positions
  /// (pplan_buffer_c6 .. c10). The stage's ops must be the derivation's
  /// steps, one for one.
  LogicalResult createBuffers(pplan::StageOp stage,
                              const workload::WholeRun &run,
                              const workload::StageBuffers &buffers) {
    llvm::SmallVector<Operation *> ops;
    for (Operation &op : stage.getBody().front())
      if (!llvm::isa<pplan::BufferOp>(op))
        ops.push_back(&op);
    const workload::StageProgram &program =
        run.stages[static_cast<size_t>(stage.getIndex())];
    if (ops.size() != program.steps.size())
      return stage.emitOpError()
             << "planning: the stage has " << ops.size()
             << " ops where the derivation of its contracts has "
             << program.steps.size()
             << " steps; its buffers are derived from the contracts";
    for (auto [position, op] : llvm::enumerate(ops))
      if (!isStep(op, program.steps[position], run))
        return op->emitOpError()
               << "planning: position " << position << " of stage "
               << stage.getIndex() << " is not "
               << describeStep(program.steps[position], run)
               << ", which the derivation of the contracts has there; the "
                  "stage's buffers are derived from the contracts";
    for (const workload::RunBuffer &buffer : buffers.buffers) {
      Value producer;
      if (buffer.producer)
        producer = ops[*buffer.producer]->getResult(0);
      llvm::SmallVector<Value> consumers;
      for (size_t consumer : buffer.consumers)
        consumers.push_back(ops[consumer]->getResult(0));
      Location loc =
          buffer.producer ? ops[*buffer.producer]->getLoc() : stage.getLoc();
      pplan::BufferOp::create(
          builder, loc, builder.getStringAttr(buffer.name), buffer.kind(),
          buffer.cause, buffer.bytes,
          builder.getDenseI64ArrayAttr({static_cast<int64_t>(buffer.start),
                                        static_cast<int64_t>(buffer.end)}),
          producer, consumers);
    }
    return success();
  }

  /// "instance @block_forward chunk 0 micro_batch 3", "the activation of
  /// micro-batch 0 leaving model chunk 1 (send)", "task dp_grad_allreduce".
  static std::string describeStep(const workload::RunStep &step,
                                  const workload::WholeRun &run) {
    if (const auto *instance = std::get_if<workload::RunInstance>(&step.action))
      return "instance @" + run.templates[instance->templateIndex].name +
             " chunk " + std::to_string(instance->chunk) +
             (instance->microBatch
                  ? " micro_batch " + std::to_string(*instance->microBatch)
                  : std::string());
    if (const auto *message = std::get_if<workload::RunMessage>(&step.action))
      return workload::describeMessage(message->message, message->microBatch,
                                       message->chunk) +
             (message->send ? " (send)" : " (receive)");
    return "task " +
           std::get<workload::RunWork>(step.action).invocation->primitive;
  }

  /// Whether `op` is the plan of `step`: the same instance (template,
  /// chunk, micro-batch), message, or stage-level work.
  static bool isStep(Operation *op, const workload::RunStep &step,
                     const workload::WholeRun &run) {
    if (const auto *instance =
            std::get_if<workload::RunInstance>(&step.action)) {
      auto planInstance = llvm::dyn_cast<pplan::InstanceOp>(op);
      std::optional<int64_t> microBatch;
      if (planInstance && planInstance.getMicroBatchAttr())
        microBatch = planInstance.getMicroBatchAttr().getInt();
      return planInstance &&
             planInstance.getTemplateName() ==
                 run.templates[instance->templateIndex].name &&
             planInstance.getChunk() == instance->chunk &&
             microBatch == instance->microBatch &&
             planInstance.getRepetitions() == instance->repetitions();
    }
    if (const auto *message = std::get_if<workload::RunMessage>(&step.action)) {
      auto matches = [&](auto transfer) {
        return transfer && transfer.getMessage() == message->message &&
               transfer.getMicroBatch() == message->microBatch &&
               transfer.getChunk() == message->chunk &&
               transfer.getBytes() == message->bytes;
      };
      return message->send ? matches(llvm::dyn_cast<pplan::SendOp>(op))
                           : matches(llvm::dyn_cast<pplan::RecvOp>(op));
    }
    auto task = llvm::dyn_cast<pplan::TaskOp>(op);
    return task &&
           task.getPrimitive() ==
               std::get<workload::RunWork>(step.action).invocation->primitive;
  }

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
                                  totals.messageBytes, totals.stashBytes,
                                  IntegerAttr());
        }
  }

  dist::ProgramOp program;
  OpBuilder &builder;
  MLIRContext *context;
};

struct PlanPortablePass : blueprint::impl::PlanPortableBase<PlanPortablePass> {
  void runOnOperation() override {
    llvm::SmallVector<dist::ProgramOp> programs(
        getOperation().getOps<dist::ProgramOp>());
    for (dist::ProgramOp program : programs) {
      OpBuilder builder(program);
      PlanBuilder planBuilder(program, builder);
      if (failed(dist::isWholeRun(program) ? planBuilder.buildWholeRun()
                                           : planBuilder.build()))
        return signalPassFailure();
      program.erase();
    }
  }
};

} // namespace
