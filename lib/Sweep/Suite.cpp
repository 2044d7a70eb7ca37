//===- Suite.cpp - Scenario suites over candidate systems -----------------===//
//
// Each scenario becomes a spec (the suite's model and mapping with the
// scenario's workload) read by the JSON importer, so a scenario is checked
// by the same rules as any spec; each candidate searches it with the
// search of Search.cpp.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/Suite.h"

#include "Rows.h"

#include "Blueprint/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace blueprint;
using namespace blueprint::sweep;

namespace {

/// Reads the fields of one JSON object, reporting each error at its path.
class ObjectReader {
public:
  ObjectReader(const llvm::json::Object &object, std::string path,
               std::vector<std::string> &errors)
      : object(object), path(std::move(path)), errors(errors) {}

  void allow(std::initializer_list<llvm::StringRef> keys) {
    std::vector<std::string> unknown;
    for (const auto &entry : object)
      if (!llvm::is_contained(keys, llvm::StringRef(entry.first)))
        unknown.push_back(entry.first.str());
    llvm::sort(unknown);
    std::vector<std::string> expected;
    for (llvm::StringRef key : keys)
      expected.push_back(key.str());
    for (const std::string &key : unknown)
      errors.push_back(at(key) + ": unknown field; expected one of: " +
                       llvm::join(expected, ", "));
  }

  std::optional<std::string> string(llvm::StringRef key, bool required) {
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (required)
        errors.push_back(at(key) + ": missing required string");
      return std::nullopt;
    }
    std::optional<llvm::StringRef> text = value->getAsString();
    if (!text || text->empty()) {
      errors.push_back(at(key) + ": expected a non-empty string, got " +
                       printed(*value));
      return std::nullopt;
    }
    return text->str();
  }

  /// A number > 0.
  std::optional<double> positive(llvm::StringRef key) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return std::nullopt;
    std::optional<double> number = value->getAsNumber();
    if (!number || !(*number > 0) || *number > 1e300) {
      errors.push_back(at(key) + ": expected a positive number, got " +
                       printed(*value));
      return std::nullopt;
    }
    return number;
  }

  const llvm::json::Object *object_(llvm::StringRef key, bool required) {
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (required)
        errors.push_back(at(key) + ": missing required object");
      return nullptr;
    }
    const llvm::json::Object *nested = value->getAsObject();
    if (!nested)
      errors.push_back(at(key) + ": expected an object, got " +
                       printed(*value));
    return nested;
  }

  const llvm::json::Array *list(llvm::StringRef key) {
    const llvm::json::Value *value = object.get(key);
    const llvm::json::Array *array = value ? value->getAsArray() : nullptr;
    if (!array || array->empty()) {
      errors.push_back(at(key) + ": expected a non-empty list" +
                       (value ? ", got " + printed(*value) : ""));
      return nullptr;
    }
    return array;
  }

  std::string at(llvm::StringRef key) const { return path + "." + key.str(); }

private:
  const llvm::json::Object &object;
  std::string path;
  std::vector<std::string> &errors;
};

/// Prefixes every line of `error` with `path`.
std::string located(const std::string &path, llvm::Error error) {
  std::string text = llvm::toString(std::move(error));
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n');
  std::vector<std::string> prefixed;
  for (llvm::StringRef line : lines)
    prefixed.push_back(path + ": " + line.str());
  return llvm::join(prefixed, "\n");
}

/// The largest GPU count a suite system may name.
constexpr int64_t kMaxGPUs = int64_t(1) << 20;

} // namespace

