#!/usr/bin/env node
// `npx attn-train`: the native tool (cpp/cli/attn_train.cpp) compiled to WebAssembly for Node, so that an
// install needs no compiler. The same commands, flags and output; its losses are the native tool's to the
// decimals it prints. It reads and writes the files it is given, runs on the machine's cores, and Ctrl-C saves a
// run before it exits (cpp/cli/node_prelude.js passes the signal on). CMakeLists.txt builds it (attn_train_node).
require('../lib/wasm/attn-train.cjs');
