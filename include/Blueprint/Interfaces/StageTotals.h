//===- StageTotals.h - The totals of one stage of a whole run ---*- C++ -*-===//
//
// The per-rank totals of one stage of a whole-run program (`dist.stage`) or
// plan (`pplan.stage`), read off the IR: each instance adds its template's
// work times its repetitions (or, expanded, its body's copies), each
// stage-level work op its own figures, each send and receive its message.
// Written once over the op types of both dialects, which share the shape
// (docs/WholeRun.md); the dialects' libraries cannot depend on each other,
// so the one statement is this header.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_INTERFACES_STAGETOTALS_H
#define BLUEPRINT_INTERFACES_STAGETOTALS_H

#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Workload/Checked.h"
#include "Blueprint/Workload/Primitives.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <optional>
#include <string>

namespace blueprint {

/// Adds the semantic work of `work` to each of `sums`: the figures
/// `fusedFigures(work)` gives for a fused task (the tasks it replaced,
/// pplan_task_c10; none for a kernel a transformation adds), the op's own
/// figures for any other (std::nullopt).
template <typename FusedFiguresT>
llvm::Error addSemanticWork(WorkFactsOpInterface work,
                            FusedFiguresT fusedFigures,
                            llvm::ArrayRef<workload::WorkSummary *> sums) {
  std::optional<llvm::SmallVector<workload::InvocationFigures>> parts =
      fusedFigures(work);
  if (!parts) {
    llvm::Expected<workload::InvocationFigures> figures = figuresOf(work);
    if (!figures)
      return figures.takeError();
    parts = llvm::SmallVector<workload::InvocationFigures>{*figures};
  }
  for (const workload::InvocationFigures &part : *parts)
    for (workload::WorkSummary *sum : sums)
      if (llvm::Error error = sum->add(part))
        return error;
  return llvm::Error::success();
}

/// The totals of the stage `index` whose ops are `stage`. `lookupTemplate`
/// maps an instance to its template op (or null); `templates` caches each
/// template's summary across the stages of one program. `fusedFigures`
/// gives the semantic work a fused task conserves (pplan_task_c10: the tasks
/// it replaced), std::nullopt for any other op: the totals count that, not what
/// the fused kernel executes. An overflow, or an instance whose template is
/// missing, is an error naming the stage.
template <typename InstanceOpT, typename SendOpT, typename RecvOpT,
          typename LookupT, typename FusedFiguresT>
llvm::Expected<workload::StageTotals> summarizeStage(
    mlir::Block &stage, int64_t index, LookupT lookupTemplate,
    FusedFiguresT fusedFigures,
    llvm::DenseMap<mlir::Operation *, workload::WorkSummary> &templates) {
  workload::StageTotals totals;
  totals.stage = index;
  std::string what = "stage " + std::to_string(index);
  auto add = [&](WorkFactsOpInterface work, bool ofInstance) -> llvm::Error {
    if (ofInstance)
      return addSemanticWork(work, fusedFigures,
                             {&totals.work, &totals.instanceWork});
    return addSemanticWork(work, fusedFigures, {&totals.work});
  };
  workload::OverflowGuard guard;
  // The KV-cache bytes `work` writes (an inference step's kv_cache_write).
  std::string kvWhat = what + " KV-cache bytes";
  auto kvCacheWrites = [&](WorkFactsOpInterface work) -> int64_t {
    if (work.getPrimitive() != workload::primitive::kKVCacheWrite)
      return 0;
    int64_t bytes = 0;
    for (const TensorBytes &write : work.getWrites())
      bytes = guard.add(bytes, write.bytes, kvWhat);
    return bytes;
  };
  llvm::DenseMap<mlir::Operation *, int64_t> kvOfTemplate;
  // The repetitions of each template's instances, in the order first run.
  llvm::MapVector<mlir::Operation *, int64_t> repetitionsOf;
  for (mlir::Operation &op : stage) {
    if (auto instance = llvm::dyn_cast<InstanceOpT>(op)) {
      // An expanded instance's copies are its work (its verifier keeps them
      // equal to the template's).
      if (op.getNumRegions() == 1 && !op.getRegion(0).empty()) {
        for (auto work : op.getRegion(0).getOps<WorkFactsOpInterface>()) {
          if (llvm::Error error = add(work, /*ofInstance=*/true))
            return error;
          int64_t written = kvCacheWrites(work);
          totals.kvCacheWriteBytes =
              guard.add(totals.kvCacheWriteBytes, written, kvWhat);
        }
        continue;
      }
      mlir::Operation *templateOp = lookupTemplate(instance);
      if (!templateOp)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       what +
                                           ": an instance names no template");
      auto [entry, inserted] = templates.try_emplace(
          templateOp, workload::WorkSummary(workload::Cadence::PerIteration));
      if (inserted)
        for (auto work :
             templateOp->getRegion(0).getOps<WorkFactsOpInterface>())
          if (llvm::Error error =
                  addSemanticWork(work, fusedFigures, {&entry->second}))
            return error;
      // Added once per template below, times its instances' repetitions
      // (the totals are exact integer sums: the order of the terms does not
      // change them).
      int64_t &repetitions = repetitionsOf[templateOp];
      repetitions = guard.add(repetitions, instance.getRepetitions(), what);
      auto [kv, fresh] = kvOfTemplate.try_emplace(templateOp, 0);
      if (fresh)
        for (auto work :
             templateOp->getRegion(0).getOps<WorkFactsOpInterface>()) {
          int64_t written = kvCacheWrites(work);
          kv->second = guard.add(kv->second, written, kvWhat);
        }
      int64_t written =
          guard.mul(kv->second, instance.getRepetitions(), kvWhat);
      totals.kvCacheWriteBytes =
          guard.add(totals.kvCacheWriteBytes, written, kvWhat);
    } else if (auto send = llvm::dyn_cast<SendOpT>(op)) {
      totals.messagesSent = guard.add(totals.messagesSent, 1, what);
      totals.bytesSent = guard.add(totals.bytesSent, send.getBytes(), what);
    } else if (auto recv = llvm::dyn_cast<RecvOpT>(op)) {
      totals.messagesReceived = guard.add(totals.messagesReceived, 1, what);
      totals.bytesReceived =
          guard.add(totals.bytesReceived, recv.getBytes(), what);
    } else if (auto work = llvm::dyn_cast<WorkFactsOpInterface>(op)) {
      if (llvm::Error error = add(work, /*ofInstance=*/false))
        return error;
    }
  }
  if (guard.failed())
    return guard.error("summarizeStage");
  for (auto [templateOp, repetitions] : repetitionsOf)
    for (workload::WorkSummary *sum : {&totals.work, &totals.instanceWork})
      if (llvm::Error error = sum->addScaled(templates.find(templateOp)->second,
                                             repetitions, what))
        return error;
  return totals;
}

} // namespace blueprint

#endif // BLUEPRINT_INTERFACES_STAGETOTALS_H
