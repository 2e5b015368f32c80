/**
 * What committed changes mean for the rest of the system, told to this process's listeners
 * right after the commit and to every other process on the database through its
 * notifications (notifications.ts). Listeners only wake things up (the sync publisher, the
 * event dispatcher, credential caches): what to do is always read back from the database,
 * so a lost or duplicated wake-up costs a little latency, never correctness; the slow polls
 * behind them are the safety net.
 */
import crypto from 'node:crypto';
import type { Db } from './db-types.ts';
import { MAX_NOTIFICATION_BYTES, type NotificationTransport } from './notifications.ts';

export interface ChangeSummary {
  /** lockers whose agents must learn something (orders changed, a staff command queued); 'all' when unknown */
  lockers: string[] | 'all';
  /** outbox rows were written */
  outbox: boolean;
  /** a credential was revoked (an API key deleted, a user switched off) */
  credentials: boolean;
  /**
   * a staff command was queued (its locker is in `lockers`): the publisher looks for commands
   * to send only then and at its poll, not after every order change
   */
  commands: boolean;
}

export type ChangeListener = (change: ChangeSummary) => void;

/** Anything may have changed: what a commit seen without details, or a reconnection, means. */
export const EVERYTHING: ChangeSummary = Object.freeze({
  lockers: 'all',
  outbox: true,
  credentials: true,
  commands: true,
}) as ChangeSummary;

const MAX_LOCKER_IDS = 200;

export class ChangeFeed {
  /** tells our own messages apart when they come back through LISTEN */
  private readonly origin = crypto.randomBytes(6).toString('base64url');
  private readonly listeners = new Set<ChangeListener>();
  private listening = false;

  private onError: (err: Error) => void = () => {};

  constructor(private readonly transport: NotificationTransport | undefined) {}

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts hearing other processes (only processes that act on wake-ups need to); once is enough. */
  async listen(onError: (err: Error) => void): Promise<void> {
    this.onError = onError;
    if (this.listening || !this.transport) return;
    await this.transport.listen(
      (message) => this.received(message),
      (err) => this.onError(err),
    );
    this.listening = true;
  }

  /** Inside the transaction: the message leaves only if it commits. */
  async beforeCommit(tx: Db, change: ChangeSummary): Promise<void> {
    if (this.transport) await this.transport.send(tx, encode(this.origin, change));
  }

  /** After the commit: this process's listeners, at once. */
  afterCommit(change: ChangeSummary): void {
    this.emit(change);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.transport?.close();
    this.listening = false;
  }

  private received(message: string | undefined): void {
    if (message === undefined) {
      this.emit(EVERYTHING);
      return;
    }
    const decoded = decodeWith(this.origin, message);
    if (decoded === 'ours') return;
    this.emit(decoded === undefined ? EVERYTHING : decoded);
  }

  private emit(change: ChangeSummary): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.onError(err as Error);
      }
    }
  }
}

function encode(origin: string, c: ChangeSummary): string {
  const lockers = c.lockers === 'all' || c.lockers.length > MAX_LOCKER_IDS ? 'all' : c.lockers;
  const flags = { e: c.outbox ? 1 : 0, k: c.credentials ? 1 : 0, c: c.commands ? 1 : 0 };
  const text = JSON.stringify({ o: origin, l: lockers, ...flags });
  return Buffer.byteLength(text) <= MAX_NOTIFICATION_BYTES ? text : JSON.stringify({ o: origin, l: 'all', ...flags });
}

/** 'ours' for a message this feed sent; undefined for one it cannot read (treated as "everything"). */
function decodeWith(origin: string, message: string): ChangeSummary | 'ours' | undefined {
  try {
    const m = JSON.parse(message) as { o?: unknown; l?: unknown; e?: unknown; k?: unknown; c?: unknown };
    if (m.o === origin) return 'ours';
    const lockers = Array.isArray(m.l)
      ? m.l.filter((x): x is string => typeof x === 'string').slice(0, MAX_LOCKER_IDS)
      : 'all';
    // A process from before the commands flag sends none: its change may have queued one.
    return { lockers, outbox: m.e === 1, credentials: m.k === 1, commands: m.c !== 0 };
  } catch {
    return undefined;
  }
}
