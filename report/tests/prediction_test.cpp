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

constexpr double kLocal = 1e-9;  // seconds per byte of copy and reduce in the buckets below

TEST(PredictDdp, AtTheMeasuredLinksItIsTheMeasurement) {
  DdpRun run;
  run.buckets = "[" + bucket(1e4, 0.001, 1e4 * kLocal) + "," + bucket(4e6, 0.006, 4e6 * kLocal) +
                "]";
  run.wait = 4e6 * kLocal;
  const RowPrediction r = row(predict(run.report(), PredictOptions{}), "2R");
  EXPECT_NEAR(r.predictedSeconds, r.measuredSeconds, 1e-12);
  EXPECT_LE(r.lowSeconds, r.predictedSeconds);
  EXPECT_GE(r.highSeconds, r.predictedSeconds);
}

TEST(PredictDdp, TheWaitOfAnUnshapedRunIsTheAllreducesOwnCostWhichOverlapsTheWire) {
  // A 4 MB bucket at the end of backward (6 ms), unshaped: its 4 ms after
  // backward are its own cost, 1 ns a byte. At 100mbit its 320 ms of wire
  // and that cost overlap as smoothMax says.
  DdpRun run;
  run.buckets = "[" + bucket(4e6, 0.006, 4e6 * kLocal) + "]";
  run.wait = 4e6 * kLocal;
  const RowPrediction r = row(predict(run.report(), at(100e6)), "2R");
  EXPECT_NEAR(r.predictedSeconds, 0.010 + smoothMax(0.004, 4e6 * 8 / 100e6), 1e-6);
  ASSERT_TRUE(r.localSecondsPerByte);
  EXPECT_NEAR(*r.localSecondsPerByte, kLocal, 1e-12);
  EXPECT_EQ(r.bound, "communication");
  EXPECT_NEAR(r.scalingEfficiency, 0.010 / r.predictedSeconds, 1e-9);
  // Far faster than the copies: the copies pace it, about as measured.
  const RowPrediction fast = row(predict(run.report(), at(1e12)), "2R");
  EXPECT_NEAR(fast.predictedSeconds, 0.014, 1e-4);
  EXPECT_GT(fast.predictedSeconds, 0.014);
}

