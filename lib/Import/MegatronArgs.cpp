//===- MegatronArgs.cpp - Import a Megatron-LM launch argument list -------===//
//
// Maps Megatron-LM's command-line flags onto the three ModelIR contracts,
// reproducing Megatron's own defaults and derived values
// (docs/ImportMegatron.md has the flag-to-field table). Every flag is in
// exactly one class:
//   - modelled: mapped to a contract field;
//   - workload-neutral: optimizer hyper-parameters, logging, I/O, data and
//     tokenizer paths, seeds: they change no operation, byte or message;
//   - not modelled: they change the workload in a way Blueprint does not yet
//     derive (experts, ...): rejected by name (context parallelism's flags
//     are read into the mapping contract);
//   - unknown: rejected by name, since nobody can tell what they change.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Import/TrainingModule.h"

#include "Blueprint/Import/Import.h"
#include "Blueprint/Workload/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::workload;

namespace {

/// Switches (flags without a value) that change no operation, byte or
/// message; the modelled switches are ArgumentList::kModelledSwitches.
const llvm::StringSet<> kNeutralSwitches = {
    "--use-mcore-models",
    "--no-masked-softmax-fusion",
    "--no-bias-gelu-fusion",
    "--no-bias-dropout-fusion",
    "--no-gradient-accumulation-fusion",
    "--overlap-grad-reduce",
    "--overlap-param-gather",
    "--log-timers-to-tensorboard",
    "--log-validation-ppl-to-tensorboard",
    "--log-memory-to-tensorboard",
    "--log-num-zeros-in-grad",
    "--log-params-norm",
    "--log-throughput",
    "--no-load-optim",
    "--no-load-rng",
    "--no-save-optim",
    "--no-save-rng",
    "--use-checkpoint-args",
    "--exit-on-missing-checkpoint"};

/// Flags with a value that change no operation, byte or message.
const llvm::StringSet<> kNeutralValueFlags = {
    "--lr", "--min-lr", "--lr-decay-style", "--lr-decay-iters",
    "--lr-decay-samples", "--lr-warmup-fraction", "--lr-warmup-iters",
    "--lr-warmup-samples", "--weight-decay", "--clip-grad", "--adam-beta1",
    "--adam-beta2", "--adam-eps", "--init-method-std", "--train-iters",
    "--train-samples", "--log-interval", "--eval-interval", "--eval-iters",
    "--save", "--load", "--save-interval", "--data-path", "--split",
    "--vocab-file", "--merge-file", "--tokenizer-type", "--tokenizer-model",
    "--seed", "--distributed-backend", "--tensorboard-dir", "--wandb-project",
    "--wandb-exp-name", "--data-cache-path", "--num-workers",
    "--initial-loss-scale", "--min-loss-scale", "--loss-scale-window",
    "--hysteresis", "--distributed-timeout-minutes", "--optimizer",
    "--attention-softmax-in-fp32",
    // The rotary base frequency changes the angles, not how many rotations
    // are applied.
    "--rotary-base"};

/// Flags that change the workload in ways Blueprint does not derive yet.
const llvm::StringSet<> kUnmodelledFlags = {
    "--num-experts",
    "--moe-router-topk",
    "--expert-model-parallel-size",
    "--moe-ffn-hidden-size",
    "--fp8-format",
    "--use-flash-attn",
    "--num-virtual-stages-per-pipeline-rank",
    "--squared-relu",
    "--rampup-batch-size",
    "--apply-layernorm-1p",
    "--qk-layernorm",
    "--cpu-offloading",
    "--recompute-modules"};

/// One whitespace-separated word of the argument list and where it starts.
struct Word {
  llvm::StringRef text;
  unsigned line = 0;
  unsigned column = 0;
};

/// The flags of one argument list: value flags map to their value, switches
/// to the empty string. Reports a repeated flag, a missing value or an
/// unknown or unmodelled flag, each at the flag's line and column.
class ArgumentList {
public:
  explicit ArgumentList(import::SourceFields &fields) : fields(fields) {}

