//===- TimeTest.cpp - Exact integer time on the critical path -------------===//
//
// A duration is rounded once to the nearest picosecond from its exact
// binary64 value (ties to even); what cannot be a duration is refused, not
// wrapped; times print as exact decimals; sums of picoseconds are the same
// in any order, which binary64 sums are not; and a time beyond int64_t
// picoseconds on the critical path is a diagnostic naming its step.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Estimate/Time.h"
#include "Blueprint/Analysis/CriticalPath.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace blueprint;
using estimate::formatMilliseconds;
using estimate::formatSeconds;
using estimate::Picoseconds;
using estimate::picosecondsOf;
using estimate::roundedQuotient;

namespace {

TEST(Time, RoundsOnceToTheNearestPicosecond) {
  EXPECT_EQ(picosecondsOf(0), Picoseconds(0));
  EXPECT_EQ(picosecondsOf(-0.0), Picoseconds(0));
  EXPECT_EQ(picosecondsOf(1), Picoseconds(1'000'000'000'000));
  EXPECT_EQ(picosecondsOf(0.5), Picoseconds(500'000'000'000));
  // 1e-6 is the binary64 0.99999999999999995474... x 10^-6: times 10^12
  // 999,999.99999999995474..., nearest 10^6.
  EXPECT_EQ(picosecondsOf(1e-6), Picoseconds(1'000'000));
  // Ties: m 2^-13 s is m 5^12 / 2 ps, half an odd number for odd m:
  // 2^-13 s = 122,070,312.5 ps goes down to the even 122,070,312,
  // 3 x 2^-13 s = 366,210,937.5 ps up to the even 366,210,938.
  EXPECT_EQ(picosecondsOf(std::ldexp(1.0, -13)), Picoseconds(122'070'312));
  EXPECT_EQ(picosecondsOf(std::ldexp(3.0, -13)), Picoseconds(366'210'938));
  // Not a tie: one binary64 step above 2^-13 s (2^-65 s more, 2.7e-8 ps)
  // rounds up; one below rounds down.
  EXPECT_EQ(picosecondsOf(std::nextafter(std::ldexp(1.0, -13), 1.0)),
            Picoseconds(122'070'313));
  EXPECT_EQ(picosecondsOf(std::nextafter(std::ldexp(3.0, -13), 0.0)),
            Picoseconds(366'210'937));
  // Tiny: below half a picosecond is nothing, above it one.
  EXPECT_EQ(picosecondsOf(0.4e-12), Picoseconds(0));
  EXPECT_EQ(picosecondsOf(0.6e-12), Picoseconds(1));
  EXPECT_EQ(picosecondsOf(std::numeric_limits<double>::denorm_min()),
            Picoseconds(0));
  EXPECT_EQ(picosecondsOf(std::numeric_limits<double>::min()), Picoseconds(0));
  // Huge: 9.2e6 s is 9.2e18 ps, below 2^63 - 1 = 9,223,372,036,854,775,807;
  // 9.3e6 s, 2^53 s and the largest binary64 are beyond it.
  EXPECT_EQ(picosecondsOf(9.2e6), Picoseconds(9'200'000'000'000'000'000));
  EXPECT_EQ(picosecondsOf(9.3e6), std::nullopt);
  EXPECT_EQ(picosecondsOf(std::ldexp(1.0, 53)), std::nullopt);
  EXPECT_EQ(picosecondsOf(std::numeric_limits<double>::max()), std::nullopt);
  // Not a duration.
  EXPECT_EQ(picosecondsOf(-1e-20), std::nullopt);
  EXPECT_EQ(picosecondsOf(std::numeric_limits<double>::infinity()),
            std::nullopt);
  EXPECT_EQ(picosecondsOf(std::numeric_limits<double>::quiet_NaN()),
            std::nullopt);
}

TEST(Time, PrintsTheExactDecimal) {
  EXPECT_EQ(formatSeconds(0), "0");
  EXPECT_EQ(formatSeconds(1), "0.000000000001");
  EXPECT_EQ(formatSeconds(1'500'000'000'000), "1.5");
  EXPECT_EQ(formatSeconds(2'000'000'000'000), "2");
  EXPECT_EQ(formatSeconds(19'922'944), "0.000019922944");
  EXPECT_EQ(formatSeconds(-500'000'000'000), "-0.5");
  EXPECT_EQ(formatSeconds(std::numeric_limits<Picoseconds>::max()),
            "9223372.036854775807");
  EXPECT_EQ(formatSeconds(std::numeric_limits<Picoseconds>::min()),
            "-9223372.036854775808");
  // Milliseconds to 6 places: 12.345678901 ms rounds up; 1,500 and 2,500
  // ps (0.0000015, 0.0000025 ms) are ties, both to 0.000002; a negative
  // time that rounds to zero prints no sign.
  EXPECT_EQ(formatMilliseconds(12'345'678'901), "12.345679");
  EXPECT_EQ(formatMilliseconds(1'500), "0.000002");
  EXPECT_EQ(formatMilliseconds(2'500), "0.000002");
  EXPECT_EQ(formatMilliseconds(500), "0.000000");
  EXPECT_EQ(formatMilliseconds(-1'500), "-0.000002");
  EXPECT_EQ(formatMilliseconds(-400), "0.000000");
  EXPECT_EQ(formatMilliseconds(1'234'567'890, 3), "1.235");
  EXPECT_EQ(formatMilliseconds(1'000'000'000, 0), "1");
}

TEST(Time, DurationsRoundedOnceSumExactly) {
  // i x 1.1 us is not a binary64 value for most i; each rounds once to the
  // picosecond (1.1 x 10^6 x i ps exactly), and the integer sum is exact:
  // sum i x 1.1 us, i = 1..1000: 1.1 us x 500,500 = 0.5505500 s.
  // (In binary64 the order of a sum matters: (0.1 + 0.2) + 0.3 differs from
  // 0.1 + (0.2 + 0.3); in integers it cannot.)
  Picoseconds sum = 0;
  for (int i = 1; i <= 1000; ++i)
    sum += *picosecondsOf(static_cast<double>(i) * 1.1e-6);
  EXPECT_EQ(sum, Picoseconds(550'550'000'000));
}

TEST(Time, QuotientsRoundToTheNearestTiesToEven) {
  EXPECT_EQ(roundedQuotient(5, 2), 2u); // 2.5: the tie goes to the even 2
  EXPECT_EQ(roundedQuotient(3, 2), 2u); // 1.5: the tie goes to the even 2
  EXPECT_EQ(roundedQuotient(7, 4), 2u); // 1.75: nearest 2
  EXPECT_EQ(roundedQuotient(5, 4), 1u); // 1.25: nearest 1
  EXPECT_EQ(roundedQuotient(0, 3), 0u);
  // The largest magnitudes: (2^64 - 1) / 2 = 2^63 - 0.5, a tie, to the even
  // 2^63; (2^64 - 1) / (2^64 - 1) = 1.
  EXPECT_EQ(roundedQuotient(UINT64_MAX, 2), uint64_t(1) << 63);
  EXPECT_EQ(roundedQuotient(UINT64_MAX, UINT64_MAX), 1u);
}

TEST(Time, AnEndBeyondTheRangeIsADiagnostic) {
  // Two steps of 5e6 s one after the other end at 10^19 ps, beyond
  // 2^63 - 1: the second step is named, nothing wraps.
  analysis::GraphStep first;
  first.kind = analysis::StepKind::Compute;
  first.label = "first";
  first.seconds = 5e6;
  analysis::GraphStep second = first;
  second.label = "second";
  second.deps = {0};
  analysis::RunGraph graph;
  graph.stages = {{first, second}};
  llvm::Expected<analysis::CriticalPathReport> report =
      analysis::longestPath(graph);
  ASSERT_FALSE(static_cast<bool>(report));
  EXPECT_EQ(llvm::toString(report.takeError()),
            "critical path: stage 0 step 1 (second) ends beyond 2^63 "
            "picoseconds");
  // One of them ends at 5 x 10^18 ps: exact.
  graph.stages[0].pop_back();
  report = analysis::longestPath(graph);
  ASSERT_TRUE(static_cast<bool>(report));
  EXPECT_EQ(report->iterationPicoseconds,
            Picoseconds(5'000'000'000'000'000'000));
}

} // namespace
