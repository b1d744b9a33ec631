// The API reference: TypeDoc's pages for web/lib/index.d.ts, written into the
// built site under api/ and held to the site's rules: the same
// Content-Security-Policy, no inline script, nothing fetched from another host.
// Called by vite.config.js when the site is built.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

import { Application, LogLevel } from 'typedoc';

const ROOT = new URL('../', import.meta.url).pathname;

/** Runs TypeDoc into `out`; throws on any TypeDoc warning or error. */
async function typedoc(out) {
  const app = await Application.bootstrapWithPlugins({
    entryPoints: [join(ROOT, 'web/lib/index.d.ts')],
    tsconfig: join(ROOT, 'tsconfig.json'),
    name: 'attention-step-by-step API',
    readme: 'none',
    disableSources: true, // pages link to no source host
    excludeExternals: true,
    logLevel: LogLevel.Warn,
    treatWarningsAsErrors: true,
  });
  const project = await app.convert();
  if (!project) throw new Error('api-reference: TypeDoc could not read web/lib/index.d.ts');
  await app.generateDocs(project, out);
}

/**
 * TypeDoc puts one inline script on every page (it restores the reader's theme
 * before the page shows). Under a policy without 'unsafe-inline' it would be
 * refused, so it moves to assets/theme.js and each page loads that file in its place.
 */
function holdToSitePolicy(out, csp) {
  const inline = /<script>([^<]*)<\/script>/;
  let themeScript = null;
  const pages = readdirSync(out, { recursive: true }).filter((f) => f.endsWith('.html'));
  for (const page of pages) {
    const path = join(out, page);
    const assets = relative(dirname(path), join(out, 'assets')).split(sep).join('/');
    let html = readFileSync(path, 'utf8');
    const match = html.match(inline);
    if (match) {
      themeScript ??= match[1];
      if (match[1] !== themeScript) throw new Error(`api-reference: ${page} has an inline script unlike the others`);
      html = html.replace(inline, `<script src="${assets}/theme.js"></script>`);
    }
    if (inline.test(html)) throw new Error(`api-reference: ${page} has more than one inline script`);
    // The site's icon: without one, every page of the reference asked the server for /favicon.ico (a 404).
    const icon = relative(dirname(path), join(out, '..', 'favicon.svg')).split(sep).join('/');
    html = html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${csp}"/>` +
      `<link rel="icon" type="image/svg+xml" href="${icon}"/>`);
    writeFileSync(path, html);
  }
  if (themeScript) writeFileSync(join(out, 'assets', 'theme.js'), `${themeScript}\n`);
  return pages.length;
}

/** Writes the reference into `out` (dist/api) under `csp`; returns the number of pages. */
export async function buildApiReference(out, csp) {
  await typedoc(out);
  return holdToSitePolicy(out, csp);
}
