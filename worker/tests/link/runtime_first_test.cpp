// cmake/RuntimeFirst.cmake: libstdc++ comes before every other shared
// library, so a library that exports its own copies of libstdc++ functions
// (PyTorch's wheels do; on the H200 their std::filesystem::remove_all
// crashed our tests) cannot replace them.
#include <gtest/gtest.h>
#include <link.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"

extern "C" int distbench_interposer_linked();

namespace {

// This test binary links stdlib_interposer.cpp's library, which defines
// std::filesystem::remove_all before libstdc++ would on a plain link line.
TEST(RuntimeFirst, LibstdcxxWinsOverALibraryThatExportsItsFunctions) {
  ASSERT_EQ(distbench_interposer_linked(), 1);
  char pattern[] = "/tmp/distbench-runtime-first-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  std::ofstream(dir + "/file") << "x";
  std::error_code ec;
  const std::uintmax_t removed = std::filesystem::remove_all(dir, ec);
  EXPECT_NE(removed, 424242u) << "the interposer's remove_all ran, not libstdc++'s";
  EXPECT_EQ(removed, 2u) << ec.message();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

std::vector<std::string> loadedLibraries() {
  std::vector<std::string> names;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
          static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  return names;
}

// The loader's search order is the DT_NEEDED order of the executable
// (breadth first): the first library it loaded is the one named first.
TEST(RuntimeFirst, LibstdcxxIsTheFirstLibraryLoaded) {
  const std::vector<std::string> names = loadedLibraries();
  ASSERT_FALSE(names.empty());
  std::string first;
  for (const std::string& name : names) {
    if (name.find("linux-vdso") != std::string::npos) continue;
    first = name;
    break;
  }
  EXPECT_NE(first.find("libstdc++"), std::string::npos)
      << "first library loaded: " << first;
}

// The shipped binaries (the worker is the one that loads LibTorch): their first
// DT_NEEDED entry is libstdc++ (readelf, from binutils, as the compiler).
TEST(RuntimeFirst, TheWorkerAndTheCliNameLibstdcxxFirst) {
  const distbench::process::TempDir dir("distbench-runtime-first-");
  for (const std::string& binary : {std::string(DISTBENCH_WORKER_BINARY),
                                    std::string(DISTBENCH_BINARY)}) {
    const distbench::process::BinaryResult r = distbench::process::runCaptured(
        "readelf -d '" + binary + "'", dir.path() + "/out", dir.path() + "/err");
    ASSERT_EQ(r.exitCode, 0) << binary << "\n" << r.err;
    const auto needed = r.out.find("(NEEDED)");
    ASSERT_NE(needed, std::string::npos) << r.out;
    const std::string line = r.out.substr(needed, r.out.find('\n', needed) - needed);
    EXPECT_NE(line.find("libstdc++"), std::string::npos) << binary << ": " << line;
  }
}

}  // namespace
