/**
 * A route handler receives already-validated, typed input; it returns the response body.
 * Validation order follows Fastify's (params, body, querystring) so the first failing part
 * is the one the original service would have named.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { parsePart } from './validation.ts';

export interface RouteSchemas {
  params?: z.ZodType;
  body?: z.ZodType;
  query?: z.ZodType;
}

type Out<S, K extends keyof RouteSchemas> = S extends { [P in K]: infer T } ? (T extends z.ZodType ? z.output<T> : never) : undefined;

export interface RouteInput<S extends RouteSchemas> {
  params: Out<S, 'params'>;
  body: Out<S, 'body'>;
  query: Out<S, 'query'>;
  req: Request;
  res: Response;
}

export interface RouteOptions {
  /** status of a successful answer (default 200) */
  status?: number;
  /** separator between validation messages (the platform API lists them comma-separated) */
  separator?: string;
}

export function route<S extends RouteSchemas>(
  schemas: S,
  handler: (input: RouteInput<S>) => Promise<unknown> | unknown,
  options: RouteOptions = {},
): RequestHandler {
  return async (req, res) => {
    const params = schemas.params ? parsePart('params', schemas.params, req.params, options.separator) : undefined;
    const body = schemas.body ? parsePart('body', schemas.body, req.body, options.separator) : undefined;
    const query = schemas.query ? parsePart('querystring', schemas.query, req.query ?? {}, options.separator) : undefined;
    const result = await handler({ params, body, query, req, res } as RouteInput<S>);
    if (res.headersSent) return;
    sendJson(res, options.status ?? 200, result === undefined ? null : result);
  };
}

/**
 * The answer, written directly: Express's res.json adds a freshness check and header
 * bookkeeping that an API without ETags never uses, on every request of the hottest reads.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  // writeHead with the headers spares setHeader's per-call validation (headers already set, such as the rate limit's, are kept).
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
