//===- AsmFormat.td - Assembly-format pieces shared by the dialects -*- tablegen -*-===//

#ifndef BLUEPRINT_SUPPORT_ASMFORMAT
#define BLUEPRINT_SUPPORT_ASMFORMAT

/// For ops whose assembly format gives every property its own place and
/// names `prop-dict` right after the first element, followed by an empty
/// literal (`$primitive prop-dict `` $phase ...`): the
/// directive then prints and parses nothing, so the text is unchanged.
/// It is there for what it changes in the generated printer: with
/// `prop-dict` in the format, `attr-dict` prints the op's discardable
/// attributes alone instead of first building the op's whole attribute
/// dictionary, which uniques a DictionaryAttr of every property on every
/// print and made up half of printing a program for its digest
/// (bench/README.md). Upstream's XeGPU ops override the same two hooks.
defvar Blueprint_PropertiesInFormat = [{
  static void printProperties(::mlir::MLIRContext *, ::mlir::OpAsmPrinter &,
                              const Properties &,
                              ::llvm::ArrayRef<::llvm::StringRef>) {}
  static ::mlir::ParseResult parseProperties(::mlir::OpAsmParser &,
                                             ::mlir::OperationState &) {
    return ::mlir::success();
  }
}];

#endif // BLUEPRINT_SUPPORT_ASMFORMAT
