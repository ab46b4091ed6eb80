// Cuts a byte stream from a child's pipe into lines. Reads from a pipe end
// anywhere, so a line may arrive in pieces, several may arrive at once, and
// the last one may never get its newline before the child exits.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace distbench::process {

class LineSplitter {
 public:
  using LineHandler = std::function<void(std::string_view)>;

  // A child that never writes a newline must not make us buffer without
  // bound: past maxLineBytes the line is handed on in pieces of that size.
  explicit LineSplitter(std::size_t maxLineBytes = 64 * 1024);

  // Calls onLine for every line `data` completes, without its "\n" or "\r\n".
  void feed(std::string_view data, const LineHandler& onLine);
  // End of stream: hands on an unterminated last line, if any.
  void finish(const LineHandler& onLine);

  bool hasPartialLine() const { return !pending_.empty(); }

 private:
  void emit(std::string_view line, const LineHandler& onLine);

  std::size_t maxLineBytes_;
  std::string pending_;
};

}  // namespace distbench::process
