/**
 * A webhook's body from its payloadTemplate (domain/platform/webhook-template.ts). The
 * delivered body always has exactly the two fields `postomatOrderId` (string) and `status`
 * (number), in the template's order.
 */
import { DEFAULT_TEMPLATE, renderTemplate } from '../domain/platform/webhook-template.ts';

export function webhookBody(template: string | null, postomatOrderId: string, status: number): string {
  let parsed: Record<string, unknown> = {};
  try {
    const value = JSON.parse(renderTemplate(template ?? DEFAULT_TEMPLATE, postomatOrderId, status));
    if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value;
  } catch {
    // Templates are validated when saved; a broken one still yields the two fields.
  }
  const fields: Record<string, string | number> = {};
  for (const key of Object.keys(parsed)) {
    if (key === 'postomatOrderId')
      fields.postomatOrderId = typeof parsed[key] === 'string' ? (parsed[key] as string) : postomatOrderId;
    if (key === 'status') fields.status = typeof parsed[key] === 'number' ? (parsed[key] as number) : status;
  }
  if (!('postomatOrderId' in fields)) fields.postomatOrderId = postomatOrderId;
  if (!('status' in fields)) fields.status = status;
  return JSON.stringify(fields);
}
