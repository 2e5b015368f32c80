/**
 * Enrolment on the locker: trade the operator's one-time code for the locker's identity, its
 * broker and credentials, and its cell map (shared/enrolment.ts), and write the agent's config
 * from them, owner-only. Nothing is written unless the cloud said yes and the config is valid.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ENROLMENT_PATH, EnrolmentResponse } from '../../shared/enrolment.ts';
import { writePrivateFile } from '../../shared/private-files.ts';
import { ConfigError, parseConfig, type AgentConfig } from '../config.ts';

export interface EnrolOptions {
  cloudUrl: string;
  /** as typed; the cloud normalises it too */
  code: string;
  configPath: string;
  device: string;
  keypad: string;
  dataDir: string;
  /** replace an existing config (a locker enrolled again) */
  force: boolean;
  timeoutMs: number;
}

/** An enrolment answer is a few KB even for 256 cells: anything far larger is not our cloud. */
const MAX_ANSWER_BYTES = 256 * 1024;

export class EnrolmentFailed extends ConfigError {}

export async function enrol(options: EnrolOptions, fetchImpl: typeof fetch = fetch): Promise<AgentConfig> {
  const configPath = resolve(options.configPath);
  if (existsSync(configPath) && !options.force) {
    throw new EnrolmentFailed(
      `${configPath} exists already: nothing was changed and the code is still valid (add --force to replace the config)`,
    );
  }
  const answer = await ask(options, fetchImpl);
  const raw = {
    lockerId: answer.lockerId,
    serial: { device: options.device },
    boards: [...new Set(answer.cells.map((c) => c.board))].sort((a, b) => a - b),
    cells: answer.cells,
    keypad: { device: options.keypad },
    dataDir: options.dataDir,
    cloud: { mqttUrl: answer.mqttUrl, username: answer.username, password: answer.password },
  };
  // Validated before anything is written: the same rules the agent starts with.
  const config = parseConfig(raw, dirname(configPath));
  writePrivateFile(configPath, `${JSON.stringify(raw, null, 2)}\n`);
  return config;
}

async function ask(options: EnrolOptions, fetchImpl: typeof fetch): Promise<EnrolmentResponse> {
  let url: URL;
  try {
    url = new URL(ENROLMENT_PATH, options.cloudUrl);
  } catch {
    throw new EnrolmentFailed(
      `--cloud ${JSON.stringify(options.cloudUrl)} is not a URL (e.g. https://lockers.example.com)`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new EnrolmentFailed('--cloud must be an http(s) URL');
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: options.code }),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const reason =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs / 1000} s`
        : String((err as { cause?: Error }).cause?.message ?? (err as Error).message);
    throw new EnrolmentFailed(`cannot reach the cloud at ${url.origin}: ${reason}; nothing was changed`);
  }
  const text = await boundedText(res);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new EnrolmentFailed(
      `the cloud at ${url.origin} answered ${res.status} without JSON: is --cloud the cloud's address?; nothing was changed`,
    );
  }
  if (!res.ok) {
    const message =
      typeof (body as { message?: unknown })?.message === 'string'
        ? (body as { message: string }).message.slice(0, 300)
        : `status ${res.status}`;
    throw new EnrolmentFailed(`enrolment refused: ${message}; nothing was changed`);
  }
  const parsed = EnrolmentResponse.safeParse(body);
  if (!parsed.success)
    throw new EnrolmentFailed(
      `the cloud's answer is not an enrolment (${parsed.error.issues[0]?.message}): nothing was changed`,
    );
  return parsed.data;
}

async function boundedText(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new EnrolmentFailed(`the cloud's answer is larger than ${MAX_ANSWER_BYTES} bytes: nothing was changed`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
