/**
 * A private Mosquitto configured with docs/mosquitto/acl, passwords added as lockers are made.
 *
 * Started as root, mosquitto reads its files as the `mosquitto` user: a clone inside a folder
 * only its owner may enter (as `mktemp -d` makes) has an ACL that user cannot reach. So every
 * file the broker reads is copied into a folder of its own that the `mosquitto` user may read.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import { until } from '../sync/harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const DOCUMENTED_ACL = path.join(ROOT, 'docs/mosquitto/acl');

export const mosquittoInstalled = () =>
  ['mosquitto', 'mosquitto_passwd'].every((bin) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0);

export function reachable(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(500);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

export interface PrivateMosquitto {
  url: string;
  cloudPassword: string;
  /** the folder holding every file the broker reads */
  dir: string;
  /** adds a locker's agent password and makes mosquitto read its files again */
  allow(user: string, password: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startMosquitto(options: { aclFile?: string } = {}): Promise<PrivateMosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-mosq-'));
  fs.chmodSync(dir, 0o755); // readable by the mosquitto user, which the broker becomes
  const acl = path.join(dir, 'acl');
  fs.copyFileSync(options.aclFile ?? DOCUMENTED_ACL, acl);
  fs.chmodSync(acl, 0o644);
  const passwd = path.join(dir, 'passwd');
  const cloudPassword = 'cloud-secret-for-tests';
  const add = (user: string, password: string) => {
    const r = spawnSync('mosquitto_passwd', ['-b', ...(fs.existsSync(passwd) ? [] : ['-c']), passwd, user, password]);
    assert.equal(r.status, 0, String(r.stderr));
    fs.chmodSync(passwd, 0o644);
  };
  add('plk-cloud', cloudPassword);
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(
    conf,
    `${[`listener ${port} 127.0.0.1`, 'allow_anonymous false', `password_file ${passwd}`, `acl_file ${acl}`, 'use_username_as_clientid true', 'persistence false'].join('\n')}\n`,
  );
  fs.chmodSync(conf, 0o644);
  let output = '';
  const proc: ChildProcess = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (d) => (output += d));
  proc.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  try {
    await until('mosquitto listening', async () => {
      if (proc.exitCode !== null) throw new Error(`mosquitto exited (${proc.exitCode}): ${output.trim()}`);
      return (await reachable(port)) ? true : undefined;
    });
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    cloudPassword,
    dir,
    async allow(user, password) {
      add(user, password);
      proc.kill('SIGHUP');
      await until(`${user} accepted`, async () => {
        const c = await mqtt
          .connectAsync(`mqtt://127.0.0.1:${port}`, { username: user, password, reconnectPeriod: 0 })
          .catch(() => undefined);
        await c?.endAsync();
        return c ? true : undefined;
      });
    },
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
