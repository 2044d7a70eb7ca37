//===- AsmDirectives.h - Custom assembly shared by the dialects -*- C++ -*-===//
//
// The custom<...> directives the `dist` and `pplan` op formats share:
//   custom<TensorBytes>  `{x_norm1 = 50331648, w_qkv = 28311552}`, a
//                        DictionaryAttr of i64 byte counts per tensor;
//   custom<BareEnum>     an enum attribute as its bare keyword (`forward`).
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

template <typename AttrT>
void printBareEnum(mlir::OpAsmPrinter &printer, mlir::Operation *,
                   AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

template <typename AttrT>
mlir::ParseResult parseBareEnum(mlir::OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(attr.getValue());
  mlir::FailureOr<EnumT> value = mlir::FieldParser<EnumT>::parse(parser);
  if (mlir::failed(value))
    return mlir::failure();
  attr = AttrT::get(parser.getContext(), *value);
  return mlir::success();
}

} // namespace blueprint

#endif // BLUEPRINT_SUPPORT_ASMDIRECTIVES_H
