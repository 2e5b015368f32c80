/**
 * Where an API family adds its routes: `get` and `post` with paths relative to the family's
 * base. Registering them on the app itself under the base, instead of on a Router mounted
 * there, spares every request a second layer walk and the prefix trimming around it.
 */
import type { Express, RequestHandler } from 'express';

export interface Routes {
  get(path: string, ...handlers: RequestHandler[]): unknown;
  post(path: string, ...handlers: RequestHandler[]): unknown;
}

export function routesUnder(app: Express, base: string): Routes {
  return {
    get: (path, ...handlers) => app.get(base + path, ...handlers),
    post: (path, ...handlers) => app.post(base + path, ...handlers),
  };
}
