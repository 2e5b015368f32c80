/** Public locker endpoints: no authentication, paths from the host root. */
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { PublicPostomatListQuery, ShortIdParams } from './schemas.ts';
import { Postomat, PostomatPage } from './responses.ts';
import { postomatList, postomatMapPoint, publicPostomat } from './postomat-operations.ts';

export function publicRoutes(r: Routes, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/api/v1/open-api/postomat/list',
    route({ query: PublicPostomatListQuery, response: PostomatPage }, ({ query }) =>
      postomatList(db, deps.clock, query),
    ),
  );

  r.get(
    '/api/v1/public/postomat/map/:shortId',
    route({ params: ShortIdParams }, async ({ params, res }) => {
      const p = await postomatMapPoint(db, params.shortId);
      res.redirect(
        302,
        deps.config.mapUrlTemplate.replaceAll('{lat}', String(p.lat)).replaceAll('{lng}', String(p.lng)),
      );
    }),
  );

  r.get(
    '/api/v1/public/postomat/:shortId',
    route({ params: ShortIdParams, response: Postomat }, ({ params }) => publicPostomat(db, params.shortId)),
  );
}
