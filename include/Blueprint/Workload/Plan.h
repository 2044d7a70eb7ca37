//===- Plan.h - Target-neutral requirements of work -------------*- C++ -*-===//
//
// What a portable plan states about each invocation besides its facts: the
// capability it requires and its abstract resource demand. Both follow from
// the facts alone, so the plan pass and the plan verifier share them.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_PLAN_H
#define BLUEPRINT_WORKLOAD_PLAN_H

#include "Blueprint/Workload/BlockWork.h"

namespace blueprint::workload {

/// The capability that covers work on `engine` (for a collective, of
/// `kind`): matmul, vector-elementwise, or the collective of that kind.
CapabilityKind requiredCapability(Engine engine,
                                  std::optional<CollectiveKind> kind);

/// Abstract resource demand in target-neutral units.
struct Demand {
  /// Arithmetic operations.
  int64_t compute = 0;
  /// Memory traffic: bytes read plus bytes written.
  int64_t memory = 0;
  /// Network bytes each rank must send: minimumTransferBytes of a
  /// collective, 0 for other work.
  int64_t network = 0;

  bool operator==(const Demand &other) const {
    return compute == other.compute && memory == other.memory &&
           network == other.network;
  }
};

/// The demand an invocation's figures imply; fails on overflow or a
/// malformed collective.
llvm::Expected<Demand> demandOf(const InvocationFigures &figures);

/// The conservative stage of a piece of work in a program.
enum class Stage {
  Forward,
  Recompute,
  Backward,
  PerIteration,
  Prefill,
  Decode
};

llvm::StringRef stringifyStage(Stage stage);

/// The stages of work listed in execution order by (phase, cadence):
/// per-iteration work, prefill and decode are their own stages; forward and
/// recompute phases are
/// their stages; gradients are backward; a recommunication serves the work
/// that follows it (a redone forward collective the recompute, a re-gather
/// a weight gradient) and takes its stage.
std::vector<Stage>
assignStages(llvm::ArrayRef<std::pair<Phase, Cadence>> workInOrder);

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_PLAN_H
