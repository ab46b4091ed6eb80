// Every record is one line that a JSON parser (or a person) reads back as
// written, whatever its text holds: quotes, line breaks, bytes that are not
// UTF-8. And lines from many threads never interleave.
#include "distbench/kube/log.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <thread>
#include <vector>

namespace distbench::kube {
namespace {

using web::json::value;

// The logger is process-wide: each test gets a private sink and the defaults
// back afterwards.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::setSink(&out_);
    log::setLevel(log::Level::Info);
    log::setFormat(log::Format::Json);
  }
  void TearDown() override {
    log::setSink(nullptr);
    log::setLevel(log::Level::Info);
    log::setFormat(log::Format::Json);
  }

  std::vector<std::string> lines() const {
    std::vector<std::string> result;
    std::istringstream in(out_.str());
    for (std::string line; std::getline(in, line);) result.push_back(line);
    return result;
  }

  value onlyRecord() const {
    const auto all = lines();
    EXPECT_EQ(all.size(), 1u) << out_.str();
    return all.empty() ? value::null() : value::parse(all.front());
  }

  std::ostringstream out_;
};

TEST_F(LogTest, JsonRecordHasTimestampLevelMessageAndFieldsInOrder) {
  log::info("reconciled", {{"key", "ns/name"}, {"pods", std::to_string(3)}});
  const std::string line = lines().at(0);
  EXPECT_TRUE(std::regex_match(
      line, std::regex(R"(\{"ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"info",)"
                       R"("msg":"reconciled","key":"ns/name","pods":"3"\})")))
      << line;
  const value record = onlyRecord();
  EXPECT_EQ(record.at("key").as_string(), "ns/name");
}

TEST_F(LogTest, QuotesLineBreaksAndControlCharactersAreEscaped) {
  const std::string nasty = "say \"hi\"\\ then\nnext line\r\ttab \x01 end";
  log::error(nasty, {{"error", nasty}, {"with \"quote\"", "v"}});
  const auto all = lines();
  ASSERT_EQ(all.size(), 1u) << "a line break leaked: " << out_.str();
  const value record = value::parse(all.front());
  EXPECT_EQ(record.at("level").as_string(), "error");
  EXPECT_EQ(record.at("msg").as_string(), nasty);
  EXPECT_EQ(record.at("error").as_string(), nasty);
  EXPECT_EQ(record.at("with \"quote\"").as_string(), "v");
}

TEST_F(LogTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // A lone continuation byte, a truncated sequence, and valid multibyte text.
  log::warn("caf\xc3\xa9 \x80 \xe2\x82 ok", {{"path", "/tmp/\xff"}});
  const value record = onlyRecord();
  EXPECT_EQ(record.at("msg").as_string(), "caf\xc3\xa9 \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd ok");
  EXPECT_EQ(record.at("path").as_string(), "/tmp/\xef\xbf\xbd");
}

TEST_F(LogTest, RecordsBelowTheLevelAreDropped) {
  log::debug("hidden");
  EXPECT_TRUE(out_.str().empty());
  log::setLevel(log::Level::Debug);
  log::debug("shown");
  EXPECT_EQ(onlyRecord().at("level").as_string(), "debug");

  out_.str("");
  log::setLevel(log::Level::Error);
  log::warn("hidden");
  log::info("hidden");
  EXPECT_TRUE(out_.str().empty());
  EXPECT_FALSE(log::enabled(log::Level::Warn));
}

TEST_F(LogTest, TextFormatQuotesOnlyValuesThatNeedIt) {
  log::setFormat(log::Format::Text);
  log::warn("requeued\nagain",
            {{"key", "ns/name"}, {"error", "quota \"x\" exceeded"}, {"empty", ""}});
  const auto all = lines();
  ASSERT_EQ(all.size(), 1u) << out_.str();
  EXPECT_TRUE(std::regex_match(
      all[0], std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN requeued\\nagain )"
                         R"(key=ns/name error="quota \\"x\\" exceeded" empty="")")))
      << all[0];
}

TEST_F(LogTest, LinesFromManyThreadsDoNotInterleave) {
  constexpr int kThreads = 8, kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kPerThread; ++i)
        log::info("from a thread",
                  {{"thread", std::to_string(t)}, {"padding", std::string(300, 'x')}});
    });
  }
  for (auto& thread : threads) thread.join();
  const auto all = lines();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
  for (const auto& line : all) ASSERT_NO_THROW(value::parse(line)) << line;
}

TEST(LogParse, LevelsAndFormatsByName) {
  EXPECT_EQ(log::parseLevel("debug"), log::Level::Debug);
  EXPECT_EQ(log::parseLevel("warning"), log::Level::Warn);
  EXPECT_EQ(log::parseLevel("error"), log::Level::Error);
  EXPECT_EQ(log::parseLevel("verbose"), std::nullopt);
  EXPECT_EQ(log::parseFormat("text"), log::Format::Text);
  EXPECT_EQ(log::parseFormat("logfmt"), std::nullopt);
}

}  // namespace
}  // namespace distbench::kube
