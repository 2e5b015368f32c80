import type { ServerResponse } from 'node:http';
import type { LockerActivity } from './locker-activity.ts';
import { SimError } from './locker.ts';

/** Open streams at once, over every locker: a page holds one; a runaway client cannot hold the port. */
export const MAX_STREAMS = 32;
const KEEPALIVE_MS = 15_000;

/**
 * Server-sent events of locker activity. Each entry goes out as `event: entry` with its `seq`
 * as the event id, so a browser's EventSource that reconnects sends `Last-Event-ID` and gets
 * only what it missed. `end()` closes every open stream (the server cannot close while they last).
 */
export class ActivityStreams {
  private readonly open = new Set<ServerResponse>();

  /** Replays the entries after `after` (0: all kept ones), then follows. */
  serve(activity: LockerActivity, after: number, res: ServerResponse): void {
    if (this.open.size >= MAX_STREAMS) throw new SimError(503, `too many open streams (${MAX_STREAMS}): close a page`);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write('retry: 1000\n\n');
    const send = (e: { seq: number }) => void res.write(`id: ${e.seq}\nevent: entry\ndata: ${JSON.stringify(e)}\n\n`);
    for (const e of activity.since(after)) send(e);
    const unsubscribe = activity.subscribe(send);
    // Comments keep idle proxies and the browser from giving up on a quiet locker.
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    this.open.add(res);
    res.on('close', () => {
      clearInterval(keepalive);
      unsubscribe();
      this.open.delete(res);
    });
  }

  get size(): number {
    return this.open.size;
  }

  end(): void {
    for (const res of this.open) res.end();
  }
}
