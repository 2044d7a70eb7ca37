//===- Checkpoint.cpp - Checkpoints, observers and the audit trail --------===//

#include "Blueprint/Checkpoint/Checkpoint.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Support/Digest.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <regex>
#include <set>

using namespace mlir;
using namespace blueprint;

CheckpointObserver::~CheckpointObserver() = default;

/// The stage of each checkpointing pass, in pipeline order.
static constexpr llvm::StringLiteral kStages[] = {"distribution", "planning"};

llvm::StringRef blueprint::checkpointStageOf(llvm::StringRef passArgument) {
  return llvm::StringSwitch<llvm::StringRef>(passArgument)
      .Case("distribute-transformer", kStages[0])
      .Case("plan-portable", kStages[1])
      .Default("");
}

llvm::ArrayRef<llvm::StringLiteral> blueprint::getCheckpointStages() {
  return kStages;
}

/// Version of each Blueprint dialect's schema; bumped when a printed form
/// changes incompatibly.
static llvm::StringRef schemaVersionOf(llvm::StringRef dialect) {
  return llvm::StringSwitch<llvm::StringRef>(dialect)
      .Cases({"transformer", "dist", "pplan"}, "1")
      .Default("mlir-" LLVM_VERSION_STRING);
}

static double nowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// "name" for a NameLoc, "file:line:col" for a file location, the pieces of
/// a fused location in order.
static void renderLocation(Location loc, std::vector<std::string> &chain) {
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      renderLocation(part, chain);
  } else if (auto name = llvm::dyn_cast<NameLoc>(loc)) {
    chain.push_back(name.getName().str());
    if (!llvm::isa<UnknownLoc>(name.getChildLoc()))
      renderLocation(name.getChildLoc(), chain);
  } else if (auto file = llvm::dyn_cast<FileLineColLoc>(loc)) {
    chain.push_back(llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                                  file.getLine(), file.getColumn())
                        .str());
  } else if (!llvm::isa<UnknownLoc>(loc)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    loc.print(os);
    chain.push_back(text);
  }
}

/// Lineage of every task (a location carrying #dist.lineage) and every
/// symbol-defining op (programs, boundaries, buffers, capabilities).
static std::vector<LineageEntry> collectLineage(ModuleOp module) {
  std::vector<LineageEntry> lineage;
  module.walk([&](Operation *op) {
    if (op == module.getOperation())
      return;
    LineageEntry entry;
    entry.op = op->getName().getStringRef().str();
    if (auto fused = llvm::dyn_cast<FusedLoc>(op->getLoc()))
      if (auto metadata =
              llvm::dyn_cast_or_null<dist::LineageAttr>(fused.getMetadata())) {
        entry.name = metadata.getPrimitive().str();
        entry.model = metadata.getModel().str();
        entry.phase = workload::stringifyEnum(metadata.getPhase()).str();
        entry.cause = metadata.getCause().str();
      }
    if (entry.name.empty()) {
      auto symbol =
          op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      if (!symbol)
        return;
      entry.name = symbol.str();
    }
    renderLocation(op->getLoc(), entry.chain);
    lineage.push_back(std::move(entry));
  });
  return lineage;
}

static std::vector<DialectSchema> collectSchema(ModuleOp module) {
  std::set<std::string> dialects;
  module.walk([&](Operation *op) {
    dialects.insert(op->getName().getDialectNamespace().str());
  });
  std::vector<DialectSchema> schema;
  for (const std::string &dialect : dialects)
    schema.push_back({dialect, schemaVersionOf(dialect).str()});
  return schema;
}

