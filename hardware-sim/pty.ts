import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A pair of linked pseudo-terminals: bytes written to one end come out of the other. */
export interface PtyPair {
  /** The end the agent opens, as it would open /dev/ttyUSB0. */
  agentPath: string;
  /** The end the simulator opens. */
  simPath: string;
  close(): Promise<void>;
}

/**
 * Starts `socat pty,raw,echo=0,link=A pty,raw,echo=0,link=B` and waits for both links.
 * raw/echo=0 matter: a cooked tty would translate the 0x03 ETX byte into an interrupt.
 */
export async function createPtyPair(dir: string, name: string): Promise<PtyPair> {
  const agentPath = join(dir, `${name}-agent`);
  const simPath = join(dir, `${name}-sim`);
  const proc: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${agentPath}`, `pty,raw,echo=0,link=${simPath}`], {
    stdio: 'ignore',
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => proc.once('exit', () => ((exited = true), resolve())));
  for (let i = 0; i < 200 && !(existsSync(agentPath) && existsSync(simPath)); i++) {
    if (exited) throw new Error('socat exited before creating the pseudo-terminals (is socat installed?)');
    await new Promise((r) => setTimeout(r, 10));
  }
  if (!existsSync(agentPath) || !existsSync(simPath)) {
    proc.kill('SIGKILL');
    throw new Error(`socat did not create ${agentPath} and ${simPath}`);
  }
  return {
    agentPath,
    simPath,
    async close() {
      if (!exited) proc.kill('SIGTERM');
      await exit;
    },
  };
}
