//===- TensorBytes.cpp - Bytes a work op moves per logical tensor ---------===//

#include "Blueprint/Interfaces/TensorBytes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace blueprint;

/// Name order, as a DictionaryAttr keeps its entries: the order the lists
/// print in and are compared in.
static void sortByName(TensorBytesList &list) {
  llvm::sort(list, [](const TensorBytes &a, const TensorBytes &b) {
    return a.tensor.getValue() < b.tensor.getValue();
  });
}

TensorBytesList
blueprint::getTensorBytes(MLIRContext *context,
                          llvm::ArrayRef<workload::TensorAccess> accesses) {
  TensorBytesList list;
  list.reserve(accesses.size());
  for (const workload::TensorAccess &access : accesses)
    list.push_back({StringAttr::get(context, access.tensor), access.bytes});
  sortByName(list);
  return list;
}

const TensorBytes *blueprint::findTensor(llvm::ArrayRef<TensorBytes> list,
                                         llvm::StringRef tensor) {
  const TensorBytes *entry =
      llvm::lower_bound(list, tensor, [](const TensorBytes &a, StringRef b) {
        return a.tensor.getValue() < b;
      });
  if (entry == list.end() || entry->tensor.getValue() != tensor)
    return nullptr;
  return entry;
}

std::vector<workload::TensorAccess>
blueprint::getTensorAccesses(llvm::ArrayRef<TensorBytes> list) {
  std::vector<workload::TensorAccess> accesses;
  accesses.reserve(list.size());
  for (const TensorBytes &entry : list)
    accesses.push_back({entry.tensor.str(), entry.bytes});
  return accesses;
}

static StringRef nameOf(const TensorBytes &entry) {
  return entry.tensor ? entry.tensor.getValue() : StringRef();
}

/// The first entry without a name or not after its predecessor in name
/// order, or list.end(). The parser and getTensorBytes() sort; a list set
/// from C++ may not, and findTensor() needs the order.
static const TensorBytes *firstMisplaced(llvm::ArrayRef<TensorBytes> list) {
  for (const TensorBytes &entry : list)
    if (nameOf(entry).empty() ||
        (&entry != list.data() && !(nameOf(*(&entry - 1)) < nameOf(entry))))
      return &entry;
  return list.end();
}

LogicalResult
blueprint::verifyTensorBytes(llvm::ArrayRef<TensorBytes> list,
                             llvm::StringRef what,
                             function_ref<InFlightDiagnostic()> emitError) {
  if (const TensorBytes *misplaced = firstMisplaced(list);
      misplaced != list.end()) {
    if (nameOf(*misplaced).empty())
      return emitError() << what << " lists a tensor with no name";
    return emitError() << what << " must list each tensor once, in name "
                       << "order, but '" << nameOf(*misplaced)
                       << "' follows '" << nameOf(*(misplaced - 1)) << "'";
  }
  for (const TensorBytes &entry : list)
    if (entry.bytes < 0)
      return emitError() << what << " of tensor '" << nameOf(entry)
                         << "' must be non-negative, got " << entry.bytes;
  return success();
}

Attribute blueprint::convertToAttribute(MLIRContext *context,
                                        llvm::ArrayRef<TensorBytes> list) {
  IntegerType i64 = IntegerType::get(context, 64);
  // A list the verifier rejects (an op printed in a diagnostic's note) is
  // no dictionary: a dictionary cannot hold an unnamed or repeated entry.
  // It prints as [["name", bytes], ...] and does not parse back.
  if (firstMisplaced(list) != list.end()) {
    llvm::SmallVector<Attribute, 4> pairs;
    for (const TensorBytes &entry : list)
      pairs.push_back(ArrayAttr::get(
          context, {StringAttr::get(context, nameOf(entry)),
                    IntegerAttr::get(i64, entry.bytes)}));
    return ArrayAttr::get(context, pairs);
  }
  llvm::SmallVector<NamedAttribute, 4> entries;
  entries.reserve(list.size());
  for (const TensorBytes &entry : list)
    entries.emplace_back(entry.tensor, IntegerAttr::get(i64, entry.bytes));
  return DictionaryAttr::get(context, entries);
}

LogicalResult
blueprint::convertFromAttribute(TensorBytesList &list, Attribute attr,
                                function_ref<InFlightDiagnostic()> emitError) {
  auto fail = [&](auto &&...message) -> LogicalResult {
    if (emitError)
      (emitError() << ... << message);
    return failure();
  };
  auto dictionary = llvm::dyn_cast_if_present<DictionaryAttr>(attr);
  if (!dictionary)
    return fail("expected a dictionary of tensor byte counts");
  list.clear();
  for (NamedAttribute entry : dictionary) {
    auto value = llvm::dyn_cast<IntegerAttr>(entry.getValue());
    if (!value || !value.getType().isSignlessInteger(64))
      return fail("the bytes of tensor '", entry.getName().getValue(),
                  "' must be a 64-bit integer");
    list.push_back({entry.getName(), value.getInt()});
  }
  return success(); // a dictionary is in name order, each name once
}

llvm::hash_code blueprint::hashTensorBytes(llvm::ArrayRef<TensorBytes> list) {
  llvm::hash_code hash = llvm::hash_value(list.size());
  for (const TensorBytes &entry : list)
    hash = llvm::hash_combine(hash, entry.tensor, entry.bytes);
  return hash;
}

void blueprint::printTensorBytes(OpAsmPrinter &printer,
                                 llvm::ArrayRef<TensorBytes> list) {
  printer << '{';
  llvm::interleaveComma(list, printer, [&](const TensorBytes &entry) {
    printer.printKeywordOrString(entry.tensor.getValue());
    printer << " = " << entry.bytes;
  });
  printer << '}';
}

ParseResult blueprint::parseTensorBytes(OpAsmParser &parser,
                                        TensorBytesList &list) {
  MLIRContext *context = parser.getContext();
  list.clear();
  auto parseEntry = [&]() -> ParseResult {
    std::string name;
    llvm::SMLoc loc = parser.getCurrentLocation();
    int64_t bytes = 0;
    if (parser.parseKeywordOrString(&name) || parser.parseEqual() ||
        parser.parseInteger(bytes))
      return failure();
    if (name.empty())
      return parser.emitError(loc, "a tensor name must not be empty");
    StringAttr tensor = StringAttr::get(context, name);
    if (llvm::any_of(list, [&](const TensorBytes &entry) {
          return entry.tensor == tensor;
        }))
      return parser.emitError(loc, "tensor '") << name << "' is listed twice";
    list.push_back({tensor, bytes});
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Braces,
                                     parseEntry))
    return failure();
  sortByName(list);
  return success();
}
