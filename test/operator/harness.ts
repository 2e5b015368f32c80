/** Runs operator commands in-process on a test storage, one storage per describe block. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { runOperator, type RunResult } from '../../cloud/operator/cli.ts';
import type { Storage } from '../../cloud/storage/database.ts';
import { openTestStorage, type TestDialect } from '../helpers/storage.ts';

type TestStorage = Storage & { destroy(): Promise<void> };

export interface Operator {
  storage(): TestStorage;
  /** the raw result, for exit codes and messages */
  run(...argv: string[]): Promise<RunResult>;
  /** runs with --json, asserts success and returns the parsed output */
  json(...argv: string[]): Promise<any>;
  /** runs, asserts the exit code, returns stderr */
  fails(code: 1 | 2, ...argv: string[]): Promise<string>;
}

/** Call inside a describe: opens the storage before its tests and destroys it after. */
export function useOperator(dialect: TestDialect): Operator {
  let storage: TestStorage;
  before(async () => {
    storage = await openTestStorage(dialect);
  });
  after(async () => {
    await storage.destroy();
  });
  const run = (...argv: string[]) => runOperator(argv, {}, storage);
  return {
    storage: () => storage,
    run,
    async json(...argv) {
      const r = await run(...argv, '--json');
      assert.equal(r.code, 0, `${argv.join(' ')} failed: ${r.stderr}`);
      return JSON.parse(r.stdout);
    },
    async fails(code, ...argv) {
      const r = await run(...argv);
      assert.equal(
        r.code,
        code,
        `${argv.join(' ')}: expected exit ${code}, got ${r.code}; stdout ${r.stdout} stderr ${r.stderr}`,
      );
      assert.equal(r.stdout, '');
      return r.stderr;
    },
  };
}
