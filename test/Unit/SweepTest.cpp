//===- SweepTest.cpp - Batch evaluation and what makes it fast ------------===//
//
// Batch mode (lib/Sweep): grids expand in the documented order, lists split
// into their specs, rows do not depend on the thread count or on context
// replacement, rejected configurations carry their diagnostics, and bad
// batch input names the field. The speed-ups it relies on keep results
// exact: an estimate without explanations has the same figures.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Sweep/Sweep.h"
#include "Blueprint/Estimate/Estimate.h"
#include "Blueprint/Workload/BlockWork.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"


using namespace blueprint;

namespace {

std::string readFile(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(static_cast<bool>(buffer)) << path;
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

const sweep::Target &a100() {
  static const sweep::Target target = [] {
    llvm::Expected<estimate::SystemProfile> profile =
        estimate::loadSystemProfile(BLUEPRINT_PROFILES_DIR "/a100-80gb.json");
    llvm::Expected<estimate::NetworkTierBinding> binding =
        estimate::parseNetworkTierBindingEntries({"tp:nvlink"});
    if (!profile || !binding) {
      ADD_FAILURE() << "cannot load the A100 profile or the binding";
      llvm::consumeError(profile.takeError());
      llvm::consumeError(binding.takeError());
      return sweep::Target();
    }
    return sweep::Target{std::move(*profile), std::move(*binding)};
  }();
  return target;
}

/// A small model whose grid has valid and rejected configurations: tp = 8
/// does not divide its 4 heads (decoder_training_c4), micro_batch = 3 does
/// not divide the local batch (decoder_training_c2).
const char *kSmallGrid = R"({
  "spec": {
    "name": "small",
    "model": {"hidden": 64, "heads": 4, "ffn_hidden": 256, "seq_length": 32,
              "vocab": 128, "blocks": 4},
    "training": {"global_batch": 8, "micro_batch": 2,
                 "activation_type": "bf16", "weight_type": "bf16",
                 "gradient_type": "f32", "optimizer_state_type": "f32"},
    "mapping": {"tp": 1, "pp": 1, "dp": 1}
  },
  "grid": {"tp_comm": ["all_reduce", "reduce_scatter_all_gather"],
           "tp": [1, 2, 8], "micro_batch": [1, 3],
           "recompute": ["none", "selective", "full"], "pp": [1, 2]}
})";

std::vector<std::string>
runRows(llvm::StringRef input, unsigned threads,
        sweep::RowFormat format = sweep::RowFormat::JSONLines) {
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(input);
  EXPECT_TRUE(static_cast<bool>(batch))
      << (batch ? "" : llvm::toString(batch.takeError()));
  std::vector<std::string> rows;
  if (batch)
    sweep::runBatch(*batch, a100(), threads, format,
                    [&](llvm::StringRef row) { rows.push_back(row.str()); });
  return rows;
}

std::string batchError(llvm::StringRef input) {
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(input);
  EXPECT_FALSE(static_cast<bool>(batch));
  return batch ? std::string() : llvm::toString(batch.takeError());
}

} // namespace

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

TEST(SweepInputTest, GridExpandsInAxisOrderLastAxisFastest) {
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(kSmallGrid);
  ASSERT_TRUE(static_cast<bool>(batch)) << llvm::toString(batch.takeError());
  // tp, pp, micro_batch, recompute, tp_comm whatever the JSON order.
  EXPECT_EQ(batch->axes().vec(),
            (std::vector<std::string>{"tp", "pp", "micro_batch", "recompute",
                                      "tp_comm"}));
  EXPECT_EQ(batch->size(), 3u * 2 * 2 * 3 * 2);
  auto point = [&](size_t index) {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (const llvm::json::Value &value : batch->point(index))
      os << value << " ";
    return text;
  };
  EXPECT_EQ(point(0), "1 1 1 \"none\" \"all_reduce\" ");
  EXPECT_EQ(point(1), "1 1 1 \"none\" \"reduce_scatter_all_gather\" ");
  EXPECT_EQ(point(2), "1 1 1 \"selective\" \"all_reduce\" ");
  EXPECT_EQ(point(71), "8 2 3 \"full\" \"reduce_scatter_all_gather\" ");

  // The point is written over the base spec's fields.
  llvm::Expected<llvm::json::Value> spec =
      llvm::json::parse(batch->specText(71));
  ASSERT_TRUE(static_cast<bool>(spec));
  const llvm::json::Object *mapping = spec->getAsObject()->getObject("mapping");
  EXPECT_EQ(mapping->getInteger("tp"), 8);
  EXPECT_EQ(mapping->getInteger("pp"), 2);
  EXPECT_EQ(mapping->getString("tp_comm"), "reduce_scatter_all_gather");
  EXPECT_EQ(
      spec->getAsObject()->getObject("training")->getInteger("micro_batch"), 3);
}

