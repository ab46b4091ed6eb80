#include "distbench/report/report_log.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace distbench::report {
namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& lines, const std::string& end = "\n") {
  std::string text;
  for (const std::string& line : lines) text += line + end;
  return text;
}

// The message reportFromLog throws for `log`, or "(no error)".
std::string errorOf(const std::string& log) {
  try {
    reportFromLog(log);
  } catch (const ReportLogError& error) {
    return error.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Deterministic bytes that look like nothing in particular.
std::string noise(size_t n, uint64_t seed) {
  std::string bytes(n, '\0');
  for (char& c : bytes) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    c = static_cast<char>(seed >> 56);
  }
  return bytes;
}

TEST(ReportLog, FrameIsABeginLineBase64LinesAndAnEndLine) {
  const std::string lines = reportLogLines("foobar");
  // FNV-1a 64 of "foobar" is 0x85944171f73967e8 (the reference test vectors).
  EXPECT_EQ(lines,
            "@@distbench-report begin v1 bytes=6 fnv1a64=85944171f73967e8 lines=1\n"
            "@@distbench-report Zm9vYmFy\n"
            "@@distbench-report end\n");
}

TEST(ReportLog, EmptyReportHasNoDataLines) {
  const std::string lines = reportLogLines("");
  EXPECT_EQ(lines,
            "@@distbench-report begin v1 bytes=0 fnv1a64=cbf29ce484222325 lines=0\n"
            "@@distbench-report end\n");
  EXPECT_EQ(reportFromLog(lines), std::optional<std::string>(""));
}

TEST(ReportLog, Base64PadsEachRemainderAsRfc4648Says) {
  // RFC 4648 section 10: lengths 0-6 cover no, two and one '='.
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"f", "Zg=="},        {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, base64] : vectors) {
    const std::vector<std::string> lines = linesOf(reportLogLines(bytes));
    ASSERT_EQ(lines.size(), 3u) << bytes;
    EXPECT_EQ(lines[1], "@@distbench-report " + base64) << bytes;
    EXPECT_EQ(reportFromLog(joined(lines)), bytes);
  }
  EXPECT_TRUE(contains(reportLogLines("a"), " fnv1a64=af63dc4c8601ec8c "));
}

TEST(ReportLog, EveryByteValueAndRemainderRoundTrips) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (size_t n : {size_t{255}, size_t{256}, size_t{257}}) {  // n % 3 == 0, 1, 2
    const std::string bytes = (all + all).substr(0, n);
    EXPECT_EQ(reportFromLog(reportLogLines(bytes)), bytes) << n;
  }
}

TEST(ReportLog, SmallJsonRoundTrips) {
  const std::string json = R"({"schemaVersion": 2, "name": "tiny \"q\" é\n", "series": []})";
  EXPECT_EQ(reportFromLog(reportLogLines(json)), json);
}

TEST(ReportLog, LargeReportIsSplitIntoShortLinesAndRoundTrips) {
  // Over 1 MB of JSON-like text.
  std::string json = "{\"samples\": [";
  for (int i = 0; json.size() < 1'500'000; ++i) json += std::to_string(i * 0.000123) + ", ";
  json += "0]}";
  const std::string text = reportLogLines(json);
  const std::vector<std::string> lines = linesOf(text);
  const size_t encoded = (json.size() + 2) / 3 * 4;
  const size_t dataLines = (encoded + 4095) / 4096;
  ASSERT_EQ(lines.size(), dataLines + 2);
  const std::string begin = "@@distbench-report begin v1 bytes=" + std::to_string(json.size());
  EXPECT_EQ(lines.front().substr(0, begin.size() + 9), begin + " fnv1a64=");
  const std::string count = " lines=" + std::to_string(dataLines);
  EXPECT_EQ(lines.front().size(), begin.size() + 9 + 16 + count.size()) << lines.front();
  EXPECT_EQ(lines.front().substr(lines.front().size() - count.size()), count);
  EXPECT_EQ(lines.back(), "@@distbench-report end");
  size_t chars = 0;
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    ASSERT_LE(lines[i].size(), std::string("@@distbench-report ").size() + 4096) << i;
    chars += lines[i].size() - std::string("@@distbench-report ").size();
  }
  EXPECT_EQ(chars, encoded);
  EXPECT_EQ(lines[1].size(), std::string("@@distbench-report ").size() + 4096) << "full lines";
  EXPECT_EQ(reportFromLog(text), json);

  const std::string binary = noise(1 << 20, 3);
  EXPECT_EQ(reportFromLog(reportLogLines(binary)), binary);
}

TEST(ReportLog, LogWithoutABeginLineHoldsNoReport) {
  EXPECT_EQ(reportFromLog(""), std::nullopt);
  EXPECT_EQ(reportFromLog("master: done\nAll:  p50: 0.1s\n"), std::nullopt);
  // The prefix must start the line and be a word of its own.
  EXPECT_EQ(reportFromLog("note: @@distbench-report begin v1 bytes=0 fnv1a64=cbf29ce484222325 "
                          "lines=0\n@@distbench-report end\n"),
            std::nullopt);
  EXPECT_EQ(reportFromLog("@@distbench-reportbegin v1 bytes=0 fnv1a64=cbf29ce484222325 lines=0\n"),
            std::nullopt);
}

