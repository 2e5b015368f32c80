/** The delivery log as the operator reads it: no payloads, no API keys, phone numbers masked. */
import type { Db } from '../storage/database.ts';
import { outboxLog, type OutboxLogFilter } from '../storage/outbox-queries.ts';
import { EVENT_KINDS, type EventState } from '../storage/outbox-schema.ts';
import { maskPhone } from './sms.ts';

export const EVENT_STATES = [
  'PENDING',
  'SENDING',
  'SENT',
  'FAILED',
  'SKIPPED',
] as const satisfies readonly EventState[];

export type DeliveryLogFilter = OutboxLogFilter;

export async function deliveryLog(db: Db, f: DeliveryLogFilter) {
  const rows = await outboxLog(db, f);
  return rows.map((r) => ({ ...r, target: r.kind === 'SMS' ? maskPhone(r.target) : r.target }));
}

export { EVENT_KINDS };
