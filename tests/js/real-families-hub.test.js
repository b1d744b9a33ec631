// Models by Hub id, as people name them: the Qwen3-0.6B-shaped and Gemma-3-270m-shaped folders of
// real-families.test.js (published config keys, the real tokenizer files, random weights) served by the local Hub
// (tests/fixtures/hub-server.js) as Qwen/Qwen3-0.6B and google/gemma-3-270m, the second gated as the Hub gates it.
// Loaded by id into Hugging Face's cache (the weights through the Hub's redirect to its file host), loaded again from
// the cache, offline and with the Hub stopped, and in the worker: each time the tokenizer gives the tokenizers
// library's ids and the model PyTorch's numbers.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { cacheDir, isolateHuggingFaceEnvironment, withEnv } from '../fixtures/hub-env.js';
import { filesIn, isLfs, startHub } from '../fixtures/hub-server.js';
import { assertSameAsTorch, FAMILIES, modelFolder, realFamilyReferences } from '../fixtures/real-families.js';
import { attn, createAttention, fullTier, own, useAttention } from './helpers.js';

useAttention();
isolateHuggingFaceEnvironment();

const QWEN = { id: 'Qwen/Qwen3-0.6B', family: FAMILIES.find((f) => f.name === 'qwen3-0.6b') };
const GEMMA = { id: 'google/gemma-3-270m', family: FAMILIES.find((f) => f.name === 'gemma-3-270m'), token: 'hf_gemma_licence' };
const REPOS = [QWEN, GEMMA];

describe('published families by Hub id: downloaded, cached, offline, in the worker, with PyTorch\'s numbers', fullTier('PyTorch (tools/llama_reference.py)'), () => {
  let hub;
  let referenceDir;
  const cache = cacheDir();
  const workerCache = cacheDir();
  const folders = [cache, workerCache];
  before(async () => {
    referenceDir = realFamilyReferences(REPOS.map((r) => r.family));
    hub = await startHub();
    for (const repo of REPOS) {
      const folder = modelFolder(repo.family, referenceDir(repo.family));
      folders.push(folder);
      repo.files = filesIn(folder);
      repo.commit = hub.addRepo(repo.id, repo.files, { token: repo.token });
    }
  });
  after(async () => {
    await hub.close();
    folders.forEach((f) => rmSync(f, { recursive: true, force: true }));
  });

  const load = async (repo, options) => {
    const loaded = await attn.loadPretrained(repo.id, { accessToken: repo.token, ...options });
    own(loaded.model);
    own(loaded.tokenizer);
    return loaded;
  };

  test('downloaded into Hugging Face\'s cache: the weights from the file host the Hub redirects to, the gated one with its token', async () => {
    await assert.rejects(attn.loadPretrained(GEMMA.id, { hubUrl: hub.url, cacheDir: cacheDir() }), { code: 'ERR_ATTN_HUB_AUTH' });
    for (const repo of REPOS) {
      const mark = hub.log.length;
      const { model, tokenizer, files } = await load(repo, { hubUrl: hub.url, cacheDir: cache });
      await assertSameAsTorch(model, tokenizer, repo.family, referenceDir(repo.family));
      assert.equal(files.tokenizerConfig, new TextDecoder().decode(repo.files['tokenizer_config.json']));
      const weights = Object.keys(repo.files).filter(isLfs);
      assert.deepEqual(hub.since(mark, 'cdn').map((r) => [r.method, r.authorization]), weights.map(() => ['GET', null]));
      // The snapshot huggingface_hub would have written: refs/main names the commit, and it holds every file, byte for byte.
      const root = join(cache, `models--${repo.id.replace('/', '--')}`);
      assert.equal(readFileSync(join(root, 'refs', 'main'), 'utf8'), repo.commit);
      const snapshot = join(root, 'snapshots', repo.commit);
      assert.deepEqual(readdirSync(snapshot).sort(), Object.keys(repo.files).sort());
      for (const [name, bytes] of Object.entries(repo.files)) assert.ok(readFileSync(join(snapshot, name)).equals(bytes), name);
    }
  });

  test('loaded again from the cache: the Hub asked for metadata only (HEAD), the file host not at all', async () => {
    for (const repo of REPOS) {
      const mark = hub.log.length;
      const { model, tokenizer } = await load(repo, { hubUrl: hub.url, cacheDir: cache });
      await assertSameAsTorch(model, tokenizer, repo.family, referenceDir(repo.family));
      const requests = hub.since(mark);
      assert.ok(requests.length > 0 && requests.every((r) => r.server === 'hub' && r.method === 'HEAD'), JSON.stringify(requests));
    }
  });

  test('in the worker of createAttention({ worker: true }), from the Hub into a cache of its own', async () => {
    const remote = await createAttention({ worker: true });
    try {
      for (const repo of REPOS) {
        const { model, tokenizer } = await remote.loadPretrained(repo.id, { hubUrl: hub.url, cacheDir: workerCache, accessToken: repo.token });
        await assertSameAsTorch(model, tokenizer, repo.family, referenceDir(repo.family));
        await Promise.all([model.dispose(), tokenizer.dispose()]);
      }
    } finally {
      await remote.dispose();
    }
  });

  test('offline (HF_HUB_OFFLINE=1, the cache found through HF_HUB_CACHE), then with the Hub stopped: from the cache, with no request', async () => {
    for (const repo of REPOS) {
      const mark = hub.log.length;
      await withEnv({ HF_HUB_OFFLINE: '1', HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache }, async () => {
        const { model, tokenizer } = await load(repo, { accessToken: undefined });
        await assertSameAsTorch(model, tokenizer, repo.family, referenceDir(repo.family));
      });
      assert.deepEqual(hub.since(mark), []);
    }
    await hub.close();
    for (const repo of REPOS) {
      const { model, tokenizer } = await load(repo, { hubUrl: hub.url, cacheDir: cache });
      await assertSameAsTorch(model, tokenizer, repo.family, referenceDir(repo.family));
    }
  });
});
