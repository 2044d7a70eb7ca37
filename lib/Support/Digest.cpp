//===- Digest.cpp - Stable digests of IR ----------------------------------===//

#include "Blueprint/Support/Digest.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

namespace {
/// Feeds everything written to it into a SHA-256, so the printed form is
/// hashed as it is produced instead of being held as a string first.
class SHA256Stream : public llvm::raw_ostream {
public:
  explicit SHA256Stream(llvm::SHA256 &hasher) : hasher(hasher) {}
  ~SHA256Stream() override { flush(); }

private:
  void write_impl(const char *data, size_t size) override {
    hasher.update(
        llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data), size));
    position += size;
  }
  uint64_t current_pos() const override { return position; }

  llvm::SHA256 &hasher;
  uint64_t position = 0;
};
} // namespace

std::string blueprint::computeDigest(mlir::Operation *op) {
  // A default OpPrintingFlags takes the --mlir-print-* options of the
  // command line (generic form, value users, name locations as SSA names);
  // each is set here, so a digest names the IR and not how a user asked to
  // see it. Elements attributes and resources are never elided, and large
  // elements attributes print in hex past MLIR's default of 100 elements.
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(false)
      .printGenericOpForm(false)
      .skipRegions(false)
      .useLocalScope()
      .printValueUsers(false)
      .printUniqueSSAIDs(false)
      .printNameLocAsPrefix(false)
      .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .printLargeElementsAttrWithHex(100)
      .elideLargeResourceString(std::numeric_limits<int64_t>::max());
  // Without assumeVerified the printer verifies `op` again to choose between
  // the custom and the generic form, which costs as much as the printing;
  // every digested op has just been verified (a parsed input, a pass output
  // under the pass manager's verifier, a checkpoint).
  flags.assumeVerified();
  llvm::SHA256 hasher;
  {
    SHA256Stream os(hasher);
    // Number values and collect aliases within `op` alone. Operation::print
    // would number from the nearest op isolated from above, the whole module
    // for a ModelIR op, which made digesting every op of a module quadratic.
    mlir::AsmState state(op, flags);
    op->print(os, state);
  }
  std::array<uint8_t, 32> hash = hasher.final();
  return "sha256:" + llvm::toHex(hash, /*LowerCase=*/true);
}

bool blueprint::isWellFormedDigest(llvm::StringRef digest) {
  return digest.consume_front("sha256:") && digest.size() == 64 &&
         llvm::all_of(digest, [](char c) {
           return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
         });
}
