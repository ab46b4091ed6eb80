#include "distbench/process/line_splitter.h"

namespace distbench::process {

LineSplitter::LineSplitter(std::size_t maxLineBytes)
    : maxLineBytes_(maxLineBytes == 0 ? 1 : maxLineBytes) {}

void LineSplitter::emit(std::string_view line, const LineHandler& onLine) {
  // Windows-style output (or a tool that writes "\r\n" to a pipe) would
  // otherwise leave a carriage return that garbles a terminal.
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  onLine(line);
}

void LineSplitter::feed(std::string_view data, const LineHandler& onLine) {
  while (!data.empty()) {
    std::size_t newline = data.find('\n');
    if (newline == std::string_view::npos) {
      pending_.append(data);
      data = {};
    } else {
      if (pending_.empty()) {
        emit(data.substr(0, newline), onLine);
      } else {
        pending_.append(data.substr(0, newline));
        std::string line;
        line.swap(pending_);
        emit(line, onLine);
      }
      data.remove_prefix(newline + 1);
    }
    while (pending_.size() >= maxLineBytes_) {
      // Keep a trailing '\r' back: it may be the first half of "\r\n".
      std::size_t cut = maxLineBytes_;
      if (pending_.size() == cut && pending_.back() == '\r') break;
      std::string piece = pending_.substr(0, cut);
      pending_.erase(0, cut);
      onLine(piece);
    }
  }
}

void LineSplitter::finish(const LineHandler& onLine) {
  if (pending_.empty()) return;
  std::string line;
  line.swap(pending_);
  emit(line, onLine);
}

}  // namespace distbench::process
