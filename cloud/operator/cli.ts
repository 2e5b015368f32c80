/**
 * `npm run operator -- <command> [--flag value …] [--json]` on DATABASE_URL.
 * `npm run operator -- help` lists the commands.
 */
import path from 'node:path';
import type { z } from 'zod';
import { isPostgresUrl, openStorage, redactUrl, sqlitePathFromUrl, type Storage } from '../storage/database.ts';
import { systemClock } from '../../shared/clock.ts';
import { createUnitOfWork } from '../consequences.ts';
import { DomainError } from '../domain/errors.ts';
import { MissingRecord, OperatorError, type Command } from './command.ts';
import { ALL_COMMANDS } from './commands/index.ts';
import { parseCommandLine } from './argv.ts';

export function findCommand(
  words: string[],
  commands: Command[] = ALL_COMMANDS,
): { command?: Command; rest: string[] } {
  for (let n = Math.min(3, words.length); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: words.slice(n) };
  }
  return { rest: words };
}

export function helpText(commands: Command[] = ALL_COMMANDS): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: npm run operator -- <command> [--flag value …] [--json]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'npm run operator -- help <command>   shows the flags of one command',
    'Flags: --name value or --name=value; a bare --name means true. Money in major units (150, 99.90).',
    '--json prints JSON. Exit codes: 0 done, 1 refused (unknown id, rule), 2 bad command line.',
    `DATABASE_URL picks the database (default ${DEFAULT_DATABASE_URL}); errors about a missing record name it. More: docs/operator.md`,
  ].join('\n');
}

function commandHelp(c: Command): string {
  return [
    `npm run operator -- ${c.name} [flags] [--json]`,
    `  ${c.summary}`,
    ...(c.usage ?? []).map((u) => `  ${u}`),
  ].join('\n');
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one command line; used by the CLI entry and by tests (no process.exit inside). */
export async function runOperator(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  storage?: Storage,
): Promise<RunResult> {
  const { words, flags: allFlags, error } = parseCommandLine(argv);
  const { json, help, ...flags } = allFlags;
  if (words.length === 0 || words[0] === 'help' || help !== undefined) {
    const { command } = findCommand(words[0] === 'help' ? words.slice(1) : words);
    return { code: 0, stdout: `${command ? commandHelp(command) : helpText()}\n`, stderr: '' };
  }
  const { command, rest } = findCommand(words);
  if (!command)
    return { code: 2, stdout: '', stderr: `error: unknown command "${words.join(' ')}"\n\n${helpText()}\n` };
  if (rest.length)
    return {
      code: 2,
      stdout: '',
      stderr: `error: unexpected argument "${rest[0]}" (flags are written --name value)\n`,
    };
  if (error) return { code: 2, stdout: '', stderr: `error: ${error}\n` };

  const checked = command.flags.safeParse(flags);
  if (!checked.success) {
    const lines = checked.error.issues.flatMap((i) => describeIssue(i, flags, command.name));
    return {
      code: 2,
      stdout: '',
      stderr: `error: invalid flags for "${command.name}":\n${lines.join('\n')}\n\n${commandHelp(command)}\n`,
    };
  }

  let stderr = '';
  const own = !storage;
  const url = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const db = storage ?? (await openStorage(url));
  const where = own ? databaseNamed(url, !env.DATABASE_URL) : db.describe;
  try {
    const result = await command.run(
      {
        db: db.db,
        uow: createUnitOfWork(db.db, db.changes),
        dialect: db.dialect,
        clock: systemClock,
        progress: (line) => {
          stderr += `${line}\n`;
          if (own) process.stderr.write(`${line}\n`);
        },
      },
      checked.data,
    );
    const asJson = json !== undefined && json !== 'false';
    const stdout = asJson
      ? JSON.stringify(result.json, null, 2)
      : (result.text ?? JSON.stringify(result.json, null, 2));
    return { code: 0, stdout: `${stdout}\n`, stderr: own ? '' : stderr };
  } catch (err) {
    if (err instanceof OperatorError || err instanceof DomainError) {
      // "no order X" from the wrong database reads like a lost order: say which database was asked.
      const message = isMissingRecord(err) ? `${err.message} in ${where}` : err.message;
      return { code: 1, stdout: '', stderr: `${stderr}error: ${message}\n` };
    }
    throw err;
  } finally {
    if (own) await db.close();
  }
}

const DEFAULT_DATABASE_URL = './data/cloud.db';

const isMissingRecord = (err: Error) =>
  err instanceof MissingRecord || (err instanceof DomainError && err.code.endsWith('NOT_FOUND'));

/** The database a command ran on, as an operator can tell it apart from another (no password). */
export function databaseNamed(url: string, defaulted: boolean): string {
  const name = isPostgresUrl(url) ? redactUrl(url) : `sqlite:${path.resolve(sqlitePathFromUrl(url))}`;
  return defaulted ? `${name} (DATABASE_URL is not set: the default ${DEFAULT_DATABASE_URL})` : name;
}

/** One line per problem, naming the flag: unknown flags, missing ones, bad values. */
function describeIssue(issue: z.core.$ZodIssue, given: Record<string, string>, commandName: string): string[] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => `  --${k} is not a flag of "${commandName}"`);
  const flag = issue.path.length ? String(issue.path[0]) : undefined;
  if (!flag) return [`  ${issue.message}`];
  if (issue.code === 'invalid_type' && given[flag] === undefined) return [`  --${flag} is required`];
  return [`  --${flag} ${issue.message}`];
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/cloud\//, '/cloud/'));
if (isMain) {
  runOperator(process.argv.slice(2))
    .then((r) => {
      process.stdout.write(r.stdout);
      process.stderr.write(r.stderr);
      process.exitCode = r.code;
    })
    .catch((err) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : err}\n`);
      process.exitCode = 1;
    });
}
