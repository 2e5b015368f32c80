/**
 * Group commit for SQLite's one write connection. Transactions that meet on the connection share
 * one outer transaction, each inside its own SAVEPOINT, and one COMMIT ends them all; the COMMIT
 * writes the log without waiting for the disk, and one flush (durable-flush.ts, off the event
 * loop) then carries every COMMIT made before it to the disk:
 * - a transaction's caller hears of its success only once its group's COMMIT is durable (its
 *   promise settles in releaseConnection, after the connection is free for the next one), so
 *   whatever it does after (answering, waking the publisher) still happens after the disk has it;
 * - the connection is free for the next group while the flush runs, and the groups committed
 *   meanwhile share the next flush;
 * - a transaction that fails rolls back to its savepoint and leaves the others' work alone;
 * - a write run outside a transaction while a group is open runs inside it, and is answered
 *   after the group is durable; a write with no group open commits alone and is answered after
 *   a flush too, so no write is reported before it is durable; a read is answered at once
 *   (waiting for the disk for every read would serialize requests behind each group);
 * - if the COMMIT fails, or SQLite gives up the outer transaction under a member (an I/O error),
 *   every member of the group fails: none of their work is in the database; if the flush fails,
 *   the members hear its error (their work is committed, its durability unknown).
 * The group is committed once nothing already waiting for the connection is left: a COMMIT queues
 * for the connection behind the transactions waiting at that moment, which join the group, and
 * those arriving after start the next one. A lone transaction waits for no one.
 */
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type TransactionSettings } from 'kysely';
import { TransactionAlreadyOpen } from './sqlite-busy.ts';
import { deferred } from './deferred.ts';

/** Settles once every commit made before the call is on the disk (durable-flush.ts). */
export type Durable = () => Promise<void>;

/** `dialect` with its driver's transactions committed in groups; `stats` counts the COMMITs. */
export function groupCommitting(dialect: Dialect, durable: Durable): { dialect: Dialect; stats: CommitStats } {
  const stats: CommitStats = { commits: 0, transactions: 0 };
  return {
    stats,
    dialect: {
      createAdapter: () => dialect.createAdapter(),
      createDriver: () => new GroupCommitDriver(dialect.createDriver(), stats, durable),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    },
  };
}

const MEMBER_SAVEPOINT = 'plk_group_member';

/** A statement that cannot write: a built select, or raw SQL that starts as one. Anything else counts as a write. */
function isRead(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  return kind === 'SelectQueryNode' || (kind === 'RawNode' && /^\s*(select|explain)\b/i.test(query.sql));
}

interface Group {
  /** settles when the group's COMMIT is durable, or fails with it */
  done: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
  commitQueued: boolean;
  failed: boolean;
}

function newGroup(): Group {
  const { promise: done, resolve, reject } = deferred();
  // A group nobody waits for (every member failed alone) must not raise an unhandled rejection.
  done.catch(() => undefined);
  return { done, resolve, reject, commitQueued: false, failed: false };
}

/** What one use of the connection (one transaction, or one statement outside any) belongs to. */
interface Use {
  /** the connection underneath */
  connection: DatabaseConnection;
  /** the group its work is in, if any */
  group: Group | undefined;
  savepoint: string | undefined;
  /** false for a transaction that failed alone: it does not wait for the group's COMMIT */
  waits: boolean;
  /** a write committed alone (no group open): answered after a flush */
  wroteAlone: boolean;
}

export interface CommitStats {
  /** COMMITs run */
  commits: number;
  /** transactions committed in them */
  transactions: number;
  /** flushes of the log to the disk (durable-flush.ts), each covering the COMMITs before it */
  flushes?: number;
  /** checkpoints run off the event loop (checkpointer.ts) */
  checkpoints?: number;
}