llvm::json::Value Checkpoint::toJSON(llvm::StringRef irFile) const {
  llvm::json::Array schemaArray, lineageArray;
  for (const DialectSchema &dialect : schema)
    schemaArray.push_back(llvm::json::Object{{"dialect", dialect.dialect},
                                             {"version", dialect.version}});
  for (const LineageEntry &entry : lineage) {
    llvm::json::Object object{{"op", entry.op},
                              {"name", entry.name},
                              {"chain", llvm::json::Array(entry.chain)}};
    if (!entry.model.empty()) {
      object["model"] = entry.model;
      object["phase"] = entry.phase;
      object["cause"] = entry.cause;
    }
    lineageArray.push_back(std::move(object));
  }
  return llvm::json::Object{
      {"format", "blueprint-checkpoint/1"},
      {"sequence", sequence},
      {"stage", stage},
      {"digest", digest},
      {"ir_file", irFile.str()},
      {"pass",
       llvm::json::Object{{"name", record.name},
                          {"argument", record.argument},
                          {"options", record.options},
                          {"input_digest", record.inputDigest},
                          {"output_digest", record.outputDigest},
                          {"host_seconds", record.hostSeconds}}},
      {"schema", std::move(schemaArray)},
      {"session_fingerprint", sessionFingerprint},
      {"lineage", std::move(lineageArray)}};
}

//===----------------------------------------------------------------------===//
// CheckpointSession
//===----------------------------------------------------------------------===//

class CheckpointSession::Instrumentation : public PassInstrumentation {
public:
  explicit Instrumentation(CheckpointSession &session) : session(session) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    session.beforePass(pass, op);
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    session.afterPass(pass, op);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    session.afterPassFailed(pass, op);
  }

private:
  CheckpointSession &session;
};

CheckpointSession::CheckpointSession(CheckpointSessionOptions options)
    : options(std::move(options)) {}

CheckpointSession::~CheckpointSession() = default;

void CheckpointSession::addObserver(
    std::unique_ptr<CheckpointObserver> observer) {
  observers.push_back(std::move(observer));
}

/// Whether `op` is a top-level module: checkpoints cover whole pipelines,
/// not nested adaptor runs.
static bool isTopLevelModule(Operation *op) {
  return llvm::isa<ModuleOp>(op) && !op->getParentOp();
}

void CheckpointSession::instrument(PassManager &pm) {
  // The fingerprint identifies the tool and the pipeline, not the machine:
  // no paths (an `output=` option names a file) and no clock.
  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  pm.printAsTextualPipeline(os);
  pipeline = std::regex_replace(pipeline, std::regex("output=[^ }]*"),
                                "output=<path>");
  llvm::SHA256 hasher;
  for (llvm::StringRef part :
       {llvm::StringRef(options.toolName), llvm::StringRef("blueprint-0.1"),
        llvm::StringRef("llvm-" LLVM_VERSION_STRING), llvm::StringRef(pipeline)}) {
    hasher.update(part);
    hasher.update(llvm::StringRef("\0", 1));
  }
  fingerprint = "sha256:" + llvm::toHex(hasher.final(), /*LowerCase=*/true);

  pm.addInstrumentation(std::make_unique<Instrumentation>(*this));
  // After a rejected or failed transition no later pass runs, so nothing of
  // a later stage (IR, checkpoints, printed analyses) is produced. An
  // existing handler is kept: the context has room for one only.
  MLIRContext *context = pm.getContext();
  if (!context->hasActionHandler())
    context->registerActionHandler(
        [halted = halted](function_ref<void()> transform,
                          const tracing::Action &action) {
          if (*halted && action.getTag() == PassExecutionAction::tag)
            return;
          transform();
        });
}

void CheckpointSession::beforePass(Pass *pass, Operation *op) {
  if (checkpointStageOf(pass->getArgument()).empty() || !isTopLevelModule(op))
    return;
  std::lock_guard<std::mutex> lock(mutex);
  pendingInputDigest = computeDigest(op);
  pendingStart = nowSeconds();
}

