//===- Estimate.cpp - Roofline and alpha-beta estimates of exact work -----===//
//
// One function per formula, each naming its source; the estimator applies
// them to every task and records, term by term, the plan facts and profile
// fields it used. docs/Estimate.md states the formulas, the provenance format
// and the definitional choices (what overlaps, what is counted).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Workload/Checked.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace blueprint;
using namespace blueprint::estimate;
using workload::Cadence;
using workload::CollectiveKind;
using workload::DataType;
using workload::Engine;
using workload::Phase;

//===----------------------------------------------------------------------===//
// Formulas
//===----------------------------------------------------------------------===//

double estimate::rooflineComputeSeconds(int64_t ops, double peakOpsPerSecond,
                                        double efficiency) {
  return static_cast<double>(ops) / (peakOpsPerSecond * efficiency);
}

static int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

llvm::Expected<double>
estimate::l2ReuseFraction(const workload::MatmulShape &gemm,
                          const GemmTile &tile, int64_t elementBytes,
                          double l2ReadBytesPerSecond,
                          double peakOpsPerSecond) {
  if (gemm.m == 0 || gemm.n == 0)
    return 1.0;
  int64_t rowTiles = ceilDiv(gemm.m, tile.tileM);
  int64_t columnTiles = ceilDiv(gemm.n, tile.tileN);
  workload::OverflowGuard guard;
  // Per unit of K and per batch (both cancel): the padded tiles' slot
  // operations, and the operand bytes they stream, each of the columnTiles
  // tiles of a row band reading the band's valid rows of A and each of the
  // rowTiles tiles of a column band the band's valid columns of B.
  int64_t slotOps =
      guard.product({2, rowTiles, tile.tileM, columnTiles, tile.tileN},
                    "the GEMM's padded slot operations per unit of K");
  int64_t streamedA = guard.mul(gemm.m, columnTiles, "the A elements streamed");
  int64_t streamedB = guard.mul(gemm.n, rowTiles, "the B elements streamed");
  int64_t streamedElements = guard.add(
      streamedA, streamedB, "the operand elements streamed per unit of K");
  int64_t streamedBytes = guard.mul(streamedElements, elementBytes,
                                    "the operand bytes streamed per unit of K");
  if (guard.failed())
    return guard.error("tile model");
  double opsPerByte =
      static_cast<double>(slotOps) / static_cast<double>(streamedBytes);
  return std::min(1.0, l2ReadBytesPerSecond * opsPerByte / peakOpsPerSecond);
}

llvm::Expected<TileQuantization>
estimate::tileQuantization(const workload::MatmulShape &gemm, int64_t smCount,
                           int64_t tileM, int64_t tileN, double sustained,
                           double reuseFraction) {
  TileQuantization result;
  result.tile = {tileM, tileN};
  result.reuseFraction = reuseFraction;
  result.efficiency = sustained * reuseFraction;
  if (gemm.m == 0 || gemm.n == 0)
    return result;
  int64_t rowTiles = ceilDiv(gemm.m, tileM);
  int64_t columnTiles = ceilDiv(gemm.n, tileN);
  workload::OverflowGuard guard;
  result.tiles = guard.product({gemm.batch, rowTiles, columnTiles},
                               "the GEMM's tile count");
  if (guard.failed())
    return guard.error("tile model");
  result.waves = ceilDiv(result.tiles, smCount);
  // Ratios of exact integers, formed in double: each factor is at most 1.
  result.tileFraction =
      (static_cast<double>(gemm.m) /
       (static_cast<double>(rowTiles) * static_cast<double>(tileM))) *
      (static_cast<double>(gemm.n) /
       (static_cast<double>(columnTiles) * static_cast<double>(tileN)));
  result.waveFraction =
      static_cast<double>(result.tiles) /
      (static_cast<double>(result.waves) * static_cast<double>(smCount));
  result.efficiency =
      sustained * reuseFraction * result.tileFraction * result.waveFraction;
  return result;
}

llvm::Expected<TileQuantization>
estimate::selectTile(const workload::MatmulShape &gemm, const TileModel &model,
                     int64_t elementBytes, double peakOpsPerSecond) {
  std::optional<TileQuantization> best;
  int64_t bestPaddedSlots = 0;
  for (size_t i = 0; i < model.tiles.size(); ++i) {
    const GemmTile &tile = model.tiles[i];
    double reuse = 1.0;
    if (model.l2ReadBandwidth) {
      llvm::Expected<double> bounded =
          l2ReuseFraction(gemm, tile, elementBytes,
                          model.l2ReadBandwidth->value, peakOpsPerSecond);
      if (!bounded)
        return bounded.takeError();
      reuse = *bounded;
    }
    llvm::Expected<TileQuantization> quantized =
        tileQuantization(gemm, model.smCount.value, tile.tileM, tile.tileN,
                         model.sustained.value, reuse);
    if (!quantized)
      return quantized.takeError();
    quantized->tileIndex = i;
    // waves * tileM * tileN: the output slots the waves provide, the
    // denominator of the efficiency over the tile-independent batch*M*N.
    workload::OverflowGuard guard;
    int64_t paddedSlots =
        guard.product({quantized->waves, tile.tileM, tile.tileN},
                      "the GEMM's waves times the tile area");
    if (guard.failed())
      return guard.error("tile model");
    // Efficiency is proportional to reuse / paddedSlots: compared exactly
    // between equal reuse fractions, in double otherwise.
    bool better = !best || (reuse == best->reuseFraction
                                ? paddedSlots < bestPaddedSlots
                                : reuse * static_cast<double>(bestPaddedSlots) >
                                      best->reuseFraction *
                                          static_cast<double>(paddedSlots));
    if (better) {
      best = *quantized;
      bestPaddedSlots = paddedSlots;
    }
  }
  return *best;
}

double estimate::rooflineMemorySeconds(int64_t bytes,
                                       double bandwidthBytesPerSecond,
                                       double efficiency) {
  return static_cast<double>(bytes) / (bandwidthBytesPerSecond * efficiency);
}

/// `rounds` passes of n - 1 steps, each step moving M/n bytes per rank and
/// paying the latency once: rounds * (n-1)/n * M / B + rounds * (n-1) *
/// alpha. The shape every collective algorithm here has.
static double stepRoundsSeconds(double rounds, int64_t participants,
                                int64_t messageBytes,
                                double bandwidthBytesPerSecond,
                                double latencySeconds) {
  double steps = static_cast<double>(participants - 1);
  return rounds * steps / static_cast<double>(participants) *
             static_cast<double>(messageBytes) / bandwidthBytesPerSecond +
         rounds * steps * latencySeconds;
}

