//===- Suite.h - Scenario suites over candidate systems ---------*- C++ -*-===//
//
// A scenario suite (docs/Sweep.md, "Suites"; seed 004, "Scenario suites")
// weighs the workloads a system must serve - training at several global
// batches and sequence lengths, inference prefill and decode with latency
// objectives - and compares candidate systems (a SystemProfile on a number
// of GPUs) by the best mapping each finds for each scenario: the search of
// Search.h, one space per scenario and candidate.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SWEEP_SUITE_H
#define BLUEPRINT_SWEEP_SUITE_H

#include "Blueprint/Sweep/Search.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace blueprint::sweep {

struct Scenario {
  std::string name;
  /// A positive weight: the scenario's share of the suite.
  double weight = 1;
  /// The model, this scenario's workload and the base mapping.
  RunContracts run;
  /// Restrictions of the space, as a search grid (may be empty).
  llvm::json::Object grid;
  ServiceLevel serviceLevel;
};

/// One profile on one GPU count.
struct CandidateSystem {
  /// "<system name>" or, when the system lists several GPU counts,
  /// "<system name>@<gpus>".
  std::string name;
  estimate::SystemProfile profile;
  int64_t gpus = 0;
};

struct Suite {
  std::string name;
  std::vector<Scenario> scenarios;
  std::vector<CandidateSystem> systems;

  /// Parses a suite file; profile paths are relative to `directory`. Every
  /// error names its JSON path.
  static llvm::Expected<Suite> parse(const llvm::json::Value &input,
                                     llvm::StringRef directory);
};

/// Parses the JSON text `input` of a suite read from `inputFile` ("-":
/// stdin): a relative profile path is relative to its folder. Every error
/// starts with `inputFile`, as blueprint-search --suite reports it.
llvm::Expected<Suite> parseSuiteInput(llvm::StringRef input,
                                      llvm::StringRef inputFile);

/// The best mapping of one scenario on one candidate, or why there is none.
struct ScenarioResult {
  SearchSummary search;
  /// Set when the candidate fails the scenario: nothing valid, nothing fits,
  /// or nothing meets the service level.
  std::optional<std::string> failure;
  /// tokens per second of the best over the best candidate's (0 failed).
  double relative = 0;
};

/// A candidate's standing over the whole suite.
struct SuiteStanding {
  size_t system = 0;
  /// sum over scenarios of weight x relative, over the sum of weights: 1 is
  /// the best candidate on every scenario; a failed scenario adds nothing.
  double score = 0;
  std::vector<std::string> failed;
};

struct SuiteReport {
  /// results[scenario][system].
  std::vector<std::vector<ScenarioResult>> results;
  /// Best first: by score, then by the fewer failed scenarios, then by
  /// candidate order in the file.
  std::vector<SuiteStanding> ranking;
};

/// Searches every scenario on every candidate (top-1 re-derived through
/// the MLIR pipeline) and ranks the candidates.
llvm::Expected<SuiteReport> runSuite(const Suite &suite, unsigned threads);

/// JSON lines: one per scenario and candidate (its best row or its
/// failure), then one per candidate in rank order.
void writeSuiteReport(const Suite &suite, const SuiteReport &report,
                      llvm::raw_ostream &os);

} // namespace blueprint::sweep

#endif // BLUEPRINT_SWEEP_SUITE_H
