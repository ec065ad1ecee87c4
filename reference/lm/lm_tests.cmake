# reference/lm/ tests: each reference/lm/<x>_test.cpp is one GoogleTest binary
# reference_lm_<x>_test, linked with cb_reference and the fixtures, ctest prefix
# and label "reference_lm". (Included by reference/CMakeLists.txt, which
# leaves *_test.cpp out of cb_reference; cb_unit_tests() globs only the
# current source folder, hence this loop over this file's own folder.)
file(GLOB reference_lm_tests CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*_test.cpp")
foreach(src ${reference_lm_tests})
  get_filename_component(stem ${src} NAME_WE)
  set(target reference_lm_${stem})
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE cb_reference cb_fixtures)
  target_compile_options(${target} PRIVATE ${CB_WARNINGS})
  gtest_discover_tests(${target} TEST_PREFIX "reference_lm." DISCOVERY_TIMEOUT 60
                       PROPERTIES LABELS "reference_lm")
endforeach()
