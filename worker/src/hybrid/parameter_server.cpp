#include "distbench/worker/hybrid/parameter_server.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "distbench/worker/comm/framed_socket.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/common/stopwatch.h"
#include "distbench/worker/hybrid/embedding_shard.h"
#include "distbench/worker/hybrid/request_checks.h"
#include "distbench/worker/hybrid/state_dump.h"
#include "distbench/worker/hybrid/wire.h"
#include "distbench/worker/hybrid/wire_buffer.h"

namespace distbench::worker {
namespace {

// Seconds the request this thread serves has spent in awaitCount: sync
// mode's wait for the other trainers, which is theirs, not this server's
// service (a straggling trainer would otherwise make every server look slow).
thread_local double tSyncWaitSeconds = 0;

class Server {
 public:
  Server(const WorkerIdentity& id, ProcessGroup& global, std::vector<FramedSocket> links,
         ParameterServerMetrics& metrics, const ParameterServerOptions& options)
      : id_(id),
        global_(global),
        links_(std::move(links)),
        metrics_(metrics),
        options_(options),
        sizes_(messageSizes(options.spec)),
        recorder_(int64_t{options.spec.warmupEpochs} * options.spec.batchesPerEpoch,
                  int64_t{options.spec.epochs} * options.spec.batchesPerEpoch),
        contexts_(id.numTrainers),
        progress_(id.numTrainers) {}

  // Returns when the master's Shutdown is acknowledged. On a failure, throws
  // with the first error; the other threads are left running (detached) in
  // receives that only time out later, so the Server must outlive them: the
  // caller keeps it alive until the process exits.
  void run() {
    std::vector<std::thread> threads;
    threads.emplace_back([this] { guarded([this] { serveMaster(); }); });
    for (int t = 0; t < id_.numTrainers; ++t)
      threads.emplace_back([this, t] { guarded([this, t] { servePeer(t, links_[t]); }); });
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || shutDown_; });
    if (error_) {
      for (auto& t : threads) t.detach();
      std::rethrow_exception(error_);
    }
    lock.unlock();
    for (auto& t : threads) t.join();
  }

  template <typename F>
  void guarded(F&& body) {
    try {
      body();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      changed_.notify_all();
      syncProgress_.notify_all();
    }
  }

