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

#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/Primitives.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace blueprint {

/// The `TemplateOpT` of `program`'s body named `name`, or null, as
/// SymbolTable::lookupSymbolIn finds it when the body's symbols are unique
/// (the program's symbol table verifier reports them otherwise). It visits
/// only the templates and compares their names as attributes: an instance
/// looks up its template in every verifier and summary, tens of thousands
/// of times in a whole run, and the generic lookup reads every symbol's
/// name before it through the op's attribute interface. Like that lookup
/// it is linear in the program's ops (an inference run has a template per
/// decode step); a pass that looks up every instance builds a SymbolTable
/// once instead (ExpandWholeRun).
template <typename TemplateOpT>
TemplateOpT findTemplate(mlir::Operation *program, mlir::StringAttr name) {
  if (!program || program->getNumRegions() != 1 ||
      program->getRegion(0).empty())
    return nullptr;
  for (TemplateOpT templateOp :
       program->getRegion(0).front().template getOps<TemplateOpT>())
    if (templateOp.getSymNameAttr() == name)
      return templateOp;
  return nullptr;
}

/// The shape of the run of the whole-run `ProgramOpT` (a `dist.program`, a
/// `pplan.plan`) that is or encloses `op`, if there is one and its
/// contracts compose (transformer::runShapeOf: composed once per context,
/// not once per op that asks).
template <typename ProgramOpT>
const std::optional<workload::RunShape> &
enclosingRunShape(mlir::Operation *op) {
  static const std::optional<workload::RunShape> none;
  auto program = llvm::dyn_cast<ProgramOpT>(op);
  if (!program)
    program = op->getParentOfType<ProgramOpT>();
  if (!program)
    return none;
  return transformer::runShapeOf(program.getModel(), program.getMapping(),
                                 program.getTrainingAttr(),
                                 program.getInferenceAttr());
}

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
    auto what = [&key = key] {
      auto [message, microBatch, chunk] = key;
      return workload::describeMessage(
          static_cast<workload::PipelineMessage>(message), microBatch, chunk);
    };
    if (!ends.send || !ends.recv)
      return present->emitOpError() << rule << ": the " << what() << " is "
                                    << (ends.send ? "sent but never received"
                                                  : "received but never sent");
    int64_t sent = llvm::cast<SendOpT>(ends.send).getBytes();
    int64_t received = llvm::cast<RecvOpT>(ends.recv).getBytes();
    if (sent != received)
      return ends.recv->emitOpError()
             << rule << ": the " << what() << " is sent as " << sent
             << " bytes but received as " << received;
  }
  return mlir::success();
}

