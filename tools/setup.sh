#!/usr/bin/env bash
# Installs whatever a fresh Debian/Ubuntu machine lacks to build this project,
# with --browser what its tests need (Chromium, clang's libFuzzer, PyTorch), and
# with --bench what the benchmark adds (OpenBLAS, for the PyTorch anchor: Debian's
# PyTorch calls whichever libblas.so.3 is installed, and the reference BLAS is ~20× slower).
# --native installs only what the C++ library's native build needs, and no npm packages:
# tools/test.sh starts that build while a second call installs the rest.
# Idempotent: when everything is present it only checks, which takes well
# under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

native=false browser=false bench=false
for flag in "$@"; do
  case "$flag" in
    --native) native=true ;;
    --browser) browser=true ;;
    --bench) browser=true bench=true ;;
    *) echo "usage: tools/setup.sh [--native | --browser | --bench]" >&2; exit 2 ;;
  esac
done

missing=()
have() { command -v "$1" >/dev/null 2>&1; }
have g++ || missing+=(g++)
have cmake || missing+=(cmake)
[ -f /usr/include/eigen3/Eigen/Core ] || missing+=(libeigen3-dev)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
[ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
[ -f /usr/include/xxhash.h ] || missing+=(libxxhash-dev)
# Compiler caching: a build folder made anew (a clean clone, the tests' portable and fuzzing builds) compiles
# what an earlier build already compiled with the same flags from the cache (tools/build.sh).
have ccache || missing+=(ccache)
$native || have em++ || missing+=(emscripten)
if $bench; then
  compgen -G "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3" >/dev/null || missing+=(libopenblas0-pthread)
fi
if $browser; then
  # The test suite also needs Chromium and, for the checkpoint fuzzer, clang with libFuzzer.
  have chromium || missing+=(chromium)
  have clang++ || missing+=(clang)
  compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || missing+=(libclang-rt-dev)
  # Real PyTorch (Debian's 1.13, as /usr/bin/python3) checks the golden numbers.
  [ -f /usr/lib/python3/dist-packages/torch/__init__.py ] || missing+=(python3-torch)
fi

# npm packages: installed when node_modules is missing or older than the lockfile, while apt installs (they need
# nothing of each other, and each spends most of its time waiting on the network or the disk).
npm_pid=""
if ! $native && { [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error &
  npm_pid=$!
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

[ -z "$npm_pid" ] || wait "$npm_pid" || { echo "setup: npm ci failed" >&2; exit 1; }
