// Models by their Hugging Face Hub id, against a local Hub in the Hub's URL layout (tests/fixtures/hub-server.js:
// LFS files redirected to a second origin, gated repositories, the Hub's error headers, switchable faults), with
// Hugging Face's cache folder as huggingface_hub lays it out (file_download.py): ids told from folders as
// transformers tells them, the numbers of the same model loaded from its folder and from PyTorch, the layout
// transformers reads, no request for what the cache holds when offline, named errors for every refusal and fault
// (after which the module still works), the token never sent past the Hub's origin, the worker and attn-train.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { cacheDir, isolateHuggingFaceEnvironment, unreachableUrl, withEnv } from '../fixtures/hub-env.js';
import { etagOf, filesIn, isLfs, startHub } from '../fixtures/hub-server.js';
import { familyReferences } from '../fixtures/torch-cache.js';
import { attn, createAttention, fullTier, own, QUICK, useAttention } from './helpers.js';

useAttention();

isolateHuggingFaceEnvironment();

const repoDir = (cache, id) => join(cache, `models--${id.replace('/', '--')}`);
const json = (value) => new TextEncoder().encode(JSON.stringify(value));
/** A Hub that cannot be reached. */
let NOWHERE;
const stillWorks = () => assert.deepEqual(Array.from(attn.softmax([0, 0]).data), [0.5, 0.5]);

let hub;
before(async () => {
  hub = await startHub();
  NOWHERE = await unreachableUrl();
});
after(() => hub.close());

describe('what is an id', () => {
  test('a string that is neither a folder nor a Hub id is refused by name, and no request is made', async () => {
    const cases = [
      ['a b', /the character " "/],
      ['org/na..me', /"--" or "\.\."/],
      ['org--x/name', /"--" or "\.\."/],
      ['javascript:alert(1)', /the character ":"/],
      ['org/name/extra', /more than one "\/"/],
      ['Qwen/Qwen3-0.6B/', /a "\/" at its end/],  // copied from the end of a Hub page's address
      ['org/name.git', /the ending "\.git"/],
      ['-org/name', /starts or ends with "-" or "\."/],
      [`org/${'x'.repeat(97)}`, /a name of 97 characters/],
    ];
    // A long string is echoed cut to 40 characters (a 100,000-character one made a message as long).
    const short = (text) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
    const mark = hub.log.length;
    for (const [source, why] of cases) {
      await assert.rejects(attn.loadPretrained(source, { hubUrl: hub.url }), (e) => e.code === 'ERR_ATTN_INVALID_ARGUMENT' &&
        e.message.startsWith('loadPretrained: expected a model folder path or a Hugging Face Hub id, "name" or "namespace/name"') &&
        e.message.includes(`(no folder "${short(source)}" exists here)`) && why.test(e.message) && e.message.endsWith(`got the string ${JSON.stringify(short(source))}`),
      source);
      stillWorks();
    }
    assert.deepEqual(hub.since(mark), []);
  });

  test('a folder that exists is a folder, even one named like an id; a path or file: URL never is an id', async () => {
    const work = mkdtempSync(join(tmpdir(), 'attn-hub-cwd-'));
    mkdirSync(join(work, 'org', 'name'), { recursive: true });
    const cwd = process.cwd();
    const mark = hub.log.length;
    process.chdir(work);
    try {
      await assert.rejects(attn.loadPretrained('org/name', { onProgress: () => {} }), { code: 'ERR_ATTN_INVALID_FILE', message: /^loadPretrained: the model folder has no config\.json .* it holds no files$/ });
      await assert.rejects(attn.loadPretrained('org/name', { revision: 'v1' }),
        { code: 'ERR_ATTN_INVALID_ARGUMENT', message: 'loadPretrained: expected revision only with a Hugging Face Hub id, not with a model folder, got the string "org/name"' });
    } finally {
      process.chdir(cwd);
    }
    await assert.rejects(attn.loadPretrained('./org/name'), { code: 'ERR_ATTN_LOAD_FAILED', message: /could not read the model folder \.\/org\/name: ENOENT/ });
    await assert.rejects(attn.loadPretrained('file:///no/such/model'), { code: 'ERR_ATTN_LOAD_FAILED', message: /could not read the model folder \/no\/such\/model/ });
    assert.deepEqual(hub.since(mark), []);
  });

  test("the options of an id are checked: a revision that steps out of refs/, a hubUrl that is not http(s), a token's type", async () => {
    const refused = [
      [{ revision: '../../etc' }, 'ERR_ATTN_INVALID_ARGUMENT', /expected revision as a branch, a tag or a commit hash/],
      [{ revision: 'refs//x' }, 'ERR_ATTN_INVALID_ARGUMENT', /expected revision as a branch/],
      [{ revision: 7 }, 'ERR_ATTN_INVALID_TYPE', /expected revision as a string/],
      [{ hubUrl: 'ftp://example.com' }, 'ERR_ATTN_INVALID_ARGUMENT', /expected hubUrl as an http\(s\) address/],
      [{ accessToken: 42 }, 'ERR_ATTN_INVALID_TYPE', /expected accessToken as a Hugging Face token/],
      [{ accessToken: 'hf_x\r\nX-Injected: 1' }, 'ERR_ATTN_INVALID_TYPE', /got the string "\(a token refused\)"/],
      [{ cacheDir: '' }, 'ERR_ATTN_INVALID_TYPE', /expected cacheDir as a folder path/],
      [{ revision: 'main', branch: 'x' }, 'ERR_ATTN_INVALID_ARGUMENT', /branch/],
    ];
    for (const [options, code, message] of refused) {
      await assert.rejects(attn.loadPretrained('org/name', options), (e) => e.code === code && message.test(e.message), JSON.stringify(options));
    }
    stillWorks();
  });
});