TEST(ReportLog, ForeignLinesInterleavedAndCrLfAreIgnored) {
  const std::string json = noise(15000, 1);  // five data lines
  const std::vector<std::string> frame = linesOf(reportLogLines(json));
  ASSERT_EQ(frame.size(), 7u);
  std::vector<std::string> log = {"rank 0 starting", "@@distbench-progress epoch=1 total=3"};
  for (size_t i = 0; i < frame.size(); ++i) {
    log.push_back(frame[i]);
    log.push_back("stderr line " + std::to_string(i));
    if (i % 2 == 0) log.push_back("");
  }
  log.push_back("master: done");
  EXPECT_EQ(reportFromLog(joined(log)), json);
  EXPECT_EQ(reportFromLog(joined(log, "\r\n")), json);
  // The last line needs no line end.
  std::string unterminated = joined(frame);
  unterminated.pop_back();
  EXPECT_EQ(reportFromLog(unterminated), json);
}

TEST(ReportLog, TheLastOfTwoFramesWins) {
  const std::string first = R"({"run": 1})", second = R"({"run": 2})";
  const std::string log =
      "start\n" + reportLogLines(first) + "restarted\n" + reportLogLines(second);
  EXPECT_EQ(reportFromLog(log), second);
  // Interleaved: the second begins before the first ends. The last begin
  // line starts the frame that counts; the first one's lines after it are
  // foreign to it and make it fail (it holds two data lines, announced one).
  const std::vector<std::string> a = linesOf(reportLogLines(first));
  const std::vector<std::string> b = linesOf(reportLogLines(second));
  EXPECT_EQ(reportFromLog(joined({a[0], a[1], a[2], b[0], b[1], b[2]})), second);
  EXPECT_TRUE(contains(errorOf(joined({a[0], b[0], a[1], b[1], b[2], a[2]})), "more than the 1"));
}

TEST(ReportLog, ADamagedLastFrameIsAnErrorEvenAfterAWholeOne) {
  const std::string whole = reportLogLines(R"({"run": 1})");
  // Four data lines; the end line and the last data line are lost.
  std::vector<std::string> damaged = linesOf(reportLogLines(noise(10000, 2)));
  damaged.pop_back();
  damaged.pop_back();
  const std::string error = errorOf(whole + joined(damaged));
  EXPECT_EQ(error, "report in the log: truncated after 3 of 4 lines (no end line)");
}

TEST(ReportLog, TruncatedFrameSaysHowFarItGot) {
  std::vector<std::string> lines = linesOf(reportLogLines(noise(10000, 4)));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(errorOf(joined({lines[0]})),
            "report in the log: truncated after 0 of 4 lines (no end line)");
  EXPECT_EQ(errorOf(joined({lines[0], lines[1], lines[2], lines[3], lines[4]})),
            "report in the log: truncated after 4 of 4 lines (no end line)");
  // A line lost from the middle, but the end line came.
  EXPECT_EQ(errorOf(joined({lines[0], lines[1], lines[3], lines[4], lines[5]})),
            "report in the log: the end line came after 3 of 4 lines");
}

TEST(ReportLog, AFlippedByteFailsTheChecksum) {
  const std::string json = R"({"schemaVersion": 2, "name": "checksum"})";
  std::vector<std::string> lines = linesOf(reportLogLines(json));
  // Decoded, the report differs in one byte ("schemaVersion" -> "schemaVersioN").
  std::string changed = json;
  changed[14] = 'N';
  lines[1] = linesOf(reportLogLines(changed))[1];
  const std::string error = errorOf(joined(lines));
  EXPECT_TRUE(contains(error, "checksum mismatch")) << error;
  // A flipped base64 digit that still decodes, too.
  lines = linesOf(reportLogLines(json));
  lines[1][20] = lines[1][20] == 'A' ? 'B' : 'A';
  EXPECT_TRUE(contains(errorOf(joined(lines)), "checksum mismatch")) << errorOf(joined(lines));
}

TEST(ReportLog, SizeAndBase64AreChecked) {
  const std::string json = "foobar";
  std::vector<std::string> lines = linesOf(reportLogLines(json));
  lines[0] = "@@distbench-report begin v1 bytes=7 fnv1a64=85944171f73967e8 lines=1";
  EXPECT_EQ(errorOf(joined(lines)),
            "report in the log: size mismatch: the begin line says 7 bytes, the lines hold 6");
  lines = linesOf(reportLogLines(json));
  lines[1] = "@@distbench-report Zm9v*mFy";
  EXPECT_EQ(errorOf(joined(lines)),
            "report in the log: bad base64 in line 1 of 1 (a character '*')");
  lines[1] = "@@distbench-report Zm9vYmF";  // a digit short
  EXPECT_EQ(errorOf(joined(lines)), "report in the log: bad base64 (its length or padding)");
  lines[1] = "@@distbench-report Zg==Zm9v";  // padding inside
  EXPECT_EQ(errorOf(joined(lines)), "report in the log: bad base64 (its length or padding)");
  lines[1] = "@@distbench-report Zh==";  // padding over bits that are set
  EXPECT_EQ(errorOf(joined(lines)), "report in the log: bad base64 (its length or padding)");
}

