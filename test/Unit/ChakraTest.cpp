//===- ChakraTest.cpp - Chakra traces against the work summary ------------===//
//
// Exports whole-run programs (small runs with pp, dp and tp > 1, and the
// bundled GPT-3 175B example), decodes every trace with the classes protoc
// generates from the vendored et_def.proto, and checks them against what
// --work-summary reads off the same program: per rank, the compute and
// collective nodes are the stage's invocations, their num_ops its
// operations, the collectives' comm_size its message bytes, the sends and
// receives its pipeline messages; over every rank, the totals are the
// iteration's; every send has one receive (peer, tag, size); every
// dependency names an earlier node (the nodes form a DAG), and the
// dependencies are the program's `after` tokens (within and across blocks,
// into sends, out of receives); collectives over one process group agree
// on every member, and no group is id 0 (ASTRA-sim's default group); and a
// rank's trace is the same whichever selection writes it, and whether the
// program is compact or expanded.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Chakra/ChakraExport.h"
#include "Blueprint/Import/Import.h"
#include "Blueprint/InitAll.h"
#include "Blueprint/Interfaces/WorkFactsInterface.h"
#include "Blueprint/Transforms/Passes.h"
#include "Blueprint/Transforms/WorkTotals.h"

#include "SmallRuns.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "et_def.pb.h"
#include <google/protobuf/io/coded_stream.h>

#include "gtest/gtest.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace blueprint;

namespace {

struct DecodedTrace {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

/// Reads a trace as Chakra's decodeMessage does: a GlobalMetadata, then
/// Nodes to the end, each after its size as a varint.
std::optional<DecodedTrace> decode(llvm::StringRef bytes) {
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  auto readMessage = [&](google::protobuf::MessageLite &message) {
    uint32_t size = 0;
    if (!input.ReadVarint32(&size))
      return false;
    auto limit = input.PushLimit(static_cast<int>(size));
    bool parsed =
        message.ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
    input.PopLimit(limit);
    return parsed;
  };
  DecodedTrace trace;
  if (!readMessage(trace.metadata))
    return std::nullopt;
  while (input.CurrentPosition() < static_cast<int>(bytes.size()))
    if (!readMessage(trace.nodes.emplace_back()))
      return std::nullopt;
  return trace;
}

const ChakraProtoMsg::AttributeProto *
attribute(const ChakraProtoMsg::Node &node, llvm::StringRef name) {
  for (const ChakraProtoMsg::AttributeProto &attr : node.attr())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t metadataValue(const ChakraProtoMsg::GlobalMetadata &metadata,
                      llvm::StringRef name) {
  for (const ChakraProtoMsg::AttributeProto &attr : metadata.attr())
    if (attr.name() == name)
      return attr.int64_val();
  ADD_FAILURE() << "no metadata attribute " << name.str();
  return -1;
}

/// What the traces of one rank add up to.
struct TraceTotals {
  int64_t compute = 0, collectives = 0, sends = 0, receives = 0;
  int64_t ops = 0, collectiveBytes = 0, sentBytes = 0, receivedBytes = 0;
};

/// A pipeline message as both ends name it.
using Message = std::tuple<int32_t, int32_t, int32_t, int64_t>;

class ChakraTest : public ::testing::Test {
protected:
  ChakraTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The whole-run program of a JSON spec.
  dist::ProgramOp wholeRun(llvm::StringRef specJSON) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(specJSON, "spec.json"),
        llvm::SMLoc());
    module = importTransformerJSON(sourceMgr, &context);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    DistributeTransformerOptions options;
    options.scope = "iteration";
    pm.addPass(createDistributeTransformer(options));
    if (failed(pm.run(*module)))
      return nullptr;
    return *module->getBody()->getOps<dist::ProgramOp>().begin();
  }

  /// Every trace of `selection`, by rank.
  std::map<int64_t, std::string> exportAll(dist::ProgramOp program,
                                           chakra::RankSelection selection,
                                           chakra::ExportSummary &summary) {
    std::map<int64_t, std::string> traces;
    summary = test::valueOrFail(chakra::exportTraces(
        program, selection, [&](int64_t rank, llvm::StringRef trace) {
          traces.emplace(rank, trace.str());
          return llvm::Error::success();
        }));
    return traces;
  }

