// Parses ModelIR with the installed transformer dialect and prints the
// composition the verifier established.
#include "Blueprint/Dialect/Transformer/IR/TransformerOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext context;
  context.loadDialect<blueprint::transformer::TransformerDialect>();
  const char *source = R"mlir(
    transformer.decoder_training @tiny
      model = <hidden = 64, heads = 4, ffn_hidden = 256, seq_length = 32,
               vocab = 128, blocks = 4, norm = layernorm, activation = gelu>
      training = <global_batch = 8, micro_batch = 2, activation_type = bf16,
                  weight_type = bf16, gradient_type = f32,
                  optimizer_state_type = f32>
      mapping = <world = 4, tp = 2, pp = 1, dp = 2, virtual_stages = 1,
                 tp_comm = all_reduce, recompute = none,
                 schedule = one_f_one_b>
  )mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return 1;
  for (auto op : module->getOps<blueprint::transformer::DecoderTrainingOp>())
    llvm::outs() << "microbatches " << op.getComposition().microbatches
                 << "\n";
  return 0;
}
