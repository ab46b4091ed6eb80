// A TCP connection between two ranks that carries length-prefixed frames,
// every read and write bounded by the peer timeout: the parameter servers'
// request/reply stream (hybrid/ps_link.h). A frame goes out in one write
// and a receive wakes its thread once, where a Gloo pair hands each message
// from its loop thread to the waiting one and answers every posted receive
// with a notice of its own (about 150 us a round trip here, against 25 for
// this; docs/performance.md). Errors are PeerErrors naming the peer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace distbench::worker {

// What each frame costs beyond its bytes: its length, big-endian.
inline constexpr int64_t kFrameLengthBytes = 4;

class FramedSocket {
 public:
  FramedSocket() = default;
  // Takes `fd`, a connected TCP socket; `peer` names the other end in errors
  // ("ps3", "trainer1"); frames longer than `maxFrame` are refused.
  FramedSocket(int fd, std::string peer, size_t maxFrame, std::chrono::milliseconds timeout);
  FramedSocket(FramedSocket&& other) noexcept;
  FramedSocket& operator=(FramedSocket&& other) noexcept;
  FramedSocket(const FramedSocket&) = delete;
  FramedSocket& operator=(const FramedSocket&) = delete;
  ~FramedSocket();

  // Connects to `host`:`port` within `timeout`, which then bounds every
  // read and write.
  static FramedSocket connect(const std::string& host, int port, std::string peer, size_t maxFrame,
                              std::chrono::milliseconds timeout);

  // Sends `bytes` of `data` as one frame (a 4-byte length, then the bytes).
  void send(const void* data, size_t bytes);
  // Receives the next frame into `buffer` (room for `capacity` bytes);
  // returns its length. A frame longer than `capacity`, a closed connection
  // or the timeout throws.
  size_t receive(void* buffer, size_t capacity);

  bool open() const { return fd_ >= 0; }
  const std::string& peer() const { return peer_; }
  void setPeer(std::string peer) { peer_ = std::move(peer); }
  // A new bound for every read and write from now on.
  void setTimeout(std::chrono::milliseconds timeout);
  void close();

 private:
  [[noreturn]] void fail(const std::string& what) const;
  // Reads what the kernel has (at least `want` bytes in all) into in_.
  void fill(size_t want);

  int fd_ = -1;
  std::string peer_;
  size_t maxFrame_ = 0;
  std::chrono::milliseconds timeout_{0};
  // Bytes read past the frames handed out: a peer's back-to-back frames
  // arrive in one read.
  std::vector<uint8_t> in_;
  size_t inBegin_ = 0, inEnd_ = 0;
};

// A listening socket on `bindAddress` (an IPv4 address; port chosen by the
// kernel) for the ranks that connect to this one.
class FrameListener {
 public:
  explicit FrameListener(const std::string& bindAddress);
  ~FrameListener();
  FrameListener(const FrameListener&) = delete;
  FrameListener& operator=(const FrameListener&) = delete;

  // "address:port", as peers connect to it.
  std::string address() const;
  // The next connection, or -1 once `timeout` passes; the caller owns it.
  int accept(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
  std::string host_;
  int port_ = 0;
};

// "host:port" split; throws std::invalid_argument on anything else.
std::pair<std::string, int> splitHostPort(const std::string& address);

}  // namespace distbench::worker
