/**
 * Webhooks of platform companies (webhook management), one per company per type + subtype.
 * Rows, and matching for outbound events, are in storage/platform-webhook-queries.ts.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import type { WebhookSubtype, WebhookType } from '../../domain/platform/enums.ts';
import { normalizeWebhook } from '../../domain/platform/webhook-template.ts';
import { isUniqueViolation } from '../../storage/sql-errors.ts';
import {
  deleteWebhookRow,
  findWebhook,
  findWebhookOfKind,
  insertWebhook,
  pageOfWebhooks,
  updateWebhookRow,
} from '../../storage/platform-webhook-queries.ts';
import { inTransaction } from './tx.ts';

export interface WebhookInput {
  type: WebhookType;
  subtype?: WebhookSubtype | null;
  url: string;
  payloadTemplate?: string | null;
  apiKey?: string | null;
}

async function checkFree(
  db: Db,
  companyId: number,
  type: WebhookType,
  subtype: WebhookSubtype | null,
  exceptId?: number,
) {
  if (await findWebhookOfKind(db, companyId, type, subtype, exceptId)) throw new DomainError('WEBHOOK_TYPE_EXIST');
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
      return insertWebhook(trx, {
        companyId,
        ...shape,
        url: input.url,
        apiKey: input.apiKey ?? null,
        method: 'POST',
        createdAt: at,
        updatedAt: at,
      });
    }),
  );
}

/** Another company's webhook is NOT_ACCEPTABLE (the spec's rule for objects of another company). */
async function ownWebhook(db: Db, companyId: number, id: number) {
  const row = await findWebhook(db, id);
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
      return updateWebhookRow(trx, id, {
        ...shape,
        url: changes.url ?? before.url,
        apiKey: changes.apiKey === undefined ? before.apiKey : changes.apiKey,
        updatedAt: now.toISOString(),
      });
    }),
  );
}

export function listWebhooks(db: Db, companyId: number, page?: { limit: number; offset: number }) {
  return pageOfWebhooks(db, companyId, page);
}

export async function deleteWebhook(db: Db, companyId: number, id: number) {
  await ownWebhook(db, companyId, id);
  await deleteWebhookRow(db, id);
}
