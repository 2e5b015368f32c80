/**
 * Which process publishes a locker's delta. Every cloud process hears of every change (its own
 * commits, the others' through the database) and runs a publishing round; without a claim each
 * of them sent the same delta. The claim is a lease in locker_sync: taken with one conditional
 * update, so one process wins; released when the delta is out (or could not be handed to the
 * broker); left to expire when its process dies mid-publish, after which any process (at its
 * next wake-up or poll) publishes again — a duplicate the agent takes as a no-op, never a loss.
 */
import type { Db } from '../storage/database.ts';
import { releasePublishLeases, takePublishLeases } from '../storage/locker-sync-queries.ts';

/** Longer than a publish takes on a healthy link; what a crash delays a delta by at most (plus a poll). */
export const PUBLISH_CLAIM_MS = 10_000;

export interface Claimed {
  postomatId: string;
  version: number;
  publishedVersion: number;
  floor: number;
}

/**
 * The leases of one round, taken together and given up together: a commit (on SQLite a sync of
 * the log to disk) per round, not two or three per locker, which under a stream of creates cost
 * more than the creates' own commits.
 */
export interface Claim {
  /** the lockers this process won, with their versions */
  lockers: Claimed[];
  /** the round's own mark, to release its leases and only them */
  until: string;
}

export async function claimPublishing(
  db: Db,
  postomatIds: string[],
  now: Date,
  leaseMs = PUBLISH_CLAIM_MS,
): Promise<Claim> {
  // A mark of our own: two processes claiming in the same millisecond must not share one.
  const until = `${new Date(now.getTime() + leaseMs).toISOString()}#${Math.random().toString(36).slice(2, 10)}`;
  if (postomatIds.length === 0) return { lockers: [], until };
  const rows = await takePublishLeases(db, postomatIds, until, now.toISOString());
  return {
    lockers: rows.map((r) => ({
      postomatId: r.postomatId,
      version: Number(r.version),
      publishedVersion: Number(r.publishedVersion),
      floor: Number(r.floor),
    })),
    until,
  };
}

/** The deltas in `published` are out (each up to its version), and the round's leases are given up. */
export async function releasePublishing(
  db: Db,
  claim: Claim,
  published: ReadonlyArray<{ postomatId: string; version: number }>,
): Promise<void> {
  if (claim.lockers.length === 0) return;
  await releasePublishLeases(db, claim.until, published, claim.lockers.length);
}
