//===- ChakraExport.cpp - Chakra execution traces of a whole run ----------===//
//
// Each stage's nodes are planned once from the IR (what every rank of the
// stage runs is the same); each selected rank's trace is that plan with the
// rank's own peers and process groups filled in, encoded as Chakra's
// encodeMessage writes a trace. docs/Chakra.md maps every field.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Chakra/ChakraExport.h"

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Transforms/ProgramContracts.h"
#include "Blueprint/Workload/Checked.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "et_def.pb.h"
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <limits>
#include <set>

using namespace mlir;
using namespace blueprint;
using namespace blueprint::chakra;

namespace {

/// The Chakra schema version the traces follow (the converter's output of
/// the vendored et_def.proto).
constexpr llvm::StringLiteral kChakraVersion = "0.0.4";

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "chakra: " + message);
}

/// The ranks of the program's mesh, numbered row-major over its axes (for
/// the whole-run mesh ["pp", "dp", "tp"]: TP fastest, then DP, then PP,
/// Megatron-LM's order; at cp > 1 ["pp", "dp", "cp", "tp"], CP between TP
/// and DP as Megatron-LM's default order tp-cp-ep-dp-pp).
struct RankSpace {
  std::vector<std::string> axes;
  std::vector<int64_t> shape;
  size_t ppAxis = 0;
  int64_t world = 0;

  std::vector<int64_t> coordinatesOf(int64_t rank) const {
    std::vector<int64_t> coordinates(shape.size());
    for (size_t axis = shape.size(); axis-- > 0;) {
      coordinates[axis] = rank % shape[axis];
      rank /= shape[axis];
    }
    return coordinates;
  }
  /// Cannot overflow: every coordinate is within the shape, whose product
  /// (the world) fits.
  int64_t rankOf(llvm::ArrayRef<int64_t> coordinates) const {
    int64_t rank = 0;
    for (auto [coordinate, size] : llvm::zip_equal(coordinates, shape))
      rank = rank * size + coordinate;
    return rank;
  }
  std::optional<size_t> axisIndex(llvm::StringRef name) const {
    auto found = llvm::find(axes, name);
    if (found == axes.end())
      return std::nullopt;
    return found - axes.begin();
  }
};

llvm::Expected<RankSpace> rankSpaceOf(dist::ProgramOp program) {
  auto meshes = program.getBody().front().getOps<dist::MeshOp>();
  if (!llvm::hasSingleElement(meshes))
    return fail("@" + program.getSymName() +
                " must hold exactly one dist.mesh (a whole-run program's "
                "@mesh)");
  dist::MeshOp mesh = *meshes.begin();
  RankSpace space;
  for (Attribute axis : mesh.getAxes())
    space.axes.push_back(llvm::cast<StringAttr>(axis).str());
  space.shape.assign(mesh.getShape().begin(), mesh.getShape().end());
  std::optional<size_t> pp = space.axisIndex("pp");
  if (!pp)
    return fail("@" + mesh.getSymName() + " has no axis \"pp\"");
  space.ppAxis = *pp;
  workload::OverflowGuard guard;
  space.world = 1;
  for (int64_t size : space.shape)
    space.world = guard.mul(space.world, size, "the ranks of the mesh");
  if (guard.failed())
    return guard.error("chakra");
  // comm_src and comm_dst are int32 attributes (Chakra's feeder).
  if (space.world > std::numeric_limits<int32_t>::max())
    return fail("the mesh has " + llvm::Twine(space.world) +
                " ranks; Chakra's comm_src and comm_dst hold at most 2^31 - 1");
  return space;
}

/// The ranks a collective runs over, relative to any one of them: the mesh
/// axes it spans and, for a group, the positions along its single axis.
struct GroupKind {
  std::vector<size_t> axes;
  std::vector<int64_t> positions;

  bool operator<(const GroupKind &other) const {
    return std::tie(axes, positions) < std::tie(other.axes, other.positions);
  }

