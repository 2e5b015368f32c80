/**
 * A locker's sync record (`locker_sync`, `locker_sync_change`): the version every change to
 * what its agent must know bumps, the change row of each order, what was published, and the
 * publishing lease (sync/publish-claim.ts). Pruning it is retention-queries.ts's.
 */
import { sql } from 'kysely';
import { dialectOf, type Db } from './database.ts';
import { prepared, preparedWrite } from './prepared.ts';

/**
 * The one call every operation makes when it changes what a locker's agent must know about an
 * order (created, paid, placed, finished, moved to another locker): inside the caller's
 * transaction, so the change and its record commit together and survive a cloud crash before
 * anything was published. Bumps the locker's sync version and stamps the order's change with
 * it; returns the version. With `lease` (a process that publishes: sync/publish-claim.ts), the
 * same statement takes the locker's publishing lease unless one is running.
 */
export async function recordLockerChange(
  trx: Db,
  postomatId: string,
  orderId: string,
  lease?: { lease: string; nowIso: string },
): Promise<number> {
  // On PostgreSQL the upsert locks the locker's row until commit: versions of one locker are
  // handed out in commit order, so a reader that sees version N also sees every change <= N.
  if (dialectOf(trx) === 'postgres') {
    // One statement, the change row written from the upsert's RETURNING: one round trip.
    const { rows } = lease
      ? await leasedVersionAndChange(trx, postomatId, orderId, lease.lease, lease.nowIso)
      : await versionAndChange(trx, postomatId, orderId);
    if (rows[0] === undefined) throw new Error(`locker ${postomatId}: no sync version returned`);
    return Number(rows[0].version);
  }
  const version = lease
    ? (await leasedVersionUpsert(trx, postomatId, lease.lease, lease.nowIso)).rows[0]?.version
    : await nextVersion(trx, postomatId);
  if (version === undefined) throw new Error(`locker ${postomatId}: no sync version returned`);
  await changeAt(trx, postomatId, orderId, version);
  return Number(version);
}

/** The locker's sync version moved on by one (its row made at 1 the first time). */
async function nextVersion(db: Db, postomatId: string): Promise<number | string> {
  const [row] = (await versionUpsert(db, postomatId)).rows;
  if (!row) throw new Error(`locker ${postomatId}: no sync version returned`);
  return row.version;
}

const versionUpsertOf = (db: Db, postomatId: unknown) =>
  db
    .insertInto('locker_sync')
    .values({ postomatId: postomatId as string, version: 1, publishedVersion: 0, floor: 0 })
    .onConflict((oc) => oc.column('postomatId').doUpdateSet((eb) => ({ version: eb('locker_sync.version', '+', 1) })))
    .returning('version');
const versionUpsert = preparedWrite<[postomatId: string], { version: number | string }>(1, versionUpsertOf);

const leasedVersionUpsertOf = (db: Db, postomatId: any, lease: any, nowIso: any) =>
  db
    .insertInto('locker_sync')
    .values({ postomatId, version: 1, publishedVersion: 0, floor: 0, publishClaimedUntil: lease })
    .onConflict((oc) =>
      oc.column('postomatId').doUpdateSet((eb) => ({
        version: eb('locker_sync.version', '+', 1),
        publishClaimedUntil: eb
          .case()
          .when(
            eb.or([
              eb('locker_sync.publishClaimedUntil', 'is', null),
              eb('locker_sync.publishClaimedUntil', '<', nowIso),
            ]),
          )
          .then(eb.ref('excluded.publishClaimedUntil'))
          .else(eb.ref('locker_sync.publishClaimedUntil'))
          .end(),
      })),
    )
    .returning('version');
const leasedVersionUpsert = preparedWrite<
  [postomatId: string, lease: string, nowIso: string],
  { version: number | string }
>(3, leasedVersionUpsertOf);

/** PostgreSQL: the version upsert as a data-modifying CTE, and the order's change row from it. */
const changeFrom = (db: Db, upsert: ReturnType<typeof versionUpsertOf>, postomatId: unknown, orderId: unknown) =>
  db
    .with('v', () => upsert)
    .insertInto('locker_sync_change')
    .columns(['postomatId', 'orderId', 'version'])
    .expression((eb) =>
      eb
        .selectFrom('v')
        .select([
          sql<string>`cast(${postomatId} as text)`.as('postomatId'),
          sql<string>`cast(${orderId} as text)`.as('orderId'),
          'v.version',
        ]),
    )
    .onConflict((oc) =>
      oc.columns(['postomatId', 'orderId']).doUpdateSet((eb) => ({ version: eb.ref('excluded.version') })),
    )
    .returning('locker_sync_change.version');
const versionAndChange = preparedWrite<[postomatId: string, orderId: string], { version: number | string }>(
  2,
  (db: Db, postomatId, orderId) => changeFrom(db, versionUpsertOf(db, postomatId), postomatId, orderId),
);
const leasedVersionAndChange = preparedWrite<
  [postomatId: string, orderId: string, lease: string, nowIso: string],
  { version: number | string }
>(4, (db: Db, postomatId, orderId, lease, nowIso) =>
  changeFrom(db, leasedVersionUpsertOf(db, postomatId, lease, nowIso), postomatId, orderId),
);
const changeAt = preparedWrite<[postomatId: string, orderId: string, version: number | string]>(
  3,
  (db: Db, postomatId, orderId, version) =>
    db
      .insertInto('locker_sync_change')
      .values({ postomatId, orderId, version })
      .onConflict((oc) =>
        oc.columns(['postomatId', 'orderId']).doUpdateSet((eb) => ({ version: eb.ref('excluded.version') })),
      ),
);

