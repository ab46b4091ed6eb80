// The head of an HTTP/1.x request as the operator's endpoints read it
// (http_endpoints.h): the request line and the headers, nothing more. The
// endpoints take no body, so what a head says about one (Content-Length,
// Transfer-Encoding) only decides the refusal; the body itself is never read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distbench::http {

struct HttpRequestHead {
  std::string method;  // "GET"
  std::string path;    // the target without its ?query or #fragment
  // 0: answer the request. Otherwise the status to answer instead, and why:
  // 400 a malformed head, 413 a request that carries a body, 505 a version
  // other than HTTP/1.0 or 1.1.
  int refusal = 0;
  std::string why;
};

// Where the head in `bytes` ends: the offset just past its blank line
// ("\r\n\r\n"), or npos while it has not ended.
std::size_t requestHeadEnd(std::string_view bytes);

// Reads the head (the bytes up to requestHeadEnd).
HttpRequestHead parseRequestHead(std::string_view head);

}  // namespace distbench::http