  /// The members of the group that `rank` belongs to, in increasing
  /// order; none if a group leaves `rank` out.
  std::optional<std::vector<int64_t>>
  membersWith(int64_t rank, const RankSpace &space) const {
    std::vector<int64_t> base = space.coordinatesOf(rank);
    if (!positions.empty() && !llvm::is_contained(positions, base[axes[0]]))
      return std::nullopt;
    std::vector<std::vector<int64_t>> members{base};
    for (size_t axis : axes) {
      std::vector<int64_t> values = positions;
      if (values.empty())
        for (int64_t value = 0; value < space.shape[axis]; ++value)
          values.push_back(value);
      std::vector<std::vector<int64_t>> extended;
      for (const std::vector<int64_t> &member : members)
        for (int64_t value : values) {
          extended.push_back(member);
          extended.back()[axis] = value;
        }
      members = std::move(extended);
    }
    std::vector<int64_t> ranks;
    for (const std::vector<int64_t> &member : members)
      ranks.push_back(space.rankOf(member));
    llvm::sort(ranks);
    return ranks;
  }
};

/// What a collective op spans, from the op types that carry axes.
llvm::Expected<GroupKind> groupKindOf(Operation *op, const RankSpace &space) {
  auto spanOf = [](auto collective) {
    return std::make_pair(collective.getMeshAxes(), collective.getGroup());
  };
  auto [axes, group] =
      llvm::TypeSwitch<Operation *,
                       std::pair<ArrayAttr, std::optional<ArrayRef<int64_t>>>>(
          op)
          .Case<dist::AllReduceOp, dist::ReduceScatterOp, dist::AllGatherOp,
                dist::AllToAllOp>(spanOf)
          .Default([](Operation *) {
            return std::make_pair(ArrayAttr(),
                                  std::optional<ArrayRef<int64_t>>());
          });
  if (!axes)
    return fail("'" + op->getName().getStringRef() +
                "' is a collective the exporter does not know");
  GroupKind kind;
  for (Attribute axis : axes) {
    std::optional<size_t> index =
        space.axisIndex(llvm::cast<StringAttr>(axis).getValue());
    if (!index)
      return fail("a collective runs over axis '" +
                  llvm::cast<StringAttr>(axis).getValue() +
                  "', which the mesh does not have");
    kind.axes.push_back(*index);
  }
  if (group)
    kind.positions.assign(group->begin(), group->end());
  return kind;
}

/// Whether a work op runs on some ranks of the mesh only (`ranks`): a
/// whole-run program's stage ranks all run the stage's work, and the
/// traces say so.
bool restrictsRanks(Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<dist::TaskOp, dist::AllReduceOp, dist::ReduceScatterOp,
            dist::AllGatherOp, dist::AllToAllOp>(
          [](auto work) { return work.getRanks().has_value(); })
      .Default([](Operation *) { return false; });
}

ChakraProtoMsg::AttributeProto &addAttribute(ChakraProtoMsg::Node &node,
                                             llvm::StringRef name) {
  ChakraProtoMsg::AttributeProto *attribute = node.add_attr();
  attribute->set_name(name.str());
  return *attribute;
}

/// A node of a stage's trace with what differs between the stage's ranks:
/// the process group of a collective, the peer stage of a message.
struct PlannedNode {
  ChakraProtoMsg::Node node;
  std::optional<GroupKind> group;
  std::optional<int64_t> peerStage;
};

/// The work of an instance as the expanded form holds it
/// (docs/WholeRun.md, "The expanded form"): each op, the repetition (block)
/// it belongs to, and the earlier ops of the instance it waits for. A
/// repetition's first op waits for the previous repetition's last.
struct InstanceWork {
  WorkFactsOpInterface work;
  int64_t repetition = 0;
  llvm::SmallVector<size_t, 2> deps;
};

