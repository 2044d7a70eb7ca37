//===- SystemProfile.h - Targets for derived estimates ----------*- C++ -*-===//
//
// A SystemProfile describes one accelerator and its fabric: a peak rate per
// compute capability and datatype, memory capacity and bandwidth, network
// tiers, and declared efficiency evidence, every number with the source it
// was taken from. A NetworkTierBinding says which tier each mesh axis uses.
// Both are read from JSON (docs/Estimate.md) by strict loaders and consumed
// only when a portable plan is costed: they never enter a model, distributed
// or plan digest. Rates and times are floating point (a time is not an exact
// count); work facts stay int64_t.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_ESTIMATE_SYSTEMPROFILE_H
#define BLUEPRINT_ESTIMATE_SYSTEMPROFILE_H

#include "Blueprint/Workload/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace blueprint::estimate {

/// The compute capabilities a profile rates: the engine classes of the work
/// algebra that execute arithmetic (collectives are rated by network tiers).
enum class Capability { Matmul, Vector };

/// "matmul" or "vector", as spelled in the profile.
llvm::StringRef stringifyCapability(Capability capability);

/// A real number of the profile and where it comes from.
struct SourcedNumber {
  double value = 0;
  std::string source;
};

/// An integral quantity of the profile and where it comes from.
struct SourcedCount {
  int64_t value = 0;
  std::string source;
};

/// One step of an efficiency table: `efficiency` applies to sizes of at
/// least `minSize` (operations for compute, bytes for memory and network).
struct EfficiencyStep {
  int64_t minSize = 0;
  double efficiency = 1;
};

/// One output tile shape of a GEMM kernel: tileM rows by tileN columns,
/// both > 0.
struct GemmTile {
  int64_t tileM = 0;
  int64_t tileN = 0;
};

/// The physical efficiency model of a GEMM on a GPU (docs/Estimate.md,
/// "Tile model"): the output is cut into tiles of one of the declared
/// shapes, one thread block each, run in waves of smCount concurrent tiles,
/// at `sustained` of the peak inside a full tile (NVIDIA, "Matrix
/// Multiplication Background User's Guide", tile and wave quantization).
/// Each GEMM runs with the declared tile that quantizes it best
/// (estimate::selectTile).
struct TileModel {
  SourcedCount smCount;
  /// The kernel library's tile shapes, non-empty, in declaration order (a
  /// tie goes to the first); `tilesSource` cites the library.
  std::vector<GemmTile> tiles;
  std::string tilesSource;
  /// In (0, 1].
  SourcedNumber sustained;
  /// The GPU's L2 read bandwidth in bytes per second, > 0 (the profile's
  /// memory.l2_read_bandwidth_bytes_per_second), which bounds a small
  /// tile's rate by its operand reuse (estimate::l2ReuseFraction); else 1.
  std::optional<SourcedNumber> l2ReadBandwidth;
};

/// Declared efficiency evidence: the fraction of a peak that work of a given
/// size achieves. A flat factor is one step at size 0; a table has strictly
/// increasing sizes starting at 0, so every size has exactly one step; a
/// matmul rate may instead declare a tile model (no steps), which needs the
/// shape of each GEMM.
struct Efficiency {
  /// True when declared as `flat`, false when declared as a table or a
  /// tile model.
  bool flat = true;
  std::vector<EfficiencyStep> steps;
  /// Set exactly for a `tile_model` declaration (then `steps` is empty).
  std::optional<TileModel> tileModel;
  std::string source;

  /// Index into `steps` of the step that applies to `size` (the last step
  /// whose minSize <= size; sizes below 0 use step 0).
  size_t stepFor(int64_t size) const;
};

/// A peak rate of one capability at one datatype.
struct ComputeRate {
  SourcedNumber peakOpsPerSecond;
  std::optional<Efficiency> efficiency;
};

/// An exact fraction in (0, 1] of the profile and where it comes from.
struct SourcedFraction {
  int64_t numerator = 1;
  int64_t denominator = 1;
  std::string source;
};

struct MemoryProfile {
  SourcedCount capacityBytes;
  SourcedNumber bandwidthBytesPerSecond;
  /// Efficiency by bytes moved.
  std::optional<Efficiency> efficiency;
  /// The fraction of `capacityBytes` a run may occupy; absent: all of it.
  std::optional<SourcedFraction> usableFraction;

  /// floor(capacity_bytes * usable_fraction): the bytes a run's peak is
  /// compared against. Exact for every capacity >= 0 and fraction with
  /// 0 < numerator <= denominator (what the loader accepts): the product is
  /// formed in 128 bits and the quotient is at most the capacity.
  int64_t usableCapacityBytes() const;
};

/// A level of the fabric: a group of `groupSize` ranks that reach each other
/// at `bandwidthBytesPerSecond` per direction per rank with `latencySeconds`
/// per algorithm step and `callLatencySeconds` once per collective call.
struct NetworkTier {
  std::string name;
  SourcedCount groupSize;
  SourcedNumber bandwidthBytesPerSecond;
  SourcedNumber latencySeconds;
  /// The fixed latency a collective call pays once, beside its steps (NCCL's
  /// baseLat); absent: the profile states none and none is charged
  /// (docs/Estimate.md, "Per-call latency").
  std::optional<SourcedNumber> callLatencySeconds;
  /// Efficiency by logical message bytes.
  std::optional<Efficiency> efficiency;

  /// callLatencySeconds' value, 0 when the profile states none.
  double callLatencySecondsOrZero() const {
    return callLatencySeconds ? callLatencySeconds->value : 0;
  }
};

struct SystemProfile {
  std::string name;
  std::string description;
  std::map<std::pair<Capability, workload::DataType>, ComputeRate> compute;
  MemoryProfile memory;
  /// In declaration order; names are unique.
  std::vector<NetworkTier> networkTiers;

  /// The rate of `capability` at `type`, or nullptr if not declared.
  const ComputeRate *rate(Capability capability, workload::DataType type) const;
  /// The tier called `name`, or nullptr.
  const NetworkTier *tier(llvm::StringRef name) const;
};

/// Parses the SystemProfile schema of docs/Estimate.md. Every broken rule is
/// reported, one per line, as "$.<json path>: <rule>"; unknown fields are
/// rejected. A non-empty `label` says where the text came from (its path)
/// and prefixes the errors.
llvm::Expected<SystemProfile> parseSystemProfile(llvm::StringRef json,
                                                 llvm::StringRef label = "");
/// parseSystemProfile on the contents of `path`, labelled with it.
llvm::Expected<SystemProfile> loadSystemProfile(llvm::StringRef path);

/// Which network tier each mesh axis uses ("tp" -> "nvlink"). Supplied only
/// when a plan is costed; checked against a profile and a mesh by the
/// estimator (the tier exists and spans the axis).
struct NetworkTierBinding {
  std::map<std::string, std::string> tierOfAxis;
};

/// Parses a binding: a JSON object from mesh-axis name to tier name, both
/// non-empty strings.
llvm::Expected<NetworkTierBinding>
parseNetworkTierBinding(llvm::StringRef json);
/// parseNetworkTierBinding on the contents of `path`.
llvm::Expected<NetworkTierBinding> loadNetworkTierBinding(llvm::StringRef path);
/// A binding given on a command line as `axis:tier` entries, checked by
/// parseNetworkTierBinding.
llvm::Expected<NetworkTierBinding>
parseNetworkTierBindingEntries(llvm::ArrayRef<std::string> entries);

} // namespace blueprint::estimate

#endif // BLUEPRINT_ESTIMATE_SYSTEMPROFILE_H
