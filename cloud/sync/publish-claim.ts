/**
 * Which process publishes a locker's delta. Every cloud process hears of every change (its own
 * commits, the others' through the database) and runs a publishing round; without a claim each
 * of them sent the same delta. The claim is a lease in locker_sync: taken with one conditional
 * update, so one process wins; released when the delta is out (or could not be handed to the
 * broker); left to expire when its process dies mid-publish, after which any process (at its
 * next wake-up or poll) publishes again — a duplicate the agent takes as a no-op, never a loss.
 */
import type { Db } from '../storage/database.ts';
import {
  leasedVersions,
  markPublished,
  releasePublishLease,
  takePublishLease,
} from '../storage/locker-sync-queries.ts';

/** Longer than a publish takes on a healthy link; what a crash delays a delta by at most (plus a poll). */
export const PUBLISH_CLAIM_MS = 10_000;

export interface Claimed {
  version: number;
  publishedVersion: number;
  floor: number;
  /** the claim's own mark, to release it and only it */
  until: string;
}

export async function claimPublishing(
  db: Db,
  postomatId: string,
  now: Date,
  leaseMs = PUBLISH_CLAIM_MS,
): Promise<Claimed | undefined> {
  const nowIso = now.toISOString();
  // A mark of our own: two processes claiming in the same millisecond must not share one.
  const until = `${new Date(now.getTime() + leaseMs).toISOString()}#${Math.random().toString(36).slice(2, 10)}`;
  if (!(await takePublishLease(db, postomatId, until, nowIso))) return undefined;
  const row = await leasedVersions(db, postomatId);
  return {
    version: Number(row.version),
    publishedVersion: Number(row.publishedVersion),
    floor: Number(row.floor),
    until,
  };
}

/** The delta up to `published` is out (when given), and the claim is given up. */
export async function releasePublishing(db: Db, postomatId: string, claim: Claimed, published?: number): Promise<void> {
  if (published !== undefined) await markPublished(db, postomatId, published);
  await releasePublishLease(db, postomatId, claim.until);
}
