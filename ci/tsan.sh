#!/usr/bin/env bash
# ci/tsan.sh: ThreadSanitizer over the multi-threaded parts of claimbench
# (issue 30 item 10), run at the end of ci/fuzz.sh. Builds preset `tsan`
# (GCC 12, -O1 -fsanitize=thread, CPU only) but only the test binaries that
# start threads, then runs their tests with TSAN_OPTIONS halt_on_error=1: any
# data race, lock-order inversion or signal-unsafe call in a handler fails the
# test that hit it, with both stacks in the ctest output. No suppressions.
#
# What it covers (ci/README.md#tsansh says why each, and how long it takes):
#   harness  ParallelFor (the fan-out of every CPU fast path), the CPU
#            ceilings' copy threads, MachineLock (the ceilings lock) and the
#            load sampler, the interrupt flag and its notes, the curl multi
#            client against the threaded loopback server (fixtures/http_server)
#   ledger   several processes writing one ledger (concurrency_test; each
#            forked writer runs instrumented), the gate's worker pool
#            (analysis_perf gate over 1000 speed rows: no gate test has the
#            256 rows that start a second worker)
#   suites   the ParallelFor callers' CPU paths (docs, radar, probegen and
#            generators/modelzoo, mia's score kernel, m3's field experiment),
#            pf's persistent helper thread (pair_runner), the BPE tokenizer
#            from several threads (lm), and the endpoint evaluations of sgp
#            and videoniah against the loopback server
#
#   CB_JOBS=N   parallel build and test jobs (default: number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${CB_JOBS:-$(nproc)}"

ci/deps.sh
. ci/ccache.sh

# The test binaries that start threads. Each suite binary brings the libraries
# below it (reference, generators, the lm substrate), which is most of the
# build's cost; the CLI tests are left out because they need the whole
# `claimbench` binary built under TSan (the threaded library code under them
# runs here; the commands themselves, e.g. the eval commands of vlmbias, eagle,
# medrega and regenesis, and EnsureCeilings taking the ceilings lock, do not).
targets=(
  harness_parallel_test harness_ceilings_test harness_machine_load_test
  harness_interrupt_test harness_model_client_test
  ledger_concurrency_test analysis_perf
  generators_modelzoo_test probegen_test m3_test sgp_test videoniah_test
  docs_test radar_test mia_test pf_test lm_test
)

# The tests run: every test of the harness and ledger binaries above that
# starts a thread; in the suites those that reach a threaded path. Anchored on
# the ctest prefix, so that placeholders of binaries not built here never
# match. Left out: tests of the single-threaded references and the slow ones
# whose threaded path a test here already runs (e.g. mia.NeuralClaims, 112 s
# under TSan; generators.TrainModelZoo.LearnsTheTaskBeyondChance, 46 s).
# Of the ceilings tests only one measures: each test process measures the
# machine again (STREAM over >= 32 MiB arrays, SGEMM), 170-310 s under TSan on 2
# loaded cores, and one measurement runs every copy thread there is.
tests='^harness\.(ParallelFor|HardwareThreads|MachineLoad|MachineLock|Interrupt|ModelClient)\.'
tests+='|^harness\.CeilingsTest\.StreamCeilingsSayTheirThreadsAccessAndMethod$'
tests+='|^ledger\.ConcurrencyTest\.'
tests+='|^generators\.TrainModelZoo\.SameZooWithOneAndTwoThreads$'
tests+='|^probegen\.(ProbeTrainingTest\.ResultsDoNotDependOnTheThreadCount$|Backends/)'
tests+='|^m3\.FieldExperiment\.|^docs\.(Backends/|Checkpoint)|^radar\.'
tests+='|^mia\.(ScoreKernelCpuPaths\.|Backends/|Experiment\.)|^pf\.(Backends/|PfDetectCpu\.|PfSimd\.)'
tests+='|^sgp\.SgpEndpoint\.|^videoniah\.EndpointEval\.|^lm\.BpeTokenizerTest\.EncodeIsSafeFromSeveralThreads$'

echo "== tsan: configure and build ${#targets[@]} targets (test binaries and analysis_perf)"
build_start=$SECONDS
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs" --target "${targets[@]}"
build_s=$((SECONDS - build_start))

echo "== tsan: the threaded tests under ThreadSanitizer"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
# OpenBLAS on the calling thread. Its own pthreads are not instrumented and
# hand work back with spin-waits TSan cannot see, while its libc calls still
# reach TSan's interceptors: with its threads, the first read of a GEMM result
# was reported as a race with the memset in OpenBLAS's sgemm_beta_HASWELL on
# "thread T1 created by blas_thread_init" (docs_cpu.cpp AbsMaximaCpu), and the
# suppression `called_from_lib:libopenblas` did not silence it under GCC 12's
# TSan. Nothing of ours is hidden: our threads all still run, and OpenBLAS's
# stores were never visible to TSan anyway.
export OPENBLAS_NUM_THREADS=1
run_start=$SECONDS
status=0
# --timeout: a deadlock must fail, not hang the job.
ctest --preset tsan -j "$jobs" --timeout 600 -R "$tests" || status=$?
# The gate's worker pool starts threads only from 256 speed rows on, more than
# any gate test has: 1000 synthetic speed rows (two workers on two cores).
echo "== tsan: the gate's worker pool (analysis_perf gate 1000 1)"
build/tsan/ledger/analysis/analysis_perf gate 1000 1 || status=1
echo "== tsan: build ${build_s} s, tests $((SECONDS - run_start)) s"
exit "$status"