  /// Checks one decoded trace's structure and returns its totals.
  TraceTotals check(const DecodedTrace &trace, int64_t rank,
                    const chakra::ProcessGroups &groups,
                    std::vector<Message> &sent,
                    std::vector<Message> &received) {
    TraceTotals totals;
    EXPECT_EQ(trace.metadata.version(), "0.0.4");
    EXPECT_EQ(metadataValue(trace.metadata, "rank"), rank);
    for (auto [index, node] : llvm::enumerate(trace.nodes)) {
      EXPECT_EQ(node.id(), index);
      EXPECT_TRUE(node.ctrl_deps().empty());
      // Every dependency is an earlier node: the ids exist and the graph is
      // acyclic.
      for (uint64_t dep : node.data_deps())
        EXPECT_LT(dep, node.id()) << node.name();
      const ChakraProtoMsg::AttributeProto *cpu = attribute(node, "is_cpu_op");
      EXPECT_TRUE(cpu && !cpu->bool_val()) << node.name();
      const ChakraProtoMsg::AttributeProto *size = attribute(node, "comm_size");
      switch (node.type()) {
      case ChakraProtoMsg::COMP_NODE: {
        ++totals.compute;
        totals.ops += attribute(node, "num_ops")->int64_val();
        EXPECT_EQ(
            attribute(node, "tensor_size")->uint64_val(),
            static_cast<uint64_t>(attribute(node, "read_bytes")->int64_val() +
                                  attribute(node, "write_bytes")->int64_val()));
        break;
      }
      case ChakraProtoMsg::COMM_COLL_NODE: {
        ++totals.collectives;
        totals.ops += attribute(node, "num_ops")->int64_val();
        totals.collectiveBytes += size->int64_val();
        const std::string &pgName = attribute(node, "pg_name")->string_val();
        // ASTRA-sim runs a collective whose pg_name is "" or "0" over every
        // rank.
        EXPECT_NE(pgName, "") << node.name();
        EXPECT_NE(pgName, "0") << node.name();
        int64_t group = std::stoll(pgName);
        EXPECT_TRUE(groups.count(group) &&
                    llvm::is_contained(groups.at(group), rank))
            << node.name();
        collectivesByGroup[group][rank].emplace_back(
            attribute(node, "comm_type")->int64_val(), size->int64_val());
        break;
      }
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE: {
        bool send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
        Message message{attribute(node, "comm_src")->int32_val(),
                        attribute(node, "comm_dst")->int32_val(),
                        attribute(node, "comm_tag")->int32_val(),
                        size->int64_val()};
        EXPECT_EQ(send ? std::get<0>(message) : std::get<1>(message), rank);
        (send ? sent : received).push_back(message);
        (send ? totals.sends : totals.receives) += 1;
        (send ? totals.sentBytes : totals.receivedBytes) += size->int64_val();
        break;
      }
      default:
        ADD_FAILURE() << "unexpected node type in " << node.name();
      }
    }
    return totals;
  }

