//===- WorkSummary.cpp - Work totals of every program ---------------------===//
//
// Reads any stage through WorkFactsOpInterface and sums with the algebra's
// own checked summarize(), so the summary of the IR and the algebra's totals
// are one computation.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Analysis/ModelSummary.h"
#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Interfaces/StageTotals.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Checked.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace blueprint {
#define GEN_PASS_DEF_WORKSUMMARY
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// The attributes of one program's JSON object.
void writeWideRow(llvm::json::OStream &json, const IterationTotals::Row &row);

void writeProgramJSON(llvm::json::OStream &json, const ProgramTotals &program) {
  json.attribute("cadences", toJSON(program));
  if (program.generation) {
    const workload::GenerationWork &generation = *program.generation;
    llvm::json::Object decodeByEngine;
    for (workload::Engine engine : workload::allEngines())
      if (generation.decodeOf(engine).invocations)
        decodeByEngine[workload::stringifyEnum(engine)] =
            toJSON(generation.decodeOf(engine));
    json.attribute("generation",
                   llvm::json::Object{
                       {"decode_steps", generation.decodeSteps},
                       {"first_context", generation.firstContext},
                       {"last_context", generation.lastContext},
                       {"prefill", toJSON(generation.prefill.total())},
                       {"decode", toJSON(generation.decode)},
                       {"decode_by_engine", std::move(decodeByEngine)},
                       {"total", toJSON(generation.total)},
                       {"weight_read_bytes", generation.weightReadBytes},
                       {"kv_cache_read_bytes", generation.kvCacheReadBytes},
                       {"kv_cache_write_bytes", generation.kvCacheWriteBytes},
                       {"final_kv_cache_bytes", generation.finalKvCacheBytes}});
  }
  if (program.iteration) {
    const IterationTotals &iteration = *program.iteration;
    json.attributeObject("iteration", [&] {
      json.attributeObject("by_engine", [&] {
        llvm::SmallVector<workload::Engine> engines;
        for (workload::Engine engine : workload::allEngines())
          if (!iteration.byEngine[static_cast<size_t>(engine)][0].isZero())
            engines.push_back(engine);
        llvm::sort(engines, [](workload::Engine a, workload::Engine b) {
          return workload::stringifyEnum(a) < workload::stringifyEnum(b);
        });
        for (workload::Engine engine : engines) {
          json.attributeBegin(workload::stringifyEnum(engine));
          writeWideRow(json, iteration.byEngine[static_cast<size_t>(engine)]);
          json.attributeEnd();
        }
      });
      json.attributeBegin("pipeline_bytes_sent");
      json.rawValue(analysis::toDecimal(iteration.pipelineBytes));
      json.attributeEnd();
      json.attributeBegin("pipeline_messages_sent");
      json.rawValue(analysis::toDecimal(iteration.pipelineMessages));
      json.attributeEnd();
      json.attribute("ranks_per_stage", iteration.ranks);
      json.attributeBegin("total");
      writeWideRow(json, iteration.total);
      json.attributeEnd();
    });
  }
  json.attribute("program", program.name);
  if (!program.stages.empty()) {
    llvm::json::Array stages;
    for (const workload::StageTotals &stage : program.stages) {
      llvm::json::Object byEngine;
      for (workload::Engine engine : workload::allEngines())
        if (stage.work.of(engine).invocations)
          byEngine[workload::stringifyEnum(engine)] =
              toJSON(stage.work.of(engine));
      llvm::json::Object byPhase;
      for (workload::Phase phase : workload::allPhases())
        if (stage.work.of(phase).invocations)
          byPhase[workload::stringifyEnum(phase)] =
              toJSON(stage.work.of(phase));
      llvm::json::Object object{
          {"stage", stage.stage},
          {"by_engine", std::move(byEngine)},
          {"by_phase", std::move(byPhase)},
          {"total", toJSON(stage.work.total())},
          {"pipeline_messages_sent", stage.messagesSent},
          {"pipeline_bytes_sent", stage.bytesSent},
          {"pipeline_messages_received", stage.messagesReceived},
          {"pipeline_bytes_received", stage.bytesReceived}};
      // An inference stage's KV cache per rank when the generation ends.
      if (program.inferenceRun)
        object["kv_cache_write_bytes"] = stage.kvCacheWriteBytes;
      stages.push_back(std::move(object));
    }
    json.attribute("stages", std::move(stages));
  }
}

