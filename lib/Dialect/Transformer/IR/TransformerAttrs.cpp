//===- TransformerAttrs.cpp - ModelIR contracts ---------------------------===//
//
// Each contract attribute verifies its own rules through the plain checks of
// Blueprint/Workload/Spec.h, so the verifier, the importers and the work
// algebra share one statement of every rule.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.h"
#include "Blueprint/Dialect/Transformer/IR/TransformerDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::transformer;

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.cpp.inc"

void TransformerDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Blueprint/Dialect/Transformer/IR/TransformerAttrs.cpp.inc"
      >();
}

LogicalResult blueprint::transformer::reportViolations(
    function_ref<InFlightDiagnostic()> emitError,
    llvm::ArrayRef<workload::RuleViolation> violations,
    llvm::StringRef prefix) {
  for (const workload::RuleViolation &violation : violations)
    emitError() << prefix << violation.rule << ": " << violation.message;
  return failure(!violations.empty());
}

//===----------------------------------------------------------------------===//
// ModelAttr
//===----------------------------------------------------------------------===//

/// The plain model with optional fields resolved to their defaults. A
/// head_dim default needs heads > 0 dividing hidden; otherwise it is left 0
/// and rule transformer_model_c1/c4 reports the cause.
static workload::ModelSpec toModelSpec(
    int64_t hidden, int64_t heads, int64_t ffnHidden, int64_t seqLength,
    int64_t vocab, int64_t blocks, workload::NormKind norm,
    workload::ActivationKind activation, std::optional<int64_t> kvHeads,
    std::optional<int64_t> headDim, std::optional<int64_t> maxPositions,
    workload::LinearBias linearBias,
    workload::PositionEmbedding positionEmbedding, bool tiedEmbeddings,
    std::optional<int64_t> attentionWindow, std::optional<int64_t> qLoraRank,
    std::optional<int64_t> kvLoraRank, std::optional<int64_t> qkNopeHeadDim,
    std::optional<int64_t> qkRopeHeadDim, std::optional<int64_t> vHeadDim,
    MoEAttr moe) {
  workload::ModelSpec spec;
  spec.hidden = hidden;
  spec.heads = heads;
  spec.kvHeads = kvHeads.value_or(heads);
  std::variant<int64_t, workload::RuleViolation> implicit =
      workload::implicitHeadDim(hidden, heads, qkNopeHeadDim, qkRopeHeadDim);
  if (headDim)
    spec.headDim = *headDim;
  else if (auto *dimension = std::get_if<int64_t>(&implicit))
    spec.headDim = *dimension;
  spec.ffnHidden = ffnHidden;
  spec.seqLength = seqLength;
  spec.maxPositions = maxPositions.value_or(seqLength);
  spec.vocab = vocab;
  spec.blocks = blocks;
  spec.norm = norm;
  spec.activation = activation;
  spec.linearBias = linearBias;
  spec.positionEmbedding = positionEmbedding;
  spec.tiedEmbeddings = tiedEmbeddings;
  spec.attentionWindow = attentionWindow;
  spec.qLoraRank = qLoraRank;
  spec.kvLoraRank = kvLoraRank;
  spec.qkNopeHeadDim = qkNopeHeadDim;
  spec.qkRopeHeadDim = qkRopeHeadDim;
  spec.vHeadDim = vHeadDim;
  if (moe) {
    workload::MixtureOfExperts experts;
    experts.experts = moe.getExperts();
    experts.expertsPerToken = moe.getExpertsPerToken();
    experts.expertFfnHidden = moe.getExpertFfnHidden().value_or(ffnHidden);
    experts.sharedExperts = moe.getSharedExperts();
    experts.firstDenseBlocks = moe.getFirstDenseBlocks();
    experts.layerFrequency = moe.getMoeLayerFrequency();
    experts.capacityFactorPercent = moe.getCapacityFactorPercent();
    experts.imbalancePercent = moe.getExpertImbalancePercent();
    experts.router = moe.getRouter();
    experts.routerGroups = moe.getRouterGroups();
    experts.routerGroupsPerToken = moe.getRouterGroupsPerToken();
    spec.moe = experts;
  }
  return spec;
}

