/**
 * A private Mosquitto for a benchmark: the documented ACL (docs/mosquitto/acl), a password file
 * for the cloud and every seeded locker, persistence off. Lockers seeded by sync-seed.ts share
 * one password, so its hash is made once by mosquitto_passwd and written for each of them.
 * Started as root, mosquitto reads its files as the `mosquitto` user: they live in a folder
 * of their own that it may read.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './processes.ts';
import { sleep } from './sync-timing.ts';

export const mosquittoInstalled = () =>
  ['mosquitto', 'mosquitto_passwd'].every((bin) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0);

export interface BenchMosquitto {
  url: string;
  pid: number;
  cloudUser: string;
  cloudPassword: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

export async function startMosquitto(lockers: Array<{ id: string; password: string }>): Promise<BenchMosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-bench-mosq-'));
  fs.chmodSync(dir, 0o755);
  const hashes = new Map<string, string>();
  const hashOf = (password: string) => {
    let hash = hashes.get(password);
    if (!hash) {
      const scratch = path.join(dir, 'scratch');
      const r = spawnSync('mosquitto_passwd', ['-b', '-c', scratch, 'x', password]);
      if (r.status !== 0) throw new Error(`mosquitto_passwd failed: ${r.stderr}`);
      hash = fs.readFileSync(scratch, 'utf8').trim().slice('x:'.length);
      fs.rmSync(scratch);
      hashes.set(password, hash);
    }
    return hash;
  };
  const cloudUser = 'plk-cloud';
  const cloudPassword = 'bench-cloud-secret';
  const passwd = path.join(dir, 'passwd');
  fs.writeFileSync(
    passwd,
    `${[`${cloudUser}:${hashOf(cloudPassword)}`, ...lockers.map((l) => `${l.id}:${hashOf(l.password)}`)].join('\n')}\n`,
  );
  const acl = path.join(dir, 'acl');
  fs.copyFileSync(path.join(ROOT, 'docs/mosquitto/acl'), acl);
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(
    conf,
    `${[
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `password_file ${passwd}`,
      `acl_file ${acl}`,
      'use_username_as_clientid true',
      // As docs/mosquitto/mosquitto.conf: the cloud's subscription takes every locker's burst.
      'max_queued_messages 100000',
      'max_inflight_messages 100',
      'persistence false',
      'log_type error',
    ].join('\n')}\n`,
  );
  for (const f of [passwd, acl, conf]) fs.chmodSync(f, 0o644);
  let output = '';
  const proc = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`mosquitto exited (${proc.exitCode}): ${output.trim()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (i > 100) throw new Error(`mosquitto did not listen: ${output.trim()}`);
    await sleep(100);
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    pid: proc.pid!,
    cloudUser,
    cloudPassword,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
