#include "prometheus_targets.h"

#include <gtest/gtest.h>

#include "binary_runner.h"
#include "temp_dir.h"

namespace distbench::cli {
namespace {

api::RankProcess rank(api::Role role, int number) {
  api::RankProcess r;
  r.role = role;
  r.rank = number;
  return r;
}

TEST(PrometheusTargets, OneGroupPerRankWithTheDashboardsLabels) {
  const std::vector<api::RankProcess> ranks = {rank(api::Role::Master, 0),
                                               rank(api::Role::ParameterServer, 1),
                                               rank(api::Role::Trainer, 2)};
  EXPECT_EQ(prometheusTargetsJson("tut\"orial", ranks, {9400, 9401, 9402}, "127.0.0.1"),
            "[\n"
            "  {\"targets\": [\"127.0.0.1:9400\"], \"labels\": {\"benchmark\": \"tut\\\"orial\", "
            "\"role\": \"master\", \"rank\": \"0\"}},\n"
            "  {\"targets\": [\"127.0.0.1:9401\"], \"labels\": {\"benchmark\": \"tut\\\"orial\", "
            "\"role\": \"ps\", \"rank\": \"1\"}},\n"
            "  {\"targets\": [\"127.0.0.1:9402\"], \"labels\": {\"benchmark\": \"tut\\\"orial\", "
            "\"role\": \"trainer\", \"rank\": \"2\"}}\n"
            "]\n");
}

TEST(PrometheusTargets, TheFileListsTheRunWhileItLastsAndNothingAfter) {
  process::TempDir dir;
  const std::string path = dir.path() + "/targets.json";
  {
    PrometheusTargetsFile file(path, "[{\"targets\": [\"127.0.0.1:1\"]}]\n");
    EXPECT_EQ(process::slurp(path), "[{\"targets\": [\"127.0.0.1:1\"]}]\n");
  }
  EXPECT_EQ(process::slurp(path), "[]\n");
}

TEST(PrometheusTargets, AnUnwritableFileIsAnErrorNamingIt) {
  try {
    PrometheusTargetsFile file("/nonexistent-dir/targets.json", "[]");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/targets.json"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace distbench::cli