  /// Exports `program` with `selection` and checks every trace against
  /// --work-summary's totals; returns the traces.
  std::map<int64_t, std::string>
  exportAndCheck(dist::ProgramOp program, chakra::RankSelection selection) {
    FailureOr<ProgramTotals> summary = summarizeProgram(program);
    EXPECT_TRUE(succeeded(summary));
    if (failed(summary))
      return {};
    const IterationTotals &iteration = *summary->iteration;
    chakra::ExportSummary exported;
    std::map<int64_t, std::string> traces =
        exportAll(program, selection, exported);
    // The groups are numbered 1, 2, ...: ASTRA-sim reserves id 0 for the
    // default group over every rank.
    int64_t expectedId = 1;
    for (const auto &group : exported.groups)
      EXPECT_EQ(group.first, expectedId++);
    std::vector<Message> sent, received;
    collectivesByGroup.clear();
    // Over every rank: each stage's per-rank totals times its tp x dp
    // ranks, as --work-summary's "iteration" states them.
    llvm::APInt ops(128, 0), messageBytes(128, 0), invocations(128, 0),
        pipelineBytes(128, 0), pipelineMessages(128, 0);
    for (const auto &[rank, bytes] : traces) {
      std::optional<DecodedTrace> trace = decode(bytes);
      EXPECT_TRUE(trace.has_value()) << "rank " << rank;
      if (!trace)
        continue;
      TraceTotals totals = check(*trace, rank, exported.groups, sent, received);
      int64_t stage = metadataValue(trace->metadata, "stage");
      const workload::StageTotals &expected = summary->stages.at(stage);
      EXPECT_EQ(totals.ops, expected.work.total().ops) << "rank " << rank;
      EXPECT_EQ(totals.compute + totals.collectives,
                expected.work.total().invocations);
      EXPECT_EQ(totals.collectives,
                expected.work.of(workload::Engine::Collective).invocations);
      EXPECT_EQ(totals.collectiveBytes, expected.work.total().messageBytes);
      EXPECT_EQ(totals.sends, expected.messagesSent);
      EXPECT_EQ(totals.sentBytes, expected.bytesSent);
      EXPECT_EQ(totals.receives, expected.messagesReceived);
      EXPECT_EQ(totals.receivedBytes, expected.bytesReceived);
      // A representative stands for its stage's tp x dp ranks.
      uint64_t times = selection == chakra::RankSelection::All
                           ? 1
                           : static_cast<uint64_t>(iteration.ranks);
      ops += llvm::APInt(128, totals.ops) * times;
      messageBytes += llvm::APInt(128, totals.collectiveBytes) * times;
      invocations +=
          llvm::APInt(128, totals.compute + totals.collectives) * times;
      pipelineBytes += llvm::APInt(128, totals.sentBytes) * times;
      pipelineMessages += llvm::APInt(128, totals.sends) * times;
    }
    EXPECT_EQ(ops, iteration.total[3]);
    EXPECT_EQ(messageBytes, iteration.total[1]);
    EXPECT_EQ(invocations, iteration.total[0]);
    EXPECT_EQ(pipelineBytes, iteration.pipelineBytes);
    EXPECT_EQ(pipelineMessages, iteration.pipelineMessages);
    if (selection == chakra::RankSelection::All) {
      // Every send has exactly one receive of the same peers, tag and size.
      llvm::sort(sent);
      llvm::sort(received);
      EXPECT_EQ(sent, received);
      EXPECT_EQ(std::adjacent_find(sent.begin(), sent.end()), sent.end());
      // Every member of a group runs the same collectives over it, in the
      // same order, and every member has a trace.
      for (const auto &[group, byRank] : collectivesByGroup) {
        EXPECT_EQ(byRank.size(), exported.groups.at(group).size())
            << "group " << group;
        for (const auto &[rank, collectives] : byRank)
          EXPECT_EQ(collectives, byRank.begin()->second)
              << "group " << group << " rank " << rank;
      }
    }
    return traces;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  /// (comm_type, comm_size) of each collective, by group and rank.
  std::map<int64_t, std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>>>
      collectivesByGroup;
};

/// A small run on pp 4, dp 2, tp 2 (16 ranks): 8 blocks, 4 micro-batches
/// per DP rank, as docs/WholeRun.md's examples.
std::string smallSpec(llvm::StringRef schedule, int64_t virtualStages,
                      int64_t zeroStage) {
  return (R"({"name": "small", "model": {"hidden": 64, "heads": 4,
    "ffn_hidden": 256, "seq_length": 32, "vocab": 128, "blocks": 8,
    "norm": "layernorm", "activation": "gelu"},
    "training": {"global_batch": 16, "micro_batch": 2,
    "activation_type": "bf16", "weight_type": "bf16",
    "gradient_type": "f32", "optimizer_state_type": "f32"},
    "mapping": {"tp": 2, "pp": 4, "dp": 2, "virtual_stages": )" +
          llvm::Twine(virtualStages) + R"(, "tp_comm": "all_reduce",
    "recompute": "none", "zero_stage": )" +
          llvm::Twine(zeroStage) + R"(, "schedule": ")" + schedule + R"("}})")
      .str();
}

