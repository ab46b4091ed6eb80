# One include style for every part: a header is included as
# "distbench/<part>/<path in the part>", whatever part it lives in, so an
# include line says whose header it is. Every part but the operator has that
# path on disk: <part>/include/distbench/<part>/ (api, report, process,
# worker, cli, testing, benchmarks, and operator/kube's include/distbench/kube).
# For operator/src, whose headers still sit beside its sources, the path is
# made here: ${CMAKE_BINARY_DIR}/include/distbench/operator is a symbolic link
# to that folder, and that include root is the only one the target adds.
# Headers private to one library (api/src, report/src) and a test folder's own
# helpers are the exceptions: they are included by their path beside the
# includer.
set(DISTBENCH_INCLUDE_ROOT ${CMAKE_BINARY_DIR}/include)

function(distbench_include_root target scope part dir)
  set(link ${DISTBENCH_INCLUDE_ROOT}/distbench/${part})
  if(IS_SYMLINK ${link})
    file(READ_SYMLINK ${link} existing)
    if(NOT existing STREQUAL dir)
      file(REMOVE ${link})
    endif()
  endif()
  if(NOT IS_SYMLINK ${link})
    file(MAKE_DIRECTORY ${DISTBENCH_INCLUDE_ROOT}/distbench)
    file(CREATE_LINK ${dir} ${link} SYMBOLIC)
  endif()
  target_include_directories(${target} ${scope} ${DISTBENCH_INCLUDE_ROOT})
endfunction()
