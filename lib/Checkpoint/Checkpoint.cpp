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
#include "llvm/Support/MemoryBuffer.h"
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

static std::string renderFileLocation(FileLineColLoc file) {
  return llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                       file.getLine(), file.getColumn())
      .str();
}

/// "name" for a NameLoc, "file:line:col" for a file location, the pieces of
/// a fused location in order. A spec field an importer named after its
/// source (`"$.model.hidden"(file:4:5)`) is one entry, "file:4:5:
/// $.model.hidden", as a compiler names a place in a file.
static void renderLocation(Location loc, std::vector<std::string> &chain) {
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      renderLocation(part, chain);
  } else if (auto name = llvm::dyn_cast<NameLoc>(loc)) {
    if (auto file = llvm::dyn_cast<FileLineColLoc>(name.getChildLoc())) {
      chain.push_back(renderFileLocation(file) + ": " + name.getName().str());
      return;
    }
    chain.push_back(name.getName().str());
    if (!llvm::isa<UnknownLoc>(name.getChildLoc()))
      renderLocation(name.getChildLoc(), chain);
  } else if (auto file = llvm::dyn_cast<FileLineColLoc>(loc)) {
    chain.push_back(renderFileLocation(file));
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

std::string Checkpoint::fileStem() const {
  return (sequence < 10 ? "0" : "") + std::to_string(sequence) + "-" +
         record.argument;
}

void Checkpoint::writeJSON(llvm::raw_ostream &os,
                           llvm::StringRef irFile) const {
  // Keys in name order, as llvm::json::Object prints them.
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("digest", digest);
    json.attribute("format", "blueprint-checkpoint/1");
    json.attribute("ir_file", irFile);
    json.attributeArray("lineage", [&] {
      for (const LineageEntry &entry : lineage)
        json.object([&] {
          if (!entry.model.empty())
            json.attribute("cause", entry.cause);
          json.attributeArray("chain", [&] {
            for (const std::string &link : entry.chain)
              json.value(link);
          });
          if (!entry.model.empty())
            json.attribute("model", entry.model);
          json.attribute("name", entry.name);
          json.attribute("op", entry.op);
          if (!entry.model.empty())
            json.attribute("phase", entry.phase);
        });
    });
    json.attributeObject("pass", [&] {
      json.attribute("argument", record.argument);
      json.attribute("host_seconds", record.hostSeconds);
      json.attribute("input_digest", record.inputDigest);
      json.attribute("name", record.name);
      json.attribute("options", record.options);
      json.attribute("output_digest", record.outputDigest);
    });
    json.attributeArray("schema", [&] {
      for (const DialectSchema &dialect : schema)
        json.object([&] {
          json.attribute("dialect", dialect.dialect);
          json.attribute("version", dialect.version);
        });
    });
    json.attribute("sequence", sequence);
    json.attribute("session_fingerprint", sessionFingerprint);
    json.attribute("stage", stage);
  });
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Session fingerprint
//===----------------------------------------------------------------------===//

std::string blueprint::digestFileContents(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "unreadable";
  return "sha256:" + llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(
                                     (*buffer)->getBuffer())),
                                 /*LowerCase=*/true);
}

/// The options of Blueprint passes that name a file the pass reads.
static constexpr llvm::StringLiteral kInputFileOptions[] = {"profile",
                                                            "binding-file"};

std::string blueprint::computeSessionFingerprint(
    llvm::StringRef toolName, llvm::StringRef pipeline,
    llvm::ArrayRef<std::string> observerIdentities) {
  // Options print as `name=value` inside `{...}`, a value with spaces or
  // braces quoted or braced.
  static const std::regex option(
      R"(([A-Za-z][A-Za-z0-9_-]*)=("[^"]*"|\{[^}]*\}|[^ }]*))");
  std::string normalized;
  std::string text = pipeline.str();
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), option), end;
       it != end; ++it) {
    const std::smatch &match = *it;
    normalized.append(last, match[0].first);
    last = match[0].second;
    std::string name = match[1].str();
    // A value with spaces prints braced (`profile={my dir/p.json}`).
    std::string valueText = match[2].str();
    llvm::StringRef value = valueText;
    if (value.starts_with("{") && value.ends_with("}"))
      value = value.drop_front().drop_back();
    value = value.trim('"');
    if (name == "output")
      continue;
    if (llvm::is_contained(kInputFileOptions, name))
      normalized += name + "=" + digestFileContents(value);
    else
      normalized += match[0].str();
  }
  normalized.append(last, text.cend());

  llvm::SHA256 hasher;
  auto add = [&](llvm::StringRef part) {
    hasher.update(part);
    hasher.update(llvm::StringRef("\0", 1));
  };
  for (llvm::StringRef part : {toolName, llvm::StringRef("blueprint-0.1"),
                               llvm::StringRef("llvm-" LLVM_VERSION_STRING),
                               llvm::StringRef(normalized)})
    add(part);
  for (const std::string &identity : observerIdentities)
    add(identity);
  return "sha256:" + llvm::toHex(hasher.final(), /*LowerCase=*/true);
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

