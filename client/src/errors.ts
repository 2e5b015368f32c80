/** What a call can fail with: the API's answer (typed as the spec's error body), or no answer at all. */

/** The API answered with an error: the spec's `{ statusCode, error, message, code }`. */
export class ApiError extends Error {
  readonly statusCode: number;
  /** the spec's machine-readable code (`ORDER_NOT_FOUND`, `RATE_LIMIT_EXCEEDED`, `FST_ERR_VALIDATION`…), when the answer has one */
  readonly code?: string;
  /** the HTTP reason phrase the body carries (`Not Found`) */
  readonly error?: string;
  /** the whole body as parsed (extra fields such as the sandbox's `display` are here) */
  readonly body: unknown;
  /** the request's id, when the cloud gave one (quote it to the operator) */
  readonly requestId?: string;
  /** the `Retry-After` header of a 429 or 503, as sent */
  readonly retryAfter?: string;

  constructor(statusCode: number, body: unknown, headers: { requestId?: string; retryAfter?: string } = {}) {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const message =
      typeof b.message === 'string'
        ? b.message
        : Array.isArray(b.message)
          ? b.message.join(', ')
          : `HTTP ${statusCode}`;
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.code = typeof b.code === 'string' ? b.code : undefined;
    this.error = typeof b.error === 'string' ? b.error : undefined;
    this.body = body;
    this.requestId = headers.requestId ?? (typeof b.requestId === 'string' ? b.requestId : undefined);
    this.retryAfter = headers.retryAfter;
  }
}

/** No answer: the connection failed, was cut, or the attempt timed out. Whether the server acted is unknown. */
export class NetworkError extends Error {
  constructor(
    message: string,
    cause: unknown,
    readonly timedOut: boolean,
  ) {
    super(message, { cause });
    this.name = 'NetworkError';
  }
}

/**
 * Whether a failure leaves it unknown if the server acted: no answer, or a 5xx. A 4xx is a
 * definite refusal; so is the spec's 500 for an unknown locker on order create.
 */
export function isUncertain(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  if (!(err instanceof ApiError)) return false;
  if (err.statusCode < 500) return false;
  return err.code !== 'POSTOMAT_NOT_FOUND' && err.message !== 'POSTOMAT_NOT_FOUND';
}
