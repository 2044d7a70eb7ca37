//===- WorkSummary.cpp - Work totals of every program ---------------------===//
//
// Reads any stage through WorkFactsOpInterface and sums with the algebra's
// own checked summarize(), so the summary of the IR and the algebra's totals
// are one computation.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Transforms/WorkTotals.h"
#include "Blueprint/Workload/BlockWork.h"

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

void printJSON(llvm::ArrayRef<ProgramTotals> programs, llvm::raw_ostream &os) {
  llvm::json::Array programArray;
  for (const ProgramTotals &program : programs) {
    llvm::json::Object object{{"program", program.name},
                              {"cadences", toJSON(program)}};
    if (program.generation) {
      const workload::GenerationWork &generation = *program.generation;
      llvm::json::Object decodeByEngine;
      for (workload::Engine engine : workload::allEngines())
        if (generation.decodeOf(engine).invocations)
          decodeByEngine[workload::stringifyEnum(engine)] =
              toJSON(generation.decodeOf(engine));
      object["generation"] = llvm::json::Object{
          {"decode_steps", generation.decodeSteps},
          {"first_context", generation.firstContext},
          {"last_context", generation.lastContext},
          {"prefill", toJSON(generation.prefill.total())},
          {"decode", toJSON(generation.decode)},
          {"decode_by_engine", std::move(decodeByEngine)},
          {"total", toJSON(generation.total)},
          {"weight_read_bytes", generation.weightReadBytes},
          {"kv_cache_read_bytes", generation.kvCacheReadBytes},
          {"final_kv_cache_bytes", generation.finalKvCacheBytes}};
    }
    programArray.push_back(std::move(object));
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"programs", std::move(programArray)}}))
     << "\n";
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

void printTable(llvm::ArrayRef<ProgramTotals> programs,
                llvm::raw_ostream &os) {
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
    if (!program.generation)
      continue;
    const workload::GenerationWork &generation = *program.generation;
    os << "program @" << program.name
       << ", whole generation: prefill + " << generation.decodeSteps
       << " decode steps (context " << generation.firstContext << ".."
       << generation.lastContext << ", one block, one rank)\n";
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
       << ", KV-cache bytes at the end " << generation.finalKvCacheBytes
       << "\n\n";
  }
}

struct WorkSummaryPass
    : blueprint::impl::WorkSummaryBase<WorkSummaryPass> {
  using WorkSummaryBase::WorkSummaryBase;

  void runOnOperation() override {
    if (format != "table" && format != "json") {
      getOperation().emitError()
          << "work-summary: format must be 'table' or 'json', got '" << format
          << "'";
      return signalPassFailure();
    }
    std::vector<ProgramTotals> programs;
    // Every symbol-table op directly in the module that holds work is a
    // program of some stage (dist.program, pplan.plan).
    for (Operation &op : getOperation().getBody()->getOperations()) {
      if (!op.hasTrait<OpTrait::SymbolTable>())
        continue;
      FailureOr<ProgramTotals> summary = summarizeProgram(&op);
      if (failed(summary))
        return signalPassFailure();
      if (!summary->cadences.empty())
        programs.push_back(std::move(*summary));
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output) {
      getOperation().emitError() << "work-summary: " << error;
      return signalPassFailure();
    }
    if (format == "json")
      printJSON(programs, output->os());
    else
      printTable(programs, output->os());
    output->keep();
    markAllAnalysesPreserved();
  }

};

} // namespace

llvm::json::Object blueprint::toJSON(const workload::WorkTotals &totals) {
  return llvm::json::Object{
      {"invocations", totals.invocations},
      {"ops", totals.ops},
      {"read_bytes", totals.readBytes},
      {"write_bytes", totals.writeBytes},
      {"message_bytes", totals.messageBytes},
      {"min_transfer_bytes", totals.minimumTransferBytes},
      {"stash_bytes", totals.stashBytes}};
}

llvm::json::Object blueprint::toJSON(const ProgramTotals &program) {
  llvm::json::Object cadences;
  for (const auto &[cadence, summary] : program.cadences) {
    llvm::json::Array rows;
    for (workload::Phase phase : workload::allPhases())
      for (workload::Engine engine : workload::allEngines()) {
        const workload::WorkTotals &totals = summary.at(phase, engine);
        if (totals.invocations == 0)
          continue;
        llvm::json::Object row = toJSON(totals);
        row["phase"] = workload::stringifyEnum(phase);
        row["engine"] = workload::stringifyEnum(engine);
        rows.push_back(std::move(row));
      }
    llvm::json::Object byPhase, byEngine;
    for (workload::Phase phase : workload::allPhases())
      if (summary.of(phase).invocations)
        byPhase[workload::stringifyEnum(phase)] = toJSON(summary.of(phase));
    for (workload::Engine engine : workload::allEngines())
      if (summary.of(engine).invocations)
        byEngine[workload::stringifyEnum(engine)] = toJSON(summary.of(engine));
    cadences[workload::stringifyEnum(cadence)] =
        llvm::json::Object{{"by_phase_engine", std::move(rows)},
                           {"by_phase", std::move(byPhase)},
                           {"by_engine", std::move(byEngine)},
                           {"total", toJSON(summary.total())}};
  }
  return cadences;
}

FailureOr<ProgramTotals> blueprint::summarizeProgram(Operation *program) {
  ProgramTotals result;
  if (auto name = program->getAttrOfType<StringAttr>(
          SymbolTable::getSymbolAttrName()))
    result.name = name.str();
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
