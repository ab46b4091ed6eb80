// `distbench validate` on DistBenchmarkSchedule files, through the built
// executable: it dispatches on kind, names each bad field with its full path
// (spec.schedule, spec.template.spec.<field>), and prints a good schedule's
// next run.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"

namespace distbench::cli {
namespace {

using Result = process::BinaryResult;

constexpr const char* kSchedule = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmarkSchedule
metadata:
  name: nightly
spec:
  schedule: "30 2 * * *"
  timeZone: Europe/Berlin
  template:
    spec:
      topology:
        trainers: 2
        parameterServers: 1
)";

class ValidateSchedule : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }
  Result validate(const std::string& args) {
    return process::runCaptured(
        "cd '" + dir_.path() + "' && '" DISTBENCH_BINARY "' validate " + args, path("stdout"),
        path("stderr"));
  }
  // kSchedule with `from` replaced by `to`.
  static std::string edited(const std::string& from, const std::string& to) {
    std::string text = kSchedule;
    text.replace(text.find(from), from.size(), to);
    return text;
  }

  process::TempDir dir_;
};

TEST_F(ValidateSchedule, GoodScheduleShowsItsNextRun) {
  write("nightly.yaml", kSchedule);
  Result r = validate("nightly.yaml");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  // 02:30 in Berlin is 00:30 or 01:30 UTC.
  EXPECT_TRUE(std::regex_match(
      r.out, std::regex("nightly\\.yaml: valid \\(DistBenchmarkSchedule nightly: \"30 2 \\* \\* \\*\" "
                        "in Europe/Berlin, next run 20[0-9]{2}-[0-9]{2}-[0-9]{2}T0[01]:30:00Z; "
                        "2 trainers, 1 parameter server\\)\n")))
      << r.out;
}

TEST_F(ValidateSchedule, BadFieldsAreNamedWithTheirPaths) {
  write("bad.yaml", edited("30 2 * * *", "30 25 * * *") + "      runtime: {masterPort: 0}\n");
  Result r = validate("bad.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bad.yaml: invalid DistBenchmarkSchedule\n"), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("(^|\n)spec\\.schedule: hour field \"25\"")))
      << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("(^|\n)spec\\.template\\.spec\\.runtime\\.masterPort: ")))
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(ValidateSchedule, UnknownZoneAndAllowAreRefused) {
  write("zone.yaml", edited("Europe/Berlin", "Europe/Atlantis") + "  concurrencyPolicy: Allow\n");
  Result r = validate("zone.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("spec.timeZone: unknown time zone \"Europe/Atlantis\""), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("spec.concurrencyPolicy: Allow is not supported"), std::string::npos)
      << r.err;
}

TEST_F(ValidateSchedule, PrivilegedTemplateOverridesNeedTheFlag) {
  write("root.yaml", std::string(kSchedule) +
                         "      podTemplates:\n"
                         "        trainer:\n"
                         "          podSecurityContext: {runAsNonRoot: false, runAsUser: 0}\n");
  Result refused = validate("root.yaml");
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("spec.template.spec.podTemplates.trainer.podSecurityContext.runAsUser"),
            std::string::npos)
      << refused.err;
  Result allowed = validate("--allow-privileged-overrides root.yaml");
  EXPECT_EQ(allowed.exitCode, 0) << allowed.err;
}

TEST_F(ValidateSchedule, SchedulesAndBenchmarksMix) {
  write("nightly.yaml", kSchedule);
  write("small.yaml",
        "apiVersion: distbench.io/v1alpha1\nkind: DistBenchmark\nmetadata: {name: small}\n"
        "spec: {topology: {trainers: 2, parameterServers: 1}}\n");
  Result r = validate("nightly.yaml small.yaml");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("nightly.yaml: valid (DistBenchmarkSchedule"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("small.yaml: valid (DistBenchmark small"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace distbench::cli
