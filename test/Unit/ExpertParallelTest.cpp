//===- ExpertParallelTest.cpp - Closed forms of expert parallelism --------===//
//
// Each closed form of ExpertParallel.h against numbers derived by hand here:
// the worked Mixtral-8x7B example of docs/WorkAlgebra.md ("Expert
// parallelism", TP 1 PP 4 EP 8, world 64) figure by figure, a tp = 2
// sequence-parallel case with the dispatcher's TP all-gathers and
// reduce-scatters, a capacity case, full recompute, and every
// precondition's rule.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ExpertParallel.h"

#include "Blueprint/Import/HuggingFaceConfig.h"
#include "Blueprint/Workload/BlockKinds.h"
#include "Blueprint/Workload/BlockWork.h"
#include "Blueprint/Workload/Lifetimes.h"
#include "Blueprint/Workload/WholeRun.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <string>
#include <tuple>
#include <variant>
#include <vector>

using namespace blueprint::workload;

namespace {

/// Mixtral-8x7B from its bundled Hugging Face config (h 4,096, 32 heads of
/// 128, 8 key/value heads, f = expert_ffn_hidden 14,336 under SwiGLU, E 8,
/// k 2, 32 blocks, vocabulary 32,000) at seq_length 4,096, the Megatron-LM
/// example script's.
ModelSpec mixtral() {
  std::string file =
      std::string(BLUEPRINT_HUGGINGFACE_DIR) + "/mixtral-8x7b-v0.1/config.json";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(file);
  if (!text) {
    ADD_FAILURE() << file;
    return {};
  }
  mlir::MLIRContext context;
  std::optional<blueprint::import::HuggingFaceModel> imported =
      blueprint::import::readHuggingFaceConfig((*text)->getBuffer(), file,
                                               &context);
  if (!imported) {
    ADD_FAILURE() << file;
    return {};
  }
  ModelSpec model = imported->model;
  model.seqLength = 4096;
  return model;
}

/// Megatron-LM examples/mixtral/train_mixtral_8x7b_distributed.sh: micro-
/// batch 1, global batch 256, bf16 activations and weights, fp32 gradients
/// (the project's convention, docs/Memory.md).
TrainingSpec mixtralTraining() {
  TrainingSpec training;
  training.globalBatch = 256;
  training.microBatch = 1;
  training.activationType = DataType::BF16;
  training.weightType = DataType::BF16;
  training.gradientType = DataType::F32;
  return training;
}

/// TP 1, PP 4, EP 8 on 64 GPUs: dp = 64 / (1 * 4) = 16, ZeRO-1, sequence
/// parallelism (a no-op at tp 1).
MappingSpec mixtralMapping() {
  MappingSpec mapping;
  mapping.tp = 1;
  mapping.pp = 4;
  mapping.dp = 16;
  mapping.world = 64;
  mapping.ep = 8;
  mapping.zeroStage = 1;
  mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  return mapping;
}

/// h 1,024, 16 heads of 64, f = expert_ffn_hidden 1,024 under SwiGLU, E 8,
/// k 2, seq_length 512.
ModelSpec smallMoe() {
  ModelSpec model;
  model.hidden = 1024;
  model.heads = 16;
  model.kvHeads = 16;
  model.headDim = 64;
  model.ffnHidden = 4096;
  model.seqLength = 512;
  model.maxPositions = 512;
  model.vocab = 1024;
  model.blocks = 4;
  model.norm = NormKind::RMSNorm;
  model.activation = ActivationKind::SwiGLU;
  model.linearBias = LinearBias::None;
  MixtureOfExperts moe;
  moe.experts = 8;
  moe.expertsPerToken = 2;
  moe.expertFfnHidden = 1024;
  model.moe = moe;
  return model;
}

MappingSpec smallMapping(int64_t tp, int64_t dp, int64_t ep) {
  MappingSpec mapping;
  mapping.tp = tp;
  mapping.dp = dp;
  mapping.world = tp * dp;
  mapping.ep = ep;
  mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  return mapping;
}

ExpertParallelShape shapeOf(const ModelSpec &model,
                            const TrainingSpec &training,
                            const MappingSpec &mapping) {
  llvm::Expected<ExpertParallelShape> shape =
      expertParallelShape(model, training, mapping);
  if (!shape) {
    ADD_FAILURE() << llvm::toString(shape.takeError());
    return {};
  }
  return *shape;
}

std::vector<ExpertParallelTransfer> dispatchOf(const ModelSpec &model,
                                               const TrainingSpec &training,
                                               const MappingSpec &mapping) {
  llvm::Expected<std::vector<ExpertParallelTransfer>> transfers =
      expertParallelDispatch(model, training, mapping);
  if (!transfers) {
    ADD_FAILURE() << llvm::toString(transfers.takeError());
    return {};
  }
  return *transfers;
}

/// The error message of a shape that must fail.
std::string shapeError(const ModelSpec &model, const MappingSpec &mapping) {
  llvm::Expected<ExpertParallelShape> shape =
      expertParallelShape(model, mixtralTraining(), mapping);
  if (shape)
    return "";
  return llvm::toString(shape.takeError());
}

std::vector<std::string>
tensorsOf(const std::vector<ExpertParallelTransfer> &transfers, Phase phase) {
  std::vector<std::string> tensors;
  for (const ExpertParallelTransfer &transfer : transfers)
    if (transfer.phase == phase)
      tensors.push_back(transfer.tensor);
  return tensors;
}

int64_t bytesOver(const std::vector<ExpertParallelTransfer> &transfers,
                  Phase phase, CollectiveKind kind) {
  int64_t bytes = 0;
  for (const ExpertParallelTransfer &transfer : transfers)
    if (transfer.phase == phase && transfer.collective == kind)
      bytes += transfer.messageBytes;
  return bytes;
}

} // namespace

