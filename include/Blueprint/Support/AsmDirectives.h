//===- AsmDirectives.h - Custom assembly shared by the dialects -*- C++ -*-===//
//
// The custom<...> directive the `dist` and `pplan` op formats share:
//   custom<TensorBytes>  `{x_norm1 = 50331648, w_qkv = 28311552}`, a
//                        DictionaryAttr of i64 byte counts per tensor.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_SUPPORT_ASMDIRECTIVES_H
#define BLUEPRINT_SUPPORT_ASMDIRECTIVES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

namespace blueprint {

void printTensorBytes(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                      mlir::DictionaryAttr bytes);
mlir::ParseResult parseTensorBytes(mlir::OpAsmParser &parser,
                                   mlir::DictionaryAttr &bytes);

} // namespace blueprint

#endif // BLUEPRINT_SUPPORT_ASMDIRECTIVES_H
