# The chart libraries (Vega, Vega-Lite, vega-embed) that `distbench report`
# bundles into its HTML page, built into the distbench binary. Their versions
# are pinned by cli/chart-libraries/package-lock.json;
# scripts/install-chart-libraries.sh installs them, with npm, into a cache
# directory named after that lockfile's SHA-256, and this file finds them
# there. npm is needed once per lockfile, never at build or view time.
#
#   DISTBENCH_REPORT_HTML          ON (default): embed the libraries; configure
#                                  fails, naming the install script, when they
#                                  are missing. OFF: build without them, for
#                                  builds that cannot reach npm (the worker
#                                  image's source build); `distbench report`
#                                  then exits 2 saying so.
#   DISTBENCH_CHART_LIBRARIES_DIR  the directory holding the files (default:
#                                  the install script's cache for the current
#                                  lockfile, under $DISTBENCH_CHART_LIBRARIES_CACHE
#                                  or ~/.cache/distbench/chart-libraries)
#
# distbench_chart_libraries_source(VAR) sets VAR to the source file that
# defines chartLibraries() (cli/include/distbench/cli/report_page/chart_libraries.h) for this
# build.
option(DISTBENCH_REPORT_HTML
  "distbench report writes HTML pages: embed the chart libraries (scripts/install-chart-libraries.sh)" ON)
set(DISTBENCH_CHART_LIBRARIES_DIR "" CACHE PATH
  "Directory with the chart libraries to embed (default: scripts/install-chart-libraries.sh's cache)")

set(DISTBENCH_CHART_LIBRARY_FILES
  vega.min.js vega.LICENSE vega-lite.min.js vega-lite.LICENSE vega-embed.min.js vega-embed.LICENSE)

function(distbench_chart_libraries_source var)
  set(cli ${PROJECT_SOURCE_DIR}/cli)
  if(NOT DISTBENCH_REPORT_HTML)
    message(STATUS "distbench report: no HTML pages (DISTBENCH_REPORT_HTML=OFF)")
    set(${var} ${cli}/src/report_page/chart_libraries_not_built.cpp PARENT_SCOPE)
    return()
  endif()

  set(lock ${cli}/chart-libraries/package-lock.json)
  # A new lockfile means new versions, in another cache directory: look again.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${lock})
  if(DISTBENCH_CHART_LIBRARIES_DIR)
    set(dir ${DISTBENCH_CHART_LIBRARIES_DIR})
  else()
    if(DEFINED ENV{DISTBENCH_CHART_LIBRARIES_CACHE})
      set(cache $ENV{DISTBENCH_CHART_LIBRARIES_CACHE})
    else()
      set(cache $ENV{HOME}/.cache/distbench/chart-libraries)
    endif()
    file(SHA256 ${lock} hash)
    string(SUBSTRING ${hash} 0 16 hash)
    set(dir ${cache}/${hash})
  endif()

  set(files)
  string(REPLACE ";" ", " names "${DISTBENCH_CHART_LIBRARY_FILES}")
  foreach(name IN LISTS DISTBENCH_CHART_LIBRARY_FILES)
    if(NOT EXISTS ${dir}/${name})
      message(FATAL_ERROR
        "distbench report's chart libraries are not installed: no ${dir}/${name}.\n"
        "Run scripts/install-chart-libraries.sh (npm ci of cli/chart-libraries, cached), "
        "or point -DDISTBENCH_CHART_LIBRARIES_DIR at a directory holding "
        "${names}, or configure with -DDISTBENCH_REPORT_HTML=OFF "
        "to build a distbench whose `report` command only says it was built without them.")
    endif()
    list(APPEND files ${dir}/${name})
  endforeach()
  # The path goes into an assembler string.
  if(dir MATCHES "[\"\\\n]")
    message(FATAL_ERROR "DISTBENCH_CHART_LIBRARIES_DIR must not contain quotes, backslashes or newlines: ${dir}")
  endif()

  set(DISTBENCH_CHART_LIBRARIES_DIR ${dir})
  set(source ${CMAKE_CURRENT_BINARY_DIR}/chart_libraries.cpp)
  configure_file(${cli}/src/report_page/chart_libraries.cpp.in ${source} @ONLY)
  # .incbin is invisible to the compiler's dependency scan.
  set_source_files_properties(${source} PROPERTIES OBJECT_DEPENDS "${files}")
  message(STATUS "distbench report: chart libraries from ${dir}")
  set(${var} ${source} PARENT_SCOPE)
endfunction()
