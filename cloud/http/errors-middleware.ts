/** The one place where errors become the spec's bodies `{ statusCode, error, message[, code] }`. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_STATUS, MESSAGE_TEXT } from './error-map.ts';
import { HttpError } from './http-error.ts';
import { isBusy } from '../storage/sqlite-busy.ts';

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) return new HttpError(DEFAULT_STATUS[err.code] ?? 500, MESSAGE_TEXT[err.code] ?? err.code);
  const e = err as { type?: string; status?: number; statusCode?: number };
  // body-parser failures, worded as Fastify words them
  if (e?.type === 'entity.parse.failed') {
    return new HttpError(400, "Body is not valid JSON but content-type is set to 'application/json'", { code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
  }
  if (e?.type === 'entity.too.large') return new HttpError(413, 'Request body is too large', { code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new HttpError(415, 'Unsupported Media Type', { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
  }
  // Another process held the SQLite database past the retry deadline: temporary, say when to retry.
  if (isBusy(err)) return new HttpError(503, 'Service Unavailable', { code: 'STORAGE_BUSY', headers: { 'Retry-After': '1' } });
  return new HttpError(500, 'Internal Server Error', { code: 'INTERNAL_SERVER_ERROR' });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const httpError = toHttpError(err);
    if (httpError.statusCode >= 500) {
      logger.error('request failed', { method: req.method, path: req.path, status: httpError.statusCode, err });
    }
    if (res.headersSent) return;
    if (httpError.headers) res.set(httpError.headers);
    res.status(httpError.statusCode).json(httpError.toBody());
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ message: `Route ${req.method}:${req.originalUrl} not found`, error: 'Not Found', statusCode: 404 });
};
