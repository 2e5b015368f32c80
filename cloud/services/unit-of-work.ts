/**
 * One unit of work per operation: the operation's rows, and the rows its consequences need
 * (a locker's sync change, outbox events), commit in one transaction; the wake-ups those
 * consequences call for (publish to the locker now, send the events now, forget revoked
 * credentials) run only after the commit, here and in every other process.
 *
 * Operations declare consequences through `After`; what records them is a port
 * (`ChangeRecorders`) implemented by sync/ and events/ and handed in by the process that
 * assembles the cloud, so operations never import sync/ or events/.
 */
import type { Db } from '../storage/database.ts';
import type { ChangeSummary } from '../storage/change-feed.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import { isUniqueViolation } from '../storage/sql-errors.ts';
import type { LiveSubscription } from '../storage/webhook-event-queries.ts';
import type { OrderAudience } from '../storage/order-audience.ts';

/** Writes, inside the caller's transaction, what a change means beyond its own rows. */
export interface ChangeRecorders {
  /** the order's locker must learn of it (storage/locker-sync-queries.ts) */
  lockerChange(tx: Db, postomatId: string, orderId: string): Promise<unknown>;
  /** the outbound events of a status change (events/record.ts); returns how many rows */
  orderEvents(tx: Db, order: LockerOrderTable, to: string, at: Date, audience: OrderAudience): Promise<number>;
  /** an integrator event beside a status change (webhooks/record.ts: order.created, order.cancelled…); returns how many deliveries */
  integratorEvent?(tx: Db, order: LockerOrderTable, type: string, at: Date, known?: KnownAudience): Promise<number>;
}

/** What the operation has read already of who hears of its event (spares the recorder a read). */
export interface KnownAudience {
  /** the order's Locker API company's live webhook subscriptions */
  lockerSubscriptions?: readonly LiveSubscription[];
}

/** Where wake-ups go: storage/change-feed.ts, or nothing (a process nobody needs to hear). */
export interface ChangeSignals {
  beforeCommit(tx: Db, change: ChangeSummary): Promise<void>;
  afterCommit(change: ChangeSummary): void;
}

export interface After {
  /** the order changed in a way its locker's agent must know (codes, payment, status, locker) */
  lockerChanged(postomatId: string, orderId: string): Promise<void>;
  /** an order's status changed: its company notification, webhooks and SMS, if any */
  orderStatusChanged(order: LockerOrderTable, to: string, at: Date, audience: OrderAudience): Promise<void>;
  /** something integrators subscribe to happened that is no status change (created, cancelled, extended) */
  orderEvent(order: LockerOrderTable, type: string, at: Date, known?: KnownAudience): Promise<void>;
  /** webhook deliveries were queued outside an order change (a replay) */
  deliveriesQueued(): void;
  /** a staff command for this locker was queued */
  commandQueued(postomatId: string): void;
  /** a credential stopped being valid */
  credentialsRevoked(): void;
}

/** A transaction and the consequences declared in it. */
export interface Tx {
  db: Db;
  after: After;
}

export interface RunOptions {
  /**
   * Runs the work again (up to this many times in all) when a unique index refused a value it
   * drew (codes, track codes) because a concurrent transaction drew it too: on PostgreSQL the
   * refused statement spoils the transaction, so only a whole rerun recovers.
   */
  redrawAttempts?: number;
}

const silent: ChangeSignals = { beforeCommit: async () => {}, afterCommit: () => {} };

export class UnitOfWork {
  constructor(
    readonly db: Db,
    private readonly recorders: ChangeRecorders,
    private readonly signals: ChangeSignals = silent,
  ) {}

  async run<T>(work: (tx: Tx) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const attempts = options.redrawAttempts ?? 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(work);
      } catch (err) {
        if (isUniqueViolation(err) && attempt < attempts) continue;
        throw err;
      }
    }
  }

  private async once<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const pending = new PendingChange();
    // Inside a caller's transaction (the demo seed writes a dataset in one): the wake-ups are
    // queued in it too, and this process's own listeners hear them from the slow poll.
    if (this.db.isTransaction) {
      const out = await work({ db: this.db, after: pending.after(this.db, this.recorders) });
      if (!pending.empty) await this.signals.beforeCommit(this.db, pending.summary());
      return out;
    }
    const out = await this.db.transaction().execute(async (trx) => {
      const result = await work({ db: trx, after: pending.after(trx, this.recorders) });
      if (!pending.empty) await this.signals.beforeCommit(trx, pending.summary());
      return result;
    });
    if (!pending.empty) this.signals.afterCommit(pending.summary());
    return out;
  }
}

class PendingChange {
  private readonly lockers = new Set<string>();
  private outbox = false;
  private credentials = false;
  private commands = false;

  get empty(): boolean {
    return this.lockers.size === 0 && !this.outbox && !this.credentials;
  }

  summary(): ChangeSummary {
    return { lockers: [...this.lockers], outbox: this.outbox, credentials: this.credentials, commands: this.commands };
  }

  after(tx: Db, recorders: ChangeRecorders): After {
    return {
      lockerChanged: async (postomatId, orderId) => {
        await recorders.lockerChange(tx, postomatId, orderId);
        this.lockers.add(postomatId);
      },
      orderStatusChanged: async (order, to, at, audience) => {
        if ((await recorders.orderEvents(tx, order, to, at, audience)) > 0) this.outbox = true;
      },
      orderEvent: async (order, type, at, known) => {
        if (recorders.integratorEvent && (await recorders.integratorEvent(tx, order, type, at, known)) > 0)
          this.outbox = true;
      },
      deliveriesQueued: () => void (this.outbox = true),
      commandQueued: (postomatId) => {
        this.lockers.add(postomatId);
        this.commands = true;
      },
      credentialsRevoked: () => void (this.credentials = true),
    };
  }
}
