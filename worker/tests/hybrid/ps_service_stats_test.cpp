// A parameter server's service times and bytes for the report
// (hybrid/ps_service_stats.h): which requests count and what crosses to the
// master.
#include "distbench/worker/hybrid/ps_service_stats.h"

#include <gtest/gtest.h>

#include <thread>

namespace distbench::worker {
namespace {

TEST(ServiceRecorder, CountsTheMeasuredStepsTrainerRequestsOnly) {
  // 2 warm-up steps, then 3 measured.
  ServiceRecorder recorder(2, 3);
  for (int64_t step = 0; step < 5; ++step) {
    const double base = step < 2 ? 100.0 : 0.01 * step;  // warm-up times would show
    recorder.record(Op::Lookup, step, base, 1000, 700);
    recorder.record(Op::PushGrad, step, base / 2, 1000, 0);
    recorder.record(Op::Step, step, base / 4, 1000, 700);
  }
  recorder.record(Op::CreateShard, 0, 50.0, 1000, 700);  // the master's: not a trainer's
  recorder.record(Op::Done, 5, 50.0, 1000, 0);
  const ParameterServerStats s = recorder.stats();
  ASSERT_TRUE(s.lookup && s.pushGrad && s.step);
  EXPECT_EQ(s.lookup->count, 3u);
  EXPECT_EQ(s.pushGrad->count, 3u);
  EXPECT_EQ(s.step->count, 3u);
  EXPECT_DOUBLE_EQ(s.lookup->p50, 0.03);
  EXPECT_DOUBLE_EQ(s.lookup->max, 0.04);
  EXPECT_DOUBLE_EQ(s.pushGrad->min, 0.01);
  EXPECT_DOUBLE_EQ(s.step->mean, 0.0075);
  // Per measured step: three requests in, two replies out.
  EXPECT_DOUBLE_EQ(s.bytesReceivedPerStep, 3000);
  EXPECT_DOUBLE_EQ(s.bytesSentPerStep, 1400);
  // Per measured step, the mean of its three requests: (1 + 1/2 + 1/4) / 3 of the step's base.
  ASSERT_EQ(s.serviceSamples.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(s.serviceSamples[i], 0.01 * (i + 2) * 1.75 / 3) << "step " << i + 2;
  }
}

TEST(ServiceRecorder, NothingMeasuredIsNoSummary) {
  ServiceRecorder recorder(4, 0);
  recorder.record(Op::Lookup, 3, 0.1, 10, 10);
  const ParameterServerStats s = recorder.stats();
  EXPECT_FALSE(s.lookup.has_value());
  EXPECT_FALSE(s.step.has_value());
  EXPECT_EQ(s.bytesReceivedPerStep, 0);
}

// Every trainer has a thread of its own on the server.
TEST(ServiceRecorder, TakesRequestsFromManyThreads) {
  ServiceRecorder recorder(0, 1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int64_t i = 0; i < 1000; ++i) recorder.record(Op::Step, i, 0.001, 8, 4);
    });
  }
  for (auto& t : threads) t.join();
  const ParameterServerStats s = recorder.stats();
  EXPECT_EQ(s.step->count, 4000u);
  EXPECT_DOUBLE_EQ(s.bytesReceivedPerStep, 32);
  EXPECT_DOUBLE_EQ(s.bytesSentPerStep, 16);
}

TEST(ParameterServerStats, SurviveTheStore) {
  ServiceRecorder recorder(0, 2);
  recorder.record(Op::Lookup, 0, 0.25, 100, 60);
  recorder.record(Op::Lookup, 1, 0.75, 100, 60);
  recorder.record(Op::Step, 1, 0.5, 100, 60);
  const ParameterServerStats s = recorder.stats();
  const ParameterServerStats back = ParameterServerStats::unflatten(s.flatten());
  ASSERT_TRUE(back.lookup.has_value());
  EXPECT_EQ(back.lookup->count, 2u);
  EXPECT_EQ(back.lookup->p50, s.lookup->p50);
  EXPECT_EQ(back.lookup->stdev, s.lookup->stdev);
  EXPECT_FALSE(back.pushGrad.has_value());
  EXPECT_EQ(back.step->max, 0.5);
  EXPECT_EQ(back.bytesReceivedPerStep, 150);
  EXPECT_EQ(back.bytesSentPerStep, 90);
  EXPECT_EQ(back.serviceSamples, (std::vector<double>{0.25, 0.625}));
  try {
    ParameterServerStats::unflatten({1, 2});
    FAIL() << "two values are no stats";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("got 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distbench::worker
