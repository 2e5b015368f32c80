/**
 * Where an API family adds its routes: `get` and `post` with paths relative to the family's
 * base. They are registered on the app itself, each with the family's guards (rate limit,
 * authentication) and, on POST, the body parser in front of its handler. Every request of the
 * hottest reads then walks one router layer instead of a Router level, two prefix-mounted
 * guards and a body-parser layer, each with its own path match and prefix trimming.
 */
import type { Express, RequestHandler } from 'express';

export interface Routes {
  get(path: string, ...handlers: RequestHandler[]): unknown;
  post(path: string, ...handlers: RequestHandler[]): unknown;
  delete(path: string, ...handlers: RequestHandler[]): unknown;
}

export interface RoutesOptions {
  /** run before every route of the family, in this order */
  guards?: RequestHandler[];
  /** parses a POST body, after the guards: a request that is refused is never parsed */
  body?: RequestHandler;
}

export function routesUnder(app: Express, base: string, options: RoutesOptions = {}): Routes {
  const guards = options.guards ?? [];
  const body = options.body ? [options.body] : [];
  return {
    get: (path, ...handlers) => app.get(base + path, ...guards, ...handlers),
    post: (path, ...handlers) => app.post(base + path, ...guards, ...body, ...handlers),
    delete: (path, ...handlers) => app.delete(base + path, ...guards, ...handlers),
  };
}