export class GroupCommitDriver implements Driver {
  private group: Group | undefined;
  private membersOfOpenGroup = 0;
  /** each use gets its own handle, so its state survives the connection being lent meanwhile (sqlite-busy.ts) */
  private readonly uses = new WeakMap<DatabaseConnection, Use>();
  private readonly committing = new Set<Promise<void>>();
  constructor(
    private readonly inner: Driver,
    private readonly stats: CommitStats,
    private readonly durable: Durable,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    const use: Use = { connection, group: undefined, savepoint: undefined, waits: true, wroteAlone: false };
    const handle: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery) => {
        const result = await connection.executeQuery<R>(query);
        // A write that ran while a group was open is in that group's transaction, and is
        // answered after its COMMIT. A read outside any transaction is answered at once: it may
        // see the group's work before the COMMIT, which only a failing disk would then undo.
        if (!isRead(query)) {
          use.group ??= this.group;
          if (!use.group) use.wroteAlone = true;
        }
        return result;
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
    this.uses.set(handle, use);
    return handle;
  }

  async beginTransaction(handle: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const use = this.uses.get(handle)!;
    if (!this.group) {
      try {
        await this.inner.beginTransaction(use.connection, settings);
        this.group = newGroup();
        this.membersOfOpenGroup = 0;
      } catch (err) {
        // While this BEGIN waited for another process's lock, a transaction it lent the
        // connection to opened a group: this one joins it.
        if (!(err instanceof TransactionAlreadyOpen) || !this.group) throw err;
      }
    }
    use.group = this.group;
    // One name for every member: members follow one another on the connection, never nested, and
    // a name that changed with each transaction made a new statement to prepare for each one.
    const name = MEMBER_SAVEPOINT;
    await use.connection.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
    use.savepoint = name;
  }

  async commitTransaction(handle: DatabaseConnection): Promise<void> {
    const use = this.uses.get(handle)!;
    await use.connection.executeQuery(CompiledQuery.raw(`release savepoint ${use.savepoint}`));
    use.savepoint = undefined;
    this.membersOfOpenGroup++;
  }

  async rollbackTransaction(handle: DatabaseConnection): Promise<void> {
    const use = this.uses.get(handle)!;
    const name = use.savepoint;
    use.savepoint = undefined;
    // Its failure is its own: it does not wait for (or share the fate of) the group's COMMIT.
    use.waits = false;
    if (name === undefined) return;
    try {
      await use.connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`));
      await use.connection.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
    } catch (err) {
      // SQLite gave up the outer transaction (an I/O error, a full disk): the group is lost.
      if (use.group) await this.abandon(use.connection, use.group, err);
    }
  }

  async releaseConnection(handle: DatabaseConnection): Promise<void> {
    const use = this.uses.get(handle)!;
    this.uses.delete(handle);
    const group = use.group;
    // Every group gets its COMMIT, even one whose members all failed: the write lock is given back.
    if (group && !group.commitQueued && !group.failed) {
      group.commitQueued = true;
      const committing = this.commitWhenFree(group).catch((err) => group.reject(err));
      this.committing.add(committing);
      void committing.finally(() => this.committing.delete(committing));
    }
    await this.inner.releaseConnection(use.connection);
    if (group && use.waits) await group.done;
    else if (use.wroteAlone) await this.durable();
  }

  /** Queues for the connection behind whoever waits for it now, commits the group, waits for the disk. */
  private async commitWhenFree(group: Group): Promise<void> {
    await new Promise((r) => setImmediate(r));
    const connection = await this.inner.acquireConnection();
    try {
      if (group.failed || this.group !== group) return;
      this.group = undefined;
      try {
        await this.inner.commitTransaction(connection);
      } catch (err) {
        await this.abandon(connection, group, err);
        return;
      }
      this.stats.commits++;
      this.stats.transactions += this.membersOfOpenGroup;
    } finally {
      await this.inner.releaseConnection(connection);
    }
    // The connection serves the next group while the disk catches up.
    await this.durable();
    group.resolve();
  }

  /** The group is lost: its transaction rolled back, every member told. */
  private async abandon(connection: DatabaseConnection, group: Group, err: unknown): Promise<void> {
    group.failed = true;
    if (this.group === group) this.group = undefined;
    await this.inner.rollbackTransaction(connection).catch(() => undefined);
    group.reject(err);
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) => this.inner.savepoint!(connection, name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) =>
    this.inner.rollbackToSavepoint!(connection, name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) =>
    this.inner.releaseSavepoint!(connection, name, compile);

  /** Closing waits for the COMMITs already queued, so no group is left half-done. */
  async destroy(): Promise<void> {
    await Promise.all(this.committing);
    await this.inner.destroy();
  }
}