/// The rules of an instance of `templateOp` on stage `stage` of a run of
/// `shape`, reported under `<rule>_c2` and `<rule>_c3` (`dist_instance`,
/// `pplan_instance`): a micro-batch exactly for a per-micro-batch template,
/// within the run's; a model chunk the stage holds; a block instance runs
/// its chunk's blocks, or when they mix block kinds one segment of one kind
/// of them, an edge instance the first (embedding) or last (head) chunk
/// without blocks.
template <typename InstanceOpT, typename TemplateOpT>
mlir::LogicalResult verifyInstanceShape(InstanceOpT op, TemplateOpT templateOp,
                                        const workload::RunShape &shape,
                                        int64_t stage, llvm::StringRef rule) {
  const workload::PipelineLayout &layout = shape.layout;
  bool perMicroBatch =
      templateOp.getCadence() != workload::Cadence::PerIteration;
  std::optional<int64_t> microBatch;
  if (mlir::IntegerAttr attr = op.getMicroBatchAttr())
    microBatch = attr.getInt();
  if (perMicroBatch != microBatch.has_value())
    return op.emitOpError() << rule << "_c2: template @"
                            << templateOp.getSymName()
                            << (perMicroBatch ? " runs per micro-batch: give "
                                                "micro_batch"
                                              : " runs once per iteration: no "
                                                "micro_batch");
  if (microBatch && (*microBatch < 0 || *microBatch >= shape.microbatches))
    return op.emitOpError() << rule << "_c2: micro_batch " << *microBatch
                            << " is not " << shape.rangeText();
  int64_t chunk = op.getChunk();
  if (chunk < 0 || chunk >= layout.chunks() || layout.stageOf(chunk) != stage)
    return op.emitOpError() << rule << "_c3: model chunk " << chunk
                            << " is not held by stage " << stage;
  std::optional<llvm::ArrayRef<int64_t>> blocks = op.getBlocks();
  if (templateOp.getPart() == workload::ModelPart::Block) {
    // A chunk's blocks run as one instance, or, when they mix block kinds,
    // one per segment of one kind (docs/WholeRun.md, "Block kinds");
    // `<rule>_c8` checks that a pass's segments cover the chunk.
    int64_t first = layout.firstBlock(chunk);
    int64_t end = first + layout.chunkBlocks[chunk];
    std::vector<workload::BlockSegment> segments =
        workload::blockSegmentsOf(shape.model, first, end);
    bool isSegment =
        blocks && blocks->size() == 2 &&
        llvm::any_of(segments, [&](const workload::BlockSegment &segment) {
          return segment.first == (*blocks)[0] && segment.end == (*blocks)[1];
        });
    if (!isSegment) {
      mlir::InFlightDiagnostic error =
          op.emitOpError() << rule << "_c3: a block instance of model chunk "
                           << chunk << " runs its blocks [" << first << ", "
                           << end << ")";
      if (segments.size() > 1) {
        error << " or one of their segments of one block kind:";
        for (const workload::BlockSegment &segment : segments)
          error << " [" << segment.first << ", " << segment.end << ")";
      }
      return error;
    }
    return mlir::success();
  }
  bool embedding = templateOp.getPart() == workload::ModelPart::Embedding;
  int64_t edgeChunk = embedding ? 0 : layout.chunks() - 1;
  if (blocks || chunk != edgeChunk)
    return op.emitOpError() << rule << "_c3: the "
                            << workload::stringifyEnum(templateOp.getPart())
                            << " runs on model chunk " << edgeChunk
                            << ", without blocks";
  return mlir::success();
}

/// The block instances of `stage` grouped into slots, reported under
/// `rule` (`dist_program_c8`, `pplan_plan_c8`). A slot is one pass of one
/// micro-batch through one chunk (a step of a generation; a chunk's
/// optimizer step). It runs one instance, or under a model that mixes
/// block kinds one instance per segment of one kind (docs/WholeRun.md,
/// "Block kinds"). A slot's consecutive instances continue one another's
/// blocks: in block order for a forward, a prefill, a decode step or the
/// step, backwards for a backward, an input or a weight gradient. Together
/// they run every block of their chunk. Returns the first instance of each
/// slot, in the stage's order. `lookupTemplate` maps an instance to its
/// template op; an instance without one is left to its own verifier.
template <typename InstanceOpT, typename LookupT>
mlir::FailureOr<llvm::SmallVector<InstanceOpT>>
blockSlotsOf(mlir::Block &stage, const workload::PipelineLayout &layout,
             LookupT lookupTemplate, llvm::StringRef rule) {
  llvm::SmallVector<InstanceOpT> starts;
  workload::PipelinePass slotPass = workload::PipelinePass::Forward;
  int64_t slotFirst = 0;
  int64_t slotEnd = 0;
  auto coversChunk = [&]() -> mlir::LogicalResult {
    if (starts.empty())
      return mlir::success();
    InstanceOpT start = starts.back();
    int64_t chunk = start.getChunk();
    int64_t first = layout.firstBlock(chunk);
    int64_t end = first + layout.chunkBlocks[chunk];
    if (slotFirst == first && slotEnd == end)
      return mlir::success();
    return start.emitOpError()
           << rule << ": the instances of this "
           << workload::stringifyEnum(slotPass) << " through model chunk "
           << chunk << " run blocks [" << slotFirst << ", " << slotEnd
           << "), not the chunk's [" << first << ", " << end << ")";
  };
  for (InstanceOpT instance : stage.getOps<InstanceOpT>()) {
    auto templateOp = lookupTemplate(instance);
    if (!templateOp || templateOp.getPart() != workload::ModelPart::Block)
      continue;
    // `<instance>_c3` holds: a block instance runs its chunk's blocks or one
    // of their segments of one block kind.
    llvm::ArrayRef<int64_t> blocks = *instance.getBlocks();
    workload::PipelinePass pass = templateOp.getPass();
    bool blockOrder = pass != workload::PipelinePass::Backward &&
                      pass != workload::PipelinePass::InputGrad &&
                      pass != workload::PipelinePass::WeightGrad;
    if (!starts.empty()) {
      InstanceOpT start = starts.back();
      bool sameSlot = pass == slotPass &&
                      instance.getChunk() == start.getChunk() &&
                      instance.getMicroBatchAttr() == start.getMicroBatchAttr();
      if (sameSlot && blockOrder && blocks[0] == slotEnd) {
        slotEnd = blocks[1];
        continue;
      }
      if (sameSlot && !blockOrder && blocks[1] == slotFirst) {
        slotFirst = blocks[0];
        continue;
      }
      if (mlir::failed(coversChunk()))
        return mlir::failure();
    }
    starts.push_back(instance);
    slotPass = pass;
    slotFirst = blocks[0];
    slotEnd = blocks[1];
  }
  if (mlir::failed(coversChunk()))
    return mlir::failure();
  return starts;
}

