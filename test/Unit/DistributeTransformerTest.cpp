//===- DistributeTransformerTest.cpp - The passes keep the algebra's facts -===//
//
// Runs --distribute-transformer and --plan-portable on a PassManager built in
// C++ over grids of models and mappings and checks that the dist IR holds
// exactly the algebra's invocations, in stage order, that canonicalize + CSE
// do not change a single fact, and that the plan conserves the algebra's
// totals.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Dist/IR/DistOps.h"
#include "Blueprint/Dialect/PPlan/IR/PPlanOps.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Workload/BlockWork.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::workload;

namespace {

struct Case {
  ModelSpec model;
  TrainingSpec training;
  MappingSpec mapping;
};

std::vector<Case> grid() {
  std::vector<Case> cases;
  for (int64_t tp : {1, 2, 4, 8})
    for (TPCommMode mode :
         {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather})
      for (RecomputePolicy recompute : {RecomputePolicy::None,
                                        RecomputePolicy::Selective,
                                        RecomputePolicy::Full})
        for (ActivationKind activation :
             {ActivationKind::GeLU, ActivationKind::SwiGLU}) {
          Case c;
          c.model.hidden = 256;
          // The gated MLP comes with grouped-query attention (16 query
          // heads share 8 key/value heads).
          bool gated = activation == ActivationKind::SwiGLU;
          c.model.heads = gated ? 16 : 8;
          c.model.kvHeads = 8;
          c.model.headDim = gated ? 16 : 32;
          c.model.ffnHidden = 1024;
          c.model.seqLength = 64;
          c.model.maxPositions = 64;
          c.model.vocab = 512;
          c.model.blocks = 4;
          c.model.activation = activation;
          c.model.norm = gated ? NormKind::RMSNorm : NormKind::LayerNorm;
          c.training.globalBatch = 8;
          c.training.microBatch = 2;
          c.mapping.tp = c.mapping.world = tp;
          c.mapping.tpComm = mode;
          c.mapping.recompute = recompute;
          cases.push_back(c);
        }
  return cases;
}

class DistributeTransformerTest : public ::testing::Test {
protected:
  DistributeTransformerTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> buildModule(const Case &c) {
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    transformer::DecoderTrainingOp::create(
        builder, builder.getUnknownLoc(), builder.getStringAttr("m"),
        transformer::getModelAttr(&context, c.model),
        transformer::getTrainingAttr(&context, c.training),
        transformer::getMappingAttr(&context, c.mapping));
    return module;
  }

  /// The invocations of the module's program, in program order.
  static std::vector<Invocation> invocationsOf(ModuleOp module) {
    std::vector<Invocation> invocations;
    module.walk([&](WorkFactsOpInterface work) {
      llvm::Expected<Invocation> invocation = toInvocation(work);
      EXPECT_TRUE(static_cast<bool>(invocation));
      if (invocation)
        invocations.push_back(std::move(*invocation));
    });
    return invocations;
  }

  MLIRContext context;
};

/// Tensor lists compared as sets: the IR keeps them in name order.
void expectSameInvocation(const Invocation &fromIR, const Invocation &derived) {
  auto sorted = [](std::vector<TensorAccess> accesses) {
    llvm::sort(accesses, [](const TensorAccess &a, const TensorAccess &b) {
      return a.tensor < b.tensor;
    });
    return accesses;
  };
  EXPECT_EQ(fromIR.primitive, derived.primitive);
  EXPECT_EQ(fromIR.phase, derived.phase);
  EXPECT_EQ(fromIR.engine, derived.engine);
  EXPECT_EQ(fromIR.ops, derived.ops);
  EXPECT_EQ(fromIR.stashBytes, derived.stashBytes);
  EXPECT_EQ(fromIR.collective, derived.collective);
  EXPECT_EQ(sorted(fromIR.reads), sorted(derived.reads));
  EXPECT_EQ(sorted(fromIR.writes), sorted(derived.writes));
  EXPECT_EQ(sorted(fromIR.stashed), sorted(derived.stashed));
}

} // namespace

