#include "distbench/operator/benchmarks/failed_rank_logs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "distbench/api/object_names.h"

namespace distbench::op {
namespace {

using web::json::value;

PodState pod(const std::string& name, int rank, const std::string& phase, int exitCode,
             bool deleting = false) {
  PodState p;
  p.name = name;
  p.rank = rank;
  p.phase = phase;
  p.exitCode = exitCode;
  p.deleting = deleting;
  return p;
}

TEST(FailedRankLogs, KeysNameTheGangAndTheRank) {
  EXPECT_EQ(api::rankLogKey(3, "trainer1"), "gang-3.trainer1.log");
  ASSERT_TRUE(api::parseRankLogKey("gang-3.trainer1.log"));
  EXPECT_EQ(api::parseRankLogKey("gang-3.trainer1.log")->gang, 3);
  EXPECT_EQ(api::parseRankLogKey("gang-3.trainer1.log")->rankLabel, "trainer1");
  ASSERT_TRUE(api::parseRankLogKey("gang-12.ps0.log"));
  EXPECT_EQ(api::parseRankLogKey("gang-12.ps0.log")->gang, 12);
  EXPECT_FALSE(api::parseRankLogKey("report.json"));
  EXPECT_FALSE(api::parseRankLogKey("gang-.x.log"));
  EXPECT_FALSE(api::parseRankLogKey("gang-1x.x.log"));
  EXPECT_FALSE(api::parseRankLogKey("gang-12345678901.x.log"));
  EXPECT_FALSE(api::parseRankLogKey("gang-1..log")) << "no rank";
  EXPECT_FALSE(api::parseRankLogKey("gang-1.trainer1.txt"));
}

TEST(FailedRankLogs, TheFirstFailedRanksWithAnEndedContainerAreRead) {
  GangState g;
  g.pods = {pod("b-master-0", 0, "Running", -1),
            pod("b-trainer-0", 2, "Failed", 1),
            pod("b-trainer-1", 3, "Running", -1, /*deleting=*/true),  // lost with its node
            pod("b-trainer-2", 4, "Failed", 137),
            pod("b-trainer-3", 5, "Failed", 1),
            pod("b-trainer-4", 6, "Failed", 1),
            pod("b-trainer-5", 7, "Failed", 1)};
  const std::vector<const PodState*> read = ranksToKeepLogsOf(g);
  ASSERT_EQ(read.size(), kFailedLogsPerGang);
  EXPECT_EQ(read[0]->name, "b-trainer-0");
  EXPECT_EQ(read[1]->name, "b-trainer-2");
  EXPECT_EQ(read[3]->name, "b-trainer-4");
  GangState healthy;
  healthy.pods = {pod("b-master-0", 0, "Running", -1)};
  EXPECT_TRUE(ranksToKeepLogsOf(healthy).empty());
}

TEST(FailedRankLogs, NewLogsJoinTheKeptOnesAndTheOldestGangsMakeRoom) {
  const std::string big(kMaxKeptLogBytes / 3, 'x');
  value existing = value::object();
  existing["gang-0.trainer1.log"] = value::string(big);
  existing["gang-1.trainer1.log"] = value::string(big);
  existing["gang-2.trainer0.log"] = value::string("short\n");
  existing["note"] = value::string("someone's own key");
  const value data = keptRankLogs(existing, {{"gang-3.trainer1.log", big}});
  EXPECT_EQ(data.at("gang-3.trainer1.log").as_string(), big);
  EXPECT_EQ(data.at("gang-2.trainer0.log").as_string(), "short\n");
  EXPECT_TRUE(data.has_field("gang-1.trainer1.log"));
  EXPECT_FALSE(data.has_field("gang-0.trainer1.log")) << "the oldest gang made room";
  EXPECT_EQ(data.at("note").as_string(), "someone's own key");

  const value first = keptRankLogs(value::null(), {{"gang-0.ps0.log", "a\n"}});
  EXPECT_EQ(first.serialize(), R"({"gang-0.ps0.log":"a\n"})");
}

TEST(FailedRankLogs, WhatIsKeptIsTheLastLinesButProgress) {
  std::string tail;
  for (int i = 0; i < 150; ++i) {
    tail += "trainer1: step " + std::to_string(i) + "\n";
    tail += "@@distbench-progress done=" + std::to_string(i) + " total=150 unit=epochs\n";
  }
  tail += "trainer1: allreduce: peer closed";  // the last line, unended
  const std::string kept = keptLogText(tail);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), '\n'), 99);
  EXPECT_EQ(kept.substr(0, 17), "trainer1: step 51");
  EXPECT_EQ(kept.find("@@distbench-progress"), std::string::npos);
  EXPECT_EQ(kept.substr(kept.size() - 32), "trainer1: allreduce: peer closed");

  const std::string line(1000, 'x');
  std::string wide;
  for (int i = 0; i < 40; ++i) wide += line + "\n";
  const std::string cut = keptLogText(wide);
  EXPECT_LE(cut.size(), kFailedLogKeptBytes);
  EXPECT_EQ(cut.size() % 1001, 0u) << "whole lines only";
  EXPECT_EQ(keptLogText(""), "");

  // A last line past the bound alone (a long traceback line): its end.
  const std::string longLast = keptLogText("before\n" + std::string(20000, 'z') + "END\n");
  EXPECT_EQ(longLast.rfind("…", 0), 0u);
  EXPECT_EQ(longLast.substr(longLast.size() - 4), "END\n");
  EXPECT_LE(longLast.size(), kFailedLogKeptBytes);
}

}  // namespace
}  // namespace distbench::op