/// The rules of a pipeline send (`sending`) or receive on stage `stage`,
/// reported under `<rule>_c1` .. `c3` (`dist_message`, `pplan_transfer`):
/// with a run shape, its micro-batch is the run's and its chunk has a
/// neighbour in the message's direction (tokens only in an inference run,
/// from the last chunk at pp > 1, for every step but the last; no
/// activation gradient in one), the stage holds its end and `peer` the
/// other end; always, its bytes are non-negative.
template <typename TransferOpT>
mlir::LogicalResult
verifyTransferShape(TransferOpT op, bool sending,
                    const std::optional<workload::RunShape> &shape,
                    int64_t stage, llvm::StringRef rule) {
  if (shape) {
    const workload::PipelineLayout &layout = shape->layout;
    workload::PipelineMessage message = op.getMessage();
    bool token = message == workload::PipelineMessage::Token;
    bool forward = message == workload::PipelineMessage::Activation;
    int64_t chunk = op.getChunk();
    int64_t last = layout.chunks() - 1;
    // A token goes from the last model chunk back to the first.
    int64_t neighbour = token ? 0 : forward ? chunk + 1 : chunk - 1;
    if (op.getMicroBatch() < 0 || op.getMicroBatch() >= shape->microbatches)
      return op.emitOpError() << rule << "_c1: micro_batch "
                              << op.getMicroBatch() << " is not "
                              << shape->rangeText();
    if (token && !shape->inference())
      return op.emitOpError()
             << rule << "_c1: only an inference run sends tokens";
    if (shape->inference() &&
        message == workload::PipelineMessage::ActivationGrad)
      return op.emitOpError()
             << rule << "_c1: an inference run sends no activation_grad";
    if (token && (chunk != last || last == 0))
      return op.emitOpError()
             << rule << "_c1: a token leaves the last model chunk (" << last
             << ") for the first, at pp > 1, not model chunk " << chunk;
    if (token && op.getMicroBatch() >= shape->microbatches - 1)
      return op.emitOpError()
             << rule << "_c1: the token of step " << op.getMicroBatch()
             << " feeds step " << op.getMicroBatch() + 1
             << ", which the generation does not run (the last token is "
                "never fed back)";
    if (chunk < 0 || chunk >= layout.chunks() || neighbour < 0 ||
        neighbour >= layout.chunks())
      return op.emitOpError()
             << rule << "_c1: model chunk " << chunk << " sends no "
             << workload::stringifyEnum(message) << " (model chunks 0.."
             << layout.chunks() - 1 << ")";
    int64_t sender = layout.stageOf(chunk);
    int64_t receiver = layout.stageOf(neighbour);
    // Described only for a diagnostic: a program has tens of thousands.
    auto what = [&] {
      return workload::describeMessage(message, op.getMicroBatch(), chunk);
    };
    if ((sending ? sender : receiver) != stage)
      return op.emitOpError()
             << rule << "_c1: the " << what()
             << (sending ? " is sent by stage " : " is received by stage ")
             << (sending ? sender : receiver) << ", not " << stage;
    int64_t peer = sending ? receiver : sender;
    if (op.getPeer() != peer)
      return op.emitOpError()
             << rule << "_c2: the " << what()
             << (sending ? " goes to stage " : " comes from stage ") << peer
             << ", not " << op.getPeer();
  }
  if (op.getBytes() < 0)
    return op.emitOpError() << rule << "_c3: bytes must be non-negative, got "
                            << op.getBytes();
  return mlir::success();
}

