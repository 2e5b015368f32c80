/**
 * An operator command: a name of one or more words (`company create`, `seed-demo`), flags
 * validated by a zod schema (values arrive as strings, like a query string), and a run
 * function that returns what to print. `--json` prints the result as JSON.
 */
import type { z } from 'zod';
import type { Db, DialectName } from '../storage/database.ts';
import type { Clock } from '../../shared/clock.ts';
import type { UnitOfWork } from '../services/unit-of-work.ts';

export interface OperatorContext {
  db: Db;
  /** order changes run in it, so a running cloud (any process) hears of them after the commit */
  uow: UnitOfWork;
  dialect: DialectName;
  clock: Clock;
  /** progress lines for long work; they go to stderr so `--json` output stays parseable */
  progress(line: string): void;
}

export interface Command<S extends z.ZodType = z.ZodType> {
  name: string;
  summary: string;
  /** one line per flag, shown by `help <command>` */
  usage?: string[];
  flags: S;
  run(ctx: OperatorContext, flags: z.output<S>): Promise<CommandResult>;
}

export interface CommandResult {
  /** machine-readable result (printed with --json) */
  json: unknown;
  /** human-readable lines (printed without --json); defaults to pretty JSON */
  text?: string;
}

export const defineCommand = <S extends z.ZodType>(c: Command<S>): Command => c as unknown as Command;

/**
 * Runs a change that ends credentials (a key deleted, a company or user switched off) in one
 * unit of work that says so: every running cloud forgets its cached credentials after the commit.
 */
export function revoking<T>(ctx: OperatorContext, change: (db: Db) => Promise<T>): Promise<T> {
  return ctx.uow.run(async (tx) => {
    const out = await change(tx.db);
    tx.after.credentialsRevoked();
    return out;
  });
}

/** An error whose message is for the operator as it is (bad input, missing record). */
export class OperatorError extends Error {}

/** A record the command was asked about is not in the database (the CLI names the database). */
export class MissingRecord extends OperatorError {}
