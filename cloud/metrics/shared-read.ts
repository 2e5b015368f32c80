/**
 * A read of the database that gauges share when scraped: every gauge of one scrape, and the
 * scrapes of several Prometheus servers, within `freshMs` get the same answer. A read that
 * fails, or takes longer than `timeoutMs`, answers undefined and leaves the gauges unset
 * rather than holding the scrape.
 */
export function sharedRead<T>(
  read: () => Promise<T>,
  freshMs: number,
  timeoutMs?: number,
): () => Promise<T | undefined> {
  let last: { at: number; answer: Promise<T | undefined> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > freshMs) {
      const answer = read().catch(() => undefined);
      if (timeoutMs === undefined) {
        last = { at: now, answer };
      } else {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
        last = { at: now, answer: Promise.race([answer, late]).finally(() => clearTimeout(timer)) };
      }
    }
    return last.answer;
  };
}