bool estimate::collectiveCallIssued(int64_t participants,
                                    int64_t messageBytes) {
  return participants > 1 && messageBytes > 0;
}

bool estimate::paysCallLatency(const workload::CollectiveFacts &facts) {
  return facts.kind != CollectiveKind::AllToAll && !facts.pointToPoint &&
         collectiveCallIssued(facts.participants, facts.messageBytes);
}

/// A ring collective of `rounds` passes: the call's fixed latency once, then
/// the passes' steps; nothing when the call is not issued.
static double ringCallSeconds(double rounds, int64_t participants,
                              int64_t messageBytes,
                              double bandwidthBytesPerSecond,
                              double latencySeconds,
                              double callLatencySeconds) {
  if (!estimate::collectiveCallIssued(participants, messageBytes))
    return 0;
  return callLatencySeconds +
         stepRoundsSeconds(rounds, participants, messageBytes,
                           bandwidthBytesPerSecond, latencySeconds);
}

double estimate::ringAllReduceSeconds(int64_t participants,
                                      int64_t messageBytes,
                                      double bandwidthBytesPerSecond,
                                      double latencySeconds,
                                      double callLatencySeconds) {
  return ringCallSeconds(2, participants, messageBytes, bandwidthBytesPerSecond,
                         latencySeconds, callLatencySeconds);
}

double estimate::ringReduceScatterOrAllGatherSeconds(
    int64_t participants, int64_t messageBytes, double bandwidthBytesPerSecond,
    double latencySeconds, double callLatencySeconds) {
  return ringCallSeconds(1, participants, messageBytes, bandwidthBytesPerSecond,
                         latencySeconds, callLatencySeconds);
}

double estimate::pairwiseAllToAllSeconds(int64_t participants,
                                         int64_t messageBytes,
                                         double bandwidthBytesPerSecond,
                                         double latencySeconds) {
  return stepRoundsSeconds(1, participants, messageBytes,
                           bandwidthBytesPerSecond, latencySeconds);
}

llvm::StringRef estimate::collectiveAlgorithm(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    return "ring";
  case CollectiveKind::AllToAll:
    return "pairwise";
  }
  llvm_unreachable("unknown CollectiveKind");
}

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "estimate: " + message);
}

EstimateInput
estimate::makeEstimateInput(const workload::TrainingSpec &training,
                            const workload::MappingSpec &mapping) {
  return makeEstimateInput(training.activationType, mapping);
}

std::vector<MeshAxis>
estimate::meshAxesOf(const workload::MappingSpec &mapping) {
  std::vector<MeshAxis> mesh = {{"tp", mapping.tp}, {"pp", mapping.pp}};
  // At ep > 1 the data-parallel ranks are the axes edp x ep, as in the
  // program's mesh (dist_program_c10, docs/Estimate.md).
  if (mapping.ep > 1) {
    mesh.push_back(
        {workload::kExpertDataParallelAxis.str(), mapping.dp / mapping.ep});
    mesh.push_back({workload::kExpertParallelAxis.str(), mapping.ep});
  } else {
    mesh.push_back({workload::kDataParallelAxis.str(), mapping.dp});
  }
  // The context-parallel axis only where the mapping has one, as the
  // program's mesh (docs/Estimate.md).
  if (mapping.cp > 1)
    mesh.push_back({workload::kContextParallelAxis.str(), mapping.cp});
  return mesh;
}

EstimateInput
estimate::makeEstimateInput(workload::DataType computeType,
                            const workload::MappingSpec &mapping) {
  EstimateInput input;
  input.computeType = computeType;
  input.mesh = meshAxesOf(mapping);
  return input;
}

bool EstimateTask::operator==(const EstimateTask &other) const {
  return std::tie(primitive, phase, engine, ops, gemms, gemmCover, readBytes,
                  writeBytes, collective, cadence, meshAxis, innerMeshAxes) ==
         std::tie(other.primitive, other.phase, other.engine, other.ops,
                  other.gemms, other.gemmCover, other.readBytes,
                  other.writeBytes, other.collective, other.cadence,
                  other.meshAxis, other.innerMeshAxes);
}

EstimateTask estimate::makeEstimateTask(const workload::InvocationFigures &figures,
                                        workload::Cadence cadence,
                                        llvm::StringRef collectiveAxis) {
  EstimateTask task;
  task.primitive = figures.primitive.str();
  task.phase = figures.phase;
  task.engine = figures.engine;
  task.ops = figures.ops;
  task.gemms.assign(figures.gemms.begin(), figures.gemms.end());
  task.gemmCover = figures.gemmCover;
  task.readBytes = figures.readBytes;
  task.writeBytes = figures.writeBytes;
  task.collective = figures.collective;
  task.cadence = cadence;
  if (figures.engine == Engine::Collective) {
    // At ep > 1 the expert dispatcher's collectives span ep (the token
    // counts' all-gather ep x tp) whichever axis the caller gives a block's
    // collectives (docs/Estimate.md, "Expert parallelism").
    bool expertAxis = figures.collective &&
                      figures.collective->axis == workload::kExpertParallelAxis;
    task.meshAxis =
        expertAxis ? figures.collective->axis : collectiveAxis.str();
    if (figures.collective)
      task.innerMeshAxes = figures.collective->innerAxes;
  }
  return task;
}

llvm::Error estimate::appendInvocation(EstimateInput &input,
                                       const workload::Invocation &invocation,
                                       workload::Cadence cadence,
                                       llvm::StringRef collectiveAxis) {
  // A task keeps only the sums; a negative count must not hide in one.
  for (const auto *accesses : {&invocation.reads, &invocation.writes})
    for (const workload::TensorAccess &access : *accesses)
      if (access.bytes < 0)
        return failure("'" + invocation.primitive + "' (" +
                       workload::stringifyEnum(invocation.phase) +
                       "): tensor '" + access.tensor + "' has negative bytes " +
                       llvm::Twine(access.bytes));
  llvm::Expected<workload::InvocationFigures> figures =
      workload::figuresOf(invocation);
  if (!figures)
    return figures.takeError();
  input.tasks.push_back(makeEstimateTask(*figures, cadence, collectiveAxis));
  return llvm::Error::success();
}