llvm::Expected<std::vector<InstanceWork>>
instanceWorkOf(dist::InstanceOp instance, dist::TemplateOp templateOp) {
  Block &templateBody = templateOp.getBody().front();
  size_t perRepetition = templateBody.getOperations().size();
  std::vector<InstanceWork> result;
  // Appends `op` of `repetition`, waiting for the ops `index` numbers
  // (those of its repetition, or of the whole expanded body).
  auto append = [&](Operation &op, int64_t repetition,
                    const llvm::DenseMap<Operation *, size_t> &index)
      -> llvm::Expected<InstanceWork *> {
    auto work = llvm::dyn_cast<WorkFactsOpInterface>(op);
    if (!work)
      return fail("an instance of @" + templateOp.getSymName() + " runs '" +
                  op.getName().getStringRef() + "', which is not work");
    InstanceWork &item = result.emplace_back();
    item.work = work;
    item.repetition = repetition;
    for (Value dep : op.getOperands())
      item.deps.push_back(index.lookup(dep.getDefiningOp()));
    return &item;
  };
  llvm::DenseMap<Operation *, size_t> index;
  if (instance.isExpanded()) {
    for (auto [position, op] : llvm::enumerate(instance.getBody().front())) {
      llvm::Expected<InstanceWork *> item =
          append(op, static_cast<int64_t>(position / perRepetition), index);
      if (!item)
        return item.takeError();
      index[&op] = position;
    }
    return result;
  }
  for (int64_t repetition = 0; repetition < instance.getRepetitions();
       ++repetition) {
    size_t previousLast = result.size() - 1;
    index.clear();
    for (Operation &op : templateBody) {
      size_t position = result.size();
      llvm::Expected<InstanceWork *> item = append(op, repetition, index);
      if (!item)
        return item.takeError();
      if (op.getNumOperands() == 0 && repetition > 0)
        (*item)->deps.push_back(previousLast);
      index[&op] = position;
    }
  }
  return result;
}

/// Plans the nodes of one stage; `chunks` is the run's model chunks (pp x
/// v), which number the message tags.
class StagePlanner {
public:
  StagePlanner(const RankSpace &space, int64_t chunks)
      : space(space), chunks(chunks) {}

  llvm::Expected<std::vector<PlannedNode>> plan(dist::StageOp stage) {
    nodes.clear();
    exits.clear();
    what = "stage " + std::to_string(stage.getIndex());
    for (Operation &op : stage.getBody().front())
      if (llvm::Error error = planOp(op))
        return std::move(error);
    if (guard.failed())
      return guard.error("chakra: " + what);
    return std::move(nodes);
  }

private:
  /// The nodes an op's dependencies end with.
  std::vector<uint64_t> entryOf(Operation &op) {
    std::vector<uint64_t> entry;
    for (Value dep : op.getOperands()) {
      auto found = exits.find(dep.getDefiningOp());
      if (found != exits.end())
        llvm::append_range(entry, found->second);
    }
    llvm::sort(entry);
    entry.erase(std::unique(entry.begin(), entry.end()), entry.end());
    return entry;
  }

  PlannedNode &addNode(std::string name, ChakraProtoMsg::NodeType type,
                       llvm::ArrayRef<uint64_t> deps) {
    PlannedNode &planned = nodes.emplace_back();
    planned.node.set_id(nodes.size() - 1);
    planned.node.set_name(std::move(name));
    planned.node.set_type(type);
    for (uint64_t dep : deps)
      planned.node.add_data_deps(dep);
    addAttribute(planned.node, "is_cpu_op").set_bool_val(false);
    return planned;
  }

