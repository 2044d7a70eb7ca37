//===- ModelSummaryReport.cpp - The model summary as JSON and text --------===//
//
// The schema is documented in docs/ModelSummary.md. 128-bit counts are
// written as exact JSON integers (llvm::json::Value holds only 64 bits).
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Analysis/ModelSummary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace blueprint;
using namespace blueprint::analysis;

namespace {

void wideAttribute(llvm::json::OStream &json, llvm::StringRef name,
                   const llvm::APInt &count) {
  json.attributeBegin(name);
  json.rawValue(toDecimal(count));
  json.attributeEnd();
}

void volumeAttribute(llvm::json::OStream &json, llvm::StringRef name,
                     const CommunicationVolume &volume) {
  json.attributeObject(name, [&] {
    json.attribute("message_bytes", volume.messageBytes);
    json.attribute("transfer_bytes", volume.transferBytes);
  });
}

} // namespace

void analysis::writeModelSummaryAttributes(const ModelSummary &summary,
                                           llvm::json::OStream &json) {
  const ModelQuantities &quantities = summary.quantities;
  const PipelineShape &pipeline = quantities.pipeline;
  json.attributeObject("shape", [&] {
    json.attribute("blocks", summary.model.blocks);
    json.attribute("tp", summary.mapping.tp);
    json.attribute("pp", summary.mapping.pp);
    json.attribute("dp", summary.mapping.dp);
    json.attribute("world", summary.mapping.world);
    json.attribute("schedule", workload::stringifyEnum(pipeline.schedule));
    json.attribute("microbatches", pipeline.microbatches);
    json.attribute("virtual_stages", pipeline.virtualStages);
    json.attribute("blocks_per_stage", pipeline.blocksPerStage);
    json.attribute("blocks_per_chunk", pipeline.blocksPerChunk);
    json.attribute("in_flight_chunks", pipeline.inFlightChunks);
    json.attribute("bubble_stage_slots", pipeline.bubbleStageSlots);
  });
  const ParameterCounts &parameters = quantities.parameters;
  json.attributeObject("parameters", [&] {
    json.attribute("per_block", parameters.perBlock);
    json.attribute("per_block_per_rank", parameters.perBlockPerRank);
    if (parameters.denseBlocks > 0) {
      json.attribute("dense_blocks", parameters.denseBlocks);
      json.attribute("per_dense_block", parameters.perDenseBlock);
      json.attribute("per_dense_block_per_rank",
                     parameters.perDenseBlockPerRank);
    }
    json.attribute("word_embedding", parameters.wordEmbedding);
    json.attribute("position_embedding", parameters.positionEmbedding);
    json.attribute("output_layer", parameters.outputLayer);
    json.attribute("final_norm", parameters.finalNorm);
    json.attribute("model", parameters.model);
    json.attribute("first_stage_per_rank", parameters.firstStagePerRank);
    if (parameters.active)
      json.attribute("active", *parameters.active);
  });
  json.attributeObject("memory_per_rank", [&] {
    json.attribute("weight_bytes", quantities.state.weights);
    json.attribute("gradient_bytes", quantities.state.gradients);
    json.attribute("optimizer_state_bytes", quantities.state.optimizerState);
    json.attribute("optimizer_state_bytes_sharded",
                   quantities.state.optimizerStateSharded);
    json.attribute("block_state_bytes", quantities.state.blockStates);
    json.attribute("activation_bytes_per_block",
                   quantities.activations.perBlockPerMicroBatch);
    if (parameters.denseBlocks > 0)
      json.attribute("activation_bytes_per_dense_block",
                     quantities.activations.perDenseBlockPerMicroBatch);
    json.attribute("activation_bytes", quantities.activations.firstStage);
  });
  const IterationFlops &flops = quantities.flops;
  json.attributeObject("flops_per_iteration", [&] {
    wideAttribute(json, "blocks", flops.blocks);
    wideAttribute(json, "recompute", flops.recompute);
    wideAttribute(json, "logits", flops.logits);
    wideAttribute(json, "model", flops.model);
    wideAttribute(json, "hardware", flops.hardware);
  });
  if (summary.graph)
    json.attributeObject("graph", [&] {
      wideAttribute(json, "model_flops", summary.graph->modelFlops);
      wideAttribute(json, "recompute_flops", summary.graph->recomputeFlops);
      if (summary.graph->firstStageParameters)
        json.attribute("first_stage_parameters",
                       *summary.graph->firstStageParameters);
      json.attributeArray("pipeline_bytes_sent_per_rank", [&] {
        for (int64_t bytes : summary.graph->pipelineBytesSent)
          json.value(bytes);
      });
      json.attributeArray("peak_bytes_per_stage", [&] {
        for (int64_t bytes : summary.graph->peakBytesPerStage)
          json.value(bytes);
      });
      json.attribute("first_stage_block_activation_bytes",
                     summary.graph->firstStageBlockActivations);
      if (const auto &time = summary.graph->time)
        json.attributeObject("critical_path", [&] {
          estimate::writeSecondsAttribute(json, "iteration_seconds",
                                          time->iterationPicoseconds);
          estimate::writeSecondsAttribute(
              json, "exposed_communication_seconds",
              time->exposedCommunicationPicoseconds);
          json.attribute("model_flops_utilization",
                         time->modelFlopsUtilization);
          json.attribute("hardware_flops_utilization",
                         time->hardwareFlopsUtilization);
        });
    });
  const IterationCommunication &communication = quantities.communication;
  json.attributeObject("communication_per_rank", [&] {
    volumeAttribute(json, "tensor_parallel", communication.tensorParallel);
    // Only at ep > 1, so every ep = 1 summary keeps its fields.
    if (summary.mapping.ep > 1)
      volumeAttribute(json, "expert_parallel", communication.expertParallel);
    json.attributeObject("pipeline", [&] {
      json.attribute("boundary_bytes", communication.pipelineBoundaryBytes);
      json.attribute("send_bytes", communication.pipelineSendBytes);
      json.attribute("messages", communication.pipelineMessages);
      json.attribute("message_bytes", communication.pipeline.messageBytes);
      json.attribute("transfer_bytes", communication.pipeline.transferBytes);
    });
    volumeAttribute(json, "embedding_grad_sync",
                    communication.embeddingGradSync);
    volumeAttribute(json, "data_parallel", communication.dataParallel);
    volumeAttribute(json, "data_parallel_sharded",
                    communication.dataParallelSharded);
  });
  if (!summary.time)
    return;
  const IterationTime &time = *summary.time;
  json.attributeObject("iteration_time", [&] {
    json.attribute("profile", time.block.profileName);
    json.attributeObject("binding", [&] {
      for (const auto &[axis, tier] : time.block.tierOfAxis)
        json.attribute(axis, tier);
    });
    if (!time.implementations.empty())
      json.attributeArray("implementations", [&] {
        for (const std::string &name : time.implementations)
          json.value(name);
      });
    json.attributeObject("block_seconds", [&] {
      json.attribute("forward", time.block.block.forward);
      json.attribute("recompute", time.block.block.recompute);
      json.attribute("backward", time.block.block.backward);
      json.attribute("combined", time.block.block.combined);
      json.attribute("per_iteration",
                     time.block.secondsByCadence[static_cast<size_t>(
                         workload::Cadence::PerIteration)]);
    });
    json.attribute("stage_slot_seconds", time.stageSlotSeconds);
    json.attribute("pipeline_message_seconds", time.pipelineMessageSeconds);
    json.attribute("lm_head_seconds_per_microbatch", time.headSeconds);
    json.attribute("embedding_seconds_per_microbatch", time.embeddingSeconds);
    json.attributeArray("terms", [&] {
      for (const IterationTerm &term : time.terms)
        json.object([&] {
          json.attribute("name", term.name);
          json.attribute("seconds", term.seconds);
          json.attribute("provenance", term.provenance);
        });
    });
    json.attribute("total_seconds", time.totalSeconds);
    json.attributeObject("peak", [&] {
      json.attribute("field", time.peakField);
      json.attribute("ops_per_second", time.peakOpsPerSecond);
    });
    json.attribute("model_flops_utilization", time.modelFlopsUtilization);
    json.attribute("hardware_flops_utilization", time.hardwareFlopsUtilization);
  });
}