TEST(SweepInputTest, ListSplitsIntoTheTextOfEachSpec) {
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(
      " [ {\"name\": \"a, [b]\", \"x\": {\"y\": [1, 2]}} ,\n"
      "   {\"name\": \"c\\\"}\"}, 7 ] \n");
  ASSERT_TRUE(static_cast<bool>(batch)) << llvm::toString(batch.takeError());
  ASSERT_EQ(batch->size(), 3u);
  EXPECT_TRUE(batch->axes().empty());
  EXPECT_EQ(llvm::StringRef(batch->specText(0)).trim(),
            "{\"name\": \"a, [b]\", \"x\": {\"y\": [1, 2]}}");
  EXPECT_EQ(llvm::StringRef(batch->specText(1)).trim(),
            "{\"name\": \"c\\\"}\"}");
  EXPECT_EQ(llvm::StringRef(batch->specText(2)).trim(), "7");

  llvm::Expected<sweep::Batch> empty = sweep::Batch::parse("[]");
  ASSERT_TRUE(static_cast<bool>(empty));
  EXPECT_EQ(empty->size(), 0u);
}

TEST(SweepInputTest, BadBatchesNameTheField) {
  EXPECT_EQ(batchError("[{\"a\": 1}"),
            "invalid JSON at line 1, column 10: the list is not closed with "
            "']'");
  EXPECT_EQ(batchError("[{\"a\": 1]}]"),
            "invalid JSON at line 1, column 9: unmatched ']'");
  EXPECT_EQ(batchError("[{}, ]"),
            "invalid JSON at line 1, column 5: element 1 of the list is "
            "empty");
  EXPECT_EQ(batchError("[{}] x"),
            "invalid JSON at line 1, column 6: text after the end of the "
            "list");
  EXPECT_EQ(batchError("3"),
            "$: expected a JSON list of specs (docs/ImportJSON.md) or a grid "
            "object {\"spec\": ..., \"grid\": ...}, got 3");
  EXPECT_EQ(batchError("{\"grid\": {}, \"extra\": 1}"),
            "$.extra: unknown field; expected one of: spec, grid\n"
            "$.spec: missing required object");
  EXPECT_EQ(batchError("{\"spec\": {\"mapping\": {}}, \"grid\": {\"tp\": "
                       "[1, \"2\"], \"world\": [8], \"pp\": []}}"),
            "$.grid.world: unknown grid axis; expected one of: tp, cp, pp, "
            "dp, ep, micro_batch, recompute, tp_comm, cp_comm\n"
            "$.grid.tp[1]: expected an integer, got \"2\"\n"
            "$.grid.pp: expected a non-empty list of values, got []");
  EXPECT_EQ(batchError("{\"spec\": {\"mapping\": {}}, \"grid\": "
                       "{\"micro_batch\": [1], \"recompute\": [1]}}"),
            "$.spec.training: expected an object (grid axis 'micro_batch' "
            "writes into it)\n"
            "$.grid.recompute[0]: expected a string, got 1");
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

TEST(SweepResultTest, RowsDoNotDependOnTheThreadCount) {
  std::vector<std::string> one = runRows(kSmallGrid, 1);
  ASSERT_EQ(one.size(), 72u);
  EXPECT_EQ(runRows(kSmallGrid, 3), one);
  EXPECT_EQ(runRows(kSmallGrid, 3, sweep::RowFormat::CSV),
            runRows(kSmallGrid, 1, sweep::RowFormat::CSV));
  // In index order.
  for (size_t index = 0; index < one.size(); ++index)
    EXPECT_TRUE(llvm::StringRef(one[index])
                    .starts_with("{\"index\":" + std::to_string(index) + ","));
}

TEST(SweepResultTest, RejectedConfigurationsCarryTheirDiagnostics) {
  std::vector<std::string> rows = runRows(kSmallGrid, 2);
  ASSERT_EQ(rows.size(), 72u);
  size_t valid = 0;
  for (const std::string &text : rows) {
    llvm::Expected<llvm::json::Value> row = llvm::json::parse(text);
    ASSERT_TRUE(static_cast<bool>(row)) << text;
    const llvm::json::Object &object = *row->getAsObject();
    const llvm::json::Object &point = *object.getObject("point");
    bool tpDividesHeads = *point.getInteger("tp") != 8;
    bool microBatchDivides = *point.getInteger("micro_batch") != 3;
    ASSERT_EQ(*object.getBoolean("valid"), tpDividesHeads && microBatchDivides)
        << text;
    if (*object.getBoolean("valid")) {
      ++valid;
      EXPECT_TRUE(object.getObject("totals")->getObject("per_micro_batch"));
      EXPECT_GT(*object.getObject("block_seconds")->getNumber("combined"), 0);
      continue;
    }
    EXPECT_EQ(object.getString("stage"), "import");
    std::string diagnostics;
    for (const llvm::json::Value &diagnostic : *object.getArray("diagnostics"))
      diagnostics += diagnostic.getAsString()->str() + "\n";
    if (!tpDividesHeads)
      EXPECT_NE(diagnostics.find("decoder_training_c4: "), std::string::npos)
          << diagnostics;
    else
      EXPECT_NE(diagnostics.find("decoder_training_c2: "), std::string::npos)
          << diagnostics;
  }
  EXPECT_EQ(valid, 2u * 2 * 1 * 3 * 2);
}

TEST(SweepResultTest, ReplacingTheContextChangesNoResult) {
  llvm::Expected<sweep::Batch> batch = sweep::Batch::parse(kSmallGrid);
  ASSERT_TRUE(static_cast<bool>(batch));
  sweep::Evaluator everyConfiguration(a100(), /*configurationsPerContext=*/1);
  sweep::Evaluator longLived(a100());
  for (size_t index = 0; index < batch->size(); index += 5) {
    sweep::Evaluation fresh =
        everyConfiguration.evaluateSpec(batch->specText(index), "spec");
    sweep::Evaluation reused =
        longLived.evaluateSpec(batch->specText(index), "spec");
    EXPECT_EQ(
        sweep::formatRow(sweep::RowFormat::JSONLines, index, {}, {}, fresh),
        sweep::formatRow(sweep::RowFormat::JSONLines, index, {}, {}, reused));
  }
}

/// A run fits when its worst stage's peak is at most the profile's memory
/// capacity: exactly at capacity it fits with no margin, one byte over it
/// does not.
TEST(SweepResultTest, CapacityDecidesWhetherARunFits) {
  workload::ModelSpec model;
  model.hidden = 64;
  model.heads = model.kvHeads = 4;
  model.headDim = 16;
  model.ffnHidden = 256;
  model.seqLength = model.maxPositions = 32;
  model.vocab = 128;
  model.blocks = 4;
  workload::TrainingSpec training;
  training.globalBatch = 8;
  training.microBatch = 2;
  workload::MappingSpec mapping;
  mapping.pp = 2;
  mapping.dp = 2;
  mapping.world = 4;
  sweep::Target target = a100();
  target.binding.tierOfAxis = {
      {"tp", "nvlink"}, {"pp", "nvlink"}, {"dp", "nvlink"}};
  llvm::Expected<sweep::RunFigures> figures = sweep::evaluateWholeRun(
      model, training, std::nullopt, mapping, target.profile, target.binding);
  ASSERT_TRUE(static_cast<bool>(figures))
      << llvm::toString(figures.takeError());
  ASSERT_TRUE(figures->fits);
  int64_t peak = figures->peakBytes;
  EXPECT_EQ(figures->marginBytes,
            target.profile.memory.capacityBytes.value - peak);
  // Tokens per second and GPU-hours per million tokens state one rate.
  ASSERT_TRUE(figures->tokensPerSecond && figures->gpuHoursPerMillionTokens);
  EXPECT_DOUBLE_EQ(*figures->tokensPerSecond,
                   8.0 * 32.0 /
                       estimate::secondsOf(*figures->iterationPicoseconds));
  EXPECT_DOUBLE_EQ(*figures->gpuHoursPerMillionTokens,
                   4.0 / 3600 * 1e6 / *figures->tokensPerSecond);
  EXPECT_GT(*figures->hardwareFlopsUtilization, 0);
  EXPECT_LE(*figures->modelFlopsUtilization,
            *figures->hardwareFlopsUtilization);

  target.profile.memory.capacityBytes.value = peak;
  figures = sweep::evaluateWholeRun(model, training, std::nullopt, mapping,
                                    target.profile, target.binding);
  ASSERT_TRUE(static_cast<bool>(figures));
  EXPECT_TRUE(figures->fits);
  EXPECT_EQ(figures->marginBytes, 0);
  target.profile.memory.capacityBytes.value = peak - 1;
  figures = sweep::evaluateWholeRun(model, training, std::nullopt, mapping,
                                    target.profile, target.binding);
  ASSERT_TRUE(static_cast<bool>(figures));
  EXPECT_FALSE(figures->fits);
  EXPECT_EQ(figures->marginBytes, -1);

  // The comparison is against the usable capacity, floor(capacity *
  // numerator / denominator): with half of 2 x peak usable the peak fits
  // exactly; with half of 2 x peak - 1, floor(peak - 1/2) = peak - 1 usable
  // bytes, it is one byte over.
  target.profile.memory.usableFraction =
      estimate::SourcedFraction{1, 2, "test"};
  target.profile.memory.capacityBytes.value = 2 * peak;
  figures = sweep::evaluateWholeRun(model, training, std::nullopt, mapping,
                                    target.profile, target.binding);
  ASSERT_TRUE(static_cast<bool>(figures));
  EXPECT_TRUE(figures->fits);
  EXPECT_EQ(figures->marginBytes, 0);
  target.profile.memory.capacityBytes.value = 2 * peak - 1;
  figures = sweep::evaluateWholeRun(model, training, std::nullopt, mapping,
                                    target.profile, target.binding);
  ASSERT_TRUE(static_cast<bool>(figures));
  EXPECT_FALSE(figures->fits);
  EXPECT_EQ(figures->marginBytes, -1);
}

/// The bundled profiles state the memory the driver reports (nvidia-smi's
/// total in MiB) and all of it usable (Calculon's convention).
TEST(SweepResultTest, BundledProfilesStateTheDevicesMemory) {
  EXPECT_EQ(a100().profile.memory.capacityBytes.value,
            int64_t{81920} * 1024 * 1024);
  EXPECT_EQ(a100().profile.memory.usableCapacityBytes(),
            int64_t{80} * 1024 * 1024 * 1024);
  llvm::Expected<estimate::SystemProfile> h100 =
      estimate::loadSystemProfile(BLUEPRINT_PROFILES_DIR "/h100-sxm.json");
  ASSERT_TRUE(static_cast<bool>(h100)) << llvm::toString(h100.takeError());
  EXPECT_EQ(h100->memory.capacityBytes.value, int64_t{81559} * 1024 * 1024);
  EXPECT_EQ(h100->memory.usableCapacityBytes(),
            int64_t{80} * 1024 * 1024 * 1024 - int64_t{361} * 1024 * 1024);
}

TEST(SweepResultTest, ContractsBuiltInCppEvaluateLikeTheImportedSpec) {
  std::string spec = readFile(BLUEPRINT_EXAMPLES_DIR "/gpt3-175b.json");
  sweep::Evaluator evaluator(a100());
  sweep::Evaluation imported = evaluator.evaluateSpec(spec, "gpt3-175b.json");
  ASSERT_TRUE(imported.valid()) << llvm::join(imported.diagnostics, "\n");
  workload::ModelSpec model;
  model.hidden = 12288;
  model.heads = model.kvHeads = 96;
  model.headDim = 128;
  model.ffnHidden = 49152;
  model.seqLength = model.maxPositions = 2048;
  model.vocab = 51200;
  model.blocks = 96;
  workload::TrainingSpec training;
  training.globalBatch = 1536;
  training.microBatch = 1;
  training.gradientType = workload::DataType::F32;
  workload::MappingSpec mapping;
  mapping.tp = 8;
  mapping.pp = 16;
  mapping.dp = 12;
  mapping.world = 8 * 16 * 12;
  mapping.recompute = workload::RecomputePolicy::Full;
  sweep::Evaluation built =
      evaluator.evaluateContracts("gpt3_175b", model, training, mapping);
  ASSERT_TRUE(built.valid());
  // The binding binds only tp: the run's memory stands, its time (which
  // crosses the pp and dp axes) does not.
  ASSERT_TRUE(built.run.timeUnavailable.has_value());
  EXPECT_NE(built.run.timeUnavailable->find("mesh axis 'pp'"),
            std::string::npos)
      << *built.run.timeUnavailable;
  EXPECT_GT(built.run.peakBytes, 0);
  EXPECT_EQ(sweep::formatRow(sweep::RowFormat::CSV, 0, {}, {}, built),
            sweep::formatRow(sweep::RowFormat::CSV, 0, {}, {}, imported));
}

//===----------------------------------------------------------------------===//
// The exactness of the speed-ups
//===----------------------------------------------------------------------===//

TEST(SweepSpeedTest, EstimateWithoutExplanationsHasTheSameFigures) {
  llvm::Expected<workload::BlockWork> work = workload::deriveBlockWork(
      [] {
        workload::ModelSpec model;
        model.hidden = 6144;
        model.heads = model.kvHeads = 64;
        model.headDim = 96;
        model.ffnHidden = 24576;
        model.seqLength = model.maxPositions = 2048;
        model.vocab = 51200;
        model.blocks = 48;
        return model;
      }(),
      [] {
        workload::TrainingSpec training;
        training.globalBatch = training.microBatch = 4;
        return training;
      }(),
      [] {
        workload::MappingSpec mapping;
        mapping.tp = mapping.world = 8;
        mapping.tpComm = workload::TPCommMode::ReduceScatterAllGather;
        mapping.recompute = workload::RecomputePolicy::Selective;
        return mapping;
      }());
  ASSERT_TRUE(static_cast<bool>(work));
  workload::MappingSpec mapping;
  mapping.tp = mapping.world = 8;
  estimate::EstimateInput input =
      estimate::makeEstimateInput(workload::TrainingSpec(), mapping);
  llvm::cantFail(estimate::appendWork(input, *work));
  llvm::Expected<estimate::EstimateReport> explained =
      estimate::estimateWork(input, a100().profile, a100().binding);
  llvm::Expected<estimate::EstimateReport> figures = estimate::estimateWork(
      input, a100().profile, a100().binding, {/*explain=*/false});
  ASSERT_TRUE(static_cast<bool>(explained));
  ASSERT_TRUE(static_cast<bool>(figures));
  ASSERT_EQ(explained->tasks.size(), figures->tasks.size());
  for (size_t i = 0; i < figures->tasks.size(); ++i) {
    const estimate::TaskEstimate &a = explained->tasks[i];
    const estimate::TaskEstimate &b = figures->tasks[i];
    EXPECT_EQ(a.seconds, b.seconds) << a.primitive;
    EXPECT_EQ(a.binding, b.binding) << a.primitive;
    ASSERT_EQ(a.terms.size(), b.terms.size());
    for (size_t t = 0; t < a.terms.size(); ++t) {
      EXPECT_EQ(a.terms[t].seconds, b.terms[t].seconds);
      EXPECT_FALSE(a.terms[t].provenance.empty());
      EXPECT_TRUE(b.terms[t].provenance.empty());
    }
  }
  EXPECT_EQ(explained->block.combined, figures->block.combined);
  EXPECT_FALSE(explained->profileFields.empty());
  EXPECT_TRUE(figures->profileFields.empty());
}