  /// A compute node for a task, a collective node for a collective.
  llvm::Expected<uint64_t> addWork(WorkFactsOpInterface work,
                                   llvm::StringRef placement,
                                   llvm::ArrayRef<uint64_t> deps) {
    Operation *op = work.getOperation();
    if (restrictsRanks(op))
      return fail(what + ": '" + work.getPrimitive() +
                  "' runs on some ranks only (`ranks`); a whole-run "
                  "program's work runs on every rank of its stage");
    llvm::Expected<workload::InvocationFigures> figures = figuresOf(work);
    if (!figures)
      return figures.takeError();
    std::string name = (placement + work.getPrimitive() + " " +
                        workload::stringifyEnum(figures->phase))
                           .str();
    bool collective = figures->collective.has_value();
    PlannedNode &planned = addNode(std::move(name),
                                   collective ? ChakraProtoMsg::COMM_COLL_NODE
                                              : ChakraProtoMsg::COMP_NODE,
                                   deps);
    ChakraProtoMsg::Node &node = planned.node;
    addAttribute(node, "num_ops").set_int64_val(figures->ops);
    addAttribute(node, "phase")
        .set_string_val(workload::stringifyEnum(figures->phase).str());
    if (collective) {
      llvm::Expected<GroupKind> group = groupKindOf(op, space);
      if (!group)
        return group.takeError();
      planned.group = std::move(*group);
      addAttribute(node, "comm_type")
          .set_int64_val(commTypeOf(figures->collective->kind));
      addAttribute(node, "comm_size")
          .set_int64_val(figures->collective->messageBytes);
    } else {
      int64_t tensorBytes =
          guard.add(figures->readBytes, figures->writeBytes,
                    "the tensor_size (bytes read + written) of '" +
                        work.getPrimitive() + "'");
      addAttribute(node, "tensor_size").set_uint64_val(tensorBytes);
      addAttribute(node, "read_bytes").set_int64_val(figures->readBytes);
      addAttribute(node, "write_bytes").set_int64_val(figures->writeBytes);
    }
    return node.id();
  }

  static ChakraProtoMsg::CollectiveCommType
  commTypeOf(workload::CollectiveKind kind) {
    switch (kind) {
    case workload::CollectiveKind::AllReduce:
      return ChakraProtoMsg::ALL_REDUCE;
    case workload::CollectiveKind::ReduceScatter:
      return ChakraProtoMsg::REDUCE_SCATTER;
    case workload::CollectiveKind::AllGather:
      return ChakraProtoMsg::ALL_GATHER;
    case workload::CollectiveKind::AllToAll:
      return ChakraProtoMsg::ALL_TO_ALL;
    }
    llvm_unreachable("a collective kind without a Chakra type");
  }

  llvm::Error planInstance(dist::InstanceOp instance) {
    dist::TemplateOp templateOp = instance.lookupTemplate();
    if (!templateOp)
      return fail(what + ": an instance names no template");
    llvm::Expected<std::vector<InstanceWork>> work =
        instanceWorkOf(instance, templateOp);
    if (!work)
      return work.takeError();
    std::vector<uint64_t> entry = entryOf(*instance);
    std::string placement = (instance.getTemplateName() + " chunk " +
                             llvm::Twine(instance.getChunk()))
                                .str();
    if (std::optional<uint64_t> microBatch = instance.getMicroBatch())
      placement += " micro_batch " + std::to_string(*microBatch);
    std::optional<ArrayRef<int64_t>> blocks = instance.getBlocks();
    std::vector<uint64_t> ids;
    std::vector<bool> awaited(work->size(), false);
    for (const InstanceWork &item : *work) {
      std::string where = placement;
      if (blocks)
        where += " block " + std::to_string((*blocks)[0] + item.repetition);
      where += ": ";
      std::vector<uint64_t> deps;
      for (size_t dep : item.deps) {
        deps.push_back(ids[dep]);
        awaited[dep] = true;
      }
      if (item.deps.empty())
        deps = entry;
      llvm::Expected<uint64_t> id = addWork(item.work, where, deps);
      if (!id)
        return id.takeError();
      ids.push_back(*id);
    }
    // The instance ends when every op no later op of it waits for has.
    std::vector<uint64_t> &instanceExits = exits[instance];
    for (auto [id, isAwaited] : llvm::zip_equal(ids, awaited))
      if (!isAwaited)
        instanceExits.push_back(id);
    if (ids.empty())
      instanceExits = std::move(entry);
    return llvm::Error::success();
  }

