#include "distbench/worker/hybrid/request_checks.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <vector>

#include "distbench/api/resource_estimate.h"
#include "distbench/worker/hybrid/wire_buffer.h"
#include "distbench/worker/hybrid/wire_limits.h"

namespace distbench::worker {
namespace {

api::HybridDDPRPCSpec spec() {
  api::HybridDDPRPCSpec s;  // 300 x 64, at most 50 indices
  return s;
}

// Requests as their headers arrive: the literals are the wire format.
LookupRequest lookup(int64_t n, int64_t bags) {
  return LookupRequest::decode({static_cast<int64_t>(Op::Lookup), 0, 0, n, bags, 0, 0, 0});
}

void expectRefused(const std::function<void()>& f, const std::string& says) {
  try {
    f();
    ADD_FAILURE() << "accepted; expected a refusal saying " << says;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(RequestChecks, AcceptsWhatTheTrainersSend) {
  std::vector<int64_t> payload{3, 299, 0, 7, /*offsets*/ 0, 2, 2};
  EXPECT_NO_THROW(checkLookup(lookup(4, 3), payload.data(), spec()));
}

TEST(RequestChecks, RefusesSizesBeyondTheSpecBeforeUsingThem) {
  std::vector<int64_t> payload(200, 0);
  // 800 indices would fit the request buffer but overflow the reply.
  expectRefused([&] { checkLookup(lookup(800, 800), payload.data(), spec()); }, "must be 1..50");
  expectRefused([&] { checkLookup(lookup(int64_t{1} << 60, 1), payload.data(), spec()); },
                "must be 1..50");
  expectRefused([&] { checkLookup(lookup(0, 0), payload.data(), spec()); }, "must be 1..50");
  expectRefused([&] { checkLookup(lookup(4, 5), payload.data(), spec()); }, "5 bags for 4");
}

TEST(RequestChecks, RefusesBadIndicesAndOffsets) {
  std::vector<int64_t> outside{3, 300, 0, 1, 0};
  expectRefused([&] { checkLookup(lookup(4, 1), outside.data(), spec()); }, "outside the table");
  std::vector<int64_t> negative{-1, 0, 0, 1, 0};
  expectRefused([&] { checkLookup(lookup(4, 1), negative.data(), spec()); }, "outside the table");
  std::vector<int64_t> late{1, 2, 3, 4, 1, 2};
  expectRefused([&] { checkLookup(lookup(4, 2), late.data(), spec()); }, "start at 0");
  std::vector<int64_t> falling{1, 2, 3, 4, 0, 3, 2};
  expectRefused([&] { checkLookup(lookup(4, 3), falling.data(), spec()); }, "must rise");
  std::vector<int64_t> beyond{1, 2, 3, 4, 0, 5};
  expectRefused([&] { checkLookup(lookup(4, 2), beyond.data(), spec()); }, "must rise");
}

TEST(RequestChecks, GradientMustMatchTheLookup) {
  const auto push =
      PushGradRequest::decode({static_cast<int64_t>(Op::PushGrad), 0, 0, 6, 64, 0, 0, 0});
  EXPECT_NO_THROW(checkGradient(push, 6, spec()));
  expectRefused([&] { checkGradient(push, 5, spec()); }, "expected [5, 64]");
  expectRefused([&] { checkGradient(push, 0, spec()); }, "without a lookup");
  const auto wide =
      PushGradRequest::decode({static_cast<int64_t>(Op::PushGrad), 0, 0, 6, 1 << 20, 0, 0, 0});
  expectRefused([&] { checkGradient(wide, 6, spec()); }, "expected [6, 64]");
}

TEST(RequestChecks, CreateShardMustDescribeThisShard) {
  const auto good = CreateShardRequest::decode(
      {static_cast<int64_t>(Op::CreateShard), 2, 300, 64, 0, 7, doubleBits(0.05), 0});
  EXPECT_NO_THROW(checkCreateShard(good, 2, spec()));
  expectRefused([&] { checkCreateShard(good, 1, spec()); }, "does not match");
  CreateShardRequest wider = good;
  wider.embeddingDim = 128;  // would overflow replies sized for 64
  expectRefused([&] { checkCreateShard(wider, 2, spec()); }, "does not match");
}

// The config may not have been validated: a spec whose messages would be
// 2^62 bytes is refused, naming the field, before anything is allocated.
TEST(RequestChecks, MessageSizesRefuseAnOversizedSpecNamingTheField) {
  api::HybridDDPRPCSpec huge;
  huge.maxBagIndices = 1 << 30;
  huge.embeddingDim = int64_t{1} << 30;  // 2^30 x 2^30 x 4 = 2^62 bytes
  expectRefused([&] { messageSizes(huge); }, "spec.benchmark.hybridDDPRPC.maxBagIndices");
  huge.maxBagIndices = 50;
  huge.embeddingDim = int64_t{1} << 56;
  expectRefused([&] { messageSizes(huge); }, "spec.benchmark.hybridDDPRPC.embeddingDim");
}

// Both factors in their own bounds, the message past the derived limit
// (256 MiB): refused before a parameter server zero-fills three per trainer.
TEST(RequestChecks, MessageSizesRefuseAMessagePastTheDerivedLimit) {
  api::HybridDDPRPCSpec s;
  s.maxBagIndices = 1 << 16;
  s.embeddingDim = 1 << 10;  // 2^28 bytes of reply, and the header
  expectRefused([&] { messageSizes(s); }, "spec.benchmark.hybridDDPRPC.maxBagIndices");
  s.maxBagIndices = static_cast<int>(kMaxWireBagIndices);
  s.embeddingDim = kMaxWireEmbeddingDim;
  expectRefused([&] { messageSizes(s); }, "spec.benchmark.hybridDDPRPC.maxBagIndices");
  s.maxBagIndices = 1 << 16;
  s.embeddingDim = (1 << 10) - 1;
  const MessageSizes largest = messageSizes(s);
  EXPECT_EQ(largest.reply, 64 + int64_t{1 << 16} * ((1 << 10) - 1) * 4);
  EXPECT_LE(largest.request, kMaxMessageBytes);
  EXPECT_EQ(largest.request, api::psMessageBytes(s));
}

TEST(RequestChecks, NewMessageRefusesSizesPastTheBoundWithoutAllocating) {
  expectRefused([] { newMessage(int64_t{1} << 62); }, "message bytes");
  expectRefused([] { newMessage(-1); }, "message bytes");
}

TEST(RequestChecks, CreateShardRefusesATableBeyondTheBoundEvenIfTheSpecSaysSo) {
  api::HybridDDPRPCSpec unvalidated = spec();
  unvalidated.numEmbeddings = int64_t{1} << 31;
  unvalidated.embeddingDim = int64_t{1} << 16;  // 2^49 bytes
  const auto h = CreateShardRequest::decode({static_cast<int64_t>(Op::CreateShard), 0,
                                             unvalidated.numEmbeddings, unvalidated.embeddingDim, 0,
                                             7, doubleBits(0.05), 0});
  expectRefused([&] { checkCreateShard(h, 0, unvalidated); }, "numEmbeddings × embeddingDim");
  CreateShardRequest overflowing = h;
  overflowing.numEmbeddings = int64_t{1} << 62;
  unvalidated.numEmbeddings = overflowing.numEmbeddings;
  expectRefused([&] { checkCreateShard(overflowing, 0, unvalidated); },
                "create_shard header numEmbeddings");
}

TEST(RequestChecks, LookupNamesTheHeaderField) {
  std::vector<int64_t> payload(8, 0);
  expectRefused([&] { checkLookup(lookup(int64_t{1} << 62, 1), payload.data(), spec()); },
                "lookup header nIndices");
}

TEST(RequestChecks, StepsComeInOrderLookupFirst) {
  TrainerProgress p;  // a fresh trainer: step 0, nothing looked up
  EXPECT_NO_THROW(checkStepOrder(Op::Lookup, 0, p));
  expectRefused([&] { checkStepOrder(Op::Step, 0, p); }, "step for step 0 before its lookup");
  expectRefused([&] { checkStepOrder(Op::PushGrad, 0, p); }, "before its lookup");
  p.lookedUp = true;
  EXPECT_NO_THROW(checkStepOrder(Op::PushGrad, 0, p));
  EXPECT_NO_THROW(checkStepOrder(Op::Step, 0, p));
  expectRefused([&] { checkStepOrder(Op::Lookup, 0, p); }, "a second lookup for step 0");
  p = {41, false};
  EXPECT_NO_THROW(checkStepOrder(Op::Lookup, 41, p));
  expectRefused([&] { checkStepOrder(Op::Lookup, 42, p); }, "expected step 41");
}

// A step number is a map key and is decremented: INT64_MIN, or one far
// ahead that would open a new count, must be refused before either.
TEST(RequestChecks, StepsFarFromTheTrainersOwnAreRefused) {
  const TrainerProgress p{3, true};
  for (int64_t step : {std::numeric_limits<int64_t>::min(), int64_t{-1}, int64_t{2},
                       int64_t{4}, std::numeric_limits<int64_t>::max()}) {
    SCOPED_TRACE(step);
    expectRefused([&] { checkStepOrder(Op::Step, step, p); }, "expected step 3");
    expectRefused([&] { checkStepOrder(Op::Lookup, step, p); }, "expected step 3");
  }
}

}  // namespace
}  // namespace distbench::worker
