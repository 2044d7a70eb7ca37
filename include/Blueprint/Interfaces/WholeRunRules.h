//===- WholeRunRules.h - Rules both whole-run dialects share ----*- C++ -*-===//
//
// A whole-run `dist.program` and its `pplan.plan` have the same shape
// (docs/WholeRun.md): stages of instances and pipeline sends and receives.
// The rules about that shape are written once here, over each dialect's op
// types, and cited under each dialect's label (`dist_program_c6`,
// `pplan_plan_c6`).
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_INTERFACES_WHOLERUNRULES_H
#define BLUEPRINT_INTERFACES_WHOLERUNRULES_H

#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <tuple>

namespace blueprint {

/// Every send of the stages' bodies has exactly one receive of the same
/// message (what it carries, micro-batch, sending chunk) with the same
/// bytes, and every receive its send; reported under `rule`.
template <typename SendOpT, typename RecvOpT>
mlir::LogicalResult verifyMessagePairs(llvm::ArrayRef<mlir::Block *> stages,
                                       llvm::StringRef rule) {
  struct Ends {
    mlir::Operation *send = nullptr;
    mlir::Operation *recv = nullptr;
  };
  std::map<std::tuple<int, int64_t, int64_t>, Ends> messages;
  auto record = [&](auto message,
                    mlir::Operation *Ends::*end) -> mlir::LogicalResult {
    Ends &ends = messages[{static_cast<int>(message.getMessage()),
                           message.getMicroBatch(), message.getChunk()}];
    if (ends.*end)
      return message.emitOpError()
             << rule << ": the "
             << workload::describeMessage(message.getMessage(),
                                          message.getMicroBatch(),
                                          message.getChunk())
             << " is " << (end == &Ends::send ? "sent" : "received")
             << " twice";
    ends.*end = message;
    return mlir::success();
  };
  for (mlir::Block *stage : stages)
    for (mlir::Operation &op : *stage) {
      if (auto send = llvm::dyn_cast<SendOpT>(op)) {
        if (mlir::failed(record(send, &Ends::send)))
          return mlir::failure();
      } else if (auto recv = llvm::dyn_cast<RecvOpT>(op)) {
        if (mlir::failed(record(recv, &Ends::recv)))
          return mlir::failure();
      }
    }
  for (auto &[key, ends] : messages) {
    mlir::Operation *present = ends.send ? ends.send : ends.recv;
    auto [message, microBatch, chunk] = key;
    std::string what = workload::describeMessage(
        static_cast<workload::PipelineMessage>(message), microBatch, chunk);
    if (!ends.send || !ends.recv)
      return present->emitOpError() << rule << ": the " << what << " is "
                                    << (ends.send ? "sent but never received"
                                                  : "received but never sent");
    int64_t sent = llvm::cast<SendOpT>(ends.send).getBytes();
    int64_t received = llvm::cast<RecvOpT>(ends.recv).getBytes();
    if (sent != received)
      return ends.recv->emitOpError()
             << rule << ": the " << what << " is sent as " << sent
             << " bytes but received as " << received;
  }
  return mlir::success();
}

} // namespace blueprint

#endif // BLUEPRINT_INTERFACES_WHOLERUNRULES_H
