// The README's bring-your-own-model recipe loads a model by its Hub id, which no test machine reaches: it runs here
// as written, in Node, against a local server that answers as the Hub does (tests/fixtures/hub-server.js, reached
// through HF_ENDPOINT as huggingface_hub reads it), serving a small random Llama-family model with SmolLM2's
// family's real tokenizer under the recipe's id. What it prints is that model's (nLayer, nHead).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { hubModels } from '../fixtures/hub-models.js';
import { startHub } from '../fixtures/hub-server.js';
import { ROOT } from '../fixtures/package.js';
import { fullTier } from './helpers.js';

test("the README's recipe with a Hub id runs as written", fullTier('PyTorch (the Hub fixtures\' models)'), async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const after = readme.slice(readme.indexOf('**Your own model, every head.**'));
  const [, recipe] = /^```\n([\s\S]*?)^```$/m.exec(after);
  const id = /loadPretrained\('([^']+)'\)/.exec(recipe)[1];
  assert.equal(id, 'HuggingFaceTB/SmolLM2-135M');

  const model = hubModels().llama;
  const config = JSON.parse(new TextDecoder().decode(model['config.json']));
  const hub = await startHub();
  hub.addRepo(id, model);
  const dir = mkdtempSync(join(tmpdir(), 'attn-readme-hub-'));
  const file = join(dir, 'recipe.mjs');
  writeFileSync(file, `import { createAttention } from ${JSON.stringify(join(ROOT, 'web/lib/index.js'))};\n` +
    `const attn = await createAttention();\n${recipe}`);
  const child = spawn(process.execPath, [file], { env: { ...process.env, HF_ENDPOINT: hub.url, HF_HUB_CACHE: join(dir, 'cache') } });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const status = await new Promise((resolve) => child.on('close', resolve));
  await hub.close();
  assert.equal(status, 0, stderr);
  assert.equal(stdout, `[ ${config.num_hidden_layers}, ${config.num_attention_heads} ]\n`);
});
