//===- Checkpoint.h - Checkpoints, observers and the audit trail -*- C++ -*-===//
//
// After a Blueprint pass's output verifies, a CheckpointSession installed on
// a PassManager publishes a Checkpoint: an immutable snapshot of the IR, its
// schema, a stable digest, the pass record, the session fingerprint and the
// lineage of every task, value and buffer. Synchronous observers see it and
// may reject the transition; a rejected or failed transition publishes
// nothing (no checkpoint, no files) and halts the pipeline.
// docs/Checkpoints.md documents the record format and how to write an
// observer.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_CHECKPOINT_CHECKPOINT_H
#define BLUEPRINT_CHECKPOINT_CHECKPOINT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace blueprint {

/// What one pass did: its identity and options, the digests of the IR it
/// received and produced, and the host time it took. Host time is the
/// compiler's own wall-clock cost, never a prediction of the workload's time.
struct PassRecord {
  std::string name;
  std::string argument;
  std::string options;
  std::string inputDigest;
  std::string outputDigest;
  double hostSeconds = 0;
};

/// A dialect present in a snapshot, with the version of its schema.
struct DialectSchema {
  std::string dialect;
  std::string version;
};

/// The chain from one task, value or buffer back to its model source, read
/// from its location: the named location of the work
/// ("<primitive>.<phase>"), then the source file locations.
struct LineageEntry {
  std::string op;
  /// Symbol name (buffers, boundaries, programs) or primitive (work).
  std::string name;
  /// Set for work: the lineage attribute of its fused location.
  std::string model;
  std::string phase;
  std::string cause;
  std::vector<std::string> chain;
};

struct Checkpoint {
  /// 1-based position among the session's published checkpoints.
  unsigned sequence = 0;
  /// The pipeline boundary the pass crosses: "distribution" or "planning".
  std::string stage;
  PassRecord record;
  /// Digest of the snapshot (equal to record.outputDigest).
  std::string digest;
  std::vector<DialectSchema> schema;
  std::string sessionFingerprint;
  std::vector<LineageEntry> lineage;
  /// The IR after the pass, a copy no later pass touches, alive while the
  /// observers see it (null once published: its context may not outlive the
  /// run). A snapshot whose digest changes while observed rejects the
  /// transition.
  mlir::ModuleOp snapshot;
  /// The snapshot printed with locations: the checkpoint's IR file.
  std::string ir;

  /// `NN-<pass argument>`: the name of its files in a checkpoint directory
  /// (`.mlir`, `.json`) without the extension.
  std::string fileStem() const;
  /// Writes the JSON record (docs/Checkpoints.md), without the snapshot
  /// itself, streamed (a record of a large program is never held as a JSON
  /// tree).
  void writeJSON(llvm::raw_ostream &os, llvm::StringRef irFile) const;
};

/// A synchronous, read-only observer of checkpoints.
class CheckpointObserver {
public:
  virtual ~CheckpointObserver();
  virtual llvm::StringRef getName() const = 0;
  /// What identifies the observer's configuration in the session
  /// fingerprint: its name, plus the digest of the contents of any file it
  /// reads (never a path).
  virtual std::string getIdentity() const { return getName().str(); }
  /// Returns an error to reject the transition; its message becomes the
  /// pipeline's diagnostic.
  virtual llvm::Error observe(const Checkpoint &checkpoint) = 0;
};

struct CheckpointSessionOptions {
  /// When set, every published checkpoint is written there as
  /// `NN-<pass>.mlir` (the snapshot with locations) and `NN-<pass>.json`.
  std::string directory;
  /// Name of the tool, part of the session fingerprint.
  std::string toolName = "blueprint";
};

/// Installs checkpointing on a PassManager and owns what it publishes. One
/// session per pipeline run.
class CheckpointSession {
public:
  explicit CheckpointSession(CheckpointSessionOptions options = {});
  ~CheckpointSession();

