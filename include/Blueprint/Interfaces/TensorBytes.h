//===- TensorBytes.h - Bytes a work op moves per logical tensor -*- C++ -*-===//
//
// The storage of a work op's `reads`, `writes` and `stashed` properties
// (TensorBytesProp, WorkFactsInterface.td): one entry per logical tensor, in
// name order, printed `{w_qkv = 28311552, x_norm1 = 50331648}`. Held in the
// op rather than as a DictionaryAttr of IntegerAttrs, so building an op
// uniques the tensor names only, and reading a byte count is a load.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_INTERFACES_TENSORBYTES_H
#define BLUEPRINT_INTERFACES_TENSORBYTES_H

#include "Blueprint/Workload/BlockWork.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"

namespace blueprint {

/// The bytes one op moves for one logical tensor.
struct TensorBytes {
  mlir::StringAttr tensor;
  int64_t bytes = 0;

  bool operator==(const TensorBytes &other) const {
    return tensor == other.tensor && bytes == other.bytes;
  }
};

/// A work op's list, in tensor-name order, each name once; three entries fit
/// in place, as many as most primitives read.
using TensorBytesList = llvm::SmallVector<TensorBytes, 3>;

/// The list of `accesses`, names uniqued in `context`, in name order.
TensorBytesList getTensorBytes(mlir::MLIRContext *context,
                               llvm::ArrayRef<workload::TensorAccess> accesses);

/// The entry of `tensor` in a list, or nullptr.
const TensorBytes *findTensor(llvm::ArrayRef<TensorBytes> list,
                              llvm::StringRef tensor);

/// The plain tensor accesses of a list.
std::vector<workload::TensorAccess>
getTensorAccesses(llvm::ArrayRef<TensorBytes> list);

/// Checks that a list names each tensor once, in name order, with a
/// non-empty name and a non-negative byte count; reports the offending
/// tensor through `emitError`.
mlir::LogicalResult
verifyTensorBytes(llvm::ArrayRef<TensorBytes> list, llvm::StringRef what,
                  llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

// The hooks of TensorBytesProp, under the names ODS's property code calls.

/// `{name = bytes : i64, ...}`: the list in the generic form and bytecode.
mlir::Attribute convertToAttribute(mlir::MLIRContext *context,
                                   llvm::ArrayRef<TensorBytes> list);
/// The list of a dictionary of i64 byte counts; `emitError` may be null.
mlir::LogicalResult
convertFromAttribute(TensorBytesList &list, mlir::Attribute attr,
                     llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
llvm::hash_code hashTensorBytes(llvm::ArrayRef<TensorBytes> list);
void printTensorBytes(mlir::OpAsmPrinter &printer,
                      llvm::ArrayRef<TensorBytes> list);
/// Parses `{name = bytes, ...}`; an empty name or a name listed twice is an
/// error.
mlir::ParseResult parseTensorBytes(mlir::OpAsmParser &parser,
                                   TensorBytesList &list);

} // namespace blueprint

#endif // BLUEPRINT_INTERFACES_TENSORBYTES_H