MoEAttr blueprint::transformer::withoutDefaultExpertWidth(MoEAttr moe,
                                                          int64_t ffnHidden) {
  if (!moe || moe.getExpertFfnHidden() != ffnHidden)
    return moe;
  return MoEAttr::get(
      moe.getContext(), moe.getExperts(), moe.getExpertsPerToken(),
      std::nullopt, moe.getSharedExperts(), moe.getFirstDenseBlocks(),
      moe.getMoeLayerFrequency(), moe.getCapacityFactorPercent(),
      moe.getExpertImbalancePercent(), moe.getRouter(), moe.getRouterGroups(),
      moe.getRouterGroupsPerToken());
}

LogicalResult ModelAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t hidden, int64_t heads,
    int64_t ffnHidden, int64_t seqLength, int64_t vocab, int64_t blocks,
    workload::NormKind norm, workload::ActivationKind activation,
    std::optional<int64_t> kvHeads, std::optional<int64_t> headDim,
    std::optional<int64_t> maxPositions, workload::LinearBias linearBias,
    workload::PositionEmbedding positionEmbedding, bool tiedEmbeddings,
    std::optional<int64_t> attentionWindow, std::optional<int64_t> qLoraRank,
    std::optional<int64_t> kvLoraRank, std::optional<int64_t> qkNopeHeadDim,
    std::optional<int64_t> qkRopeHeadDim, std::optional<int64_t> vHeadDim,
    MoEAttr moe) {
  // transformer_model_c4 (and c9's overflowing sum) concern only the
  // implicit head_dim, which the plain spec no longer distinguishes from an
  // explicit one.
  std::variant<int64_t, workload::RuleViolation> implicit =
      workload::implicitHeadDim(hidden, heads, qkNopeHeadDim, qkRopeHeadDim);
  auto *violation = std::get_if<workload::RuleViolation>(&implicit);
  workload::ModelSpec spec =
      toModelSpec(hidden, heads, ffnHidden, seqLength, vocab, blocks, norm,
                  activation, kvHeads, headDim, maxPositions, linearBias,
                  positionEmbedding, tiedEmbeddings, attentionWindow, qLoraRank,
                  kvLoraRank, qkNopeHeadDim, qkRopeHeadDim, vHeadDim, moe);
  if (violation && !headDim) {
    // c4 is multi-head attention's implicit head_dim rule: with some MLA
    // field given the spec is a partial MLA spec, whose error is c6.
    if (std::optional<workload::RuleViolation> partial =
            workload::checkLatentAttentionFields(spec))
      return reportViolations(emitError, *partial);
    return reportViolations(emitError, *violation);
  }
  return reportViolations(emitError, workload::checkModel(spec));
}

workload::ModelSpec ModelAttr::getSpec() const {
  return toModelSpec(
      getHidden(), getHeads(), getFfnHidden(), getSeqLength(), getVocab(),
      getBlocks(), getNorm(), getActivation(), getKvHeads(), getHeadDim(),
      getMaxPositions(), getLinearBias(), getPositionEmbedding(),
      getTiedEmbeddings(), getAttentionWindow(), getQLoraRank(),
      getKvLoraRank(), getQkNopeHeadDim(), getQkRopeHeadDim(), getVHeadDim(),
      getMoe());
}

/// The attribute form of a model's experts, null for a dense model.
static MoEAttr getMoEAttr(MLIRContext *context,
                          const workload::ModelSpec &spec) {
  if (!spec.moe)
    return {};
  const workload::MixtureOfExperts &moe = *spec.moe;
  return MoEAttr::get(context, moe.experts, moe.expertsPerToken,
                      moe.expertFfnHidden, moe.sharedExperts,
                      moe.firstDenseBlocks, moe.layerFrequency,
                      moe.capacityFactorPercent, moe.imbalancePercent,
                      moe.router, moe.routerGroups, moe.routerGroupsPerToken);
}

