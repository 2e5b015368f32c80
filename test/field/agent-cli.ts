/** Runs `npm run agent -- <args>` as the technician does (node + tsx, as package.json's script). */
import { spawn } from 'node:child_process';

export interface CliResult {
    code: number | null;
    stdout: string;
    stderr: string;
}

const GUARD_MS = 60_000;

export function runAgentCli(args: string[], options: { onStdout?: (text: string, child: { stdin: NodeJS.WritableStream }) => void; env?: Record<string, string> } = {}): Promise<CliResult> {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'locker-agent/main.ts', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
        let stdout = '';
        let stderr = '';
        const guard = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`agent ${args[0]} did not finish: ${stdout}\n${stderr}`));
        }, GUARD_MS);
        child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            options.onStdout?.(stdout, child);
        });
        child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
        child.on('exit', (code) => {
            clearTimeout(guard);
            resolve({ code, stdout, stderr });
        });
    });
}
