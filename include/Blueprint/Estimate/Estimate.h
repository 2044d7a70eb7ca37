//===- Estimate.h - Derived time estimates of exact work --------*- C++ -*-===//
//
// Costs exact work facts (primitive invocations with their phase, engine,
// operations, bytes and collective facts) against a SystemProfile and a
// NetworkTierBinding: a roofline time per matmul or vector task, an
// alpha-beta time of a named collective algorithm (ring) per collective,
// totals by phase and a stage-serial block time. The estimate is a derived
// artifact: it reads the work and never changes it. Every term of every task
// carries the plan facts and profile fields that produced it
// (docs/Estimate.md).
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_ESTIMATE_ESTIMATE_H
#define BLUEPRINT_ESTIMATE_ESTIMATE_H

#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Workload/BlockWork.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace blueprint::estimate {

//===----------------------------------------------------------------------===//
// Formulas
//===----------------------------------------------------------------------===//

/// Roofline compute time (Williams, Waterman and Patterson, "Roofline",
/// CACM 2009): ops / (peak * efficiency).
double rooflineComputeSeconds(int64_t ops, double peakOpsPerSecond,
                              double efficiency);

/// Tile and wave quantization of one GEMM on a GPU with `smCount`
/// streaming multiprocessors and tileM x tileN output tiles (NVIDIA,
/// "Matrix Multiplication Background User's Guide", sections "Tile
/// Quantization" and "Wave Quantization"; docs/Estimate.md, "Tile model").
struct TileQuantization {
  /// The tile the GEMM is cut into.
  GemmTile tile;
  /// Its index in the tile model's list (0 when given one tile directly).
  size_t tileIndex = 0;
  /// batch * ceil(M / tileM) * ceil(N / tileN).
  int64_t tiles = 0;
  /// ceil(tiles / smCount).
  int64_t waves = 0;
  /// Useful over tiled output: (M * N) / (ceil(M/tileM) tileM *
  /// ceil(N/tileN) tileN); 1 for an empty output.
  double tileFraction = 1;
  /// tiles / (waves * smCount); 1 for an empty output.
  double waveFraction = 1;
  /// The GEMM's operand-reuse bound under the tile, l2ReuseFraction (1 when
  /// the model declares no L2 bandwidth).
  double reuseFraction = 1;
  /// sustained * reuseFraction * tileFraction * waveFraction.
  double efficiency = 0;
};

/// The fraction of the peak the tileM x tileN tiles of `gemm` can be fed
/// from L2. Each step of a tile's main loop streams, per unit of K, the
/// operand elements of its valid rows of A and valid columns of B (CUTLASS
/// predicates the padding of an edge tile off: zero-filled, not loaded)
/// while the tensor cores spend 2 * tileM * tileN slot operations on it.
/// Over the GEMM, with R = ceil(M / tileM) and C = ceil(N / tileN) tiles per
/// batch: 2 R tileM C tileN slot operations per (M C + N R) elementBytes
/// operand bytes streamed, so an SM's rate is at most its share of the L2
/// read bandwidth times that ratio; over the peak per SM (the SM count, the
/// batch and K cancel), min(1, l2 * 2 R tileM C tileN / ((M C + N R)
/// elementBytes peak)). For a tile-aligned GEMM it is min(1, l2 * 2 tileM
/// tileN / ((tileM + tileN) elementBytes peak)); 1 for an empty output
/// (docs/Estimate.md, "Tile model"). Preconditions: tile, elementBytes, l2
/// and peak positive; fails if an integer term overflows int64_t.
llvm::Expected<double> l2ReuseFraction(const workload::MatmulShape &gemm,
                                       const GemmTile &tile,
                                       int64_t elementBytes,
                                       double l2ReadBytesPerSecond,
                                       double peakOpsPerSecond);

/// The quantization of `gemm`. K contributes nothing: it sets how long
/// each tile's main loop runs, the same for every tile (docs/Estimate.md).
/// `reuseFraction` is the GEMM's l2ReuseFraction under the tile (1 without
/// an L2 bound).
/// Preconditions: smCount, tileM, tileN > 0, sustained and reuseFraction in
/// (0, 1] (what the profile loader accepts); fails if the tile count
/// overflows int64_t.
llvm::Expected<TileQuantization>
tileQuantization(const workload::MatmulShape &gemm, int64_t smCount,
                 int64_t tileM, int64_t tileN, double sustained,
                 double reuseFraction = 1);

