/** Child processes for benchmarks: each prints one JSON line with its port when ready. */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Child {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts `node --import tsx <script>`; resolves on the first stdout line with a port, or a "cloud ready" log line. */
export function startChild(script: string, env: Record<string, string> = {}, args: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    proc.stdout!.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        try {
          const msg = JSON.parse(line);
          const url = msg.url ?? (msg.port ? `http://127.0.0.1:${msg.port}` : undefined);
          if (url) {
            proc.stdout!.removeAllListeners('data');
            proc.stdout!.resume();
            proc.removeAllListeners('exit');
            resolve({
              proc,
              url,
              stop: () => new Promise((r) => { proc.once('exit', () => r()); proc.kill('SIGTERM'); }),
            });
            return;
          }
        } catch { /* not a JSON line yet */ }
      }
    });
  });
}

/** Starts a child with tsx; resolves with the first stdout JSON line that `pick` accepts. */
export function startChildUntil<T>(script: string, env: Record<string, string>, pick: (msg: any) => T | undefined, nodeArgs: string[] = []): Promise<{ proc: ChildProcess; ready: T; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  // Never leave a child behind, whatever way this process ends.
  process.once('exit', () => proc.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    const lines = readline.createInterface({ input: proc.stdout! });
    lines.on('line', (line) => {
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      const ready = pick(msg);
      if (ready === undefined) return;
      lines.removeAllListeners('line');
      proc.stdout!.resume();
      proc.removeAllListeners('exit');
      resolve({ proc, ready, stop: () => new Promise((r) => (proc.once('exit', () => r()), proc.kill('SIGTERM'))) });
    });
  });
}