/// The attribute of a whole-run stage's data-parallel gradient reduction
/// that waits for only the first `ready_blocks` blocks of the block instance
/// its last `after` token names, where its bucket is ready
/// (overlap_dp_grad_reduce; docs/WholeRun.md, "Dependencies").
inline constexpr llvm::StringLiteral kReadyBlocksAttr = "ready_blocks";

/// `rule` (`dist_stage_c4`, `pplan_stage_c4`), where `ready_blocks` may
/// stand: only on an op directly in a whole-run stage (`inStage`), never on
/// a template's. Called by the reductions' own verifiers, which see
/// template ops the stage's check does not.
inline mlir::LogicalResult verifyReadyBlocksInStage(mlir::Operation &op,
                                                    bool inStage,
                                                    llvm::StringRef rule) {
  if (!op.getAttr(kReadyBlocksAttr) || inStage)
    return mlir::success();
  return op.emitOpError() << rule << ": " << kReadyBlocksAttr
                          << " stands only on a data-parallel gradient "
                             "reduction of a whole-run stage, not in a "
                             "template";
}

/// `rule` (`dist_stage_c4`, `pplan_stage_c4`): an op of `stage` that carries
/// `ready_blocks` is a data-parallel gradient reduction (a collective
/// `dp_grad_allreduce` or `dp_grad_reduce_scatter`) whose value is an
/// integer k >= 1 and whose last `after` token is a backward or
/// weight-gradient block instance of the stage that runs more than k
/// blocks. `lookupTemplate(instance)` gives an instance's template or null.
template <typename InstanceOpT, typename LookupTemplateT>
mlir::LogicalResult verifyReadyBlocks(mlir::Block &stage,
                                      LookupTemplateT lookupTemplate,
                                      llvm::StringRef rule) {
  for (mlir::Operation &op : stage) {
    mlir::Attribute attr = op.getAttr(kReadyBlocksAttr);
    if (!attr)
      continue;
    auto work = llvm::dyn_cast<WorkFactsOpInterface>(op);
    auto blocks = llvm::dyn_cast<mlir::IntegerAttr>(attr);
    bool reduction =
        work && work.getCollectiveFacts() &&
        (work.getPrimitive() == workload::primitive::kDPGradAllReduce ||
         work.getPrimitive() == workload::primitive::kDPGradReduceScatter);
    if (!reduction || !blocks || op.getNumOperands() == 0)
      return op.emitOpError()
             << rule << ": only a data-parallel gradient reduction ("
             << workload::primitive::kDPGradAllReduce << ", "
             << workload::primitive::kDPGradReduceScatter
             << ") with an `after` token carries an integer "
             << kReadyBlocksAttr;
    auto instance = op.getOperands().back().getDefiningOp<InstanceOpT>();
    auto templateOp = instance ? lookupTemplate(instance) : nullptr;
    bool backward =
        templateOp &&
        (templateOp.getPass() == workload::PipelinePass::Backward ||
         templateOp.getPass() == workload::PipelinePass::WeightGrad);
    std::optional<llvm::ArrayRef<int64_t>> range =
        backward ? instance.getBlocks() : std::nullopt;
    int64_t ready = blocks.getInt();
    if (!range || range->size() != 2 || ready < 1 ||
        ready >= (*range)[1] - (*range)[0])
      return op.emitOpError()
             << rule << ": " << kReadyBlocksAttr << " = " << ready
             << " needs its last `after` token to be a backward or "
                "weight-gradient block instance that runs more than that "
                "many blocks, and at least 1";
  }
  return mlir::success();
}

} // namespace blueprint

#endif // BLUEPRINT_INTERFACES_WHOLERUNRULES_H