TEST_F(DistributeTransformerTest, ProgramHoldsExactlyTheAlgebrasWork) {
  for (const Case &c : grid()) {
    SCOPED_TRACE(testing::Message()
                 << "tp=" << c.mapping.tp << " mode="
                 << stringifyEnum(c.mapping.tpComm).str() << " recompute="
                 << stringifyEnum(c.mapping.recompute).str() << " activation="
                 << stringifyEnum(c.model.activation).str());
    OwningOpRef<ModuleOp> module = buildModule(c);
    PassManager pm(&context);
    pm.addPass(createDistributeTransformer());
    ASSERT_TRUE(succeeded(pm.run(*module)));

    llvm::Expected<BlockWork> perMicroBatch =
        deriveBlockWork(c.model, c.training, c.mapping);
    llvm::Expected<BlockWork> perIteration =
        deriveOptimizerWork(c.model, c.training, c.mapping);
    ASSERT_TRUE(static_cast<bool>(perMicroBatch));
    ASSERT_TRUE(static_cast<bool>(perIteration));
    std::vector<Invocation> fromIR = invocationsOf(*module);
    ASSERT_EQ(fromIR.size(), perMicroBatch->invocations.size() +
                                 perIteration->invocations.size());

    // Every derived invocation appears once, with the same facts.
    std::vector<Invocation> derived = perMicroBatch->invocations;
    derived.insert(derived.end(), perIteration->invocations.begin(),
                   perIteration->invocations.end());
    for (const Invocation &invocation : fromIR) {
      auto match = llvm::find_if(derived, [&](const Invocation &d) {
        return d.primitive == invocation.primitive &&
               d.phase == invocation.phase;
      });
      ASSERT_NE(match, derived.end()) << invocation.primitive;
      expectSameInvocation(invocation, *match);
    }

    // Stage order: no forward work after recompute or backward work, no
    // recompute after backward work (recommunication serves its neighbour).
    int stage = 0;
    for (const Invocation &invocation : fromIR) {
      int own = invocation.phase == Phase::Forward     ? 0
                : invocation.phase == Phase::Recompute ? 1
                : invocation.phase == Phase::Recommunication
                    ? stage
                    : 2;
      EXPECT_GE(own, stage) << invocation.primitive;
      stage = std::max(stage, own);
    }

    // Canonicalize and CSE keep every fact.
    PassManager cleanup(&context);
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());
    ASSERT_TRUE(succeeded(cleanup.run(*module)));
    std::vector<Invocation> after = invocationsOf(*module);
    ASSERT_EQ(after.size(), fromIR.size());
    for (size_t i = 0; i < after.size(); ++i)
      expectSameInvocation(after[i], fromIR[i]);
  }
}

TEST_F(DistributeTransformerTest, SourceDigestIsRecordedAndStable) {
  Case c = grid().front();
  std::string digests[2];
  for (std::string &digest : digests) {
    OwningOpRef<ModuleOp> module = buildModule(c);
    PassManager pm(&context);
    pm.addPass(createDistributeTransformer());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    auto program = *module->getOps<dist::ProgramOp>().begin();
    digest = program.getSourceDigest().str();
  }
  EXPECT_EQ(digests[0], digests[1]);
  EXPECT_EQ(digests[0].size(), std::string("sha256:").size() + 64);

  // One changed dimension changes the digest.
  c.model.blocks = 8;
  OwningOpRef<ModuleOp> module = buildModule(c);
  PassManager pm(&context);
  pm.addPass(createDistributeTransformer());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_NE((*module->getOps<dist::ProgramOp>().begin()).getSourceDigest(),
            digests[0]);
}

namespace {

/// Shapes of the property test: a small GPT, the SeqSel 22B block, grouped
/// query attention with a gated MLP, and heads * head_dim != hidden.
std::vector<ModelSpec> propertyShapes() {
  auto shape = [](int64_t hidden, int64_t heads, int64_t kvHeads,
                  int64_t headDim, int64_t ffn, int64_t seq,
                  ActivationKind activation, NormKind norm) {
    ModelSpec model;
    model.hidden = hidden;
    model.heads = heads;
    model.kvHeads = kvHeads;
    model.headDim = headDim;
    model.ffnHidden = ffn;
    model.seqLength = model.maxPositions = seq;
    model.vocab = 51200;
    model.blocks = 8;
    model.activation = activation;
    model.norm = norm;
    return model;
  };
  return {shape(512, 8, 8, 64, 2048, 128, ActivationKind::GeLU,
                NormKind::LayerNorm),
          shape(6144, 64, 64, 96, 24576, 2048, ActivationKind::GeLU,
                NormKind::LayerNorm),
          shape(4096, 32, 8, 128, 14336, 4096, ActivationKind::SwiGLU,
                NormKind::RMSNorm),
          shape(1024, 16, 8, 80, 4096, 256, ActivationKind::ReLU,
                NormKind::LayerNorm)};
}

void expectSameTotals(const WorkTotals &plan, const WorkTotals &derived) {
  EXPECT_EQ(plan.invocations, derived.invocations);
  EXPECT_EQ(plan.ops, derived.ops);
  EXPECT_EQ(plan.readBytes, derived.readBytes);
  EXPECT_EQ(plan.writeBytes, derived.writeBytes);
  EXPECT_EQ(plan.messageBytes, derived.messageBytes);
  EXPECT_EQ(plan.minimumTransferBytes, derived.minimumTransferBytes);
  EXPECT_EQ(plan.stashBytes, derived.stashBytes);
}

} // namespace