namespace {

/// One line of the text report: a quantity, its value and how it is formed.
void row(llvm::raw_ostream &os, llvm::StringRef name, llvm::StringRef value,
         llvm::StringRef formula) {
  os << llvm::formatv("  {0,-34} {1,24}  {2}\n", name, value, formula);
}

void row(llvm::raw_ostream &os, llvm::StringRef name, int64_t value,
         llvm::StringRef formula) {
  row(os, name, std::to_string(value), formula);
}

std::string seconds(double value) {
  return llvm::formatv("{0} s", llvm::format("%.6g", value)).str();
}

std::string percent(double fraction) {
  return llvm::formatv("{0}%", llvm::format("%.4g", 100 * fraction)).str();
}

} // namespace

void analysis::printModelSummaryTable(const ModelSummary &summary,
                                      llvm::raw_ostream &os) {
  const ModelQuantities &quantities = summary.quantities;
  const PipelineShape &pipeline = quantities.pipeline;
  const workload::MappingSpec &mapping = summary.mapping;
  // No cp in the header: the model summary refuses cp > 1
  // (model_summary_c1), so world = tp * pp * dp.
  os << "model summary of plan @" << summary.planName << ": "
     << summary.model.blocks << " blocks, tp " << mapping.tp << " x pp "
     << mapping.pp << " x dp " << mapping.dp << " (world " << mapping.world
     << "), " << workload::stringifyEnum(pipeline.schedule) << " with v "
     << pipeline.virtualStages << ", " << pipeline.microbatches
     << " micro-batches\n\n";

  os << "pipeline\n";
  row(os, "blocks per stage", pipeline.blocksPerStage, "blocks / pp");
  row(os, "blocks per chunk", pipeline.blocksPerChunk, "blocks / (pp * v)");
  row(os, "chunks in flight (first stage)", pipeline.inFlightChunks,
      "gpipe m; 1F1B min(m, pp); interleaved min(m*v, (v+1)pp - 1)");
  row(os, "bubble stage slots",
      llvm::formatv("{0:F4}", pipeline.bubbleStageSlots).str(),
      "pp - 1; interleaved (pp - 1) / v");

  const ParameterCounts &parameters = quantities.parameters;
  os << "\nparameters\n";
  bool mixed = parameters.denseBlocks > 0;
  row(os, mixed ? "per MoE block" : "per block", parameters.perBlock,
      mixed ? "attention, norms, router, E routed and the shared experts"
            : "MLM2021 Eq. 2 per layer (12h^2 + 13h for the GPT shape)");
  bool expertParallel = mapping.ep > 1;
  row(os, mixed ? "per MoE block per rank" : "per block per rank",
      parameters.perBlockPerRank,
      expertParallel
          ? "column/row-parallel weights / tp, replicated biases and norms; "
            "routed experts: E / ep of them, each / tp"
          : "column/row-parallel weights / tp, replicated biases and norms");
  if (mixed) {
    row(os, "dense blocks", parameters.denseBlocks,
        "first_dense_blocks and the blocks moe_layer_frequency skips");
    row(os, "per dense block", parameters.perDenseBlock,
        "attention, norms and the dense MLP of width ffn_hidden");
    row(os, "per dense block per rank", parameters.perDenseBlockPerRank,
        "column/row-parallel weights / tp, replicated biases and norms");
  }
  row(os, "word embedding", parameters.wordEmbedding,
      "V * h, vocabulary-parallel; the LM head is tied to it unless untied");
  row(os, "position embedding", parameters.positionEmbedding,
      "max_positions * h (learned); 0 rotary");
  row(os, "output layer", parameters.outputLayer, "h * V untied; 0 tied");
  row(os, "final norm", parameters.finalNorm, "2h LayerNorm, h RMSNorm");
  row(os, "model", parameters.model,
      mixed ? "dense blocks * per dense block + MoE blocks * per MoE block + "
              "embeddings + output layer + final norm"
            : "blocks * per block + embeddings + output layer + final norm");
  if (parameters.active)
    row(os, "active", *parameters.active,
        "what a token passes through: model less the E - k routed experts "
        "of every MoE block it is not sent to");
  row(os, "first stage per rank", parameters.firstStagePerRank,
      "first-stage blocks of each kind * its per block per rank + V h / tp "
      "+ max_positions h");
  if (summary.graph && summary.graph->firstStageParameters)
    row(os, "first stage per rank (graph)",
        *summary.graph->firstStageParameters,
        "the first stage's optimizer ops / 16: equals first stage per rank "
        "(+ the last stage's final norm and output layer at pp = 1)");

  os << "\nmemory per rank of the first stage (bytes)\n";
  row(os, "weights", quantities.state.weights,
      "first stage per rank * weight bytes");
  row(os, "gradients", quantities.state.gradients,
      "first stage per rank * gradient bytes");
  row(os, "optimizer state", quantities.state.optimizerState,
      "first stage per rank * 3 (master, m, v) * optimizer bytes");
  row(os, "optimizer state, sharded over dp",
      quantities.state.optimizerStateSharded,
      expertParallel
          ? "(ceil(first stage dense per rank / dp) + ceil(first stage "
            "experts per rank / edp)) * 3 * optimizer bytes"
          : "ceil(first stage per rank / dp) * 3 * optimizer bytes");
  row(os, "block states", quantities.state.blockStates,
      "the blocks' weights + gradients + optimizer state");
  row(os, mixed ? "activations per MoE block" : "activations per block",
      quantities.activations.perBlockPerMicroBatch,
      "the plan's stashed bytes, one micro-batch");
  if (mixed)
    row(os, "activations per dense block",
        quantities.activations.perDenseBlockPerMicroBatch,
        "the dense block's stashed bytes, one micro-batch");
  row(os, "activations", quantities.activations.firstStage,
      mixed ? "chunks in flight * the chunk's blocks of each kind * their "
              "activations per block"
            : "chunks in flight * blocks per chunk * activations per block");
  if (summary.graph) {
    row(os, "activations (graph)", summary.graph->firstStageBlockActivations,
        "the most block stash buffers live at once on the first stage: "
        "equals activations on a uniform layout outside ZB-H1");
    for (auto [stage, bytes] :
         llvm::enumerate(summary.graph->peakBytesPerStage))
      row(os, "peak, stage " + std::to_string(stage) + " (graph)", bytes,
          "the largest sum of live buffers (docs/Memory.md)");
  }

  const IterationFlops &flops = quantities.flops;
  os << "\nmatmul FLOPs per iteration (all ranks)\n";
  row(os, "blocks", toDecimal(flops.blocks),
      "fwd + act-grad + weight-grad ops per rank * tp * blocks * m * dp");
  row(os, "recompute", toDecimal(flops.recompute),
      "recompute ops per rank * tp * blocks * m * dp");
  row(os, "logits", toDecimal(flops.logits), "6 B s h V (LM head)");
  row(os, "model", toDecimal(flops.model), "blocks + logits (SeqSel Eq. 7)");
  row(os, "hardware", toDecimal(flops.hardware), "model + recompute");
  if (summary.graph) {
    row(os, "model (graph)", toDecimal(summary.graph->modelFlops),
        "the whole-run plan's fwd + act-grad + weight-grad matmul ops * tp "
        "* dp, over its stages: equals model");
    row(os, "recompute (graph)", toDecimal(summary.graph->recomputeFlops),
        "the plan's recompute matmul ops * tp * dp: equals recompute");
  }

  const IterationCommunication &communication = quantities.communication;
  os << "\ncommunication per rank per iteration (bytes: message / transfer)\n";
  auto volume = [&](llvm::StringRef name, const CommunicationVolume &bytes,
                    llvm::StringRef formula) {
    row(os, name,
        std::to_string(bytes.messageBytes) + " / " +
            std::to_string(bytes.transferBytes),
        formula);
  };
  volume("tensor parallel", communication.tensorParallel,
         expertParallel
             ? "block collectives (less the dispatcher's over ep) * blocks * "
               "m + per-iteration * blocks + pipeline gathers"
             : "block collectives * blocks * m + per-iteration * blocks + "
               "pipeline gathers");
  if (expertParallel)
    volume("expert parallel", communication.expertParallel,
           "the dispatcher's token-count all-gather over ep x tp and "
           "all-to-alls over ep * MoE blocks * m");
  row(os, "pipeline boundary per message", communication.pipelineBoundaryBytes,
      "the block output one rank holds");
  row(os, "pipeline send per message", communication.pipelineSendBytes,
      "scatter/gather: boundary / tp when TP-replicated");
  row(os, "pipeline messages", communication.pipelineMessages, "2 * m * v");
  volume("pipeline", communication.pipeline, "messages * send");
  if (summary.graph)
    for (auto [stage, bytes] :
         llvm::enumerate(summary.graph->pipelineBytesSent))
      row(os, "pipeline sent, stage " + std::to_string(stage) + " (graph)",
          bytes,
          "the plan's sends: a middle stage's equal the pipeline message "
          "bytes");
  volume("tied-embedding gradient sync", communication.embeddingGradSync,
         "all-reduce of V h / tp gradients, first and last stage");
  volume("data parallel", communication.dataParallel,
         "all-reduce of the first stage's gradients");
  volume("data parallel, sharded optimizer", communication.dataParallelSharded,
         "reduce-scatter gradients + all-gather weights");

  if (summary.graph && summary.graph->time) {
    const GraphFigures::CriticalPathTime &path = *summary.graph->time;
    os << "\niteration time from the whole-run graph\n";
    row(os, "iteration (critical path)",
        estimate::formatSeconds(path.iterationPicoseconds) + " s",
        "the longest path through the plan's graph (--critical-path)");
    row(os, "exposed communication",
        estimate::formatSeconds(path.exposedCommunicationPicoseconds) + " s",
        "collectives and transfers on the critical path");
    row(os, "model FLOPs utilization", percent(path.modelFlopsUtilization),
        "model FLOPs / (critical path * world * matmul peak)");
    row(os, "hardware FLOPs utilization",
        percent(path.hardwareFlopsUtilization),
        "hardware FLOPs / (critical path * world * matmul peak)");
  }
  if (!summary.time)
    return;
  const IterationTime &time = *summary.time;
  os << "\niteration time on profile '" << time.block.profileName
     << "', binding";
  for (const auto &[axis, tier] : time.block.tierOfAxis)
    os << " " << axis << "->" << tier;
  if (!time.implementations.empty())
    os << ", implementations " << llvm::join(time.implementations, ",");
  os << "\n";
  for (const IterationTerm &term : time.terms)
    row(os, term.name, seconds(term.seconds), term.provenance);
  row(os, "total", seconds(time.totalSeconds), "sum of the terms");
  row(os, "model FLOPs utilization", percent(time.modelFlopsUtilization),
      "model FLOPs / (total * world * " + time.peakField + ")");
  row(os, "hardware FLOPs utilization", percent(time.hardwareFlopsUtilization),
      "hardware FLOPs / (total * world * " + time.peakField + ")");
}
