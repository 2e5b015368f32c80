/** Public locker endpoints: no authentication, paths from the host root. */
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { DomainError } from '../domain/errors.ts';
import { PublicPostomatListQuery, ShortIdParams } from './schemas.ts';
import { presentPostomat } from './present.ts';
import { Postomat, PostomatPage } from './responses.ts';
import { postomatList } from './postomat-operations.ts';

export function publicRoutes(r: Routes, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/api/v1/open-api/postomat/list',
    route({ query: PublicPostomatListQuery, response: PostomatPage }, ({ query }) =>
      postomatList(db, deps.clock, query),
    ),
  );

  const byShortId = (shortId: string) =>
    db.selectFrom('postomat').selectAll().where('shortId', '=', shortId).executeTakeFirst();

  r.get(
    '/api/v1/public/postomat/map/:shortId',
    route({ params: ShortIdParams }, async ({ params, res }) => {
      const p = await byShortId(params.shortId);
      if (!p || p.lat === null || p.lng === null) throw new DomainError('POSTOMAT_NOT_FOUND');
      res.redirect(
        302,
        deps.config.mapUrlTemplate.replaceAll('{lat}', String(p.lat)).replaceAll('{lng}', String(p.lng)),
      );
    }),
  );

  r.get(
    '/api/v1/public/postomat/:shortId',
    route({ params: ShortIdParams, response: Postomat }, async ({ params }) => {
      const p = await byShortId(params.shortId);
      if (!p) throw new DomainError('POSTOMAT_NOT_FOUND');
      return presentPostomat(p);
    }),
  );
}
