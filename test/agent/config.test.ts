import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DEFAULT_HEALTH_HEARTBEAT_MS, parseConfig } from '../../locker-agent/config.ts';

const valid = {
  lockerId: 'L1',
  serial: { device: '/dev/ttyUSB0' },
  boards: [0],
  cells: [{ cellId: 'A1', board: 0, lock: 1, size: 'S' }],
  keypad: { device: 'stdin' },
  dataDir: 'data',
};

describe('agent config', () => {
  it('fills the defaults: 19200 baud, timings, relative data folder', () => {
    const cfg = parseConfig(valid, '/srv/locker');
    assert.equal(cfg.serial.baudRate, 19200);
    assert.equal(cfg.timing.wrongCodeLimit, 5);
    assert.equal(cfg.dataDir, '/srv/locker/data');
    assert.equal(cfg.cloud, undefined);
  });

  it('names the field and the rule when a value is wrong', () => {
    assert.throws(
      () => parseConfig({ ...valid, cells: [{ cellId: 'A1', board: 0, lock: 17, size: 'S' }] }),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /cells\[0\]\.lock/);
        return true;
      },
    );
  });

  it('refuses a cell on a board that is not listed, and two cells on one lock', () => {
    const cells = [
      { cellId: 'A1', board: 0, lock: 1, size: 'S' },
      { cellId: 'A2', board: 0, lock: 1, size: 'M' },
      { cellId: 'B1', board: 2, lock: 1, size: 'M' },
    ];
    assert.throws(
      () => parseConfig({ ...valid, cells }),
      /board 0 lock 1 is used by two cells[\s\S]*board 2 is not listed/,
    );
  });

  it('reports a missing serial device', () => {
    assert.throws(() => parseConfig({ ...valid, serial: {} }), /serial\.device/);
  });

  it('refuses a misspelled key instead of silently using the default, together with the cell map problems', () => {
    const misspelled = {
      ...valid,
      serial: { device: '/dev/ttyUSB0', replyTimeoutMS: 100 },
      cells: [{ cellId: 'A1', board: 3, lock: 1, size: 'S' }],
    };
    assert.throws(
      () => parseConfig(misspelled),
      /Unrecognized key: "replyTimeoutMS"[\s\S]*at serial[\s\S]*board 3 is not listed/,
    );
    assert.throws(() => parseConfig({ ...valid, timing: { lockoutMS: 1 } }), /Unrecognized key: "lockoutMS"/);
  });
});

describe('npm run agent -- --check', () => {
  const agent = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'locker-agent/main.ts', ...args], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
    });

  it('the config says how often an unchanged report is sent again, never more often than the agent looks', () => {
    const base = { ...valid, cloud: { mqttUrl: 'mqtt://cloud:1883', username: 'L1', password: 'secret' } };
    assert.equal(parseConfig(base).cloud?.healthHeartbeatMs, DEFAULT_HEALTH_HEARTBEAT_MS);
    assert.throws(
      () => parseConfig({ ...base, cloud: { ...base.cloud, healthIntervalMs: 600_000, healthHeartbeatMs: 300_000 } }),
      /at least cloud\.healthIntervalMs \(600000\)[\s\S]*cloud\.healthHeartbeatMs/,
    );
  });
  it('validates the shipped example and says what it describes, without opening its devices (they do not exist here)', () => {
    const run = agent('--check', '--config', 'locker-agent/deploy/config.example.json');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /config OK: locker ckv7qz1xk0000locker0001/);
    assert.match(run.stdout, /8 cells: 3 S, 3 M, 1 L, 1 XL/);
    assert.doesNotMatch(run.stdout, /password|secret/i);
  });

  it('fails with the problems and no stack on a bad config, and with the usage on a bad option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-check-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...valid, serial: { device: '/dev/null', baudRate: '19200' } }));
    const bad = agent('--check', '--config', file);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /expected number, received string[\s\S]*serial\.baudRate/);
    assert.doesNotMatch(bad.stderr, / {4}at /, 'no stack trace');
    const option = agent('--bogus');
    assert.equal(option.status, 1);
    assert.match(option.stderr, /Unknown option '--bogus'[\s\S]*usage: npm run agent -- --config <file> \[--check\]/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('shipped example config', () => {
  it('is valid', async () => {
    const { loadConfig } = await import('../../locker-agent/config.ts');
    const cfg = loadConfig(new URL('../../locker-agent/deploy/config.example.json', import.meta.url).pathname);
    assert.equal(cfg.cells.length, 8);
    assert.deepEqual(cfg.boards, [0, 1]);
  });
});