TEST_F(DistributeTransformerTest, PlanConservesTheAlgebrasTotals) {
  constexpr Phase phases[] = {Phase::Forward,        Phase::Recompute,
                              Phase::ActivationGrad, Phase::WeightGrad,
                              Phase::Optimizer,      Phase::Recommunication};
  constexpr Engine engines[] = {Engine::Matmul, Engine::Vector,
                                Engine::Collective};
  int runs = 0;
  for (const ModelSpec &model : propertyShapes())
    for (int64_t tp : {1, 2, 4, 8})
      for (TPCommMode mode :
           {TPCommMode::AllReduce, TPCommMode::ReduceScatterAllGather})
        for (RecomputePolicy recompute :
             {RecomputePolicy::None, RecomputePolicy::Selective,
              RecomputePolicy::Full}) {
          Case c;
          c.model = model;
          c.training.globalBatch = 16;
          c.training.microBatch = 2;
          c.mapping.tp = c.mapping.world = tp;
          c.mapping.tpComm = mode;
          c.mapping.recompute = recompute;
          SCOPED_TRACE(testing::Message()
                       << "hidden=" << model.hidden << " tp=" << tp
                       << " mode=" << stringifyEnum(mode).str()
                       << " recompute=" << stringifyEnum(recompute).str());
          OwningOpRef<ModuleOp> module = buildModule(c);
          PassManager pm(&context);
          pm.addPass(createDistributeTransformer());
          pm.addPass(createVerifyConservation());
          pm.addPass(createPlanPortable());
          pm.addPass(createVerifyConservation());
          ASSERT_TRUE(succeeded(pm.run(*module)));
          ASSERT_EQ(llvm::range_size(module->getOps<pplan::PlanOp>()), 1u);

          // The plan's totals, per cadence, equal the algebra's.
          BlockWork planWork[2];
          planWork[1].cadence = Cadence::PerIteration;
          module->walk([&](pplan::TaskOp task) {
            llvm::Expected<Invocation> invocation = toInvocation(
                llvm::cast<WorkFactsOpInterface>(task.getOperation()));
            ASSERT_TRUE(static_cast<bool>(invocation));
            planWork[task.getCadence() == Cadence::PerIteration]
                .invocations.push_back(*invocation);
          });
          llvm::Expected<BlockWork> derived[2] = {
              deriveBlockWork(c.model, c.training, c.mapping),
              deriveOptimizerWork(c.model, c.training, c.mapping)};
          for (int cadence = 0; cadence < 2; ++cadence) {
            ASSERT_TRUE(static_cast<bool>(derived[cadence]));
            llvm::Expected<WorkSummary> fromPlan = summarize(planWork[cadence]);
            llvm::Expected<WorkSummary> fromAlgebra =
                summarize(*derived[cadence]);
            ASSERT_TRUE(static_cast<bool>(fromPlan));
            ASSERT_TRUE(static_cast<bool>(fromAlgebra));
            for (Phase phase : phases)
              for (Engine engine : engines)
                expectSameTotals(fromPlan->at(phase, engine),
                                 fromAlgebra->at(phase, engine));
            expectSameTotals(fromPlan->total(), fromAlgebra->total());
          }
          ++runs;
        }
  EXPECT_EQ(runs, 4 * 4 * 2 * 3);
}

/// A byte list set from C++ is checked like a parsed one: the parser sorts
/// and rejects empty names, a builder might not (findTensor relies on the
/// order).
TEST_F(DistributeTransformerTest, ByteListsSetFromCodeAreVerified) {
  Case c = grid().front();
  OwningOpRef<ModuleOp> module = buildModule(c);
  PassManager pm(&context);
  pm.addPass(createDistributeTransformer());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  dist::TaskOp task;
  module->walk([&](dist::TaskOp op) {
    if (!task && op.getReads().size() >= 2)
      task = op;
  });
  ASSERT_TRUE(task);

  std::string diagnostics;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diagnostic) {
    diagnostics += diagnostic.str() + "\n";
    return success();
  });
  auto expectRejected = [&](const TensorBytesList &list,
                            llvm::StringRef message) {
    diagnostics.clear();
    task.setReads(list);
    EXPECT_TRUE(failed(verify(task)));
    EXPECT_NE(diagnostics.find(message.str()), std::string::npos)
        << diagnostics;
  };
  TensorBytesList reads(task.getReads().begin(), task.getReads().end());
  expectRejected(TensorBytesList(reads.rbegin(), reads.rend()),
                 "dist_work_c3: read bytes must list each tensor once, in "
                 "name order");
  expectRejected({reads.front(), reads.front()},
                 "must list each tensor once");
  expectRejected({{StringAttr::get(&context, ""), 8}},
                 "dist_work_c3: read bytes lists a tensor with no name");
  expectRejected({{StringAttr(), 8}},
                 "dist_work_c3: read bytes lists a tensor with no name");
  // A rejected op still prints (MLIR prints it in a diagnostic's note, in
  // the generic form): a list that can be no dictionary prints as pairs.
  std::string printed;
  llvm::raw_string_ostream os(printed);
  task->print(os, OpPrintingFlags().printGenericOpForm());
  EXPECT_NE(printed.find("reads = [[\"\", 8]]"), std::string::npos)
      << printed;

  task.setReads(reads);
  EXPECT_TRUE(succeeded(verify(task))) << diagnostics;
}