describe("the Hub's refusals and faults are named errors, and nothing is left behind", () => {
  const tiny = { 'config.json': json({ model_type: 'llama' }) };
  before(() => {
    hub.addRepo('test-org/config-only', tiny);
    hub.addRepo('test-org/gated', tiny, { token: 'hf_right' });
  });

  test('a repository that does not exist: 401 without a token (as for a private one), 404 with one', async () => {
    const cache = cacheDir();
    await assert.rejects(attn.loadPretrained('test-org/nothing', { hubUrl: hub.url, cacheDir: cache }), (e) => e.code === 'ERR_ATTN_NOT_FOUND' &&
      e.message.startsWith(`loadPretrained: ${hub.url} has no model test-org/nothing, or it is private: the Hub answers a request without a token the same for both`) &&
      e.message.includes('pass accessToken or set HF_TOKEN') && e.message.includes('HTTP 401: "Invalid username or password."'));
    await assert.rejects(attn.loadPretrained('test-org/nothing', { hubUrl: hub.url, cacheDir: cache, accessToken: 'hf_some' }),
      { code: 'ERR_ATTN_NOT_FOUND', message: `loadPretrained: ${hub.url} has no model test-org/nothing (HTTP 404: "Repository not found", for config.json)` });
    await assert.rejects(attn.loadPretrained('test-org/config-only', { hubUrl: hub.url, cacheDir: cache, revision: 'v9' }),
      { code: 'ERR_ATTN_NOT_FOUND', message: `loadPretrained: test-org/config-only has no revision "v9" on ${hub.url} (HTTP 404: "Invalid rev id: v9")` });
    assert.deepEqual(readdirSync(cache), []);
    stillWorks();
  });

  test('a gated repository: a token asked for (401), the wrong one refused (403), the right one from accessToken, HF_TOKEN or the token file', async () => {
    const options = { hubUrl: hub.url, cacheDir: cacheDir() };
    await assert.rejects(attn.loadPretrained('test-org/gated', options), (e) => e.code === 'ERR_ATTN_HUB_AUTH' &&
      e.message.startsWith(`loadPretrained: ${hub.url} asks for a token for test-org/gated, a gated or private model (HTTP 401: "Access to model test-org/gated is restricted.`) &&
      e.message.endsWith('accept its licence on the Hub (if it is gated) and pass accessToken or set HF_TOKEN'));
    await assert.rejects(attn.loadPretrained('test-org/gated', { ...options, accessToken: 'hf_wrong' }),
      (e) => e.code === 'ERR_ATTN_HUB_AUTH' && e.message.includes('refused the token given for test-org/gated') && e.message.includes('HTTP 403'));
    // The right token passes config.json: what stops the load now is the repository's lack of a tokenizer.
    const noTokenizer = { code: 'ERR_ATTN_INVALID_FILE', message: /^loadPretrained: test-org\/gated \(revision main\) has no tokenizer/ };
    await assert.rejects(attn.loadPretrained('test-org/gated', { ...options, accessToken: 'hf_right' }), noTokenizer);
    await withEnv({ HF_TOKEN: 'hf_right' }, () => assert.rejects(attn.loadPretrained('test-org/gated', options), noTokenizer));
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'attn-hf-token-')), 'token');
    writeFileSync(tokenFile, 'hf_right\n');
    await withEnv({ HF_TOKEN_PATH: tokenFile }, () => assert.rejects(attn.loadPretrained('test-org/gated', options), noTokenizer));
    stillWorks();
  });

  test("a captive portal's page and a redirect loop are named, with nothing cached", async () => {
    const cache = cacheDir();
    hub.faults.html = true;
    try {
      await assert.rejects(attn.loadPretrained('test-org/config-only', { hubUrl: hub.url, cacheDir: cache }), (e) => e.code === 'ERR_ATTN_OFFLINE' &&
        e.message.includes(`${hub.url} answered test-org/config-only's config.json with an HTML page (a captive portal or a proxy's sign-in page?)`) &&
        e.message.includes('does not hold config.json'));
    } finally {
      hub.faults.html = false;
    }
    hub.faults.loop = true;
    try {
      await assert.rejects(attn.loadPretrained('test-org/config-only', { hubUrl: hub.url, cacheDir: cache }),
        { code: 'ERR_ATTN_LOAD_FAILED', message: new RegExp(`^loadPretrained: test-org/config-only's config\\.json: a redirect loop \\(${hub.url}/test-org/config-only/resolve/main/config\\.json → `) });
    } finally {
      hub.faults.loop = false;
    }
    assert.deepEqual(readdirSync(cache).filter((f) => f !== 'CACHEDIR.TAG'), []);
    stillWorks();
  });

  // A Hub (or a server posing as one) answering X-Repo-Commit: ../../../../tmp/x made the load write config.json
  // there; an ETag with a path renamed a download over any file the user could write.
  test('a commit or an ETag with a path in it is refused by name, and nothing is written outside the cache', async () => {
    const cache = cacheDir();
    const outside = mkdtempSync(join(tmpdir(), 'attn-hub-outside-'));
    const escape = `${'../'.repeat(12)}${outside.slice(1)}`;
    for (const [header, value] of [['X-Repo-Commit', `${escape}/c`], ['ETag', `"${escape}/blob"`], ['X-Repo-Commit', 'main']]) {
      hub.faults.headers = { [header]: value };
      try {
        await assert.rejects(attn.loadPretrained('test-org/config-only', { hubUrl: hub.url, cacheDir: cache }), (e) => e.code === 'ERR_ATTN_LOAD_FAILED' &&
          e.message.startsWith(`loadPretrained: ${hub.url} answered test-org/config-only's config.json with ${header} `) &&
          e.message.endsWith('not an answer of the Hugging Face Hub, and nothing was written to the cache'), `${header}: ${value}`);
      } finally {
        hub.faults.headers = {};
      }
    }
    assert.deepEqual(readdirSync(outside), []);
    assert.deepEqual(readdirSync(cache).filter((f) => f !== 'CACHEDIR.TAG'), []);
    stillWorks();
  });

  test('offline with nothing cached is ERR_ATTN_OFFLINE: HF_HUB_OFFLINE=1 sends no request, and an unreachable Hub says so', async () => {
    const mark = hub.log.length;
    await withEnv({ HF_HUB_OFFLINE: '1', HF_ENDPOINT: hub.url }, () => assert.rejects(attn.loadPretrained('test-org/config-only', { cacheDir: cacheDir() }),
      (e) => e.code === 'ERR_ATTN_OFFLINE' && /^loadPretrained: test-org\/config-only \(revision main\) has no config\.json \(the model's shape\): offline mode is on \(HF_HUB_OFFLINE\), and the Hugging Face cache .*models--test-org--config-only does not hold config\.json$/.test(e.message)));
    assert.deepEqual(hub.since(mark), []);
    await assert.rejects(attn.loadPretrained('test-org/config-only', { hubUrl: NOWHERE, cacheDir: cacheDir() }),
      (e) => e.code === 'ERR_ATTN_OFFLINE' && e.message.includes(`could not reach ${NOWHERE} for test-org/config-only's config.json (ECONNREFUSED)`));
    stillWorks();
  });

  test('a connection reset as a kept-alive socket is reused is sent again, not taken for an unreachable Hub', async () => {
    // The full suite once failed so: a forward pass blocked the event loop past the server's keep-alive timeout, and
    // the next request went out on the socket the server then closed (ECONNRESET).
    const options = { hubUrl: hub.url, cacheDir: cacheDir() };
    hub.faults.resets = 1;
    await assert.rejects(attn.loadPretrained('test-org/config-only', options), { code: 'ERR_ATTN_INVALID_FILE', message: /has no tokenizer/ });
    hub.faults.resets = 2;
    await assert.rejects(attn.loadPretrained('test-org/config-only', { ...options, cacheDir: cacheDir() }), (e) => e.code === 'ERR_ATTN_OFFLINE' && /\(ECONNRESET|UND_ERR_SOCKET|other side closed\)/.test(e.message));
    assert.equal(hub.faults.resets, 0);
  });

  test('the revision is quoted whole in the address (refs/pr/1 as refs%2Fpr%2F1), and HF_ENDPOINT gives the Hub', async () => {
    hub.addRepo('test-org/config-only', tiny, { revision: 'refs/pr/1' });
    const mark = hub.log.length;
    await withEnv({ HF_ENDPOINT: hub.url }, () => assert.rejects(attn.loadPretrained('test-org/config-only', { revision: 'refs/pr/1', cacheDir: cacheDir() }),
      { code: 'ERR_ATTN_INVALID_FILE' }));
    assert.equal(hub.since(mark)[0].raw, '/test-org/config-only/resolve/refs%2Fpr%2F1/config.json');
  });
});

// Two of the families' random models (tools/llama_reference.py), served as Hub repositories.
const SINGLE = { name: 'qwen3-hub', family: 'qwen3', n_layer: 2, hidden: 32, heads: 4, kv_heads: 2, head_dim: 16, inner: 48, tie: true,
  theta: 1000000.0, rope_parameters: true };
const SHARDS = { name: 'gemma3-hub-shards', family: 'gemma3_text', n_layer: 3, hidden: 32, heads: 4, kv_heads: 1, head_dim: 16, inner: 40,
  window: 4, pattern: 3, local_theta: 10000.0, theta: 1000000.0, query_pre_attn_scalar: 12, rope_parameters: true, shards: 2, dtype: 'BF16' };
const EXTRA = {
  'tokenizer_config.json': json({ bos_token: '<s>', chat_template: '{% for m in messages %}{{ m.content }}{% endfor %}' }),
  'generation_config.json': json({ do_sample: true, temperature: 0.7 }),
  'chat_template.jinja': new TextEncoder().encode('{{ messages[0].content }}'),
};

describe('models by id', fullTier('PyTorch (tools/llama_reference.py)'), () => {
  let dir;
  let single;
  let shards;
  const repo = (spec, extra = {}) => {
    const files = { ...filesIn(join(dir, spec.name)), ...extra };
    delete files['expected.json'];
    return files;
  };
  before(() => {
    dir = familyReferences([SINGLE, SHARDS]);
    single = repo(SINGLE, EXTRA);
    shards = repo(SHARDS);
    hub.addRepo('test-org/qwen3', single);
    hub.addRepo('test-org/gemma3', shards, { revision: 'refs/pr/1', token: 'hf_gemma' });
  });
  const expected = (spec) => JSON.parse(readFileSync(join(dir, spec.name, 'expected.json'), 'utf8'));
  function sameAsTorch(model, spec) {
    const e = expected(spec);
    const { logits } = model.forward(e.ids);
    const worst = e.logits.reduce((m, x, i) => Math.max(m, Math.abs(x - logits.data[i])), 0);
    assert.ok(worst <= 1e-4, `logits differ by ${worst}`);
    assert.deepEqual(Array.from(model.generate([e.ids[0]], { maxNewTokens: 8, temperature: 0 }).data).slice(-8), e.greedy);
  }
  const load = async (id, options) => {
    const loaded = await attn.loadPretrained(id, options);
    own(loaded.model);
    own(loaded.tokenizer);
    return loaded;
  };

  test("downloaded into Hugging Face's cache layout, with PyTorch's numbers, the optional files' texts, progress over every byte and the token on the Hub's origin only", async () => {
    const cache = cacheDir();
    const mark = hub.log.length;
    const seen = [];
    const loaded = await load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache, accessToken: 'hf_mine',
      onProgress: (p) => seen.push({ ...p, requests: hub.log.length }) });
    sameAsTorch(loaded.model, SINGLE);
    assert.deepEqual(loaded.files, { tokenizerConfig: new TextDecoder().decode(EXTRA['tokenizer_config.json']),
      generationConfig: new TextDecoder().decode(EXTRA['generation_config.json']), chatTemplateJinja: '{{ messages[0].content }}', chatTemplateJson: null });
    // The layout huggingface_hub writes: refs/main holds the commit, each snapshot file a relative link to its blob.
    const commit = hub.addRepo('test-org/qwen3', single);
    const root = repoDir(cache, 'test-org/qwen3');
    assert.equal(readFileSync(join(root, 'refs', 'main'), 'utf8'), commit);
    for (const [name, bytes] of Object.entries(single)) {
      const pointer = join(root, 'snapshots', commit, name);
      assert.ok(lstatSync(pointer).isSymbolicLink(), name);
      assert.equal(readlinkSync(pointer), `../../blobs/${etagOf(name, bytes)}`);
      assert.deepEqual(new Uint8Array(readFileSync(pointer)), bytes, name);
    }
    assert.ok(existsSync(join(root, '.no_exist', commit, 'chat_template.json')), 'the absent file is remembered');
    assert.deepEqual(readdirSync(join(root, 'blobs')).filter((f) => f.includes('incomplete')), []);
    // Progress: one total, every file's bytes, known before the first byte of the weights came from the file host.
    const total = Object.values(single).reduce((n, b) => n + b.length, 0);
    assert.ok(seen.every((p) => p.total === total), `total ${seen.map((p) => p.total)} against ${total}`);
    assert.ok(seen.every((p, i) => i === 0 || p.loaded >= seen[i - 1].loaded));
    assert.equal(seen.at(-1).loaded, total);
    const requests = hub.since(mark);
    const firstWeightByte = requests.findIndex((r) => r.server === 'cdn' && r.method === 'GET');
    assert.ok(firstWeightByte > 0 && seen[0].requests - mark <= firstWeightByte, 'the total was reported before the weights were fetched');
    // The token went to the Hub with every request, and never to the file host the weights were redirected to.
    assert.ok(requests.filter((r) => r.server === 'hub').every((r) => r.authorization === 'Bearer hf_mine'));
    assert.deepEqual(requests.filter((r) => r.server === 'cdn').map((r) => [r.method, r.authorization]), [['GET', null]]);
    // The snapshot is a model folder like any other, and gives the same files.
    const fromFolder = await load(join(root, 'snapshots', commit));
    assert.deepEqual(fromFolder.files, loaded.files);
  });

  test('loaded again: only metadata is asked (HEAD); with HF_HUB_OFFLINE=1 or the Hub gone, no request at all', async () => {
    const cache = cacheDir();
    await load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache });
    let mark = hub.log.length;
    sameAsTorch((await load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache })).model, SINGLE);
    const again = hub.since(mark);
    assert.ok(again.length > 0 && again.every((r) => r.server === 'hub' && r.method === 'HEAD'), JSON.stringify(again));
    mark = hub.log.length;
    await withEnv({ HF_HUB_OFFLINE: '1', HF_ENDPOINT: hub.url }, async () => sameAsTorch((await load('test-org/qwen3', { cacheDir: cache })).model, SINGLE));
    sameAsTorch((await load('test-org/qwen3', { hubUrl: NOWHERE, cacheDir: cache })).model, SINGLE);
    assert.deepEqual(hub.since(mark), []);
    // The cache found through the environment as huggingface_hub finds it: HF_HUB_CACHE, then $HF_HOME/hub.
    await withEnv({ HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '1' }, async () => sameAsTorch((await load('test-org/qwen3')).model, SINGLE));
  });

  test('a cache written by hand as transformers leaves it (git and LFS blobs, refs/main, .no_exist) loads with no server at all', async () => {
    const home = mkdtempSync(join(tmpdir(), 'attn-hf-by-hand-'));
    const commit = 'a'.repeat(40);
    const root = join(home, 'hub', 'models--someone--qwen3-by-hand');
    mkdirSync(join(root, 'blobs'), { recursive: true });
    mkdirSync(join(root, 'snapshots', commit), { recursive: true });
    mkdirSync(join(root, 'refs'));
    writeFileSync(join(root, 'refs', 'main'), commit);
    for (const [name, bytes] of Object.entries(repo(SINGLE))) {
      writeFileSync(join(root, 'blobs', etagOf(name, bytes)), bytes);
      symlinkSync(`../../blobs/${etagOf(name, bytes)}`, join(root, 'snapshots', commit, name));
    }
    for (const name of ['tokenizer_config.json', 'generation_config.json', 'chat_template.jinja', 'chat_template.json']) {
      mkdirSync(join(root, '.no_exist', commit), { recursive: true });
      writeFileSync(join(root, '.no_exist', commit, name), '');
    }
    await withEnv({ HF_HOME: home, HF_HUB_OFFLINE: '1' }, async () => {
      const loaded = await load('someone/qwen3-by-hand');
      sameAsTorch(loaded.model, SINGLE);
      assert.deepEqual(loaded.files, { tokenizerConfig: null, generationConfig: null, chatTemplateJinja: null, chatTemplateJson: null });
    });
    await withEnv({ HF_HOME: home }, async () => sameAsTorch((await load('someone/qwen3-by-hand', { hubUrl: NOWHERE })).model, SINGLE));
    // By its commit, as transformers would ask for it, through $XDG_CACHE_HOME/huggingface/hub: no request needed.
    const xdg = mkdtempSync(join(tmpdir(), 'attn-xdg-'));
    mkdirSync(join(xdg, 'huggingface'));
    symlinkSync(join(home, 'hub'), join(xdg, 'huggingface', 'hub'));
    const mark = hub.log.length;
    await withEnv({ XDG_CACHE_HOME: xdg, HF_HOME: undefined, HF_ENDPOINT: hub.url }, async () =>
      sameAsTorch((await load('someone/qwen3-by-hand', { revision: commit })).model, SINGLE));
    assert.deepEqual(hub.since(mark), []);
  });

  test('shards through their index, at revision refs/pr/1 of a gated model with HF_TOKEN; the file host never sees the token', async () => {
    const cache = cacheDir();
    const options = { hubUrl: hub.url, cacheDir: cache, revision: 'refs/pr/1' };
    await assert.rejects(attn.loadPretrained('test-org/gemma3', options), { code: 'ERR_ATTN_HUB_AUTH' });
    const mark = hub.log.length;
    await withEnv({ HF_TOKEN: 'hf_gemma' }, async () => sameAsTorch((await load('test-org/gemma3', options)).model, SHARDS));
    const requests = hub.since(mark);
    const weights = Object.keys(shards).filter(isLfs).sort();
    assert.equal(weights.length, 2);
    assert.deepEqual(requests.filter((r) => r.server === 'cdn').map((r) => r.authorization), [null, null]);
    assert.ok(requests.filter((r) => r.server === 'hub').every((r) => r.authorization === 'Bearer hf_gemma'));
    const commit = hub.addRepo('test-org/gemma3', shards, { revision: 'refs/pr/1', token: 'hf_gemma' });
    assert.equal(readFileSync(join(repoDir(cache, 'test-org/gemma3'), 'refs', 'refs', 'pr', '1'), 'utf8'), commit);
    assert.deepEqual(readdirSync(join(repoDir(cache, 'test-org/gemma3'), 'snapshots', commit)).sort(),
      ['config.json', 'model.safetensors.index.json', 'tokenizer.json', ...weights].sort());
  });

  test('a download shorter than its Content-Length is refused and keeps nothing; the next load works', async () => {
    const cache = cacheDir();
    const weights = Object.keys(single).find(isLfs);
    hub.faults.short.add(weights);
    try {
      await assert.rejects(attn.loadPretrained('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache }),
        (e) => e.code === 'ERR_ATTN_LOAD_FAILED' && e.message.startsWith(`loadPretrained: the download of test-org/qwen3's ${weights} broke off after `));
    } finally {
      hub.faults.short.delete(weights);
    }
    const blobs = join(repoDir(cache, 'test-org/qwen3'), 'blobs');
    assert.deepEqual(readdirSync(blobs).filter((f) => f.includes('incomplete') || f === etagOf(weights, single[weights])), []);
    stillWorks();
    sameAsTorch((await load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache })).model, SINGLE);
  });

  test("a cached file whose etag or size is not the Hub's is fetched again", async () => {
    const cache = cacheDir();
    const options = { hubUrl: hub.url, cacheDir: cache };
    await load('test-org/qwen3', options);
    const commit = hub.addRepo('test-org/qwen3', single);
    const weights = Object.keys(single).find(isLfs);
    const root = repoDir(cache, 'test-org/qwen3');
    // The Hub now gives the weights another etag (same commit): they are downloaded again, under it.
    hub.faults.etag.add(weights);
    let mark = hub.log.length;
    try {
      sameAsTorch((await load('test-org/qwen3', options)).model, SINGLE);
    } finally {
      hub.faults.etag.delete(weights);
    }
    assert.deepEqual(hub.since(mark, 'cdn').map((r) => r.method), ['GET']);
    assert.equal(readlinkSync(join(root, 'snapshots', commit, weights)), `../../blobs/${etagOf(weights, single[weights])}0`);
    // A blob cut short on disk: its size is not the Hub's, so it is downloaded again too.
    const config = join(root, 'blobs', etagOf('config.json', single['config.json']));
    truncateSync(config, 10);
    mark = hub.log.length;
    sameAsTorch((await load('test-org/qwen3', options)).model, SINGLE);
    assert.deepEqual(hub.since(mark).filter((r) => r.method === 'GET').map((r) => r.path), [`/test-org/qwen3/resolve/${commit}/config.json`]);
    assert.deepEqual(new Uint8Array(readFileSync(config)), single['config.json']);
  });

  test('two loads at once into one cache both succeed, and leave one blob a file', async () => {
    const cache = cacheDir();
    const [a, b] = await Promise.all([load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache }), load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache })]);
    sameAsTorch(a.model, SINGLE);
    sameAsTorch(b.model, SINGLE);
    const blobs = readdirSync(join(repoDir(cache, 'test-org/qwen3'), 'blobs')).sort();
    assert.deepEqual(blobs, Object.entries(single).map(([name, bytes]) => etagOf(name, bytes)).sort());
  });

  test('cacheModel, cachedModels and removeCachedModel act on the Hugging Face cache', async () => {
    const cache = cacheDir();
    const seen = [];
    const entry = await attn.cacheModel('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache, onProgress: (p) => seen.push(p) });
    const commit = hub.addRepo('test-org/qwen3', single);
    const size = Object.values(single).reduce((n, b) => n + b.length, 0);
    assert.deepEqual(entry, { id: 'test-org/qwen3', revision: 'main', commit, folder: join(repoDir(cache, 'test-org/qwen3'), 'snapshots', commit),
      files: Object.keys(single).sort(), size });
    assert.deepEqual(seen.at(-1), { loaded: size, total: size });
    await withEnv({ HF_TOKEN: 'hf_gemma' }, () => attn.cacheModel('test-org/gemma3', { hubUrl: hub.url, cacheDir: cache, revision: 'refs/pr/1' }));
    const listed = await attn.cachedModels({ cacheDir: cache });
    assert.deepEqual(listed.map((m) => [m.id, m.revision]), [['test-org/gemma3', 'refs/pr/1'], ['test-org/qwen3', 'main']]);
    assert.deepEqual(listed[1], entry);
    assert.equal(await attn.removeCachedModel('test-org/gemma3', { cacheDir: cache, revision: 'main' }), false);
    assert.equal(await attn.removeCachedModel('test-org/gemma3', { cacheDir: cache, revision: 'refs/pr/1' }), true);
    assert.equal(existsSync(repoDir(cache, 'test-org/gemma3')), false, 'its last revision removed, the repository goes');
    assert.equal(await attn.removeCachedModel('test-org/qwen3', { cacheDir: cache }), true);
    assert.deepEqual(await attn.cachedModels({ cacheDir: cache }), []);
    await assert.rejects(attn.removeCachedModel('../x', { cacheDir: cache }), { code: 'ERR_ATTN_INVALID_ARGUMENT' });
  });

  // Two links from a snapshot to itself took cachedModels 43 s and then overflowed the stack; a ref holding a path
  // sent an offline load's reads outside the cache.
  test('a cache damaged by hand: a snapshot linking to itself is listed once, a ref holding no commit names nothing', async () => {
    const cache = cacheDir();
    const entry = await attn.cacheModel('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache });
    symlinkSync('.', join(entry.folder, 'l0'));
    symlinkSync('.', join(entry.folder, 'l1'));
    assert.deepEqual((await attn.cachedModels({ cacheDir: cache }))[0].files, entry.files);
    const outside = mkdtempSync(join(tmpdir(), 'attn-hub-ref-'));
    writeFileSync(join(outside, 'config.json'), '{}');
    writeFileSync(join(repoDir(cache, 'test-org/qwen3'), 'refs', 'main'), `${'../'.repeat(12)}${outside.slice(1)}`);
    await withEnv({ HF_HUB_OFFLINE: '1' }, () => assert.rejects(attn.loadPretrained('test-org/qwen3', { cacheDir: cache }),
      (e) => e.code === 'ERR_ATTN_OFFLINE' && e.message.includes('does not hold config.json')));
    assert.deepEqual(await attn.cachedModels({ cacheDir: cache }), [{ ...entry, revision: entry.commit }]);
    stillWorks();
  });

  test('in the worker of createAttention({ worker: true }): progress, the cache, an abort', async () => {
    const remote = await createAttention({ worker: true });
    try {
      const cache = cacheDir();
      const seen = [];
      const { model, tokenizer, files } = await remote.loadPretrained('test-org/qwen3', { hubUrl: new URL(hub.url), cacheDir: cache, onProgress: (p) => seen.push(p) });
      const e = expected(SINGLE);
      const here = own((await load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cache })).model);
      assert.deepEqual((await model.forward(e.ids)).logits, here.forward(e.ids).logits);
      assert.equal(files.chatTemplateJinja, '{{ messages[0].content }}');
      assert.ok(seen.length >= 2 && seen.at(-1).loaded === seen.at(-1).total);
      assert.deepEqual((await remote.cachedModels({ cacheDir: cache })).map((m) => m.id), ['test-org/qwen3']);
      await Promise.all([model.dispose(), tokenizer.dispose()]);
      const controller = new AbortController();
      await assert.rejects(remote.loadPretrained('test-org/qwen3', { hubUrl: hub.url, cacheDir: cacheDir(), signal: controller.signal,
        onProgress: ({ loaded }) => loaded > 0 && controller.abort(new Error('stopped by the reader')) }), { message: 'stopped by the reader' });
      await assert.rejects(remote.loadPretrained('a b'), { code: 'ERR_ATTN_INVALID_ARGUMENT' });
    } finally {
      await remote.dispose();
    }
  });

  test('attn-train generate --model org/name downloads into the cache, then continues as the library does; offline the second time', async () => {
    const cache = cacheDir();
    const { model, tokenizer } = await load('test-org/qwen3', { hubUrl: hub.url, cacheDir: cacheDir() });
    const prompt = 'the cat sat';
    const expectedText = tokenizer.decode(Array.from(model.generate([tokenizer.encode(prompt)], { maxNewTokens: 8, temperature: 0 }).data).slice(-8));
    const cli = new URL('../../web/bin/attn-train.cjs', import.meta.url).pathname;
    // Spawned without blocking: the Hub it asks runs in this process.
    const run = (env) => new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, 'generate', '--model', 'test-org/qwen3', '--prompt', prompt, '--max-new-tokens', '8', '--temperature', '0'],
        { env: { ...process.env, HF_HUB_CACHE: cache, ...env } });
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (d) => (out.stdout += d));
      child.stderr.on('data', (d) => (out.stderr += d));
      child.on('close', (status) => resolve({ ...out, status }));
    });
    const first = await run({ HF_ENDPOINT: hub.url });
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout, `${prompt}${expectedText}\n`);
    assert.match(first.stderr, /^attn-train: test-org\/qwen3: 0% of \d+\.\d MB in the Hugging Face cache$/m);
    assert.match(first.stderr, /^attn-train: test-org\/qwen3: 100% of /m);
    const mark = hub.log.length;
    const second = await run({ HF_ENDPOINT: hub.url, HF_HUB_OFFLINE: '1' });
    assert.equal(second.stdout, first.stdout, second.stderr);
    assert.deepEqual(hub.since(mark), []);
    const refused = await run({ HF_ENDPOINT: hub.url, HF_HUB_CACHE: cacheDir(), HF_HUB_OFFLINE: '1' });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^attn-train: --model test-org\/qwen3: cacheModel: test-org\/qwen3 \(revision main\) has no config\.json \(the model's shape\): offline mode is on/m);
  });
});