llvm::Error estimate::appendWork(EstimateInput &input,
                                 const workload::BlockWork &work,
                                 llvm::StringRef collectiveAxis) {
  for (const workload::Invocation &invocation : work.invocations)
    if (llvm::Error error =
            appendInvocation(input, invocation, work.cadence, collectiveAxis))
      return error;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Estimator
//===----------------------------------------------------------------------===//

llvm::StringRef estimate::stringifyBindingResource(BindingResource resource) {
  switch (resource) {
  case BindingResource::Compute:
    return "compute";
  case BindingResource::Memory:
    return "memory";
  case BindingResource::Network:
    return "network";
  }
  llvm_unreachable("unknown binding resource");
}

namespace {

/// Six significant digits: enough to recompute every term by hand.
std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.6g", value);
  return text;
}

/// The capability that executes an engine's arithmetic: a collective's
/// reduction runs on the vector engine.
Capability capabilityOf(Engine engine) {
  return engine == Engine::Matmul ? Capability::Matmul : Capability::Vector;
}

/// The factor an efficiency declaration gives for `size`; 1 when nothing
/// is declared.
double efficiencyFactor(const std::optional<Efficiency> &declared,
                        int64_t size) {
  return declared ? declared->steps[declared->stepFor(size)].efficiency : 1;
}

/// The efficiency step a declaration applies to `size`, with the profile
/// field it comes from ("<owner>.efficiency.flat" or
/// "<owner>.efficiency.by_<unit>[i]") and its text.
struct EfficiencyChoice {
  const EfficiencyStep *step = nullptr;
  std::string field;
  std::string text;
};

std::optional<EfficiencyChoice>
chooseEfficiency(const std::optional<Efficiency> &declared,
                 const std::string &owner, int64_t size, llvm::StringRef unit) {
  if (!declared)
    return std::nullopt;
  size_t index = declared->stepFor(size);
  EfficiencyChoice choice;
  choice.step = &declared->steps[index];
  choice.field = declared->flat ? owner + ".efficiency.flat"
                                : owner + ".efficiency.by_" + unit.str() +
                                      "[" + std::to_string(index) + "]";
  choice.text = choice.field + " " + formatNumber(choice.step->efficiency);
  if (!declared->flat)
    choice.text +=
        " (min_" + unit.str() + " " + std::to_string(choice.step->minSize) + ")";
  return choice;
}

/// "(<field> <value> * <efficiency>)", or "<field> <value> (no <efficiency
/// field> declared)".
std::string scaled(const std::string &field, double value,
                   const std::string &efficiency,
                   const std::string &efficiencyField) {
  std::string peak = field + " " + formatNumber(value);
  if (efficiency.empty())
    return peak + " (no " + efficiencyField + " declared)";
  return "(" + peak + " * " + efficiency + ")";
}

/// "network_tiers[<name>]": tiers are named by name, not position.
std::string tierPath(const NetworkTier &tier) {
  return "network_tiers[" + tier.name + "]";
}

/// "compute.<capability>.<datatype>": a rate's path in the profile.
std::string computeField(Capability capability, DataType type) {
  return "compute." + stringifyCapability(capability).str() + "." +
         workload::stringifyEnum(type).str();
}

/// Names a task in diagnostics, built only when one is emitted.
using TaskName = llvm::function_ref<std::string()>;

} // namespace

std::string estimate::callLatencyProvenance(const NetworkTier &tier) {
  std::string field = tierPath(tier) + ".call_latency_seconds";
  if (!tier.callLatencySeconds)
    return " (no " + field + " declared)";
  return " + " + field + " " + formatNumber(tier.callLatencySeconds->value);
}

/// The axis of `mesh` named `name`, or null.
static const MeshAxis *findMeshAxis(llvm::ArrayRef<MeshAxis> mesh,
                                    llvm::StringRef name) {
  for (const MeshAxis &axis : mesh)
    if (axis.name == name)
      return &axis;
  return nullptr;
}

static std::string meshAxisNames(llvm::ArrayRef<MeshAxis> mesh) {
  std::vector<std::string> names;
  for (const MeshAxis &axis : mesh)
    names.push_back("'" + axis.name + "'");
  return "{" + llvm::join(names, ", ") + "}";
}

static std::string tierNames(const SystemProfile &profile) {
  std::vector<std::string> names;
  for (const NetworkTier &tier : profile.networkTiers)
    names.push_back("'" + tier.name + "'");
  return "{" + llvm::join(names, ", ") + "}";
}

/// The binding must be physically possible. The tiers of a profile nest:
/// each group of a tier is made of whole groups of every smaller tier
/// (an 8-GPU NVLink domain inside an InfiniBand fabric), and the ranks a
/// mesh axis connects over its tier lie in one group of that tier. So,
/// from the smallest tier up, the axes bound to a tier form blocks, each
/// of its axes' product of the blocks of the tier below, and a block must
/// fit in one group: a group of the smallest tier holds group_size ranks;
/// a group of the next holds group_size / (the smaller tier's group_size)
/// groups of it, so as many blocks of the tier below as those groups
/// hold together. Ranks may stay idle (three tp ranks per 8-GPU domain
/// use 6 of its 8 GPUs), and blocks of one tier may share a group of a
/// smaller tier (docs/Estimate.md).
static llvm::Error checkTiersHoldTheirAxes(llvm::ArrayRef<MeshAxis> mesh,
                                           const SystemProfile &profile,
                                           const NetworkTierBinding &binding) {
  // Smallest first; tiers of one size in declaration order.
  llvm::SmallVector<std::pair<int64_t, const NetworkTier *>, 4> bySize;
  for (const NetworkTier &tier : profile.networkTiers)
    bySize.push_back({tier.groupSize.value, &tier});
  llvm::sort(bySize, [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first < b.first
                              : a.second < b.second; // declaration order
  });
  llvm::SmallVector<const NetworkTier *, 4> tiers;
  for (const auto &entry : bySize)
    tiers.push_back(entry.second);
  // Blocks of the tier below that one group of the current tier holds,
  // and the group size of the tier below (1: a rank).
  int64_t belowGroup = 1;
  int64_t blocksBelow = 1;
  std::string belowName = "rank";
  // The bound axes' sizes; an absent cp axis is one rank (checkMeshBinding).
  auto sizeOf = [&](const std::string &axisName) -> int64_t {
    const MeshAxis *axis = findMeshAxis(mesh, axisName);
    return axis ? axis->size : 1;
  };
  for (const NetworkTier *tier : tiers) {
    workload::OverflowGuard guard;
    int64_t axesProduct = 1;
    for (const auto &[axisName, tierName] : binding.tierOfAxis)
      if (tierName == tier->name)
        axesProduct =
            guard.mul(axesProduct, sizeOf(axisName), "the axes' product");
    // Named only when a diagnostic needs them: a valid binding builds no
    // string.
    auto axesOnTier = [&] {
      std::string axes;
      for (const auto &[axisName, tierName] : binding.tierOfAxis)
        if (tierName == tier->name)
          axes += (axes.empty() ? "" : " x ") + axisName + " (" +
                  std::to_string(sizeOf(axisName)) + ")";
      return axes;
    };
    if (guard.failed())
      return guard.error("network tier binding: tier '" + tier->name + "'");
    int64_t groupsBelow = tier->groupSize.value / belowGroup;
    int64_t capacity = groupsBelow * blocksBelow; // <= group_size
    int64_t blocks = capacity / axesProduct;
    if (blocks == 0)
      return failure("network tier binding: a group of tier '" + tier->name +
                     "' (" + tierPath(*tier) + ".group_size " +
                     llvm::Twine(tier->groupSize.value) + ") holds " +
                     llvm::Twine(capacity) + " " +
                     (belowGroup == 1 ? "ranks"
                                      : "blocks of the axes on tier '" +
                                            belowName + "' and below") +
                     ", but the axes bound to it, " + axesOnTier() + ", need " +
                     llvm::Twine(axesProduct));
    belowGroup = tier->groupSize.value;
    blocksBelow = blocks;
    belowName = tier->name;
  }
  return llvm::Error::success();
}