  // The master speaks twice: CreateShard at the start and Shutdown at the
  // end. Between them the run may take any time, so no receive is posted
  // (its timeout would fire); the trainers' threads, each bounded by the
  // peer timeout, decide when the run is over.
  void serveMaster() {
    const int master = api::masterRank();
    at::Tensor request = newMessage(sizes_.request);
    at::Tensor reply = newMessage(sizes_.reply);
    global_.recv(request, master, kTagRequest).wait();
    const Header create = readHeader(request);
    if (opOf(create) != Op::CreateShard) {
      throw std::runtime_error("parameter server: expected create_shard from the master, got " +
                               std::string(toString(opOf(create))));
    }
    const auto start = Clock::now();
    serve(master, create, request, -1, reply);
    metrics_.observeService(toString(Op::CreateShard), secondsSince(start));
    global_.send(reply, master, kTagReply).wait();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return error_ || trainersDone_ == id_.numTrainers; });
      if (error_) return;
    }
    global_.recv(request, master, kTagRequest).wait();
    const Op shutdown = Signal::decode(readHeader(request)).op;
    if (shutdown != Op::Shutdown) {
      throw std::runtime_error("parameter server: expected shutdown from the master, got " +
                               std::string(toString(shutdown)));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shard_ && !options_.dumpStateDir.empty()) {
        saveTensor(shard_->table(), options_.dumpStateDir,
                   "ps" + std::to_string(id_.roleIndex) + "_table.pt");
      }
    }
    if (options_.publishStats) options_.publishStats(recorder_.stats());
    writeHeader(reply, Reply{Op::Shutdown}.encode());
    global_.send(reply, master, kTagReply).wait();
    std::lock_guard<std::mutex> lock(mutex_);
    shutDown_ = true;
    changed_.notify_all();
  }

  // One trainer's requests, in order, over its link: a frame in, served,
  // a frame out (a lookup's rows, a step's acknowledgement; nothing for a
  // push, which the step after it answers for).
  void servePeer(int trainer, FramedSocket& link) {
    at::Tensor message = newMessage(sizes_.request);
    at::Tensor reply = newMessage(sizes_.reply);
    const int rank = api::trainerRank(id_.topology(), trainer);
    for (;;) {
      const size_t bytes = link.receive(message.data_ptr(), static_cast<size_t>(message.nbytes()));
      if (bytes < static_cast<size_t>(kHeaderBytes)) {
        throw PeerError("parameter server: a frame of " + std::to_string(bytes) + " bytes from " +
                        link.peer() + " refused: shorter than a header");
      }
      const Header h = readHeader(message);
      const Op op = opOf(h);
      if (op == Op::Done) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++trainersDone_;
        changed_.notify_all();
        return;
      }
      const auto start = Clock::now();
      tSyncWaitSeconds = 0;
      const int64_t replyBytes = serve(rank, h, message, static_cast<int64_t>(bytes), reply);
      if (replyBytes > 0) link.send(reply.data_ptr(), static_cast<size_t>(replyBytes));
      const double seconds = secondsSince(start);
      metrics_.observeService(toString(op), seconds);
      // Served, so the step it names passed checkStepOrder. Bytes as on the
      // wire: the frame and its 4-byte length. The report's service time is
      // this server's own: without sync mode's wait for the other trainers.
      recorder_.record(op, stepOf(h), std::max(0.0, seconds - tSyncWaitSeconds),
                       static_cast<int64_t>(bytes) + kFrameLengthBytes,
                       replyBytes > 0 ? replyBytes + kFrameLengthBytes : 0);
    }
  }

  // The training step a trainer's request is for.
  static int64_t stepOf(const Header& h) {
    switch (opOf(h)) {
      case Op::Lookup:
        return LookupRequest::decode(h).step;
      case Op::PushGrad:
        return PushGradRequest::decode(h).step;
      case Op::Step:
        return StepRequest::decode(h).step;
      default:
        return -1;
    }
  }

  // A request's trainer field must be the trainer it came from; returns it.
  int64_t checkTrainer(int rank, int64_t trainer) {
    const api::TopologySpec topology = id_.topology();
    if (trainer < 0 || trainer >= id_.numTrainers ||
        api::trainerRank(topology, static_cast<int>(trainer)) != rank) {
      throw std::runtime_error("parameter server: request claims trainer " +
                               std::to_string(trainer) + " but came from " +
                               global_.peerName(rank));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!shard_) {
      throw std::runtime_error("parameter server: " + global_.peerName(rank) +
                               " called before the master created the shard");
    }
    return trainer;
  }

  // The shard is the master's to create, once, before any trainer starts:
  // a create from anyone else would reset the table under the trainers'
  // lookups. The sender is the rank this thread receives from, not a claim
  // in the message. Refused before the shard is touched.
  void checkCreateShardSender(int rank) {
    if (rank != api::masterRank()) {
      throw PeerError("parameter server: create_shard from " + global_.peerName(rank) +
                      " refused: only the master (rank 0) creates the shard");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (shard_) {
      throw PeerError("parameter server: create_shard from " + global_.peerName(rank) +
                      " refused: the shard exists already");
    }
  }

  // Returns how many bytes of `reply` go back: none for a gradient push;
  // the step that follows it on the same link answers for both.
  // `frameBytes`: the request's length, -1 for the master's (over Gloo,
  // whose messages have the one size of MessageSizes).
  int64_t serve(int rank, const Header& h, const at::Tensor& message, int64_t frameBytes,
                at::Tensor& reply) {
    try {
      if (frameBytes >= 0) checkFrame(h, frameBytes);
      return serveChecked(rank, h, message, reply);
    } catch (const PeerError&) {
      throw;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      throw PeerError("parameter server: " + std::string(toString(opOf(h))) + " from " +
                      global_.peerName(rank) + " refused: " + what.substr(0, what.find('\n')));
    }
  }

  int64_t serveChecked(int rank, const Header& h, const at::Tensor& message, at::Tensor& reply) {
    switch (opOf(h)) {
      case Op::CreateShard:
        createShard(rank, CreateShardRequest::decode(h));
        writeHeader(reply, Reply{Op::CreateShard}.encode());
        return kHeaderBytes;
      case Op::Lookup: {
        const Reply r = lookup(rank, LookupRequest::decode(h), message, reply);
        writeHeader(reply, r.encode());
        return kHeaderBytes + r.bags * r.dim * static_cast<int64_t>(sizeof(float));
      }
      case Op::PushGrad:
        pushGradient(rank, PushGradRequest::decode(h), message);
        return 0;
      case Op::Step:
        step(rank, StepRequest::decode(h));
        writeHeader(reply, Reply{Op::Step}.encode());
        return kHeaderBytes;
      default:
        throw std::runtime_error("parameter server: unexpected message " +
                                 std::to_string(static_cast<int64_t>(opOf(h))) + " from " +
                                 global_.peerName(rank));
    }
  }

  void createShard(int rank, const CreateShardRequest& request) {
    checkCreateShardSender(rank);
    checkCreateShard(request, id_.roleIndex, options_.spec);
    ShardConfig config;
    config.shardIndex = static_cast<int>(request.shard);
    config.numEmbeddings = request.numEmbeddings;
    config.embeddingDim = request.embeddingDim;
    config.mode = static_cast<api::EmbeddingMode>(request.mode);
    config.seed = request.seed;
    config.learningRate = request.learningRate;
    std::lock_guard<std::mutex> lock(mutex_);
    shard_ = std::make_unique<EmbeddingShard>(config);
  }

  // Writes the pooled rows into `reply`'s payload; returns its header.
  Reply lookup(int rank, const LookupRequest& request, const at::Tensor& message,
               at::Tensor& reply) {
    const int64_t trainer = checkTrainer(rank, request.trainer);
    const int64_t* words = payloadOf<int64_t>(message);
    checkLookup(request, words, options_.spec);
    checkProgress(Op::Lookup, trainer, request.step);
    const int64_t n = request.nIndices, bags = request.nBags, dim = options_.spec.embeddingDim;
    at::Tensor indices = at::from_blob(const_cast<int64_t*>(words), {n}, at::kLong).clone();
    at::Tensor offsets = at::from_blob(const_cast<int64_t*>(words + n), {bags}, at::kLong).clone();
    awaitStepsBefore(request.step);
    at::Tensor pooled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pooled = shard_->lookup(indices, offsets, contexts_[trainer]);
      progress_[trainer].lookedUp = true;
      if (isSync()) {
        ++lookupsServed_[request.step];
        syncProgress_.notify_all();
      }
    }
    std::memcpy(payloadOf<float>(reply), pooled.data_ptr<float>(), bags * dim * sizeof(float));
    return Reply{Op::Lookup, bags, dim};
  }

  void pushGradient(int rank, const PushGradRequest& request, const at::Tensor& message) {
    const int64_t trainer = checkTrainer(rank, request.trainer);
    checkProgress(Op::PushGrad, trainer, request.step);
    std::lock_guard<std::mutex> lock(mutex_);
    LookupContext& context = contexts_[trainer];
    checkGradient(request, context.active ? context.offsets.size(0) : 0, options_.spec);
    at::Tensor grad =
        at::from_blob(payloadOf<float>(message), {request.bags, request.dim}, at::kFloat);
    shard_->accumulateGradient(context, grad);
  }

  void step(int rank, const StepRequest& request) {
    const int64_t trainer = checkTrainer(rank, request.trainer);
    checkProgress(Op::Step, trainer, request.step);
    awaitLookupsOf(request.step);
    std::lock_guard<std::mutex> lock(mutex_);
    shard_->applyStep(contexts_[trainer]);
    progress_[trainer] = {request.step + 1, false};
    if (isSync()) {
      // Sync mode keeps its trainers within a step of one another, so two
      // or three steps are ever counted; nobody waits on older ones.
      ++stepsApplied_[request.step];
      stepsApplied_.erase(request.step - 2);
      lookupsServed_.erase(request.step - 2);
      syncProgress_.notify_all();
    }
  }

  bool isSync() const {
    return options_.spec.parameterServerMode == api::ParameterServerMode::Sync;
  }

  // The request's step must be the trainer's next (checkStepOrder): checked
  // before the step number is used as a key or in arithmetic.
  void checkProgress(Op op, int64_t trainer, int64_t step) {
    std::lock_guard<std::mutex> lock(mutex_);
    checkStepOrder(op, step, progress_[trainer]);
  }

  // Sync mode makes every step bulk-synchronous on the shard: a lookup for
  // step s waits until every trainer's step s-1 update is applied, and a
  // step-s update waits until every trainer's step-s lookup is served (a
  // trainer sends its update while others may still be looking up). Bounded
  // by the peer timeout like any other wait.
  void awaitStepsBefore(int64_t step) {
    if (step == 0) return;
    awaitCount(stepsApplied_, step - 1, "every trainer's update of step");
  }
  void awaitLookupsOf(int64_t step) {
    awaitCount(lookupsServed_, step, "every trainer's lookup of step");
  }

  void awaitCount(const std::map<int64_t, int>& counts, int64_t step, const char* what) {
    if (!isSync()) return;
    const auto start = Clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    const bool ready = syncProgress_.wait_for(lock, global_.timeout(), [&] {
      auto it = counts.find(step);
      return error_ || (it != counts.end() && it->second == id_.numTrainers);
    });
    tSyncWaitSeconds += secondsSince(start);
    if (!ready) {
      throw PeerError("parameter server: " + std::string(what) + " " + std::to_string(step) +
                      " did not arrive within " + std::to_string(global_.timeout().count() / 1000) +
                      " s");
    }
  }

  const WorkerIdentity& id_;
  ProcessGroup& global_;
  std::vector<FramedSocket> links_;  // one per trainer, in trainer order
  ParameterServerMetrics& metrics_;
  ParameterServerOptions options_;
  MessageSizes sizes_;
  ServiceRecorder recorder_;  // thread-safe on its own

  std::mutex mutex_;  // guards everything below
  // An error, a trainer done, the shutdown: what run() and serveMaster()
  // wait for. Apart from Sync mode's counts, so that serving a lookup or a
  // step wakes no thread that has nothing to do with it.
  std::condition_variable changed_;
  std::condition_variable syncProgress_;  // Sync mode's counts, and errors
  std::unique_ptr<EmbeddingShard> shard_;
  std::vector<LookupContext> contexts_;    // one per trainer
  std::vector<TrainerProgress> progress_;  // one per trainer
  std::map<int64_t, int> stepsApplied_;    // Sync mode bookkeeping, by step
  std::map<int64_t, int> lookupsServed_;
  int trainersDone_ = 0;
  bool shutDown_ = false;
  std::exception_ptr error_;
};

}  // namespace

void runHybridParameterServer(const WorkerIdentity& identity, ProcessGroup& global,
                              std::vector<FramedSocket> trainerLinks,
                              ParameterServerMetrics& metrics,
                              const ParameterServerOptions& options) {
  // On failure run() leaves threads behind that still use the server, and
  // the process exits right after: the server is deliberately not freed.
  auto* server = new Server(identity, global, std::move(trainerLinks), metrics, options);
  server->run();
  delete server;
}

}  // namespace distbench::worker
