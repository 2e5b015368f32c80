/** Runs `npm run agent -- <args>` as the technician does (node + tsx, as package.json's script). */
import { spawn } from 'node:child_process';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const GUARD_MS = 60_000;

export function runAgentCli(
  args: string[],
  options: { onStderr?: (line: string) => void; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'locker-agent/main.ts', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agent ${args[0]} did not finish: ${stdout}\n${stderr}`));
    }, GUARD_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    let partial = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onStderr?.(line);
    });
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}
