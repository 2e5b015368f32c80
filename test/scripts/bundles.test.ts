/**
 * The launcher of `npm run cloud` and `npm run agent` (scripts/run-built.mjs) and the bundles it
 * runs (scripts/bundles.mjs), on a small stand-in program in a temporary copy of the layout, so
 * the tests can change sources and take write access away without touching the project's dist/.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, bundlePaths, freshness } from '../../scripts/bundles.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A root like the project's (an ES module package) with the two scripts, node_modules, and a cloud/main.ts that says where it runs from and with what arguments. */
function standIn(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-bundles-'));
  fs.chmodSync(root, 0o755);
  fs.writeFileSync(path.join(root, 'package.json'), '{ "type": "module" }\n');
  fs.mkdirSync(path.join(root, 'scripts'));
  for (const f of ['run-built.mjs', 'bundles.mjs'])
    fs.copyFileSync(path.join(ROOT, 'scripts', f), path.join(root, 'scripts', f));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  fs.mkdirSync(path.join(root, 'cloud'));
  fs.writeFileSync(path.join(root, 'cloud/greeting.ts'), "export const greeting: string = 'first';\n");
  fs.writeFileSync(
    path.join(root, 'cloud/main.ts'),
    "import { greeting } from './greeting.ts';\n" +
      'console.log(JSON.stringify({ from: import.meta.url, argv: process.argv.slice(2), greeting }));\n' +
      'process.exitCode = 3;\n',
  );
  return root;
}

/**
 * The packages the launcher itself loads (esbuild, tsx) and theirs, copied into `root`'s own
 * node_modules: a program run as another user (below) may not reach the project's folder.
 */
function ownModules(root: string): void {
  fs.rmSync(path.join(root, 'node_modules'));
  const copied = new Set<string>();
  const copy = (name: string) => {
    const from = path.join(ROOT, 'node_modules', name);
    if (copied.has(name) || !fs.existsSync(from)) return;
    copied.add(name);
    fs.cpSync(from, path.join(root, 'node_modules', name), { recursive: true, dereference: true });
    const pkg = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) copy(dep);
  };
  copy('esbuild');
  copy('tsx');
}

function launch(root: string, args: string[], uid?: number) {
  return new Promise<{ code: number | null; out: any; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts/run-built.mjs'), ...args], {
      cwd: root,
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      resolve({ code, out: line ? JSON.parse(line) : undefined, stderr });
    });
  });
}

describe('program bundles (scripts/bundles.mjs)', () => {
  it('a bundle is fresh until one of its inputs changes, whatever the file times say', async () => {
    const root = standIn();
    assert.equal(freshness('cloud/main.ts', root), 'missing');
    const { js, inputs } = await build('cloud/main.ts', root);
    assert.equal(js, bundlePaths('cloud/main.ts', root).js);
    assert.equal(inputs, 2);
    assert.equal(freshness('cloud/main.ts', root), 'fresh');
    // Touching a file (a copy, a checkout) changes nothing; changing its content does.
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'cloud/greeting.ts'), later, later);
    assert.equal(freshness('cloud/main.ts', root), 'fresh');
    fs.writeFileSync(path.join(root, 'cloud/greeting.ts'), "export const greeting: string = 'second';\n");
    assert.equal(freshness('cloud/main.ts', root), 'stale: cloud/greeting.ts changed');
    fs.rmSync(path.join(root, 'cloud/greeting.ts'));
    assert.equal(freshness('cloud/main.ts', root), 'stale: cloud/greeting.ts changed');
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('the launcher (scripts/run-built.mjs)', () => {
  it('builds a missing or stale bundle and runs it in its own process, with the arguments and exit code the program gives', async () => {
    const root = standIn();
    const first = await launch(root, ['cloud', '--flag', 'value']);
    assert.equal(first.code, 3, first.stderr);
    assert.ok(first.out.from.endsWith('/dist/cloud/main.js'), first.out.from);
    assert.deepEqual(first.out.argv, ['--flag', 'value']);
    assert.equal(first.out.greeting, 'first');
    fs.writeFileSync(path.join(root, 'cloud/greeting.ts'), "export const greeting: string = 'second';\n");
    const second = await launch(root, ['cloud']);
    assert.equal(second.out.greeting, 'second', 'a changed source is rebuilt before it runs');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('runs from source, with a warning naming the fix, when the stale bundle cannot be rebuilt', async () => {
    const root = standIn();
    await build('cloud/main.ts', root);
    fs.writeFileSync(path.join(root, 'cloud/greeting.ts'), "export const greeting: string = 'second';\n");
    // dist/ read-only for whoever runs the program: root ignores modes, so as root the program runs as nobody.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) ownModules(root);
    else fs.chmodSync(path.join(root, 'dist/cloud'), 0o555);
    const run = await launch(root, ['cloud'], asRoot ? 65534 : undefined);
    fs.chmodSync(path.join(root, 'dist/cloud'), 0o755);
    assert.equal(run.code, 3, run.stderr);
    assert.ok(run.out.from.endsWith('/cloud/main.ts'), run.out.from);
    assert.equal(run.out.greeting, 'second', 'the source, not the stale bundle, ran');
    assert.match(run.stderr, /the cloud bundle is stale: cloud\/greeting\.ts changed/);
    assert.match(run.stderr, /Run `npm run build` as the owner of/);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('refuses an unknown program with its usage', async () => {
    const run = await launch(ROOT, ['nonsense']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /usage: node scripts\/run-built\.mjs <cloud\|agent>/);
  });
});