/// One IterationTotals row as a JSON object of exact 128-bit integers.
void writeWideRow(llvm::json::OStream &json, const IterationTotals::Row &row) {
  json.object([&] {
    for (auto [name, value] : llvm::zip(totalsFieldNames(), row)) {
      json.attributeBegin(name);
      json.rawValue(analysis::toDecimal(value));
      json.attributeEnd();
    }
  });
}

void printRow(llvm::raw_ostream &os, llvm::StringRef phase,
              llvm::StringRef engine, const workload::WorkTotals &totals) {
  os << llvm::format("%-16s %-10s %5lld %22lld %18lld %18lld %16lld %16lld "
                     "%16lld\n",
                     phase.str().c_str(), engine.str().c_str(),
                     static_cast<long long>(totals.invocations),
                     static_cast<long long>(totals.ops),
                     static_cast<long long>(totals.readBytes),
                     static_cast<long long>(totals.writeBytes),
                     static_cast<long long>(totals.messageBytes),
                     static_cast<long long>(totals.minimumTransferBytes),
                     static_cast<long long>(totals.stashBytes));
}

void printTable(llvm::ArrayRef<ProgramTotals> programs, llvm::raw_ostream &os) {
  for (const ProgramTotals &program : programs) {
    for (const auto &[cadence, summary] : program.cadences) {
      os << "program @" << program.name << ", "
         << workload::stringifyEnum(cadence) << " (one block, one rank)\n";
      os << llvm::format("%-16s %-10s %5s %22s %18s %18s %16s %16s %16s\n",
                         "phase", "engine", "count", "ops", "read_bytes",
                         "write_bytes", "message_bytes", "transfer_bytes",
                         "stash_bytes");
      for (workload::Phase phase : workload::allPhases())
        for (workload::Engine engine : workload::allEngines())
          if (summary.at(phase, engine).invocations)
            printRow(os, workload::stringifyEnum(phase),
                     workload::stringifyEnum(engine),
                     summary.at(phase, engine));
      printRow(os, "total", "", summary.total());
      os << "\n";
    }
    for (const workload::StageTotals &stage : program.stages) {
      os << "program @" << program.name << ", stage " << stage.stage
         << " (one rank, the whole "
         << (program.inferenceRun ? "generation" : "iteration")
         << "): " << stage.messagesSent << " pipeline messages sent ("
         << stage.bytesSent << " bytes), " << stage.messagesReceived
         << " received (" << stage.bytesReceived << " bytes)";
      if (program.inferenceRun)
        os << ", KV cache written " << stage.kvCacheWriteBytes << " bytes";
      os << "\n";
      os << llvm::format("%-16s %-10s %5s %22s %18s %18s %16s %16s %16s\n",
                         "phase", "engine", "count", "ops", "read_bytes",
                         "write_bytes", "message_bytes", "transfer_bytes",
                         "stash_bytes");
      for (workload::Phase phase : workload::allPhases())
        for (workload::Engine engine : workload::allEngines())
          if (stage.work.at(phase, engine).invocations)
            printRow(os, workload::stringifyEnum(phase),
                     workload::stringifyEnum(engine),
                     stage.work.at(phase, engine));
      printRow(os, "total", "", stage.work.total());
      os << "\n";
    }
    if (program.iteration) {
      const IterationTotals &iteration = *program.iteration;
      os << "program @" << program.name << ", the whole "
         << (program.inferenceRun ? "generation" : "iteration") << " ("
         << program.stages.size() << " stages x " << iteration.ranks
         << " ranks): " << analysis::toDecimal(iteration.pipelineMessages)
         << " pipeline messages ("
         << analysis::toDecimal(iteration.pipelineBytes) << " bytes)\n";
      os << llvm::format("%-16s %-10s", "", "engine");
      for (llvm::StringLiteral name : totalsFieldNames())
        os << llvm::format(" %24s", name.str().c_str());
      os << "\n";
      auto wideRow = [&](llvm::StringRef engine,
                         const IterationTotals::Row &row) {
        os << llvm::format("%-16s %-10s", "iteration", engine.str().c_str());
        for (const llvm::APInt &value : row)
          os << llvm::format(" %24s", analysis::toDecimal(value).c_str());
        os << "\n";
      };
      for (workload::Engine engine : workload::allEngines())
        if (!iteration.byEngine[static_cast<size_t>(engine)][0].isZero())
          wideRow(workload::stringifyEnum(engine),
                  iteration.byEngine[static_cast<size_t>(engine)]);
      wideRow("total", iteration.total);
      os << "\n";
    }
    if (!program.generation)
      continue;
    const workload::GenerationWork &generation = *program.generation;
    os << "program @" << program.name << ", whole generation: prefill + "
       << generation.decodeSteps << " decode steps (context "
       << generation.firstContext << ".." << generation.lastContext
       << ", one block, one rank)\n";
    os << llvm::format("%-16s %-10s %5s %22s %18s %18s %16s %16s %16s\n",
                       "phase", "engine", "count", "ops", "read_bytes",
                       "write_bytes", "message_bytes", "transfer_bytes",
                       "stash_bytes");
    printRow(os, "prefill", "", generation.prefill.total());
    for (workload::Engine engine : workload::allEngines())
      if (generation.decodeOf(engine).invocations)
        printRow(os, "decode", workload::stringifyEnum(engine),
                 generation.decodeOf(engine));
    printRow(os, "total", "", generation.total);
    os << "weight bytes read " << generation.weightReadBytes
       << ", KV-cache bytes read " << generation.kvCacheReadBytes
       << ", written " << generation.kvCacheWriteBytes
       << ", KV-cache bytes at the end " << generation.finalKvCacheBytes
       << "\n\n";
  }
}