TEST_F(ChakraTest, EveryRankAgreesWithTheWorkSummary) {
  for (auto [schedule, v, zero] :
       {std::make_tuple("one_f_one_b", 1, 0),
        std::make_tuple("interleaved_one_f_one_b", 2, 1),
        std::make_tuple("zero_bubble_h1", 1, 3)}) {
    SCOPED_TRACE(std::string(schedule) + " zero " + std::to_string(zero));
    dist::ProgramOp program = wholeRun(smallSpec(schedule, v, zero));
    ASSERT_TRUE(program);
    std::map<int64_t, std::string> all =
        exportAndCheck(program, chakra::RankSelection::All);
    EXPECT_EQ(all.size(), 16u);
    // A stage's representative is its lowest rank, with the same trace.
    std::map<int64_t, std::string> representatives =
        exportAndCheck(program, chakra::RankSelection::OnePerStage);
    EXPECT_EQ(representatives.size(), 4u);
    for (const auto &[rank, trace] : representatives) {
      EXPECT_EQ(rank % 4, 0);
      EXPECT_EQ(trace, all.at(rank)) << "rank " << rank;
    }
    // The expanded form (--expand-whole-run) holds the same work and
    // dependencies: the same traces.
    PassManager pm(&context);
    pm.addPass(createExpandWholeRun());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    chakra::ExportSummary summary;
    EXPECT_EQ(exportAll(program, chakra::RankSelection::All, summary), all);
  }
}

/// A template op's node name after its placement: `<primitive> <phase>`.
std::string workName(WorkFactsOpInterface work) {
  llvm::Expected<workload::InvocationFigures> figures = figuresOf(work);
  if (!figures) {
    ADD_FAILURE() << llvm::toString(figures.takeError());
    return "";
  }
  return (work.getPrimitive() + " " + workload::stringifyEnum(figures->phase))
      .str();
}

/// The nodes of one stage's trace by name, and who depends on whom.
class StageNodes {
public:
  explicit StageNodes(const std::vector<ChakraProtoMsg::Node> &nodes)
      : nodes(nodes) {
    for (const ChakraProtoMsg::Node &node : nodes)
      byName[node.name()].push_back(node.id());
  }

  /// The node named `name`, which must be the only one.
  const ChakraProtoMsg::Node *named(const std::string &name) const {
    auto found = byName.find(name);
    if (found == byName.end() || found->second.size() != 1) {
      ADD_FAILURE() << "not exactly one node named '" << name << "'";
      return nullptr;
    }
    return &nodes[found->second.front()];
  }

  static bool dependsOn(const ChakraProtoMsg::Node &node,
                        const ChakraProtoMsg::Node &dep) {
    return llvm::is_contained(node.data_deps(), dep.id());
  }

  /// Whether `dependent` depends on `dep`, both named.
  bool chained(const std::string &dependent, const std::string &dep) const {
    const ChakraProtoMsg::Node *later = named(dependent);
    const ChakraProtoMsg::Node *earlier = named(dep);
    return later && earlier && dependsOn(*later, *earlier);
  }

  /// The nodes that depend on `dep`.
  std::vector<const ChakraProtoMsg::Node *>
  dependents(const ChakraProtoMsg::Node &dep) const {
    std::vector<const ChakraProtoMsg::Node *> result;
    for (const ChakraProtoMsg::Node &node : nodes)
      if (dependsOn(node, dep))
        result.push_back(&node);
    return result;
  }

  const std::vector<ChakraProtoMsg::Node> &nodes;

private:
  std::map<std::string, std::vector<uint64_t>> byName;
};

/// How the trace names an instance's ops: `<template> chunk C micro_batch M
/// block B: ` before each op's workName (no block for an edge or step).
struct InstanceNames {
  dist::InstanceOp instance;
  dist::TemplateOp templateOp;

  std::string of(Operation &op, int64_t repetition) {
    std::string name = (instance.getTemplateName() + " chunk " +
                        llvm::Twine(instance.getChunk()))
                           .str();
    if (std::optional<uint64_t> microBatch = instance.getMicroBatch())
      name += " micro_batch " + std::to_string(*microBatch);
    if (std::optional<ArrayRef<int64_t>> blocks = instance.getBlocks())
      name += " block " + std::to_string((*blocks)[0] + repetition);
    return name + ": " + workName(llvm::cast<WorkFactsOpInterface>(op));
  }