/// The quantization of `gemm` under the tile of `model` with the highest
/// efficiency, the first listed on a tie: an optimistic bound on a
/// library's kernel selection (docs/Estimate.md, "Tile model"). The
/// efficiency is sustained * reuse * batch*M*N / (waves * smCount *
/// tileM*tileN); between tiles of the same reuse fraction (every tile when
/// the model declares no L2 bandwidth) the best is the one with the least
/// waves * tileM * tileN, compared as exact integers, otherwise the one
/// with the larger reuse / (waves * tileM * tileN). The reuse fraction is
/// l2ReuseFraction of `elementBytes` operands against `peakOpsPerSecond`.
/// Preconditions as tileQuantization's, a non-empty tile list and positive
/// elementBytes and peak; fails on an overflow.
llvm::Expected<TileQuantization> selectTile(const workload::MatmulShape &gemm,
                                            const TileModel &model,
                                            int64_t elementBytes,
                                            double peakOpsPerSecond);

/// Roofline memory time (same source): bytes / (bandwidth * efficiency).
double rooflineMemorySeconds(int64_t bytes, double bandwidthBytesPerSecond,
                             double efficiency);

/// Ring all-reduce of an M-byte message over n ranks, a reduce-scatter ring
/// followed by an all-gather ring: c + 2(n-1)/n * M / B + 2(n-1) * alpha
/// (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters
/// of workstations", JPDC 2009), with c the latency the call pays once
/// (NCCL's baseLat, docs/Estimate.md "Per-call latency"; 0 when
/// paysCallLatency is false). 0 when no call is issued
/// (collectiveCallIssued).
double ringAllReduceSeconds(int64_t participants, int64_t messageBytes,
                            double bandwidthBytesPerSecond,
                            double latencySeconds, double callLatencySeconds);

/// Ring reduce-scatter or ring all-gather of an M-byte (full logical)
/// message over n ranks: c + (n-1)/n * M / B + (n-1) * alpha (Thakur,
/// Rabenseifner and Gropp, "Optimization of collective communication
/// operations in MPICH", IJHPCA 2005, ring algorithm), c as for the
/// all-reduce. 0 when no call is issued (collectiveCallIssued).
double ringReduceScatterOrAllGatherSeconds(int64_t participants,
                                           int64_t messageBytes,
                                           double bandwidthBytesPerSecond,
                                           double latencySeconds,
                                           double callLatencySeconds);

/// Whether NCCL issues a collective call over `participants` ranks for a
/// message of `messageBytes`: a one-rank communicator copies locally without
/// a task (src/enqueue.cc lines 1910-1912) and a zero-count collective
/// returns at once (src/enqueue.cc line 1865), both at NVIDIA/nccl commit
/// b647562. A collective not issued costs nothing.
bool collectiveCallIssued(int64_t participants, int64_t messageBytes);

/// Whether a collective with `facts` pays its tier's call latency c: an
/// issued collective call, not point-to-point sends (an all-to-all, a
/// transfer with CollectiveFacts::pointToPoint), which NCCL schedules
/// without its tuning model (docs/Estimate.md, "Per-call latency"). The one
/// decision behind both the time and its provenance.
bool paysCallLatency(const workload::CollectiveFacts &facts);

/// " + network_tiers[<name>].call_latency_seconds <value>": the per-call
/// term the provenance of a collective that pays c (paysCallLatency) ends
/// with; " (no network_tiers[<name>].call_latency_seconds declared)" when
/// the profile states no call latency for `tier`.
std::string callLatencyProvenance(const NetworkTier &tier);

/// Pairwise-exchange all-to-all over n ranks, each holding an M-byte
/// buffer of n chunks: n - 1 steps, in step i every rank sends its chunk
/// for rank (r + i) mod n, so (n-1)/n * M / B + (n-1) * alpha (Thakur,
/// Rabenseifner and Gropp, IJHPCA 2005, Sec. 4.4, pairwise exchange, the
/// long-message algorithm). 0 for n = 1.
double pairwiseAllToAllSeconds(int64_t participants, int64_t messageBytes,
                               double bandwidthBytesPerSecond,
                               double latencySeconds);

/// The algorithm the estimate costs a collective of `kind` with: `ring`
/// for all-reduce, reduce-scatter and all-gather, `pairwise` for
/// all-to-all.
llvm::StringRef collectiveAlgorithm(workload::CollectiveKind kind);

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

/// The mesh axis every tensor-parallel collective of the block spans.
using workload::kTensorParallelAxis;

