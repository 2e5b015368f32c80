/**
 * Large lists read in batches. A list the spec lets a caller ask for whole (every locker, a page
 * of 100,000 orders) is read LIST_BATCH rows at a time, each batch with its nested objects, and
 * written out before the next is read (cloud/http/stream-json.ts): memory and the time any one
 * step holds the event loop stay those of one batch, whatever the size of the answer.
 *
 * Rows are not a snapshot: a batch shows its rows as they were when it was read. Keyset reads
 * (each batch starts after the last row of the one before) never show a row twice or skip one
 * that stays in place, as offset batches would when rows are added in front.
 */

/** Rows per batch: one batch of the largest list item (an order with every nested object) stringifies in a few ms. */
export const LIST_BATCH = 500;

export interface BatchRead<R> {
  /** the last row of the previous batch (undefined for the first: start at `offset`) */
  after?: R;
  offset: number;
  limit: number;
}

export interface Batch<R> {
  rows: R[];
  /** whether rows follow this batch */
  more: boolean;
}

export interface Window {
  offset: number;
  limit: number;
}

/**
 * The rows of an ordered query in batches of `size`, within `window` when one is given. `read`
 * returns at most `limit` rows of its query: starting at `offset` (the first batch) or after
 * `after` (every later one; then `offset` is 0). Each read asks for one row more than it
 * keeps, so a short answer ends the list without another statement: a list of one batch costs
 * one statement, as a plain read would.
 *
 * The first read starts at once (it overlaps with the caller's other reads); `first` is its
 * result, for callers that decide something from it (a total) before iterating. Every later
 * read waits for the next turn of the event loop. Iterate once.
 */
export class KeysetBatches<R> implements AsyncIterable<R[]> {
  readonly first: Promise<Batch<R>>;
  private remaining: number;

  constructor(
    private readonly read: (b: BatchRead<R>) => Promise<R[]>,
    window?: Window,
    private readonly size = LIST_BATCH,
  ) {
    this.remaining = window?.limit ?? Infinity;
    this.first = this.next(undefined, window?.offset ?? 0);
    // Awaited by the iterator; a list that is never iterated (an error elsewhere) must not leave an unhandled rejection.
    this.first.catch(() => {});
  }

  private async next(after: R | undefined, offset: number): Promise<Batch<R>> {
    const want = Math.min(this.size, this.remaining);
    // The last batch of a window needs no look-ahead row: nothing follows it.
    const lookAhead = want < this.remaining ? 1 : 0;
    const rows = await this.read({ after, offset, limit: want + lookAhead });
    const more = lookAhead === 1 && rows.length > want;
    if (more) rows.length = want;
    this.remaining -= rows.length;
    return { rows, more };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<R[]> {
    let batch = await this.first;
    for (;;) {
      if (batch.rows.length) yield batch.rows;
      if (!batch.more) return;
      await nextTurn();
      batch = await this.next(batch.rows[batch.rows.length - 1], 0);
    }
  }
}

/** An array already in memory (ids in distance order, say), in batches of `size`. */
export async function* arrayBatches<T>(items: readonly T[], size = LIST_BATCH): AsyncGenerator<T[]> {
  for (let i = 0; i < items.length; i += size) {
    if (i) await nextTurn();
    yield items.slice(i, i + size);
  }
}

/**
 * Lets the event loop run once. better-sqlite3 answers synchronously, so a list read batch after
 * batch would otherwise be one long task: each batch after the first is read in a turn of its own.
 */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Each batch of `source` through `f` (which loads and presents the batch's nested objects). */
export async function* mapBatches<A, B>(
  source: AsyncIterable<A[]>,
  f: (rows: A[]) => Promise<B[]> | B[],
): AsyncGenerator<B[]> {
  for await (const rows of source) yield await f(rows);
}

/** Everything `Map.groupBy` would give, in the order of `xs` (Node 20 has no Map.groupBy). */
export function groupBy<T, K>(xs: Iterable<T>, key: (x: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = m.get(k);
    if (list) list.push(x);
    else m.set(k, [x]);
  }
  return m;
}

/** Every row of a batched list in one array: for lists whose size the caller bounds. */
export async function collectBatches<T>(source: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const rows of source) for (const row of rows) all.push(row);
  return all;
}
