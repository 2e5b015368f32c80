import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * The dispatcher's claim takes the oldest waiting rows: an index of the waiting rows in
 * creation order lets it read just those, where it read and sorted every waiting row for each
 * batch it claimed (a backlog of thousands cost more than the sends). SQLite chose the
 * retention index on (state, sentAt) for the claim's state test: that one becomes an index of
 * the finished rows only, by the time they were sent, which is all the pruner asks of it. The
 * queries name the states as literals, as here: neither database can tell that a bound
 * parameter meets a partial index's condition.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await raw(
    db,
    'create index outbox_event_due on outbox_event ("createdAt") where "state" in (\'PENDING\', \'SENDING\')',
  );
  await raw(db, 'drop index outbox_event_pending');
  await raw(
    db,
    "create index outbox_event_sent on outbox_event (\"sentAt\") where \"state\" in ('SENT', 'FAILED', 'SKIPPED')",
  );
  await raw(db, 'drop index outbox_event_finished');
}