/// One axis of the logical mesh.
struct MeshAxis {
  std::string name;
  int64_t size = 0;
};

/// One task to cost: the figures of its invocation (what a roofline reads:
/// operations, the bytes moved, the collective), how often it runs and, for
/// a collective, the mesh axis whose ranks it spans.
struct EstimateTask {
  /// Names the task in the report and in diagnostics.
  std::string primitive;
  workload::Phase phase = workload::Phase::Forward;
  workload::Engine engine = workload::Engine::Vector;
  int64_t ops = 0;
  /// The GEMMs of a matmul (InvocationFigures::gemms), costed one by one
  /// under a profile's tile model.
  std::vector<workload::MatmulShape> gemms = {};
  /// How much of `ops` they make (InvocationFigures::gemmCover): a fused
  /// kernel's remainder is its vector work, costed at the sustained rate.
  workload::GemmCover gemmCover = workload::GemmCover::AllOps;
  /// Bytes read and written on one rank, summed over the tensors.
  int64_t readBytes = 0;
  int64_t writeBytes = 0;
  std::optional<workload::CollectiveFacts> collective;
  workload::Cadence cadence = workload::Cadence::PerMicroBatch;
  /// Set exactly for collectives.
  std::string meshAxis;
  /// The mesh axes inside meshAxis a collective also spans (its
  /// CollectiveFacts::innerAxes: cp for the gradient reduction at cp > 1).
  std::vector<std::string> innerMeshAxes = {};

  bool operator==(const EstimateTask &other) const;
};

/// The task of an invocation's figures; a collective spans `collectiveAxis`
/// and the inner axes of its facts.
EstimateTask makeEstimateTask(const workload::InvocationFigures &figures,
                              workload::Cadence cadence,
                              llvm::StringRef collectiveAxis);

struct EstimateInput {
  /// Datatype of the operands and arithmetic of matmul and vector work
  /// (and of a collective's reduction): the training workload's
  /// activation_type. It selects the profile's compute rates.
  workload::DataType computeType = workload::DataType::BF16;
  std::vector<MeshAxis> mesh;
  std::vector<EstimateTask> tasks;
};

/// A tier's bandwidth for a message of `messageBytes`: its peak times the
/// efficiency it declares for that size (or the peak when none is
/// declared), with the provenance that names the fields, e.g.
/// "(network_tiers[nvlink].bandwidth_bytes_per_second 3e+11 *
/// network_tiers[nvlink].efficiency.flat 0.8)".
struct TierBandwidth {
  double bytesPerSecond = 0;
  std::string provenance;
};
TierBandwidth effectiveTierBandwidth(const NetworkTier &tier,
                                     int64_t messageBytes);

/// The logical mesh of `mapping`, as the program's: tp, pp, then the
/// data-parallel ranks as dp at ep = 1 or as edp = dp / ep and ep at
/// ep > 1 (dist_program_c10), then cp at cp > 1.
std::vector<MeshAxis> meshAxesOf(const workload::MappingSpec &mapping);

/// An input without tasks on the logical mesh of `mapping` (meshAxesOf),
/// with computeType = training.activationType.
EstimateInput makeEstimateInput(const workload::TrainingSpec &training,
                                const workload::MappingSpec &mapping);
/// The same for work computed in `computeType` (an inference's
/// activation_type).
EstimateInput makeEstimateInput(workload::DataType computeType,
                                const workload::MappingSpec &mapping);

/// The binding is physically possible on `mesh` (docs/Estimate.md): every
/// mesh axis is named once with a positive size; every bound axis is in the
/// mesh and names a tier of the profile whose group spans it; and the tiers,
/// from the smallest up, hold the blocks of the axes bound to them. The
/// estimate checks it first; a search uses it to enumerate bindings.
llvm::Error checkMeshBinding(llvm::ArrayRef<MeshAxis> mesh,
                             const SystemProfile &profile,
                             const NetworkTierBinding &binding);

/// Appends `invocation`, run at `cadence`; a collective spans
/// `collectiveAxis`. Fails if its byte sums overflow.
llvm::Error
appendInvocation(EstimateInput &input, const workload::Invocation &invocation,
                 workload::Cadence cadence,
                 llvm::StringRef collectiveAxis = kTensorParallelAxis);

/// Appends every invocation of `work` with work.cadence.
llvm::Error appendWork(EstimateInput &input, const workload::BlockWork &work,
                       llvm::StringRef collectiveAxis = kTensorParallelAxis);

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

