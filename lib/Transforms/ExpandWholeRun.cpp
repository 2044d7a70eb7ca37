//===- ExpandWholeRun.cpp - The expanded form of a whole-run program ------===//
//
// Clones each template's work into the instances that run it
// (docs/WholeRun.md, "The expanded form"). The compact program stays the
// record; this form exists for small runs and for exporters that want
// every task.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Transforms/Passes.h"

#include "Blueprint/Dialect/Dist/IR/DistOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace blueprint {
#define GEN_PASS_DEF_EXPANDWHOLERUN
#include "Blueprint/Transforms/Passes.h.inc"
} // namespace blueprint

using namespace mlir;
using namespace blueprint;

namespace {

/// Writes the work of `templateOp` into `instance`'s body, once per
/// repetition, each repetition's first op after the previous one's last.
void expand(dist::InstanceOp instance, dist::TemplateOp templateOp) {
  MLIRContext *context = instance.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&instance.getBody().emplaceBlock());
  std::optional<ArrayRef<int64_t>> blocks = instance.getBlocks();
  int64_t first = blocks ? (*blocks)[0] : 0;
  Value previous;
  for (int64_t repetition = 0; repetition < instance.getRepetitions();
       ++repetition) {
    std::string placement =
        blocks ? "block " + std::to_string(first + repetition) : "once";
    Location where = FusedLoc::get(
        context,
        {NameLoc::get(StringAttr::get(context, placement)), instance.getLoc()});
    IRMapping mapping;
    for (Operation &op : templateOp.getBody().front()) {
      Operation *copy = builder.clone(op, mapping);
      copy->setLoc(FusedLoc::get(context, {op.getLoc(), where}));
      if (previous && op.getNumOperands() == 0)
        copy->insertOperands(0, previous);
      previous = copy->getResult(0);
    }
  }
}

struct ExpandWholeRunPass
    : blueprint::impl::ExpandWholeRunBase<ExpandWholeRunPass> {
  void runOnOperation() override {
    for (auto program : getOperation().getOps<dist::ProgramOp>()) {
      if (!dist::isWholeRun(program))
        continue;
      // One hashed table for every instance of the program: findTemplate
      // (dist.instance's lookupTemplate) is linear in the program's ops.
      SymbolTable symbols(program);
      for (auto stage : program.getBody().getOps<dist::StageOp>())
        for (auto instance : stage.getBody().getOps<dist::InstanceOp>())
          if (!instance.isExpanded())
            expand(instance, symbols.lookup<dist::TemplateOp>(
                                 instance.getTemplateName()));
    }
  }
};

} // namespace
