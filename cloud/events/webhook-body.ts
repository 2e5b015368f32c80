/**
 * A webhook's body from its payloadTemplate: `{{postomatOrderId}}` is substituted inside a
 * string, `{{status}}` as a bare number. The delivered body always has exactly the two
 * fields `postomatOrderId` (string) and `status` (number), in the template's order.
 */
export const DEFAULT_TEMPLATE = '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}}}';

export function renderTemplate(template: string, postomatOrderId: string, status: number): string {
  // The id is a cuid2 (letters and digits), so it needs no escaping inside a JSON string.
  return template.replaceAll('{{postomatOrderId}}', postomatOrderId).replaceAll('{{status}}', String(status));
}

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
    if (key === 'postomatOrderId') fields.postomatOrderId = typeof parsed[key] === 'string' ? (parsed[key] as string) : postomatOrderId;
    if (key === 'status') fields.status = typeof parsed[key] === 'number' ? (parsed[key] as number) : status;
  }
  if (!('postomatOrderId' in fields)) fields.postomatOrderId = postomatOrderId;
  if (!('status' in fields)) fields.status = status;
  return JSON.stringify(fields);
}