  Block &body() { return templateOp.getBody().front(); }

  /// The names of the ops the instance ends with: its last repetition's
  /// ops no other op of the template waits for.
  std::vector<std::string> exits() {
    std::vector<std::string> names;
    for (Operation &op : body())
      if (op.use_empty())
        names.push_back(of(op, instance.getRepetitions() - 1));
    return names;
  }
};

TEST_F(ChakraTest, DependenciesFollowTheProgram) {
  // Checks that fail if the data_deps were dropped or a chain broken: each
  // expectation is read off the program's `after` tokens.
  dist::ProgramOp program = wholeRun(smallSpec("one_f_one_b", 1, 0));
  ASSERT_TRUE(program);
  chakra::ExportSummary summary;
  std::map<int64_t, DecodedTrace> traceOfStage;
  for (const auto &[rank, bytes] :
       exportAll(program, chakra::RankSelection::OnePerStage, summary)) {
    std::optional<DecodedTrace> trace = decode(bytes);
    ASSERT_TRUE(trace.has_value()) << "rank " << rank;
    traceOfStage[metadataValue(trace->metadata, "stage")] = std::move(*trace);
  }
  for (auto stage : program.getBody().front().getOps<dist::StageOp>()) {
    SCOPED_TRACE("stage " + std::to_string(stage.getIndex()));
    StageNodes nodes(traceOfStage.at(stage.getIndex()).nodes);
    ASSERT_FALSE(nodes.nodes.empty());
    // Only the stage's first node starts without waiting for another.
    for (const ChakraProtoMsg::Node &node : llvm::drop_begin(nodes.nodes))
      EXPECT_FALSE(node.data_deps().empty()) << node.name();

    std::vector<const ChakraProtoMsg::Node *> sendNodes, recvNodes;
    for (const ChakraProtoMsg::Node &node : nodes.nodes) {
      if (node.type() == ChakraProtoMsg::COMM_SEND_NODE)
        sendNodes.push_back(&node);
      if (node.type() == ChakraProtoMsg::COMM_RECV_NODE)
        recvNodes.push_back(&node);
    }
    // The stage's sends and receives, in the order of its ops.
    auto sendOps =
        llvm::to_vector(stage.getBody().front().getOps<dist::SendOp>());
    auto recvOps =
        llvm::to_vector(stage.getBody().front().getOps<dist::RecvOp>());
    ASSERT_EQ(sendNodes.size(), sendOps.size());
    ASSERT_EQ(recvNodes.size(), recvOps.size());

    llvm::DenseMap<Operation *, InstanceNames> instances;
    for (auto instance : stage.getBody().front().getOps<dist::InstanceOp>()) {
      InstanceNames names{
          instance, SymbolTable::lookupNearestSymbolFrom<dist::TemplateOp>(
                        instance, instance.getTemplateNameAttr())};
      ASSERT_TRUE(names.templateOp);
      instances.try_emplace(instance, names);
      Operation &last = names.body().back();
      for (int64_t repetition = 0; repetition < instance.getRepetitions();
           ++repetition)
        for (Operation &op : names.body()) {
          // Within a block, an op waits for the ops its tokens name.
          for (Value token : op.getOperands()) {
            EXPECT_TRUE(
                nodes.chained(names.of(op, repetition),
                              names.of(*token.getDefiningOp(), repetition)))
                << names.of(op, repetition);
          }
          // A block's first ops wait for the previous block's last.
          if (op.getNumOperands() == 0 && repetition > 0) {
            EXPECT_TRUE(nodes.chained(names.of(op, repetition),
                                      names.of(last, repetition - 1)))
                << names.of(op, repetition);
          }
        }
    }

    // A send waits for exactly what produced its message: the last ops of
    // the instances its tokens name.
    for (auto [send, node] : llvm::zip_equal(sendOps, sendNodes)) {
      std::vector<uint64_t> producers;
      for (Value token : send->getOperands()) {
        auto found = instances.find(token.getDefiningOp());
        ASSERT_TRUE(found != instances.end()) << node->name();
        for (const std::string &exit : found->second.exits())
          if (const ChakraProtoMsg::Node *producer = nodes.named(exit))
            producers.push_back(producer->id());
      }
      llvm::sort(producers);
      EXPECT_EQ(std::vector<uint64_t>(node->data_deps().begin(),
                                      node->data_deps().end()),
                producers)
          << node->name();
    }

    // What consumes a receive's message waits for it.
    for (auto [recv, node] : llvm::zip_equal(recvOps, recvNodes)) {
      std::vector<const ChakraProtoMsg::Node *> dependents =
          nodes.dependents(*node);
      EXPECT_FALSE(dependents.empty()) << node->name();
      for (Operation *consumer : recv->getUsers()) {
        auto work = llvm::dyn_cast<WorkFactsOpInterface>(consumer);
        ASSERT_TRUE(work) << node->name();
        std::string consumerName = workName(work);
        EXPECT_TRUE(llvm::any_of(dependents,
                                 [&](const ChakraProtoMsg::Node *dependent) {
                                   return dependent->name() == consumerName;
                                 }))
            << node->name() << " is not waited for by " << consumerName;
      }
    }
  }

  // One chain by name: stage 0 runs blocks 0 and 1, and sends micro-batch
  // 0's activation when block 1 is done.
  StageNodes stage0(traceOfStage.at(0).nodes);
  EXPECT_TRUE(stage0.chained(
      "block_forward chunk 0 micro_batch 0 block 1: norm1 forward",
      "block_forward chunk 0 micro_batch 0 block 0: mlp_residual forward"));
  EXPECT_TRUE(stage0.chained(
      "send activation of micro-batch 0 leaving model chunk 0 to stage 1",
      "block_forward chunk 0 micro_batch 0 block 1: mlp_residual forward"));
}

