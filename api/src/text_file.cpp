#include "text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace distbench::api::detail {

std::string readTextFile(const std::string& path) {
  auto fail = [&path]() {
    return std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw fail();
  std::string text;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) throw fail();
  return text;
}

}  // namespace distbench::api::detail
