/**
 * The cloud as its own process (`npm run cloud`), so a suite can kill it with SIGKILL at any
 * moment and start it again on the same ports and database, as a crash and a restart by systemd
 * would. Everything it prints goes to the suite's log capture.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { LogCapture } from '../helpers/secrets-scan.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net
      .createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
  });
}

export class CloudProcess {
  private proc: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  starts = 0;
  kills = 0;

  private constructor(
    readonly url: string,
    readonly mqttUrl: string,
    private readonly env: Record<string, string>,
    private readonly logs: LogCapture,
  ) {}

  /** Ports are chosen once: agents and clients find the restarted cloud where they left it. */
  static async create(env: Record<string, string>, logs: LogCapture): Promise<CloudProcess> {
    const [port, mqttPort] = [await freePort(), await freePort()];
    return new CloudProcess(
      `http://127.0.0.1:${port}`,
      `mqtt://127.0.0.1:${mqttPort}`,
      { ...env, PORT: String(port), MQTT_PORT: String(mqttPort), HOST: '127.0.0.1' },
      logs,
    );
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Starts the process and waits for its "cloud ready" line. */
  async start(guardMs = 60_000): Promise<void> {
    const n = ++this.starts;
    const proc = spawn(process.execPath, ['--import', 'tsx', 'cloud/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    this.logs.attach(`cloud #${n}`, proc.stdout);
    this.logs.attach(`cloud #${n} stderr`, proc.stderr);
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const guard = setTimeout(
        () => reject(new Error(`cloud #${n} not ready within ${guardMs} ms:\n${out.slice(-2000)}`)),
        guardMs,
      );
      const done = (err?: Error) => (clearTimeout(guard), err ? reject(err) : resolve());
      proc.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('"cloud ready"')) done();
      });
      proc.stderr!.on('data', (d) => (out += d));
      proc.once('exit', (code, signal) =>
        done(new Error(`cloud #${n} exited during start (${code ?? signal}):\n${out.slice(-2000)}`)),
      );
    });
  }

  /** SIGKILL: no shutdown, no flush, whatever it was doing. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.kills++;
    this.proc!.kill('SIGKILL');
    await this.exited;
  }

  /** A graceful stop at the end of a suite. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.proc!.kill('SIGTERM');
    await this.exited;
  }
}