/**
 * The locker's cells changed (added, resized, switched on or off): its version moves with no
 * order change, so the publisher sends its agent a delta, which carries the new cell map.
 */
export async function recordCellMapChange(db: Db, postomatId: string): Promise<number> {
  return Number(await nextVersion(db, postomatId));
}

export async function lockerVersion(
  db: Db,
  postomatId: string,
): Promise<{ version: number; floor: number; publishedVersion: number }> {
  const row = await db
    .selectFrom('locker_sync')
    .select(['version', 'floor', 'publishedVersion'])
    .where('postomatId', '=', postomatId)
    .executeTakeFirst();
  return {
    version: Number(row?.version ?? 0),
    floor: Number(row?.floor ?? 0),
    publishedVersion: Number(row?.publishedVersion ?? 0),
  };
}

/** The latest change to the locker's orders alone (0 when it never had one). */
export async function syncVersionOf(db: Db, postomatId: string): Promise<number> {
  const row = await db
    .selectFrom('locker_sync')
    .select('version')
    .where('postomatId', '=', postomatId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** The orders of the locker changed after version `since` (every delta asks: prepared once). */
export const ordersChangedSince = prepared<[postomatId: string, since: number], { orderId: string }>(
  2,
  (db: Db, postomatId, since) =>
    db
      .selectFrom('locker_sync_change')
      .select('orderId')
      .where('postomatId', '=', postomatId)
      .where('version', '>', since),
);

const BATCH = 200;

/** Lockers whose data moved past what was published; asked on every poll, so prepared once. */
export const unpublishedLockers = prepared<
  [],
  {
    postomatId: string;
    version: number | string;
    publishedVersion: number | string;
    floor: number | string;
    publishClaimedUntil: string | null;
  }
>(0, (db: Db) =>
  db
    .selectFrom('locker_sync')
    .select(['postomatId', 'version', 'publishedVersion', 'floor', 'publishClaimedUntil'])
    .whereRef('version', '>', 'publishedVersion')
    .limit(BATCH),
);

/**
 * Takes the publishing leases of those of `postomatIds` that have something to publish and no
 * lease of another process running at `nowIso`, all marked `until`, in one statement; returns the
 * lockers it took, with their versions as the lease found them.
 */
export async function takePublishLeases(db: Db, postomatIds: string[], until: string, nowIso: string) {
  // Most rounds publish one locker: that claim is prepared once, the others built.
  if (postomatIds.length === 1) return (await takeOneLease(db, postomatIds[0]!, until, nowIso)).rows;
  return leaseUpdate(db, postomatIds, until, nowIso).execute();
}

const leaseUpdate = (db: Db, postomatIds: unknown[], until: unknown, nowIso: unknown) =>
  db
    .updateTable('locker_sync')
    .set({ publishClaimedUntil: until as string })
    .where('postomatId', 'in', postomatIds as string[])
    .whereRef('version', '>', 'publishedVersion')
    .where((eb) => eb.or([eb('publishClaimedUntil', 'is', null), eb('publishClaimedUntil', '<', nowIso as string)]))
    .returning(['postomatId', 'version', 'publishedVersion', 'floor']);

const takeOneLease = preparedWrite<
  [postomatId: string, until: string, nowIso: string],
  { postomatId: string; version: number | string; publishedVersion: number | string; floor: number | string }
>(3, (db: Db, postomatId, until, nowIso) => leaseUpdate(db, [postomatId], until, nowIso));

/**
 * A locker's delta went out: its mark moves forward (only), and its lease is given up if it is
 * still the one marked `until` (one statement, compiled once).
 */
const markPublished = preparedWrite<[postomatId: string, version: number, until: string]>(
  3,
  (db: Db, postomatId, version, until) =>
    db
      .updateTable('locker_sync')
      .set((eb) => ({
        publishedVersion: eb
          .case()
          .when('publishedVersion', '<', version)
          .then(version)
          .else(eb.ref('publishedVersion'))
          .end(),
        publishClaimedUntil: eb
          .case()
          .when('publishClaimedUntil', '=', until)
          .then(null)
          .else(eb.ref('publishClaimedUntil'))
          .end(),
      }))
      .where('postomatId', '=', postomatId),
);

/**
 * Deltas that went out, each up to its version (a mark moves forward only), and each one's
 * lease given up if it still holds it: one transaction for all the lockers published since the
 * last (sync/publisher.ts). A version of 0 gives the lease up and leaves the mark.
 */
export async function markPublishedReleasing(
  db: Db,
  published: ReadonlyArray<{ postomatId: string; version: number; lease: string }>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const { postomatId, version, lease } of published) await markPublished(trx, postomatId, version, lease);
  });
}

/**
 * What went out (each locker's mark moves forward only) and the leases marked `until` given up,
 * in one transaction: one commit for a whole round of lockers. `claimed`: how many lockers the
 * round's leases took; the leases of those not published are given up too.
 */
export async function releasePublishLeases(
  db: Db,
  until: string,
  published: ReadonlyArray<{ postomatId: string; version: number }>,
  claimed = Infinity,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const { postomatId, version } of published) await markPublished(trx, postomatId, version, until);
    if (published.length < claimed)
      await trx
        .updateTable('locker_sync')
        .set({ publishClaimedUntil: null })
        .where('publishClaimedUntil', '=', until)
        .execute();
  });
}
