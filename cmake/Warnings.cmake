# Compiler warnings for the code distbench compiles: -Wall -Wextra on every
# target defined under this source tree, and -Werror when DISTBENCH_WERROR is
# ON (scripts/test.sh turns it on under CI=true). Applied in one place, after
# every target exists (distbench_apply_warnings), so a new target cannot
# miss them. Third-party code is never compiled here (every dependency is a
# Debian package, cmake/Dependencies.cmake); its headers come through
# imported targets, which CMake includes as SYSTEM, so their warnings stay
# theirs.
option(DISTBENCH_WERROR "Treat compiler warnings in distbench's code as errors" OFF)

set(DISTBENCH_WARNING_FLAGS -Wall -Wextra)
if(DISTBENCH_WERROR)
  list(APPEND DISTBENCH_WARNING_FLAGS -Werror)
endif()

# Adds the flags to every compiled target defined in `dir` and below.
function(distbench_apply_warnings dir)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      target_compile_options(${target} PRIVATE ${DISTBENCH_WARNING_FLAGS})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    distbench_apply_warnings("${subdir}")
  endforeach()
endfunction()