struct WorkSummaryPass : blueprint::impl::WorkSummaryBase<WorkSummaryPass> {
  using WorkSummaryBase::WorkSummaryBase;

  void runOnOperation() override {
    if (format != "table" && format != "json") {
      getOperation().emitError()
          << "work-summary: format must be 'table' or 'json', got '" << format
          << "'";
      return signalPassFailure();
    }
    FailureOr<std::vector<ProgramTotals>> programs =
        summarizePrograms(getOperation());
    if (failed(programs))
      return signalPassFailure();
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output) {
      getOperation().emitError() << "work-summary: " << error;
      return signalPassFailure();
    }
    if (format == "json")
      writeWorkSummaryJSON(*programs, output->os());
    else
      printTable(*programs, output->os());
    output->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace

FailureOr<std::vector<ProgramTotals>>
blueprint::summarizePrograms(ModuleOp module) {
  std::vector<ProgramTotals> programs;
  // Every symbol-table op directly in the module that holds work is a
  // program of some stage (dist.program, pplan.plan).
  for (Operation &op : module.getBody()->getOperations()) {
    if (!op.hasTrait<OpTrait::SymbolTable>())
      continue;
    FailureOr<ProgramTotals> summary = summarizeProgram(&op);
    if (failed(summary))
      return failure();
    if (!summary->cadences.empty() || !summary->stages.empty())
      programs.push_back(std::move(*summary));
  }
  return programs;
}

// Streamed in sorted key order, as a json::Object prints, because the
// iteration's 128-bit counts are raw JSON integers no json::Value holds.
void blueprint::writeWorkSummaryJSON(llvm::ArrayRef<ProgramTotals> programs,
                                     llvm::raw_ostream &os) {
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attributeArray("programs", [&] {
      for (const ProgramTotals &program : programs)
        json.object([&] { writeProgramJSON(json, program); });
    });
  });
  os << "\n";
}

/// The fields of `totals` under their JSON keys, in key order.
static std::array<std::pair<llvm::StringLiteral, int64_t>, 7>
fieldsOf(const workload::WorkTotals &totals) {
  return {{{"invocations", totals.invocations},
           {"message_bytes", totals.messageBytes},
           {"min_transfer_bytes", totals.minimumTransferBytes},
           {"ops", totals.ops},
           {"read_bytes", totals.readBytes},
           {"stash_bytes", totals.stashBytes},
           {"write_bytes", totals.writeBytes}}};
}

llvm::json::Object blueprint::toJSON(const workload::WorkTotals &totals) {
  llvm::json::Object object;
  for (auto [key, value] : fieldsOf(totals))
    object[key] = value;
  return object;
}

// The writers below stream every object's keys in sorted order, the order
// llvm::json prints a json::Object in, so streamed output reads exactly like
// a serialized json::Object without building the tree of objects (a batch
// writes a row per configuration; building and serializing the tree cost as
// much as planning). test/Sweep/compare-with-single-runs.py checks the order
// against --work-summary's serialized object.

