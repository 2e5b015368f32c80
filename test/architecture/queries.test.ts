/**
 * Queries live in storage (issue 24): a query builder call or a raw `sql` template in any file of
 * cloud/ or shared/ outside cloud/storage/ fails here. The API families, the sandbox's routes and
 * the HTTP plumbing validate, call an operation and present; the services, the locker link
 * (sync/), the outbound events and the webhooks keep the rules and the transactions. The locker order aggregate (`locker_order`, its
 * `order_code` and `order_status` rows) is queried only by the storage modules listed in
 * ORDER_MODULES: a file elsewhere that names one of these tables fails here, and so does a
 * listed module that no longer names them, so the list stays true. Like layers.test.ts, it reads
 * the source, comments left out.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The one folder whose files run queries. Everything else (routes, middleware, presenters, the
 * services, which keep the rules and the transactions, the parts that talk to the world, the
 * metrics, the operator CLI and its demo seeds) calls a storage module for every row.
 */
const STORAGE = 'cloud/storage/';

/** The modules that may name the order's tables; a folder (ending in /) covers its files. */
const ORDER_MODULES = new Map<string, string>([
  ['cloud/storage/schema.ts', 'the tables as Kysely sees them'],
  ['cloud/storage/migrations/', 'the tables created and changed (frozen, run once)'],
  ['cloud/storage/order-queries.ts', "the Locker API's reads: pages, one order, codes, nested objects"],
  ['cloud/storage/order-lookups.ts', 'one order or a few by id, for operations, the locker link and the senders'],
  ['cloud/storage/order-writes.ts', 'inserts and (conditional) updates of orders and their codes'],
  ['cloud/storage/orders-due.ts', 'the batches of orders the expiry jobs act on'],
  ['cloud/storage/locker-held-orders.ts', 'the orders as a locker holds them, for sync messages'],
  ['cloud/storage/cell-occupancy.ts', 'cells holding a parcel, sizes promised to pending orders'],
  ['cloud/storage/staff-order-list.ts', "the operator's order list"],
  // Pure table maintenance: pruning a locker's sync changes reads, in the same statement as the
  // change rows it may delete, whether each change's order is still held by the locker. It
  // writes no order row.
  ['cloud/storage/retention-queries.ts', 'sync changes of orders a locker no longer holds, pruned'],
]);

const QUERY_CALL = /\b(?:selectFrom|insertInto|updateTable|deleteFrom)\b|\bsql(?:<[^`]*?>)?`/;
const ORDER_TABLE = /\b(?:locker_order|order_code|order_status)\b/;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
}

/** The code of a file without its comments (a `//` after a colon is a URL, not a comment). */
function codeOf(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** `file:line: text` of every line of the file's code that matches. */
function matches(file: string, pattern: RegExp): string[] {
  return codeOf(file)
    .split('\n')
    .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

const allowed = (file: string) =>
  [...ORDER_MODULES.keys()].some((m) => (m.endsWith('/') ? file.startsWith(m) : file === m));

describe('queries live in storage', () => {
  const files = [...sources('cloud'), ...sources('shared')];

  it('finds the sources', () => {
    assert.ok(files.length > 150, `${files.length} files found`);
    assert.ok(
      files.some((f) => f.startsWith(STORAGE) && matches(f, QUERY_CALL).length),
      'the storage modules found, with their queries',
    );
  });

  it('no file outside cloud/storage calls the query builder or writes a sql template', () => {
    const found = files.filter((f) => !f.startsWith(STORAGE)).flatMap((f) => matches(f, QUERY_CALL));
    assert.deepEqual(found, [], 'move these queries into a cloud/storage module and call it');
  });

  it('only the locker order modules name locker_order, order_code or order_status', () => {
    const found = files.filter((f) => !allowed(f)).flatMap((f) => matches(f, ORDER_TABLE));
    assert.deepEqual(found, [], 'query the locker order through a cloud/storage order module (ORDER_MODULES)');
  });

  it('every listed order module exists and names the tables', () => {
    const stale = [...ORDER_MODULES.keys()].filter((m) =>
      m.endsWith('/')
        ? !files.some((f) => f.startsWith(m) && matches(f, ORDER_TABLE).length)
        : !existsSync(path.join(ROOT, m)) || !matches(m, ORDER_TABLE).length,
    );
    assert.deepEqual(stale, [], 'gone: remove them from ORDER_MODULES');
  });
});
