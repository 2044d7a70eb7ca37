//===- Plan.cpp - Target-neutral requirements of work ---------------------===//

#include "Blueprint/Workload/Plan.h"
#include "Blueprint/Workload/Checked.h"

#include "llvm/ADT/STLExtras.h"

using namespace blueprint::workload;

CapabilityKind
blueprint::workload::requiredCapability(Engine engine,
                                        std::optional<CollectiveKind> kind) {
  switch (engine) {
  case Engine::Matmul:
    return CapabilityKind::Matmul;
  case Engine::Vector:
    return CapabilityKind::VectorElementwise;
  case Engine::Collective:
    break;
  }
  switch (kind.value_or(CollectiveKind::AllReduce)) {
  case CollectiveKind::AllReduce:
    return CapabilityKind::CollectiveAllReduce;
  case CollectiveKind::ReduceScatter:
    return CapabilityKind::CollectiveReduceScatter;
  case CollectiveKind::AllGather:
    return CapabilityKind::CollectiveAllGather;
  case CollectiveKind::AllToAll:
    return CapabilityKind::CollectiveAllToAll;
  }
  llvm_unreachable("unknown CollectiveKind");
}

llvm::Expected<Demand>
blueprint::workload::demandOf(const InvocationFigures &figures) {
  OverflowGuard guard;
  Demand demand;
  demand.compute = figures.ops;
  demand.memory = guard.add(figures.readBytes, figures.writeBytes,
                            figures.primitive + " memory demand");
  if (guard.failed())
    return guard.error("demandOf");
  if (figures.collective) {
    llvm::Expected<int64_t> network = minimumTransferBytes(*figures.collective);
    if (!network)
      return network.takeError();
    demand.network = *network;
  }
  return demand;
}

llvm::StringRef blueprint::workload::stringifyStage(Stage stage) {
  switch (stage) {
  case Stage::Forward:
    return "forward";
  case Stage::Recompute:
    return "recompute";
  case Stage::Backward:
    return "backward";
  case Stage::PerIteration:
    return "per_iteration";
  case Stage::Prefill:
    return "prefill";
  case Stage::Decode:
    return "decode";
  }
  llvm_unreachable("unknown Stage");
}

std::vector<Stage> blueprint::workload::assignStages(
    llvm::ArrayRef<std::pair<Phase, Cadence>> workInOrder) {
  std::vector<Stage> stages(workInOrder.size(), Stage::Backward);
  std::optional<Stage> next;
  for (size_t i = workInOrder.size(); i-- > 0;) {
    auto [phase, cadence] = workInOrder[i];
    Stage stage;
    if (cadence == Cadence::PerIteration)
      stage = Stage::PerIteration;
    else if (phase == Phase::Prefill)
      stage = Stage::Prefill;
    else if (phase == Phase::Decode)
      stage = Stage::Decode;
    else if (phase == Phase::Forward)
      stage = Stage::Forward;
    else if (phase == Phase::Recompute)
      stage = Stage::Recompute;
    else if (phase == Phase::Recommunication && next &&
             *next != Stage::PerIteration)
      stage = *next;
    else
      stage = Stage::Backward;
    stages[i] = stage;
    next = stage;
  }
  return stages;
}
