#include "distbench/http/http_request_head.h"

#include <algorithm>
#include <cctype>

namespace distbench::http {
namespace {

constexpr std::string_view kLineEnd = "\r\n";

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool sameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

HttpRequestHead refused(HttpRequestHead head, int status, std::string why) {
  head.refusal = status;
  head.why = std::move(why);
  return head;
}

}  // namespace

std::size_t requestHeadEnd(std::string_view bytes) {
  const std::size_t at = bytes.find("\r\n\r\n");
  return at == std::string_view::npos ? at : at + 4;
}

HttpRequestHead parseRequestHead(std::string_view head) {
  HttpRequestHead out;
  std::size_t lineEnd = head.find(kLineEnd);
  const std::string_view requestLine = head.substr(0, lineEnd);
  const std::size_t space1 = requestLine.find(' ');
  const std::size_t space2 =
      space1 == std::string_view::npos ? space1 : requestLine.find(' ', space1 + 1);
  if (space2 == std::string_view::npos || space1 == 0 ||
      requestLine.find(' ', space2 + 1) != std::string_view::npos) {
    return refused(out, 400, "a request line is METHOD TARGET HTTP/1.1");
  }
  out.method = std::string(requestLine.substr(0, space1));
  const std::string_view target = requestLine.substr(space1 + 1, space2 - space1 - 1);
  const std::string_view version = requestLine.substr(space2 + 1);
  if (target.empty()) return refused(out, 400, "no request target");
  out.path = std::string(target.substr(0, target.find_first_of("?#")));
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return refused(out, 505, "only HTTP/1.0 and HTTP/1.1");
  }

  while (lineEnd != std::string_view::npos) {
    const std::size_t start = lineEnd + kLineEnd.size();
    lineEnd = head.find(kLineEnd, start);
    const std::string_view line = head.substr(start, lineEnd - start);
    if (line.empty()) continue;  // the blank line that ends the head
    if (line.front() == ' ' || line.front() == '\t') {
      return refused(out, 400, "folded header lines are not accepted");
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return refused(out, 400, "a header line is NAME: VALUE");
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trimmed(line.substr(colon + 1));
    if (sameName(name, "Transfer-Encoding")) {
      return refused(out, 413, "these endpoints take no request body");
    }
    if (sameName(name, "Content-Length")) {
      const bool digits = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      });
      if (!digits) return refused(out, 400, "Content-Length is not a number");
      if (value.find_first_not_of('0') != std::string_view::npos) {
        return refused(out, 413, "these endpoints take no request body");
      }
    }
  }
  return out;
}

}  // namespace distbench::http