/// The resource whose time bounds a task.
enum class BindingResource { Compute, Memory, Network };

/// "compute", "memory" or "network".
llvm::StringRef stringifyBindingResource(BindingResource resource);

/// One term of a task's time.
struct TimeTerm {
  BindingResource resource = BindingResource::Compute;
  double seconds = 0;
  /// The formula with every plan fact and profile field it used, e.g.
  /// "ops 231928233984 / (compute.matmul.bf16.peak_ops_per_second 3.12e+14
  /// * compute.matmul.bf16.efficiency.flat 0.8)".
  std::string provenance;
};

struct TaskEstimate {
  std::string primitive;
  workload::Phase phase = workload::Phase::Forward;
  workload::Engine engine = workload::Engine::Vector;
  workload::Cadence cadence = workload::Cadence::PerMicroBatch;
  /// The plan facts, as given.
  int64_t ops = 0;
  int64_t readBytes = 0;
  int64_t writeBytes = 0;
  std::optional<workload::CollectiveFacts> collective;
  /// For collectives: the mesh axis and the tier the binding gives it.
  std::string meshAxis;
  std::string tier;
  /// Compute and memory for matmul and vector work; network, memory (the
  /// local buffers) and, for a reducing collective, compute (its reduction
  /// on the vector engine) for collectives. The terms overlap: the task
  /// takes as long as the largest.
  std::vector<TimeTerm> terms;
  double seconds = 0;
  BindingResource binding = BindingResource::Compute;
};

using workload::kNumCadences;

/// One block's per-micro-batch tasks run one after another on one stage.
struct StageSerialTime {
  double forward = 0;
  double recompute = 0;
  /// activation_grad + weight_grad + recommunication.
  double backward = 0;
  /// Every per-micro-batch task: forward + recompute + backward for the
  /// training work algebra, which puts optimizer work at per-iteration
  /// cadence.
  double combined = 0;
};

/// A profile field an estimate used, with its value and source.
struct ProfileFieldUse {
  std::string path;
  double value = 0;
  std::string source;
};

struct EstimateReport {
  std::string profileName;
  workload::DataType computeType = workload::DataType::BF16;
  std::vector<MeshAxis> mesh;
  /// The binding, as given.
  std::map<std::string, std::string> tierOfAxis;
  /// In input order.
  std::vector<TaskEstimate> tasks;
  /// Task seconds summed by cadence and phase (tasks of different cadences
  /// run different numbers of times, so they are never summed together).
  std::array<std::array<double, workload::kNumPhases>, kNumCadences>
      secondsByCadenceAndPhase{};
  std::array<double, kNumCadences> secondsByCadence{};
  /// Number of tasks of each cadence.
  std::array<int64_t, kNumCadences> tasksByCadence{};
  /// Task seconds by cadence and binding resource: which resource bounds the
  /// work (a decode step is memory-bound, a prefill compute-bound).
  std::array<std::array<double, 3>, kNumCadences> secondsByCadenceAndBinding{};
  /// Over the per-micro-batch tasks.
  StageSerialTime block;
  /// Every profile field the report used, sorted by path.
  std::vector<ProfileFieldUse> profileFields;
};

/// What a report spells out besides its figures.
struct EstimateOptions {
  /// Each term's provenance text and the report's profileFields. Without
  /// them the figures are the same, computed by the same formulas: what a
  /// batch of configurations needs (blueprint-sweep), at a fraction of the
  /// cost.
  bool explain = true;
};

/// Costs `input` on `profile` with `binding`. Fails, naming the task or
/// binding entry, if a needed rate is not declared, a collective's axis is
/// not in the mesh or not bound, a bound tier does not exist or spans fewer
/// ranks than its axis, a collective's participants differ from its axis
/// size, or a work fact is negative or inconsistent with the engine.
llvm::Expected<EstimateReport> estimateWork(const EstimateInput &input,
                                            const SystemProfile &profile,
                                            const NetworkTierBinding &binding,
                                            const EstimateOptions &options = {});

/// The report as JSON (schema in docs/Estimate.md).
void printEstimateJSON(const EstimateReport &report, llvm::raw_ostream &os);

/// The report as a text table: one row per task followed by its terms, the
/// totals by cadence and phase, the stage-serial block time and the profile
/// fields used.
void printEstimateTable(const EstimateReport &report, llvm::raw_ostream &os);

} // namespace blueprint::estimate

#endif // BLUEPRINT_ESTIMATE_ESTIMATE_H