/// Every mesh axis is named once with a positive size; every bound axis is
/// in the mesh, names a tier of the profile, and the tier spans it.
llvm::Error estimate::checkMeshBinding(llvm::ArrayRef<MeshAxis> mesh,
                                       const SystemProfile &profile,
                                       const NetworkTierBinding &binding) {
  for (size_t i = 0; i < mesh.size(); ++i) {
    const MeshAxis &axis = mesh[i];
    if (axis.name.empty())
      return failure("mesh axis #" + llvm::Twine(i) + " has no name");
    if (axis.size <= 0)
      return failure("mesh axis '" + axis.name + "' has size " +
                     llvm::Twine(axis.size) + "; sizes must be positive");
    for (size_t j = 0; j < i; ++j)
      if (mesh[j].name == axis.name)
        return failure("mesh axis '" + axis.name + "' is declared twice");
  }
  for (const auto &[axisName, tierName] : binding.tierOfAxis) {
    auto where = [](const std::string &name) {
      return "network tier binding $." + name;
    };
    const MeshAxis *axis = findMeshAxis(mesh, axisName);
    // The cp axis is in the mesh only at cp > 1; a binding naming it also
    // serves cp = 1 plans, where it binds a one-rank axis. Likewise the dp
    // axis is in the mesh only at ep = 1 and the edp and ep axes only at
    // ep > 1: a binding naming all three serves both (docs/Estimate.md).
    if (!axis && (axisName == workload::kContextParallelAxis ||
                  (axisName == workload::kDataParallelAxis &&
                   findMeshAxis(mesh, workload::kExpertParallelAxis)) ||
                  ((axisName == workload::kExpertDataParallelAxis ||
                    axisName == workload::kExpertParallelAxis) &&
                   findMeshAxis(mesh, workload::kDataParallelAxis))))
      continue;
    if (!axis)
      return failure(where(axisName) + ": no mesh axis named '" + axisName +
                     "'; the mesh has " + meshAxisNames(mesh));
    const NetworkTier *tier = profile.tier(tierName);
    if (!tier)
      return failure(where(axisName) + ": profile '" + profile.name +
                     "' has no network tier named '" + tierName +
                     "'; its tiers are " + tierNames(profile));
    if (tier->groupSize.value < axis->size)
      return failure(where(axisName) + ": tier '" + tierName + "' spans " +
                     llvm::Twine(tier->groupSize.value) + " ranks (" +
                     tierPath(*tier) + ".group_size) but mesh axis '" +
                     axisName + "' has " + llvm::Twine(axis->size) + " ranks");
  }
  return checkTiersHoldTheirAxes(mesh, profile, binding);
}

namespace {

/// Every figure is computed first; with options.explain the provenance of
/// each term and the profile fields used are then spelled out.
class Estimator {
public:
  Estimator(const EstimateInput &input, const SystemProfile &profile,
            const NetworkTierBinding &binding, const EstimateOptions &options)
      : input(input), profile(profile), binding(binding),
        explain(options.explain) {}

  llvm::Expected<EstimateReport> run() {
    if (llvm::Error error = checkMeshBinding(input.mesh, profile, binding))
      return std::move(error);
    if (explain)
      useBoundTiers();
    EstimateReport report;
    report.profileName = profile.name;
    report.computeType = input.computeType;
    report.mesh = input.mesh;
    report.tierOfAxis = binding.tierOfAxis;
    report.tasks.reserve(input.tasks.size());
    for (size_t index = 0; index < input.tasks.size(); ++index) {
      llvm::Expected<TaskEstimate> task =
          estimateTask(index, input.tasks[index]);
      if (!task)
        return task.takeError();
      addToTotals(report, *task);
      report.tasks.push_back(std::move(*task));
    }
    for (auto &entry : fieldsUsed)
      report.profileFields.push_back(std::move(entry.second));
    return report;
  }

private:
  /// Records the group size of every bound tier as used (the rules are
  /// checkMeshBinding's).
  void useBoundTiers() {
    for (const auto &entry : binding.tierOfAxis) {
      const NetworkTier *tier = profile.tier(entry.second);
      use(tierPath(*tier) + ".group_size",
          static_cast<double>(tier->groupSize.value), tier->groupSize.source);
    }
  }

