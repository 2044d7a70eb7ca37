//===- Observers.cpp - The built-in checkpoint observers ------------------===//
//
// Independent checks of a checkpoint, selectable with --blueprint-observe:
//   conservation      the work equals what the contracts derive
//   mesh              meshes and collectives agree with the mapping
//   recompute         recompute clones exactly what the policy says
//   no-target-fields  no op carries an attribute it does not define
//   reference         totals equal a JSON file of expected figures
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Checkpoint/Checkpoint.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Support/JSON.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace mlir;
using namespace blueprint;

namespace {

/// The program ops of a snapshot (dist.program, pplan.plan).
llvm::SmallVector<Operation *> programsOf(ModuleOp module) {
  llvm::SmallVector<Operation *> programs;
  for (Operation &op : module.getBody()->getOperations())
    if (llvm::isa<dist::ProgramOp, pplan::PlanOp>(op))
      programs.push_back(&op);
  return programs;
}

std::string programName(Operation *program) {
  return SymbolTable::getSymbolName(program).str();
}

class ConservationObserver : public CheckpointObserver {
public:
  llvm::StringRef getName() const override { return "conservation"; }
  llvm::Error observe(const Checkpoint &checkpoint) override {
    std::string messages;
    // The check reports through diagnostics; keep them as the rejection.
    ScopedDiagnosticHandler capture(
        ModuleOp(checkpoint.snapshot).getContext(),
        [&](Diagnostic &diagnostic) {
          if (!messages.empty())
            messages += "; ";
          messages += diagnostic.str();
          return success();
        });
    for (Operation *program : programsOf(checkpoint.snapshot))
      if (failed(verifyConservation(program)))
        return llvm::createStringError(messages);
    return llvm::Error::success();
  }
};

class MeshObserver : public CheckpointObserver {
public:
  llvm::StringRef getName() const override { return "mesh"; }
  llvm::Error observe(const Checkpoint &checkpoint) override {
    for (Operation *program : programsOf(checkpoint.snapshot)) {
      workload::MappingSpec mapping = getProgramContracts(program)->mapping;
      workload::OverflowGuard guard;
      int64_t world =
          guard.product({mapping.tp, mapping.cp, mapping.pp, mapping.dp},
                        "tp * cp * pp * dp");
      if (guard.failed() || world != mapping.world)
        return llvm::createStringError(
            "program @%s: world %lld is not tp * cp * pp * dp",
            programName(program).c_str(),
            static_cast<long long>(mapping.world));
      for (auto mesh : program->getRegion(0).getOps<dist::MeshOp>())
        if (mesh.getAxisSize(workload::kTensorParallelAxis)
                .value_or(mapping.tp) != mapping.tp)
          return llvm::createStringError(
              "program @%s: mesh @%s has %lld tp ranks, the mapping %lld",
              programName(program).c_str(), mesh.getSymName().str().c_str(),
              static_cast<long long>(
                  *mesh.getAxisSize(workload::kTensorParallelAxis)),
              static_cast<long long>(mapping.tp));
      // Every collective of a block spans the tensor-parallel group, or the
      // context-parallel group (the key/value exchange).
      llvm::Error error = llvm::Error::success();
      program->walk([&](WorkFactsOpInterface work) {
        std::optional<workload::CollectiveFacts> facts =
            work.getCollectiveFacts();
        if (!facts || error)
          return;
        // The key/value exchange names the cp axis (CollectiveFacts::axis,
        // read from the op); every other block collective spans tp.
        bool context = facts->axis == workload::kContextParallelAxis;
        int64_t group = context ? mapping.cp : mapping.tp;
        if (facts->participants == group)
          return;
        error = llvm::createStringError(
            "program @%s: collective %s (%s) has %lld participants, but the "
            "%s group has %lld ranks",
            programName(program).c_str(), work.getPrimitive().str().c_str(),
            workload::stringifyEnum(work.getPhase()).str().c_str(),
            static_cast<long long>(facts->participants),
            context ? "context-parallel" : "tensor-parallel",
            static_cast<long long>(group));
      });
      if (error)
        return error;
    }
    return llvm::Error::success();
  }
};

class RecomputeObserver : public CheckpointObserver {
public:
  llvm::StringRef getName() const override { return "recompute"; }
  llvm::Error observe(const Checkpoint &checkpoint) override {
    for (Operation *program : programsOf(checkpoint.snapshot)) {
      ProgramContracts contracts = *getProgramContracts(program);
      workload::RecomputePolicy policy = contracts.mapping.recompute;
      llvm::StringMap<int64_t> forwardOps;
      std::set<std::string> recomputed, expected;
      llvm::SmallVector<std::pair<std::string, int64_t>> clones;
      program->walk([&](WorkFactsOpInterface work) {
        if (work.getWorkEngine() == workload::Engine::Collective)
          return;
        if (work.getPhase() == workload::Phase::Forward)
          forwardOps[work.getPrimitive()] = work.getOps();
        if (work.getPhase() == workload::Phase::Recompute) {
          recomputed.insert(work.getPrimitive().str());
          clones.push_back({work.getPrimitive().str(), work.getOps()});
        }
      });
      if (policy == workload::RecomputePolicy::Full)
        for (const auto &entry : forwardOps)
          expected.insert(entry.getKey().str());
      if (policy == workload::RecomputePolicy::Selective)
        for (llvm::StringRef core : workload::primitive::kAttentionCore)
          if (core != workload::primitive::kAttnDropout ||
              (contracts.workload.training &&
               contracts.workload.training->attentionDropout))
            expected.insert(core.str());
      if (recomputed != expected) {
        std::string want, got;
        for (const std::string &name : expected)
          want += " " + name;
        for (const std::string &name : recomputed)
          got += " " + name;
        return llvm::createStringError(
            "program @%s: recompute policy %s expects clones of {%s }, found "
            "{%s }",
            programName(program).c_str(),
            workload::stringifyEnum(policy).str().c_str(), want.c_str(),
            got.c_str());
      }
      for (const auto &[primitive, ops] : clones)
        if (forwardOps.lookup(primitive) != ops)
          return llvm::createStringError(
              "program @%s: the recompute of %s does %lld ops, its forward "
              "%lld",
              programName(program).c_str(), primitive.c_str(),
              static_cast<long long>(ops),
              static_cast<long long>(forwardOps.lookup(primitive)));
    }
    return llvm::Error::success();
  }
};

class NoTargetFieldsObserver : public CheckpointObserver {
public:
  llvm::StringRef getName() const override { return "no-target-fields"; }
  llvm::Error observe(const Checkpoint &checkpoint) override {
    llvm::Error error = llvm::Error::success();
    for (Operation *program : programsOf(checkpoint.snapshot))
      program->walk([&](Operation *op) {
        for (NamedAttribute attribute : op->getDiscardableAttrs()) {
          if (error)
            return;
          error = llvm::createStringError(
              "%s carries '%s', which is not a field of the op: no target "
              "field may enter a target-neutral program",
              op->getName().getStringRef().str().c_str(),
              attribute.getName().str().c_str());
        }
      });
    return error;
  }
};

/// Checks the totals of each program against a JSON file:
/// {"checkpoints": [{"stage": "distribution", "program": "gpt",
///   "totals": {"per_micro_batch": {"forward": {"matmul": {"ops": 1}}}}}]}
/// Keys under a (cadence, phase, engine) are those of --work-summary's JSON.
class ReferenceObserver : public CheckpointObserver {
public:
  ReferenceObserver(llvm::json::Value reference, std::string contentsDigest)
      : reference(std::move(reference)),
        contentsDigest(std::move(contentsDigest)) {}

