/**
 * Which process publishes a locker's delta. Every cloud process hears of every change (its own
 * commits, the others' through the database) and runs a publishing round; without a claim each
 * of them sent the same delta. The claim is a lease in locker_sync (`publishClaimedUntil`, its
 * end and its holder's mark: `<ISO time>#<mark>`), taken in one of two ways, so one process wins:
 * - in the transaction of the change itself, by the process that made it and can publish
 *   (`PublishLeases.next`, recordLockerChange): its publisher then sends the delta with no
 *   transaction of its own;
 * - by a publishing round, with one conditional update (`claimPublishing`), for changes whose
 *   lease nobody took (another process's, the operator CLI's) or whose lease ran out.
 * A lease is given up, and the published mark moved, a moment after the delta is out, together
 * with the others published meanwhile (sync/publisher.ts); a lease whose process died
 * mid-publish expires, after which any process (at its next wake-up or poll) publishes again —
 * a duplicate the agent takes as a no-op, never a loss.
 */
import crypto from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../storage/database.ts';
import { releasePublishLeases, takePublishLeases } from '../storage/locker-sync-queries.ts';

/** Longer than a publish takes on a healthy link; what a crash delays a delta by at most (plus a poll). */
export const PUBLISH_CLAIM_MS = 10_000;

const newMark = () => crypto.randomBytes(6).toString('base64url');

/** A lease value: when it ends, and whose it is. */
const leaseValue = (now: Date, leaseMs: number, mark: string) =>
  `${new Date(now.getTime() + leaseMs).toISOString()}#${mark}`;

/**
 * This process's leases: all carry one mark, so a round can tell its own in the rows it reads.
 * `active` says whether a change's transaction may take one: only while this process's
 * publisher runs and reaches the broker, or the lease would hold the delta back from the
 * processes that could send it until it expires.
 */
export class PublishLeases {
  readonly mark = newMark();
  active: () => boolean = () => false;

  constructor(
    private readonly clock: Clock,
    readonly leaseMs = PUBLISH_CLAIM_MS,
  ) {}

  /** The lease a change's transaction takes for its locker, if the locker has none running. */
  next(): { lease: string; nowIso: string } | undefined {
    if (!this.active()) return undefined;
    const now = this.clock.now();
    return { lease: leaseValue(now, this.leaseMs, this.mark), nowIso: now.toISOString() };
  }

  /** Whether `lease` is one of this process's and still running at `nowIso`. */
  ours(lease: string | null | undefined, nowIso: string): boolean {
    return !!lease && lease.endsWith(`#${this.mark}`) && lease > nowIso;
  }
}

export interface Claimed {
  postomatId: string;
  version: number;
  publishedVersion: number;
  floor: number;
}

/**
 * The leases of one round, taken together: one commit per round, not one per locker, which
 * under a stream of creates cost more than the creates' own commits.
 */
export interface Claim {
  /** the lockers this process won, with their versions */
  lockers: Claimed[];
  /** the round's lease value, to release its leases and only them */
  until: string;
}

export async function claimPublishing(
  db: Db,
  postomatIds: string[],
  now: Date,
  leaseMs = PUBLISH_CLAIM_MS,
  // A mark of its own unless a process's: two claimers in the same millisecond must not share one.
  mark = newMark(),
): Promise<Claim> {
  const until = leaseValue(now, leaseMs, mark);
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
