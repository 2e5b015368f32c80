/**
 * Bench-only variant of cloud/storage/end-of-turn.ts: every read runs where it is asked for, as
 * before the end-of-turn batching. bench:api starts a second cloud with this module in place of
 * the real one (hook.mjs), to measure what the batching is worth, like for like, in the same run.
 * Same exports and behaviour otherwise (a read's answer still comes through a promise).
 */
export function queueAtEndOfTurn(job: () => void): void {
  job();
}

export function atEndOfTurn<T>(read: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(read()));
}
