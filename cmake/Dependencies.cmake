# Every dependency comes from Debian's packages (see .ci/run).
find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(cpprestsdk REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(prometheus-cpp REQUIRED COMPONENTS core)
find_package(Torch REQUIRED)
if(DISTBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# yaml-cpp 0.7's config names its target yaml-cpp without a namespace.
if(TARGET yaml-cpp AND NOT TARGET yaml-cpp::yaml-cpp)
  add_library(yaml-cpp::yaml-cpp ALIAS yaml-cpp)
endif()