  llvm::Expected<TaskEstimate> estimateTask(size_t index,
                                            const EstimateTask &task) {
    // Named only when a diagnostic needs it: a valid task builds no string.
    auto where = [&] {
      return "task #" + std::to_string(index) + " '" + task.primitive +
             "' (" + workload::stringifyEnum(task.phase).str() + ")";
    };
    TaskEstimate result;
    result.primitive = task.primitive;
    result.phase = task.phase;
    result.engine = task.engine;
    result.cadence = task.cadence;
    result.ops = task.ops;
    result.collective = task.collective;
    result.meshAxis = task.meshAxis;
    for (const std::string &inner : task.innerMeshAxes)
      result.meshAxis += " x " + inner;
    result.readBytes = task.readBytes;
    result.writeBytes = task.writeBytes;

    if (task.ops < 0)
      return failure(where() + ": negative ops " + llvm::Twine(task.ops));
    if (task.readBytes < 0 || task.writeBytes < 0)
      return failure(where() + ": negative bytes (read " +
                     llvm::Twine(task.readBytes) + ", written " +
                     llvm::Twine(task.writeBytes) + ")");
    workload::OverflowGuard guard;
    int64_t movedBytes =
        guard.add(task.readBytes, task.writeBytes, "read + write bytes");
    if (guard.failed())
      return failure(where() + ": 64-bit overflow summing its " +
                     guard.overflowedQuantity());

    bool isCollective = task.engine == Engine::Collective;
    if (isCollective != task.collective.has_value())
      return failure(where() + ": engine " +
                     workload::stringifyEnum(task.engine) +
                     (isCollective ? " without" : " with") +
                     " collective facts; they are present exactly for "
                     "collectives");
    if (isCollective && task.meshAxis.empty())
      return failure(where() + ": a collective needs the mesh axis it spans");
    if (!isCollective && !task.meshAxis.empty())
      return failure(where() + ": only collectives span a mesh axis, got '" +
                     task.meshAxis + "'");

    // Network, reduction and memory for a collective; compute and memory
    // otherwise.
    result.terms.reserve(isCollective ? 3 : 2);
    if (isCollective) {
      llvm::Expected<TimeTerm> network = networkTerm(where, task, result);
      if (!network)
        return network.takeError();
      result.terms.push_back(std::move(*network));
      if (task.ops > 0) {
        llvm::Expected<TimeTerm> reduction =
            computeTerm(where, Engine::Collective, task.ops);
        if (!reduction)
          return reduction.takeError();
        result.terms.push_back(std::move(*reduction));
      }
      result.terms.push_back(memoryTerm(result, movedBytes));
    } else {
      llvm::Expected<TimeTerm> compute =
          computeTerm(where, task.engine, task.ops, task.gemms, task.gemmCover);
      if (!compute)
        return compute.takeError();
      result.terms.push_back(std::move(*compute));
      result.terms.push_back(memoryTerm(result, movedBytes));
    }

    // The terms overlap (roofline): the largest bounds the task; on a tie
    // the engine's own resource, listed first, is the binding one.
    const TimeTerm *largest = &result.terms.front();
    for (const TimeTerm &term : result.terms)
      if (term.seconds > largest->seconds)
        largest = &term;
    result.seconds = largest->seconds;
    result.binding = largest->resource;
    return result;
  }

  /// ops / (peak * efficiency) of the engine's capability at computeType;
  /// under a tile model, the sum of that over the task's GEMMs, each at its
  /// own efficiency.
  llvm::Expected<TimeTerm>
  computeTerm(TaskName where, Engine engine, int64_t ops,
              llvm::ArrayRef<workload::MatmulShape> gemms = {},
              workload::GemmCover cover = workload::GemmCover::AllOps) {
    Capability capability = capabilityOf(engine);
    const ComputeRate *rate = profile.rate(capability, input.computeType);
    if (!rate)
      return failure(where() + ": profile '" + profile.name + "' declares no " +
                     computeField(capability, input.computeType) + " rate");
    if (rate->efficiency && rate->efficiency->tileModel)
      return tileModelTerm(where, *rate, ops, gemms, cover);
    TimeTerm term;
    term.resource = BindingResource::Compute;
    term.seconds = rooflineComputeSeconds(
        ops, rate->peakOpsPerSecond.value, efficiencyFactor(rate->efficiency, ops));
    if (!explain)
      return term;

    std::string field = computeField(capability, input.computeType);
    std::string peakField = field + ".peak_ops_per_second";
    use(peakField, rate->peakOpsPerSecond.value, rate->peakOpsPerSecond.source);
    std::string efficiency =
        explainEfficiency(rate->efficiency, field, ops, "ops");
    std::string opsFact = engine == Engine::Collective
                              ? "reduction ops " + std::to_string(ops)
                              : "ops " + std::to_string(ops);
    term.provenance = opsFact + " / " +
                      scaled(peakField, rate->peakOpsPerSecond.value,
                             efficiency, field + ".efficiency");
    if (engine == Engine::Collective)
      term.provenance += ", on the vector engine while the ring transfers";
    return term;
  }

  /// The compute term of a matmul under `rate`'s tile model: the sum over
  /// its GEMMs of 2 batch M N K / (peak * tileQuantization(...).efficiency),
  /// plus, for a fused kernel (`cover` AtMostOps), the operations beyond its
  /// GEMMs (its vector work, pplan_task_c9) / (peak * sustained), the
  /// provenance showing each GEMM's formula with its values.
  llvm::Expected<TimeTerm>
  tileModelTerm(TaskName where, const ComputeRate &rate, int64_t ops,
                llvm::ArrayRef<workload::MatmulShape> gemms,
                workload::GemmCover cover) {
    const TileModel &model = *rate.efficiency->tileModel;
    std::string field = computeField(Capability::Matmul, input.computeType);
    // The rule the verifier holds the IR to and the derivation holds its
    // invocations to: only a fused kernel's GEMMs may make fewer than its
    // ops, so no other task's ops escape the tile model.
    if (std::optional<std::string> violation =
            workload::matmulShapeViolation(Engine::Matmul, ops, gemms, cover))
      return failure(where() + ": " + field +
                     ".efficiency.tile_model needs the shape of every GEMM "
                     "(dist_task_c2, pplan_task_c9): " +
                     *violation);
    double peak = rate.peakOpsPerSecond.value;
    TimeTerm term;
    term.resource = BindingResource::Compute;
    std::vector<std::string> parts;
    int64_t otherOps = ops;
    for (const workload::MatmulShape &gemm : gemms) {
      llvm::Expected<TileQuantization> quantized =
          selectTile(gemm, model, workload::bytesOf(input.computeType), peak);
      if (!quantized)
        return failure(where() + ": " + llvm::toString(quantized.takeError()));
      // Fits: matmulShapeViolation summed these products with checks.
      int64_t gemmOps = 2 * gemm.batch * gemm.m * gemm.n * gemm.k;
      otherOps -= gemmOps;
      term.seconds +=
          gemmOps == 0
              ? 0
              : rooflineComputeSeconds(gemmOps, peak, quantized->efficiency);
      if (explain) {
        parts.push_back(explainGemm(gemm, gemmOps, *quantized, model));
        std::string tilePath = field + ".efficiency.tile_model.tiles[" +
                               std::to_string(quantized->tileIndex) + "]";
        use(tilePath + "[0]", quantized->tile.tileM, model.tilesSource);
        use(tilePath + "[1]", quantized->tile.tileN, model.tilesSource);
      }
    }
    // A fused kernel's softmax and dropout run inside its tiles, at the
    // kernel's sustained rate with no quantization of their own.
    if (otherOps > 0) {
      term.seconds +=
          rooflineComputeSeconds(otherOps, peak, model.sustained.value);
      if (explain)
        parts.push_back("other ops " + std::to_string(otherOps) +
                        " at sustained " + formatNumber(model.sustained.value));
    }
    if (!explain)
      return term;
    std::string tileField = field + ".efficiency.tile_model";
    use(field + ".peak_ops_per_second", peak, rate.peakOpsPerSecond.source);
    use(tileField + ".sm_count", model.smCount.value, model.smCount.source);
    use(tileField + ".sustained", model.sustained.value,
        model.sustained.source);
    if (model.l2ReadBandwidth)
      use("memory.l2_read_bandwidth_bytes_per_second",
          model.l2ReadBandwidth->value, model.l2ReadBandwidth->source);
    term.provenance = "ops " + std::to_string(ops) + " = " +
                      llvm::join(parts, " + ") + ", each / (" + field +
                      ".peak_ops_per_second " + formatNumber(peak) +
                      " * its tile_model efficiency)";
    return term;
  }