/// `totals` as an object, with `labels` (key, text) among its fields.
static void writeTotals(
    llvm::json::OStream &json, const workload::WorkTotals &totals,
    llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> labels = {}) {
  llvm::SmallVector<std::pair<llvm::StringRef, llvm::json::Value>, 9> members;
  for (auto [key, value] : fieldsOf(totals))
    members.emplace_back(key, value);
  for (auto [key, text] : labels)
    members.emplace_back(key, text);
  llvm::sort(members, llvm::less_first());
  json.object([&] {
    for (const auto &[key, value] : members)
      json.attribute(key, value);
  });
}

/// `{"<name>": totals, ...}` for every value of `values` with work, in name
/// order.
template <typename EnumT, size_t N>
static void writeByName(llvm::json::OStream &json, llvm::StringRef key,
                        std::array<EnumT, N> values,
                        const workload::WorkSummary &summary) {
  llvm::sort(values, [](EnumT a, EnumT b) {
    return workload::stringifyEnum(a) < workload::stringifyEnum(b);
  });
  json.attributeObject(key, [&] {
    for (EnumT value : values)
      if (summary.of(value).invocations) {
        json.attributeBegin(workload::stringifyEnum(value));
        writeTotals(json, summary.of(value));
        json.attributeEnd();
      }
  });
}

static void writeSummary(llvm::json::OStream &json,
                         const workload::WorkSummary &summary) {
  writeByName(json, "by_engine", workload::allEngines(), summary);
  writeByName(json, "by_phase", workload::allPhases(), summary);
  json.attributeArray("by_phase_engine", [&] {
    for (workload::Phase phase : workload::allPhases())
      for (workload::Engine engine : workload::allEngines()) {
        const workload::WorkTotals &totals = summary.at(phase, engine);
        if (totals.invocations)
          writeTotals(json, totals,
                      {{"engine", workload::stringifyEnum(engine)},
                       {"phase", workload::stringifyEnum(phase)}});
      }
  });
  json.attributeBegin("total");
  writeTotals(json, summary.total());
  json.attributeEnd();
}

void blueprint::writeJSON(llvm::json::OStream &json,
                          const ProgramTotals &program) {
  llvm::SmallVector<const std::pair<workload::Cadence, workload::WorkSummary> *>
      cadences;
  for (const auto &entry : program.cadences)
    cadences.push_back(&entry);
  llvm::sort(cadences, [](const auto *a, const auto *b) {
    return workload::stringifyEnum(a->first) <
           workload::stringifyEnum(b->first);
  });
  json.object([&] {
    for (const auto *entry : cadences)
      json.attributeObject(workload::stringifyEnum(entry->first),
                           [&] { writeSummary(json, entry->second); });
  });
}

llvm::json::Object blueprint::toJSON(const ProgramTotals &program) {
  // Read back from the writer, so the layout is written in one place.
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);
  writeJSON(json, program);
  return std::move(*cantFail(llvm::json::parse(os.str())).getAsObject());
}

/// The totals of `op` if it is a stage of a whole-run program or plan.
static std::optional<llvm::Expected<workload::StageTotals>>
stageTotalsOf(Operation &op,
              llvm::DenseMap<Operation *, workload::WorkSummary> &templates) {
  if (auto stage = llvm::dyn_cast<dist::StageOp>(op))
    return summarizeStage<dist::InstanceOp, dist::SendOp, dist::RecvOp>(
        stage.getBody().front(), stage.getIndex(),
        [](dist::InstanceOp instance) -> Operation * {
          return instance.lookupTemplate();
        },
        pplan::fusedFiguresOf, templates);
  if (auto stage = llvm::dyn_cast<pplan::StageOp>(op))
    return stage.summarizeWork();
  return std::nullopt;
}

FailureOr<std::vector<workload::StageTotals>>
blueprint::summarizeStages(Operation *program) {
  llvm::DenseMap<Operation *, workload::WorkSummary> templates;
  std::vector<workload::StageTotals> result;
  for (Operation &op : program->getRegion(0).front()) {
    std::optional<llvm::Expected<workload::StageTotals>> totals =
        stageTotalsOf(op, templates);
    if (!totals)
      continue;
    if (!*totals) {
      op.emitError() << "work-summary: " << llvm::toString(totals->takeError());
      return failure();
    }
    result.push_back(std::move(**totals));
  }
  return result;
}