TEST(PredictDdp, ABucketLaunchedEarlierInBackwardHidesThatMuchOfItsWire) {
  DdpRun late;
  late.wait = 0;
  late.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  DdpRun early = late;
  early.buckets = "[" + bucket(4e6, 0.002, 0) + "]";
  const double lateStep = row(predict(late.report(), at(100e6)), "2R").predictedSeconds;
  const double earlyStep = row(predict(early.report(), at(100e6)), "2R").predictedSeconds;
  EXPECT_NEAR(lateStep - earlyStep, 0.004, 1e-9);
  // Launched together, the second queues behind the first.
  DdpRun together;
  together.wait = 0;
  together.buckets = "[" + bucket(2e6, 0.006, 0) + "," + bucket(2e6, 0.006, 0) + "]";
  EXPECT_NEAR(row(predict(together.report(), at(100e6)), "2R").predictedSeconds, lateStep, 1e-9);
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

TEST(PredictDdp, ATbfBucketPassesItsBurstAtOnce) {
  // tbf at 100mbit passes 32 KiB at once after a pause: that much less wire.
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  PredictOptions tbf = at(100e6);
  tbf.burst = LinkBurst::Tbf;
  const double plain = row(predict(run.report(), at(100e6)), "2R").predictedSeconds;
  const double bursty = row(predict(run.report(), tbf), "2R").predictedSeconds;
  EXPECT_NEAR(plain - bursty, tbfBurstBytes(100e6) * 8 / 100e6, 1e-9);
  PredictOptions bytes = at(100e6);
  bytes.burst = LinkBurst::Bytes;
  bytes.burstBytes = 1e6;
  EXPECT_NEAR(plain - row(predict(run.report(), bytes), "2R").predictedSeconds, 0.08, 1e-9);
}

TEST(PredictDdp, AWorldOfOneIsTheSweepsOwnOneRankRow) {
  DdpRun run;
  Report r = run.report();
  r.series.push_back(series("m", "1R", 1, 0.0105));
  r.resultsJson.replace(r.resultsJson.find("{\"row\":\"2R\""), 0,
                        "{\"row\":\"1R\",\"ddp\":true,\"ranks\":1,\"series\":2},");
  PredictOptions one;
  one.worldSize = 1;
  const RowPrediction p = row(predict(r, one), "2R");
  EXPECT_NEAR(p.predictedSeconds, 0.0105, 1e-12);
  EXPECT_EQ(p.basis, "the run's own one-rank row");
}

TEST(PredictDdp, RanksThatShareTheHostsCpusComputeSlowerWhenThereAreMoreOfThem) {
  // Two trainers and the master on 2 CPUs: four trainers compute at half the
  // speed. On a GPU, or on a host with CPUs to spare, nothing changes.
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  Report shared = run.report();
  shared.host.logicalCpus = 2;
  PredictOptions four;
  four.worldSize = 4;
  const RowPrediction p = row(predict(shared, four), "2R");
  EXPECT_NEAR(p.predictedSeconds, 2 * 0.010, 1e-9);
  EXPECT_NE(p.basis.find("compute x2.00"), std::string::npos) << p.basis;
  Report roomy = shared;
  roomy.host.logicalCpus = 64;
  EXPECT_NEAR(row(predict(roomy, four), "2R").predictedSeconds, 0.010, 1e-9);
  Report gpu = shared;
  gpu.device = "cuda";
  EXPECT_NEAR(row(predict(gpu, four), "2R").predictedSeconds, 0.010, 1e-9);
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
  // Measured with both trainers at 100mbit (no burst): the wait is the
  // bucket's own 2 ms and its wire, overlapped. Predicting the same rate
  // gives back the measured step; at 1gbit the same own cost meets a tenth
  // of the wire.
  const double eta = kDefaultLinkEfficiency;
  const double own = 2e6 * kLocal;
  DdpRun run;
  run.wait = smoothMax(own, ringWireSeconds(2e6, 2, 100e6, eta));
  run.buckets = "[" + bucket(2e6, 0.006, run.wait) + "]";
  run.local = "{\"links\":\"bandwidth=100mbit\",\"ranks\":["
              "{\"rank\":0,\"linkBitsPerSecond\":1e8,\"burstBytes\":0},"
              "{\"rank\":1,\"linkBitsPerSecond\":1e8,\"burstBytes\":0},"
              "{\"rank\":2,\"linkBitsPerSecond\":1e8,\"burstBytes\":0}]}";
  const RowPrediction same = row(predict(run.report(), PredictOptions{}), "2R");
  // (summary() writes the phases to 1 us.)
  EXPECT_NEAR(same.predictedSeconds, 0.010 + run.wait, 1e-6);
  ASSERT_TRUE(same.localSecondsPerByte);
  EXPECT_NEAR(*same.localSecondsPerByte, kLocal, 1e-11);
  const RowPrediction faster = row(predict(run.report(), at(1e9, 0)), "2R");
  EXPECT_NEAR(faster.predictedSeconds, 0.010 + smoothMax(own, ringWireSeconds(2e6, 2, 1e9, eta)),
              1e-6);
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

// At 1 Mbit/s, eta 1 and no burst a byte takes 8 us. A step computes
// 1.5 ms (5 ms less lookup, push and wait), and its stages' own costs are
// 1 ms (lookup) and 2.5 ms (push and wait), as measured on loopback.
double hybridStep(double lookupWire, double updateWire, double updateOwn = 0.0025) {
  return 0.0015 + smoothMax(0.001, lookupWire) + smoothMax(updateOwn, updateWire);
}

TEST(PredictHybrid, AtTheMeasuredLinksItIsTheMeasurement) {
  const auto rows = predict(hybridReport(), PredictOptions{});
  EXPECT_NEAR(row(rows, "Trainer0").predictedSeconds, 0.050, 1e-12);
  EXPECT_NEAR(row(rows, "All").predictedSeconds, 0.050, 1e-12);
}

TEST(PredictHybrid, TheBusiestLinkPacesEachStage) {
  // The lookup: the PS answers in turn, a trainer waits for 1.5 replies of
  // 2000 bytes on the PS's link on average (24 ms), more than its own 16 ms.
  // The update: the PS takes in both trainers' 3000 bytes (48 ms), more than
  // a trainer sends (3000 + its 1000-byte ring share: 32 ms).
  const auto rows = predict(hybridReport(), at(1e6));
  const RowPrediction& t0 = row(rows, "Trainer0");
  EXPECT_NEAR(t0.predictedSeconds, 10 * hybridStep(0.024, 0.048), 1e-9);
  EXPECT_EQ(t0.sampleOf, "epoch");
  EXPECT_EQ(t0.bound, "communication");
  EXPECT_NEAR(row(rows, "All").predictedSeconds, t0.predictedSeconds, 1e-9);
}

TEST(PredictHybrid, AFastLinkLeavesAboutTheMeasuredStep) {
  const RowPrediction t0 = row(predict(hybridReport(), at(1e12)), "Trainer0");
  EXPECT_NEAR(t0.predictedSeconds, 0.050, 1e-5);
}

TEST(PredictHybrid, AFasterPsLinkLeavesTheTrainersOwnLink) {
  PredictOptions o = at(1e6);
  o.rankBitsPerSecond[1] = 1e12;  // the PS
  const RowPrediction t0 = row(predict(hybridReport(), o), "Trainer0");
  // Its 2000 bytes in (16 ms), its 4000 out (32 ms).
  EXPECT_NEAR(t0.predictedSeconds, 10 * hybridStep(0.016, 0.032), 1e-6);
}

TEST(PredictHybrid, MoreTrainersLoadThePsLink) {
  PredictOptions o = at(1e6);
  o.worldSize = 4;
  const RowPrediction t0 = row(predict(hybridReport(), o), "Trainer0");
  // 2.5 replies on the PS's link (40 ms); it takes in 12000 bytes (96 ms).
  // The allreduce's fifth of the update's own cost grows with the ring share
  // (x1.5): 2.75 ms.
  EXPECT_NEAR(t0.predictedSeconds, 10 * hybridStep(0.040, 0.096, 0.00275), 1e-9);
  EXPECT_EQ(t0.ranks, 4);
}

TEST(PredictHybrid, MoreParameterServersWidenEveryTrainersTraffic) {
  PredictOptions o = at(1e6);
  o.parameterServers = 2;
  const RowPrediction t0 = row(predict(hybridReport(), o), "Trainer0");
  // A reply from each PS (4000 bytes in: 32 ms); gradients to each and the
  // ring share (7000 out: 56 ms).
  EXPECT_NEAR(t0.predictedSeconds, 10 * hybridStep(0.032, 0.056), 1e-9);
  PredictOptions ddp;
  ddp.parameterServers = 2;
  EXPECT_THROW(predict(DdpRun{}.report(), ddp), PredictOptionError);
}

TEST(PredictHybrid, FewerTrainersSharingTheCpusComputeAsTheLeastSlowedOneDid) {
  // Trainer1 stepped in 4 ms, Trainer0 in 5 ms, with the same lookup, push
  // and wait: Trainer1 computed 0.5 ms, Trainer0 1.5 ms. On two CPUs shared
  // with the PS and the master, one trainer alone computes as Trainer1 did,
  // and its update loses the allreduce's fifth of its own cost (0.5 ms).
  Report r = hybridReport();
  r.host.logicalCpus = 2;
  r.series[1].samples = {0.040};
  PredictOptions one;
  one.worldSize = 1;
  EXPECT_NEAR(row(predict(r, one), "Trainer0").predictedSeconds, 10 * 0.0035, 1e-9);
  // With CPUs to spare, each keeps its own compute.
  r.host.logicalCpus = 64;
  EXPECT_NEAR(row(predict(r, one), "Trainer0").predictedSeconds, 10 * 0.0045, 1e-9);
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
    EXPECT_LT(rows[i].lowSeconds, rows[i].predictedSeconds);
    EXPECT_GT(rows[i].highSeconds, rows[i].predictedSeconds);
  }
}

// The interval's half-width without a spread of the calibration's own:
// the model's error on the whole prediction and the run-to-run drift on its
// computing part (prediction_interval.cpp).
double halfWidth(const RowPrediction& r, double model) {
  return std::hypot(model * r.predictedSeconds, 0.15 * (r.predictedSeconds - r.communicationSeconds));
}

TEST(PredictInterval, TheModelsMeasuredErrorAroundThePredictionWiderForANoisyCalibration) {
  DdpRun run;
  run.wait = 0;
  run.buckets = "[" + bucket(4e6, 0.006, 0) + "]";
  // One sample: no spread of its own; the model's 8 % (links changed).
  const RowPrediction quiet = row(predict(run.report(), at(100e6)), "2R");
  EXPECT_NEAR(quiet.predictedSeconds, 0.010 + 0.32, 1e-9);
  EXPECT_NEAR(quiet.highSeconds - quiet.predictedSeconds, halfWidth(quiet, 0.08), 1e-9);
  EXPECT_NEAR(quiet.predictedSeconds - quiet.lowSeconds, halfWidth(quiet, 0.08), 1e-9);
  EXPECT_NE(quiet.uncertainty.find("links changed"), std::string::npos) << quiet.uncertainty;
  // The same p50 from samples spread over +-20 %: the interval widens.
  Report noisy = run.report();
  noisy.series[1].samples = {0.008, 0.009, 0.0095, 0.010, 0.0105, 0.011, 0.012};
  const RowPrediction wide = row(predict(noisy, at(100e6)), "2R");
  EXPECT_NEAR(wide.predictedSeconds, quiet.predictedSeconds, 1e-12);
  EXPECT_LT(wide.lowSeconds, quiet.lowSeconds);
  EXPECT_GT(wide.highSeconds, quiet.highSeconds);
  // Another world size: the model's 11 %.
  PredictOptions four = at(100e6);
  four.worldSize = 4;
  const RowPrediction other = row(predict(run.report(), four), "2R");
  EXPECT_NEAR(other.highSeconds - other.predictedSeconds, halfWidth(other, 0.11), 1e-9);
  EXPECT_NE(other.uncertainty.find("another world size"), std::string::npos);
  // Ranks sharing two CPUs: compute doubles, and so does its drift.
  Report shared = run.report();
  shared.host.logicalCpus = 2;
  const RowPrediction contended = row(predict(shared, four), "2R");
  EXPECT_NEAR(contended.predictedSeconds - contended.communicationSeconds, 0.020, 1e-9);
  EXPECT_NEAR(contended.highSeconds - contended.predictedSeconds, halfWidth(contended, 0.11),
              1e-9);
  EXPECT_NE(contended.uncertainty.find("share CPUs"), std::string::npos);
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
  o = {};
  o.parameterServers = 2;  // a DDP run
  EXPECT_EQ(message(o).rfind("--parameter-servers:", 0), 0u) << message(o);
  o = {};
  o.burst = LinkBurst::Bytes;
  o.burstBytes = -1;
  EXPECT_EQ(message(o).rfind("--link-burst:", 0), 0u) << message(o);
}

TEST(PredictOptions, AKindWithoutAModelIsRefused) {
  Report r;
  r.kind = "Other";
  EXPECT_THROW(predict(r, {}), ReportError);
}

}  // namespace
}  // namespace distbench::report
