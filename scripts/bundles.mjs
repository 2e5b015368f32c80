/**
 * The long-running programs as single bundled files in dist/ (esbuild, packages left external),
 * so that they run on plain node. Why: run from source through tsx, the idle cloud spends about
 * 0.65% of a core in tsx's loader thread and esbuild service (bench:idle: 0.86% from source,
 * 0.20% bundled, on empty tables), and a locker board pays the same for the agent.
 *
 * Plain JavaScript: it must run before anything TypeScript can.
 * Each bundle has a manifest (build.json) holding a digest of every file that went into it, so a
 * launcher can tell a fresh bundle from a stale one by content, whatever the files' times say
 * after a copy or a checkout.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The programs `npm run cloud` and `npm run agent` start. */
export const PROGRAMS = {
  cloud: 'cloud/main.ts',
  agent: 'locker-agent/main.ts',
};

/** Where a source file's bundle goes: dist/ mirrors the source tree (cloud/main.ts → dist/cloud/main.js). */
export function bundlePaths(entry, root = ROOT) {
  const js = path.join(root, 'dist', entry.replace(/\.ts$/, '.js'));
  return { js, manifest: js.replace(/\.js$/, '.build.json') };
}

const digest = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/**
 * 'fresh', 'missing', or 'stale: <the first input that changed>' for the bundle of `entry`.
 * A changed import graph shows as a changed importing file, so the inputs listed are enough.
 */
export function freshness(entry, root = ROOT) {
  const { js, manifest } = bundlePaths(entry, root);
  let recorded;
  try {
    recorded = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    fs.accessSync(js);
  } catch {
    return 'missing';
  }
  for (const [file, sum] of Object.entries(recorded.inputs ?? {})) {
    let now;
    try {
      now = digest(path.join(root, file));
    } catch {
      now = undefined;
    }
    if (now !== sum) return `stale: ${file} changed`;
  }
  return recorded.inputs ? 'fresh' : 'missing';
}

/**
 * Bundles `entry` (with its source map) into dist/. Each file is written beside its final name
 * and renamed into place, so a process starting meanwhile (or a second build at once) reads a
 * whole bundle, never half of one.
 */
export async function build(entry, root = ROOT) {
  const esbuild = await import('esbuild');
  const { js, manifest } = bundlePaths(entry, root);
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [entry],
      outfile: js,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: true,
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const inputs = {};
    for (const file of Object.keys(result.metafile.inputs).sort()) inputs[file] = digest(path.join(root, file));
    const files = [
      ...result.outputFiles.map((f) => ({ path: f.path, contents: f.contents })),
      {
        path: manifest,
        contents: `${JSON.stringify({ entry, builtAt: new Date().toISOString(), inputs }, null, 1)}\n`,
      },
    ];
    fs.mkdirSync(path.dirname(js), { recursive: true });
    for (const f of files) {
      const tmp = `${f.path}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, f.contents);
      fs.renameSync(tmp, f.path);
    }
    return { js, inputs: Object.keys(inputs).length };
  } finally {
    // esbuild keeps a service process until told: a launcher must not carry it while it runs.
    await esbuild.stop();
  }
}
