# harness/cmake/fuzz.cmake: the libFuzzer targets of every parser of user
# input (issue 30 item 9), built only when CB_FUZZ is ON (preset `fuzz`:
# clang-14, -fsanitize=fuzzer-no-link,address,undefined) and run by
# ci/fuzz.sh. Included by the top-level CMakeLists.txt after every library is
# defined. Each target is one <name>_fuzz.cpp beside the parser it feeds; the
# globs of the libraries leave *_fuzz.cpp out.
#
# `cmake --build --preset fuzz --target fuzzers` builds the targets and only
# what they need: a target names the parser's own .cpp files in SOURCES
# rather than linking a suite's OBJECT library (which would compile and link
# the suite's commands, claims and benchmarks too). Binaries land in
# <build>/fuzz/<name>_fuzz; their seed corpora are fixtures/fuzz/<name>/.
if(NOT CB_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CB_FUZZ=ON needs clang (libFuzzer); use the preset `fuzz`")
endif()

add_custom_target(fuzzers)
# Imported targets are scoped to the folder that found them: find again here.
find_package(ZLIB REQUIRED)

# cb_fuzz_target(name SOURCES file... [LIBS target...]): executable
# <name>_fuzz from SOURCES (paths relative to the source root), linked with
# LIBS and libFuzzer's main, added to `fuzzers`.
function(cb_fuzz_target name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS")
  list(TRANSFORM arg_SOURCES PREPEND "${PROJECT_SOURCE_DIR}/")
  set(target ${name}_fuzz)
  add_executable(${target} EXCLUDE_FROM_ALL ${arg_SOURCES})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE ${arg_LIBS})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  add_dependencies(fuzzers ${target})
endfunction()

# --- harness/ ----------------------------------------------------------------
cb_fuzz_target(safetensors SOURCES harness/safetensors_fuzz.cpp LIBS cb_harness)
cb_fuzz_target(jsonl SOURCES harness/jsonl_fuzz.cpp LIBS cb_harness)
cb_fuzz_target(model_client SOURCES harness/model_client_fuzz.cpp LIBS cb_harness)

# --- ledger/: export JSON Lines and Google Benchmark JSON imports --------------
cb_fuzz_target(exchange SOURCES ledger/exchange_fuzz.cpp LIBS cb_ledger)
cb_fuzz_target(gbench_json SOURCES ledger/analysis/gbench_json_fuzz.cpp ledger/analysis/gbench_json.cpp
               LIBS cb_ledger)

# --- prediction and statistics files of the suites ----------------------------
cb_fuzz_target(vnbench SOURCES reference/vnbench/vnbench_fuzz.cpp reference/vnbench/vnbench.cpp
               LIBS cb_harness)
cb_fuzz_target(sgp SOURCES reference/sgp/sgp_fuzz.cpp reference/sgp/sgp.cpp LIBS cb_harness)
cb_fuzz_target(eagle SOURCES reference/eagle/bench_fuzz.cpp reference/eagle/bench.cpp
               reference/eagle/scorers.cpp reference/eagle/vqa_normalize.cpp LIBS cb_harness)
cb_fuzz_target(mia_stats SOURCES suites/mia/stats_file_fuzz.cpp suites/mia/stats_file.cpp
               reference/mia/mia.cpp reference/common/roc.cpp LIBS cb_harness ZLIB::ZLIB)
cb_fuzz_target(medrega SOURCES suites/medrega/medrega_eval_fuzz.cpp suites/medrega/medrega_eval.cpp
               suites/medrega/png.cpp reference/medrega/boxes.cpp reference/medrega/grounding.cpp
               reference/medrega/hungarian.cpp reference/medrega/pytext.cpp reference/medrega/scores.cpp
               reference/medrega/text_metrics.cpp generators/regions.cpp LIBS cb_harness ZLIB::ZLIB)
cb_fuzz_target(ibedl SOURCES suites/ibedl/eval_predictions_fuzz.cpp suites/ibedl/eval_predictions.cpp
               suites/ibedl/npz.cpp reference/ibedl/metrics.cpp reference/ibedl/evidential.cpp
               reference/ibedl/special.cpp reference/common/roc.cpp LIBS cb_harness ZLIB::ZLIB)
cb_fuzz_target(vlmbias SOURCES suites/vlmbias/vlmbias_eval_fuzz.cpp suites/vlmbias/vlmbias_eval.cpp
               reference/vlmbias/bias.cpp reference/vlmbias/parse_selection.cpp LIBS cb_harness)
cb_fuzz_target(regenesis SOURCES suites/regenesis/regenesis_eval_fuzz.cpp
               suites/regenesis/regenesis_eval.cpp reference/regenesis/extract.cpp
               reference/regenesis/scores.cpp reference/regenesis/vote.cpp LIBS cb_harness)

# --- checkpoints, sequences, video ---------------------------------------------
cb_fuzz_target(hf_config SOURCES reference/lm/hf_checkpoint_fuzz.cpp reference/lm/hf_checkpoint.cpp
               LIBS cb_harness)
cb_fuzz_target(fasta SOURCES suites/cbplm/fasta_fuzz.cpp suites/cbplm/fasta.cpp LIBS cb_harness)
# Y4M/MP4: the containers are parsed by libavformat (not ours, not
# instrumented); the target covers our reader around it.
pkg_check_modules(FUZZ_LIBAV REQUIRED IMPORTED_TARGET libavformat libavcodec libswscale libavutil)
cb_fuzz_target(video SOURCES suites/videoniah/video_reader_fuzz.cpp suites/videoniah/video_io.cpp
               suites/videoniah/media.cpp LIBS cb_harness PkgConfig::FUZZ_LIBAV ZLIB::ZLIB)