/// Each stage's per-rank totals times the stage's tp x cp x dp ranks, summed.
static FailureOr<IterationTotals>
iterationTotals(Operation *program,
                llvm::ArrayRef<workload::StageTotals> stages) {
  std::optional<ProgramContracts> contracts = getProgramContracts(program);
  if (!contracts)
    return failure(); // the program verifier requires its contracts
  analysis::WideGuard wide;
  IterationTotals result;
  // The ranks of one stage, tp * cp * dp, do the same work (the cp ranks'
  // load-balanced chunks give each the same counts). Bounded by world,
  // whose product transformer_mapping_c2 checks.
  result.ranks = contracts->mapping.tp * contracts->mapping.gradientReplicas();
  auto zero = [] { return llvm::APInt(analysis::WideGuard::kBits, 0); };
  auto zeroRow = [&] {
    IterationTotals::Row row;
    row.fill(zero());
    return row;
  };
  result.byEngine.fill(zeroRow());
  result.total = zeroRow();
  result.pipelineMessages = zero();
  result.pipelineBytes = zero();
  auto accumulate = [&](IterationTotals::Row &row,
                        const workload::WorkTotals &totals) {
    for (auto [sum, field] : llvm::zip(row, fieldsOf(totals))) {
      llvm::APInt scaled =
          wide.product({field.second, result.ranks}, field.first);
      sum = wide.add(sum, scaled, field.first);
    }
  };
  for (const workload::StageTotals &stage : stages) {
    for (workload::Engine engine : workload::allEngines())
      accumulate(result.byEngine[static_cast<size_t>(engine)],
                 stage.work.of(engine));
    accumulate(result.total, stage.work.total());
    llvm::APInt messages =
        wide.product({stage.messagesSent, result.ranks}, "pipeline messages");
    result.pipelineMessages =
        wide.add(result.pipelineMessages, messages, "pipeline messages");
    llvm::APInt bytes =
        wide.product({stage.bytesSent, result.ranks}, "pipeline bytes");
    result.pipelineBytes =
        wide.add(result.pipelineBytes, bytes, "pipeline bytes");
  }
  if (wide.failed()) {
    program->emitError() << "work-summary: the iteration's "
                         << wide.failureMessage();
    return failure();
  }
  return result;
}

std::array<llvm::StringLiteral, 7> blueprint::totalsFieldNames() {
  std::array<llvm::StringLiteral, 7> names{"", "", "", "", "", "", ""};
  for (auto [name, field] : llvm::zip(names, fieldsOf(workload::WorkTotals())))
    name = field.first;
  return names;
}

FailureOr<ProgramTotals> blueprint::summarizeProgram(Operation *program) {
  ProgramTotals result;
  if (auto name =
          program->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    result.name = name.str();
  if (program->getNumRegions() == 1 &&
      (!program->getRegion(0).getOps<dist::StageOp>().empty() ||
       !program->getRegion(0).getOps<pplan::StageOp>().empty())) {
    FailureOr<std::vector<workload::StageTotals>> stages =
        summarizeStages(program);
    if (failed(stages))
      return failure();
    result.stages = std::move(*stages);
    std::optional<ProgramContracts> contracts = getProgramContracts(program);
    result.inferenceRun = contracts && contracts->workload.inference;
    FailureOr<IterationTotals> iteration =
        iterationTotals(program, result.stages);
    if (failed(iteration))
      return failure();
    result.iteration = std::move(*iteration);
    return result;
  }
  CadenceSummaries byCadence;
  WalkResult walk = program->walk([&](WorkFactsOpInterface work) {
    llvm::Expected<workload::InvocationFigures> figures =
        addToSummaries(byCadence, work);
    if (!figures) {
      work->emitError() << "work-summary: "
                        << llvm::toString(figures.takeError());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[cadence, summary] : byCadence)
    result.cadences.emplace_back(cadence, std::move(summary));
  std::optional<ProgramContracts> contracts = getProgramContracts(program);
  if (contracts && contracts->workload.inference) {
    llvm::Expected<workload::GenerationWork> generation =
        workload::deriveInferenceGeneration(contracts->model,
                                            *contracts->workload.inference,
                                            contracts->mapping);
    if (!generation) {
      program->emitError() << "work-summary: "
                           << llvm::toString(generation.takeError());
      return failure();
    }
    result.generation = std::move(*generation);
  }
  return result;
}
