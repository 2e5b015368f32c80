import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../cloud/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('cloud configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 3000);
    assert.equal(c.DATABASE_URL, './data/cloud.db');
    assert.equal(c.MQTT_PORT, 1883);
    assert.equal(c.RATE_LIMIT_MAX, 600);
  });
  it('names every bad variable in one error', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', RATE_LIMIT_MAX: '-1', MQTT_URL: 'http://broker' }),
      (err: Error) =>
        err instanceof ConfigError &&
        /PORT/.test(err.message) &&
        /RATE_LIMIT_MAX/.test(err.message) &&
        /MQTT_URL/.test(err.message),
    );
  });
});

// `npm run cloud` as package.json spells it: the launcher runs the bundle (scripts/run-built.mjs).
const CLOUD_COMMAND = (): string[] => {
  const words: string[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.cloud.split(
    /\s+/,
  );
  assert.equal(words[0], 'node');
  return words.slice(1);
};

describe('npm run cloud (the process)', () => {
  it('refuses to start with a clear message on bad configuration', async () => {
    const { code, stderr } = await run(CLOUD_COMMAND(), { PORT: '99999' });
    assert.equal(code, 2);
    assert.match(stderr, /PORT must be 0-65535/);
  });

  it('logs one ready line, serves (the contract page and its script too), and exits cleanly on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-main-'));
    const child = spawn(process.execPath, CLOUD_COMMAND(), {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: path.join(dir, 'cloud.db'), MQTT_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const ready = await new Promise<any>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
      child.stdout.on('data', () => {
        const line = out.split('\n').find((l) => l.includes('"cloud ready"'));
        if (line) resolve(JSON.parse(line));
      });
    });
    assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${ready.url}/health`);
    assert.equal(health.status, 200);
    // The bundle finds what it loads from node_modules at run time (Redoc's script) from dist/.
    const page = await (await fetch(`${ready.url}/docs`)).text();
    const script = page.match(/<script src="([^"]+)"/)?.[1];
    assert.ok(script, page);
    const redoc = await fetch(new URL(script, ready.url));
    assert.equal(redoc.status, 200);
    assert.ok((await redoc.text()).length > 100_000);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
    assert.match(out, /"stopped"/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

function run(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '',
      stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
