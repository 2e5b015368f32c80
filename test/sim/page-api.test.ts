/**
 * What the simulator page reads from the control API, without a browser: the page's files, the
 * fleet's descriptions, the live log stream (codes masked), the cloud's view when the simulator
 * knows the cloud, and the guards of a server a browser can reach.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_STREAMS } from '../../hardware-sim/activity-stream.ts';
import { startFleet, type FleetHandle } from '../../hardware-sim/fleet.ts';
import { fleetOfCloudLockers } from '../../hardware-sim/cloud-fleet.ts';
import type { ActivityEntry } from '../../hardware-sim/locker-activity.ts';
import { adjustBalance, getLockerCompany } from '../../cloud/services/admin/companies.ts';
import { localCloudView } from '../../scripts/sim-cloud-view.ts';
import { DIALECTS } from '../helpers/storage.ts';
import {
  CELLS,
  codesOf,
  startSyncWorld,
  until,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A server-sent event stream read as it comes. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  let text = '';
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of res.body!) text += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch {
      // aborted by close()
    }
  })();
  const entries = (): ActivityEntry[] => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
  return {
    res,
    get text() {
      return text;
    },
    entries,
    /** The first entry matching, once it has arrived. */
    entry: (what: string, match: (e: ActivityEntry) => boolean) => until(what, () => entries().find(match)),
    close: () => abort.abort(),
  };
}

