import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/** The transactional outbox: one row per outbound event, doubling as its delivery log. */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('outbox_event')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('orderId', 'text')
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('secretHeader', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('claimedBy', 'text')
    .addColumn('claimedUntil', 'text')
    .addColumn('httpStatus', 'integer')
    .addColumn('error', 'text')
    .addColumn('latencyMs', 'integer')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('sentAt', 'text')
    .execute();
  await raw(
    db,
    'create index outbox_event_pending on outbox_event ("state", "createdAt") where "state" in (\'PENDING\', \'SENDING\')',
  );
  await raw(db, 'create index outbox_event_order on outbox_event ("orderId")');
  await raw(db, 'create index outbox_event_created on outbox_event ("createdAt")');
}
