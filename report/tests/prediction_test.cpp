// predict() on synthetic reports that follow the issue-22 contract
// (/docs/report-schema.md: rows[].buckets, trainers[].bytesPerStep, the
// `local` block), so each part of the model is checked by itself: the bucket
// replay, the bounds without buckets, calibration on a shaped run, the PS
// traffic, world-size scaling, heterogeneous links and the option checks.
#include "distbench/report/prediction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "distbench/report/alpha_beta.h"
#include "distbench/report/bit_rate.h"

namespace distbench::report {
namespace {

std::string summary(double p50) {
  return "{\"count\":1,\"p50\":" + std::to_string(p50) + "}";
}

Series series(const std::string& group, const std::string& row, int ranks, double p50,
              const std::string& sampleOf = "iteration") {
  Series s;
  s.group = group;
  s.row = row;
  s.ranks = ranks;
  s.sampleOf = sampleOf;
  s.samples = {p50};
  return s;
}

// A DDP run of two trainers: "no ddp" at 10 ms, "2R" at 10 ms plus its
// allreduceWait (2 ms unless a test sets what its buckets imply), with
// forward 3, backward 6 and the optimizer step 1 ms.
struct DdpRun {
  std::string buckets = "[]";
  double wait = 0.002;
  double gradientBytes = 4e6;
  std::string local;

