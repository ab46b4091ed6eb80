// The parameter-server protocol: the messages HybridDDPRPC's ranks exchange
// in place of torch.distributed.rpc's pickled calls (a trainer's over its
// links, ps_link.h; the master's over the global Gloo group). Every message
// starts with an 8-word int64 header whose word 0 is the Op; each message
// kind below is one struct with encode() into that header (a trainer's
// reports to the master: the header and their fixed payload) and decode()
// out of it, so no code outside this file knows which word holds what. The
// other payloads and the buffers are in wire_buffer.h.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/hybrid/step_phases.h"

namespace distbench::worker {

inline constexpr int kHeaderWords = 8;
inline constexpr int64_t kHeaderBytes = kHeaderWords * sizeof(int64_t);
using Header = std::array<int64_t, kHeaderWords>;

// Tags keep the Gloo streams between a pair of ranks apart; within one tag
// Gloo delivers in order. (A trainer's link to a parameter server carries
// its requests and their replies in order on its own.)
inline constexpr int kTagRequest = 101;  // trainer/master -> ps
inline constexpr int kTagReply = 103;    // ps -> trainer/master
inline constexpr int kTagControl = 104;  // master <-> trainer: the control messages below

// Header word 0. The values are the wire format: never renumber.
enum class Op : int64_t {
  CreateShard = 1,  // master -> ps
  Lookup = 2,       // trainer -> ps
  PushGrad = 3,     // trainer -> ps; no reply: the Step after it answers for both
  Step = 4,         // trainer -> ps
  Shutdown = 5,     // master -> ps, once every trainer said Done
  Start = 6,        // master -> trainer
  EpochDone = 7,    // trainer -> master
  Finish = 8,       // master -> trainer: everyone may exit
  Done = 9,         // trainer -> ps: no more requests from this trainer; no reply
  Heartbeat = 10,   // trainer -> master within a long epoch
};
// The ops are 1..kLastOp; a new one goes at the end and moves this.
inline constexpr Op kLastOp = Op::Heartbeat;

// "create_shard", "lookup", ...: as messages and the op metric label say it.
// "unknown" for a value outside the enum (a peer's header is not trusted).
const char* toString(Op op);

inline Op opOf(const Header& h) { return static_cast<Op>(h[0]); }

inline int64_t doubleBits(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
inline double bitsDouble(int64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Fields decoded from a peer are as sent, not yet checked: request_checks.h
// and the client's reply checks bound them before they size anything.

// [op, shard, numEmbeddings, dim, mode, seed, lrBits, 0]
struct CreateShardRequest {
  static constexpr Op kOp = Op::CreateShard;
  int64_t shard = 0;
  int64_t numEmbeddings = 0;
  int64_t embeddingDim = 0;
  int64_t mode = 0;  // api::EmbeddingMode's value; a peer's may be out of range
  int64_t seed = 0;
  double learningRate = 0;
  Header encode() const {
    return {static_cast<int64_t>(kOp), shard, numEmbeddings, embeddingDim, mode, seed,
            doubleBits(learningRate),  0};
  }
  static CreateShardRequest decode(const Header& h) {
    return {h[1], h[2], h[3], h[4], h[5], bitsDouble(h[6])};
  }
};

// [op, trainer, step, nIndices, nBags, 0, 0, 0]; payload: nIndices int64
// indices, then nBags int64 offsets.
struct LookupRequest {
  static constexpr Op kOp = Op::Lookup;
  int64_t trainer = 0;
  int64_t step = 0;
  int64_t nIndices = 0;
  int64_t nBags = 0;
  Header encode() const {
    return {static_cast<int64_t>(kOp), trainer, step, nIndices, nBags, 0, 0, 0};
  }
  static LookupRequest decode(const Header& h) { return {h[1], h[2], h[3], h[4]}; }
};

// [op, trainer, step, bags, dim, 0, 0, 0]; payload: float [bags, dim].
struct PushGradRequest {
  static constexpr Op kOp = Op::PushGrad;
  int64_t trainer = 0;
  int64_t step = 0;
  int64_t bags = 0;
  int64_t dim = 0;
  Header encode() const { return {static_cast<int64_t>(kOp), trainer, step, bags, dim, 0, 0, 0}; }
  static PushGradRequest decode(const Header& h) { return {h[1], h[2], h[3], h[4]}; }
};

// [op, trainer, step, 0, 0, 0, 0, 0]
struct StepRequest {
  static constexpr Op kOp = Op::Step;
  int64_t trainer = 0;
  int64_t step = 0;
  Header encode() const { return {static_cast<int64_t>(kOp), trainer, step, 0, 0, 0, 0, 0}; }
  static StepRequest decode(const Header& h) { return {h[1], h[2]}; }
};

// [op, trainer, 0, 0, 0, 0, 0, 0]
struct DoneNotice {
  static constexpr Op kOp = Op::Done;
  int64_t trainer = 0;
  Header encode() const { return {static_cast<int64_t>(kOp), trainer, 0, 0, 0, 0, 0, 0}; }
  static DoneNotice decode(const Header& h) { return {h[1]}; }
};

// The parameter server's answer to CreateShard, Lookup, Step and Shutdown:
// [op of the request, bags, dim, 0, 0, 0, 0, 0]; bags and dim are those of
// the float [bags, dim] payload, which only a lookup's reply has (0 and 0
// otherwise).
struct Reply {
  Op op = Op::Lookup;
  int64_t bags = 0;
  int64_t dim = 0;
  Header encode() const { return {static_cast<int64_t>(op), bags, dim, 0, 0, 0, 0, 0}; }
  static Reply decode(const Header& h) { return {opOf(h), h[1], h[2]}; }
};

// Master <-> trainer control messages on kTagControl. Master -> trainer:
// bare headers. Trainer -> master: ReportMessages, one size for every kind,
// so that the master's one receive from any trainer fits whichever comes.

// Start, Finish (master -> trainer) and Shutdown (master -> ps): the op alone.
struct Signal {
  Op op = Op::Start;
  Header encode() const { return {static_cast<int64_t>(op), 0, 0, 0, 0, 0, 0, 0}; }
  static Signal decode(const Header& h) { return {opOf(h)}; }
};

// What one trainer's epoch moved, in bytes on the wire: to and from all
// parameter servers (each frame's length, header and payload), and through
// the dense allreduce (the bucket bytes each step reduces).
struct EpochTraffic {
  int64_t psBytesSent = 0;
  int64_t psBytesReceived = 0;
  int64_t allreduceBytes = 0;
  bool operator==(const EpochTraffic& o) const {
    return psBytesSent == o.psBytesSent && psBytesReceived == o.psBytesReceived &&
           allreduceBytes == o.allreduceBytes;
  }
};
inline constexpr int kTrafficWords = 3;

// A header, then kPhaseCount words of phases and kTrafficWords of traffic.
inline constexpr int kReportWords = kHeaderWords + kPhaseCount + kTrafficWords;
inline constexpr int64_t kReportBytes = kReportWords * sizeof(int64_t);
using ReportMessage = std::array<int64_t, kReportWords>;

inline Op opOf(const ReportMessage& m) { return static_cast<Op>(m[0]); }

// [op, trainer, epoch, examples, secondsBits, isWarmup, 0, 0], then the
// epoch's mean seconds per batch in each phase as double bits, in Phase
// order (step_phases.h), then the epoch's EpochTraffic, field by field.
struct EpochDoneReport {
  static constexpr Op kOp = Op::EpochDone;
  int64_t trainer = 0;
  int64_t epoch = 0;
  int64_t examples = 0;
  double seconds = 0;
  bool warmup = false;
  PhaseSeconds phases{};
  EpochTraffic traffic{};
  ReportMessage encode() const {
    ReportMessage m{static_cast<int64_t>(kOp), trainer,        epoch, examples,
                    doubleBits(seconds),       warmup ? 1 : 0, 0,     0};
    for (int p = 0; p < kPhaseCount; ++p) m[kHeaderWords + p] = doubleBits(phases[p]);
    constexpr int t = kHeaderWords + kPhaseCount;
    m[t] = traffic.psBytesSent;
    m[t + 1] = traffic.psBytesReceived;
    m[t + 2] = traffic.allreduceBytes;
    return m;
  }
  static EpochDoneReport decode(const ReportMessage& m) {
    EpochDoneReport r;
    r.trainer = m[1];
    r.epoch = m[2];
    r.examples = m[3];
    r.seconds = bitsDouble(m[4]);
    r.warmup = m[5] != 0;
    for (int p = 0; p < kPhaseCount; ++p) r.phases[p] = bitsDouble(m[kHeaderWords + p]);
    constexpr int t = kHeaderWords + kPhaseCount;
    r.traffic = {m[t], m[t + 1], m[t + 2]};
    return r;
  }
};

// [op, trainer, step, 0, 0, 0, 0, 0], no payload (zeros), at least every
// quarter peer timeout within an epoch: keeps a long epoch from looking like
// a death.
struct HeartbeatReport {
  static constexpr Op kOp = Op::Heartbeat;
  int64_t trainer = 0;
  int64_t step = 0;
  ReportMessage encode() const {
    ReportMessage m{};
    m[0] = static_cast<int64_t>(kOp);
    m[1] = trainer;
    m[2] = step;
    return m;
  }
  static HeartbeatReport decode(const ReportMessage& m) { return {m[1], m[2]}; }
};

// Buffer sizes for a benchmark: big enough for its largest request and reply
// (a batch has at most maxBagIndices indices, so at most as many bags).
// Throws std::invalid_argument naming the spec field when a size would pass
// the bounds of wire_limits.h, before anything is allocated.
struct MessageSizes {
  int64_t request = 0;
  int64_t reply = 0;
};
MessageSizes messageSizes(const api::HybridDDPRPCSpec& spec);

}  // namespace distbench::worker
