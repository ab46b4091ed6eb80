// The parameter-server protocol's message layouts, word by word: these are
// the wire format, so a change here breaks every rank of a mixed build.
#include "distbench/worker/hybrid/wire.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "distbench/worker/hybrid/wire_buffer.h"

namespace distbench::worker {
namespace {

constexpr int64_t op(Op o) { return static_cast<int64_t>(o); }

// A new Op without a name would print as "unknown" in every error about it.
TEST(Wire, EveryOpHasItsOwnName) {
  std::set<std::string> names;
  for (int64_t value = 1; value <= op(kLastOp); ++value) {
    const std::string name = toString(static_cast<Op>(value));
    EXPECT_NE(name, "unknown") << "Op " << value << " has no name in toString";
    EXPECT_TRUE(names.insert(name).second) << "two ops are called " << name;
  }
  EXPECT_STREQ(toString(Op::Heartbeat), "heartbeat");
  // kLastOp is the last: a value past it is no op (move kLastOp with a new op).
  EXPECT_STREQ(toString(static_cast<Op>(op(kLastOp) + 1)), "unknown");
  EXPECT_STREQ(toString(static_cast<Op>(0)), "unknown");
}

TEST(Wire, OpValuesAreTheWireFormat) {
  EXPECT_EQ(op(Op::CreateShard), 1);
  EXPECT_EQ(op(Op::Lookup), 2);
  EXPECT_EQ(op(Op::PushGrad), 3);
  EXPECT_EQ(op(Op::Step), 4);
  EXPECT_EQ(op(Op::Shutdown), 5);
  EXPECT_EQ(op(Op::Start), 6);
  EXPECT_EQ(op(Op::EpochDone), 7);
  EXPECT_EQ(op(Op::Finish), 8);
  EXPECT_EQ(op(Op::Done), 9);
  EXPECT_EQ(op(Op::Heartbeat), 10);
  EXPECT_EQ(kHeaderBytes, 64);
}

TEST(Wire, CreateShardLayout) {
  CreateShardRequest m;
  m.shard = 2;
  m.numEmbeddings = 300;
  m.embeddingDim = 64;
  m.mode = 1;
  m.seed = 7;
  m.learningRate = 0.05;
  const Header h{op(Op::CreateShard), 2, 300, 64, 1, 7, doubleBits(0.05), 0};
  EXPECT_EQ(m.encode(), h);
  const CreateShardRequest back = CreateShardRequest::decode(h);
  EXPECT_EQ(back.shard, 2);
  EXPECT_EQ(back.numEmbeddings, 300);
  EXPECT_EQ(back.embeddingDim, 64);
  EXPECT_EQ(back.mode, 1);
  EXPECT_EQ(back.seed, 7);
  EXPECT_EQ(back.learningRate, 0.05);
}

TEST(Wire, TrainerRequestLayouts) {
  const Header lookup{op(Op::Lookup), 3, 11, 40, 5, 0, 0, 0};
  EXPECT_EQ((LookupRequest{3, 11, 40, 5}.encode()), lookup);
  const LookupRequest l = LookupRequest::decode(lookup);
  EXPECT_EQ(l.trainer, 3);
  EXPECT_EQ(l.step, 11);
  EXPECT_EQ(l.nIndices, 40);
  EXPECT_EQ(l.nBags, 5);

  const Header push{op(Op::PushGrad), 3, 11, 5, 64, 0, 0, 0};
  EXPECT_EQ((PushGradRequest{3, 11, 5, 64}.encode()), push);
  const PushGradRequest p = PushGradRequest::decode(push);
  EXPECT_EQ(p.trainer, 3);
  EXPECT_EQ(p.step, 11);
  EXPECT_EQ(p.bags, 5);
  EXPECT_EQ(p.dim, 64);

  const Header step{op(Op::Step), 3, 11, 0, 0, 0, 0, 0};
  EXPECT_EQ((StepRequest{3, 11}.encode()), step);
  EXPECT_EQ(StepRequest::decode(step).trainer, 3);
  EXPECT_EQ(StepRequest::decode(step).step, 11);

  const Header done{op(Op::Done), 3, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(DoneNotice{3}.encode(), done);
  EXPECT_EQ(DoneNotice::decode(done).trainer, 3);
}

TEST(Wire, ReplyAndSignalLayouts) {
  const Header lookup{op(Op::Lookup), 5, 64, 0, 0, 0, 0, 0};
  EXPECT_EQ((Reply{Op::Lookup, 5, 64}.encode()), lookup);
  const Reply r = Reply::decode(lookup);
  EXPECT_EQ(r.op, Op::Lookup);
  EXPECT_EQ(r.bags, 5);
  EXPECT_EQ(r.dim, 64);
  EXPECT_EQ(Reply{Op::Step}.encode(), (Header{op(Op::Step), 0, 0, 0, 0, 0, 0, 0}));

  for (Op o : {Op::Start, Op::Finish, Op::Shutdown}) {
    const Header h{op(o), 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(Signal{o}.encode(), h);
    EXPECT_EQ(Signal::decode(h).op, o);
    EXPECT_EQ(opOf(h), o);
  }
}

TEST(Wire, TrainerToMasterLayouts) {
  // A header, one word per phase and three of traffic, for heartbeats too:
  // the master's one receive must fit either.
  EXPECT_EQ(kReportBytes, 64 + 6 * 8 + 3 * 8);
  const ReportMessage epoch{
      op(Op::EpochDone), 1, 4, 800, doubleBits(0.25), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ((EpochDoneReport{1, 4, 800, 0.25, true}.encode()), epoch);
  const EpochDoneReport e = EpochDoneReport::decode(epoch);
  EXPECT_EQ(e.trainer, 1);
  EXPECT_EQ(e.epoch, 4);
  EXPECT_EQ(e.examples, 800);
  EXPECT_EQ(e.seconds, 0.25);
  EXPECT_TRUE(e.warmup);
  EXPECT_EQ(opOf(epoch), Op::EpochDone);
  ReportMessage measured = epoch;
  measured[5] = 0;
  EXPECT_FALSE(EpochDoneReport::decode(measured).warmup);

  const ReportMessage beat{op(Op::Heartbeat), 1, 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ((HeartbeatReport{1, 99}.encode()), beat);
  EXPECT_EQ(HeartbeatReport::decode(beat).trainer, 1);
  EXPECT_EQ(HeartbeatReport::decode(beat).step, 99);
  EXPECT_EQ(opOf(beat), Op::Heartbeat);
}

// The phases follow the header as double bits, in Phase order; the report's
// keys are in the same order.
TEST(Wire, EpochDoneCarriesThePhases) {
  EpochDoneReport r{2, 7, 640, 1.5, false};
  for (int p = 0; p < kPhaseCount; ++p) r.phases[p] = 0.001 * (p + 1) + 1e-9;
  const ReportMessage m = r.encode();
  for (int p = 0; p < kPhaseCount; ++p) {
    EXPECT_EQ(m[kHeaderWords + p], doubleBits(r.phases[p])) << kPhaseNames[p];
  }
  const EpochDoneReport back = EpochDoneReport::decode(m);
  EXPECT_EQ(back.trainer, 2);
  EXPECT_EQ(back.epoch, 7);
  EXPECT_EQ(back.examples, 640);
  EXPECT_EQ(back.seconds, 1.5);
  EXPECT_FALSE(back.warmup);
  EXPECT_EQ(back.phases, r.phases);  // bit for bit

  EXPECT_EQ(static_cast<int>(Phase::Lookup), 0);
  EXPECT_EQ(static_cast<int>(Phase::OptimizerStep), kPhaseCount - 1);
  const std::vector<std::string> names(kPhaseNames.begin(), kPhaseNames.end());
  EXPECT_EQ(names, (std::vector<std::string>{"lookup", "forward", "backward", "push",
                                             "allreduceWait", "optimizerStep"}));
}

// The epoch's bytes follow the phases, as whole int64 words.
TEST(Wire, EpochDoneCarriesTheTraffic) {
  EpochDoneReport r{1, 2, 64, 0.5, false};
  r.traffic = {192960, 128640, int64_t{1} << 40};
  const ReportMessage m = r.encode();
  EXPECT_EQ(m[kHeaderWords + kPhaseCount], 192960);
  EXPECT_EQ(m[kHeaderWords + kPhaseCount + 1], 128640);
  EXPECT_EQ(m[kHeaderWords + kPhaseCount + 2], int64_t{1} << 40);
  EXPECT_EQ(EpochDoneReport::decode(m).traffic, r.traffic);
  EXPECT_EQ(EpochDoneReport::decode(readReport(packReport(m))).traffic, r.traffic);
}

// What the trainer sends is what the master reads, in a buffer of the one
// size the master receives.
TEST(Wire, ReportsTravelInOneBufferSize) {
  EpochDoneReport r{0, 3, 96, 0.5, false};
  for (int p = 0; p < kPhaseCount; ++p) r.phases[p] = 1.0 / (p + 3);
  for (const ReportMessage& words : {r.encode(), HeartbeatReport{0, 12}.encode()}) {
    const at::Tensor message = packReport(words);
    EXPECT_EQ(message.numel(), kReportBytes);
    EXPECT_EQ(readReport(message), words);
  }
  EXPECT_EQ(EpochDoneReport::decode(readReport(packReport(r.encode()))).phases, r.phases);
}

}  // namespace
}  // namespace distbench::worker