TEST(ReportLog, BadBeginLinesAreNamed) {
  const std::string rest = "\n@@distbench-report Zm9vYmFy\n@@distbench-report end\n";
  const std::string good = "@@distbench-report begin v1 bytes=6 fnv1a64=85944171f73967e8 lines=1";
  ASSERT_EQ(reportFromLog(good + rest), "foobar");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"@@distbench-report begin", "expected 'begin v1"},
      {"@@distbench-report begin v2 bytes=6 fnv1a64=85944171f73967e8 lines=1", "version v2"},
      {"@@distbench-report begin v1 bytes=six fnv1a64=85944171f73967e8 lines=1",
       "expected bytes=N"},
      {"@@distbench-report begin v1 bytes=-6 fnv1a64=85944171f73967e8 lines=1", "expected bytes=N"},
      {"@@distbench-report begin v1 bytes=99999999999999999999999 fnv1a64=85944171f73967e8 lines=1",
       "expected bytes=N"},
      {"@@distbench-report begin v1 bytes=6 fnv1a64=85944171F73967E8 lines=1", "fnv1a64="},
      {"@@distbench-report begin v1 bytes=6 fnv1a64=85944171f73967e lines=1", "fnv1a64="},
      {"@@distbench-report begin v1 bytes=6 fnv1a64=85944171f73967e8 lines=", "lines=K"},
      {"@@distbench-report begin v1 bytes=6 fnv1a64=85944171f73967e8 lines=1 extra",
       "expected 'begin v1"},
      {"@@distbench-report begin v1 bytes=6  fnv1a64=85944171f73967e8 lines=1",
       "expected 'begin v1"},
  };
  for (const auto& [header, why] : cases) {
    const std::string error = errorOf(header + rest);
    EXPECT_TRUE(contains(error, "report in the log: bad begin line '" + header + "'")) << error;
    EXPECT_TRUE(contains(error, why)) << error;
  }
}

TEST(ReportLog, AFrameAnnouncingMoreThanTheReaderTakesIsRefusedBeforeDecoding) {
  const std::string json = noise(5000, 7);
  const std::string log = "before\n" + reportLogLines(json) + "after\n";
  EXPECT_EQ(reportFromLog(log, 5000), json);
  try {
    reportFromLog(log, 4999);
    FAIL() << "a 5000-byte report read with a bound of 4999";
  } catch (const ReportLogTooLarge& e) {
    EXPECT_EQ(e.announced(), 5000u);
    EXPECT_EQ(e.limit(), 4999u);
    EXPECT_STREQ(e.what(),
                 "report in the log: the begin line announces 5000 bytes, more than the 4999 "
                 "this reader takes");
  }
  // Refused on the begin line alone: no lines, no checksum, a size no
  // report has.
  const std::string huge =
      "@@distbench-report begin v1 bytes=18446744073709551615 fnv1a64=0000000000000000 lines=1\n"
      "@@distbench-report Zm9v\n@@distbench-report end\n";
  EXPECT_THROW(reportFromLog(huge, 1 << 20), ReportLogTooLarge);
}

TEST(ReportLog, LinesLongerOrMoreThanTheAnnouncedSizeNeedsAreRefused) {
  // One data line of 4100 characters: longer than any writer makes.
  const std::string json(3075, 'x');  // 4100 base64 characters
  std::vector<std::string> lines = linesOf(reportLogLines(json));
  ASSERT_EQ(lines.size(), 4u);
  lines[1] += lines[2].substr(std::string("@@distbench-report ").size());
  lines.erase(lines.begin() + 2);
  EXPECT_TRUE(contains(errorOf(joined(lines)), "line 1 of 2 holds 4100 characters, more than 4096"))
      << errorOf(joined(lines));
  // bytes=3 announces four base64 characters; the line holds eight.
  EXPECT_EQ(errorOf("@@distbench-report begin v1 bytes=3 fnv1a64=85944171f73967e8 lines=1\n"
                    "@@distbench-report Zm9vYmFy\n@@distbench-report end\n"),
            "report in the log: size mismatch: the lines hold more than the 3 bytes the begin "
            "line says");
}

TEST(ReportLog, TheFrameOfAReportOfAGivenSizeFitsTheBoundsSaidForIt) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{3071}, size_t{3072}, size_t{3073}, size_t{100000},
                   size_t{921600}}) {
    const std::string frame = reportLogLines(noise(n, n));
    EXPECT_LE(frame.size(), reportLogFrameBytes(n)) << n;
    EXPECT_GE(frame.size() + 60, reportLogFrameBytes(n)) << n << ": the bound is not tight";
    EXPECT_EQ(linesOf(frame).size(), reportLogFrameLines(n)) << n;
  }
}

}  // namespace
}  // namespace distbench::report
