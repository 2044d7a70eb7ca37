//===- Time.h - Exact integer time on the critical path ---------*- C++ -*-===//
//
// Time on the critical path is an integer count of picoseconds
// (docs/Estimate.md, "Time in picoseconds"). A step's duration is computed
// by the cost functions in binary64 seconds and rounded once, here, to the
// nearest picosecond (ties to even); every composition of durations (step
// ends, maxima, sums, the iteration time) is exact int64_t arithmetic with
// overflow checks, so the order of summation does not matter, and every
// printed time goes through formatSeconds.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_ESTIMATE_TIME_H
#define BLUEPRINT_ESTIMATE_TIME_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace blueprint::estimate {

/// A time or a duration, in picoseconds (10^-12 s). int64_t holds 106 days.
using Picoseconds = int64_t;

inline constexpr Picoseconds kPicosecondsPerSecond = 1'000'000'000'000;

/// `seconds` (a duration: not negative) rounded to the nearest picosecond,
/// ties to even, from its exact binary64 value (no intermediate rounding).
/// None if it is negative, not finite or more than INT64_MAX picoseconds.
std::optional<Picoseconds> picosecondsOf(double seconds);

/// `time` in seconds as a binary64 (the nearest one for |time| < 2^53 ps,
/// about 2.5 hours; above that the conversion of the count rounds once
/// before the division does), for the rates derived from a time (FLOPs
/// utilisation, tokens per second); never for composing times.
double secondsOf(Picoseconds time);

/// `dividend / divisor` rounded to the nearest integer, ties to even
/// (`divisor` > 0): the one rounding rule of an exact integer quotient of
/// times (a time per output token, a time printed to fewer places).
uint64_t roundedQuotient(uint64_t dividend, uint64_t divisor);

/// The one printed form of a time: the exact decimal of `time` in seconds,
/// without trailing zeros ("0.000123456789012", "2", "-0.5"), a valid JSON
/// number.
std::string formatSeconds(Picoseconds time);

/// `"key": formatSeconds(time)` in a JSON object.
void writeSecondsAttribute(llvm::json::OStream &json, llvm::StringRef key,
                           Picoseconds time);

/// The same time in milliseconds, rounded to `decimals` (0 to 9) places,
/// ties to even, trailing zeros kept ("12.345679" at 6): the text tables'
/// fixed-width form.
std::string formatMilliseconds(Picoseconds time, int decimals = 6);

} // namespace blueprint::estimate

#endif // BLUEPRINT_ESTIMATE_TIME_H