describe('the page and its JSON, without a cloud', () => {
  let fleet: FleetHandle;
  let url: string;
  before(async () => {
    fleet = await startFleet({
      transport: 'memory',
      port: 0,
      lockers: [
        {
          id: 'alpha',
          title: 'Alpha Mall',
          boards: [0],
          sizes: ['S', 'M'],
          orders: [
            {
              orderId: 'o1',
              codes: { DOWN: '4711', UP: '5822', SUBTRACT: '6933' },
              notPaidAmount: 0,
              status: 'CREATED',
            },
          ],
        },
        { id: 'beta', boards: [0, 1], sizes: ['L'] },
      ],
    });
    url = fleet.url!;
  });
  after(() => fleet.close());

  it('serves the page, its script and its style from this origin only, and nothing else of the disk', async () => {
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'self'/);
    const html = await page.text();
    assert.match(html, /<script type="module" src="\/app.js"><\/script>/);
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN, no outside address');
    assert.match((await fetch(`${url}/app.js`)).headers.get('content-type')!, /^text\/javascript/);
    assert.match((await fetch(`${url}/style.css`)).headers.get('content-type')!, /^text\/css/);
    for (const path of ['/web/app.js', '/index.html', '/%2e%2e/package.json', '/app.js/..%2f..%2fpackage.json']) {
      assert.equal((await fetch(url + path)).status, 404, path);
    }
  });

  it('describes each locker for the fleet: title, state, cells in use, faults', async () => {
    const { json } = await call(url, 'GET', '/lockers');
    assert.deepEqual(
      json.map((l: any) => [l.id, l.title, l.state, l.network, l.cloudOnline]),
      [
        ['alpha', 'Alpha Mall', 'standalone', null, null],
        ['beta', null, 'standalone', null, null],
      ],
    );
    assert.deepEqual(json[0].cells, { total: 2, parcels: 0, open: 0, jammed: 0, unknown: 0, broken: 0 });
    await call(url, 'POST', '/lockers/beta/boards/1/silence', { silent: true });
    const beta = await until('board 1 unknown to the agent', async () => {
      const b = (await call(url, 'GET', '/lockers/beta')).json;
      return b.cells.unknown === 1 ? b : undefined;
    });
    assert.deepEqual(
      beta.boards.map((b: any) => b.silent),
      [false, true],
    );
    await call(url, 'POST', '/lockers/beta/boards/1/silence', { silent: false });
    await call(url, 'POST', '/lockers/beta/cells/1/jam', { jammed: true });
    assert.equal((await call(url, 'GET', '/lockers/beta')).json.cells.jammed, 1);
    await call(url, 'POST', '/lockers/beta/cells/1/jam', { jammed: false });
  });

  it('streams the live log: the code masked, the display, the unlock frame, door and parcel, the event; a reconnect resumes after Last-Event-ID', async () => {
    const stream = await openStream(`${url}/lockers/alpha/stream`);
    try {
      assert.equal(stream.res.headers.get('content-type'), 'text/event-stream');
      assert.equal(
        (await call(url, 'POST', '/lockers/alpha/keypad', { code: '4711' })).json.display,
        'Cell 1 is open: put the parcel in and close the door',
      );
      await stream.entry('the open door', (e) => e.kind === 'hardware' && e.text === 'cell 1: door open');
      await call(url, 'POST', '/lockers/alpha/cells/1/parcel', { present: true });
      await call(url, 'POST', '/lockers/alpha/cells/1/close');
      await stream.entry(
        'PLACED',
        (e) => e.kind === 'event' && e.text === 'PLACED order o1 cell 1: kept in the outbox (no cloud link)',
      );
      const seen = stream.entries().map((e) => `${e.kind}: ${e.text}`);
      for (const line of [
        'keypad: code **** typed',
        'bus: unlock cell 1 (board 0 lock 1): 02 00 31 03 36',
        'display: Cell 1 is open: put the parcel in and close the door',
        'hardware: cell 1: parcel put in',
        'hardware: cell 1: door closed',
      ]) {
        assert.ok(seen.includes(line), `${line} missing from\n${seen.join('\n')}`);
      }
      assert.ok(
        seen.indexOf('hardware: cell 1: door closed') < seen.findIndex((l) => l.startsWith('display: Parcel placed')),
        'the door closes before the agent says so',
      );
      assert.doesNotMatch(stream.text, /4711/, 'the code itself never reaches the log');
      assert.ok(
        seen.some((l) => /^agent: .*code \*\*\*\* → DOWN order o1/.test(l)),
        "the agent's own log, masked by the agent",
      );

      // The seqs increase; a reconnect with Last-Event-ID gets only what came after it.
      const seqs = stream.entries().map((e) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
      );
      const middle = seqs[Math.floor(seqs.length / 2)];
      const again = await openStream(`${url}/lockers/alpha/stream`, { 'last-event-id': String(middle) });
      try {
        const first = await until('the replay', () => again.entries()[0]);
        assert.equal(first.seq, middle + 1);
      } finally {
        again.close();
      }
      const { json } = await call(url, 'GET', `/lockers/alpha/activity?after=${middle}`);
      assert.equal(json.entries[0].seq, middle + 1);
    } finally {
      stream.close();
    }
  });

  it("logs an agent restart, and the new agent's lines after it", async () => {
    const { json: before } = await call(url, 'GET', '/lockers/beta/activity');
    const last = before.entries.at(-1).seq;
    assert.equal((await call(url, 'POST', '/lockers/beta/agent/restart', { kill: true })).status, 200);
    const entries = await until('the restart in the log', async () => {
      const { json } = await call(url, 'GET', `/lockers/beta/activity?after=${last}`);
      return json.entries.some((e: ActivityEntry) => e.kind === 'agent' && /ready: 2 cells/.test(e.text))
        ? (json.entries as ActivityEntry[])
        : undefined;
    });
    const texts = entries.map((e) => `${e.kind}: ${e.text}`);
    assert.ok(
      texts.indexOf('agent: agent restarted') < texts.findIndex((t) => /ready: 2 cells/.test(t)),
      texts.join('\n'),
    );
  });

  it('says there is no cloud when the simulator was started without one', async () => {
    const read = await call(url, 'GET', '/lockers/alpha/cloud');
    assert.equal(read.status, 409);
    assert.match(read.json.error, /started without a cloud/);
    assert.equal((await call(url, 'POST', '/lockers/alpha/cloud/orders', {})).status, 409);
  });

  it("refuses another site's requests, an oversized body, and streams beyond the limit", async () => {
    const host = new URL(url).host;
    const foreign = await call(
      url,
      'POST',
      '/lockers/beta/cells/1/jam',
      { jammed: true },
      { origin: 'http://evil.example' },
    );
    assert.equal(foreign.status, 403);
    assert.equal((await call(url, 'GET', '/lockers/beta/cells')).json.hardware[0].jammed, false, 'nothing done');
    assert.equal(
      (await call(url, 'POST', '/lockers/beta/cells/1/jam', { jammed: false }, { origin: `http://${host}` })).status,
      200,
    );

    const big = await call(url, 'POST', '/lockers/beta/orders', { orders: [], pad: 'x'.repeat(1024 * 1024) });
    assert.equal(big.status, 413);

    const streams = [];
    try {
      for (let i = 0; i < MAX_STREAMS; i++) streams.push(await openStream(`${url}/lockers/beta/stream`));
      assert.ok(streams.every((s) => s.res.status === 200));
      const refused = await fetch(`${url}/lockers/beta/stream`);
      assert.equal(refused.status, 503);
      assert.match((await refused.json()).error, /too many open streams/);
    } finally {
      for (const s of streams) s.close();
    }
    assert.equal(
      await until('a stream slot free again', async () => {
        const res = await fetch(`${url}/lockers/beta/stream`, { signal: AbortSignal.timeout(2_000) }).catch(
          () => undefined,
        );
        if (res?.status !== 200) return undefined;
        await res.body?.cancel();
        return res.status;
      }),
      200,
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] the cloud as the page sees it`, () => {
    let w: SyncWorld;
    let fleet: FleetHandle;
    let locker: CloudLocker;
    let url: string;
    before(async () => {
      w = await startSyncWorld(dialect, { orderPrice: 1_500 });
      locker = await w.newLocker('Page Mall');
      fleet = await startFleet({
        lockers: fleetOfCloudLockers([{ ...locker, title: 'Page Mall', cells: CELLS }], w.mqttUrl),
        transport: 'memory',
        port: 0,
        cloud: localCloudView(w.cloud.deps, { companyId: w.company.id }),
      });
      url = fleet.url!;
      await untilOnline(w, locker.id);
    });
    after(async () => {
      await fleet?.close();
      await w?.close();
    });

    it("makes a test order with its codes, and lists the locker's orders as the cloud holds them", async () => {
      const made = await call(url, 'POST', `/lockers/${locker.id}/cloud/orders`, { pay: false });
      assert.equal(made.status, 200);
      assert.deepEqual(made.json.codes, await codesOf(w, made.json.orderId));
      const other = await w.createOrder(locker.id, { pay: true });
      const { status, json } = await call(url, 'GET', `/lockers/${locker.id}/cloud`);
      assert.equal(status, 200);
      assert.equal(json.online, true);
      assert.deepEqual(
        json.orders.map((o: any) => [o.orderId, o.status, o.cell, o.endDateTime, o.notPaidAmount]),
        [
          [other.id, 'CREATED', null, null, 0],
          [made.json.orderId, 'CREATED', null, null, 1_500],
        ],
      );
      assert.doesNotMatch(JSON.stringify(json), new RegExp(made.json.codes.DOWN), 'no codes in the list');
      const [described] = (await call(url, 'GET', '/lockers')).json;
      assert.deepEqual(
        [described.title, described.state, described.network, described.cloudOnline],
        [`${locker.shortId} Page Mall`, 'online', 'on', true],
      );
    });

    it('a cut network is the locker offline as the cloud sees it, and online again after', async () => {
      assert.deepEqual((await call(url, 'POST', `/lockers/${locker.id}/network`, { online: false })).json, {
        online: false,
      });
      await untilOnline(w, locker.id, false);
      const off = (await call(url, 'GET', `/lockers/${locker.id}`)).json;
      assert.deepEqual([off.state, off.network, off.cloudOnline], ['offline', 'cut', false]);
      await call(url, 'POST', `/lockers/${locker.id}/network`, { online: true });
      await untilOnline(w, locker.id);
      const on = (await call(url, 'GET', `/lockers/${locker.id}`)).json;
      assert.deepEqual([on.state, on.network, on.cloudOnline], ['online', 'on', true]);
    });

    it('a test order the cloud refuses is a 409 with its reason', async () => {
      const { balance } = await getLockerCompany(w.db, w.company.id);
      await adjustBalance(w.db, w.company.id, -Number(balance), new Date());
      const refused = await call(url, 'POST', `/lockers/${locker.id}/cloud/orders`, { pay: true });
      assert.deepEqual(refused, {
        status: 409,
        json: { error: 'the cloud refused the test order: INSUFFICIENT_FUNDS' },
      });
    });
  });
}
