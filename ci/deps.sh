#!/usr/bin/env bash
# ci/deps.sh: installs the Debian packages claimbench builds and tests with.
# Idempotent; prints nothing when everything is already present. Needs root
# (or sudo) only when something is missing. CUDA (nvcc) is optional and not
# installed here: the build uses it when it finds it (CB_CUDA=AUTO).
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git ccache python3
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev sqlite3 libxxhash-dev libcurl4-openssl-dev
  nlohmann-json3-dev libcli11-dev libopenblas-dev zlib1g-dev
  libjs-chart.js chromium
  libfreetype-dev fonts-dejavu-core fonts-noto-color-emoji
  libavcodec-dev libavformat-dev libswscale-dev libavutil-dev
  librsvg2-dev
  clang-14 libfuzzer-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ci/deps.sh: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
