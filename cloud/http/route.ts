/**
 * A route handler receives already-validated, typed input; it returns the response body, or a
 * ListAnswer for a list read in batches (stream-json.ts).
 * Validation order follows Fastify's (params, body, querystring) so the first failing part
 * is the one the original service would have named.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { parsePart } from './validation.ts';
import { sendJson } from './send-json.ts';
import { ListAnswer, sendList } from './stream-json.ts';
import { noteRoute } from '../metrics/http-metrics.ts';

export { sendJson };

export interface RouteSchemas {
  params?: z.ZodType;
  body?: z.ZodType;
  query?: z.ZodType;
  /** the body of a successful answer: never parsed here (it costs every request), documented and checked by the contract tests */
  response?: z.ZodType;
}

type Out<S, K extends keyof RouteSchemas> = S extends { [P in K]: infer T }
  ? T extends z.ZodType
    ? z.output<T>
    : never
  : undefined;

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

/** Where a route handler keeps its schemas, so the route table can be walked with them (the fuzzing suite). */
const SCHEMAS = Symbol('route schemas');

export function schemasOf(handler: unknown): RouteSchemas | undefined {
  return (handler as { [SCHEMAS]?: RouteSchemas } | undefined)?.[SCHEMAS];
}

export function route<S extends RouteSchemas>(
  schemas: S,
  handler: (input: RouteInput<S>) => Promise<unknown> | unknown,
  options: RouteOptions = {},
): RequestHandler {
  const routeHandler: RequestHandler = async (req, res) => {
    noteRoute(req, res);
    const params = schemas.params ? parsePart('params', schemas.params, req.params, options.separator) : undefined;
    const body = schemas.body ? parsePart('body', schemas.body, req.body, options.separator) : undefined;
    const query = schemas.query
      ? parsePart('querystring', schemas.query, req.query ?? {}, options.separator)
      : undefined;
    const result = await handler({ params, body, query, req, res } as RouteInput<S>);
    if (res.headersSent) return;
    if (result instanceof ListAnswer) return sendList(res, options.status ?? 200, result);
    sendJson(res, options.status ?? 200, result === undefined ? null : result);
  };
  return Object.assign(routeHandler, { [SCHEMAS]: schemas });
}