llvm::Expected<Suite> Suite::parse(const llvm::json::Value &input,
                                   llvm::StringRef directory) {
  std::vector<std::string> errors;
  const llvm::json::Object *root = input.getAsObject();
  if (!root)
    return llvm::createStringError("$: expected a suite object {\"name\", "
                                   "\"model\", \"scenarios\", \"systems\"}");
  ObjectReader suiteReader(*root, "$", errors);
  suiteReader.allow({"name", "model", "mapping", "scenarios", "systems"});
  Suite suite;
  suite.name = suiteReader.string("name", /*required=*/true).value_or("");
  const llvm::json::Object *model = suiteReader.object_("model", true);
  const llvm::json::Object *mapping = suiteReader.object_("mapping", false);
  llvm::json::Object baseMapping{{"tp", 1}, {"pp", 1}, {"dp", 1}};
  if (mapping)
    baseMapping = *mapping;

  if (const llvm::json::Array *scenarios = suiteReader.list("scenarios")) {
    for (auto [position, value] : llvm::enumerate(*scenarios)) {
      std::string path = "$.scenarios[" + std::to_string(position) + "]";
      const llvm::json::Object *object = value.getAsObject();
      if (!object) {
        errors.push_back(path + ": expected a scenario object, got " +
                         printed(value));
        continue;
      }
      ObjectReader reader(*object, path, errors);
      reader.allow({"name", "weight", "training", "inference", "seq_length",
                    "grid", "slo"});
      Scenario scenario;
      scenario.name = reader.string("name", true).value_or("");
      if (!object->get("weight"))
        errors.push_back(reader.at("weight") + ": missing required number");
      scenario.weight = reader.positive("weight").value_or(1);
      const llvm::json::Object *training = reader.object_("training", false);
      const llvm::json::Object *inference = reader.object_("inference", false);
      if ((object->get("training") != nullptr) ==
          (object->get("inference") != nullptr)) {
        errors.push_back(path + ": give exactly one of training and "
                                "inference");
        continue;
      }
      if (const llvm::json::Object *grid = reader.object_("grid", false))
        scenario.grid = *grid;
      if (const llvm::json::Object *slo = reader.object_("slo", false)) {
        if (!inference)
          errors.push_back(reader.at("slo") +
                           ": latency objectives apply to an inference "
                           "scenario");
        ObjectReader sloReader(*slo, reader.at("slo"), errors);
        sloReader.allow(
            {"time_to_first_token_seconds", "time_per_output_token_seconds"});
        scenario.serviceLevel.timeToFirstTokenSeconds =
            sloReader.positive("time_to_first_token_seconds");
        scenario.serviceLevel.timePerOutputTokenSeconds =
            sloReader.positive("time_per_output_token_seconds");
      }
      if (!model || (!training && !inference))
        continue;
      llvm::json::Object scenarioModel = *model;
      if (const llvm::json::Value *length = object->get("seq_length"))
        scenarioModel["seq_length"] = *length;
      llvm::json::Object spec;
      spec["name"] = scenario.name;
      spec["model"] = llvm::json::Value(std::move(scenarioModel));
      spec["mapping"] = llvm::json::Value(llvm::json::Object(baseMapping));
      if (training)
        spec["training"] = llvm::json::Value(llvm::json::Object(*training));
      else
        spec["inference"] = llvm::json::Value(llvm::json::Object(*inference));
      std::string text;
      llvm::raw_string_ostream(text) << llvm::json::Value(std::move(spec));
      llvm::Expected<RunContracts> run = importContracts(text, path);
      if (!run) {
        errors.push_back(located(path, run.takeError()));
        continue;
      }
      scenario.run = std::move(*run);
      suite.scenarios.push_back(std::move(scenario));
    }
  }

  if (const llvm::json::Array *systems = suiteReader.list("systems")) {
    for (auto [position, value] : llvm::enumerate(*systems)) {
      std::string path = "$.systems[" + std::to_string(position) + "]";
      const llvm::json::Object *object = value.getAsObject();
      if (!object) {
        errors.push_back(path + ": expected a system object, got " +
                         printed(value));
        continue;
      }
      ObjectReader reader(*object, path, errors);
      reader.allow({"name", "profile", "gpus"});
      std::optional<std::string> name = reader.string("name", true);
      std::optional<std::string> profilePath = reader.string("profile", true);
      std::vector<int64_t> counts;
      const llvm::json::Value *gpus = object->get("gpus");
      llvm::json::Array single;
      const llvm::json::Array *list = nullptr;
      if (gpus && exactInteger(*gpus)) {
        single.push_back(*gpus);
        list = &single;
      } else if (gpus) {
        list = gpus->getAsArray();
      }
      if (!list || list->empty()) {
        errors.push_back(reader.at("gpus") +
                         ": expected a GPU count or a non-empty list of them" +
                         (gpus ? ", got " + printed(*gpus) : ""));
      } else {
        for (const llvm::json::Value &count : *list) {
          std::optional<int64_t> number = exactInteger(count);
          if (!number || *number < 1 || *number > kMaxGPUs)
            errors.push_back(reader.at("gpus") +
                             ": expected GPU counts in "
                             "[1, " +
                             std::to_string(kMaxGPUs) + "], got " +
                             printed(count));
          else
            counts.push_back(*number);
        }
      }
      if (!name || !profilePath)
        continue;
      llvm::SmallString<256> resolved(*profilePath);
      if (llvm::sys::path::is_relative(resolved)) {
        resolved = directory;
        llvm::sys::path::append(resolved, *profilePath);
      }
      llvm::Expected<estimate::SystemProfile> profile =
          estimate::loadSystemProfile(resolved);
      if (!profile) {
        errors.push_back(located(reader.at("profile"), profile.takeError()));
        continue;
      }
      for (int64_t count : counts)
        suite.systems.push_back(
            {list->size() > 1 ? *name + "@" + std::to_string(count) : *name,
             *profile, count});
    }
  }
  // Each scenario's grid is checked now, on every candidate's profile (the
  // tiers it names), not when the suite reaches it.
  for (size_t position = 0; position < suite.scenarios.size(); ++position)
    for (const CandidateSystem &system : suite.systems) {
      const Scenario &scenario = suite.scenarios[position];
      llvm::Expected<SearchSpace> space = SearchSpace::parse(
          scenario.grid, scenario.run, {}, system.profile, {system.gpus});
      if (space)
        continue;
      std::string text = llvm::toString(space.takeError());
      std::string at = "$.scenarios[" + std::to_string(position) + "].grid";
      for (size_t found = text.find("$.grid"); found != std::string::npos;
           found = text.find("$.grid", found + at.size()))
        text.replace(found, 6, at);
      errors.push_back(text + " (on system '" + system.name + "')");
      break;
    }
  if (!errors.empty())
    return llvm::createStringError(llvm::join(errors, "\n"));
  return suite;
}

