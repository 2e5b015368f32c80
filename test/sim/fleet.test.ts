import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type FleetHandle } from '../../hardware-sim/fleet.ts';

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function poll<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('simulator fleet and control API', () => {
  let fleet: FleetHandle;
  let url: string;
  before(async () => {
    fleet = await startFleet({
      transport: 'pty',
      port: 0,
      lockers: [
        {
          id: 'alpha',
          boards: [0],
          sizes: ['S', 'M'],
          orders: [
            {
              orderId: 'o1',
              codes: { DOWN: '1234', UP: '5678', SUBTRACT: '9012' },
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

  it('lists the lockers with their boards', async () => {
    const { status, json } = await call(url, 'GET', '/lockers');
    assert.equal(status, 200);
    assert.deepEqual(
      json.map((l: any) => l.id),
      ['alpha', 'beta'],
    );
    assert.deepEqual(
      json[1].boards.map((b: any) => b.address),
      [0, 1],
    );
    assert.equal(typeof json[0].agentPid, 'number', 'pty lockers run the agent as a process');
  });

  it('lists cells as the hardware and as the agent sees them', async () => {
    const { json } = await call(url, 'GET', '/lockers/beta/cells');
    assert.deepEqual(
      json.hardware.map((c: any) => c.cellId),
      ['1', '2'],
    );
    assert.deepEqual(
      json.agent.map((c: any) => c.state),
      ['OK', 'OK'],
    );
  });

  it('answers a typed code with what the locker shows: a wrong code at once, or with waitMs 0 nothing', async () => {
    const wrong = await call(url, 'POST', '/lockers/beta/keypad', { code: '4444' });
    assert.deepEqual(wrong, { status: 200, json: { typed: true, display: 'Wrong code' } });
    assert.deepEqual((await call(url, 'POST', '/lockers/beta/keypad', { code: '4445', waitMs: 0 })).json, {
      typed: true,
    });
    // The unwaited code is still answered on the display.
    await poll('second wrong code on display', async () =>
      (await call(url, 'GET', '/lockers/beta/display')).json.lines.filter((l: string) => l === 'Wrong code').length ===
      2
        ? true
        : undefined,
    );
    assert.equal((await call(url, 'POST', '/lockers/beta/keypad', { code: '4446', waitMs: -1 })).status, 400);
  });

  it('drives a placement end to end: code, display, parcel, door, PLACED', async () => {
    const typed = await call(url, 'POST', '/lockers/alpha/keypad', { code: '1234' });
    assert.equal(typed.status, 200);
    assert.equal(typed.json.display, 'Cell 1 is open: put the parcel in and close the door');
    assert.equal((await call(url, 'GET', '/lockers/alpha/display')).json.last, typed.json.display);
    assert.equal((await call(url, 'POST', '/lockers/alpha/cells/1/parcel', { present: true })).json.parcel, true);
    await call(url, 'POST', '/lockers/alpha/cells/1/close');
    const placed = await poll('PLACED', async () =>
      (await call(url, 'GET', '/lockers/alpha/events')).json.outbox.find((e: any) => e.type === 'PLACED'),
    );
    assert.equal(placed.orderId, 'o1');
    assert.equal(placed.cellId, '1');
    // The agent's own log, as on the board, with the code masked.
    const log = (await call(url, 'GET', '/lockers/alpha/log')).json.lines.join('\n');
    assert.match(log, /→ DOWN order o1/);
    assert.doesNotMatch(log, /1234/);
  });

  it('loads orders given as a plain list', async () => {
    const orders = [
      {
        orderId: 'o2',
        codes: { DOWN: '1111', UP: '2222', SUBTRACT: '3333' },
        notPaidAmount: 0,
        status: 'CREATED',
        cellSize: 'L',
      },
    ];
    const { status, json } = await call(url, 'POST', '/lockers/beta/orders', orders);
    assert.equal(status, 200);
    assert.equal(json.applied, true);
  });

  it('refuses to put a parcel behind a closed door and rejects a bad body', async () => {
    assert.equal((await call(url, 'POST', '/lockers/beta/cells/1/parcel', { present: true })).status, 409);
    assert.equal((await call(url, 'POST', '/lockers/beta/keypad', { code: 'abc' })).status, 400);
    assert.equal((await call(url, 'GET', '/lockers/nope')).status, 404);
  });

  it('silences a board: its cells become unknown to the agent', async () => {
    await call(url, 'POST', '/lockers/beta/boards/1/silence', { silent: true });
    const state = await poll('cell 2 unknown', async () => {
      const { json } = await call(url, 'GET', '/lockers/beta/cells');
      const s = json.agent.find((c: any) => c.cellId === '2').state;
      return s === 'UNKNOWN' ? s : undefined;
    });
    assert.equal(state, 'UNKNOWN');
  });

  it('restarts an agent as a new process that keeps its store', async () => {
    const before = (await call(url, 'GET', '/lockers/alpha')).json.agentPid;
    const { json } = await call(url, 'POST', '/lockers/alpha/agent/restart', { kill: true });
    assert.notEqual(json.agentPid, before);
    const events = (await call(url, 'GET', '/lockers/alpha/events')).json.outbox;
    assert.equal(events.filter((e: any) => e.type === 'PLACED').length, 1);
  });

  it('runs a return (issue 22): the sender drops off with the DOWN code, a courier collects with the UP code', async () => {
    const orders = [
      {
        orderId: 'o1',
        codes: { DOWN: '1234', UP: '5678', SUBTRACT: '9012' },
        notPaidAmount: 0,
        status: 'DELIVERED',
        cellId: '1',
      },
      {
        orderId: 'r1',
        codes: { DOWN: '4011', UP: '4012', SUBTRACT: '4013' },
        notPaidAmount: 0,
        status: 'CREATED',
        kind: 'RETURN',
      },
    ];
    assert.equal((await call(url, 'POST', '/lockers/alpha/orders', orders)).json.applied, true);
    const dropOff = await call(url, 'POST', '/lockers/alpha/keypad', { code: '4011' });
    assert.equal(dropOff.json.display, 'Cell 2 is open: put your return in and close the door');
    await call(url, 'POST', '/lockers/alpha/cells/2/parcel', { present: true });
    await call(url, 'POST', '/lockers/alpha/cells/2/close');
    const placed = await poll('PLACED of the return', async () =>
      (await call(url, 'GET', '/lockers/alpha/events')).json.outbox.find(
        (e: any) => e.type === 'PLACED' && e.orderId === 'r1',
      ),
    );
    assert.equal(placed.cellId, '2');
    await poll('the display: Return dropped off in cell 2. Thank you', async () =>
      (await call(url, 'GET', '/lockers/alpha/display')).json.last === 'Return dropped off in cell 2. Thank you'
        ? true
        : undefined,
    );
    const collect = await call(url, 'POST', '/lockers/alpha/keypad', { code: '4012' });
    assert.equal(collect.json.display, 'Cell 2 is open: collect the return and close the door');
    await call(url, 'POST', '/lockers/alpha/cells/2/parcel', { present: false });
    await call(url, 'POST', '/lockers/alpha/cells/2/close');
    await poll('PICKED_UP of the return', async () =>
      (await call(url, 'GET', '/lockers/alpha/events')).json.outbox.find(
        (e: any) => e.type === 'PICKED_UP' && e.orderId === 'r1',
      ),
    );
    await poll('the display: Return collected from cell 2', async () =>
      (await call(url, 'GET', '/lockers/alpha/display')).json.last === 'Return collected from cell 2'
        ? true
        : undefined,
    );
  });

  it('names the field of a bad body or path: orders, commands, boards', async () => {
    const orders = await call(url, 'POST', '/lockers/beta/orders', [{ orderId: 'x' }]);
    assert.equal(orders.status, 400);
    assert.match(orders.json.error, /at \[0\]\.codes/);
    const command = await call(url, 'POST', '/lockers/beta/commands', { commandId: 'c1', type: 'RESYNC' });
    assert.equal(command.status, 400);
    assert.match(command.json.error, /at v/);
    assert.deepEqual(await call(url, 'POST', '/lockers/beta/boards/abc/delay', { ms: 10 }), {
      status: 404,
      json: { error: 'no board abc in locker beta' },
    });
    assert.match(
      (await call(url, 'POST', '/lockers/beta/keypad', { code: '1'.repeat(17) })).json.error,
      /1 to 16 digits/,
    );
  });

  it('makes plain orders a snapshot newer than a sync message posted before them', async () => {
    // o2 stays: the jam test below types its code.
    const orders = [
      {
        orderId: 'o2',
        codes: { DOWN: '1111', UP: '2222', SUBTRACT: '3333' },
        notPaidAmount: 0,
        status: 'CREATED',
        cellSize: 'L',
      },
      { orderId: 'o9', codes: { DOWN: '9901', UP: '9902', SUBTRACT: '9903' }, notPaidAmount: 0, status: 'CREATED' },
    ];
    const message = await call(url, 'POST', '/lockers/beta/orders', {
      v: '1.0',
      version: 40,
      full: true,
      upserts: orders,
      removals: [],
    });
    assert.equal(message.json.version, 40);
    const plain = await call(url, 'POST', '/lockers/beta/orders', orders);
    assert.equal(plain.json.applied, true);
    assert.equal(plain.json.version, 41);
  });

  it('jams a lock so the agent reports a cell fault', async () => {
    await call(url, 'POST', '/lockers/beta/boards/1/silence', { silent: false });
    await call(url, 'POST', '/lockers/beta/cells/1/jam', { jammed: true });
    await call(url, 'POST', '/lockers/beta/keypad', { code: '1111' });
    const fault = await poll('CELL_FAULT', async () =>
      (await call(url, 'GET', '/lockers/beta/events')).json.outbox.find(
        (e: any) => e.type === 'CELL_FAULT' && e.cellId === '1',
      ),
    );
    assert.equal(fault.fault, 'JAMMED');
  });
});

describe('simulator start on a port that is taken', () => {
  it('says so and leaves no pseudo-terminal process behind', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), 'sim-taken-'));
    try {
      await assert.rejects(
        startFleet({ transport: 'pty', port, dir, lockers: [{ id: 'solo', boards: [0], sizes: ['S'] }] }),
        new RegExp(`port ${port} on 127.0.0.1 is taken`),
      );
      assert.equal(spawnSync('pgrep', ['-f', dir]).status, 1, 'no socat or agent still runs on the fleet folder');
    } finally {
      blocker.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('simulator start with a bad cell map', () => {
  it('names the locker whose config is wrong', async () => {
    await assert.rejects(
      startFleet({
        transport: 'memory',
        lockers: [{ id: 'north', boards: [0], cells: [{ cellId: '1', board: 3, lock: 1, size: 'S' }] }],
      }),
      /locker north: invalid locker-agent config:[\s\S]*board 3 is not listed in boards/,
    );
  });
});
