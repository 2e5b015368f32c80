/**
 * One HTTP call with the spec's retry guidance ("Retry guidance" in the API reference):
 * - a call that may be repeated (`repeatable`: GETs, and POSTs carrying an Idempotency-Key the
 *   server de-duplicates) is retried after a network error, a timeout or a 5xx, with an
 *   exponential delay (0.4 s, 0.8 s, 1.6 s… capped at 5 s) for `attempts` tries in all;
 * - a 429 is retried by every call (nothing was done), after `Retry-After` seconds (else the
 *   same exponential delay);
 * - 400, 401, 403, 404, 406, 409 and any other 4xx are never retried.
 * Calls that may not be repeated blindly (the Locker API's order create) get `repeatable: false`
 * and their own recovery (locker-client.ts).
 */
import { ApiError, NetworkError } from './errors.ts';

export interface RetryPolicy {
  /** tries in all, first included (the spec: 3-5) */
  attempts: number;
  /** the first delay; each next one doubles */
  baseDelayMs: number;
  maxDelayMs: number;
  /** one attempt's deadline */
  timeoutMs: number;
  /** a longer Retry-After than this is not waited for: the 429 is returned */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 400,
  maxDelayMs: 5_000,
  timeoutMs: 15_000,
  maxRetryAfterMs: 60_000,
};

export interface TransportOptions {
  baseUrl: string;
  headers: Record<string, string>;
  retry?: Partial<RetryPolicy>;
  /** fetch to use (default: the global one) */
  fetch?: typeof fetch;
  /** how to wait between attempts (tests record the delays) */
  sleep?: (ms: number) => Promise<void>;
}

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  repeatable: boolean;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function backoff(policy: RetryPolicy, retry: number): number {
  return Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
}

/** `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class Transport {
  readonly policy: RetryPolicy;
  private readonly fetch: typeof fetch;
  /** how the client waits between attempts (options.sleep, or a timer) */
  readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: TransportOptions) {
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? sleepFor;
  }

  /** The parsed JSON answer of a 2xx; an ApiError or a NetworkError once retries are spent. */
  async send<T>(call: Call): Promise<T> {
    let retry = 0;
    for (;;) {
      let failure: ApiError | NetworkError;
      let wait: number;
      try {
        return (await this.once(call)) as T;
      } catch (err) {
        if (!(err instanceof ApiError) && !(err instanceof NetworkError)) throw err;
        failure = err;
      }
      const lastTry = retry + 1 >= this.policy.attempts;
      if (failure instanceof ApiError && failure.statusCode === 429) {
        const after = retryAfterMs(failure.retryAfter ?? null);
        if (lastTry || (after !== undefined && after > this.policy.maxRetryAfterMs)) throw failure;
        wait = after ?? backoff(this.policy, retry);
      } else if (call.repeatable && (failure instanceof NetworkError || failure.statusCode >= 500) && !lastTry) {
        wait = backoff(this.policy, retry);
      } else {
        throw failure;
      }
      await this.sleep(wait);
      retry++;
    }
  }

  private async once(call: Call): Promise<unknown> {
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + call.path);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...call.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await this.fetch(url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(this.policy.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const timedOut = (err as Error)?.name === 'TimeoutError';
      throw new NetworkError(
        timedOut
          ? `no answer within ${this.policy.timeoutMs} ms: ${call.method} ${call.path}`
          : `${call.method} ${call.path}: ${(err as Error)?.message ?? err}`,
        err,
        timedOut,
      );
    }
    let body: unknown;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (res.ok) return body;
    throw new ApiError(res.status, body, {
      requestId: res.headers.get('x-request-id') ?? undefined,
      retryAfter: res.headers.get('retry-after') ?? undefined,
    });
  }
}