  llvm::StringRef getName() const override { return "reference"; }
  std::string getIdentity() const override {
    return "reference " + contentsDigest;
  }

  llvm::Error observe(const Checkpoint &checkpoint) override {
    const llvm::json::Array *entries =
        reference.getAsObject()->getArray("checkpoints");
    for (const llvm::json::Value &entryValue : *entries) {
      const llvm::json::Object *entry = entryValue.getAsObject();
      if (entry->getString("stage") != checkpoint.stage)
        continue;
      std::optional<llvm::StringRef> wanted = entry->getString("program");
      bool matched = false;
      for (Operation *program : programsOf(checkpoint.snapshot)) {
        if (wanted && *wanted != programName(program))
          continue;
        matched = true;
        FailureOr<ProgramTotals> totals = summarizeProgram(program);
        if (failed(totals))
          return llvm::createStringError("cannot sum program @%s",
                                         programName(program).c_str());
        if (llvm::Error error = compare(*totals, *entry->getObject("totals")))
          return error;
      }
      // An expectation that checks nothing must not pass as a check.
      if (!matched)
        return llvm::createStringError(
            "the %s checkpoint has no program%s to compare with",
            checkpoint.stage.c_str(),
            wanted ? (" @" + wanted->str()).c_str() : "");
    }
    return llvm::Error::success();
  }

private:
  static llvm::Error compare(const ProgramTotals &totals,
                             const llvm::json::Object &expected) {
    llvm::json::Object found = toJSON(totals);
    for (const auto &[cadence, phases] : expected)
      for (const auto &[phase, engines] : *phases.getAsObject())
        for (const auto &[engine, quantities] : *engines.getAsObject())
          for (const auto &[quantity, value] : *quantities.getAsObject()) {
            std::optional<int64_t> actual = lookup(
                found, cadence.str(), phase.str(), engine.str(), quantity.str());
            if (actual != exactInteger(value))
              return llvm::createStringError(
                  "program @%s %s %s %s %s: expected %lld, found %s",
                  totals.name.c_str(), cadence.str().c_str(),
                  phase.str().c_str(), engine.str().c_str(),
                  quantity.str().c_str(),
                  static_cast<long long>(exactInteger(value).value_or(-1)),
                  actual ? std::to_string(*actual).c_str() : "nothing");
          }
    return llvm::Error::success();
  }

