/**
 * Secrets scan: everything the cloud and the agents log during a suite is captured, and searched
 * for every secret the suite created (API keys, passwords, tokens, order codes, agent
 * passwords). Any hit fails, naming the secret's kind and the line, never the secret itself.
 *
 *   const logs = new LogCapture();
 *   startTestCloud(dialect, { logger: logs.logger('cloud') });   // the cloud, at debug level
 *   new SimLocker({ …, onAgentLog: logs.sink('agent A') });       // an agent, child or in-process
 *   logs.attach('cloud process', child.stdout);                    // a child process's output
 *   const secrets = new Secrets(); secrets.add('API key', key); …
 *   assertNoSecrets(logs, secrets);
 */
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { createLogger, type Logger } from '../../cloud/logger.ts';

export interface CapturedLine {
  source: string;
  text: string;
}

export class LogCapture {
  readonly lines: CapturedLine[] = [];

  /** A cloud logger that writes here, at debug level so that nothing is left out. */
  logger(source = 'cloud'): Logger {
    return createLogger({ level: 'debug', write: (text) => this.lines.push({ source, text }) });
  }

  /** A function that records one line per call (an agent's log, a display). */
  sink(source: string): (line: string) => void {
    return (text) => void this.lines.push({ source, text });
  }

  /** Records a stream line by line (a child process's stdout or stderr). */
  attach(source: string, stream: Readable | null | undefined): void {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop() ?? '';
      for (const text of parts) if (text) this.lines.push({ source, text });
    });
    stream?.on('end', () => {
      if (rest) this.lines.push({ source, text: rest });
    });
  }
}

interface Secret {
  kind: string;
  value: string;
}

/** What a suite created and must never see in a log. */
export class Secrets {
  readonly list: Secret[] = [];
  add(kind: string, value: string | null | undefined): this {
    if (value && !this.list.some((s) => s.value === value)) this.list.push({ kind, value });
    return this;
  }
}

export interface Hit {
  kind: string;
  source: string;
  /** the line with the secret replaced by its kind */
  line: string;
}

/**
 * Short digit codes (locker codes have four) are looked for as whole words inside strings, so
 * that a timestamp, a latency or a random id (`kzi1jj0rba9e4rcnn6434ai7` holds 6434) that
 * happens to contain the same digits is no hit; a JSON log line's `time` is left out for the same
 * reason. Longer secrets are looked for anywhere.
 */
export function findSecrets(lines: readonly CapturedLine[], secrets: Secrets): Hit[] {
  const hits: Hit[] = [];
  const short = secrets.list.filter((s) => /^\d{1,8}$/.test(s.value));
  const long = secrets.list.filter((s) => !short.includes(s));
  for (const { source, text } of lines) {
    const strings = stringsOf(text);
    for (const s of long) {
      if (text.includes(s.value) || strings.some((v) => v.includes(s.value)))
        hits.push({ kind: s.kind, source, line: text.replaceAll(s.value, `<${s.kind}>`) });
    }
    for (const s of short) {
      const whole = new RegExp(`(?<![0-9A-Za-z])${s.value}(?![0-9A-Za-z])`);
      if (strings.some((v) => whole.test(v)))
        hits.push({
          kind: s.kind,
          source,
          line: text.replace(new RegExp(`(?<![0-9A-Za-z])${s.value}(?![0-9A-Za-z])`, 'g'), `<${s.kind}>`),
        });
    }
  }
  return hits;
}

/** The string values of a JSON log line (without its `time`), or the plain line itself. */
function stringsOf(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [text];
  }
  if (parsed === null || typeof parsed !== 'object') return [text];
  const out: string[] = [];
  const walk = (v: unknown, key?: string) => {
    if (typeof v === 'string') {
      if (key !== 'time') out.push(v);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(k), walk(x, k);
  };
  walk(parsed);
  return out;
}

/**
 * Fails when any secret is in the captured logs. `minLines` guards against a vacuous pass: a
 * capture that missed its sources would find nothing.
 */
export function assertNoSecrets(
  capture: LogCapture,
  secrets: Secrets,
  options: { minLines?: number; sources?: string[] } = {},
): void {
  assert.ok(secrets.list.length > 0, 'the suite registered no secrets');
  assert.ok(capture.lines.length >= (options.minLines ?? 1), `only ${capture.lines.length} log lines captured`);
  for (const source of options.sources ?? [])
    assert.ok(
      capture.lines.some((l) => l.source === source),
      `nothing captured from ${source}`,
    );
  const hits = findSecrets(capture.lines, secrets);
  assert.deepEqual(
    hits.map((h) => `${h.kind} in ${h.source}: ${h.line.slice(0, 300)}`),
    [],
    'secrets in the logs',
  );
}
