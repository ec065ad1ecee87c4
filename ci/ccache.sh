# ci/ccache.sh: sourced by ci/test.sh and ci/run.sh. Compiles through ccache
# (installed by ci/deps.sh) when a build folder is configured for the first
# time, so a second clone or a re-run on the same machine reuses objects.
# Paths are hashed relative to the checkout (CCACHE_BASEDIR), so clones in
# other folders share the cache; CCACHE_NOHASHDIR keeps the build folder out of
# the hash (it only reaches the debug info's DW_AT_comp_dir). CB_CCACHE=0
# turns it off.
if [ "${CB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-ccache}"
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
  export CMAKE_CUDA_COMPILER_LAUNCHER="${CMAKE_CUDA_COMPILER_LAUNCHER:-ccache}"
fi
