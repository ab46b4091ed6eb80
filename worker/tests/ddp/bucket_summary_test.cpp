// A DDP row's buckets for the report (ddp/bucket_summary.h): medians over a
// rank's iterations, then over the ranks, and the trip through the store.
#include "distbench/worker/ddp/bucket_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "distbench/worker/comm/ddp_bucketer.h"

namespace distbench::worker {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

BucketTiming timing(size_t parameters, int64_t bytes, double first, double launched,
                    double completed) {
  return {parameters, bytes, first, launched, completed};
}

TEST(BucketSummary, MediansPerBucketOverTheIterations) {
  const std::vector<std::vector<BucketTiming>> timelines = {
      {timing(3, 400, 0.010, 0.020, 0.050), timing(1, 40, 0.030, 0.040, 0.060)},
      {timing(3, 400, 0.012, 0.024, 0.070), timing(1, 40, 0.031, 0.045, 0.061)},
      {timing(3, 400, 0.011, 0.022, 0.090), timing(1, 40, 0.029, 0.041, 0.065)},
  };
  const std::vector<BucketSummary> s = summarizeBucketTimelines(timelines);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].parameters, 3);
  EXPECT_EQ(s[0].bytes, 400);
  EXPECT_DOUBLE_EQ(s[0].firstGradient, 0.011);
  EXPECT_DOUBLE_EQ(s[0].launched, 0.022);
  EXPECT_DOUBLE_EQ(s[0].completed, 0.070);
  EXPECT_EQ(s[1].parameters, 1);
  EXPECT_DOUBLE_EQ(s[1].firstGradient, 0.030);
  EXPECT_DOUBLE_EQ(s[1].launched, 0.041);
  EXPECT_DOUBLE_EQ(s[1].completed, 0.061);
}

// An even count interpolates, as numpy's median does.
TEST(BucketSummary, EvenCountsTakeTheMiddleTwo) {
  const std::vector<BucketSummary> s = summarizeBucketTimelines(
      {{timing(1, 4, 0.0, 1.0, 2.0)}, {timing(1, 4, 0.0, 3.0, 4.0)}});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].launched, 2.0);
  EXPECT_DOUBLE_EQ(s[0].completed, 3.0);
}

// With no warm-up the first measured iteration runs on the buckets from
// before the rebuild: only iterations laid out as the last one count.
TEST(BucketSummary, IterationsOnOtherBucketsAreLeftOut) {
  const std::vector<std::vector<BucketTiming>> timelines = {
      {timing(4, 440, 0.5, 0.6, 0.9)},
      {timing(1, 40, 0.001, 0.002, 0.004), timing(3, 400, 0.002, 0.003, 0.005)},
      {timing(1, 40, 0.003, 0.004, 0.006), timing(3, 400, 0.004, 0.005, 0.007)},
  };
  const std::vector<BucketSummary> s = summarizeBucketTimelines(timelines);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].bytes, 40);
  EXPECT_DOUBLE_EQ(s[0].firstGradient, 0.002);
  EXPECT_DOUBLE_EQ(s[1].completed, 0.006);
}

// A completion never recorded is no number: left out of the median, and
// NaN where no iteration has one.
TEST(BucketSummary, UnrecordedMomentsAreSkipped) {
  const std::vector<BucketSummary> s = summarizeBucketTimelines(
      {{timing(1, 4, 0.1, 0.2, kNaN), timing(1, 4, 0.1, 0.2, kNaN)},
       {timing(1, 4, 0.1, 0.2, 0.7), timing(1, 4, 0.1, 0.2, kNaN)}});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_DOUBLE_EQ(s[0].completed, 0.7);
  EXPECT_TRUE(std::isnan(s[1].completed));
  EXPECT_TRUE(summarizeBucketTimelines({}).empty());
}

TEST(BucketSummary, RanksCombineByMedian) {
  const std::vector<std::vector<BucketSummary>> perRank = {
      {{2, 80, 0.01, 0.02, 0.10}}, {{2, 80, 0.03, 0.05, 0.30}}, {{2, 80, 0.02, 0.04, 0.20}}};
  const std::vector<BucketSummary> s = combineRankBuckets(perRank, {1, 2, 3});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].parameters, 2);
  EXPECT_EQ(s[0].bytes, 80);
  EXPECT_DOUBLE_EQ(s[0].firstGradient, 0.02);
  EXPECT_DOUBLE_EQ(s[0].launched, 0.04);
  EXPECT_DOUBLE_EQ(s[0].completed, 0.20);
}

TEST(BucketSummary, ARankWithOtherBucketsIsNamed) {
  const std::vector<std::vector<BucketSummary>> perRank = {{{2, 80, 0, 0, 0}},
                                                           {{2, 80, 0, 0, 0}, {1, 4, 0, 0, 0}}};
  try {
    combineRankBuckets(perRank, {1, 2});
    FAIL() << "layouts differ";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2 reports 2 bucket(s)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(combineRankBuckets({{{2, 80, 0, 0, 0}}, {{2, 84, 0, 0, 0}}}, {1, 2}),
               std::runtime_error);
}

TEST(BucketSummary, SurvivesTheStore) {
  const std::vector<BucketSummary> buckets = {{161, 26214400, 0.012, 0.051, 0.093},
                                              {1, 4, 0.1, 0.2, kNaN}};
  const std::vector<double> flat = flattenBuckets(buckets);
  EXPECT_EQ(flat.size(), 10u);
  const std::vector<BucketSummary> back = unflattenBuckets(flat);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].parameters, 161);
  EXPECT_EQ(back[0].bytes, 26214400);
  EXPECT_EQ(back[0].completed, 0.093);
  EXPECT_TRUE(std::isnan(back[1].completed));
  try {
    unflattenBuckets({1, 2, 3});
    FAIL() << "three values are no bucket";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("got 3 values"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distbench::worker