ModelAttr blueprint::transformer::getModelAttr(MLIRContext *context,
                                               const workload::ModelSpec &spec) {
  return ModelAttr::get(
      context, spec.hidden, spec.heads, spec.ffnHidden, spec.seqLength,
      spec.vocab, spec.blocks, spec.norm, spec.activation, spec.kvHeads,
      spec.headDim, spec.maxPositions, spec.linearBias, spec.positionEmbedding,
      spec.tiedEmbeddings, spec.attentionWindow, spec.qLoraRank,
      spec.kvLoraRank, spec.qkNopeHeadDim, spec.qkRopeHeadDim, spec.vHeadDim,
      getMoEAttr(context, spec));
}

//===----------------------------------------------------------------------===//
// TrainingAttr
//===----------------------------------------------------------------------===//

static workload::TrainingSpec
toTrainingSpec(int64_t globalBatch, int64_t microBatch,
               workload::DataType activationType, workload::DataType weightType,
               workload::DataType gradientType,
               workload::DataType optimizerStateType, bool attentionDropout,
               bool hiddenDropout) {
  workload::TrainingSpec spec;
  spec.globalBatch = globalBatch;
  spec.microBatch = microBatch;
  spec.activationType = activationType;
  spec.weightType = weightType;
  spec.gradientType = gradientType;
  spec.optimizerStateType = optimizerStateType;
  spec.attentionDropout = attentionDropout;
  spec.hiddenDropout = hiddenDropout;
  return spec;
}

LogicalResult TrainingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t globalBatch,
    int64_t microBatch, workload::DataType activationType,
    workload::DataType weightType, workload::DataType gradientType,
    workload::DataType optimizerStateType, bool attentionDropout,
    bool hiddenDropout) {
  return reportViolations(
      emitError, workload::checkTraining(toTrainingSpec(
                     globalBatch, microBatch, activationType, weightType,
                     gradientType, optimizerStateType, attentionDropout,
                     hiddenDropout)));
}

workload::TrainingSpec TrainingAttr::getSpec() const {
  return toTrainingSpec(getGlobalBatch(), getMicroBatch(), getActivationType(),
                        getWeightType(), getGradientType(),
                        getOptimizerStateType(), getAttentionDropout(),
                        getHiddenDropout());
}

TrainingAttr
blueprint::transformer::getTrainingAttr(MLIRContext *context,
                                        const workload::TrainingSpec &spec) {
  return TrainingAttr::get(context, spec.globalBatch, spec.microBatch,
                           spec.activationType, spec.weightType,
                           spec.gradientType, spec.optimizerStateType,
                           spec.attentionDropout, spec.hiddenDropout);
}

//===----------------------------------------------------------------------===//
// InferenceAttr
//===----------------------------------------------------------------------===//

static workload::InferenceSpec
toInferenceSpec(int64_t batch, int64_t promptLength, int64_t generatedTokens,
                workload::DataType activationType,
                workload::DataType weightType,
                workload::DataType kvCacheType) {
  workload::InferenceSpec spec;
  spec.batch = batch;
  spec.promptLength = promptLength;
  spec.generatedTokens = generatedTokens;
  spec.activationType = activationType;
  spec.weightType = weightType;
  spec.kvCacheType = kvCacheType;
  return spec;
}

LogicalResult InferenceAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t batch,
    int64_t promptLength, int64_t generatedTokens,
    workload::DataType activationType, workload::DataType weightType,
    workload::DataType kvCacheType) {
  return reportViolations(
      emitError, workload::checkInference(toInferenceSpec(
                     batch, promptLength, generatedTokens, activationType,
                     weightType, kvCacheType)));
}

workload::InferenceSpec InferenceAttr::getSpec() const {
  return toInferenceSpec(getBatch(), getPromptLength(), getGeneratedTokens(),
                         getActivationType(), getWeightType(),
                         getKvCacheType());
}

InferenceAttr
blueprint::transformer::getInferenceAttr(MLIRContext *context,
                                         const workload::InferenceSpec &spec) {
  return InferenceAttr::get(context, spec.batch, spec.promptLength,
                            spec.generatedTokens, spec.activationType,
                            spec.weightType, spec.kvCacheType);
}

//===----------------------------------------------------------------------===//
// MappingAttr
//===----------------------------------------------------------------------===//