  Report report() const {
    Report r;
    r.kind = "DDP";
    r.name = "synthetic";
    r.trainers = 2;
    r.worldSize = 3;
    r.bucketCapMB = 25;
    r.series = {series("m", "no ddp", 1, 0.010), series("m", "2R", 2, 0.010 + wait)};
    const std::string phases = "{\"forward\":" + summary(0.003) + ",\"backward\":" +
                               summary(0.006) + ",\"allreduceWait\":" + summary(wait) +
                               ",\"optimizerStep\":" + summary(0.001) + "}";
    r.resultsJson = "{\"models\":[{\"model\":\"m\",\"parameters\":1000000,\"rows\":["
                    "{\"row\":\"no ddp\",\"ddp\":false,\"ranks\":1,\"series\":0},"
                    "{\"row\":\"2R\",\"ddp\":true,\"ranks\":2,\"series\":1,\"phases\":" +
                    phases + ",\"gradientBytes\":" + std::to_string(gradientBytes) +
                    ",\"buckets\":" + buckets + "}]}]}";
    r.localJson = local;
    return r;
  }
};

std::string bucket(double bytes, double launched, double duration) {
  return "{\"index\":0,\"parameters\":1,\"bytes\":" + std::to_string(bytes) +
         ",\"firstGradient\":0,\"launched\":" + std::to_string(launched) +
         ",\"completed\":" + std::to_string(launched + duration) + "}";
}

PredictOptions at(double bitsPerSecond, double efficiency = 1.0) {
  PredictOptions o;
  o.bitsPerSecond = bitsPerSecond;
  o.efficiency = efficiency;
  return o;
}

const RowPrediction& row(const std::vector<RowPrediction>& rows, const std::string& name) {
  for (const RowPrediction& r : rows) {
    if (r.row == name) return r;
  }
  throw std::runtime_error("no row " + name);
}

constexpr double kLocal = 1e-10;  // seconds per byte of copy and reduce in the buckets below

TEST(PredictDdp, ALateBucketSetsTheWait) {
  // A small bucket early in backward, a 4 MB one at its end (6 ms).
  DdpRun run;
  run.buckets = "[" + bucket(1e4, 0.001, 1e4 * kLocal) + "," + bucket(4e6, 0.006, 4e6 * kLocal) +
                "]";
  run.wait = 4e6 * kLocal;  // the last bucket's own time, after backward
  const auto rows = predict(run.report(), at(100e6));
  const RowPrediction r = row(rows, "2R");
  // Everything but the wait as measured (10 ms), then the last bucket alone.
  const double last = std::max(4e6 * kLocal, 4e6 * 8 / 100e6);  // the wire hides the copies
  EXPECT_NEAR(r.predictedSeconds, 0.010 + last, 1e-6);
  EXPECT_EQ(r.bound, "communication");
  EXPECT_NEAR(r.scalingEfficiency, 0.010 / r.predictedSeconds, 1e-9);
  EXPECT_FALSE(r.lowerSeconds);
  ASSERT_TRUE(r.localSecondsPerByte);
  EXPECT_NEAR(*r.localSecondsPerByte, kLocal, 1e-13);

  // The same bucket launched 4 ms earlier hides 4 ms of itself in backward.
  DdpRun early;
  early.wait = 0;
  early.buckets = "[" + bucket(1e4, 0.001, 1e4 * kLocal) + "," + bucket(4e6, 0.002, 4e6 * kLocal) +
                  "]";
  const RowPrediction e = row(predict(early.report(), at(100e6)), "2R");
  EXPECT_NEAR(r.predictedSeconds - e.predictedSeconds, 0.004, 1e-9);
  // Launched together, the big one queues behind the small one (0.8 ms).
  DdpRun together;
  together.wait = 0;
  together.buckets = "[" + bucket(1e4, 0.001, 1e4 * kLocal) + "," +
                     bucket(4e6, 0.001, 1e4 * kLocal + 4e6 * kLocal) + "]";
  const RowPrediction t = row(predict(together.report(), at(100e6)), "2R");
  EXPECT_NEAR(r.predictedSeconds - t.predictedSeconds, 0.005 - 1e4 * 8 / 100e6, 1e-9);
}

TEST(PredictDdp, ABucketQueuedBehindAnotherIsCalibratedOnItsOwnTime) {
  // The second bucket launched at 2 ms but waited until the first completed
  // at 5 ms: its 1 ms of its own, not 4 ms, is what its bytes cost.
  DdpRun run;
  run.buckets = "[" + bucket(1e6, 0.001, 0.004) + "," + bucket(2.5e5, 0.002, 0.004) + "]";
  const RowPrediction r = row(predict(run.report(), PredictOptions{}), "2R");
  ASSERT_TRUE(r.localSecondsPerByte);
  EXPECT_NEAR(*r.localSecondsPerByte, 4e-9, 1e-15);
  EXPECT_NEAR(*r.alphaSeconds, 0, 1e-12);
}

TEST(PredictDdp, FullOverlapHidesTheAllreduce) {
  // Small buckets, each done long before backward ends: nothing is exposed.
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(1e4, 0.001, 1e4 * kLocal) + "," + bucket(1e4, 0.003, 1e4 * kLocal) +
                "]";
  const RowPrediction r = row(predict(run.report(), at(1e9)), "2R");
  EXPECT_NEAR(r.predictedSeconds, 0.010, 1e-9);
  EXPECT_EQ(r.communicationSeconds, 0);
  EXPECT_EQ(r.bound, "compute");
  EXPECT_NEAR(r.scalingEfficiency, 1.0, 1e-9);
}

TEST(PredictDdp, TheRowWithoutDdpDoesNotChange) {
  DdpRun run;
  run.buckets = "[" + bucket(4e6, 0.006, 4e6 * kLocal) + "]";
  const RowPrediction r = row(predict(run.report(), at(1e6)), "no ddp");
  EXPECT_EQ(r.predictedSeconds, r.measuredSeconds);
  EXPECT_EQ(r.bound, "compute");
}

TEST(PredictDdp, WithoutBucketsItReplaysTheWorkersBucketsBetweenBothBounds) {
  DdpRun run;  // no bucket timings, 4 MB of gradients
  const RowPrediction r = row(predict(run.report(), at(100e6)), "2R");
  ASSERT_TRUE(r.lowerSeconds && r.upperSeconds);
  const double wire = 4e6 * 8 / 100e6;
  // The measured 2 ms wait stands for the allreduce's own cost; the upper
  // bound is one allreduce after backward, the lower hides 6 ms in it.
  EXPECT_NEAR(*r.upperSeconds, 0.010 + 0.002 + wire, 1e-9);
  EXPECT_NEAR(*r.lowerSeconds, *r.upperSeconds - 0.006, 1e-9);
  // The worker cuts 1 MiB, 1.9 MB and a last 1 MiB; gradients arriving
  // evenly, the first launches after 26 % of backward and the wire is busy
  // from then on.
  const double firstLaunch = 0.006 * 1048576 / 4e6;
  EXPECT_NEAR(r.predictedSeconds, 0.010 + 0.002 + firstLaunch + wire - 0.006, 1e-9);
  EXPECT_TRUE(r.basis.find("3 bucket(s)") != std::string::npos) << r.basis;
  EXPECT_FALSE(predictReport(run.report(), at(100e6)).notes.empty());

  // Links as measured: nothing changes.
  EXPECT_NEAR(row(predict(run.report(), PredictOptions{}), "2R").predictedSeconds, 0.012, 1e-12);
}

TEST(PredictDdp, CalibratesOnAShapedRunByTakingItsOwnWireTimeOut) {
  // Measured with both trainers at 100mbit: each bucket's duration holds its
  // wire time. Predicting the same rate gives back the measured wait; 10x
  // faster takes 90 % of the wire away.
  const double eta = kDefaultLinkEfficiency;
  auto duration = [&](double n) { return n * kLocal + ringWireSeconds(n, 2, 100e6, eta); };
  DdpRun run;
  run.buckets = "[" + bucket(2e6, 0.006, duration(2e6)) + "]";
  run.wait = duration(2e6);
  run.local = "{\"links\":\"bandwidth=100mbit\",\"ranks\":[{\"rank\":0,\"linkBitsPerSecond\":1e8},"
              "{\"rank\":1,\"linkBitsPerSecond\":1e8},{\"rank\":2,\"linkBitsPerSecond\":1e8}]}";
  const RowPrediction same = row(predict(run.report(), PredictOptions{}), "2R");
  EXPECT_NEAR(same.predictedSeconds, 0.010 + duration(2e6), 1e-6);
  ASSERT_TRUE(same.localSecondsPerByte);
  EXPECT_NEAR(*same.localSecondsPerByte, kLocal, 1e-12);
  const RowPrediction faster = row(predict(run.report(), at(1e9, 0)), "2R");
  EXPECT_NEAR(faster.predictedSeconds,
              0.010 + 2e6 * kLocal + ringWireSeconds(2e6, 2, 1e9, eta), 1e-6);
}

TEST(PredictDdp, MoreRanksMoveMoreOfTheGradient) {
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  PredictOptions four = at(100e6);
  four.worldSize = 4;
  const RowPrediction two = row(predict(run.report(), at(100e6)), "2R");
  const RowPrediction r = row(predict(run.report(), four), "2R");
  EXPECT_EQ(r.ranks, 4);
  // 2(p-1)/p: 1.5x the wire of two ranks.
  EXPECT_NEAR((r.predictedSeconds - 0.010) / (two.predictedSeconds - 0.010), 1.5, 1e-6);
}

TEST(PredictDdp, TheSlowestLinkPacesTheRing) {
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  PredictOptions mixed = at(1e9);
  mixed.rankBitsPerSecond[2] = 100e6;
  const RowPrediction slow = row(predict(run.report(), mixed), "2R");
  EXPECT_NEAR(slow.predictedSeconds, row(predict(run.report(), at(100e6)), "2R").predictedSeconds,
              1e-12);
  EXPECT_EQ(slow.linkBitsPerSecond, 100e6);
  // The master (rank 0) is not in the ring.
  PredictOptions master = at(1e9);
  master.rankBitsPerSecond[0] = 1e6;
  EXPECT_NEAR(row(predict(run.report(), master), "2R").predictedSeconds,
              row(predict(run.report(), at(1e9)), "2R").predictedSeconds, 1e-12);
}

TEST(PredictDdp, AGpuRunIsPredictedTheSameWay) {
  // Compute comes from the run and the link from the options: a report of
  // NCCL on CUDA with the same phases and buckets predicts the same.
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  Report gpu = run.report();
  gpu.device = "cuda";
  gpu.backend = "nccl";
  gpu.host.gpus = {"NVIDIA H100"};
  EXPECT_EQ(row(predict(gpu, at(100e9)), "2R").predictedSeconds,
            row(predict(run.report(), at(100e9)), "2R").predictedSeconds);
  EXPECT_NEAR(row(predict(gpu, at(100e9)), "2R").predictedSeconds, 0.010 + 4e6 * 8 / 100e9, 1e-12);
}

// HybridDDPRPC, 1 PS (rank 1) and 2 trainers (ranks 2, 3), 10 batches per
// epoch of 5 ms; per step a trainer sends 3000 bytes to the PS and receives
// 2000, and allreduces 1000 dense bytes.
Report hybridReport(const std::string& parameterServers = "[]") {
  Report r;
  r.kind = "HybridDDPRPC";
  r.name = "hybrid";
  r.trainers = 2;
  r.parameterServers = 1;
  r.worldSize = 4;
  for (const char* name : {"Trainer0", "Trainer1"}) {
    Series s = series("HybridDDPRPC", name, 1, 0.050, "epoch");
    s.groupKey = {{"batchesPerEpoch", "10"}};
    r.series.push_back(s);
  }
  Series all = series("HybridDDPRPC", "All", 2, 0.050, "epoch");
  all.groupKey = {{"batchesPerEpoch", "10"}};
  r.series.push_back(all);
  const std::string phases = "{\"lookup\":" + summary(0.001) + ",\"push\":" + summary(0.002) +
                             ",\"allreduceWait\":" + summary(0.0005) + "}";
  std::string trainers;
  for (int t = 0; t < 2; ++t) {
    trainers += std::string(t ? "," : "") + "{\"name\":\"Trainer" + std::to_string(t) +
                "\",\"rank\":" + std::to_string(2 + t) + ",\"series\":" + std::to_string(t) +
                ",\"phases\":" + phases +
                ",\"bytesPerStep\":{\"sent\":3000,\"received\":2000},\"denseGradientBytes\":1000}";
  }
  r.resultsJson = "{\"trainers\":[" + trainers + "],\"all\":{\"series\":2},\"parameterServers\":" +
                  parameterServers + "}";
  return r;
}

TEST(PredictHybrid, TheBusiestDirectionPacesTheRpcs) {
  // At 1 Mbit/s, eta 1, 8 us per byte. The PS's inbound link carries both
  // trainers' requests, 6000 bytes a step: 48 ms, which replaces the 3 ms
  // of lookup and push measured; the dense allreduce's 8 ms of wire the
  // 0.5 ms of wait.
  const auto rows = predict(hybridReport(), at(1e6));
  const RowPrediction& t0 = row(rows, "Trainer0");
  EXPECT_NEAR(t0.predictedSeconds, 0.050 + 10 * (0.048 - 0.003 + 0.0075), 1e-9);
  EXPECT_EQ(t0.sampleOf, "epoch");
  EXPECT_EQ(t0.bound, "communication");
  EXPECT_NEAR(row(rows, "All").predictedSeconds, t0.predictedSeconds, 1e-9);
}

TEST(PredictHybrid, AFastLinkLeavesTheMeasuredRpcTime) {
  // 6000 bytes at 1gbit: 48 us, less than the 3 ms the RPCs took anyway,
  // and the dense allreduce's 8 us less than its 0.5 ms.
  const RowPrediction t0 = row(predict(hybridReport(), at(1e9)), "Trainer0");
  EXPECT_NEAR(t0.predictedSeconds, 0.050, 1e-12);
}

TEST(PredictHybrid, AFasterPsLinkLeavesTheTrainersOwnLink) {
  PredictOptions o = at(1e6);
  o.rankBitsPerSecond[1] = 1e9;  // the PS
  const RowPrediction t0 = row(predict(hybridReport(), o), "Trainer0");
  // Now the trainer's 3000 bytes up pace it: 24 ms.
  EXPECT_NEAR(t0.predictedSeconds, 0.050 + 10 * (0.024 - 0.003 + 0.0075), 1e-9);
}

TEST(PredictHybrid, MoreTrainersLoadThePsLink) {
  PredictOptions o = at(1e6);
  o.worldSize = 4;
  const RowPrediction t0 = row(predict(hybridReport(), o), "Trainer0");
  // The PS takes in 12000 bytes a step: 96 ms; the dense ring moves 1.5x: 12 ms.
  EXPECT_NEAR(t0.predictedSeconds, 0.050 + 10 * (0.096 - 0.003 + 0.0115), 1e-9);
  EXPECT_EQ(t0.ranks, 4);
}

TEST(PredictHybrid, APsThatSaysWhatItCarriesIsTakenAtItsWord) {
  // The PS took in 9000 bytes a step (more than 2 x 3000: say, another
  // client): 72 ms at 1 Mbit/s.
  const std::string ps =
      "[{\"name\":\"PS0\",\"rank\":1,\"bytesPerStep\":{\"received\":9000,\"sent\":4000}}]";
  const RowPrediction t0 = row(predict(hybridReport(ps), at(1e6)), "Trainer0");
  EXPECT_NEAR(t0.predictedSeconds, 0.050 + 10 * (0.072 - 0.003 + 0.0075), 1e-9);
}

TEST(PredictHybrid, APsThatServesEveryTrainerBoundsTheStep) {
  // 1 ms of service per trainer and step: 8 trainers need 8 ms a step.
  const std::string ps = "[{\"name\":\"PS0\",\"rank\":1,\"service\":{\"lookup\":" + summary(4e-4) +
                         ",\"pushGrad\":" + summary(4e-4) + ",\"step\":" + summary(2e-4) + "}}]";
  PredictOptions o;
  o.worldSize = 8;
  const RowPrediction t0 = row(predict(hybridReport(ps), o), "Trainer0");
  EXPECT_NEAR(t0.predictedSeconds, 10 * 0.008, 1e-9);
  o.worldSize = 2;
  EXPECT_NEAR(row(predict(hybridReport(ps), o), "Trainer0").predictedSeconds, 0.050, 1e-12);
}

TEST(PredictCollectives, TheDesignTableThroughTheWholeModel) {
  // Unshaped p50s of allreduce on 2 ranks; predicted at 100mbit against the
  // p50s measured there (alpha_beta_test.cpp has the same table).
  Report r;
  r.kind = "Collectives";
  r.trainers = 2;
  r.worldSize = 3;
  const double bytes[] = {65536, 524288, 4194304};
  const double unshaped[] = {0.37e-3, 1.77e-3, 6.09e-3};
  const double shaped[] = {5.48e-3, 46.1e-3, 397e-3};
  const double tolerance[] = {0.20, 0.10, 0.10};
  for (int i = 0; i < 3; ++i) {
    Series s = series("allreduce float32", std::to_string(static_cast<int>(bytes[i])), 2,
                      unshaped[i], "op");
    s.groupKey = {{"op", "allreduce"}, {"dtype", "float32"}};
    s.workUnit = "bytes";
    s.workPerSample = bytes[i];
    r.series.push_back(s);
  }
  PredictOptions o;
  o.bitsPerSecond = parseBitRate("100mbit");
  const auto rows = predict(r, o);
  ASSERT_EQ(rows.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(rows[i].predictedSeconds / shaped[i], 1.0, tolerance[i]) << rows[i].row;
    EXPECT_EQ(rows[i].bound, "communication");
    EXPECT_TRUE(std::isnan(rows[i].scalingEfficiency));
  }
}

TEST(PredictOptions, BadOptionsNameTheirFlag) {
  const Report r = DdpRun{}.report();
  auto message = [&](const PredictOptions& o) -> std::string {
    try {
      predict(r, o);
    } catch (const PredictOptionError& e) {
      return e.what();
    }
    return "accepted";
  };
  PredictOptions o;
  o.bitsPerSecond = -1;
  EXPECT_EQ(message(o).rfind("--bandwidth:", 0), 0u) << message(o);
  o = {};
  o.efficiency = 1.5;
  EXPECT_EQ(message(o).rfind("--efficiency:", 0), 0u) << message(o);
  o = {};
  o.worldSize = 0;
  EXPECT_EQ(message(o).rfind("--world-size:", 0), 0u) << message(o);
  o = {};
  o.rankBitsPerSecond[3] = 1e6;  // ranks 0..2
  EXPECT_EQ(message(o), "--rank 3: no such rank; the predicted run has ranks 0..2");
  o.worldSize = 3;  // now 0..3
  EXPECT_EQ(message(o), "accepted");
  o.rankBitsPerSecond[3] = 0;
  EXPECT_EQ(message(o).rfind("--rank 3:", 0), 0u) << message(o);
}

TEST(PredictOptions, AKindWithoutAModelIsRefused) {
  Report r;
  r.kind = "Other";
  EXPECT_THROW(predict(r, {}), ReportError);
}

}  // namespace
}  // namespace distbench::report