// docs/WorkAlgebra.md's worked example, per rank and MoE block: n_e = 8 / 8
// = 1 expert, d_e = 16 / 8 = 2; its parameters 4,096 * 28,672 + 14,336 *
// 4,096 = 117,440,512 + 58,720,256 = 176,160,768 (at ep = 1, 8 of them:
// 1,409,286,144). T_l = 4,096 (tp 1), P_l = P_x = 2 * 4,096 = 8,192 pairs.
// The probabilities in the experts: forward 8,192 * 14,336 = 117,440,512
// multiplies plus 8,192 * 4,096 = 33,554,432 scatter-adds, 150,994,944;
// backward 3 * 117,440,512 = 352,321,536.
TEST(ExpertParallel, MixtralWorkedExampleShape) {
  ExpertParallelShape shape =
      shapeOf(mixtral(), mixtralTraining(), mixtralMapping());
  EXPECT_EQ(shape.localExperts, 1);
  EXPECT_EQ(shape.expertDataParallel, 2);
  EXPECT_EQ(shape.expertParameters, 176'160'768);
  EXPECT_EQ(shape.rankPairs, 8'192);
  EXPECT_EQ(shape.processedPairs, 8'192);
  EXPECT_EQ(shape.probabilityForwardOps, 150'994'944);
  EXPECT_EQ(shape.probabilityBackwardOps, 352'321'536);

  MappingSpec unsplit = mixtralMapping();
  unsplit.ep = 1;
  ExpertParallelShape whole = shapeOf(mixtral(), mixtralTraining(), unsplit);
  EXPECT_EQ(whole.localExperts, 8);
  EXPECT_EQ(whole.expertDataParallel, 16);
  EXPECT_EQ(whole.expertParameters, 1'409'286'144);
  // The experts process today's pairs, whatever ep.
  EXPECT_EQ(whole.processedPairs, shape.processedPairs);
}

// The stage figures of the worked example from the shape and today's
// per-block count: dense parameters per block = the ep = 1 block
// (blockParametersPerRank) less its 8 experts: q and o 2 * 4,096^2 =
// 33,554,432, k and v 2 * 4,096 * 1,024 = 8,388,608, two norms 8,192, the
// router 4,096 * 8 = 32,768, 41,984,000. A middle stage holds 32 / 4 = 8
// blocks: dense 335,872,000, experts 8 * 176,160,768 = 1,409,286,144.
// ZeRO-1 optimizer state (12 bytes per parameter) sharded over the block's
// groups: 12 * 335,872,000 / 16 + 12 * 1,409,286,144 / 2 = 251,904,000 +
// 8,455,716,864 = 8,707,620,864 bytes. Gradient reduction (fp32): dense
// 4 * 335,872,000 = 1,343,488,000 bytes over dp = 16, experts
// 4 * 1,409,286,144 = 5,637,144,576 bytes over d_e = 2.
TEST(ExpertParallel, MixtralWorkedExampleStage) {
  MappingSpec unsplit = mixtralMapping();
  unsplit.ep = 1;
  llvm::Expected<int64_t> block = blockParametersPerRank(mixtral(), unsplit);
  ASSERT_TRUE(bool(block)) << llvm::toString(block.takeError());
  ExpertParallelShape whole = shapeOf(mixtral(), mixtralTraining(), unsplit);
  int64_t dense = *block - whole.expertParameters;
  EXPECT_EQ(dense, 41'984'000);

  ExpertParallelShape shape =
      shapeOf(mixtral(), mixtralTraining(), mixtralMapping());
  int64_t blocksPerStage = mixtral().blocks / mixtralMapping().pp;
  int64_t stageDense = blocksPerStage * dense;
  int64_t stageExperts = blocksPerStage * shape.expertParameters;
  EXPECT_EQ(stageDense, 335'872'000);
  EXPECT_EQ(stageExperts, 1'409'286'144);
  EXPECT_EQ(2 * (stageDense + stageExperts), 3'490'316'288);
  EXPECT_EQ(12 * stageDense / mixtralMapping().dp +
                12 * stageExperts / shape.expertDataParallel,
            8'707'620'864);
  EXPECT_EQ(4 * stageDense, 1'343'488'000);
  EXPECT_EQ(4 * stageExperts, 5'637'144'576);
}

// The dispatcher of the worked example at tp 1, per MoE block and
// micro-batch: the counts all-gather over ep x tp = 8 ranks of E = 8 int64
// each, 8 * 8 * 8 = 512 bytes (448 sent); M_tok = 8,192 * 4,096 * 2 =
// 67,108,864 bytes, chunks of 8,388,608 to each of 8 ranks, 7 * 8,388,608 =
// 58,720,256 sent; M_prob = 8,192 * 2 = 16,384. All-to-alls forward
// 2 * 67,108,864 + 16,384 = 134,234,112 bytes, backward the same; per
// stage of 8 MoE blocks 1,073,872,896 each way. No TP collective at tp 1,
// no recommunication without full recompute.
TEST(ExpertParallel, MixtralWorkedExampleDispatch) {
  std::vector<ExpertParallelTransfer> transfers =
      dispatchOf(mixtral(), mixtralTraining(), mixtralMapping());
  EXPECT_EQ(tensorsOf(transfers, Phase::Forward),
            (std::vector<std::string>{"tokens_per_expert", "permuted_tokens",
                                      "permuted_probs", "combined_tokens"}));
  EXPECT_EQ(tensorsOf(transfers, Phase::ActivationGrad),
            (std::vector<std::string>{"d_combined_tokens", "d_permuted_probs",
                                      "d_permuted_tokens"}));
  EXPECT_TRUE(tensorsOf(transfers, Phase::Recommunication).empty());
  ASSERT_EQ(transfers.size(), 7u);
  const ExpertParallelTransfer &counts = transfers[0];
  EXPECT_EQ(counts.collective, CollectiveKind::AllGather);
  EXPECT_EQ(counts.axes, (std::vector<std::string>{"ep", "tp"}));
  EXPECT_EQ(counts.participants, 8);
  EXPECT_EQ(counts.messageBytes, 512);
  EXPECT_EQ(counts.sentBytes, 448);
  const ExpertParallelTransfer &tokens = transfers[1];
  EXPECT_EQ(tokens.collective, CollectiveKind::AllToAll);
  EXPECT_EQ(tokens.axes, std::vector<std::string>{"ep"});
  EXPECT_EQ(tokens.participants, 8);
  EXPECT_EQ(tokens.messageBytes, 67'108'864);
  EXPECT_EQ(tokens.sentBytes, 58'720'256);
  EXPECT_EQ(tokens.ops, 0);
  EXPECT_EQ(transfers[2].messageBytes, 16'384);
  EXPECT_EQ(transfers[3].messageBytes, 67'108'864);
  int64_t forward =
      bytesOver(transfers, Phase::Forward, CollectiveKind::AllToAll);
  int64_t backward =
      bytesOver(transfers, Phase::ActivationGrad, CollectiveKind::AllToAll);
  EXPECT_EQ(forward, 134'234'112);
  EXPECT_EQ(backward, 134'234'112);
  EXPECT_EQ(8 * forward, 1'073'872'896);
}

// tp 2 under sequence parallelism, ep 2, dp 4 on the small model: T = 512,
// T_l = 256, P_l = 2 * 256 = 512, P_x = 2 * 512 = 1,024 (today's k T).
// n_e = 4 experts of 1,024 * (2,048 / 2 + 1,024 / 2) = 1,572,864 parameters
// per rank, 6,291,456. Probabilities: f_t = 512; forward 1,024 * 512 +
// 512 * 1,024 = 1,048,576, backward 3 * 524,288 = 1,572,864. Messages (bf16):
// counts 2 * 2 * 8 * 8 = 256; M_tok = 512 * 1,024 * 2 = 1,048,576, M_prob =
// 1,024; the TP all-gathers k T h a = 2,097,152 and k T a = 2,048; the
// reduce-scatter of the expert outputs 2,097,152 (1,048,576 sent, one add
// per element of the shard: 1,048,576 / 2 = 524,288 = P_l h ops). Backward:
// the combine's all-to-all, the all-gather of the output gradient, the
// reduce-scatters of the probability (2,048 / 2 / 2 = 512 ops) and token
// (524,288 ops) gradients, the dispatch's two all-to-alls, probabilities
// first (Megatron's backward launch order, td.py token_dispatch).
TEST(ExpertParallel, TensorParallelSequenceParallelDispatch) {
  TrainingSpec training = mixtralTraining();
  MappingSpec mapping = smallMapping(/*tp=*/2, /*dp=*/4, /*ep=*/2);
  ExpertParallelShape shape = shapeOf(smallMoe(), training, mapping);
  EXPECT_EQ(shape.localExperts, 4);
  EXPECT_EQ(shape.expertDataParallel, 2);
  EXPECT_EQ(shape.expertParameters, 6'291'456);
  EXPECT_EQ(shape.rankPairs, 512);
  EXPECT_EQ(shape.processedPairs, 1'024);
  EXPECT_EQ(shape.probabilityForwardOps, 1'048'576);
  EXPECT_EQ(shape.probabilityBackwardOps, 1'572'864);

  std::vector<ExpertParallelTransfer> transfers =
      dispatchOf(smallMoe(), training, mapping);
  ASSERT_EQ(transfers.size(), 13u);
  std::vector<std::string> forward{"tokens_per_expert", "permuted_tokens",
                                   "permuted_probs",    "global_input_tokens",
                                   "global_probs",      "expert_output",
                                   "combined_tokens"};
  EXPECT_EQ(tensorsOf(transfers, Phase::Forward), forward);
  EXPECT_EQ(
      tensorsOf(transfers, Phase::ActivationGrad),
      (std::vector<std::string>{"d_combined_tokens", "d_expert_output",
                                "d_global_probs", "d_global_input_tokens",
                                "d_permuted_probs", "d_permuted_tokens"}));
  std::vector<int64_t> forwardBytes{256,   1'048'576, 1'024,    2'097'152,
                                    2'048, 2'097'152, 1'048'576};
  std::vector<int64_t> backwardBytes{1'048'576, 2'097'152, 2'048,
                                     2'097'152, 1'024,     1'048'576};
  std::vector<int64_t> backwardOps{0, 0, 512, 524'288, 0, 0};
  for (size_t i = 0; i < forwardBytes.size(); ++i)
    EXPECT_EQ(transfers[i].messageBytes, forwardBytes[i])
        << transfers[i].tensor;
  for (size_t i = 0; i < backwardBytes.size(); ++i) {
    const ExpertParallelTransfer &transfer = transfers[forward.size() + i];
    EXPECT_EQ(transfer.messageBytes, backwardBytes[i]) << transfer.tensor;
    EXPECT_EQ(transfer.ops, backwardOps[i]) << transfer.tensor;
  }
  const ExpertParallelTransfer &reduction = transfers[5];
  EXPECT_EQ(reduction.collective, CollectiveKind::ReduceScatter);
  EXPECT_EQ(reduction.axes, std::vector<std::string>{"tp"});
  EXPECT_EQ(reduction.participants, 2);
  EXPECT_EQ(reduction.sentBytes, 1'048'576);
  EXPECT_EQ(reduction.ops, 524'288);
  EXPECT_EQ(transfers[0].axes, (std::vector<std::string>{"ep", "tp"}));
  EXPECT_EQ(transfers[0].participants, 4);
}

// Full recompute reruns the block's whole forward, its seven collectives
// again as recommunication (13 + 7 = 20); selective recompute none.
TEST(ExpertParallel, FullRecomputeRecommunicatesTheForward) {
  MappingSpec mapping = smallMapping(2, 4, 2);
  mapping.recompute = RecomputePolicy::Full;
  std::vector<ExpertParallelTransfer> full =
      dispatchOf(smallMoe(), mixtralTraining(), mapping);
  EXPECT_EQ(full.size(), 20u);
  EXPECT_EQ(tensorsOf(full, Phase::Recommunication),
            tensorsOf(full, Phase::Forward));
  mapping.recompute = RecomputePolicy::Selective;
  EXPECT_EQ(dispatchOf(smallMoe(), mixtralTraining(), mapping).size(), 13u);
}

// Under a capacity factor of 50% (tp 1, T = 512): one router call of
// 2 * 512 = 1,024 pairs, capacity ceil(50 * 1,024 / (100 * 8)) = 64 per
// expert against a load of 128: P_l = 8 * 64 = 512 kept pairs, M_tok =
// 512 * 1,024 * 2 = 1,048,576 bytes. At ep = 1 the shape is today's and
// there is no all-to-all.
TEST(ExpertParallel, CapacityDropsShrinkTheMessages) {
  ModelSpec model = smallMoe();
  model.moe->capacityFactorPercent = 50;
  MappingSpec mapping = smallMapping(1, 2, 2);
  ExpertParallelShape shape = shapeOf(model, mixtralTraining(), mapping);
  EXPECT_EQ(shape.rankPairs, 512);
  EXPECT_EQ(shape.processedPairs, 512);
  std::vector<ExpertParallelTransfer> transfers =
      dispatchOf(model, mixtralTraining(), mapping);
  ASSERT_EQ(transfers.size(), 7u);
  EXPECT_EQ(transfers[1].messageBytes, 1'048'576);
  EXPECT_TRUE(
      dispatchOf(model, mixtralTraining(), smallMapping(1, 2, 1)).empty());
}

// Every precondition names its rule.
TEST(ExpertParallel, PreconditionsNameTheirRules) {
  ModelSpec dense = smallMoe();
  dense.moe.reset();
  EXPECT_NE(shapeError(dense, smallMapping(1, 2, 2)).find("expert_parallel_c2"),
            std::string::npos);
  EXPECT_NE(shapeError(smallMoe(), smallMapping(1, 2, 4))
                .find("[expert_parallel_c1] dp = 2 is not divisible by ep = 4"),
            std::string::npos);
  ModelSpec sixExperts = smallMoe();
  sixExperts.moe->experts = 6;
  EXPECT_NE(shapeError(sixExperts, smallMapping(1, 4, 4))
                .find("[expert_parallel_c3] experts = 6"),
            std::string::npos);
  MappingSpec contextParallel = smallMapping(1, 2, 2);
  contextParallel.cp = 2;
  EXPECT_NE(shapeError(smallMoe(), contextParallel)
                .find("[expert_parallel_c5] cp = 2 with ep = 2"),
            std::string::npos);
  MappingSpec allReduce = smallMapping(2, 2, 2);
  allReduce.tpComm = TPCommMode::AllReduce;
  EXPECT_NE(shapeError(smallMoe(), allReduce).find("[decoder_moe_c2]"),
            std::string::npos);
  // E = 6 over ep = 3 (dp 3): P_l = 2 * 512 = 1,024 pairs, 1,024 = 3 * 341
  // + 1, not divisible (the all-to-all's chunks would differ).
  EXPECT_NE(shapeError(sixExperts, smallMapping(1, 3, 3))
                .find("[expert_parallel_c7] the rank's kept token-expert "
                      "pairs P_l = 1024 (experts_per_token 2 * micro_batch 1 "
                      "* seq_length 512 / tp 1), the rows of its all-to-alls "
                      "over ep, are not divisible by ep = 3"),
            std::string::npos);
}

// The block tasks at ep > 1 call the closed forms: the worked Mixtral
// example's MoE block (TP 1, EP 8) per micro-batch on one rank.
TEST(ExpertParallel, MixtralBlockTasksCarryTheWorkedExamplesFigures) {
  ModelSpec model = mixtral();
  llvm::Expected<BlockWork> work =
      deriveBlockWork(model, mixtralTraining(), mixtralMapping());
  ASSERT_TRUE(static_cast<bool>(work)) << llvm::toString(work.takeError());
  auto message = [&](llvm::StringRef primitive, Phase phase) -> int64_t {
    const Invocation *found = work->find(primitive, phase);
    if (!found || !found->collective)
      return -1;
    return found->collective->messageBytes;
  };
  auto ops = [&](llvm::StringRef primitive, Phase phase) -> int64_t {
    const Invocation *found = work->find(primitive, phase);
    return found ? found->ops : -1;
  };
  // P_l = 2 * 4,096 = 8,192 pairs; M_tok = 8,192 * 4,096 * 2 = 67,108,864 B,
  // M_prob = 8,192 * 2 = 16,384 B, both ways.
  EXPECT_EQ(message("moe_dispatch", Phase::Forward), 67108864);
  EXPECT_EQ(message("moe_dispatch_probs", Phase::Forward), 16384);
  EXPECT_EQ(message("moe_combine_exchange", Phase::Forward), 67108864);
  EXPECT_EQ(message("moe_combine_exchange", Phase::ActivationGrad), 67108864);
  EXPECT_EQ(message("moe_dispatch", Phase::ActivationGrad), 67108864);
  EXPECT_EQ(message("moe_dispatch_probs", Phase::ActivationGrad), 16384);
  // Counts: ep tp E 8 = 8 * 1 * 8 * 8 = 512 B.
  EXPECT_EQ(message("moe_token_counts", Phase::Forward), 512);
  const Invocation *dispatch = work->find("moe_dispatch", Phase::Forward);
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->collective->axis, "ep");
  EXPECT_EQ(dispatch->collective->participants, 8);
  // No TP collective at tp = 1, and no all-gather dispatcher.
  EXPECT_EQ(work->find("moe_dispatch_tp_gather", Phase::Forward), nullptr);
  EXPECT_EQ(work->find("moe_combine", Phase::Forward), nullptr);
  // Expert FLOPs as at ep = 1: 2 * 8,192 * 4,096 * 28,672.
  EXPECT_EQ(ops("expert_fc1", Phase::Forward),
            int64_t{2} * 8192 * 4096 * 28672);
  // One expert's weights read: 1 * 4,096 * 28,672 bf16 = 234,881,024 B.
  const Invocation *fc1 = work->find("expert_fc1", Phase::Forward);
  ASSERT_NE(fc1, nullptr);
  EXPECT_EQ(fc1->reads.at(1).bytes, int64_t{4096} * 28672 * 2);
  // Probabilities: forward 8,192 * 14,336 = 117,440,512 in the experts and
  // 8,192 * 4,096 = 33,554,432 in the unpermute; backward 3 * 117,440,512
  // = 352,321,536.
  EXPECT_EQ(ops("expert_probs", Phase::Forward), 117440512);
  EXPECT_EQ(ops("moe_unpermute", Phase::Forward), 33554432);
  EXPECT_EQ(ops("expert_probs", Phase::ActivationGrad), 352321536);
}

/// The bytes `invocation` reads (or writes) of `tensor`; -1 when it does
/// not access it.
static int64_t accessBytes(const Invocation *invocation, llvm::StringRef tensor,
                           bool writes) {
  if (!invocation)
    return -1;
  for (const TensorAccess &access :
       writes ? invocation->writes : invocation->reads)
    if (access.tensor == tensor)
      return access.bytes;
  return -1;
}

// The routing probabilities' chain at ep > 1 (review s33 finding 1): the
// permute selects each kept pair's probability (Megatron's permute(...,
// probs=)), the experts read it, and the backward returns its gradient to
// the router. Worked example, bf16 activations: T_l = 4,096 tokens, E = 8:
// routing_probs 4,096 * 8 * 2 = 65,536 B; P_l = 8,192 pairs:
// permuted_probs 8,192 * 2 = 16,384 B (P_x = P_l at tp = 1).
TEST(ExpertParallel, RoutingProbabilitiesFlowThroughThePermute) {
  llvm::Expected<BlockWork> work =
      deriveBlockWork(mixtral(), mixtralTraining(), mixtralMapping());
  ASSERT_TRUE(static_cast<bool>(work)) << llvm::toString(work.takeError());
  const Invocation *permute = work->find("moe_permute", Phase::Forward);
  EXPECT_EQ(accessBytes(permute, "routing_probs", /*writes=*/false), 65536);
  EXPECT_EQ(accessBytes(permute, "permuted_probs", /*writes=*/true), 16384);
  EXPECT_EQ(accessBytes(work->find("expert_probs", Phase::Forward),
                        "permuted_probs", /*writes=*/false),
            16384);
  EXPECT_EQ(accessBytes(work->find("expert_probs", Phase::ActivationGrad),
                        "d_permuted_probs", /*writes=*/true),
            16384);
  const Invocation *permuteGrad =
      work->find("moe_permute", Phase::ActivationGrad);
  EXPECT_EQ(accessBytes(permuteGrad, "d_permuted_probs", /*writes=*/false),
            16384);
  EXPECT_EQ(accessBytes(permuteGrad, "d_routing_probs", /*writes=*/true),
            65536);
  // A scatter, one pair per (token, expert) slot: no operation added to the
  // token gradient's scatter-add, 8,192 * 4,096 = 33,554,432.
  ASSERT_NE(permuteGrad, nullptr);
  EXPECT_EQ(permuteGrad->ops, 33554432);
  EXPECT_EQ(accessBytes(work->find("router_topk", Phase::ActivationGrad),
                        "d_routing_probs", /*writes=*/false),
            65536);
}

// A routed expert GEMM at ep > 1 is one group of the n_e local experts with
// the balanced P_x / n_e rows (ExpertParallelShape::expertLoads). Worked
// example: n_e = 1, P_x = 8,192: fc1 [1, 8,192, 28,672, 4,096] (N = 2 f
// under SwiGLU, K = h), fc2 [1, 8,192, 4,096, 14,336]. Small MoE at ep 2,
// tp 1: n_e = 4, P_x = 2 * 512 = 1,024, 256 rows each: fc1 [4, 256, 2,048,
// 1,024], and 2 * 4 * 256 * 2,048 * 1,024 ops = the 2 * 1,024 * 2,048 *
// 1,024 of one group of all the pairs.
TEST(ExpertParallel, RoutedExpertGemmsAreOneGroupOfTheLocalExperts) {
  llvm::Expected<BlockWork> work =
      deriveBlockWork(mixtral(), mixtralTraining(), mixtralMapping());
  ASSERT_TRUE(static_cast<bool>(work)) << llvm::toString(work.takeError());
  const Invocation *fc1 = work->find("expert_fc1", Phase::Forward);
  ASSERT_NE(fc1, nullptr);
  EXPECT_EQ(fc1->gemms, (std::vector<MatmulShape>{{1, 8192, 28672, 4096}}));
  const Invocation *fc2 = work->find("expert_fc2", Phase::Forward);
  ASSERT_NE(fc2, nullptr);
  EXPECT_EQ(fc2->gemms, (std::vector<MatmulShape>{{1, 8192, 4096, 14336}}));

  llvm::Expected<ExpertParallelShape> small =
      expertParallelShape(smallMoe(), mixtralTraining(), smallMapping(1, 2, 2));
  ASSERT_TRUE(static_cast<bool>(small)) << llvm::toString(small.takeError());
  ASSERT_EQ(small->expertLoads.size(), 1u);
  EXPECT_EQ(small->expertLoads[0].experts, 4);
  EXPECT_EQ(small->expertLoads[0].rows, 256);
  llvm::Expected<BlockWork> smallWork =
      deriveBlockWork(smallMoe(), mixtralTraining(), smallMapping(1, 2, 2));
  ASSERT_TRUE(static_cast<bool>(smallWork))
      << llvm::toString(smallWork.takeError());
  const Invocation *smallFc1 = smallWork->find("expert_fc1", Phase::Forward);
  ASSERT_NE(smallFc1, nullptr);
  EXPECT_EQ(smallFc1->gemms, (std::vector<MatmulShape>{{4, 256, 2048, 1024}}));
  EXPECT_EQ(smallFc1->ops, int64_t{2} * 4 * 256 * 2048 * 1024);
}

// At tp = 2 under full recompute the block's dispatcher collectives are,
// in order, exactly expertParallelDispatch's 20 (7 forward, 7
// recommunication, 6 backward): same phase, message and outer axis; and
// the all-gather dispatcher's TP collectives are gone.
TEST(ExpertParallel, BlockCollectivesAreTheDispatchers) {
  MappingSpec mapping = smallMapping(2, 4, 2);
  mapping.recompute = RecomputePolicy::Full;
  std::vector<ExpertParallelTransfer> transfers =
      dispatchOf(smallMoe(), mixtralTraining(), mapping);
  llvm::Expected<BlockWork> work =
      deriveBlockWork(smallMoe(), mixtralTraining(), mapping);
  ASSERT_TRUE(static_cast<bool>(work)) << llvm::toString(work.takeError());
  std::vector<std::string> dispatcher{"moe_token_counts",
                                      "moe_dispatch",
                                      "moe_dispatch_probs",
                                      "moe_dispatch_tp_gather",
                                      "moe_dispatch_probs_tp_gather",
                                      "moe_combine_tp_reduce_scatter",
                                      "moe_combine_exchange"};
  std::vector<std::tuple<Phase, int64_t, std::string>> emitted;
  for (const Invocation &invocation : work->invocations) {
    EXPECT_NE(invocation.primitive, "routing_probs_tp_f");
    EXPECT_NE(invocation.primitive, "routing_map_tp_f");
    EXPECT_NE(invocation.primitive, "mlp_tp_g");
    if (invocation.collective &&
        llvm::is_contained(dispatcher, invocation.primitive))
      emitted.emplace_back(invocation.phase,
                           invocation.collective->messageBytes,
                           invocation.collective->axis);
  }
  std::vector<std::tuple<Phase, int64_t, std::string>> derived;
  for (const ExpertParallelTransfer &transfer : transfers)
    derived.emplace_back(transfer.phase, transfer.messageBytes,
                         transfer.axes.front());
  // The block emits the recomputed forward after the forward and before
  // the backward, as expertParallelDispatch lists it.
  EXPECT_EQ(emitted, derived);
}

// The worked example's gradient groups and ZeRO-1 state on a middle stage
// (stage 1: 32 / 4 = 8 MoE blocks, no edges). Per block the rank holds the
// dense 41,984,000 (q, o 2 * 4,096^2 = 33,554,432; k, v 2 * 4,096 * 1,024 =
// 8,388,608; two norms 8,192; router 4,096 * 8 = 32,768) and n_e = 1
// expert's 176,160,768; per stage 8 * 41,984,000 = 335,872,000 dense and
// 8 * 176,160,768 = 1,409,286,144 expert parameters, one bucket each
// (bucket_bytes 0), padded to dp = 16 (335,872,000 = 16 * 20,992,000) and
// to edp = 16 / 8 = 2. Gradient reductions (fp32): dense 335,872,000 * 4 =
// 1,343,488,000 B over ["edp", "ep"] (16 ranks), expert 1,409,286,144 * 4 =
// 5,637,144,576 B over ["edp"] (2 ranks); the parameter all-gathers (bf16)
// 671,744,000 B over 16 and 2,818,572,288 B over 2. Memory: weights
// (335,872,000 + 1,409,286,144) * 2 = 3,490,316,288 B; gradients * 4 =
// 6,980,632,576 B; optimizer state 12 * (335,872,000 / 16 + 1,409,286,144 /
// 2) = 12 * (20,992,000 + 704,643,072) = 8,707,620,864 B.
TEST(ExpertParallel, MixtralWorkedExampleGradientGroupsAndZeRO) {
  ModelSpec model = mixtral();
  MappingSpec mapping = mixtralMapping();
  llvm::Expected<int64_t> expertParameters =
      blockExpertParametersPerRank(model, BlockKind::Expert, mapping);
  ASSERT_TRUE(static_cast<bool>(expertParameters))
      << llvm::toString(expertParameters.takeError());
  EXPECT_EQ(*expertParameters, 176'160'768);
  llvm::Expected<int64_t> blockParameters =
      blockParametersPerRank(model, BlockKind::Expert, mapping);
  ASSERT_TRUE(static_cast<bool>(blockParameters))
      << llvm::toString(blockParameters.takeError());
  EXPECT_EQ(*blockParameters, 41'984'000 + 176'160'768);

  llvm::Expected<WholeRun> run =
      deriveRunParts(model, mixtralTraining(), mapping);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const StageProgram &stage = run->stages.at(1);
  EXPECT_EQ(stage.parameters, 1'745'158'144);
  EXPECT_EQ(stage.bucketElements, std::vector<int64_t>{335'872'000});
  EXPECT_EQ(stage.expertBucketElements, std::vector<int64_t>{1'409'286'144});
  std::vector<std::tuple<std::string, int64_t, int64_t, std::string,
                         std::vector<std::string>>>
      collectives;
  for (const RunStep &step : stage.steps)
    if (const auto *work = std::get_if<RunWork>(&step.action))
      if (work->invocation->collective)
        collectives.emplace_back(work->invocation->primitive,
                                 work->invocation->collective->participants,
                                 work->invocation->collective->messageBytes,
                                 work->axis,
                                 work->invocation->collective->innerAxes);
  using Row = std::tuple<std::string, int64_t, int64_t, std::string,
                         std::vector<std::string>>;
  EXPECT_EQ(collectives,
            (std::vector<Row>{
                {"dp_grad_reduce_scatter", 16, 1'343'488'000, "edp", {"ep"}},
                {"dp_grad_reduce_scatter", 2, 5'637'144'576, "edp", {}},
                {"dp_param_all_gather", 16, 671'744'000, "edp", {"ep"}},
                {"dp_param_all_gather", 2, 2'818'572'288, "edp", {}}}));
  OverflowGuard guard;
  PersistentBytes bytes =
      persistentBytesOf(stage, mapping, mixtralTraining(), std::nullopt, guard);
  ASSERT_FALSE(guard.failed());
  EXPECT_EQ(bytes.weights, 3'490'316'288);
  EXPECT_EQ(bytes.gradients, 6'980'632'576);
  EXPECT_EQ(bytes.optimizerState, 8'707'620'864);
}

// ZeRO-1 at edp = 1 (world 32: dp 8 = ep): the expert gradients have no
// reduction and their optimizer state no shards; the dense ones still
// reduce over all 8 data-parallel ranks.
TEST(ExpertParallel, ExpertStateUnshardedAtOneExpertDataParallelRank) {
  MappingSpec mapping = mixtralMapping();
  mapping.dp = 8;
  mapping.world = 32;
  llvm::Expected<WholeRun> run =
      deriveRunParts(mixtral(), mixtralTraining(), mapping);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const StageProgram &stage = run->stages.at(1);
  std::vector<int64_t> participants;
  for (const RunStep &step : stage.steps)
    if (const auto *work = std::get_if<RunWork>(&step.action))
      if (work->invocation->collective)
        participants.push_back(work->invocation->collective->participants);
  EXPECT_EQ(participants, (std::vector<int64_t>{8, 8}));
  OverflowGuard guard;
  PersistentBytes bytes =
      persistentBytesOf(stage, mapping, mixtralTraining(), std::nullopt, guard);
  // 12 * (335,872,000 / 8 + 1,409,286,144) = 12 * 1,451,270,144.
  EXPECT_EQ(bytes.optimizerState, int64_t{12} * 1'451'270'144);
}

// The dispatcher's chain is one tensor per name (review s34/ep3, finding
// 2): workingSetBytes follows a tensor by its name, so every collective of
// the dispatcher must carry a tensor an earlier invocation of its pass
// wrote and a later one reads - the permute's permuted_tokens through the
// all-to-all and the TP all-gather into fc1, fc2's expert_out through the
// reduce-scatter and the all-to-all into the unpermute, and their
// gradients back. At tp 1 (the worked example) and at tp 2 with sequence
// parallelism (the small model at ep 2), forward and backward.
TEST(ExpertParallel, DispatcherCollectivesCarryTheChainsTensors) {
  auto checkChain = [](const BlockWork &work, Phase phase) {
    std::vector<const Invocation *> pass;
    for (const Invocation &invocation : work.invocations)
      if (invocation.phase == phase)
        pass.push_back(&invocation);
    size_t collectives = 0;
    for (auto [position, invocation] : llvm::enumerate(pass)) {
      if (!invocation->collective ||
          !llvm::StringRef(invocation->primitive).starts_with("moe_") ||
          invocation->primitive == "moe_token_counts")
        continue;
      ++collectives;
      EXPECT_EQ(invocation->reads.size(), 1u) << invocation->primitive;
      if (invocation->reads.empty())
        continue;
      const std::string &tensor = invocation->reads.front().tensor;
      auto touches = [&](const Invocation *other, bool writes) {
        return llvm::any_of(writes ? other->writes : other->reads,
                            [&](const TensorAccess &access) {
                              return access.tensor == tensor;
                            });
      };
      auto before = llvm::ArrayRef(pass).take_front(position);
      auto after = llvm::ArrayRef(pass).drop_front(position + 1);
      EXPECT_TRUE(llvm::any_of(
          before,
          [&](const Invocation *other) { return touches(other, true); }))
          << invocation->primitive << " carries '" << tensor
          << "', which nothing before it writes";
      EXPECT_TRUE(llvm::any_of(
          after,
          [&](const Invocation *other) { return touches(other, false); }))
          << invocation->primitive << " carries '" << tensor
          << "', which nothing after it reads";
    }
    return collectives;
  };
  llvm::Expected<BlockWork> worked =
      deriveBlockWork(mixtral(), mixtralTraining(), mixtralMapping());
  ASSERT_TRUE(static_cast<bool>(worked)) << llvm::toString(worked.takeError());
  // tp 1: three all-to-alls forward (tokens, probabilities, combine) and
  // three backward.
  EXPECT_EQ(checkChain(*worked, Phase::Forward), 3u);
  EXPECT_EQ(checkChain(*worked, Phase::ActivationGrad), 3u);
  llvm::Expected<BlockWork> small =
      deriveBlockWork(smallMoe(), mixtralTraining(),
                      smallMapping(/*tp=*/2, /*dp=*/4, /*ep=*/2));
  ASSERT_TRUE(static_cast<bool>(small)) << llvm::toString(small.takeError());
  // tp 2: and the two TP all-gathers and the reduce-scatter, each way.
  EXPECT_EQ(checkChain(*small, Phase::Forward), 6u);
  EXPECT_EQ(checkChain(*small, Phase::ActivationGrad), 6u);
}

// A model whose first blocks are dense (first_dense_blocks = 2 of 4)
// splits its experts at ep > 1 like any MoE model: the expert-parallel
// shape checks the MoE rules over the model's 4 blocks (over one block,
// first_dense_blocks = 2 would leave none with experts,
// transformer_model_c15), and a dense block's work and optimizer work
// derive from the whole model's composition (the dense block alone is not
// a model with experts, expert_parallel_c2). Small MoE at ep 2, dp 2: 8 / 2
// = 4 local experts.
TEST(ExpertParallel, FirstDenseBlocksSplitTheirExperts) {
  ModelSpec model = smallMoe();
  model.moe->firstDenseBlocks = 2;
  MappingSpec mapping = smallMapping(/*tp=*/1, /*dp=*/2, /*ep=*/2);
  llvm::Expected<ExpertParallelShape> shape =
      expertParallelShape(model, mixtralTraining(), mapping);
  ASSERT_TRUE(static_cast<bool>(shape)) << llvm::toString(shape.takeError());
  EXPECT_EQ(shape->localExperts, 4);
  for (BlockKind kind : {BlockKind::Dense, BlockKind::Expert}) {
    llvm::Expected<BlockWork> block =
        deriveBlockWork(model, kind, mixtralTraining(), mapping);
    EXPECT_TRUE(static_cast<bool>(block)) << llvm::toString(block.takeError());
    llvm::Expected<BlockWork> step =
        deriveOptimizerWork(model, kind, mixtralTraining(), mapping);
    EXPECT_TRUE(static_cast<bool>(step)) << llvm::toString(step.takeError());
  }
}