  bool parse(llvm::StringRef text) {
    std::vector<Word> words = tokenize(text);
    // The flag whose separate value the previous word was; a further word
    // without "--" continues that value as a list.
    llvm::StringRef valueOf;
    for (size_t i = 0; i < words.size(); ++i) {
      const Word &word = words[i];
      Location at = locationOf(word);
      if (!word.text.starts_with("--")) {
        // Megatron takes --cp-comm-type as a list (one type per layer,
        // nargs='+'); one type for every layer is the contract's.
        if (valueOf == "--cp-comm-type")
          error(at, "flag '" + valueOf +
                        "' takes one value: a per-layer "
                        "list of context-parallel communication types is not "
                        "supported, got a further value '" +
                        word.text + "'");
        else
          error(at, "'" + word.text +
                        "' is not a flag (expected --name or --name=value)");
        valueOf = "";
        continue;
      }
      valueOf = "";
      auto [flag, inlineValue] = word.text.split('=');
      bool hasInlineValue = word.text.contains('=');
      if (flag == "--multi-latent-attention") {
        // The model contract expresses MLA (kv_lora_rank and the rest);
        // what is missing is this importer's mapping of Megatron's MLA flags
        // (--q-lora-rank, --kv-lora-rank, --qk-head-dim, --qk-pos-emb-head-dim,
        // --v-head-dim).
        error(at, "Megatron flag '" + flag +
                      "' is not imported yet: the importer does not map "
                      "Megatron's multi-head latent attention flags; give "
                      "the MLA fields in a transformer.model instead");
        takeSeparateValue(words, i, hasInlineValue);
        continue;
      }
      if (kUnmodelledFlags.contains(flag)) {
        error(at, "Megatron flag '" + flag +
                      "' changes the workload but is not modelled by "
                      "Blueprint yet");
        takeSeparateValue(words, i, hasInlineValue);
        continue;
      }
      bool isSwitch =
          kModelledSwitches.contains(flag) || kNeutralSwitches.contains(flag);
      bool modelled = kModelledSwitches.contains(flag) ||
                      kModelledValueFlags.contains(flag);
      if (!isSwitch && !kNeutralValueFlags.contains(flag) && !modelled) {
        error(at, "unknown Megatron flag '" + flag +
                      "': not in Blueprint's flag table "
                      "(docs/ImportMegatron.md), so its effect on the "
                      "workload is unknown");
        // Its value, if it has one, is not another problem.
        takeSeparateValue(words, i, hasInlineValue);
        continue;
      }
      std::string value;
      if (isSwitch) {
        if (hasInlineValue)
          error(at, "flag '" + flag + "' takes no value");
      } else if (hasInlineValue) {
        value = inlineValue.str();
      } else if (std::optional<llvm::StringRef> separate =
                     takeSeparateValue(words, i, hasInlineValue)) {
        value = separate->str();
        valueOf = flag;
      } else {
        error(at, "flag '" + flag + "' needs a value");
        continue;
      }
      if (!values.try_emplace(flag, value).second) {
        error(at, "flag '" + flag + "' is given more than once");
        continue;
      }
      // Workload-neutral flags change no count, so no lineage leads to them.
      fields.add(flag, word.line, word.column, /*inLineage=*/modelled);
    }
    return !hasFailed;
  }

  bool has(llvm::StringRef flag) const { return values.count(flag); }

  std::optional<llvm::StringRef> value(llvm::StringRef flag) const {
    auto it = values.find(flag);
    if (it == values.end())
      return std::nullopt;
    return llvm::StringRef(it->second);
  }

  /// A 64-bit integer flag value; range rules are the contracts' own
  /// (reported later, naming the field). A value that is no integer is
  /// reported here and read as `fallback`, so the import goes on to report
  /// every other problem and then fails.
  int64_t integerOr(llvm::StringRef flag, int64_t fallback) {
    return integer(flag).value_or(fallback);
  }

  /// The integer value of `flag`, or std::nullopt if it is absent or (then
  /// reported) not an integer.
  std::optional<int64_t> integer(llvm::StringRef flag) {
    std::optional<llvm::StringRef> text = value(flag);
    if (!text)
      return std::nullopt;
    int64_t result;
    if (text->getAsInteger(10, result)) {
      error(flag, "flag '" + flag +
                      "' expects an integer in [-2^63, 2^63 - 1], got '" +
                      *text + "'");
      return std::nullopt;
    }
    return result;
  }