  /// "gemm [batch, M, N, K] ops X with tiles[i] tm x tn at sustained s *
  /// [l2 reuse r *] tile (M*N)/(Mt*Nt) t * wave T/(W*sm) w = e": one GEMM's
  /// chosen tile and tile-model factors with their values (the reuse factor
  /// when the model declares an L2 bandwidth).
  static std::string explainGemm(const workload::MatmulShape &gemm,
                                 int64_t gemmOps,
                                 const TileQuantization &quantized,
                                 const TileModel &model) {
    auto ceilTo = [](int64_t extent, int64_t tile) {
      return std::to_string((extent / tile + (extent % tile != 0)) * tile);
    };
    return "gemm [" + std::to_string(gemm.batch) + ", " +
           std::to_string(gemm.m) + ", " + std::to_string(gemm.n) + ", " +
           std::to_string(gemm.k) + "] ops " + std::to_string(gemmOps) +
           " with tiles[" + std::to_string(quantized.tileIndex) + "] " +
           std::to_string(quantized.tile.tileM) + "x" +
           std::to_string(quantized.tile.tileN) + " at sustained " +
           formatNumber(model.sustained.value) +
           (model.l2ReadBandwidth
                ? " * l2 reuse " + formatNumber(quantized.reuseFraction)
                : std::string()) +
           " * tile (" + std::to_string(gemm.m) + "*" + std::to_string(gemm.n) +
           ")/(" + ceilTo(gemm.m, quantized.tile.tileM) + "*" +
           ceilTo(gemm.n, quantized.tile.tileN) + ") " +
           formatNumber(quantized.tileFraction) + " * wave " +
           std::to_string(quantized.tiles) + "/(" +
           std::to_string(quantized.waves) + "*" +
           std::to_string(model.smCount.value) + ") " +
           formatNumber(quantized.waveFraction) + " = " +
           formatNumber(quantized.efficiency);
  }

  /// (reads + writes) / (memory bandwidth * efficiency).
  TimeTerm memoryTerm(const TaskEstimate &task, int64_t movedBytes) {
    const MemoryProfile &memory = profile.memory;
    TimeTerm term;
    term.resource = BindingResource::Memory;
    term.seconds = rooflineMemorySeconds(
        movedBytes, memory.bandwidthBytesPerSecond.value,
        efficiencyFactor(memory.efficiency, movedBytes));
    if (!explain)
      return term;

    std::string bandwidthField = "memory.bandwidth_bytes_per_second";
    use(bandwidthField, memory.bandwidthBytesPerSecond.value,
        memory.bandwidthBytesPerSecond.source);
    std::string efficiency =
        explainEfficiency(memory.efficiency, "memory", movedBytes, "bytes");
    term.provenance =
        "(read_bytes " + std::to_string(task.readBytes) + " + write_bytes " +
        std::to_string(task.writeBytes) + ") / " +
        scaled(bandwidthField, memory.bandwidthBytesPerSecond.value, efficiency,
               "memory.efficiency");
    return term;
  }

  /// The algorithm of the collective's kind (collectiveAlgorithm) on the
  /// tier bound to its mesh axis.
  llvm::Expected<TimeTerm> networkTerm(TaskName where,
                                       const EstimateTask &task,
                                       TaskEstimate &result) {
    const workload::CollectiveFacts &facts = *task.collective;
    // The axes it spans, outermost first; their ranks are the participants.
    llvm::SmallVector<const MeshAxis *, 2> axes;
    workload::OverflowGuard guard;
    int64_t ranks = 1;
    llvm::SmallVector<llvm::StringRef, 2> names = {task.meshAxis};
    llvm::append_range(names, task.innerMeshAxes);
    for (llvm::StringRef name : names) {
      const MeshAxis *axis = meshAxis(name);
      if (!axis)
        return failure(where() + ": spans mesh axis '" + name +
                       "', which is not in the mesh " +
                       meshAxisNames(input.mesh));
      axes.push_back(axis);
      ranks = guard.mul(ranks, axis->size, "the ranks of its axes");
    }
    if (guard.failed())
      return guard.error(where());
    if (facts.participants != ranks)
      return failure(where() + ": " + llvm::Twine(facts.participants) +
                     " participants, but mesh axis '" + result.meshAxis +
                     "' has " + llvm::Twine(ranks) + " ranks");
    if (facts.messageBytes < 0)
      return failure(where() + ": negative message bytes " +
                     llvm::Twine(facts.messageBytes));
    // A collective over several axes is costed on the widest tier its
    // ranks cross: the largest group among the tiers bound to its axes of
    // more than one rank (to all its axes when none has more), the slowest
    // link of its ring (docs/Estimate.md).
    bool anyWide =
        llvm::any_of(axes, [](const MeshAxis *axis) { return axis->size > 1; });
    const NetworkTier *widest = nullptr;
    for (const MeshAxis *axis : axes) {
      if (anyWide && axis->size == 1)
        continue;
      auto bound = binding.tierOfAxis.find(axis->name);
      if (bound == binding.tierOfAxis.end())
        return failure(where() + ": spans mesh axis '" + axis->name +
                       "', which the network tier binding does not bind");
      // checkMeshAndBinding verified that the tier exists.
      const NetworkTier *axisTier = profile.tier(bound->second);
      if (!widest || axisTier->groupSize.value > widest->groupSize.value)
        widest = axisTier;
    }
    const NetworkTier &tier = *widest;
    result.tier = tier.name;

    double bandwidth = tier.bandwidthBytesPerSecond.value *
                       efficiencyFactor(tier.efficiency, facts.messageBytes);
    int64_t n = facts.participants;
    bool allReduce = facts.kind == CollectiveKind::AllReduce;
    bool paysCall = paysCallLatency(facts);
    double callLatency = paysCall ? tier.callLatencySecondsOrZero() : 0;
    TimeTerm term;
    term.resource = BindingResource::Network;
    switch (facts.kind) {
    case CollectiveKind::AllReduce:
      term.seconds =
          ringAllReduceSeconds(n, facts.messageBytes, bandwidth,
                               tier.latencySeconds.value, callLatency);
      break;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather:
      term.seconds = ringReduceScatterOrAllGatherSeconds(
          n, facts.messageBytes, bandwidth, tier.latencySeconds.value,
          callLatency);
      break;
    // NCCL has no all-to-all call: it is grouped point-to-point sends,
    // which pay no call latency (paysCallLatency).
    case CollectiveKind::AllToAll:
      term.seconds = pairwiseAllToAllSeconds(n, facts.messageBytes, bandwidth,
                                             tier.latencySeconds.value);
      break;
    }
    if (!explain)
      return term;

    std::string tierField = tierPath(tier);
    std::string bandwidthField = tierField + ".bandwidth_bytes_per_second";
    std::string latencyField = tierField + ".latency_seconds";
    use(bandwidthField, tier.bandwidthBytesPerSecond.value,
        tier.bandwidthBytesPerSecond.source);
    use(latencyField, tier.latencySeconds.value, tier.latencySeconds.source);
    if (paysCall && tier.callLatencySeconds)
      use(tierField + ".call_latency_seconds", tier.callLatencySeconds->value,
          tier.callLatencySeconds->source);
    std::string efficiency = explainEfficiency(tier.efficiency, tierField,
                                               facts.messageBytes, "bytes");
    std::string steps = allReduce ? "2*(" + std::to_string(n) + "-1)"
                                  : "(" + std::to_string(n) + "-1)";
    term.provenance =
        collectiveAlgorithm(facts.kind).str() + " " +
        workload::stringifyEnum(facts.kind).str() + " over mesh axis '" +
        result.meshAxis + "' (participants " + std::to_string(n) +
        ") on tier '" + tier.name + "': " + steps + "/" + std::to_string(n) +
        " * message_bytes " + std::to_string(facts.messageBytes) + " / " +
        scaled(bandwidthField, tier.bandwidthBytesPerSecond.value, efficiency,
               tierField + ".efficiency") +
        " + " + steps + " * " + latencyField + " " +
        formatNumber(tier.latencySeconds.value) +
        (paysCall ? callLatencyProvenance(tier) : "");
    return term;
  }

