/**
 * The JSON body parser of every API family. A body sent with another content type is refused as
 * Fastify refuses it (415 FST_ERR_CTP_INVALID_MEDIA_TYPE, naming the type). Left unparsed, it
 * would reach validation as no body at all ("body must be object"), which hides the cause: most
 * often curl's `-d` without `-H 'Content-Type: application/json'`.
 */
import express, { type RequestHandler } from 'express';
import { HttpError } from './http-error.ts';

export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit });
  return (req, res, next) => {
    // req.is: null without a body, false for a body of another type (or of none given).
    if (req.headers['content-length'] !== '0' && req.is('application/json') === false) {
      const type = req.headers['content-type'];
      return next(
        new HttpError(415, `Unsupported Media Type: ${type ?? 'none given'}`, {
          code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
        }),
      );
    }
    parse(req, res, next);
  };
}
