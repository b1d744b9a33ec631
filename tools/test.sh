#!/usr/bin/env bash
# The test suite's two tiers (docs/testing.md says what each covers and how long it takes):
#   tools/test.sh        npm test: everything CI runs. Each configuration is built once, the builds side by
#                        side: the C++ library as users build it, with its tests (then ctest; the examples and
#                        the README install this build), the two WebAssembly modules (then the site), and the
#                        fuzzers. Then every Node and browser test file, several at once, and the fuzzers' run.
#                        The package is packed once for every test that installs it (tests/fixtures/package.js),
#                        and each PyTorch reference computed once (tests/fixtures/torch-cache.js).
#   tools/test.sh quick  npm run test:quick: the inner loop. The C++ tests, and the Node tests against the
#                        single-threaded module; no browser, bundler, packing, PyTorch or fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# node:test runs this many test files at once. A browser test waits on its page and a Node test on a worker or a
# child process part of the time, so two per core keep the cores busy.
files_at_once=$((2 * jobs))

case "${1:-full}" in
  quick)
    bash tools/setup.sh
    bash tools/build.sh portable
    ctest --test-dir build/portable -j "$jobs" --output-on-failure
    bash tools/build.sh wasm-single
    ATTN_TEST_TIER=quick node --test --test-concurrency="$files_at_once" tests/js/
    ;;
  full)
    # The builds side by side: one's single-threaded steps (archiving, linking, wasm-opt) overlap the others'
    # compiling. The C++ build starts as soon as its few packages are there, while apt installs the large
    # ones the others need (on a fresh machine, a minute or more). Each one's output is shown once all are
    # done, a failed one's in full.
    logs=build/test-logs
    mkdir -p "$logs"
    declare -A builds=(
      [portable]="bash tools/build.sh portable && ctest --test-dir build/portable -j $jobs --output-on-failure"
      [wasm]="bash tools/build.sh wasm && npx vite build --logLevel warn"
      [fuzz]="bash tools/fuzz.sh --build"
    )
    declare -A pids=()
    start() {
      bash -c "${builds[$1]}" > "$logs/$1.log" 2>&1 &
      pids[$1]=$!
    }
    bash tools/setup.sh --native
    start portable
    bash tools/setup.sh --browser
    start wasm
    start fuzz
    failed=()
    for name in portable wasm fuzz; do
      wait "${pids[$name]}" || failed+=("$name")
    done
    for name in portable wasm fuzz; do
      if [[ " ${failed[*]} " == *" $name "* ]]; then
        echo "== $name: failed"
        cat "$logs/$name.log"
      else
        echo "== $name"
        grep -E 'tests passed|tests failed|Total Test time|built in' "$logs/$name.log" || true
      fi
    done
    [ ${#failed[@]} -eq 0 ] || { echo "test.sh: the ${failed[*]} build failed; nothing was tested after it" >&2; exit 1; }
    node --test --test-concurrency="$files_at_once" tests/js/ tests/browser/
    bash tools/fuzz.sh
    ;;
  *)
    echo "usage: tools/test.sh [quick|full]" >&2
    exit 2
    ;;
esac
