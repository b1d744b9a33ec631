#!/usr/bin/env bash
# Builds one target of the CMake project:
#   portable     the C++ library as users build and install it (any x86-64 CPU, warnings as errors), with its
#                GoogleTest suite and attn-train -> build/portable: what the tests run and install
#   native       the same tuned for this CPU (-march=native), for the benchmarks and the training scripts
#                -> build/native
#   wasm         the WebAssembly modules of the JS package, single-threaded and threaded -> web/lib/wasm, and
#                attn-train for Node, the package's bin -> web/cli
#   wasm-single  the single-threaded module alone (and the kernel checks), all that npm run test:quick uses
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# ccache (tools/setup.sh installs it) serves a compile it has seen, with the same flags, from its cache: natively
# as CMake's compiler launcher, and inside em++, which runs clang through EM_COMPILER_WRAPPER. Paths inside the
# checkout count as relative to it, so another clone of the repository (a CI run's) hits the same entries.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export EM_COMPILER_WRAPPER=ccache CCACHE_BASEDIR="$PWD"
fi

# Puts a built file in place unless it is already there byte for byte. A changed file is written beside its
# target and renamed over it, so a test or page reading the module meanwhile gets the old file or the new one,
# whole (npm run dev rebuilds while pages and tests may be loading it).
publish() {
  cmp -s "$1" "$2" && return 0
  cp "$1" "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2"
}

case "${1:-}" in
  portable)
    # The flags a user's plain Release build has; the compile treats a warning as an error (a flag of this
    # build's own, not passed on to what links the installed library), so a warning fails it with its words.
    cmake -S . -B build/portable -DCMAKE_BUILD_TYPE=Release -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "${launcher[@]}" >/dev/null
    cmake --build build/portable -j "$jobs"
    ;;
  native)
    # The benchmarks run on the machine that builds them: tuned for its CPU.
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTN_NATIVE_ARCH=ON "${launcher[@]}" >/dev/null
    cmake --build build/native -j "$jobs"
    ;;
  wasm|wasm-single)
    # Debian's emscripten 3.1.6 runs its JS optimiser with a Node that does not
    # search /usr/share/nodejs, where Debian put acorn (docs/toolchain.md).
    export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
    if [ "$1" = wasm-single ]; then
      cmake --build build/wasm -j "$jobs" --target attention_wasm kernel_checks
    else
      cmake --build build/wasm -j "$jobs"
    fi
    mkdir -p web/lib/wasm web/lib/vendor
    # The chat-template engine, @huggingface/jinja, ships inside the package as a file of its own: a bare
    # specifier resolves nowhere in a page without a bundler, and never in a module worker (workers have no
    # import maps), where the worker API renders templates. Its licence travels with it.
    publish node_modules/@huggingface/jinja/dist/index.js web/lib/vendor/jinja.js
    publish node_modules/@huggingface/jinja/LICENSE web/lib/vendor/jinja.LICENSE
    # The glue keeps import.meta.url as the default folder of the files it would fetch; the loader hands it the
    # module (instantiateWasm), so it fetches none. A bundler rewrites that bare import.meta.url: webpack
    # wrote the path of the glue on the machine that built the app (file:///…) into every bundle.
    single=build/wasm/attention_wasm.mjs
    grep -qF 'var _scriptDir = import.meta.url;' "$single" || { echo "build.sh: the glue no longer sets _scriptDir as expected" >&2; exit 1; }
    sed 's|var _scriptDir = import.meta.url;|var _scriptDir = undefined;|' "$single" > build/wasm/attention_wasm.published.mjs
    publish build/wasm/attention_wasm.published.mjs web/lib/wasm/attention_wasm.mjs
    publish build/wasm/attention_wasm.wasm web/lib/wasm/attention_wasm.wasm
    [ "$1" = wasm-single ] && exit 0
    # The threaded module (web/lib/threads.js loads it). Its glue would start a worker with
    # `new Worker(new URL(…, import.meta.url))` when not given locateFile; the loader always gives it, but
    # bundlers see that spelling and try to bundle Emscripten's classic worker script as a module worker,
    # so the build spells it through locateFile, and fails if Emscripten's spelling ever changes.
    #
    # The workers it does start (`new Worker(pthreadMainJs)`, given locateFile) are made module workers. The
    # worker script has no static import, so it runs as a module as well as a classic script (and stays
    # CommonJS in Node, whose worker_threads ignore the option); as a classic script, Vite's dev server broke
    # it: it prepends an `import` for its own `import(…)` rewriting, which only a module may hold.
    glue=build/wasm/attention_wasm_threads.mjs
    pattern='new Worker(new URL("attention_wasm_threads.worker.js",import.meta.url))'
    started='new Worker(pthreadMainJs)'
    for p in "$pattern" "$started"; do
      grep -qF "$p" "$glue" || { echo "build.sh: the threaded glue no longer starts its workers as expected ($p)" >&2; exit 1; }
    done
    sed -e "s|new Worker(new URL(\"attention_wasm_threads.worker.js\",import.meta.url))|new Worker(locateFile(\"attention_wasm_threads.worker.js\"))|" \
      -e 's|new Worker(pthreadMainJs)|new Worker(pthreadMainJs,{type:"module"})|' \
      "$glue" > build/wasm/attention_wasm_threads.published.mjs
    publish build/wasm/attention_wasm_threads.published.mjs web/lib/wasm/attention_wasm_threads.mjs
    publish build/wasm/attention_wasm_threads.wasm web/lib/wasm/attention_wasm_threads.wasm
    # A worker that cannot import the glue (a bundler inlined or moved it, a policy refused it) only rejected a
    # promise, which nobody hears: the page waited out the start-up's 30 s. Rethrown outside the promise, it
    # is an error event the loader hears at once (web/lib/threaded-module.js), naming the cause.
    worker=build/wasm/attention_wasm_threads.worker.js
    loaded='.then(function(instance){Module=instance})'
    grep -qF "$loaded" "$worker" || { echo "build.sh: the threaded worker no longer loads the glue as expected" >&2; exit 1; }
    sed 's|\.then(function(instance){Module=instance})|&.catch(function(e){setTimeout(function(){throw e})})|' \
      "$worker" > build/wasm/attention_wasm_threads.worker.published.js
    publish build/wasm/attention_wasm_threads.worker.published.js web/lib/wasm/attention_wasm_threads.worker.js
    # attn-train for Node, the package's bin (web/bin/attn-train.cjs loads it), in a folder of its own: web/lib/wasm
    # holds what a page loads, and an app that copies that folder whole (the README's esbuild recipe) shipped the
    # tool's 1.8 MB with it. The tool finds its .wasm and worker beside its glue (__dirname), so the three move together.
    mkdir -p web/cli
    rm -f web/lib/wasm/attn-train.*   # where earlier builds put it
    for f in attn-train.cjs attn-train.wasm attn-train.worker.js; do publish "build/wasm/$f" "web/cli/$f"; done
    # Emscripten's worker scripts are CommonJS in Node (they call require), where this package's "type":
    # "module" would make every .js an ES module.
    echo '{ "type": "commonjs" }' > build/wasm/package.json
    publish build/wasm/package.json web/lib/wasm/package.json
    publish build/wasm/package.json web/cli/package.json
    ;;
  *)
    echo "usage: tools/build.sh portable|native|wasm|wasm-single" >&2
    exit 2
    ;;
esac
