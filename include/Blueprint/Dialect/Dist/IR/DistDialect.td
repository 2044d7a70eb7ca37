//===- DistDialect.td - DistributedTaskIR dialect ---------------*- tablegen -*-===//

#ifndef BLUEPRINT_DIST_DIALECT
#define BLUEPRINT_DIST_DIALECT

include "mlir/IR/OpBase.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::blueprint::dist";
  let summary = "DistributedTaskIR: exact work on a logical mesh of ranks";
  let description = [{
    The `dist` dialect is Blueprint's DistributedTaskIR. A `dist.program`
    holds, for one ModelIR source (recorded by digest), a logical mesh of
    ranks with named axes, the block's boundary values with their sharding,
    and the work: `dist.task` (matmul and vector primitives) and explicit
    collectives (`dist.all_reduce`, `dist.reduce_scatter`, `dist.all_gather`,
    `dist.all_to_all`)
    carrying exact operations, read/write/stash bytes per logical tensor and,
    for collectives, logical message bytes, reduction and participants.
    Dependencies are `!dist.token` values.

    Work ops write the abstract `dist.work` resource, so canonicalize, CSE
    and DCE can never fold, merge or erase two identical tasks: they are
    work, not values. The vocabulary (named mesh, mesh axes, reduction kind
    `sum`) is that of the upstream `shard` dialect so that an export is
    mechanical. Verifier rules are numbered (`dist_work_c3`, ...) and cited
    by the diagnostics, docs/DistSpec.md and test/Dialect/Dist/invalid.mlir.
  }];
  let dependentDialects = ["::blueprint::transformer::TransformerDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

#endif // BLUEPRINT_DIST_DIALECT