  template <typename MessageOpT>
  llvm::Error planMessage(MessageOpT message, bool send) {
    // The tag is the message's channel (messageChannel), unique per what it
    // carries, its micro-batch and the chunk that sends it, and below
    // (micro_batch + 1) x 3 x chunks; Chakra's comm_tag is an int32.
    int64_t microBatches =
        guard.add(message.getMicroBatch(), 1, "the message tags");
    int64_t tagBound =
        guard.product({microBatches, 3, chunks}, "the message tags");
    if (guard.failed())
      return guard.error("chakra: " + what);
    if (tagBound > std::numeric_limits<int32_t>::max())
      return fail(what + ": the tag of " +
                  workload::describeMessage(message.getMessage(),
                                            message.getMicroBatch(),
                                            message.getChunk()) +
                  " does not fit Chakra's int32 comm_tag");
    std::string name =
        (send ? "send " : "recv ") +
        workload::describeMessage(message.getMessage(), message.getMicroBatch(),
                                  message.getChunk()) +
        (send ? " to stage " : " from stage ") +
        std::to_string(message.getPeer());
    PlannedNode &planned = addNode(std::move(name),
                                   send ? ChakraProtoMsg::COMM_SEND_NODE
                                        : ChakraProtoMsg::COMM_RECV_NODE,
                                   entryOf(*message));
    planned.peerStage = message.getPeer();
    addAttribute(planned.node, "comm_size").set_int64_val(message.getBytes());
    addAttribute(planned.node, "comm_tag")
        .set_int32_val(static_cast<int32_t>(analysis::messageChannel(
            message.getMessage(), message.getMicroBatch(), message.getChunk(),
            chunks)));
    exits[message] = {planned.node.id()};
    return llvm::Error::success();
  }

  llvm::Error planOp(Operation &op) {
    if (auto instance = llvm::dyn_cast<dist::InstanceOp>(op))
      return planInstance(instance);
    if (auto send = llvm::dyn_cast<dist::SendOp>(op))
      return planMessage(send, /*send=*/true);
    if (auto recv = llvm::dyn_cast<dist::RecvOp>(op))
      return planMessage(recv, /*send=*/false);
    if (auto work = llvm::dyn_cast<WorkFactsOpInterface>(op)) {
      llvm::Expected<uint64_t> id = addWork(work, "", entryOf(op));
      if (!id)
        return id.takeError();
      exits[&op] = {*id};
      return llvm::Error::success();
    }
    return fail(what + " holds '" + op.getName().getStringRef() +
                "', which a whole-run stage does not (dist_stage_c2)");
  }

  const RankSpace &space;
  int64_t chunks;
  std::string what;
  workload::OverflowGuard guard;
  std::vector<PlannedNode> nodes;
  llvm::DenseMap<Operation *, std::vector<uint64_t>> exits;
};

/// Every process group of the program's collectives, on every rank,
/// numbered 1, 2, ... in increasing order of their member lists.
std::map<std::vector<int64_t>, int64_t>
numberGroups(const std::set<GroupKind> &kinds, const RankSpace &space) {
  std::set<std::vector<int64_t>> groups;
  for (const GroupKind &kind : kinds)
    for (int64_t rank = 0; rank < space.world; ++rank)
      if (std::optional<std::vector<int64_t>> members =
              kind.membersWith(rank, space))
        groups.insert(std::move(*members));
  // Id 0 is not a group's: ASTRA-sim reads `pg_name` "0" (or "") as the
  // default group over every rank and asserts that a configured group's id
  // is positive, and PyTorch's process group "0" is the world group.
  std::map<std::vector<int64_t>, int64_t> ids;
  for (const std::vector<int64_t> &members : groups)
    ids.emplace(members, static_cast<int64_t>(ids.size()) + 1);
  return ids;
}