void CheckpointSession::afterPass(Pass *pass, Operation *op) {
  llvm::StringRef stage = checkpointStageOf(pass->getArgument());
  if (stage.empty() || !isTopLevelModule(op))
    return;
  std::lock_guard<std::mutex> lock(mutex);
  if (*halted)
    return;
  auto checkpoint = std::make_unique<Checkpoint>();
  checkpoint->record.hostSeconds = nowSeconds() - pendingStart;
  checkpoint->sequence = checkpoints.size() + 1;
  checkpoint->stage = stage.str();
  checkpoint->record.name = pass->getName().str();
  checkpoint->record.argument = pass->getArgument().str();
  std::string options;
  llvm::raw_string_ostream optionStream(options);
  pass->printAsTextualPipeline(optionStream);
  llvm::StringRef printed(options);
  checkpoint->record.options =
      printed.contains('{')
          ? printed.split('{').second.rsplit('}').first.str()
          : std::string();
  checkpoint->record.inputDigest = pendingInputDigest;
  checkpoint->digest = computeDigest(op);
  checkpoint->record.outputDigest = checkpoint->digest;
  checkpoint->sessionFingerprint = fingerprint;
  OwningOpRef<ModuleOp> snapshot(llvm::cast<ModuleOp>(op->clone()));
  checkpoint->schema = collectSchema(*snapshot);
  checkpoint->lineage = collectLineage(*snapshot);
  checkpoint->snapshot = *snapshot;
  llvm::raw_string_ostream irStream(checkpoint->ir);
  snapshot->print(irStream, OpPrintingFlags().enableDebugInfo(true));
  if (failed(publish(std::move(checkpoint), std::move(snapshot))))
    *halted = true;
}

void CheckpointSession::afterPassFailed(Pass *pass, Operation *op) {
  std::lock_guard<std::mutex> lock(mutex);
  if (*halted)
    return;
  *halted = true;
  llvm::StringRef stage = checkpointStageOf(pass->getArgument());
  llvm::StringRef boundary =
      !stage.empty() ? stage
      : pass->getArgument() == "verify-conservation" ? "conservation"
                                                      : "pass";
  op->emitError() << boundary << " boundary: pass '" << pass->getArgument()
                  << "' failed; no output, checkpoint or analysis of this or "
                     "any later stage is published";
}

LogicalResult
CheckpointSession::publish(std::unique_ptr<Checkpoint> checkpoint,
                           OwningOpRef<ModuleOp> snapshot) {
  Location loc = snapshot->getLoc();
  for (const std::unique_ptr<CheckpointObserver> &observer : observers) {
    llvm::Error rejection = observer->observe(*checkpoint);
    if (rejection)
      return emitError(loc)
             << "observer boundary: observer '" << observer->getName()
             << "' rejected the " << checkpoint->stage
             << " checkpoint of pass '" << checkpoint->record.argument
             << "': " << llvm::toString(std::move(rejection));
    if (computeDigest(*snapshot) != checkpoint->digest)
      return emitError(loc) << "observer boundary: observer '"
                            << observer->getName()
                            << "' mutated the checkpoint snapshot; observers "
                               "are read-only";
  }

  if (!options.directory.empty()) {
    std::string stem = (checkpoint->sequence < 10 ? "0" : "") +
                       std::to_string(checkpoint->sequence) + "-" +
                       checkpoint->record.argument;
    if (std::error_code error =
            llvm::sys::fs::create_directories(options.directory))
      return emitError(loc) << "checkpoint: cannot create directory '"
                            << options.directory << "': " << error.message();
    llvm::SmallString<128> irPath(options.directory), jsonPath(options.directory);
    llvm::sys::path::append(irPath, stem + ".mlir");
    llvm::sys::path::append(jsonPath, stem + ".json");
    // llvm::writeToOutput writes a temporary file and renames it over the
    // target, so a crash never leaves a half-written checkpoint; the JSON
    // record, written last, marks the checkpoint complete.
    if (llvm::Error error =
            llvm::writeToOutput(irPath, [&](llvm::raw_ostream &os) {
              os << checkpoint->ir;
              return llvm::Error::success();
            }))
      return emitError(loc) << "checkpoint: " << llvm::toString(std::move(error));
    llvm::json::Value record = checkpoint->toJSON(stem + ".mlir");
    if (llvm::Error error =
            llvm::writeToOutput(jsonPath, [&](llvm::raw_ostream &os) {
              os << llvm::formatv("{0:2}", record) << "\n";
              return llvm::Error::success();
            }))
      return emitError(loc) << "checkpoint: " << llvm::toString(std::move(error));
  }
  // The snapshot lives only while it is observed (its context may not
  // outlive the pipeline run); the published checkpoint keeps its text.
  checkpoint->snapshot = nullptr;
  checkpoints.push_back(std::move(checkpoint));
  return success();
}