TEST_F(ChakraTest, AnInferenceRunAgreesWithTheWorkSummary) {
  // The prefill and three decode steps on pp 2, tp 2: activations down the
  // pipeline, the sampled tokens back from the last stage to the first.
  dist::ProgramOp program = wholeRun(R"({"name": "serving", "model": {
    "hidden": 64, "heads": 4, "ffn_hidden": 256, "seq_length": 32,
    "vocab": 128, "blocks": 4, "norm": "layernorm", "activation": "gelu"},
    "inference": {"batch": 2, "prompt_length": 8, "generated_tokens": 4,
    "activation_type": "bf16", "weight_type": "bf16",
    "kv_cache_type": "bf16"},
    "mapping": {"tp": 2, "pp": 2, "dp": 1, "tp_comm": "all_reduce",
    "recompute": "none"}})");
  ASSERT_TRUE(program);
  EXPECT_EQ(exportAndCheck(program, chakra::RankSelection::All).size(), 4u);
}

TEST_F(ChakraTest, GPT3OnePerStageAgreesWithTheWorkSummary) {
  auto spec =
      llvm::MemoryBuffer::getFile(BLUEPRINT_EXAMPLES_DIR "/gpt3-175b.json");
  ASSERT_TRUE(static_cast<bool>(spec));
  dist::ProgramOp program = wholeRun((*spec)->getBuffer());
  ASSERT_TRUE(program);
  std::map<int64_t, std::string> traces =
      exportAndCheck(program, chakra::RankSelection::OnePerStage);
  EXPECT_EQ(traces.size(), 16u);
}

TEST_F(ChakraTest, ABlockScopeProgramIsRefused) {
  std::string spec = smallSpec("one_f_one_b", 1, 0);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(spec, "spec.json"), llvm::SMLoc());
  module = importTransformerJSON(sourceMgr, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(createDistributeTransformer());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto program = *module->getBody()->getOps<dist::ProgramOp>().begin();
  llvm::Expected<chakra::ExportSummary> exported = chakra::exportTraces(
      program, chakra::RankSelection::All,
      [](int64_t, llvm::StringRef) { return llvm::Error::success(); });
  ASSERT_FALSE(static_cast<bool>(exported));
  EXPECT_NE(llvm::toString(exported.takeError()).find("block-scope program"),
            std::string::npos);
}

} // namespace