/// The GlobalMetadata of `rank`'s trace: the program, the mesh, where the
/// rank sits in it, and the members of each process group its collectives
/// run over.
ChakraProtoMsg::GlobalMetadata
metadataOf(dist::ProgramOp program, const RankSpace &space, int64_t rank,
           const std::set<GroupKind> &kinds,
           const std::map<std::vector<int64_t>, int64_t> &groupIds) {
  ChakraProtoMsg::GlobalMetadata metadata;
  metadata.set_version(kChakraVersion.str());
  auto attribute = [&](llvm::StringRef name) -> auto & {
    ChakraProtoMsg::AttributeProto *added = metadata.add_attr();
    added->set_name(name.str());
    return *added;
  };
  std::vector<int64_t> coordinates = space.coordinatesOf(rank);
  attribute("source").set_string_val("blueprint");
  attribute("program").set_string_val(program.getSymName().str());
  attribute("rank").set_int64_val(rank);
  attribute("world_size").set_int64_val(space.world);
  attribute("stage").set_int64_val(coordinates[space.ppAxis]);
  auto &axes = *attribute("mesh_axes").mutable_string_list();
  for (const std::string &axis : space.axes)
    axes.add_values(axis);
  auto &shape = *attribute("mesh_shape").mutable_int64_list();
  for (int64_t size : space.shape)
    shape.add_values(size);
  auto &where = *attribute("rank_coordinates").mutable_int64_list();
  for (int64_t coordinate : coordinates)
    where.add_values(coordinate);
  std::map<int64_t, const std::vector<int64_t> *> rankGroups;
  for (const GroupKind &kind : kinds)
    if (std::optional<std::vector<int64_t>> members =
            kind.membersWith(rank, space)) {
      auto found = groupIds.find(*members);
      rankGroups.emplace(found->second, &found->first);
    }
  for (const auto &[id, members] : rankGroups) {
    auto &list =
        *attribute("pg_ranks." + std::to_string(id)).mutable_int64_list();
    for (int64_t member : *members)
      list.add_values(member);
  }
  return metadata;
}

/// `planned` as `rank` runs it: with the process group of a collective and
/// the peers of a message.
llvm::Expected<ChakraProtoMsg::Node>
nodeOfRank(const PlannedNode &planned, int64_t rank, const RankSpace &space,
           const std::map<std::vector<int64_t>, int64_t> &groupIds) {
  ChakraProtoMsg::Node node = planned.node;
  if (planned.group) {
    std::optional<std::vector<int64_t>> members =
        planned.group->membersWith(rank, space);
    if (!members)
      return fail("rank " + llvm::Twine(rank) + " runs '" + node.name() +
                  "' over a group that leaves it out");
    addAttribute(node, "pg_name")
        .set_string_val(std::to_string(groupIds.at(*members)));
  }
  if (planned.peerStage) {
    std::vector<int64_t> peer = space.coordinatesOf(rank);
    peer[space.ppAxis] = *planned.peerStage;
    int64_t peerRank = space.rankOf(peer);
    bool send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
    addAttribute(node, "comm_src")
        .set_int32_val(static_cast<int32_t>(send ? rank : peerRank));
    addAttribute(node, "comm_dst")
        .set_int32_val(static_cast<int32_t>(send ? peerRank : rank));
  }
  return node;
}

/// Appends `message` preceded by its size as a varint (Chakra's
/// encodeMessage, protobuf's delimited format).
llvm::Error appendDelimited(const google::protobuf::MessageLite &message,
                            google::protobuf::io::CodedOutputStream &coded) {
  size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return fail("a message of " + llvm::Twine(size) +
                " bytes exceeds protobuf's 2 GiB limit");
  coded.WriteVarint32(static_cast<uint32_t>(size));
  message.SerializeWithCachedSizes(&coded);
  return llvm::Error::success();
}

} // namespace