llvm::Expected<Suite> sweep::parseSuiteInput(llvm::StringRef input,
                                             llvm::StringRef inputFile) {
  llvm::Expected<llvm::json::Value> parsed = parseJSONInput(input, inputFile);
  if (!parsed)
    return parsed.takeError();
  llvm::Expected<Suite> suite =
      Suite::parse(*parsed, llvm::sys::path::parent_path(inputFile));
  if (!suite)
    return inputError(inputFile, llvm::toString(suite.takeError()));
  return suite;
}

llvm::Expected<SuiteReport> sweep::runSuite(const Suite &suite,
                                            unsigned threads) {
  SuiteReport report;
  for (const Scenario &scenario : suite.scenarios) {
    std::vector<ScenarioResult> &results = report.results.emplace_back();
    for (const CandidateSystem &system : suite.systems) {
      ScenarioResult &result = results.emplace_back();
      llvm::Expected<SearchSpace> space = SearchSpace::parse(
          scenario.grid, scenario.run, {}, system.profile, {system.gpus});
      if (!space)
        return llvm::createStringError("scenario '" + scenario.name + "': " +
                                       llvm::toString(space.takeError()));
      SearchOptions options;
      options.threads = threads;
      options.top = 1;
      options.serviceLevel = scenario.serviceLevel;
      llvm::Expected<SearchSummary> summary =
          runSearch(*space, system.profile, options, [](llvm::StringRef) {});
      if (!summary)
        return llvm::createStringError(
            "scenario '" + scenario.name + "' on '" + system.name +
            "': " + llvm::toString(summary.takeError()));
      result.search = std::move(*summary);
      const SearchSummary &search = result.search;
      if (search.configurations == 0)
        result.failure = "no valid configuration on " +
                         std::to_string(system.gpus) + " GPUs";
      else if (search.valid == 0)
        result.failure = "no configuration could be derived (run the "
                         "scenario's space with blueprint-search for the "
                         "diagnostics)";
      else if (search.fitting == 0)
        result.failure =
            "nothing fits: every valid configuration needs more "
            "than the usable memory (capacity_bytes x usable_fraction) = " +
            std::to_string(system.profile.memory.usableCapacityBytes()) +
            " per GPU";
      else if (search.feasible == 0)
        result.failure = "the profile cannot time any configuration that "
                         "fits";
      else if (search.accepted == 0)
        result.failure = "no configuration that fits meets the service level";
    }
    // Relative to the best candidate on this scenario.
    double best = 0;
    for (const ScenarioResult &result : results)
      if (!result.failure)
        best = std::max(
            best, *result.search.top.front().evaluation.run.tokensPerSecond);
    for (ScenarioResult &result : results)
      if (!result.failure)
        result.relative =
            *result.search.top.front().evaluation.run.tokensPerSecond / best;
  }

  double totalWeight = 0;
  for (const Scenario &scenario : suite.scenarios)
    totalWeight += scenario.weight;
  for (size_t system = 0; system < suite.systems.size(); ++system) {
    SuiteStanding standing;
    standing.system = system;
    for (auto [scenario, results] :
         llvm::zip(suite.scenarios, report.results)) {
      const ScenarioResult &result = results[system];
      if (result.failure)
        standing.failed.push_back(scenario.name);
      standing.score += scenario.weight * result.relative;
    }
    standing.score /= totalWeight;
    report.ranking.push_back(std::move(standing));
  }
  std::sort(report.ranking.begin(), report.ranking.end(),
            [](const SuiteStanding &a, const SuiteStanding &b) {
              if (a.score != b.score)
                return a.score > b.score;
              if (a.failed.size() != b.failed.size())
                return a.failed.size() < b.failed.size();
              return a.system < b.system;
            });
  return report;
}

