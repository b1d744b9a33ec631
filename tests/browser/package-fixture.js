// What a user of the package starts from: the packed tarball installed into a
// fresh project, and the C++ library installed under a prefix. Projects live in
// build/examples/, inside the repository, so that the bundlers they build with
// resolve from the repository's devDependencies (the tests run offline).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WORK = join(ROOT, 'build', 'examples');

export const run = (cmd, args, cwd, env = {}) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });

/** `npm pack` of the repository (its prepack builds the WASM module): the tarball's path. */
export function packTarball(into) {
  mkdirSync(into, { recursive: true });
  for (const f of readdirSync(into)) if (f.endsWith('.tgz')) rmSync(join(into, f));
  run('npm', ['pack', '--silent', '--pack-destination', into], ROOT);
  return join(into, readdirSync(into).find((f) => f.endsWith('.tgz')));
}

/**
 * A fresh project in WORK/<name> with the tarball installed: a copy of
 * `source` (a folder of examples/, or a package.json object). Its
 * devDependencies (the bundlers) are left out: they resolve from the repository.
 */
export function installProject(name, tarball, source) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let manifest = source;
  if (typeof source === 'string') {
    cpSync(source, dir, { recursive: true, filter: (p) => !/node_modules|dist$/.test(p) });
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  }
  const { devDependencies, dependencies, ...rest } = manifest;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(rest, null, 2));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', tarball], dir);
  return dir;
}

/**
 * The C++ library built and installed as the README tells a user to (a plain Release build, without this
 * repository's tuning for its CPU or its tests): { prefix, warnings } with the compiler's warning lines.
 * The build is incremental unless `fresh` (then every file is compiled, so that `warnings` covers them all).
 */
export function installCppLibrary({ fresh = false } = {}) {
  const build = join(WORK, 'portable-build');
  const prefix = join(WORK, 'prefix');
  rmSync(prefix, { recursive: true, force: true });
  if (fresh) rmSync(build, { recursive: true, force: true });
  run('cmake', ['-S', ROOT, '-B', build, '-DCMAKE_BUILD_TYPE=Release', '-DATTN_BUILD_TESTS=OFF'], ROOT);
  const made = spawnSync('cmake', ['--build', build, '-j', String(availableParallelism())], { cwd: ROOT, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`cmake --build failed:\n${made.stdout}${made.stderr}`);
  run('cmake', ['--install', build, '--prefix', prefix], ROOT);
  return { prefix, warnings: `${made.stdout}${made.stderr}`.split('\n').filter((l) => /warning:/.test(l)) };
}

/** Configures, builds and returns the build folder of a CMake project that uses the installed library. */
export function buildCppProject(name, sourceDir, prefix) {
  const build = join(WORK, name);
  rmSync(build, { recursive: true, force: true });
  run('cmake', ['-S', sourceDir, '-B', build, `-DCMAKE_PREFIX_PATH=${prefix}`, '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_EXPORT_COMPILE_COMMANDS=ON'], ROOT);
  run('cmake', ['--build', build], ROOT);
  return build;
}