  /// "<field> <factor>" for the efficiency efficiencyFactor applies to
  /// `size`, recording the field it came from; "" when none is declared.
  std::string explainEfficiency(const std::optional<Efficiency> &declared,
                                const std::string &owner, int64_t size,
                                llvm::StringRef unit) {
    std::optional<EfficiencyChoice> choice =
        chooseEfficiency(declared, owner, size, unit);
    if (!choice)
      return "";
    use(choice->field, choice->step->efficiency, declared->source);
    return choice->text;
  }

  /// Records that the report used `path` (value and source).
  void use(const std::string &path, double value, const std::string &source) {
    fieldsUsed.try_emplace(path, ProfileFieldUse{path, value, source});
  }


  const MeshAxis *meshAxis(llvm::StringRef name) const {
    return findMeshAxis(input.mesh, name);
  }

  static void addToTotals(EstimateReport &report, const TaskEstimate &task) {
    size_t cadence = static_cast<size_t>(task.cadence);
    report.secondsByCadenceAndPhase[cadence][static_cast<size_t>(task.phase)] +=
        task.seconds;
    report.secondsByCadence[cadence] += task.seconds;
    report.secondsByCadenceAndBinding[cadence]
                                     [static_cast<size_t>(task.binding)] +=
        task.seconds;
    ++report.tasksByCadence[cadence];
    if (task.cadence != Cadence::PerMicroBatch)
      return;
    if (task.phase == Phase::Forward)
      report.block.forward += task.seconds;
    else if (task.phase == Phase::Recompute)
      report.block.recompute += task.seconds;
    else if (task.phase == Phase::ActivationGrad ||
             task.phase == Phase::WeightGrad ||
             task.phase == Phase::Recommunication)
      report.block.backward += task.seconds;
    report.block.combined += task.seconds;
  }

  const EstimateInput &input;
  const SystemProfile &profile;
  const NetworkTierBinding &binding;
  bool explain;
  std::map<std::string, ProfileFieldUse> fieldsUsed;
};

} // namespace