  /// A probability flag; only whether it is zero matters to the workload.
  std::optional<bool> nonZeroProbability(llvm::StringRef flag) {
    std::optional<llvm::StringRef> text = value(flag);
    if (!text)
      return std::nullopt;
    double probability;
    // Written so that NaN, which compares false with everything, fails.
    if (text->getAsDouble(probability) ||
        !(probability >= 0 && probability < 1)) {
      error(flag, "flag '" + flag + "' expects a probability in [0, 1), got '" +
                      *text + "'");
      return std::nullopt;
    }
    return probability != 0;
  }

  /// Reports `message` at the location of `flag` (the document's start if
  /// it was not given).
  void error(llvm::StringRef flag, const llvm::Twine &message) {
    error(fields.locationOf(flag), message);
  }
  void error(Location at, const llvm::Twine &message) {
    emitError(at) << "import: " << message.str();
    hasFailed = true;
  }
  bool failed() const { return hasFailed; }

  /// Value flags that map to contract fields.
  static const llvm::StringSet<> kModelledValueFlags;
  /// Switches that map to contract fields.
  static const llvm::StringSet<> kModelledSwitches;

private:
  /// The value written as the word after the flag at `index` (the next word,
  /// unless it is a flag or the value was given inline), advancing `index`
  /// past it.
  static std::optional<llvm::StringRef>
  takeSeparateValue(llvm::ArrayRef<Word> words, size_t &index,
                    bool hasInlineValue) {
    if (hasInlineValue || index + 1 >= words.size() ||
        words[index + 1].text.starts_with("--"))
      return std::nullopt;
    return words[++index].text;
  }

  Location locationOf(const Word &word) const {
    return FileLineColLoc::get(
        llvm::cast<FileLineColLoc>(fields.documentLocation()).getFilename(),
        word.line, word.column);
  }

  /// Splits on white space (spaces, tabs, carriage returns), dropping `#`
  /// comments and shell line continuations. A leading launcher word (e.g.
  /// `pretrain_gpt.py`) is not allowed: the file holds flags only.
  static std::vector<Word> tokenize(llvm::StringRef text) {
    std::vector<Word> words;
    unsigned lineNumber = 0;
    while (!text.empty()) {
      auto [line, rest] = text.split('\n');
      text = rest;
      ++lineNumber;
      llvm::StringRef content = line.split('#').first;
      constexpr llvm::StringLiteral kSpace = " \t\r\v\f";
      for (size_t start = content.find_first_not_of(kSpace);
           start != llvm::StringRef::npos;) {
        size_t end = content.find_first_of(kSpace, start);
        llvm::StringRef word = content.slice(start, end);
        if (word != "\\")
          words.push_back({word, lineNumber, static_cast<unsigned>(start + 1)});
        start = end == llvm::StringRef::npos
                    ? end
                    : content.find_first_not_of(kSpace, end);
      }
    }
    return words;
  }

  import::SourceFields &fields;
  bool hasFailed = false;
  llvm::StringMap<std::string> values;
};

const llvm::StringSet<> ArgumentList::kModelledValueFlags = {
    "--num-layers",
    "--hidden-size",
    "--ffn-hidden-size",
    "--num-attention-heads",
    "--num-query-groups",
    "--kv-channels",
    "--seq-length",
    "--max-position-embeddings",
    "--vocab-size",
    "--make-vocab-size-divisible-by",
    "--micro-batch-size",
    "--global-batch-size",
    "--tensor-model-parallel-size",
    "--pipeline-model-parallel-size",
    "--num-layers-per-virtual-pipeline-stage",
    "--recompute-granularity",
    "--recompute-method",
    "--recompute-num-layers",
    "--normalization",
    "--attention-dropout",
    "--hidden-dropout",
    "--world-size",
    "--decoder-first-pipeline-num-layers",
    "--decoder-last-pipeline-num-layers",
    "--ddp-bucket-size",
    "--position-embedding-type",
    "--rotary-percent",
    "--context-parallel-size",
    "--cp-comm-type"};

const llvm::StringSet<> ArgumentList::kModelledSwitches = {
    "--sequence-parallel",
    "--bf16",
    "--fp16",
    "--swiglu",
    "--group-query-attention",
    "--recompute-activations",
    "--accumulate-allreduce-grads-in-fp32",
    "--use-distributed-optimizer",
    "--disable-bias-linear",
    "--add-qkv-bias",
    "--untie-embeddings-and-output-weights",
    "--use-rotary-position-embeddings",
    "--no-position-embedding",
    "--overlap-p2p-communication",
    "--no-overlap-p2p-communication"};

/// Megatron pads the vocabulary to a multiple of
/// make-vocab-size-divisible-by x TP (megatron/training/tokenizer:
/// _vocab_size_with_padding).
std::optional<int64_t> paddedVocab(int64_t vocab, int64_t divisibleBy,
                                   int64_t tp) {
  std::optional<int64_t> multiple = llvm::checkedMul(divisibleBy, tp);
  if (!multiple || *multiple <= 0 || vocab <= 0)
    return vocab;
  std::optional<int64_t> rounded =
      llvm::checkedAdd(vocab, *multiple - 1);
  if (!rounded)
    return std::nullopt;
  return *rounded / *multiple * *multiple;
}

} // namespace