std::optional<RankSelection>
blueprint::chakra::parseRankSelection(llvm::StringRef text) {
  if (text == "all")
    return RankSelection::All;
  if (text == "one-per-stage")
    return RankSelection::OnePerStage;
  return std::nullopt;
}

llvm::Expected<ExportSummary> blueprint::chakra::exportTraces(
    dist::ProgramOp program, RankSelection selection,
    llvm::function_ref<llvm::Error(int64_t rank, llvm::StringRef trace)>
        write) {
  if (!dist::isWholeRun(program))
    return fail("@" + program.getSymName() +
                " is a block-scope program; the traces need the whole run "
                "(blueprint-opt --distribute-transformer=scope=iteration)");
  std::optional<ProgramContracts> contracts = getProgramContracts(program);
  if (!contracts)
    return fail("@" + program.getSymName() + " carries no contracts");
  llvm::Expected<RankSpace> space = rankSpaceOf(program);
  if (!space)
    return space.takeError();
  workload::OverflowGuard guard;
  int64_t chunks = guard.mul(contracts->mapping.pp,
                             contracts->mapping.virtualStages, "model chunks");
  if (guard.failed())
    return guard.error("chakra");

  std::map<int64_t, std::vector<PlannedNode>> stages;
  StagePlanner planner(*space, chunks);
  for (auto stage : program.getBody().front().getOps<dist::StageOp>()) {
    llvm::Expected<std::vector<PlannedNode>> nodes = planner.plan(stage);
    if (!nodes)
      return nodes.takeError();
    stages[stage.getIndex()] = std::move(*nodes);
  }
  if (static_cast<int64_t>(stages.size()) != space->shape[space->ppAxis])
    return fail("@" + program.getSymName() + " has " +
                llvm::Twine(stages.size()) + " stages for " +
                llvm::Twine(space->shape[space->ppAxis]) +
                " positions of axis \"pp\" (dist_program_c5)");

  std::set<GroupKind> kinds;
  for (const auto &[index, nodes] : stages)
    for (const PlannedNode &planned : nodes)
      if (planned.group)
        kinds.insert(*planned.group);
  std::map<std::vector<int64_t>, int64_t> groupIds =
      numberGroups(kinds, *space);

  ExportSummary summary;
  for (const auto &[members, id] : groupIds)
    summary.groups.emplace(id, members);
  for (int64_t rank = 0; rank < space->world; ++rank) {
    std::vector<int64_t> coordinates = space->coordinatesOf(rank);
    bool representative =
        llvm::all_of(llvm::enumerate(coordinates), [&](auto coordinate) {
          return coordinate.index() == space->ppAxis || coordinate.value() == 0;
        });
    if (selection == RankSelection::OnePerStage && !representative)
      continue;
    int64_t stage = coordinates[space->ppAxis];

    ChakraProtoMsg::GlobalMetadata metadata =
        metadataOf(program, *space, rank, kinds, groupIds);

    std::string trace;
    // One stream for the whole trace: the stream grows the string
    // geometrically, and trims it when it goes out of scope.
    {
      google::protobuf::io::StringOutputStream stream(&trace);
      google::protobuf::io::CodedOutputStream coded(&stream);
      if (llvm::Error error = appendDelimited(metadata, coded))
        return std::move(error);
      for (const PlannedNode &planned : stages[stage]) {
        llvm::Expected<ChakraProtoMsg::Node> node =
            nodeOfRank(planned, rank, *space, groupIds);
        if (!node)
          return node.takeError();
        if (llvm::Error error = appendDelimited(*node, coded))
          return std::move(error);
      }
    }
    if (llvm::Error error = write(rank, trace))
      return std::move(error);
    summary.ranks.push_back(rank);
  }
  return summary;
}

std::string blueprint::chakra::processGroupsJSON(const ProcessGroups &groups) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);
  json.object([&] {
    for (const auto &group : groups)
      json.attributeArray(std::to_string(group.first), [&] {
        for (int64_t member : group.second)
          json.value(member);
      });
  });
  os << "\n";
  return text;
}
