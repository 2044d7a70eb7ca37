//===- Checked.h - Overflow-checked exact integer arithmetic ----*- C++ -*-===//
//
// Every count Blueprint derives is an exact integer. `Exact` wraps int64_t
// arithmetic so that the first overflow is remembered together with the name
// of the quantity being computed; callers turn it into a diagnostic instead of
// ever seeing a wrapped number. The checks are the compiler's overflow
// builtins (llvm/Support/CheckedArithmetic.h goes through APInt, several
// times slower), and names are Twines rendered only on overflow: the checked
// path builds no strings.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_CHECKED_H
#define BLUEPRINT_WORKLOAD_CHECKED_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <optional>
#include <string>

namespace blueprint::workload {

/// Records the first overflow of a derivation. Results after an overflow are
/// meaningless (zero) and must not be used; check `failed()` before reading.
///
/// "First" is in program order, so two guarded computations must never be
/// sibling arguments of one call (`f(guard.mul(..), guard.mul(..))`): C++
/// leaves their order unspecified and GCC and clang differ, which would make
/// the named quantity depend on the compiler. Compute each into a named
/// local; utils/check-evaluation-order.py (run by the test suite) finds
/// violations.
class OverflowGuard {
public:
  /// a * b, or 0 after recording `what` as the overflowing quantity.
  ///
  /// Each builtin writes `result` before record() reads it: the two are
  /// separate statements, because the order in which a call's arguments are
  /// evaluated is unspecified (GCC and clang differ).
  int64_t mul(int64_t a, int64_t b, const llvm::Twine &what) {
    int64_t result = 0;
    bool overflowed = llvm::MulOverflow(a, b, result);
    return record(!overflowed, result, what);
  }
  int64_t add(int64_t a, int64_t b, const llvm::Twine &what) {
    int64_t result = 0;
    bool overflowed = llvm::AddOverflow(a, b, result);
    return record(!overflowed, result, what);
  }
  int64_t sub(int64_t a, int64_t b, const llvm::Twine &what) {
    int64_t result = 0;
    bool overflowed = llvm::SubOverflow(a, b, result);
    return record(!overflowed, result, what);
  }
  /// Product of several factors, checked at every step.
  int64_t product(std::initializer_list<int64_t> factors,
                  const llvm::Twine &what) {
    int64_t result = 1;
    for (int64_t factor : factors)
      result = mul(result, factor, what);
    return result;
  }

  bool failed() const { return overflowed.has_value(); }
  /// The one wording of an overflow: "`who`: 64-bit overflow computing
  /// <the first quantity that overflowed>". Precondition: failed().
  llvm::Error error(llvm::StringRef who) const {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        (who + ": 64-bit overflow computing " + overflowedQuantity()).str());
  }
  /// The name of the first quantity that overflowed.
  llvm::StringRef overflowedQuantity() const {
    return overflowed ? llvm::StringRef(*overflowed) : llvm::StringRef();
  }

private:
  int64_t record(bool fits, int64_t value, const llvm::Twine &what) {
    if (fits)
      return value;
    if (!overflowed)
      overflowed = what.str();
    return 0;
  }

  std::optional<std::string> overflowed;
};

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_CHECKED_H
