/** The delivery log as the operator reads it: no payloads, no API keys, phone numbers masked. */
import type { Db } from '../storage/database.ts';
import { EVENT_KINDS, type EventKind, type EventState } from '../storage/outbox-schema.ts';
import { maskPhone } from './sms.ts';

export const EVENT_STATES = [
  'PENDING',
  'SENDING',
  'SENT',
  'FAILED',
  'SKIPPED',
] as const satisfies readonly EventState[];

export interface DeliveryLogFilter {
  orderId?: string;
  kind?: EventKind;
  state?: EventState;
  limit: number;
}

export async function deliveryLog(db: Db, f: DeliveryLogFilter) {
  let q = db
    .selectFrom('outbox_event')
    .select([
      'id',
      'kind',
      'event',
      'orderId',
      'target',
      'state',
      'httpStatus',
      'error',
      'latencyMs',
      'createdAt',
      'sentAt',
    ])
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(f.limit);
  if (f.orderId) q = q.where('orderId', '=', f.orderId);
  if (f.kind) q = q.where('kind', '=', f.kind);
  if (f.state) q = q.where('state', '=', f.state);
  const rows = await q.execute();
  return rows.map((r) => ({ ...r, target: r.kind === 'SMS' ? maskPhone(r.target) : r.target }));
}

export { EVENT_KINDS };
