#!/usr/bin/env bash
# Builds one target of the CMake project:
#   native  the C++ library and its GoogleTest suite, tuned for this CPU -> build/native
#   wasm    the WebAssembly module for the JS package  -> web/lib/wasm
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

case "${1:-}" in
  native)
    # This repository's tests and benchmarks run on the machine that builds them: tuned for its CPU.
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTN_NATIVE_ARCH=ON >/dev/null
    cmake --build build/native -j "$jobs"
    ;;
  wasm)
    # Debian's emscripten 3.1.6 runs its JS optimiser with a Node that does not
    # search /usr/share/nodejs, where Debian put acorn (docs/toolchain.md).
    export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build/wasm -j "$jobs"
    mkdir -p web/lib/wasm
    cp build/wasm/attention_wasm.mjs build/wasm/attention_wasm.wasm web/lib/wasm/
    # The threaded module (web/lib/threads.js loads it). Its glue would start a worker with
    # `new Worker(new URL(…, import.meta.url))` when not given locateFile; the loader always gives it, but
    # bundlers see that spelling and try to bundle Emscripten's classic worker script as a module worker,
    # so the build spells it through locateFile, and fails if Emscripten's spelling ever changes.
    glue=build/wasm/attention_wasm_threads.mjs
    pattern='new Worker(new URL("attention_wasm_threads.worker.js",import.meta.url))'
    grep -qF "$pattern" "$glue" || { echo "build.sh: the threaded glue no longer starts its workers as expected" >&2; exit 1; }
    sed "s|new Worker(new URL(\"attention_wasm_threads.worker.js\",import.meta.url))|new Worker(locateFile(\"attention_wasm_threads.worker.js\"))|" \
      "$glue" > web/lib/wasm/attention_wasm_threads.mjs
    cp build/wasm/attention_wasm_threads.wasm build/wasm/attention_wasm_threads.worker.js web/lib/wasm/
    # Emscripten's worker script is CommonJS in Node (it calls require), where this package's "type":
    # "module" would make every .js an ES module.
    echo '{ "type": "commonjs" }' > web/lib/wasm/package.json
    ;;
  *)
    echo "usage: tools/build.sh native|wasm" >&2
    exit 2
    ;;
esac