llvm::Expected<EstimateReport>
estimate::estimateWork(const EstimateInput &input, const SystemProfile &profile,
                       const NetworkTierBinding &binding,
                       const EstimateOptions &options) {
  return Estimator(input, profile, binding, options).run();
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

namespace {
std::string microseconds(double seconds) {
  return llvm::formatv("{0:F3}", seconds * 1e6).str();
}

/// The cadences that have tasks in `report`, in enum order.
std::vector<Cadence> presentCadences(const EstimateReport &report) {
  std::vector<Cadence> cadences;
  for (size_t i = 0; i < kNumCadences; ++i)
    if (report.tasksByCadence[i] > 0)
      cadences.push_back(static_cast<Cadence>(i));
  return cadences;
}
} // namespace

void estimate::printEstimateJSON(const EstimateReport &report,
                                 llvm::raw_ostream &os) {
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("profile", report.profileName);
    json.attribute("compute_type", workload::stringifyEnum(report.computeType));
    json.attributeArray("mesh", [&] {
      for (const MeshAxis &axis : report.mesh)
        json.object([&] {
          json.attribute("axis", axis.name);
          json.attribute("size", axis.size);
        });
    });
    json.attributeObject("binding", [&] {
      for (const auto &[axis, tier] : report.tierOfAxis)
        json.attribute(axis, tier);
    });
    json.attributeArray("tasks", [&] {
      for (const TaskEstimate &task : report.tasks)
        json.object([&] {
          json.attribute("primitive", task.primitive);
          json.attribute("phase", workload::stringifyEnum(task.phase));
          json.attribute("engine", workload::stringifyEnum(task.engine));
          json.attribute("cadence", workload::stringifyEnum(task.cadence));
          json.attribute("ops", task.ops);
          json.attribute("read_bytes", task.readBytes);
          json.attribute("write_bytes", task.writeBytes);
          if (task.collective)
            json.attributeObject("collective", [&] {
              json.attribute("kind",
                             workload::stringifyEnum(task.collective->kind));
              json.attribute("reduction", workload::stringifyEnum(
                                              task.collective->reduction));
              json.attribute("participants", task.collective->participants);
              json.attribute("message_bytes", task.collective->messageBytes);
              json.attribute("mesh_axis", task.meshAxis);
              json.attribute("tier", task.tier);
              json.attribute("algorithm",
                             collectiveAlgorithm(task.collective->kind));
            });
          json.attribute("seconds", task.seconds);
          json.attribute("binding", stringifyBindingResource(task.binding));
          json.attributeArray("terms", [&] {
            for (const TimeTerm &term : task.terms)
              json.object([&] {
                json.attribute("resource",
                               stringifyBindingResource(term.resource));
                json.attribute("seconds", term.seconds);
                json.attribute("provenance", term.provenance);
              });
          });
        });
    });
    std::vector<Cadence> cadences = presentCadences(report);
    json.attributeObject("phase_seconds", [&] {
      for (Cadence cadence : cadences)
        json.attributeObject(workload::stringifyEnum(cadence), [&] {
          for (size_t phase = 0; phase < workload::kNumPhases; ++phase)
            json.attribute(workload::stringifyEnum(static_cast<Phase>(phase)),
                           report.secondsByCadenceAndPhase[static_cast<size_t>(
                               cadence)][phase]);
        });
    });
    json.attributeObject("cadence_seconds", [&] {
      for (Cadence cadence : cadences)
        json.attribute(workload::stringifyEnum(cadence),
                       report.secondsByCadence[static_cast<size_t>(cadence)]);
    });
    json.attributeObject("binding_seconds", [&] {
      for (Cadence cadence : cadences)
        json.attributeObject(workload::stringifyEnum(cadence), [&] {
          for (BindingResource resource :
               {BindingResource::Compute, BindingResource::Memory,
                BindingResource::Network})
            json.attribute(stringifyBindingResource(resource),
                           report.secondsByCadenceAndBinding[static_cast<size_t>(
                               cadence)][static_cast<size_t>(resource)]);
        });
    });
    json.attributeObject("block_seconds", [&] {
      json.attribute("forward", report.block.forward);
      json.attribute("recompute", report.block.recompute);
      json.attribute("backward", report.block.backward);
      json.attribute("combined", report.block.combined);
    });
    json.attributeArray("profile_fields", [&] {
      for (const ProfileFieldUse &field : report.profileFields)
        json.object([&] {
          json.attribute("path", field.path);
          json.attribute("value", field.value);
          json.attribute("source", field.source);
        });
    });
  });
  os << "\n";
}

void estimate::printEstimateTable(const EstimateReport &report,
                                  llvm::raw_ostream &os) {
  os << "estimate on profile '" << report.profileName << "', compute type "
     << workload::stringifyEnum(report.computeType) << ", mesh";
  for (const MeshAxis &axis : report.mesh)
    os << " " << axis.name << "=" << axis.size;
  os << ", binding";
  if (report.tierOfAxis.empty())
    os << " (none)";
  for (const auto &[axis, tier] : report.tierOfAxis)
    os << " " << axis << "->" << tier;
  os << "\n\n";

  os << llvm::formatv("{0,-26} {1,-16} {2,-11} {3,-15} {4,14} {5,-8}\n",
                      "primitive", "phase", "engine", "cadence", "time_us",
                      "binding");
  for (const TaskEstimate &task : report.tasks) {
    os << llvm::formatv("{0,-26} {1,-16} {2,-11} {3,-15} {4,14} {5,-8}\n",
                        task.primitive, workload::stringifyEnum(task.phase),
                        workload::stringifyEnum(task.engine),
                        workload::stringifyEnum(task.cadence),
                        microseconds(task.seconds),
                        stringifyBindingResource(task.binding));
    for (const TimeTerm &term : task.terms)
      os << "    " << stringifyBindingResource(term.resource) << " "
         << microseconds(term.seconds) << " us = " << term.provenance << "\n";
  }

  std::vector<Cadence> cadences = presentCadences(report);
  os << "\n" << llvm::formatv("{0,-18}", "phase totals (us)");
  for (Cadence cadence : cadences)
    os << llvm::formatv(" {0,16}", workload::stringifyEnum(cadence));
  os << "\n";
  for (size_t phase = 0; phase < workload::kNumPhases; ++phase) {
    os << llvm::formatv("{0,-18}",
                        workload::stringifyEnum(static_cast<Phase>(phase)));
    for (Cadence cadence : cadences)
      os << llvm::formatv(
          " {0,16}",
          microseconds(report.secondsByCadenceAndPhase[static_cast<size_t>(
              cadence)][phase]));
    os << "\n";
  }
  os << llvm::formatv("{0,-18}", "total");
  for (Cadence cadence : cadences)
    os << llvm::formatv(
        " {0,16}",
        microseconds(report.secondsByCadence[static_cast<size_t>(cadence)]));
  os << "\n\n" << llvm::formatv("{0,-18}", "bound by (us)");
  for (Cadence cadence : cadences)
    os << llvm::formatv(" {0,16}", workload::stringifyEnum(cadence));
  os << "\n";
  for (BindingResource resource : {BindingResource::Compute,
                                   BindingResource::Memory,
                                   BindingResource::Network}) {
    os << llvm::formatv("{0,-18}", stringifyBindingResource(resource));
    for (Cadence cadence : cadences)
      os << llvm::formatv(
          " {0,16}",
          microseconds(report.secondsByCadenceAndBinding[static_cast<size_t>(
              cadence)][static_cast<size_t>(resource)]));
    os << "\n";
  }
  if (report.tasksByCadence[static_cast<size_t>(Cadence::PerMicroBatch)])
    os << "\nstage-serial block time per micro-batch (us): forward "
     << microseconds(report.block.forward) << ", recompute "
     << microseconds(report.block.recompute)
     << ", backward (activation_grad + weight_grad + recommunication) "
     << microseconds(report.block.backward) << ", combined "
     << microseconds(report.block.combined) << "\n";

  os << "\nprofile fields used:\n";
  for (const ProfileFieldUse &field : report.profileFields)
    os << "  " << field.path << " = " << formatNumber(field.value)
       << "  [source: " << field.source << "]\n";
}

TierBandwidth estimate::effectiveTierBandwidth(const NetworkTier &tier,
                                               int64_t messageBytes) {
  std::string field = tierPath(tier);
  std::optional<EfficiencyChoice> choice =
      chooseEfficiency(tier.efficiency, field, messageBytes, "bytes");
  TierBandwidth result;
  result.bytesPerSecond =
      tier.bandwidthBytesPerSecond.value *
      (choice ? choice->step->efficiency : 1);
  result.provenance =
      scaled(field + ".bandwidth_bytes_per_second",
             tier.bandwidthBytesPerSecond.value, choice ? choice->text : "",
             field + ".efficiency");
  return result;
}
