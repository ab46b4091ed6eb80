// Frames over a real loopback TCP connection: whole, in order, bounded in
// size and time, and every failure names the peer.
#include "distbench/worker/comm/framed_socket.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "distbench/worker/comm/peer_error.h"

namespace distbench::worker {
namespace {

using namespace std::chrono_literals;

struct Pair {
  FramedSocket a, b;
};

// a: the connecting side (its peer is "ps0"); b: the accepted one ("trainer0").
Pair connectedPair(size_t maxFrame = 1024, std::chrono::milliseconds timeout = 2000ms) {
  FrameListener listener("127.0.0.1");
  const std::pair<std::string, int> at = splitHostPort(listener.address());
  Pair p;
  p.a = FramedSocket::connect(at.first, at.second, "ps0", maxFrame, timeout);
  const int fd = listener.accept(2000ms);
  EXPECT_GE(fd, 0);
  p.b = FramedSocket(fd, "trainer0", maxFrame, timeout);
  return p;
}

std::string receiveText(FramedSocket& s, size_t capacity = 1024) {
  std::string text(capacity, '\0');
  text.resize(s.receive(text.data(), text.size()));
  return text;
}

TEST(FramedSocket, FramesArriveWholeAndInOrderEvenWhenSentBackToBack) {
  Pair p = connectedPair();
  p.a.send("push", 4);
  p.a.send("", 0);
  p.a.send("step", 4);
  EXPECT_EQ(receiveText(p.b), "push");
  EXPECT_EQ(receiveText(p.b), "");
  EXPECT_EQ(receiveText(p.b), "step");
  p.b.send("reply", 5);
  EXPECT_EQ(receiveText(p.a), "reply");
}

TEST(FramedSocket, ManyLargeFramesKeepTheirBoundaries) {
  Pair p = connectedPair(64 * 1024);
  std::vector<char> big(60000);
  for (int i = 0; i < 20; ++i) {
    big.assign(big.size(), static_cast<char>('a' + i));
    p.a.send(big.data(), big.size() - static_cast<size_t>(i));
    std::vector<char> got(big.size());
    ASSERT_EQ(p.b.receive(got.data(), got.size()), big.size() - static_cast<size_t>(i));
    EXPECT_EQ(got[0], 'a' + i);
    EXPECT_EQ(got[big.size() - static_cast<size_t>(i) - 1], 'a' + i);
  }
}

TEST(FramedSocket, AFrameLargerThanTheBufferIsRefusedNamingThePeer) {
  Pair p = connectedPair();
  p.a.send("0123456789", 10);
  char small[4];
  try {
    p.b.receive(small, sizeof small);
    FAIL() << "a 10-byte frame fit a 4-byte buffer";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("link with trainer0: refused a frame of 10 bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST(FramedSocket, SendingMoreThanTheLinkTakesIsRefused) {
  Pair p = connectedPair(8);
  EXPECT_THROW(p.a.send("0123456789", 10), PeerError);
}

TEST(FramedSocket, SilenceEndsAtTheTimeoutNamingThePeerAndTheTime) {
  Pair p = connectedPair(1024, 300ms);
  const auto start = std::chrono::steady_clock::now();
  try {
    receiveText(p.b);
    FAIL() << "a receive with nothing sent returned";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("link with trainer0: nothing received within 0.3 s"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST(FramedSocket, AClosedPeerIsNamed) {
  Pair p = connectedPair();
  p.a.close();
  try {
    receiveText(p.b);
    FAIL() << "a receive from a closed peer returned";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("closed by trainer0"), std::string::npos) << e.what();
  }
}

TEST(FramedSocket, NoListenerIsACleanError) {
  int port = 0;
  {
    FrameListener gone("127.0.0.1");
    port = splitHostPort(gone.address()).second;
  }
  EXPECT_THROW(FramedSocket::connect("127.0.0.1", port, "ps3", 64, 1000ms), PeerError);
}

TEST(FramedSocket, AcceptGivesUpAtItsTimeout) {
  FrameListener listener("127.0.0.1");
  EXPECT_EQ(listener.accept(100ms), -1);
}

TEST(FramedSocket, AddressesAreHostAndPort) {
  EXPECT_EQ(splitHostPort("198.18.0.17:4242"), (std::pair<std::string, int>{"198.18.0.17", 4242}));
  EXPECT_THROW(splitHostPort("198.18.0.17"), std::invalid_argument);
  EXPECT_THROW(splitHostPort("198.18.0.17:"), std::invalid_argument);
  EXPECT_THROW(splitHostPort("198.18.0.17:99999"), std::invalid_argument);
  EXPECT_THROW(splitHostPort("198.18.0.17:12a"), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::worker
