//===- DistAttrs.td - DistributedTaskIR attributes and types ----*- tablegen -*-===//

#ifndef BLUEPRINT_DIST_ATTRS
#define BLUEPRINT_DIST_ATTRS

include "Blueprint/Dialect/Dist/IR/DistDialect.td"
include "Blueprint/Workload/WorkloadEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Dist_Attr<string name, string attrMnemonic>
    : AttrDef<Dist_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Dist_ShardingAttr : Dist_Attr<"Sharding", "sharding"> {
  let summary = "how a logical tensor is split over the axes of a mesh";
  let description = [{
    As upstream `shard.sharding`: for each tensor dimension (outermost
    first), the mesh axes it is split over; trailing dimensions not listed
    are replicated, and a tensor split over no axis is replicated on every
    rank of the mesh.

    ```mlir
    // [b, s, h] split along the sequence over the `tp` axis.
    #dist.sharding<@tp_mesh, [[], ["tp"], []]>
    ```
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    "::mlir::ArrayAttr":$split_axes
  );
  let assemblyFormat = "`<` $mesh `,` $split_axes `>`";
}

def Dist_LineageAttr : Dist_Attr<"Lineage", "lineage"> {
  let summary = "why a piece of distributed work exists";
  let description = [{
    The metadata of the fused location every `dist` op carries: the ModelIR
    op it comes from (`model`), the primitive and phase of the work algebra,
    and the one-sentence cause. Together with the fused source location it
    leads from any task back to its model source.

    ```mlir
    loc(fused<#dist.lineage<model = "gpt", primitive = "qkv_proj",
                            phase = forward, cause = "forward of qkv_proj">>
              ["qkv_proj.forward", "gpt.json":1:1])
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$model,
    "::mlir::StringAttr":$primitive,
    "::blueprint::workload::Phase":$phase,
    "::mlir::StringAttr":$cause
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Dist_TokenType : TypeDef<Dist_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "completion of a piece of work, for explicit dependencies";
}

#endif // BLUEPRINT_DIST_ATTRS
