#include "distbench/cli/local_run/prometheus_targets.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"

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

// A file of the user's that a planted link points at.
std::string victim(const process::TempDir& dir) {
  const std::string path = dir.path() + "/victim";
  std::ofstream(path) << "keep me\n";
  return path;
}

TEST(PrometheusTargets, ATargetThatIsASymlinkIsRefusedAndWhatItNamesKept) {
  process::TempDir dir;
  const std::string kept = victim(dir);
  const std::string path = dir.path() + "/targets.json";
  ASSERT_EQ(::symlink(kept.c_str(), path.c_str()), 0);
  try {
    PrometheusTargetsFile file(path, "[]\n");
    FAIL() << "wrote through a symbolic link";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": it is a symbolic link"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(process::slurp(kept), "keep me\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link is left as it was";
}

// The old temporary name was "<file>.tmp.<pid>", opened following links:
// a link planted under it redirected the write. No name beside the file is
// followed now, whatever was planted.
TEST(PrometheusTargets, ALinkPlantedWhereTheTemporaryFileGoesIsNotFollowed) {
  process::TempDir dir;
  const std::string kept = victim(dir);
  const std::string path = dir.path() + "/targets.json";
  const std::string planted = path + ".tmp." + std::to_string(::getpid());
  ASSERT_EQ(::symlink(kept.c_str(), planted.c_str()), 0);
  {
    PrometheusTargetsFile file(path, "[{\"targets\": [\"127.0.0.1:1\"]}]\n");
    EXPECT_EQ(process::slurp(path), "[{\"targets\": [\"127.0.0.1:1\"]}]\n");
  }
  EXPECT_EQ(process::slurp(path), "[]\n");
  EXPECT_EQ(process::slurp(kept), "keep me\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

// Swapped for a link while the run lasts: the run's end leaves it alone too.
TEST(PrometheusTargets, ALinkSwappedInDuringTheRunIsLeftAlone) {
  process::TempDir dir;
  const std::string kept = victim(dir);
  const std::string path = dir.path() + "/targets.json";
  {
    PrometheusTargetsFile file(path, "[]\n");
    ASSERT_EQ(::unlink(path.c_str()), 0);
    ASSERT_EQ(::symlink(kept.c_str(), path.c_str()), 0);
  }
  EXPECT_EQ(process::slurp(kept), "keep me\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

}  // namespace
}  // namespace distbench::cli
