# cb_method(name): builds suites/<name>/ from files found by their names, so a
# method folder needs a one-line CMakeLists.txt and adding a paper edits no
# shared file.
#
#   *.cpp (not *_test.cpp)        -> OBJECT library cb_method_<name>, linked into
#                                   `claimbench` (claims and benchmarks register
#                                   statically; OBJECT keeps every registration)
#                                   (and method commands: CB_REGISTER_COMMAND)
#   *.cu                          -> added to that library when CUDA is on
#   *_test.cpp                    -> <name>_test, GoogleTest, ctest label <name>
#                                   (and <name>.gpu, label "gpu": the same binary
#                                   with CB_REQUIRE_GPU=1, only on CUDA builds)
function(cb_method name)
  file(GLOB host_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp")
  list(FILTER host_srcs EXCLUDE REGEX "_test\\.cpp$")
  file(GLOB cuda_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cu")
  file(GLOB test_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp")

  set(lib cb_method_${name})
  if(NOT host_srcs AND NOT (CB_HAVE_CUDA AND cuda_srcs))
    # Only tests so far (a method landing in steps): nothing to link into the CLI.
    add_library(${lib} INTERFACE)
    target_link_libraries(${lib} INTERFACE cb_harness cb_ledger cb_reference cb_generators)
  else()
    add_library(${lib} OBJECT ${host_srcs})
    target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${lib} PUBLIC cb_harness cb_ledger cb_reference cb_generators cb_cli
                          benchmark::benchmark)
    target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${CB_WARNINGS}>)
    if(CB_HAVE_CUDA AND cuda_srcs)
      target_sources(${lib} PRIVATE ${cuda_srcs})
      target_link_libraries(${lib} PUBLIC cb_harness_cuda)
    endif()
    set_property(GLOBAL APPEND PROPERTY CB_METHOD_LIBS ${lib})
  endif()

  if(test_srcs)
    add_executable(${name}_test ${test_srcs})
    target_link_libraries(${name}_test PRIVATE ${lib} cb_fixtures)
    target_compile_options(${name}_test PRIVATE ${CB_WARNINGS})
    gtest_discover_tests(${name}_test TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS "${name}")
    if(CB_HAVE_CUDA)
      add_test(NAME ${name}.gpu COMMAND ${name}_test)
      set_tests_properties(${name}.gpu PROPERTIES LABELS "gpu" ENVIRONMENT "CB_REQUIRE_GPU=1")
    endif()
  endif()
endfunction()

# cb_add_cli(): the `claimbench` executable, linked with every method library
# that cb_method() registered. Called once, after suites/.
function(cb_add_cli)
  get_property(method_libs GLOBAL PROPERTY CB_METHOD_LIBS)
  add_executable(claimbench ${PROJECT_SOURCE_DIR}/harness/cli/main.cpp)
  target_link_libraries(claimbench PRIVATE cb_cli ${method_libs})
  set_target_properties(claimbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
endfunction()

# cb_unit_tests(prefix lib): one GoogleTest binary <prefix>_<x>_test per
# <x>_test.cpp in the current folder, linked with `lib` and the fixtures,
# labelled <prefix>. (gtest_discover_tests splits a list of labels into
# separate properties in CMake 3.25, so each test gets one label.)
function(cb_unit_tests prefix lib)
  file(GLOB test_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp")
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