static workload::MappingSpec toMappingSpec(
    int64_t world, int64_t tp, int64_t pp, int64_t dp, int64_t virtualStages,
    workload::TPCommMode tpComm, workload::RecomputePolicy recompute,
    workload::PipelineSchedule schedule, ArrayRef<int64_t> pipelineLayout,
    int64_t zeroStage, int64_t bucketBytes, int64_t cp,
    workload::CPCommMode cpComm, int64_t ep, bool overlapTPComm,
    bool overlapDPGradReduce, bool overlapP2PComm) {
  workload::MappingSpec spec;
  spec.world = world;
  spec.tp = tp;
  spec.pp = pp;
  spec.dp = dp;
  spec.virtualStages = virtualStages;
  spec.tpComm = tpComm;
  spec.recompute = recompute;
  spec.schedule = schedule;
  spec.pipelineLayout.assign(pipelineLayout.begin(), pipelineLayout.end());
  spec.zeroStage = zeroStage;
  spec.bucketBytes = bucketBytes;
  spec.cp = cp;
  spec.cpComm = cpComm;
  spec.ep = ep;
  spec.overlapTPComm = overlapTPComm;
  spec.overlapDPGradReduce = overlapDPGradReduce;
  spec.overlapP2PComm = overlapP2PComm;
  return spec;
}

LogicalResult MappingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t world, int64_t tp,
    int64_t pp, int64_t dp, int64_t virtualStages, workload::TPCommMode tpComm,
    workload::RecomputePolicy recompute, workload::PipelineSchedule schedule,
    ArrayRef<int64_t> layout, int64_t zeroStage, int64_t bucketBytes,
    int64_t cp, workload::CPCommMode cpComm, int64_t ep, bool overlapTPComm,
    bool overlapDPGradReduce, bool overlapP2PComm) {
  return reportViolations(
      emitError, workload::checkMapping(toMappingSpec(
                     world, tp, pp, dp, virtualStages, tpComm, recompute,
                     schedule, layout, zeroStage, bucketBytes, cp, cpComm, ep,
                     overlapTPComm, overlapDPGradReduce, overlapP2PComm)));
}

workload::MappingSpec MappingAttr::getSpec() const {
  return toMappingSpec(
      getWorld(), getTp(), getPp(), getDp(), getVirtualStages(), getTpComm(),
      getRecompute(), getSchedule(), getPipelineLayout(), getZeroStage(),
      getBucketBytes(), getCp(), getCpComm(), getEp(), getOverlapTpComm(),
      getOverlapDpGradReduce(), getOverlapP2pComm());
}

MappingAttr
blueprint::transformer::getMappingAttr(MLIRContext *context,
                                       const workload::MappingSpec &spec) {
  return MappingAttr::get(
      context, spec.world, spec.tp, spec.pp, spec.dp, spec.virtualStages,
      spec.tpComm, spec.recompute, spec.schedule, spec.pipelineLayout,
      spec.zeroStage, spec.bucketBytes, spec.cp, spec.cpComm, spec.ep,
      spec.overlapTPComm, spec.overlapDPGradReduce, spec.overlapP2PComm);
}

std::optional<std::string> blueprint::transformer::workloadContractViolation(
    TrainingAttr training, InferenceAttr inference,
    std::optional<int64_t> decodeContext) {
  if (static_cast<bool>(training) == static_cast<bool>(inference))
    return std::string("a program carries exactly one workload contract, "
                       "training or inference");
  if (training)
    return decodeContext ? std::optional<std::string>(
                               "decode_context belongs to inference programs")
                         : std::nullopt;
  return workload::decodeContextViolation(inference.getSpec(), decodeContext);
}

LogicalResult blueprint::transformer::verifyProgramRun(
    Operation *program, ModelAttr model, MappingAttr mapping,
    TrainingAttr training, InferenceAttr inference, llvm::StringRef label) {
  workload::WorkloadContract workload;
  if (training)
    workload.training = training.getSpec();
  if (inference)
    workload.inference = inference.getSpec();
  return reportViolations(
      [program] { return program->emitOpError(); },
      workload::checkProgramRun(model.getSpec(), mapping.getSpec(), workload)
          .all(),
      (label + ": ").str());
}
