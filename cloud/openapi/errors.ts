/**
 * The spec's error shape and the error rows an operation documents. Each row becomes one
 * alternative of its status's body, with the exact `message` (or `code`) the service sends, so
 * a contract test fails when a route answers an error the document does not name.
 */
import { z } from 'zod';

export const ErrorBody = z
  .object({
    statusCode: z.int(),
    error: z.string().meta({ description: 'the HTTP reason phrase' }),
    message: z.string().meta({
      description:
        'business errors carry their code here (e.g. ORDER_NOT_FOUND); validation errors list the failing fields',
    }),
    code: z.string().optional().meta({
      description:
        'only on validation (FST_ERR_VALIDATION), rate-limit (RATE_LIMIT_EXCEEDED) and other technical errors',
    }),
    requestId: z.string().optional().meta({
      description:
        "the request's id (also in the `X-Request-Id` header): quote it to the operator, it is on every log line the request caused",
    }),
  })
  .meta({
    id: 'ErrorBody',
    description:
      "Every error: `{ statusCode, error, message[, code] }`, plus `requestId` (beside the spec's fields, which are unchanged).",
  });

export interface ErrorRow {
  status: number;
  /** the exact message; absent when the message is free text (validation, locker-side failures) */
  message?: string;
  /** the `code` field, on technical errors */
  code?: string;
  when: string;
}

export const row = (status: number, message: string | undefined, when: string, code?: string): ErrorRow => ({
  status,
  message,
  when,
  ...(code ? { code } : {}),
});

export const VALIDATION = row(
  400,
  undefined,
  'validation: a missing or malformed parameter, body field or id; `message` names the request part and field, e.g. `querystring/page must be >= 1`',
  'FST_ERR_VALIDATION',
);
export const BAD_JSON = row(
  400,
  "Body is not valid JSON but content-type is set to 'application/json'",
  'the body is not JSON',
  'FST_ERR_CTP_INVALID_JSON_BODY',
);
export const BODY_TOO_LARGE = row(
  413,
  'Request body is too large',
  'the body is larger than 1 MB',
  'FST_ERR_CTP_BODY_TOO_LARGE',
);
export const RATE_LIMITED = row(
  429,
  'Too Many Requests',
  'request limit exceeded; retry after `Retry-After` seconds',
  'RATE_LIMIT_EXCEEDED',
);

/** Authentication of each family (the spec's Authentication part). */
export const AUTH_ROWS = {
  locker: [row(401, 'Unauthorized', '`Authorization: Bearer <API_KEY>` missing or wrong')],
  integration: [
    row(403, 'TOKEN_NOT_VALID', 'no API key in `x-api-token` nor in `Authorization: Bearer`, or an empty key'),
    row(401, 'UNAUTHORIZED', 'the API key is not known'),
  ],
  user: [
    row(401, 'TOKEN_NOT_VALID', 'no `Authorization: Bearer` header, or an empty token'),
    row(401, 'UNAUTHORIZED', 'the user token is invalid or expired'),
    row(403, 'ONLY_FOR_ADMIN', 'the user is not an administrator of the company'),
  ],
  // The sandbox takes either key: a Locker API key in Bearer, or a platform key in x-api-token.
  sandbox: [
    row(401, 'Unauthorized', '`Authorization: Bearer <API_KEY>` missing or wrong (Locker API key)'),
    row(401, 'UNAUTHORIZED', 'the `x-api-token` platform key is not known'),
    row(403, 'TOKEN_NOT_VALID', 'an empty `x-api-token`'),
  ],
  none: [],
} as const satisfies Record<string, ErrorRow[]>;

/** One status's body: the error shape, narrowed to the rows documented for it. */
export function errorBodyOf(rows: ErrorRow[], ref: string): Record<string, unknown> {
  const alternatives = rows.map((r) => {
    const properties: Record<string, unknown> = { statusCode: { const: r.status } };
    if (r.message !== undefined) properties.message = { const: r.message };
    if (r.code !== undefined) properties.code = { const: r.code };
    return { allOf: [{ $ref: ref }, { properties, ...(r.code ? { required: ['code'] } : {}) }] };
  });
  return alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives };
}
