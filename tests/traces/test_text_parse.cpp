#include <doctest/doctest.h>

#include "traces/text_parse.hpp"

using namespace lynx;

TEST_CASE("token counts parse strictly") {
  int64_t v = -1;
  CHECK(parse_count("4808", v) == ParseStatus::ok);
  CHECK(v == 4808);
  CHECK(parse_count(" 12 ", v) == ParseStatus::ok);
  CHECK(v == 12);
  CHECK(parse_count("12.0", v) == ParseStatus::ok);  // pandas' float-typed integer column
  CHECK(v == 12);
  CHECK(parse_count("-0", v) == ParseStatus::ok);
  CHECK(v == 0);
  CHECK(parse_count("9223372036854775807", v) == ParseStatus::ok);
  CHECK(v == INT64_MAX);
  CHECK(parse_count("9223372036854775808", v) == ParseStatus::out_of_range);
  CHECK(parse_count("-5", v) == ParseStatus::negative);
  for (const char* bad : {"", " ", "12.5", "1e3", "x", "12a", "--1", "-", "0x10", "1 2", "null", "\"3\""})
    CHECK_MESSAGE(parse_count(bad, v) == ParseStatus::not_a_number, bad);
}

TEST_CASE("decimal times become exact nanoseconds") {
  int64_t ns = -1;
  CHECK(parse_decimal_ns("27482", 6, ns) == ParseStatus::ok);  // Mooncake ms
  CHECK(ns == 27482000000);
  CHECK(parse_decimal_ns("0.125", 9, ns) == ParseStatus::ok);
  CHECK(ns == 125000000);
  CHECK(parse_decimal_ns("1.5e-3", 9, ns) == ParseStatus::ok);
  CHECK(ns == 1500000);
  CHECK(parse_decimal_ns("5.2e-05", 9, ns) == ParseStatus::ok);  // what Python writes for small floats
  CHECK(ns == 52000);
  CHECK(parse_decimal_ns("2E+3", 9, ns) == ParseStatus::ok);
  CHECK(ns == 2000000000000);
  CHECK(parse_decimal_ns("0.0000000015", 9, ns) == ParseStatus::ok);  // 1.5 ns rounds half up
  CHECK(ns == 2);
  CHECK(parse_decimal_ns("0.0000000014", 9, ns) == ParseStatus::ok);
  CHECK(ns == 1);
  CHECK(parse_decimal_ns("1700000000.123456789", 9, ns) == ParseStatus::ok);  // epoch seconds, 19 digits
  CHECK(ns == 1700000000123456789);
  CHECK(parse_decimal_ns("0.1234567890123456789", 9, ns) == ParseStatus::ok);  // digits beyond 19 dropped
  CHECK(ns == 123456789);
  CHECK(parse_decimal_ns("12.", 9, ns) == ParseStatus::ok);
  CHECK(ns == 12000000000);
  CHECK(parse_decimal_ns("-0", 9, ns) == ParseStatus::ok);
  CHECK(ns == 0);
  CHECK(parse_decimal_ns("-0.5", 9, ns) == ParseStatus::negative);
  CHECK(parse_decimal_ns("1e30", 9, ns) == ParseStatus::out_of_range);
  CHECK(parse_decimal_ns("9300000000", 9, ns) == ParseStatus::out_of_range);
  for (const char* bad : {"", ".", "e5", "1e", "1.2.3", "12s", "nan", "inf", "1,5"})
    CHECK_MESSAGE(parse_decimal_ns(bad, 9, ns) == ParseStatus::not_a_number, bad);
}

TEST_CASE("date-times: Azure 2023 (7 digits), Azure 2024 (6 digits, +00:00), exact to the nanosecond") {
  int64_t a = 0, b = 0;
  REQUIRE(parse_datetime_ns("2023-11-16 18:17:03.9799600", a));
  CHECK(a == 1700158623979960000);  // date -u -d '2023-11-16 18:17:03' +%s = 1700158623
  REQUIRE(parse_datetime_ns("2023-11-16 18:17:04.0319600", b));
  CHECK(b - a == 52000000);
  CHECK(static_cast<double>(b - a) / 1e9 == 0.052);
  REQUIRE(parse_datetime_ns("2024-05-10 00:00:00.009930+00:00", a));
  CHECK(a == 1715299200009930000);
  REQUIRE(parse_datetime_ns("2024-05-10T02:00:00.009930+02:00", b));  // the same instant
  CHECK(a == b);
  REQUIRE(parse_datetime_ns("2024-05-09 19:00:00.00993-0500", b));
  CHECK(a == b);
  REQUIRE(parse_datetime_ns("2024-05-10 00:00:00.00993Z", b));
  CHECK(a == b);
  // Across a year boundary and a leap day.
  REQUIRE(parse_datetime_ns("2023-12-31 23:59:59.9999999", a));
  REQUIRE(parse_datetime_ns("2024-01-01 00:00:00.0000000", b));
  CHECK(b - a == 100);
  REQUIRE(parse_datetime_ns("2024-02-28 12:00:00", a));
  REQUIRE(parse_datetime_ns("2024-03-01 12:00:00", b));
  CHECK(b - a == 2 * 86400 * int64_t{1000000000});
  REQUIRE(parse_datetime_ns("1970-01-01 00:00:00", a));
  CHECK(a == 0);
  REQUIRE(parse_datetime_ns("2023-11-16 18:17:03.123456789", a));
  CHECK(a % 1000000000 == 123456789);
  for (const char* bad : {"", "2023-11-16", "2023-11-16 18:17", "2023-02-29 00:00:00", "2023-13-01 00:00:00",
                          "2023-11-31 00:00:00", "2023-11-16 24:00:00", "2023-11-16 18:60:00", "2023-11-16 18:17:03.",
                          "2023-11-16 18:17:03.1234567890", "2023/11/16 18:17:03", "2023-11-16 18:17:03 UTC",
                          "2023-11-16 18:17:03+0", "1700158623"})
    CHECK_MESSAGE(!parse_datetime_ns(bad, a), bad);
}

TEST_CASE("CSV lines split at commas, quoted fields keep theirs") {
  std::vector<std::string_view> f;
  REQUIRE(csv_split("5,ChatGPT,472,18,490,Conversation log", f));
  REQUIRE(f.size() == 6);
  CHECK(f[5] == "Conversation log");
  REQUIRE(csv_split(R"(1,"a, b",2)", f));
  REQUIRE(f.size() == 3);
  CHECK(f[1] == "a, b");
  REQUIRE(csv_split(R"("x ""y""",2)", f));
  CHECK(f[0] == R"(x ""y"")");
  REQUIRE(csv_split("", f));
  CHECK(f.size() == 1);
  REQUIRE(csv_split("a,,", f));
  CHECK(f.size() == 3);
  CHECK(!csv_split(R"(1,"open)", f));
}

TEST_CASE("time units and excerpts") {
  CHECK(time_unit_parse("ms") == TimeUnit::ms);
  CHECK(time_unit_parse("datetime") == TimeUnit::datetime);
  CHECK_THROWS_WITH(time_unit_parse("min"),
                    R"(unknown time unit "min" (expected one of "s", "ms", "us", "ns", "datetime"))");
  CHECK(text_excerpt("abcdef", 5) == "ab...");
  CHECK(text_excerpt("abcde", 5) == "abcde");
}
