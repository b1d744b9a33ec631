#!/usr/bin/env node
// `npx attn-train`: the native tool (cpp/cli/attn_train.cpp) compiled to WebAssembly for Node, so that an
// install needs no compiler. The same commands, flags and output; its losses are the native tool's to the
// decimals it prints. It reads and writes the files it is given, runs on the machine's cores, and Ctrl-C saves a
// run before it exits (cpp/cli/node_prelude.js passes the signal on). CMakeLists.txt builds it (attn_train_node) and tools/build.sh
// puts it in web/cli.
//
// One thing is done here, before the tool starts: `generate --model` and `train --model` given a Hugging Face Hub
// id (org/name) rather than a folder, as transformers tells them apart (web/lib/hub.js), have the model's files
// downloaded into Hugging Face's cache (attn.cacheModel, with HF_ENDPOINT, HF_TOKEN, HF_HUB_CACHE and
// HF_HUB_OFFLINE read as huggingface_hub reads them; progress on stderr), and the tool is handed the snapshot
// folder. A folder, or anything that is no id, goes to the tool as it is, which says what is wrong with it.
const args = process.argv.slice(2);
const at = ['generate', 'train'].includes(args[0]) ? args.indexOf('--model', 1) : -1;
const startTool = () => require('../cli/attn-train.cjs');

async function resolveModel(source) {
  const { hubIdOf } = await import('../lib/hub.js');
  const id = await hubIdOf(source, 'attn-train').catch(() => null);
  if (id === null) return source;
  const { createAttention } = await import('../lib/single-thread.js');
  const attn = await createAttention();
  let shown = -1;
  const onProgress = ({ loaded, total }) => {
    const percent = total > 0 ? Math.floor((100 * loaded) / total / 10) * 10 : 100;
    if (percent === shown) return;
    shown = percent;
    process.stderr.write(`attn-train: ${id}: ${percent}% of ${(total / 1e6).toFixed(1)} MB in the Hugging Face cache\n`);
  };
  const { folder } = await attn.cacheModel(id, { onProgress });
  process.stderr.write(`attn-train: ${id}: ${folder}\n`);
  return folder;
}

if (at > 0 && at + 1 < args.length) {
  resolveModel(args[at + 1]).then((folder) => {
    process.argv[at + 3] = folder;
    startTool();
  }, (error) => {
    process.stderr.write(`attn-train: --model ${args[at + 1]}: ${error.message}\n`);
    process.exitCode = 1;
  });
} else {
  startTool();
}
