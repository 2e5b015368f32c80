/** Locker API: locker and free-cell routes (the reads they call: postomat-operations.ts). */
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { freeCells } from '../storage/cell-occupancy.ts';
import { IdParams, PostomatIdParams, PostomatListQuery, PostomatReadQuery } from './schemas.ts';
import { FreeCells, PostomatOrNull, PostomatPage } from './responses.ts';
import { presentCell } from './present.ts';

import { postomatView, postomatList } from './postomat-operations.ts';
/** Adds these routes to `r` itself: a nested Router per resource cost a layer walk on every request. */
export function postomatsRoutes(r: Routes, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/postomat/list',
    route({ query: PostomatListQuery, response: PostomatPage }, ({ query }) => postomatList(db, deps.clock, query)),
  );

  r.get(
    '/postomat/:id',
    route({ params: IdParams, query: PostomatReadQuery, response: PostomatOrNull }, ({ params, query }) =>
      postomatView(db, params.id, query),
    ),
  );

  r.get(
    '/cell/:postomatId/free-cells',
    route({ params: PostomatIdParams, response: FreeCells }, async ({ params }) => {
      return (await freeCells(db, [params.postomatId])).map(presentCell);
    }),
  );
}
