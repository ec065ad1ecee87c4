# cb_method(name [DEPS target...] [NO_GPU_BUNDLE]): builds suites/<name>/ from
# files found by their names, so a method folder needs a one-line
# CMakeLists.txt and adding a paper edits no shared file.
#
#   *.cpp (not *_test.cpp)  -> OBJECT library cb_method_<name>, linked into
#                              `claimbench` (claims, benchmarks and commands
#                              register statically; OBJECT keeps every
#                              registration). It links cb_harness, the command
#                              registry (cb_cli), Google Benchmark and DEPS:
#                              what the method uses (cb_reference,
#                              cb_generators, cb_ledger, cb_ledger_cli for a
#                              command that writes a ledger, a package's
#                              imported target), nothing else.
#   *.cu                    -> added to that library when CUDA is on
#   *_cli_test.cpp          -> <name>_cli_test: end-to-end tests of the
#                              `claimbench` binary (ctest label "cli")
#   other *_test.cpp        -> <name>_test, GoogleTest, ctest label <name>
#                              (and <name>.gpu, label "gpu": the same binary
#                              with CB_REQUIRE_GPU=1, only on CUDA builds)
#   NO_GPU_BUNDLE           -> left out when CB_GPU_BUNDLE is ON (preset gpu):
#                              a CPU-only method whose libraries would not fit
#                              the GPU bundle (ci/README.md)
function(cb_method name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_GPU_BUNDLE" "" "DEPS")
  if(arg_NO_GPU_BUNDLE AND CB_GPU_BUNDLE)
    message(STATUS "claimbench: suite ${name} not built (NO_GPU_BUNDLE, CB_GPU_BUNDLE=ON)")
    return()
  endif()
  file(GLOB host_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp")
  list(FILTER host_srcs EXCLUDE REGEX "_(test|fuzz)\\.cpp$")
  file(GLOB cuda_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cu")
  file(GLOB test_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp")
  list(FILTER test_srcs EXCLUDE REGEX "_cli_test\\.cpp$")

  set(lib cb_method_${name})
  if(NOT host_srcs AND NOT (CB_HAVE_CUDA AND cuda_srcs))
    # Only tests so far (a method landing in steps): nothing to link into the CLI.
    add_library(${lib} INTERFACE)
    target_link_libraries(${lib} INTERFACE cb_harness ${arg_DEPS})
  else()
    add_library(${lib} OBJECT ${host_srcs})
    target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${lib} PUBLIC cb_harness cb_cli benchmark::benchmark ${arg_DEPS})
    target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${CB_WARNINGS}>)
    if(CB_HAVE_CUDA AND cuda_srcs)
      target_sources(${lib} PRIVATE ${cuda_srcs})
      target_link_libraries(${lib} PUBLIC cb_harness_cuda)
    endif()
    set_property(GLOBAL APPEND PROPERTY CB_COMMAND_LIBS ${lib})
  endif()

  if(test_srcs)
    add_executable(${name}_test ${test_srcs})
    # DEPS again, directly: a suite built on another method's OBJECT library
    # (cb_method_lm, the transformer substrate) gets its objects only from a
    # direct link; `claimbench` already links every method library directly.
    target_link_libraries(${name}_test PRIVATE ${lib} ${arg_DEPS} cb_fixtures)
    target_compile_options(${name}_test PRIVATE ${CB_WARNINGS})
    gtest_discover_tests(${name}_test TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS "${name}")
    if(CB_HAVE_CUDA)
      add_test(NAME ${name}.gpu COMMAND ${name}_test)
      set_tests_properties(${name}.gpu PROPERTIES LABELS "gpu" ENVIRONMENT "CB_REQUIRE_GPU=1")
    endif()
  endif()
  cb_cli_tests(${name} "${CMAKE_CURRENT_SOURCE_DIR}" ${arg_DEPS})
endfunction()

# cb_cli_tests(prefix dir [libs...]): the *_cli_test.cpp files of `dir` as one
# binary <prefix>_cli_test that runs the built `claimbench` (CB_CLAIMBENCH),
# ctest prefix "cli." and label "cli".
function(cb_cli_tests prefix dir)
  file(GLOB srcs CONFIGURE_DEPENDS "${dir}/*_cli_test.cpp")
  if(NOT srcs)
    return()
  endif()
  set(target ${prefix}_cli_test)
  add_executable(${target} ${srcs})
  target_link_libraries(${target} PRIVATE cb_fixtures ${ARGN})
  target_compile_options(${target} PRIVATE ${CB_WARNINGS})
  target_compile_definitions(${target} PRIVATE CB_CLAIMBENCH="$<TARGET_FILE:claimbench>")
  add_dependencies(${target} claimbench)
  gtest_discover_tests(${target} TEST_PREFIX "cli." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "cli")
endfunction()

# cb_add_cli(): the `claimbench` executable: harness/cli/main.cpp with every
# library that registered commands, claims or benchmarks (CB_COMMAND_LIBS:
# ledger/cli's commands and each cb_method). Called once, after suites/.
function(cb_add_cli)
  get_property(libs GLOBAL PROPERTY CB_COMMAND_LIBS)
  add_executable(claimbench ${PROJECT_SOURCE_DIR}/harness/cli/main.cpp)
  target_link_libraries(claimbench PRIVATE cb_cli ${libs})
  set_target_properties(claimbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
endfunction()

# cb_unit_tests(prefix lib): one GoogleTest binary <prefix>_<x>_test per
# <x>_test.cpp in the current folder, linked with `lib` and the fixtures,
# labelled <prefix>. (gtest_discover_tests splits a list of labels into
# separate properties in CMake 3.25, so each test gets one label.)
function(cb_unit_tests prefix lib)
  file(GLOB test_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp")
  list(FILTER test_srcs EXCLUDE REGEX "_cli_test\\.cpp$")
  foreach(src ${test_srcs})
    get_filename_component(stem ${src} NAME_WE)
    set(target ${prefix}_${stem})
    add_executable(${target} ${src})
    target_link_libraries(${target} PRIVATE ${lib} cb_fixtures)
    target_compile_options(${target} PRIVATE ${CB_WARNINGS})
    gtest_discover_tests(${target} TEST_PREFIX "${prefix}." DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS "${prefix}")
  endforeach()
endfunction()
