# The C++ runtime first among every binary's shared libraries.
#
# PyTorch's wheels link parts of libstdc++ statically and export them
# (pytorch/pytorch#133437): libtorch.so of torch 2.11.0+cu130 defines
# std::filesystem::remove_all, and its copy jumps to address 0 when called
# from outside (seen on the lent H200: every test that removed a temporary
# directory crashed). The dynamic linker binds each symbol to the first
# library in the executable's DT_NEEDED order that defines it, and the
# compiler driver adds -lstdc++ last, after LibTorch. Naming libstdc++ before
# anything else (and keeping it: --no-as-needed, since nothing refers to it
# yet at that point of the link) makes the real runtime win for our code and
# for the other C++ libraries we load (cpprest, prometheus-cpp, yaml-cpp).
# worker/tests/link/ checks both the mechanism and the built binaries.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_LINK_OPTIONS "-Wl,--push-state,--no-as-needed" "-lstdc++" "-Wl,--pop-state")
  check_cxx_source_compiles("int main() { return 0; }" DISTBENCH_LINKER_PUSH_STATE)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(DISTBENCH_LINKER_PUSH_STATE)
    add_link_options("SHELL:-Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state")
  else()
    message(WARNING "the linker does not take --push-state: libstdc++ stays last among the "
                    "shared libraries, and a LibTorch that exports libstdc++ functions "
                    "(PyTorch's wheels) may replace them")
  endif()
endif()
