// The hand-written declarations (web/lib/index.d.ts) compile in strict mode
// and accept the API as it is documented (tests/js/types-usage.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('index.d.ts type-checks against documented usage', () => {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
      '--moduleResolution', 'nodenext', '--lib', 'es2022,esnext.disposable', '--skipLibCheck', 'false',
      'web/lib/index.d.ts', 'tests/js/types-usage.ts'], { cwd: ROOT, encoding: 'utf8' });
  } catch (e) {
    output = `${e.stdout}${e.stderr}`;
  }
  assert.equal(output, '');
});
