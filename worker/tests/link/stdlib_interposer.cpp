// A shared library that does what PyTorch's wheels do (pytorch/pytorch#133437):
// it exports its own std::filesystem::remove_all. This one removes nothing
// and returns a number no real removal gives, so a test can tell whose copy
// the dynamic linker bound the call to.
#include <cstdint>

// The Itanium-ABI name of std::filesystem::remove_all(const path&,
// std::error_code&) (libstdc++'s std::filesystem::__cxx11::path).
extern "C" std::uintmax_t distbench_fake_remove_all(const void*, void*) __asm__(
    "_ZNSt10filesystem10remove_allERKNS_7__cxx114pathERSt10error_code");

extern "C" std::uintmax_t distbench_fake_remove_all(const void*, void*) { return 424242; }

// Something the test refers to, so that the library stays among its
// DT_NEEDED entries under --as-needed.
extern "C" int distbench_interposer_linked() { return 1; }
