// The attribution names what the run was given (issue 22's proof), for real:
// a rank capped at a fraction of a CPU is the straggler, a rank whose link
// runs at a tenth of the others' is the slow link, and a run with neither
// names nothing. For the DDP and HybridDDPRPC kinds, tiny topologies; root
// only (label sandbox, RUN_SERIAL: the caps and rates must not compete with
// other suites for the cores).
#include <string>

#include "local_run/sandbox_run_support.h"

namespace distbench::cli {
namespace {

using namespace sandbox_testing;
using web::json::value;

// One PS, two trainers, 102 KB messages (50 bag indices x 512 floats): the
// trainers' RPCs are most of a step.
constexpr const char* kHybridSpec = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: why-hybrid}
spec:
  topology: {trainers: 2, parameterServers: 1}
  benchmark:
    kind: HybridDDPRPC
    hybridDDPRPC: {numEmbeddings: 100, embeddingDim: 512, maxBagIndices: 50, denseLayers: [8],
                   batchesPerEpoch: 5, epochs: 4, warmupEpochs: 1}
  runtime: {rendezvousTimeoutSeconds: 60}
)";

class SandboxAttribution : public SandboxRun {
 protected:
  // The attribution row the run's verdict comes from: DDP's row with every
  // trainer, the hybrid's pooled `All`.
  value rowOf(const std::string& spec, const std::string& flags, const std::string& row) {
    const std::string path = report("why.json");
    CliRun run(dir(), write("spec.yaml", spec) + " " + flags + " --report " + path);
    EXPECT_EQ(run.wait(90s), 0) << run.err();
    out_ = run.out();
    const report::Report parsed = readReport(path);
    EXPECT_FALSE(parsed.attributionJson.empty()) << out_;
    if (parsed.attributionJson.empty()) return value::object();
    const value attribution = value::parse(parsed.attributionJson);
    for (const value& r : attribution.at("rows").as_array()) {
      if (r.at("row").as_string() == row) return r;
    }
    ADD_FAILURE() << "no attribution row " << row << " in " << parsed.attributionJson;
    return value::object();
  }

  static std::string named(const value& row, const std::string& field) {
    if (!row.has_field(field) || row.at(field).is_null()) return "";
    return row.at(field).at("name").as_string();
  }

  // An unshaped run names no straggler. On a virtual machine a vCPU the host
  // shares with other guests runs slower for seconds at a time, and then the
  // rank on it is a straggler in fact (seen: 1.63x its twin's compute). Such
  // noise lands on either rank; a rule that wrongly blames a rank of an
  // unshaped run blames it again. So a run that names one is run once more,
  // and the same rank named twice fails.
  void expectNoStraggler(const std::string& spec, const std::string& rowName) {
    const value first = rowOf(spec, "", rowName);
    EXPECT_EQ(named(first, "link"), "") << first.serialize();
    const std::string blamed = named(first, "straggler");
    if (blamed.empty()) return;
    const value second = rowOf(spec, "", rowName);
    EXPECT_EQ(named(second, "link"), "") << second.serialize();
    EXPECT_NE(named(second, "straggler"), blamed)
        << "two unshaped runs both named " << blamed << ":\n"
        << first.serialize() << "\n"
        << second.serialize() << out_;
  }

  std::string out_;  // the run's stdout: the table and both footers
};

TEST_F(SandboxAttribution, DdpCappedRankIsTheStraggler) {
  const value row = rowOf(kSmallDdpSpec, "--slow trainer1=cpu:25%", "1M/2R");
  EXPECT_EQ(named(row, "straggler"), "trainer1") << row.serialize() << out_;
  EXPECT_EQ(named(row, "link"), "") << row.serialize();
  EXPECT_NE(out_.find("straggler trainer1"), std::string::npos) << out_;
}

TEST_F(SandboxAttribution, DdpRankOnATenthOfTheRateIsTheSlowLink) {
  const value row = rowOf(kSmallDdpSpec, "--links 'bandwidth=1gbit;trainer1=100mbit'", "1M/2R");
  EXPECT_EQ(named(row, "link"), "trainer1") << row.serialize() << out_;
  EXPECT_EQ(named(row, "straggler"), "") << row.serialize();
  // What if it ran at 1gbit: faster than measured, never faster than nothing.
  ASSERT_TRUE(row.at("whatIfSeconds").is_number()) << row.serialize();
  EXPECT_LT(row.at("whatIfSeconds").as_double(), row.at("stepSeconds").as_double());
  EXPECT_GT(row.at("whatIfSeconds").as_double(), 0);
}

TEST_F(SandboxAttribution, DdpUnshapedNamesNoStragglerAndNoLink) {
  expectNoStraggler(kSmallDdpSpec, "1M/2R");
}

TEST_F(SandboxAttribution, HybridCappedTrainerIsTheStraggler) {
  // A hybrid trainer here spends most of a step waiting on its RPCs and uses
  // well under a third of a CPU, so a 20 % cap bites only now and then
  // (measured: one run of three). At 5 % its compute is 4-12x the other's.
  const value row = rowOf(kHybridSpec, "--slow trainer1=cpu:5%", "All");
  EXPECT_EQ(named(row, "straggler"), "trainer1") << row.serialize() << out_;
  EXPECT_EQ(named(row, "link"), "") << row.serialize();
}

TEST_F(SandboxAttribution, HybridTrainerOnATenthOfTheRateIsTheSlowLink) {
  const value row = rowOf(kHybridSpec, "--links 'bandwidth=1gbit;trainer0=100mbit'", "All");
  EXPECT_EQ(named(row, "link"), "trainer0") << row.serialize() << out_;
  EXPECT_EQ(named(row, "straggler"), "") << row.serialize();
}

TEST_F(SandboxAttribution, HybridUnshapedNamesNoStragglerAndNoLink) {
  expectNoStraggler(kHybridSpec, "All");
}

}  // namespace
}  // namespace distbench::cli