void sweep::writeSuiteReport(const Suite &suite, const SuiteReport &report,
                             llvm::raw_ostream &os) {
  for (size_t scenarioIndex = 0; scenarioIndex < suite.scenarios.size();
       ++scenarioIndex)
    for (size_t systemIndex = 0; systemIndex < suite.systems.size();
         ++systemIndex) {
      const Scenario &scenario = suite.scenarios[scenarioIndex];
      const CandidateSystem &system = suite.systems[systemIndex];
      const ScenarioResult &result = report.results[scenarioIndex][systemIndex];
      llvm::json::OStream json(os);
      json.object([&] {
        json.attribute("suite", suite.name);
        json.attribute("scenario", scenario.name);
        json.attribute("weight", scenario.weight);
        json.attribute("system", system.name);
        json.attribute("gpus", system.gpus);
        json.attribute("configurations",
                       static_cast<int64_t>(result.search.configurations));
        json.attribute("fitting", static_cast<int64_t>(result.search.feasible));
        json.attribute("accepted",
                       static_cast<int64_t>(result.search.accepted));
        if (result.failure) {
          json.attribute("failure", *result.failure);
          return;
        }
        json.attribute("relative", result.relative);
        const Ranked &best = result.search.top.front();
        json.attributeBegin("best");
        json.rawValue(formatSearchRow(RowFormat::JSONLines, best.index,
                                      best.configuration, best.evaluation));
        json.attributeEnd();
      });
      os << "\n";
    }
  for (size_t rank = 0; rank < report.ranking.size(); ++rank) {
    const SuiteStanding &standing = report.ranking[rank];
    llvm::json::OStream json(os);
    json.object([&] {
      json.attribute("suite", suite.name);
      json.attribute("rank", static_cast<int64_t>(rank + 1));
      json.attribute("system", suite.systems[standing.system].name);
      json.attribute("gpus", suite.systems[standing.system].gpus);
      json.attribute("score", standing.score);
      json.attributeArray("failed", [&] {
        for (const std::string &name : standing.failed)
          json.value(name);
      });
    });
    os << "\n";
  }
}
