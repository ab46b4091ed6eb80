// The HybridDDPRPC report's `results` (docs/report-schema.md#hybridddprpc):
// each trainer's reference to its series and its step phases, which the
// HTML report stacks per trainer.
#include "distbench/worker/hybrid/hybrid_report.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include "distbench/api/presets.h"
#include "distbench/worker/common/step_samples.h"

namespace distbench::worker {
namespace {

using web::json::value;

TEST(HybridReport, TrainersCarryTheirPhaseSummaries) {
  const api::DistBenchmark b = api::preset("default");
  TrainerResult t0{"Trainer0", 3, 64, {0.4, 0.5, 0.6}};
  t0.phases = {{"lookup", {0.010, 0.030, 0.020}}, {"forward", {0.001, 0.002, 0.003}}};
  TrainerResult t1{"Trainer1", 4, 64, {0.5, 0.5}};
  t1.phases = {{"lookup", {0.040, 0.040}}, {"forward", {0.002, 0.004}}};
  const report::Report r = hybridReport(b, {t0, t1}, report::Host{});

  const value results = value::parse(r.resultsJson);
  const value& trainers = results.at("trainers");
  ASSERT_EQ(trainers.size(), 2u);
  EXPECT_EQ(trainers.at(0).at("name").as_string(), "Trainer0");
  EXPECT_EQ(trainers.at(0).at("rank").as_integer(), 3);
  EXPECT_EQ(trainers.at(0).at("series").as_integer(), 0);
  EXPECT_EQ(trainers.at(1).at("series").as_integer(), 1);
  EXPECT_EQ(results.at("all").at("series").as_integer(), 2);

  const value& lookup = trainers.at(0).at("phases").at("lookup");
  EXPECT_EQ(lookup.at("count").as_integer(), 3);
  EXPECT_DOUBLE_EQ(lookup.at("p50").as_double(), 0.020);
  EXPECT_DOUBLE_EQ(lookup.at("mean").as_double(), 0.020);
  EXPECT_DOUBLE_EQ(lookup.at("min").as_double(), 0.010);
  EXPECT_DOUBLE_EQ(lookup.at("max").as_double(), 0.030);
  // The same fields as a series' summary, but no rates: a phase has no work.
  for (const char* field : {"p75", "p90", "p95", "p99", "stdev"}) {
    EXPECT_TRUE(lookup.has_field(field)) << field;
  }
  EXPECT_FALSE(lookup.has_field("ratePerSecond"));
  EXPECT_EQ(trainers.at(0).at("phases").size(), 2u);
  EXPECT_DOUBLE_EQ(trainers.at(1).at("phases").at("forward").at("p50").as_double(), 0.003);
  // Per trainer only: `all` pools epochs, and phases are not pooled.
  EXPECT_FALSE(results.at("all").has_field("phases"));
  // The epochs themselves, in order, for the straggler test's interval.
  const value& lookups = trainers.at(0).at("phaseSamples").at("lookup");
  ASSERT_EQ(lookups.size(), 3u);
  EXPECT_DOUBLE_EQ(lookups.at(0).as_double(), 0.010);
  EXPECT_DOUBLE_EQ(lookups.at(1).as_double(), 0.030);
  EXPECT_DOUBLE_EQ(lookups.at(2).as_double(), 0.020);
  EXPECT_FALSE(results.at("all").has_field("phaseSamples"));
}

// A long run's samples are thinned to kMaxReportedStepSamples, evenly over
// the run, so its report still fits where the operator stores it.
TEST(HybridReport, ALongRunsStepSamplesAreThinnedEvenly) {
  const api::DistBenchmark b = api::preset("default");
  std::vector<double> epochs(6000);
  for (size_t i = 0; i < epochs.size(); ++i) epochs[i] = 0.001 * static_cast<double>(i);
  TrainerResult t0{"Trainer0", 3, 64, epochs};
  t0.phases = {{"lookup", epochs}};
  const report::Report r = hybridReport(b, {t0}, report::Host{});
  const value results = value::parse(r.resultsJson);
  const value& lookups = results.at("trainers").at(0).at("phaseSamples").at("lookup");
  ASSERT_EQ(lookups.size(), kMaxReportedStepSamples);
  EXPECT_DOUBLE_EQ(lookups.at(0).as_double(), 0.0);
  EXPECT_DOUBLE_EQ(lookups.at(1).as_double(), 0.001 * (6000 / 512));
  EXPECT_DOUBLE_EQ(lookups.at(kMaxReportedStepSamples - 1).as_double(), 0.001 * (511 * 6000 / 512));
  EXPECT_EQ(r.series.at(0).samples.size(), 6000u) << "the series keeps every epoch";
  EXPECT_EQ(thinnedSteps({1, 2, 3}), (std::vector<double>{1, 2, 3}));
}

// A result without phases (as a kind without them would build) leaves the
// key out instead of writing an empty object; without traffic, its keys too.
TEST(HybridReport, NoPhasesNoKey) {
  const report::Report r =
      hybridReport(api::preset("default"), {{"Trainer0", 1, 10, {0.1}}}, report::Host{});
  EXPECT_FALSE(value::parse(r.resultsJson).at("trainers").at(0).has_field("phases"));
  EXPECT_FALSE(value::parse(r.resultsJson).at("trainers").at(0).has_field("bytesPerStep"));
}

// Bytes per step for each trainer and each parameter server's service
// times, as the master measured them (docs/report-schema.md#hybridddprpc).
TEST(HybridReport, TrainersAndParameterServersCarryTheirTraffic) {
  const api::DistBenchmark b = api::preset("default");
  const TrainerResult t0{"Trainer0", 3, 64, {0.4}};
  HybridTraffic traffic;
  traffic.trainers = {{192960, 128640, 8320}};
  ServiceRecorder recorder(0, 2);
  recorder.record(Op::Lookup, 0, 0.002, 12864, 12864);
  recorder.record(Op::Lookup, 1, 0.004, 12864, 12864);
  recorder.record(Op::PushGrad, 1, 0.001, 12864, 0);
  traffic.parameterServers = {{"PS0", 1, recorder.stats()}};
  const report::Report r = hybridReport(b, {t0}, report::Host{}, traffic);

  const value results = value::parse(r.resultsJson);
  const value& trainer = results.at("trainers").at(0);
  EXPECT_EQ(trainer.at("bytesPerStep").at("sent").as_integer(), 192960);
  EXPECT_EQ(trainer.at("bytesPerStep").at("received").as_integer(), 128640);
  EXPECT_EQ(trainer.at("denseGradientBytes").as_integer(), 8320);

  const value& servers = results.at("parameterServers");
  ASSERT_EQ(servers.size(), 1u);
  const value& ps = servers.at(0);
  EXPECT_EQ(ps.at("name").as_string(), "PS0");
  EXPECT_EQ(ps.at("rank").as_integer(), 1);
  EXPECT_EQ(ps.at("service").at("lookup").at("count").as_integer(), 2);
  EXPECT_DOUBLE_EQ(ps.at("service").at("lookup").at("p50").as_double(), 0.003);
  EXPECT_EQ(ps.at("service").at("pushGrad").at("count").as_integer(), 1);
  EXPECT_TRUE(ps.at("service").at("step").is_null());  // none measured
  EXPECT_EQ(ps.at("bytesPerStep").at("received").as_integer(), 3 * 12864 / 2);
  EXPECT_EQ(ps.at("bytesPerStep").at("sent").as_integer(), 12864);
  // Per measured step, the mean of its requests' service: step 1 had two.
  const value& service = ps.at("serviceSamples");
  ASSERT_EQ(service.size(), 2u);
  EXPECT_DOUBLE_EQ(service.at(0).as_double(), 0.002);
  EXPECT_DOUBLE_EQ(service.at(1).as_double(), 0.0025);
}

// A fraction of a byte per step (a count that does not divide) stays one.
TEST(HybridReport, FractionalBytesPerStepStayFractional) {
  HybridTraffic traffic;
  traffic.trainers = {{100.5, 7, 0}};
  const report::Report r = hybridReport(api::preset("default"), {{"Trainer0", 1, 10, {0.1}}},
                                        report::Host{}, traffic);
  const value results = value::parse(r.resultsJson);
  EXPECT_DOUBLE_EQ(results.at("trainers").at(0).at("bytesPerStep").at("sent").as_double(), 100.5);
  EXPECT_TRUE(results.at("trainers").at(0).at("bytesPerStep").at("received").is_integer());
  EXPECT_EQ(results.at("parameterServers").size(), 0u);
}

}  // namespace
}  // namespace distbench::worker
