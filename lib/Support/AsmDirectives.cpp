//===- AsmDirectives.cpp - Custom assembly shared by the dialects ---------===//

#include "Blueprint/Support/AsmDirectives.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

void blueprint::printTensorBytes(OpAsmPrinter &printer, Operation *,
                                 DictionaryAttr bytes) {
  printer << '{';
  llvm::interleaveComma(bytes, printer, [&](NamedAttribute entry) {
    printer.printKeywordOrString(entry.getName().getValue());
    printer << " = ";
    if (auto value = llvm::dyn_cast<IntegerAttr>(entry.getValue()))
      printer << value.getInt();
    else
      printer.printAttribute(entry.getValue());
  });
  printer << '}';
}

ParseResult blueprint::parseTensorBytes(OpAsmParser &parser,
                                        DictionaryAttr &bytes) {
  Builder &builder = parser.getBuilder();
  llvm::SmallVector<NamedAttribute> entries;
  llvm::StringSet<> seen;
  auto parseEntry = [&]() -> ParseResult {
    std::string name;
    llvm::SMLoc loc = parser.getCurrentLocation();
    int64_t value;
    if (parser.parseKeywordOrString(&name) || parser.parseEqual() ||
        parser.parseInteger(value))
      return failure();
    if (!seen.insert(name).second)
      return parser.emitError(loc, "tensor '") << name << "' is listed twice";
    entries.push_back(
        builder.getNamedAttr(name, builder.getI64IntegerAttr(value)));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Braces,
                                     parseEntry))
    return failure();
  bytes = builder.getDictionaryAttr(entries);
  return success();
}
