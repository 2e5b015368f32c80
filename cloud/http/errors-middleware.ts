/** The one place where errors become the spec's bodies `{ statusCode, error, message[, code] }`. */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { DomainError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_STATUS, MESSAGE_TEXT } from './error-map.ts';
import { HttpError } from './http-error.ts';
import { isBusy } from '../storage/sqlite-busy.ts';
import { requestIdOf } from './request-id.ts';

/** How much of a client's path a message or a log line repeats: the path is the sender's text. */
const PATH_SHOWN = 200;

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError)
    return new HttpError(DEFAULT_STATUS[err.code] ?? 500, MESSAGE_TEXT[err.code] ?? err.code);
  const e = err as { type?: string; status?: number; statusCode?: number; expose?: boolean };
  // body-parser failures, worded as Fastify words them
  if (e?.type === 'entity.parse.failed') {
    return new HttpError(400, "Body is not valid JSON but content-type is set to 'application/json'", {
      code: 'FST_ERR_CTP_INVALID_JSON_BODY',
    });
  }
  if (e?.type === 'entity.too.large')
    return new HttpError(413, 'Request body is too large', { code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new HttpError(415, 'Unsupported Media Type', { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
  }
  if (e?.type === 'request.size.invalid')
    return new HttpError(400, 'Request body size did not match Content-Length', {
      code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
    });
  // A path segment that is not valid percent-encoded UTF-8 (Express fails to decode the param).
  if (isBadUrl(err)) return new HttpError(400, 'Path is not a valid url component', { code: 'FST_ERR_BAD_URL' });
  // Any other refusal of the request by body-parser (a body that does not inflate, an aborted upload).
  if (isClientError(err))
    return new HttpError(e.status!, 'Request body could not be read', { code: 'FST_ERR_CTP_INVALID_BODY' });
  // Another process held the SQLite database past the retry deadline: temporary, say when to retry.
  if (isBusy(err))
    return new HttpError(503, 'Service Unavailable', { code: 'STORAGE_BUSY', headers: { 'Retry-After': '1' } });
  return new HttpError(500, 'Internal Server Error', { code: 'INTERNAL_SERVER_ERROR' });
}

const isBadUrl = (err: unknown) => err instanceof URIError && (err as { status?: number }).status === 400;

/** http-errors' 4xx (body-parser, Express): the request's own fault, safe to refuse as it says. */
function isClientError(err: unknown): boolean {
  const e = err as { status?: unknown; expose?: unknown } | null;
  return typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true;
}

/**
 * Refusals the code meant (an HttpError, a business error, a busy database, a client's broken
 * request) are one short line without a stack, and only when they are 5xx: the spec answers a
 * missing order on the platform's locker access with 502 and an unknown locker on order create
 * with 500, so a client probing ids must not fill the error log. A stack is for real faults.
 */
function logOutcome(logger: Logger, req: Request, httpError: HttpError, err: unknown): void {
  const fields = { method: req.method, path: req.path.slice(0, PATH_SHOWN), status: httpError.statusCode };
  const meant =
    err instanceof HttpError || err instanceof DomainError || isClientError(err) || isBadUrl(err) || isBusy(err);
  if (!meant) logger.error('request failed', { ...fields, err });
  else if (httpError.statusCode === 503) logger.warn('request refused', { ...fields, message: httpError.message });
  else if (httpError.statusCode >= 500) logger.info('request refused', { ...fields, message: httpError.message });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const httpError = toHttpError(err);
    logOutcome(logger, req, httpError, err);
    if (res.headersSent) return;
    if (httpError.headers) res.set(httpError.headers);
    res.status(httpError.statusCode).json(withRequestId(httpError.toBody(), req));
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json(
    withRequestId(
      {
        message: `Route ${req.method}:${req.originalUrl.slice(0, PATH_SHOWN)} not found`,
        error: 'Not Found',
        statusCode: 404,
      },
      req,
    ),
  );
};

/** The spec's error body and, as an extra field, the id to quote when asking about the failure. */
function withRequestId(body: Record<string, unknown>, req: Request): Record<string, unknown> {
  const requestId = requestIdOf(req);
  return requestId ? { ...body, requestId } : body;
}
