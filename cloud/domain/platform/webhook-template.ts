/**
 * Webhook rules of the spec: a payloadTemplate is JSON text with the placeholders
 * `{{postomatOrderId}}` (inside a string) and `{{status}}` (a bare number); after
 * substitution it must be valid JSON, and no other placeholder may appear. The subtype is kept
 * only for PARCEL, CARGO and NOTIFICATION; the two locker subtypes always have a template (the
 * default one when none is given).
 */
import { DomainError } from '../errors.ts';
import type { WebhookSubtype, WebhookType } from './enums.ts';

/** The spec's default template. */
export const DEFAULT_TEMPLATE = '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}}}';

export function renderTemplate(template: string, postomatOrderId: string, status: number): string {
  // The id is a cuid2 (letters and digits), so it needs no escaping inside a JSON string.
  return template.replaceAll('{{postomatOrderId}}', postomatOrderId).replaceAll('{{status}}', String(status));
}

export const TYPES_WITH_SUBTYPE: readonly WebhookType[] = ['PARCEL', 'CARGO', 'NOTIFICATION'];
export const SUBTYPES_WITH_TEMPLATE: readonly WebhookSubtype[] = ['DELIVERED_TO_POSTOMAT', 'TRANSFERRED_TO_CLIENT'];
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const KNOWN = new Set(['postomatOrderId', 'status']);
/** A locker order id as it will be substituted: letters and digits (cuid2). */
const SAMPLE_ORDER_ID = 'c0000000000000000000000000';

export function checkTemplate(template: string): void {
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (!KNOWN.has(m[1])) throw new DomainError('WEBHOOK_PAYLOAD_INVALID', `unknown placeholder {{${m[1]}}}`);
  }
  try {
    JSON.parse(renderTemplate(template, SAMPLE_ORDER_ID, 0));
  } catch {
    throw new DomainError('WEBHOOK_PAYLOAD_INVALID', 'the template is not valid JSON after substitution');
  }
}

export interface WebhookShape {
  type: WebhookType;
  subtype: WebhookSubtype | null;
  payloadTemplate: string | null;
}

/** The webhook as it is stored: subtype dropped where the type has none, template checked or defaulted. */
export function normalizeWebhook(w: WebhookShape): WebhookShape {
  const subtype = TYPES_WITH_SUBTYPE.includes(w.type) ? w.subtype : null;
  let payloadTemplate = w.payloadTemplate;
  if (payloadTemplate === null && subtype !== null && SUBTYPES_WITH_TEMPLATE.includes(subtype))
    payloadTemplate = DEFAULT_TEMPLATE;
  if (payloadTemplate !== null) checkTemplate(payloadTemplate);
  return { type: w.type, subtype, payloadTemplate };
}
