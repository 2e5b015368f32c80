import { route, type RouteSchemas, type RouteInput, type RouteOptions } from '../http/route.ts';

/** A Platform API route: validation messages comma-separated, as the spec's platform errors list them. */
export const platformRoute = <S extends RouteSchemas>(
  schemas: S,
  handler: (input: RouteInput<S>) => Promise<unknown> | unknown,
  options: RouteOptions = {},
) => route(schemas, handler, { separator: ', ', ...options });

export const pageOf = (q: { page: number; pageSize: number }) => ({
  limit: q.pageSize,
  offset: (q.page - 1) * q.pageSize,
});