  void addObserver(std::unique_ptr<CheckpointObserver> observer);

  /// Adds the instrumentation to `pm` and fixes the session fingerprint from
  /// its pipeline and observers. Unless the context already has an action
  /// handler (e.g. --log-actions-to), also installs one that skips every
  /// pass after a rejected or failed transition; without it, later passes
  /// still run but nothing after the halt is published.
  ///
  /// With a checkpoint directory, first removes the checkpoint files an
  /// earlier run left there, so the directory never mixes runs; fails,
  /// with a diagnostic, if it holds anything else (it is then not a
  /// checkpoint directory and is left untouched) or cannot be cleared.
  mlir::LogicalResult instrument(mlir::PassManager &pm);

  /// The checkpoints published so far, in order.
  llvm::ArrayRef<std::unique_ptr<Checkpoint>> getCheckpoints() const {
    return checkpoints;
  }
  /// Failure once a Blueprint pass failed or an observer rejected a
  /// transition (the diagnostic was emitted then).
  mlir::LogicalResult status() const { return mlir::failure(*halted); }
  llvm::StringRef getFingerprint() const { return fingerprint; }

private:
  class Instrumentation;
  friend class Instrumentation;

  void beforePass(mlir::Pass *pass, mlir::Operation *op);
  void afterPass(mlir::Pass *pass, mlir::Operation *op);
  void afterPassFailed(mlir::Pass *pass, mlir::Operation *op);
  mlir::LogicalResult publish(std::unique_ptr<Checkpoint> checkpoint,
                              mlir::OwningOpRef<mlir::ModuleOp> snapshot);

  CheckpointSessionOptions options;
  std::vector<std::unique_ptr<CheckpointObserver>> observers;
  std::vector<std::unique_ptr<Checkpoint>> checkpoints;
  std::string fingerprint;
  std::mutex mutex;
  /// Shared with the action handler installed on the context, which may
  /// outlive the session and reads it from pass-manager worker threads.
  std::shared_ptr<std::atomic<bool>> halted =
      std::make_shared<std::atomic<bool>>(false);
  /// Whether instrument() has cleared the checkpoint directory.
  bool directoryCleared = false;
  /// Input digest and start time of the Blueprint pass now running.
  std::string pendingInputDigest;
  double pendingStart = 0;
};

/// The session fingerprint of a run (docs/Checkpoints.md): SHA-256 over the
/// tool name, the Blueprint and LLVM versions, the textual pipeline and the
/// observers' identities, where every option that names a file the
/// pipeline reads (`profile=`, `binding-file=`) stands for the digest of the
/// file's contents and every output path (`output=`) is dropped. The same
/// inputs give the same fingerprint wherever their files are.
std::string
computeSessionFingerprint(llvm::StringRef toolName, llvm::StringRef pipeline,
                          llvm::ArrayRef<std::string> observerIdentities);

/// `sha256:<hex>` of a file's contents, or `unreadable` (a digest names
/// contents, never a path).
std::string digestFileContents(llvm::StringRef path);

/// The stage a Blueprint pass argument produces ("distribution",
/// "planning"), or empty for passes that publish no checkpoint.
llvm::StringRef checkpointStageOf(llvm::StringRef passArgument);

/// Every stage a checkpoint can have.
llvm::ArrayRef<llvm::StringLiteral> getCheckpointStages();

/// The built-in observers, by name: "conservation", "mesh", "recompute",
/// "no-target-fields", and "reference" (which needs `referenceFile`).
llvm::Expected<std::unique_ptr<CheckpointObserver>>
createBuiltinObserver(llvm::StringRef name, llvm::StringRef referenceFile);

/// Names accepted by createBuiltinObserver.
llvm::ArrayRef<llvm::StringLiteral> getBuiltinObserverNames();

} // namespace blueprint

#endif // BLUEPRINT_CHECKPOINT_CHECKPOINT_H
