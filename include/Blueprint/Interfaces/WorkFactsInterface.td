//===- WorkFactsInterface.td - Exact work facts of an op --------*- tablegen -*-===//
//
// Every op that stands for work (a `dist` task or collective, a `pplan` task)
// exposes the same exact facts, so the work summary, the conservation check
// and the checkpoint observers read any stage through one interface.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_INTERFACES_WORKFACTS
#define BLUEPRINT_INTERFACES_WORKFACTS

include "mlir/IR/OpBase.td"
include "mlir/IR/Properties.td"

/// The bytes a work op reads, writes or stashes per logical tensor
/// (TensorBytes.h), printed `{w_qkv = 113246208, x = 50331648}`; the generic
/// form and bytecode hold it as a dictionary of i64 byte counts.
def Blueprint_TensorBytesProp : Property<"::blueprint::TensorBytesList",
    "bytes per logical tensor", "::llvm::ArrayRef<::blueprint::TensorBytes>"> {
  let convertFromStorage = "::llvm::ArrayRef<::blueprint::TensorBytes>{$_storage}";
  let assignToStorage = "$_storage.assign($_value.begin(), $_value.end())";
  // convertToAttribute and convertFromAttribute: the default calls, which
  // find the overloads of TensorBytes.h.
  let hashProperty = "::blueprint::hashTensorBytes($_storage)";
  let parser = [{
    if (::mlir::failed(::blueprint::parseTensorBytes($_parser, $_storage)))
      return ::mlir::failure();
  }];
  let printer = "::blueprint::printTensorBytes($_printer, $_storage)";
  let writeToMlirBytecode = writeMlirBytecodeWithConvertToAttribute;
  let readFromMlirBytecode = readMlirBytecodeUsingConvertFromAttribute;
}

def WorkFactsOpInterface : OpInterface<"WorkFactsOpInterface"> {
  let cppNamespace = "::blueprint";
  let description = [{
    The exact, target-neutral facts of one primitive invocation: its
    primitive id, phase, engine class, cadence, operations, the bytes it
    reads, writes and stashes per logical tensor, and for a collective its
    kind, reduction, participants and logical message bytes.
  }];
  // The facts every work op stores under the same accessor names are read
  // through them; engine and collective facts depend on the op.
  let methods = [
    InterfaceMethod<"primitive id (docs/WorkAlgebra.md)", "::llvm::StringRef",
      "getPrimitive", (ins), [{ return $_op.getPrimitive(); }]>,
    InterfaceMethod<"primitive id, as the op holds it", "::mlir::StringAttr",
      "getPrimitiveAttr", (ins), [{ return $_op.getPrimitiveAttr(); }]>,
    InterfaceMethod<"work phase", "::blueprint::workload::Phase", "getPhase",
      (ins), [{ return $_op.getPhase(); }]>,
    InterfaceMethod<"how often the work happens",
      "::blueprint::workload::Cadence", "getCadence", (ins),
      [{ return $_op.getCadence(); }]>,
    InterfaceMethod<"exact operations on one rank", "int64_t", "getOps",
      (ins), [{ return $_op.getOps(); }]>,
    InterfaceMethod<"bytes read per logical tensor", "::llvm::ArrayRef<::blueprint::TensorBytes>",
      "getReads", (ins), [{ return $_op.getReads(); }]>,
    InterfaceMethod<"bytes written per logical tensor",
      "::llvm::ArrayRef<::blueprint::TensorBytes>", "getWrites", (ins),
      [{ return $_op.getWrites(); }]>,
    InterfaceMethod<"bytes stashed for the backward pass per logical tensor",
      "::llvm::ArrayRef<::blueprint::TensorBytes>", "getStashed", (ins),
      [{ return $_op.getStashed(); }]>,
    InterfaceMethod<"engine class", "::blueprint::workload::Engine",
      "getWorkEngine">,
    InterfaceMethod<"collective facts, if the op is a collective",
      "std::optional<::blueprint::workload::CollectiveFacts>",
      "getCollectiveFacts">,
    InterfaceMethod<"the GEMMs of a matmul as [batch, M, N, K, ...] "
      "(empty when the op carries none)", "::llvm::ArrayRef<int64_t>",
      "getGemmExtents">,
    InterfaceMethod<"how much of `ops` the GEMMs make: all (every task but "
      "one) or at most all (the fused kernel of an implementation "
      "transformation, whose ops also count its vector work)",
      "::blueprint::workload::GemmCover", "getGemmCover", (ins), [{}],
      [{ return ::blueprint::workload::GemmCover::AllOps; }]>
  ];
}

#endif // BLUEPRINT_INTERFACES_WORKFACTS
