/**
 * List answers `{ ...head, data: [...], ...tail }` whose data comes in batches (storage/batches.ts).
 *
 * An answer of one batch is written as any other: one JSON.stringify, one write with its
 * content-length. A longer one is streamed: the head, then each batch as it is read, yielding
 * to the event loop between batches and waiting for the socket to drain when it is full, so
 * other requests are served meanwhile and memory holds about one batch. Same bytes either way.
 *
 * Failures: one before the first byte (while the first two batches are read) becomes the spec's
 * error body as usual. Once the status line is out the answer cannot turn into an error, so a
 * failure cuts the connection: the client sees a truncated body (a chunked response without its
 * last chunk, invalid JSON) and a network error, never a well-formed partial list; the error is
 * logged by the error handler. A client that goes away stops the reading at the next batch.
 */
import type { Response } from 'express';
import { sendJson } from './send-json.ts';
import { collectBatches, nextTurn } from '../storage/batches.ts';

export class ListAnswer {
  constructor(
    /** fields before `data` (`total`) */
    readonly head: Record<string, unknown>,
    readonly batches: AsyncIterable<unknown[]>,
    /** fields after `data` (the order list's aggregates) */
    readonly tail: Record<string, unknown> = {},
  ) {}
}

/** The whole answer in memory: for lists whose size the spec bounds (the platform's pages of at most 500). */
export async function collectList(list: ListAnswer): Promise<Record<string, unknown>> {
  return { ...list.head, data: await collectBatches(list.batches), ...list.tail };
}

export async function sendList(res: Response, status: number, list: ListAnswer): Promise<void> {
  const batches = list.batches[Symbol.asyncIterator]();
  let next = await batches.next();
  const first = next.done ? [] : next.value;
  if (!next.done) next = await batches.next();
  if (next.done) return sendJson(res, status, { ...list.head, data: first, ...list.tail });

  let closed = false;
  res.once('close', () => (closed = true));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  if (res.req.method === 'HEAD') {
    await batches.return?.();
    res.end();
    return;
  }
  let items = 0;
  const write = async (text: string, batch: unknown[]) => {
    if (batch.length) {
      text += (items ? ',' : '') + JSON.stringify(batch).slice(1, -1);
      items += batch.length;
    }
    // One conversion: a string would be measured for its chunk header and then encoded again.
    if (text && !res.write(Buffer.from(text))) await drained(res);
  };
  try {
    await write(openingOf(list.head), first);
    await write('', next.value);
    for (;;) {
      // Other requests run between two batches, whatever the source of the batches.
      await nextTurn();
      if (closed) return void (await batches.return?.());
      next = await batches.next();
      if (next.done) break;
      await write('', next.value);
    }
    res.end(closingOf(list.tail));
  } catch (err) {
    res.destroy();
    await batches.return?.().catch(() => {});
    throw err;
  }
}

/** `{"total":3,"data":[` for head `{ total: 3 }`. */
function openingOf(head: Record<string, unknown>): string {
  const json = JSON.stringify(head);
  return `${json === '{}' ? '{' : `${json.slice(0, -1)},`}"data":[`;
}

/** `],"aggregate":{…}}` for a tail, `]}` for none. */
function closingOf(tail: Record<string, unknown>): string {
  const json = JSON.stringify(tail);
  return `]${json === '{}' ? '}' : `,${json.slice(1)}`}`;
}

/** Once the socket is gone, neither event comes again: a write to it returns false at once. */
function drained(res: Response): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
