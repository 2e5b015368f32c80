/**
 * Health reports are written in batches. Every locker sends one every 15 minutes, so a fleet of
 * 10,000 sends eleven a second, and written one by one each was a commit of its own (an fsync
 * on SQLite): most of what an idle cloud did. A report that changes nothing urgent (every board
 * answers) waits up to `flushMs` and is written with the others in one transaction; a report
 * of a silent board is written at once, with its alarm. Waiting costs nothing that matters: the
 * report is the locker's last health, replaced by the next, and the broker keeps it retained,
 * so a crash before the flush loses it only until the locker's next report or reconnection.
 */
import type { HealthMessage } from '../../shared/mqtt/index.ts';
import type { Db } from '../storage/database.ts';
import type { Logger } from '../logger.ts';
import { recordHealth } from './field-reports.ts';

/** Reports held at most before a flush, whatever the time. */
const MAX_HELD = 500;

export class HealthWrites {
  /** the newest report of each locker not written yet, in arrival order */
  private held = new Map<string, { msg: HealthMessage; at: Date }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { db: Db; logger: Logger },
    private readonly flushMs = 2_000,
  ) {}

  async record(lockerId: string, msg: HealthMessage, at: Date): Promise<void> {
    if (msg.boards.some((b) => !b.online)) {
      // Written now; an older report of this locker still held must not overwrite it later.
      this.held.delete(lockerId);
      await this.flushing;
      await recordHealth(this.deps.db, this.deps.logger, lockerId, msg, at);
      return;
    }
    this.held.delete(lockerId);
    this.held.set(lockerId, { msg, at });
    if (this.held.size >= MAX_HELD) await this.flush();
    else this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.flushMs);
  }

  /** Writes what is held, in one transaction. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.held;
    this.held = new Map();
    if (batch.size === 0) return this.flushing;
    const { db, logger } = this.deps;
    const write = this.flushing.then(() =>
      db.transaction().execute(async (tx) => {
        for (const [lockerId, { msg, at }] of batch) await recordHealth(tx, logger, lockerId, msg, at);
      }),
    );
    this.flushing = write.catch((err) => logger.error('health reports not written', { reports: batch.size, err }));
    return this.flushing;
  }
}