/// Whether `name` is a file a checkpoint session writes: `NN-<pass>.mlir`
/// or `NN-<pass>.json` of a pass that publishes checkpoints, or the
/// temporary file llvm::writeToOutput writes it through
/// (`NN-<pass>.mlir.temp-stream-XXXXXX`, left behind by a crash). A user's
/// `01-gpt.json` is none of these.
static bool isCheckpointFileName(llvm::StringRef name) {
  auto [number, rest] = name.split('-');
  if (number.size() < 2 || !llvm::all_of(number, llvm::isDigit))
    return false;
  llvm::StringRef pass = rest.take_until([](char c) { return c == '.'; });
  if (checkpointStageOf(pass).empty())
    return false;
  llvm::StringRef suffix = rest.drop_front(pass.size());
  if (!suffix.consume_front(".mlir") && !suffix.consume_front(".json"))
    return false;
  return suffix.empty() ||
         (suffix.consume_front(".temp-stream-") && !suffix.empty() &&
          llvm::all_of(suffix, llvm::isAlnum));
}

/// Removes the checkpoint files of an earlier run from `directory`; fails
/// if it holds anything else.
static LogicalResult clearCheckpointDirectory(llvm::StringRef directory,
                                              Location loc) {
  if (!llvm::sys::fs::is_directory(directory))
    return success(); // created on the first publication
  std::error_code error;
  llvm::SmallVector<std::string> stale;
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       !error && it != end; it.increment(error)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    // status(), not the directory entry's type: some file systems report
    // no type in directory entries.
    if (!isCheckpointFileName(name) ||
        !llvm::sys::fs::is_regular_file(it->path()))
      return emitError(loc)
             << "checkpoint: directory '" << directory << "' holds '" << name
             << "', which is not a checkpoint file; checkpoints of one run "
                "are never mixed with other files: choose an empty or new "
                "directory";
    stale.push_back(it->path());
  }
  if (error)
    return emitError(loc) << "checkpoint: cannot read directory '" << directory
                          << "': " << error.message();
  for (const std::string &path : stale)
    if (std::error_code removal = llvm::sys::fs::remove(path))
      return emitError(loc) << "checkpoint: cannot remove '" << path
                            << "' of an earlier run: " << removal.message();
  return success();
}

LogicalResult CheckpointSession::instrument(PassManager &pm) {
  // Once per session: with --split-input-file the driver sets up a pipeline
  // for every chunk, and the chunks' checkpoints are one run's.
  if (!options.directory.empty() && !directoryCleared) {
    if (failed(clearCheckpointDirectory(options.directory,
                                        UnknownLoc::get(pm.getContext()))))
      return failure();
    directoryCleared = true;
  }

  // The fingerprint identifies the tool, the pipeline and what it reads,
  // not the machine: no path and no clock enter it.
  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  pm.printAsTextualPipeline(os);
  std::vector<std::string> identities;
  for (const std::unique_ptr<CheckpointObserver> &observer : observers)
    identities.push_back(observer->getIdentity());
  fingerprint =
      computeSessionFingerprint(options.toolName, pipeline, identities);

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
  return success();
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
    std::string stem = checkpoint->fileStem();
    if (std::error_code error =
            llvm::sys::fs::create_directories(options.directory))
      return emitError(loc) << "checkpoint: cannot create directory '"
                            << options.directory << "': " << error.message();
    llvm::SmallString<128> irPath(options.directory), jsonPath(options.directory);
    llvm::sys::path::append(irPath, stem + ".mlir");
    llvm::sys::path::append(jsonPath, stem + ".json");
    // llvm::writeToOutput writes a temporary file and renames it over the
    // target, so a crash never leaves a half-written checkpoint; the JSON
    // record, written last, marks the checkpoint complete. If the record
    // cannot be written, the IR file goes too: a checkpoint is both or
    // neither.
    if (llvm::Error error =
            llvm::writeToOutput(irPath, [&](llvm::raw_ostream &os) {
              os << checkpoint->ir;
              return llvm::Error::success();
            }))
      return emitError(loc)
             << "checkpoint: " << llvm::toString(std::move(error));
    if (llvm::Error error =
            llvm::writeToOutput(jsonPath, [&](llvm::raw_ostream &os) {
              checkpoint->writeJSON(os, stem + ".mlir");
              return llvm::Error::success();
            })) {
      std::string message = llvm::toString(std::move(error));
      if (std::error_code removal = llvm::sys::fs::remove(irPath))
        message += "; removing " + irPath.str().str() +
                   " failed too: " + removal.message();
      return emitError(loc) << "checkpoint: " << message;
    }
  }
  // The snapshot lives only while it is observed (its context may not
  // outlive the pipeline run); the published checkpoint keeps its text.
  checkpoint->snapshot = nullptr;
  checkpoints.push_back(std::move(checkpoint));
  return success();
}
