// What the endpoints read of a request (http_request_head.h): the method and
// path, and the refusals that keep a connection's cost bounded.
#include "distbench/http/http_request_head.h"

#include <gtest/gtest.h>

namespace distbench::http {
namespace {

TEST(HttpRequestHead, TheHeadEndsAtItsBlankLine) {
  EXPECT_EQ(requestHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n"), std::string_view::npos);
  EXPECT_EQ(requestHeadEnd("GET / HTTP/1.1\r\n\r\nbody"), 18u);
}

TEST(HttpRequestHead, AProbeIsReadWithoutItsQuery) {
  const HttpRequestHead head = parseRequestHead(
      "GET /healthz?verbose=1 HTTP/1.1\r\nHost: 10.0.0.1:8080\r\nUser-Agent: kube-probe/1.20\r\n"
      "Accept: */*\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(head.refusal, 0) << head.why;
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.path, "/healthz");
}

TEST(HttpRequestHead, ABodyIsRefusedByWhatTheHeadSaysOfIt) {
  for (const char* framing : {"Content-Length: 1073741824", "content-length:  5 ",
                              "Transfer-Encoding: chunked", "TRANSFER-ENCODING: gzip"}) {
    const HttpRequestHead head =
        parseRequestHead(std::string("POST /metrics HTTP/1.1\r\n") + framing + "\r\n\r\n");
    EXPECT_EQ(head.refusal, 413) << framing;
    EXPECT_EQ(head.why, "these endpoints take no request body") << framing;
  }
}

TEST(HttpRequestHead, AMalformedHeadIsRefused) {
  struct Case {
    const char* head;
    int status;
  };
  for (const Case& c :
       {Case{"GET\r\n\r\n", 400}, Case{"GET /metrics\r\n\r\n", 400},
        Case{" /metrics HTTP/1.1\r\n\r\n", 400}, Case{"GET /metrics HTTP/1.1 extra\r\n\r\n", 400},
        Case{"GET /metrics HTTP/2.0\r\n\r\n", 505},
        Case{"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", 400},
        Case{"GET /metrics HTTP/1.1\r\nA: b\r\n  folded\r\n\r\n", 400},
        Case{"GET /metrics HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400}}) {
    EXPECT_EQ(parseRequestHead(c.head).refusal, c.status) << c.head;
  }
}

}  // namespace
}  // namespace distbench::http
