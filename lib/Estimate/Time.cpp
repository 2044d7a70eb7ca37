//===- Time.cpp - Exact integer time on the critical path -----------------===//

#include "Blueprint/Estimate/Time.h"

#include <cassert>
#include <cmath>
#include <limits>

using namespace blueprint;
using namespace blueprint::estimate;

std::optional<Picoseconds> estimate::picosecondsOf(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    return std::nullopt;
  if (seconds == 0)
    return 0;
  // seconds = mantissa * 2^exponent exactly, mantissa an integer below
  // 2^53; times 10^12 (below 2^40) the product is below 2^93 and exact in
  // 128 bits.
  int exponent = 0;
  double fraction = std::frexp(seconds, &exponent);
  auto mantissa = static_cast<unsigned __int128>(std::ldexp(fraction, 53));
  exponent -= 53;
  unsigned __int128 scaled =
      mantissa * static_cast<unsigned __int128>(kPicosecondsPerSecond);
  constexpr auto limit =
      static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max());
  unsigned __int128 rounded = 0;
  // The mantissa is at least 2^52, so a whole number of seconds times
  // 10^12 is at least 2^91: beyond int64_t.
  if (exponent >= 0)
    return std::nullopt;
  if (exponent <= -100) {
    // Below 2^-7 ps (the product is below 2^93): rounds to zero.
    rounded = 0;
  } else {
    unsigned shift = static_cast<unsigned>(-exponent);
    rounded = scaled >> shift;
    unsigned __int128 remainder = scaled - (rounded << shift);
    unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
    // Nearest, ties to the even neighbour.
    if (remainder > half || (remainder == half && (rounded & 1) != 0))
      ++rounded;
  }
  if (rounded > limit)
    return std::nullopt;
  return static_cast<Picoseconds>(rounded);
}

double estimate::secondsOf(Picoseconds time) {
  // Exact below 2^53 ps (about 9,000 s); one correctly rounded division.
  return static_cast<double>(time) / static_cast<double>(kPicosecondsPerSecond);
}

/// `digits` decimal digits of `value` (< 10^digits), zero-padded.
static std::string padded(uint64_t value, int digits) {
  std::string text(static_cast<size_t>(digits), '0');
  for (int at = digits; at-- > 0; value /= 10)
    text[static_cast<size_t>(at)] = static_cast<char>('0' + value % 10);
  return text;
}

/// The magnitude of `time` and its sign ("-" or "").
static std::pair<uint64_t, const char *> magnitude(Picoseconds time) {
  // The negation of INT64_MIN is taken in uint64_t, where it is exact.
  if (time < 0)
    return {0 - static_cast<uint64_t>(time), "-"};
  return {static_cast<uint64_t>(time), ""};
}

std::string estimate::formatSeconds(Picoseconds time) {
  auto [value, sign] = magnitude(time);
  constexpr auto perSecond = static_cast<uint64_t>(kPicosecondsPerSecond);
  std::string text = sign + std::to_string(value / perSecond);
  std::string fraction = padded(value % perSecond, 12);
  size_t kept = fraction.find_last_not_of('0');
  if (kept != std::string::npos)
    text += "." + fraction.substr(0, kept + 1);
  return text;
}

uint64_t estimate::roundedQuotient(uint64_t dividend, uint64_t divisor) {
  assert(divisor > 0 && "a quotient of times needs a positive divisor");
  uint64_t quotient = dividend / divisor;
  uint64_t remainder = dividend % divisor;
  // remainder < divisor: neither side of the comparison can wrap.
  uint64_t toNext = divisor - remainder;
  if (remainder > toNext || (remainder == toNext && quotient % 2 != 0))
    ++quotient;
  return quotient;
}

std::string estimate::formatMilliseconds(Picoseconds time, int decimals) {
  // A programming error, not input: the callers print 3 or 6 places.
  assert(decimals >= 0 && decimals <= 9 &&
         "milliseconds print with 0 to 9 decimals (picoseconds are 10^-9 ms)");
  auto [value, sign] = magnitude(time);
  // One unit of the last printed place, in picoseconds (10^(9 - decimals)).
  uint64_t unit = 1;
  for (int place = decimals; place < 9; ++place)
    unit *= 10;
  uint64_t units = roundedQuotient(value, unit);
  uint64_t perMillisecond = 1;
  for (int place = 0; place < decimals; ++place)
    perMillisecond *= 10;
  std::string text =
      (units == 0 ? "" : sign) + std::to_string(units / perMillisecond);
  if (decimals > 0)
    text += "." + padded(units % perMillisecond, decimals);
  return text;
}

void estimate::writeSecondsAttribute(llvm::json::OStream &json,
                                     llvm::StringRef key, Picoseconds time) {
  json.attributeBegin(key);
  json.rawValue(formatSeconds(time));
  json.attributeEnd();
}
