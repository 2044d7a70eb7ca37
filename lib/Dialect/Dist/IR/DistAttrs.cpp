//===- DistAttrs.cpp - DistributedTaskIR attributes and types -------------===//

#include "Blueprint/Dialect/Dist/IR/DistOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace blueprint;
using namespace blueprint::dist;

#define GET_ATTRDEF_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Blueprint/Dialect/Dist/IR/DistTypes.cpp.inc"

/// Parses an enum attribute spelled as its bare keyword.
template <typename AttrT>
static Attribute parseBareEnum(AsmParser &parser) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  FailureOr<EnumT> value = FieldParser<EnumT>::parse(parser);
  if (failed(value))
    return {};
  return AttrT::get(parser.getContext(), *value);
}

#define DEFINE_BARE_ENUM_ASSEMBLY(AttrT)                                       \
  Attribute AttrT::parse(AsmParser &parser, Type) {                            \
    return parseBareEnum<AttrT>(parser);                                       \
  }                                                                            \
  void AttrT::print(AsmPrinter &printer) const {                               \
    printer << workload::stringifyEnum(getValue());                            \
  }
DEFINE_BARE_ENUM_ASSEMBLY(PhaseAttr)
DEFINE_BARE_ENUM_ASSEMBLY(EngineAttr)
DEFINE_BARE_ENUM_ASSEMBLY(CadenceAttr)
DEFINE_BARE_ENUM_ASSEMBLY(ReductionKindAttr)
DEFINE_BARE_ENUM_ASSEMBLY(BoundaryRoleAttr)
#undef DEFINE_BARE_ENUM_ASSEMBLY

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Blueprint/Dialect/Dist/IR/DistAttrs.cpp.inc"
      >();
}

void DistDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Blueprint/Dialect/Dist/IR/DistTypes.cpp.inc"
      >();
}