OwningOpRef<ModuleOp>
blueprint::importMegatronArgs(llvm::SourceMgr &sourceMgr, MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef fileName = buffer->getBufferIdentifier();
  import::SourceFields fields(context, fileName);
  Location loc = fields.documentLocation();
  ArgumentList args(fields);
  if (!args.parse(buffer->getBuffer()))
    return nullptr;

  for (llvm::StringRef required :
       {"--num-layers", "--hidden-size", "--num-attention-heads",
        "--seq-length", "--micro-batch-size", "--vocab-size", "--world-size"})
    if (!args.has(required))
      args.error(loc,
                 "missing required flag '" + required + "'" +
                     (required == "--vocab-size"
                          ? " (Megatron reads it from the tokenizer; Blueprint "
                            "needs it given)"
                      : required == "--world-size"
                          ? " (Megatron reads it from the launcher; "
                            "Blueprint needs it given)"
                          : ""));
  if (args.failed())
    return nullptr;

  // Every required flag is present; one that is no integer has been
  // reported and reads as 0 until the import fails below.
  ModelSpec model;
  model.blocks = args.integerOr("--num-layers", 0);
  model.hidden = args.integerOr("--hidden-size", 0);
  model.heads = args.integerOr("--num-attention-heads", 0);
  model.seqLength = args.integerOr("--seq-length", 0);
  model.maxPositions = args.integerOr("--max-position-embeddings",
                                      model.seqLength);
  model.kvHeads = args.has("--group-query-attention")
                      ? args.integerOr("--num-query-groups", 1)
                      : model.heads;
  if (args.has("--num-query-groups") && !args.has("--group-query-attention"))
    args.error("--num-query-groups",
               "flag '--num-query-groups' needs '--group-query-attention'");
  bool gated = args.has("--swiglu");
  model.activation = gated ? ActivationKind::SwiGLU : ActivationKind::GeLU;
  if (std::optional<int64_t> ffn = args.integer("--ffn-hidden-size")) {
    model.ffnHidden = *ffn;
  } else if (!args.has("--ffn-hidden-size")) {
    // Megatron's default FFN width: 4h, or for SwiGLU 4h x 2/3 rounded down
    // to a multiple of 64 (megatron/training/arguments.py), i.e. 8h / 3.
    std::optional<int64_t> width =
        llvm::checkedMul<int64_t>(gated ? 8 : 4, model.hidden);
    if (!width)
      args.error("--hidden-size",
                 "Megatron's default --ffn-hidden-size " +
                     llvm::Twine(gated ? "8h / 3 (--swiglu)" : "4h") +
                     " overflows a 64-bit integer at --hidden-size = " +
                     llvm::Twine(model.hidden));
    else
      model.ffnHidden = gated ? *width / 3 / 64 * 64 : *width;
  }
  std::variant<int64_t, RuleViolation> implicit =
      implicitHeadDim(model.hidden, model.heads,
                      /*qkNopeHeadDim=*/std::nullopt,
                      /*qkRopeHeadDim=*/std::nullopt);
  if (std::optional<int64_t> channels = args.integer("--kv-channels"))
    model.headDim = *channels;
  else if (auto *dimension = std::get_if<int64_t>(&implicit))
    model.headDim = *dimension;
  else if (!args.has("--kv-channels"))
    args.error("--hidden-size", "model (--hidden-size, --num-attention-heads, "
                                "no --kv-channels): " +
                                    std::get<RuleViolation>(implicit).rule +
                                    ": " +
                                    std::get<RuleViolation>(implicit).message);
  if (std::optional<llvm::StringRef> norm = args.value("--normalization")) {
    if (*norm == "LayerNorm")
      model.norm = NormKind::LayerNorm;
    else if (*norm == "RMSNorm")
      model.norm = NormKind::RMSNorm;
    else
      args.error("--normalization",
                 "flag '--normalization' expects LayerNorm or RMSNorm, got '" +
                     *norm + "'");
  }
  // Megatron's linear_qkv has a bias when add_bias_linear or add_qkv_bias
  // is set (megatron/core/transformer/attention.py), so --add-qkv-bias
  // matters only with --disable-bias-linear.
  if (args.has("--disable-bias-linear"))
    model.linearBias =
        args.has("--add-qkv-bias") ? LinearBias::QKVOnly : LinearBias::None;
  model.tiedEmbeddings = !args.has("--untie-embeddings-and-output-weights");
  if (std::optional<llvm::StringRef> type =
          args.value("--position-embedding-type")) {
    if (*type == "learned_absolute")
      model.positionEmbedding = PositionEmbedding::Learned;
    else if (*type == "rope")
      model.positionEmbedding = PositionEmbedding::Rotary;
    else
      args.error("--position-embedding-type",
                 "flag '--position-embedding-type' expects learned_absolute "
                 "or rope, got '" +
                     *type + "'");
  }
  // The older switch (megatron/training/arguments.py) means rope; next to
  // an explicit other type it is a contradiction, not a preference.
  if (args.has("--use-rotary-position-embeddings")) {
    if (args.value("--position-embedding-type") == "learned_absolute")
      args.error("--use-rotary-position-embeddings",
                 "flag '--use-rotary-position-embeddings' contradicts "
                 "'--position-embedding-type learned_absolute'");
    model.positionEmbedding = PositionEmbedding::Rotary;
  }
  // Without a learned table Megatron adds no position to the embeddings:
  // with rope the positions enter through the rotation, without it the
  // model would have none at all (NoPE), which the contract cannot say.
  if (args.has("--no-position-embedding") &&
      model.positionEmbedding != PositionEmbedding::Rotary)
    args.error("--no-position-embedding",
               "flag '--no-position-embedding' without rope leaves the model "
               "no position embedding at all, which is not modelled; it is "
               "accepted with '--position-embedding-type rope'");
  // Megatron reads the rotary percent only for rope.
  std::optional<llvm::StringRef> percent = args.value("--rotary-percent");
  if (percent && model.positionEmbedding == PositionEmbedding::Rotary) {
    double fraction;
    if (percent->getAsDouble(fraction) || fraction != 1.0)
      args.error("--rotary-percent",
                 "flag '--rotary-percent' = '" + *percent +
                     "': rotary embeddings on part of each head (partial "
                     "rotary) are not modelled; only 1.0 is accepted");
  }

  MappingSpec mapping;
  mapping.tp = args.integerOr("--tensor-model-parallel-size", 1);
  mapping.pp = args.integerOr("--pipeline-model-parallel-size", 1);
  mapping.cp = args.integerOr("--context-parallel-size", 1);
  mapping.world = args.integerOr("--world-size", 0);
  // Megatron-LM's data-parallel size is world / (tp * cp * pp)
  // (megatron/core/parallel_state.py, initialize_model_parallel).
  std::optional<int64_t> tpCp = llvm::checkedMul(mapping.tp, mapping.cp);
  std::optional<int64_t> tpCpPp =
      tpCp ? llvm::checkedMul(*tpCp, mapping.pp) : std::nullopt;
  if (!tpCpPp || *tpCpPp <= 0 || mapping.world % *tpCpPp != 0)
    args.error("--world-size",
               "--world-size = " + llvm::Twine(mapping.world) +
                   " is not divisible by --tensor-model-parallel-size x "
                   "--context-parallel-size x "
                   "--pipeline-model-parallel-size (transformer_mapping_c2)");
  else
    mapping.dp = mapping.world / *tpCpPp;
  // p2p is TransformerEngine's ring exchange; the all-to-all modes (a2a,
  // a2a+p2p, i.e. Ulysses and hierarchical) split heads instead of the
  // sequence's keys and are not modelled.
  if (std::optional<llvm::StringRef> cpComm = args.value("--cp-comm-type")) {
    if (*cpComm == "p2p")
      mapping.cpComm = CPCommMode::Ring;
    else if (*cpComm == "all_gather")
      mapping.cpComm = CPCommMode::AllGather;
    else
      args.error("--cp-comm-type",
                 "flag '--cp-comm-type' = '" + *cpComm +
                     "': only p2p (the ring) and all_gather are modelled; "
                     "the all-to-all modes (a2a, a2a+p2p) are not");
  }
  if (args.has("--sequence-parallel"))
    mapping.tpComm = TPCommMode::ReduceScatterAllGather;
  if (std::optional<int64_t> layersPerChunk =
          args.integer("--num-layers-per-virtual-pipeline-stage")) {
    // Megatron: virtual stages = layers / pp / layers-per-virtual-stage.
    if (*layersPerChunk <= 0 || mapping.pp <= 0 ||
        model.blocks % mapping.pp != 0 ||
        (model.blocks / mapping.pp) % *layersPerChunk != 0)
      args.error(
          "--num-layers-per-virtual-pipeline-stage",
          "--num-layers-per-virtual-pipeline-stage = " +
              llvm::Twine(*layersPerChunk) +
              " must divide --num-layers / --pipeline-model-parallel-size");
    else
      mapping.virtualStages = model.blocks / mapping.pp / *layersPerChunk;
    mapping.schedule = PipelineSchedule::Interleaved1F1B;
  }
  // Pipeline sends overlapped with compute (docs/ImportMegatron.md):
  // `--overlap-p2p-communication` (Megatron-LM f9283c5a8a to 4eeff55d1f)
  // needs the interleaved schedule, whose absence makes
  // forward_backward_pipelining_without_interleaving raise; without a
  // pipeline forward_backward_no_pipelining leaves it unused and there is
  // no send to overlap. `--no-overlap-p2p-communication` (since 4eeff55d1f)
  // is the default here.
  if (args.has("--overlap-p2p-communication")) {
    if (args.has("--no-overlap-p2p-communication"))
      args.error("--no-overlap-p2p-communication",
                 "megatron_overlap_p2p_c2: flags "
                 "'--overlap-p2p-communication' and "
                 "'--no-overlap-p2p-communication' contradict each other");
    else if (mapping.pp > 1 &&
             mapping.schedule != PipelineSchedule::Interleaved1F1B)
      args.error("--overlap-p2p-communication",
                 "megatron_overlap_p2p_c1: flag '--overlap-p2p-communication' "
                 "needs virtual pipeline stages "
                 "(--num-layers-per-virtual-pipeline-stage): Megatron-LM's "
                 "non-interleaved schedule raises \"Non-interleaved pipeline "
                 "parallelism does not support overlapping p2p "
                 "communication\"");
    else if (mapping.pp > 1)
      mapping.overlapP2PComm = true;
  }

  // Recompute: selective, or full with the uniform method checkpointing every
  // block (recompute-num-layers = 1). Other full-recompute shapes recompute
  // only some blocks, which the block-level policy cannot state.
  if (args.has("--recompute-activations"))
    mapping.recompute = RecomputePolicy::Selective;
  if (std::optional<llvm::StringRef> granularity =
          args.value("--recompute-granularity")) {
    if (*granularity == "selective") {
      mapping.recompute = RecomputePolicy::Selective;
    } else if (*granularity == "full") {
      mapping.recompute = RecomputePolicy::Full;
      llvm::StringRef method = args.value("--recompute-method").value_or("");
      int64_t layers = args.integerOr("--recompute-num-layers", 1);
      if (method != "uniform" || layers != 1)
        args.error(
            "--recompute-granularity",
            "'--recompute-granularity full' with --recompute-method '" +
                method + "' and --recompute-num-layers " + llvm::Twine(layers) +
                " recomputes only some blocks: not modelled by Blueprint "
                "yet (use --recompute-method uniform "
                "--recompute-num-layers 1)");
    } else {
      args.error("--recompute-granularity",
                 "flag '--recompute-granularity' expects full or selective, "
                 "got '" +
                     *granularity + "'");
    }
  } else if (args.has("--recompute-method") ||
             args.has("--recompute-num-layers")) {
    args.error(args.has("--recompute-method") ? "--recompute-method"
                                              : "--recompute-num-layers",
               "flags '--recompute-method'/'--recompute-num-layers' need "
               "'--recompute-granularity full'");
  }

  if (std::optional<int64_t> vocab = args.integer("--vocab-size")) {
    std::optional<int64_t> padded = paddedVocab(
        *vocab, args.integerOr("--make-vocab-size-divisible-by", 128),
        mapping.tp);
    if (!padded)
      args.error("--vocab-size",
                 "padding --vocab-size = " + llvm::Twine(*vocab) +
                     " overflows a 64-bit integer");
    model.vocab = padded.value_or(0);
  }

  TrainingSpec training;
  training.microBatch = args.integerOr("--micro-batch-size", 0);
  // Megatron's default global batch: one micro-batch per data-parallel rank.
  std::optional<int64_t> defaultGlobal =
      llvm::checkedMul(training.microBatch, mapping.dp);
  training.globalBatch =
      args.integerOr("--global-batch-size", defaultGlobal.value_or(0));
  if (args.has("--bf16") && args.has("--fp16"))
    args.error("--fp16", "flags '--bf16' and '--fp16' exclude each other");
  DataType low = args.has("--bf16")   ? DataType::BF16
                 : args.has("--fp16") ? DataType::F16
                                      : DataType::F32;
  training.activationType = low;
  training.weightType = low;
  // Megatron forces fp32 gradient accumulation and reduction under bf16.
  training.gradientType =
      args.has("--bf16") || args.has("--accumulate-allreduce-grads-in-fp32")
          ? DataType::F32
          : low;
  training.optimizerStateType = DataType::F32;
  training.attentionDropout =
      args.nonZeroProbability("--attention-dropout").value_or(true);
  training.hiddenDropout =
      args.nonZeroProbability("--hidden-dropout").value_or(true);
  // Megatron-LM's distributed optimizer shards the optimizer state over
  // the data-parallel ranks (ZeRO stage 1); its DDP buckets hold
  // --ddp-bucket-size gradient elements.
  if (args.has("--use-distributed-optimizer"))
    mapping.zeroStage = 1;
  if (std::optional<int64_t> bucketElements =
          args.integer("--ddp-bucket-size")) {
    std::optional<int64_t> bucketBytes =
        llvm::checkedMul(*bucketElements, bytesOf(training.gradientType));
    if (*bucketElements <= 0 || !bucketBytes)
      args.error("--ddp-bucket-size",
                 "--ddp-bucket-size = " + llvm::Twine(*bucketElements) +
                     " must be positive and its bytes fit 64 bits");
    else
      mapping.bucketBytes = *bucketBytes;
  }
  std::optional<int64_t> firstStageBlocks =
      args.integer("--decoder-first-pipeline-num-layers");
  std::optional<int64_t> lastStageBlocks =
      args.integer("--decoder-last-pipeline-num-layers");
  if (firstStageBlocks || lastStageBlocks) {
    llvm::StringRef flag = firstStageBlocks
                               ? "--decoder-first-pipeline-num-layers"
                               : "--decoder-last-pipeline-num-layers";
    std::variant<std::vector<int64_t>, RuleViolation> layout = firstLastLayout(
        model.blocks, mapping.pp, firstStageBlocks, lastStageBlocks);
    if (mapping.virtualStages != 1)
      args.error(flag, "flag '" + flag +
                           "' with virtual pipeline stages is not modelled: "
                           "Blueprint lays out one model chunk per stage");
    else if (auto *violation = std::get_if<RuleViolation>(&layout))
      args.error(flag, violation->rule + ": " + violation->message);
    else
      mapping.pipelineLayout = std::get<std::vector<int64_t>>(layout);
  }
  if (args.failed())
    return nullptr;

  return import::buildTrainingModule(
      fields.specLocation(),
      import::sanitizeSymbolName(llvm::sys::path::stem(fileName)), model,
      training, mapping,
      {{"model (--num-layers, --hidden-size, ...)", loc},
       {"training (--global-batch-size, --micro-batch-size, ...)", loc},
       {"mapping (--tensor-model-parallel-size, --world-size, ...)", loc},
       {"composition", loc}});
}
