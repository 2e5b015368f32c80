/**
 * Webhooks of platform companies (webhook management), one per company per type + subtype.
 * Matching for outbound events is in storage/platform-webhook-queries.ts.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import type { WebhookSubtype, WebhookType } from '../../domain/platform/enums.ts';
import { normalizeWebhook } from '../../domain/platform/webhook-template.ts';
import { isUniqueViolation } from '../../storage/sql-errors.ts';
import { inTransaction } from './tx.ts';

export interface WebhookInput {
  type: WebhookType;
  subtype?: WebhookSubtype | null;
  url: string;
  payloadTemplate?: string | null;
  apiKey?: string | null;
}

const COLUMNS = [
  'id',
  'type',
  'subtype',
  'url',
  'payloadTemplate',
  'apiKey',
  'method',
  'companyId',
  'createdAt',
  'updatedAt',
] as const;

async function checkFree(
  db: Db,
  companyId: number,
  type: WebhookType,
  subtype: WebhookSubtype | null,
  exceptId?: number,
) {
  let q = db.selectFrom('platform_webhook').select('id').where('companyId', '=', companyId).where('type', '=', type);
  q = subtype === null ? q.where('subtype', 'is', null) : q.where('subtype', '=', subtype);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  if (await q.executeTakeFirst()) throw new DomainError('WEBHOOK_TYPE_EXIST');
}

/** The unique index settles a race between two creations of one kind. */
async function uniquely<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError('WEBHOOK_TYPE_EXIST');
    throw err;
  }
}

export function createWebhook(db: Db, companyId: number, input: WebhookInput, now: Date) {
  const shape = normalizeWebhook({
    type: input.type,
    subtype: input.subtype ?? null,
    payloadTemplate: input.payloadTemplate ?? null,
  });
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      await checkFree(trx, companyId, shape.type, shape.subtype);
      const at = now.toISOString();
      return trx
        .insertInto('platform_webhook')
        .values({
          companyId,
          ...shape,
          url: input.url,
          apiKey: input.apiKey ?? null,
          method: 'POST',
          createdAt: at,
          updatedAt: at,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    }),
  );
}

/** Another company's webhook is NOT_ACCEPTABLE (the spec's rule for objects of another company). */
async function ownWebhook(db: Db, companyId: number, id: number) {
  const row = await db.selectFrom('platform_webhook').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  if (!row) throw new DomainError('NOT_FOUND');
  if (row.companyId !== companyId) throw new DomainError('NOT_ACCEPTABLE');
  return row;
}

/** Omitted fields keep their values; an explicit null clears subtype, template or apiKey. */
export function updateWebhook(db: Db, companyId: number, id: number, changes: Partial<WebhookInput>, now: Date) {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const before = await ownWebhook(trx, companyId, id);
      const shape = normalizeWebhook({
        type: changes.type ?? before.type,
        subtype: changes.subtype === undefined ? before.subtype : changes.subtype,
        payloadTemplate: changes.payloadTemplate === undefined ? before.payloadTemplate : changes.payloadTemplate,
      });
      await checkFree(trx, companyId, shape.type, shape.subtype, id);
      return trx
        .updateTable('platform_webhook')
        .set({
          ...shape,
          url: changes.url ?? before.url,
          apiKey: changes.apiKey === undefined ? before.apiKey : changes.apiKey,
          updatedAt: now.toISOString(),
        })
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    }),
  );
}

export async function listWebhooks(db: Db, companyId: number, page?: { limit: number; offset: number }) {
  const base = db.selectFrom('platform_webhook').where('companyId', '=', companyId);
  let q = base.select(COLUMNS).orderBy('id', 'desc');
  if (page) q = q.limit(page.limit).offset(page.offset);
  const [total, data] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q.execute(),
  ]);
  return { total: Number(total.n), data };
}

export async function deleteWebhook(db: Db, companyId: number, id: number) {
  await ownWebhook(db, companyId, id);
  await db.deleteFrom('platform_webhook').where('id', '=', id).execute();
}
