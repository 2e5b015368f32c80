/**
 * Issue 23: how many rows the claim loop holds follows what its sends use. Fast sends: claims
 * grow towards `maxHeld`, so claims and settles (each a commit) carry many rows. Sends that
 * hang: claims stay at twice `concurrency`, so what is claimed beyond the sends and handed back
 * stays small. A loop over rows in memory, without a database: the rule, not the storage.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClaimLoop, claimLoopBounds, type Claimed } from '../../cloud/events/claim-loop.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { systemClock } from '../../shared/clock.ts';
import type { Db } from '../../cloud/storage/database.ts';

interface Row {
  id: string;
}

/** Rows in memory; each send waits `sendMs` (0: at once); records each claim's limit and size. */
class MemoryLoop extends ClaimLoop<Row, Row, string> {
  readonly claims: { limit: number; got: number }[] = [];
  readonly settled: string[] = [];
  readonly released: string[] = [];
  private next = 0;
  private readonly free: string[] = [];

  constructor(
    private readonly total: number,
    private readonly sendMs: number,
    concurrency = 16,
  ) {
    const { perOrigin, maxHeld } = claimLoopBounds(concurrency);
    super({
      concurrency,
      perOrigin,
      maxHeld,
      pollMs: 20,
      timeoutMs: 5_000,
      clock: systemClock,
      logger: silentLogger,
      what: 'test',
    });
  }

  get maxHeld() {
    return this.loop.maxHeld;
  }

  async claim(limit: number, busy: readonly string[] = []): Promise<Row[]> {
    // Every row goes to the one receiver: while it is slow, a claim leaves all of them out.
    const rows: Row[] = [];
    if (!busy.includes('receiver')) {
      while (rows.length < limit && this.free.length) rows.push({ id: this.free.shift()! });
      while (rows.length < limit && this.next < this.total) rows.push({ id: String(this.next++) });
    }
    this.claims.push({ limit, got: rows.length });
    return rows;
  }
  protected transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return work(undefined as unknown as Db);
  }
  protected async prepare(rows: Row[]): Promise<Claimed<Row>[]> {
    const until = Date.now() + 60_000;
    return rows.map((r) => ({ id: r.id, item: r, origin: 'http://receiver', key: 'receiver', claimedUntil: until }));
  }
  protected async deliver({ id }: Claimed<Row>): Promise<string> {
    if (this.sendMs) await new Promise((r) => setTimeout(r, this.sendMs));
    return id;
  }
  protected async settle(outcomes: string[]): Promise<void> {
    this.settled.push(...outcomes);
  }
  protected async release(ids: string[]): Promise<void> {
    this.released.push(...ids);
    this.free.push(...ids);
  }
}

const until = async (done: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('claim loop: rows held follow the sends', () => {
  it('fast sends: claims grow from twice the concurrency towards maxHeld, and every row is settled once', async () => {
    const loop = new MemoryLoop(20_000, 0);
    loop.start();
    await until(() => loop.settled.length === 20_000, 60_000);
    await loop.stop();
    assert.equal(new Set(loop.settled).size, 20_000, 'each row settled once');
    assert.equal(loop.claims[0]!.limit, 32, 'the first claim: twice the concurrency');
    const largest = Math.max(...loop.claims.map((c) => c.limit));
    assert.ok(largest > 32, `claims grew (largest ${largest})`);
    assert.ok(largest <= loop.maxHeld, `never beyond maxHeld (largest ${largest} of ${loop.maxHeld})`);
    assert.ok(loop.claims.length < 20_000 / 32, `${loop.claims.length} claims for 20,000 rows`);
  });

  it('sends that hang: claims stay at twice the concurrency, so what goes back unsent stays small', async () => {
    // One receiver, 8 sends to it at once, each taking 1.5 s: slow after 1 s (the loop's mark).
    const loop = new MemoryLoop(1_000, 1_500);
    loop.start();
    await until(() => loop.settled.length >= 16, 10_000);
    await loop.stop();
    const sizes = loop.claims.map((c) => c.limit);
    assert.ok(
      sizes.every((n) => n <= 32),
      `claims ${sizes.join(',')}`,
    );
  });
});