  /// A quantity of --work-summary's JSON for (cadence, phase, engine).
  static std::optional<int64_t> lookup(const llvm::json::Object &found,
                                       const std::string &cadence,
                                       const std::string &phase,
                                       const std::string &engine,
                                       const std::string &quantity) {
    const llvm::json::Object *byCadence = found.getObject(cadence);
    if (!byCadence)
      return std::nullopt;
    for (const llvm::json::Value &row : *byCadence->getArray("by_phase_engine")) {
      const llvm::json::Object *object = row.getAsObject();
      if (object->getString("phase") == phase &&
          object->getString("engine") == engine)
        return object->getInteger(quantity);
    }
    return std::nullopt;
  }

  llvm::json::Value reference;
  /// digestFileContents of the reference file.
  std::string contentsDigest;
};

/// Validates the reference file's shape, naming the JSON path of a problem.
llvm::Error checkReferenceShape(const llvm::json::Value &value) {
  auto bad = [](const llvm::Twine &path, const llvm::Twine &rule) {
    return llvm::createStringError(
        ("reference file: " + path + ": " + rule).str());
  };
  const llvm::json::Object *root = value.getAsObject();
  if (!root || !root->getArray("checkpoints"))
    return bad("$", "expected an object with a \"checkpoints\" array");
  size_t index = 0;
  for (const llvm::json::Value &entry : *root->getArray("checkpoints")) {
    std::string path = "$.checkpoints[" + std::to_string(index++) + "]";
    const llvm::json::Object *object = entry.getAsObject();
    if (!object || !object->getString("stage") || !object->getObject("totals"))
      return bad(path, "expected {\"stage\": string, \"program\"?: string, "
                       "\"totals\": object}");
    if (!llvm::is_contained(getCheckpointStages(),
                            *object->getString("stage")))
      return bad(path + ".stage",
                 "expected \"distribution\" or \"planning\", got \"" +
                     *object->getString("stage") + "\"");
    if (object->get("program") && !object->getString("program"))
      return bad(path + ".program", "expected a string naming a program");
    for (const auto &[cadence, phases] : *object->getObject("totals")) {
      if (!phases.getAsObject())
        return bad(path + ".totals." + cadence.str(), "expected an object");
      for (const auto &[phase, engines] : *phases.getAsObject()) {
        if (!engines.getAsObject())
          return bad(path + ".totals." + cadence.str() + "." + phase.str(),
                     "expected an object");
        for (const auto &[engine, quantities] : *engines.getAsObject()) {
          std::string enginePath = path + ".totals." + cadence.str() + "." +
                                   phase.str() + "." + engine.str();
          if (!quantities.getAsObject())
            return bad(enginePath, "expected an object");
          for (const auto &[quantity, figure] : *quantities.getAsObject())
            if (!exactInteger(figure))
              return bad(enginePath + "." + quantity.str(),
                         "expected an exact integer");
        }
      }
    }
  }
  return llvm::Error::success();
}

constexpr llvm::StringLiteral kObserverNames[] = {
    "conservation", "mesh", "recompute", "no-target-fields", "reference"};

} // namespace

llvm::ArrayRef<llvm::StringLiteral> blueprint::getBuiltinObserverNames() {
  return kObserverNames;
}

llvm::Expected<std::unique_ptr<CheckpointObserver>>
blueprint::createBuiltinObserver(llvm::StringRef name,
                                 llvm::StringRef referenceFile) {
  if (name == "conservation")
    return std::make_unique<ConservationObserver>();
  if (name == "mesh")
    return std::make_unique<MeshObserver>();
  if (name == "recompute")
    return std::make_unique<RecomputeObserver>();
  if (name == "no-target-fields")
    return std::make_unique<NoTargetFieldsObserver>();
  if (name == "reference") {
    if (referenceFile.empty())
      return llvm::createStringError(
          "observer 'reference' needs --blueprint-reference-file");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(referenceFile);
    if (!buffer)
      return llvm::createStringError("cannot read reference file '%s': %s",
                                     referenceFile.str().c_str(),
                                     buffer.getError().message().c_str());
    llvm::Expected<llvm::json::Value> reference =
        parseJSON((*buffer)->getBuffer());
    if (!reference)
      return reference.takeError();
    if (llvm::Error error = checkReferenceShape(*reference))
      return error;
    return std::make_unique<ReferenceObserver>(
        std::move(*reference), digestFileContents(referenceFile));
  }
  return llvm::createStringError(
      "unknown observer '%s' (known: conservation, mesh, recompute, "
      "no-target-fields, reference)",
      name.str().c_str());
}
