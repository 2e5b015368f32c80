/** Tables of migration 017 (a locker in the field). */

/** A one-time enrolment code: only its digest is kept; used once, within its time. */
export interface LockerEnrolmentTable {
  id: string;
  postomatId: string;
  /** SHA-256 of the normalised code (codes.ts) */
  codeHash: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** The last report of its kind per locker (health, self-test): replaced by the next one. */
export interface LockerReportTable {
  postomatId: string;
  /** the report as the agent sent it, validated (shared/mqtt/field.ts) */
  report: string;
  /** when the agent made it */
  at: string;
  receivedAt: string;
}
