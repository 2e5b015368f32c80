/**
 * Size-aware booking (issue 22) through the real path: HTTP → cloud → MQTT → agent → simulated
 * boards. A sized order is refused when nothing fits (PARCEL_TOO_BIG, NO_FITTING_CELL), placed in
 * a cell of its size or the next larger, never a smaller one; availability moves with orders,
 * placements and lapses; a lapsed reservation is EXPIRED, its DOWN code refused at the keypad;
 * concurrent creations never share the last cell; unsized orders answer as before.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../shared/clock.ts';
import { DIALECTS } from '../helpers/storage.ts';
import {
  BASE,
  agentOrder,
  codesOf,
  operatorProcess,
  startSyncWorld,
  untilAgent,
  untilOnline,
  useCell,
  until,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';
import { untilStatus } from '../sync/scenarios.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import type { CellInput } from '../../cloud/services/admin/cells.ts';
import { lapseReservations } from '../../cloud/services/order-expiry.ts';

/** One cell of each of S, M, L on board 0 (no XL). */
const SML: CellInput[] = (['S', 'M', 'L'] as const).map((size, i) => ({ number: i + 1, size, board: 0, lock: i + 1 }));
const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] size-aware booking`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    before(async () => {
      w = await startSyncWorld(dialect);
      locker = await w.newLocker('Sized', SML);
      sim = await w.startAgent(locker, { cells: SML });
      await untilOnline(w, locker.id);
      await until('every cell read', async () =>
        (await sim.agent.cells()).cells.every((c) => c.lockClosed !== null) ? true : undefined,
      );
    });
    after(async () => {
      await w.close();
    });

    const create = (body: Record<string, unknown>, lockerId = locker.id) =>
      w.cloud.request('POST', `${BASE}/order/create`, {
        token: w.company.key,
        body: { toUserPhone: '+996555000111', postomatId: lockerId, sendMessage: false, ...body },
      });
    const availability = async (lockerId = locker.id) => {
      const res = await w.cloud.request('GET', `${BASE}/postomat/${lockerId}/availability`, { token: w.company.key });
      assert.equal(res.status, 200, res.text);
      return Object.fromEntries(
        res.body.sizes.map((s: any) => [
          s.size,
          { cells: s.cells, free: s.free, promised: s.promised, available: s.available },
        ]),
      );
    };
    const lapseAt = (at: Date) =>
      lapseReservations(
        { uow: w.cloud.deps.uow, clock: new ManualClock(at), logger: w.cloud.deps.logger },
        { batch: 10 },
      );
    async function place(orderId: string): Promise<string> {
      const { DOWN } = await codesOf(w, orderId);
      await untilAgent(sim, orderId, 'order known', (o) => o?.codes.DOWN === DOWN);
      const cell = await typeAndWaitOpen(sim, DOWN);
      await useCell(sim, cell, true);
      await untilStatus(w, orderId, 'DELIVERED');
      return cell;
    }
    async function collect(orderId: string, cell: string) {
      const { UP } = await codesOf(w, orderId);
      assert.equal(await typeAndWaitOpen(sim, UP), cell);
      await useCell(sim, cell, false);
      await untilStatus(w, orderId, 'COMPLETED');
    }

    it("refuses bad sizing input with the spec's validation error", async () => {
      const both = await create({ cellSize: 'M', dimensions: { lengthMm: 100, widthMm: 100, heightMm: 100 } });
      assert.equal(both.status, 400);
      assert.equal(both.body.code, 'FST_ERR_VALIDATION');
      assert.match(both.body.message, /body\/dimensions must not be given with cellSize/);
      const past = await create({ cellSize: 'S', reserveUntil: new Date(Date.now() - 60_000).toISOString() });
      assert.equal(past.status, 400);
      assert.match(past.body.message, /reserveUntil must be in the future/);
      const far = await create({ cellSize: 'S', reserveUntil: new Date(Date.now() + 15 * 24 * HOUR).toISOString() });
      assert.equal(far.status, 400);
      assert.match(far.body.message, /at most 14 days/);
      const unsized = await create({ reserveUntil: new Date(Date.now() + HOUR).toISOString() });
      assert.equal(unsized.status, 400);
      assert.match(unsized.body.message, /reserveUntil must come with cellSize or dimensions/);
      const badSize = await create({ cellSize: 'XXL' });
      assert.equal(badSize.status, 400);
      const zero = await create({ dimensions: { lengthMm: 0, widthMm: 10, heightMm: 10 } });
      assert.equal(zero.status, 400);
    });

    it('PARCEL_TOO_BIG when no cell of the locker fits; an unsized order answers as the spec says', async () => {
      const huge = await create({ dimensions: { lengthMm: 900, widthMm: 900, heightMm: 900 } });
      assert.equal(huge.status, 409, huge.text);
      assert.equal(huge.body.message, 'PARCEL_TOO_BIG');
      // XL would fit, but this locker has no XL cell.
      const xl = await create({ cellSize: 'XL' });
      assert.equal(xl.status, 409);
      assert.equal(xl.body.message, 'PARCEL_TOO_BIG');
      const heavy = await create({ cellSize: 'S', weight: 40 });
      assert.equal(heavy.status, 409, 'heavier than any size takes');
      assert.equal(heavy.body.message, 'PARCEL_TOO_BIG');
      const plain = await create({});
      assert.equal(plain.status, 200);
      assert.ok(
        !('cellSize' in plain.body) && !('reserveUntil' in plain.body),
        'no extension fields on an unsized order',
      );
      const read = await w.cloud.request('GET', `${BASE}/order/${plain.body.id}`, { token: w.company.key });
      assert.ok(!('cellSize' in read.body));
      await untilAgent(sim, plain.body.id, 'unsized order known', (o) => o !== undefined);
      assert.equal(agentOrder(sim, plain.body.id)?.cellSize, null, 'the agent gets no size for it');
      assert.equal(
        (await w.cloud.request('POST', `${BASE}/order/${plain.body.id}/cancel`, { token: w.company.key })).status,
        200,
      );
      await untilAgent(sim, plain.body.id, 'unsized order dropped', (o) => o === undefined);
    });

    it('places a sized order in its size, then the next larger, never a smaller one; NO_FITTING_CELL when none is left', async () => {
      assert.deepEqual(await availability(), {
        S: { cells: 1, free: 1, promised: 0, available: 1 },
        M: { cells: 1, free: 1, promised: 0, available: 1 },
        L: { cells: 1, free: 1, promised: 0, available: 1 },
        XL: { cells: 0, free: 0, promised: 0, available: 0 },
      });
      // 300 × 150 × 120 mm: too high for S (80 mm), fits M.
      const first = await create({ dimensions: { lengthMm: 300, widthMm: 150, heightMm: 120 }, weight: 2 });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.cellSize, 'M');
      assert.ok(Date.parse(first.body.reserveUntil) - Date.now() > 71 * HOUR, 'held 72 hours by default');
      await untilAgent(sim, first.body.id, 'sized order known', (o) => o?.cellSize === 'M');
      const second = await create({ cellSize: 'M' });
      assert.equal(second.status, 200, second.text);
      // The second M order is promised the L cell: its own size is held.
      assert.deepEqual((await availability()).M, { cells: 1, free: 1, promised: 1, available: 0 });
      assert.deepEqual((await availability()).L, { cells: 1, free: 1, promised: 1, available: 0 });
      const third = await create({ cellSize: 'M' });
      assert.equal(third.status, 409, 'S is free, but never smaller');
      assert.equal(third.body.message, 'NO_FITTING_CELL');
      assert.equal((await create({ cellSize: 'S' })).status, 200, 'the S cell is still there for an S parcel');

      assert.equal(await place(first.body.id), '2', 'M order in the M cell');
      assert.deepEqual((await availability()).M, { cells: 1, free: 0, promised: 0, available: 0 });
      assert.equal(await place(second.body.id), '3', 'the next M order in the L cell, not the free S cell');
      const read = await w.order(second.body.id);
      assert.equal(read.cellSize, 'M');
      assert.equal(read.cell.size, 'L');
      assert.deepEqual((await availability()).L, { cells: 1, free: 0, promised: 0, available: 0 });

      // The parcels collected, their cells are free again.
      await collect(first.body.id, '2');
      await collect(second.body.id, '3');
      assert.deepEqual((await availability()).M, { cells: 1, free: 1, promised: 0, available: 1 });
    });

    it('a lapsed reservation is EXPIRED: capacity freed, its codes withdrawn from the locker, order.expired recorded', async () => {
      const sub = await w.cloud.request('POST', `${BASE}/webhook-subscriptions`, {
        token: w.company.key,
        body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['order.expired'] },
      });
      assert.equal(sub.status, 200, sub.text);
      const until1h = new Date(Date.now() + HOUR).toISOString();
      const res = await create({ cellSize: 'L', reserveUntil: until1h });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.reserveUntil, until1h);
      const { DOWN } = await codesOf(w, res.body.id);
      await untilAgent(sim, res.body.id, 'sized order known', (o) => o?.codes.DOWN === DOWN && o.cellSize === 'L');
      assert.equal((await availability()).L.promised, 1);
      assert.equal((await create({ cellSize: 'L' })).body.message, 'NO_FITTING_CELL');

      assert.equal(await lapseAt(new Date(Date.now() + 30 * 60_000)), 0, 'not before its deadline');
      assert.equal(await lapseAt(new Date(Date.now() + 2 * HOUR)), 1);
      const read = await w.cloud.request(
        'GET',
        `${BASE}/order/${res.body.id}?withCurrentStatus=true&withStatuses=true`,
        { token: w.company.key },
      );
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.currentStatus.type, 'EXPIRED');
      assert.deepEqual(
        read.body.statuses.map((s: any) => s.type),
        ['CREATED', 'EXPIRED'],
      );
      assert.equal(read.body.isActive, false);
      const listed = await w.cloud.request('GET', `${BASE}/order/list?pageSize=100`, { token: w.company.key });
      assert.ok(!listed.body.data.some((o: any) => o.id === res.body.id), 'out of the lists');
      assert.equal((await availability()).L.promised, 0, 'capacity freed');

      await untilAgent(sim, res.body.id, 'order dropped by the locker', (o) => o === undefined);
      const from = sim.displayLines.length;
      await sim.typeCode(DOWN);
      assert.match(await waitForDisplay(sim, /Wrong code/, from), /Wrong code/);
      const events = await w.cloud.request('GET', `${BASE}/webhook-subscriptions/events`, { token: w.company.key });
      const expired = events.body.data.filter((e: any) => e.data.object.id === res.body.id);
      assert.deepEqual(
        expired.map((e: any) => e.type),
        ['order.expired'],
      );
      assert.equal(expired[0].data.object.cellSize, 'L');
      const notices = await w.db
        .selectFrom('outbox_event')
        .select('event')
        .where('orderId', '=', res.body.id)
        .execute();
      assert.deepEqual(notices, [], 'no spec notification for EXPIRED');
      assert.equal(await lapseAt(new Date(Date.now() + 3 * HOUR)), 0, 'lapses once');
      const staff = await operatorProcess(w, ['order', 'list', '--locker', locker.id, '--status', 'EXPIRED', '--json']);
      assert.equal(staff.code, 0, staff.stderr);
      assert.deepEqual(
        JSON.parse(staff.stdout).map((o: any) => o.id),
        [res.body.id],
        'staff list it by its status',
      );
      await w.cloud.request('DELETE', `${BASE}/webhook-subscriptions/${sub.body.id}`, { token: w.company.key });
    });

    it('a parcel placed after the lapse (the locker offline) revives the order as DELIVERED', async () => {
      const res = await create({ cellSize: 'L', reserveUntil: new Date(Date.now() + HOUR).toISOString() });
      assert.equal(res.status, 200, res.text);
      const { DOWN } = await codesOf(w, res.body.id);
      await untilAgent(sim, res.body.id, 'order known', (o) => o?.codes.DOWN === DOWN);
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      assert.equal(await lapseAt(new Date(Date.now() + 2 * HOUR)), 1);
      const cell = await typeAndWaitOpen(sim, DOWN).catch((err) => {
        throw new Error(`${err.message}; display: ${sim.displayLines.slice(-5).join(' | ')}`);
      });
      assert.equal(cell, '3');
      await useCell(sim, cell, true);
      await sim.agent.setNetwork(true);
      await untilStatus(w, res.body.id, 'DELIVERED');
      const read = await w.order(res.body.id);
      assert.equal(read.isActive, true);
      // (The lapse ran on a clock two hours ahead, so its record sorts after the placement's.)
      assert.deepEqual(read.statuses.map((s: any) => s.type).sort(), ['CREATED', 'DELIVERED', 'EXPIRED']);
      assert.equal(read.currentStatusId, read.statuses.find((s: any) => s.type === 'DELIVERED').id);
      // The locker dropped it on reconnecting (the lapse), and holds it again once revived.
      const { UP } = await codesOf(w, res.body.id);
      await untilAgent(
        sim,
        res.body.id,
        'revived order held again',
        (o) => o?.status === 'DELIVERED' && o.codes.UP === UP,
      );
      await collect(res.body.id, cell);
    });

    it('concurrent creations never take the last cell twice', async () => {
      const one: CellInput[] = [{ number: 1, size: 'M', board: 0, lock: 1 }];
      const small = await w.newLocker('One cell', one);
      const answers = await Promise.all(Array.from({ length: 8 }, () => create({ cellSize: 'M' }, small.id)));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409, 409, 409], answers.map((a) => a.text).join('\n'));
      assert.ok(answers.filter((a) => a.status === 409).every((a) => a.body.message === 'NO_FITTING_CELL'));
      assert.deepEqual((await availability(small.id)).M, { cells: 1, free: 1, promised: 1, available: 0 });
    });

    it("the operator sets a locker's own inner dimensions for a size, and resets them", async () => {
      const own = await w.newLocker('Own sizes', SML);
      const parcel = { dimensions: { lengthMm: 300, widthMm: 200, heightMm: 150 } };
      assert.equal((await create(parcel, own.id)).body.cellSize, 'M', 'too high for the default S (80 mm)');
      const set = await operatorProcess(w, [
        'cell',
        'size-spec',
        '--locker',
        own.id,
        '--size',
        'S',
        '--length-mm',
        '400',
        '--width-mm',
        '300',
        '--height-mm',
        '160',
        '--max-weight-kg',
        '10',
      ]);
      assert.equal(set.code, 0, set.stderr);
      const read = await w.cloud.request('GET', `${BASE}/postomat/${own.id}/availability`, { token: w.company.key });
      assert.deepEqual(read.body.sizes[0].inner, { lengthMm: 400, widthMm: 300, heightMm: 160, maxWeightKg: 10 });
      assert.equal((await create(parcel, own.id)).body.cellSize, 'S', "fits this locker's taller S");
      assert.equal((await create({ ...parcel, weight: 12 }, own.id)).body.cellSize, 'M', 'too heavy for its S (10 kg)');
      // S, M and L are now each held: the M orders hold M and L, the S order S.
      assert.equal((await create(parcel, own.id)).body.message, 'NO_FITTING_CELL');
      const reset = await operatorProcess(w, [
        'cell',
        'size-spec',
        '--locker',
        own.id,
        '--size',
        'S',
        '--reset',
        'true',
      ]);
      assert.equal(reset.code, 0, reset.stderr);
      const after = await w.cloud.request('GET', `${BASE}/postomat/${own.id}/availability`, { token: w.company.key });
      assert.equal(after.body.sizes[0].inner.heightMm, 80);
      const bad = await operatorProcess(w, [
        'cell',
        'size-spec',
        '--locker',
        own.id,
        '--size',
        'S',
        '--length-mm',
        '400',
      ]);
      assert.notEqual(bad.code, 0, 'all four values or --reset');
    });

    it('with an Idempotency-Key a repeated sized create answers the same order and holds one cell', async () => {
      const one = await w.newLocker('Keyed', [{ number: 1, size: 'S', board: 0, lock: 1 }]);
      const body = {
        toUserPhone: '+996555000111',
        postomatId: one.id,
        sendMessage: false,
        cellSize: 'S',
        reserveUntil: new Date(Date.now() + HOUR).toISOString(),
      };
      const keyed = (b: unknown) =>
        w.cloud.request('POST', `${BASE}/order/create`, {
          token: w.company.key,
          body: b,
          headers: { 'Idempotency-Key': `sized-${one.id}` },
        });
      const first = await keyed(body);
      assert.equal(first.status, 200, first.text);
      const again = await keyed(body);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.id, first.body.id);
      assert.deepEqual((await availability(one.id)).S, { cells: 1, free: 1, promised: 1, available: 0 });
      const past = await w.cloud.request('POST', `${BASE}/order/create`, {
        token: w.company.key,
        body: { ...body, reserveUntil: new Date(Date.now() - HOUR).toISOString() },
        headers: { 'Idempotency-Key': `past-${one.id}` },
      });
      assert.equal(past.status, 400, 'a keyed request is checked too');
    });

    it('a sized order redirected holds its size at the target, refused there as a new order would be', async () => {
      const cell = (size: 'S' | 'M' | 'L', n = 1) => ({ number: n, size, board: 0, lock: n });
      const from = await w.newLocker('Redirect from', [cell('M')]);
      const smallOnly = await w.newLocker('Small only', [cell('S')]);
      const full = await w.newLocker('M taken', [cell('M')]);
      const roomy = await w.newLocker('Roomy', [cell('M'), cell('L', 2)]);
      const sized = await create({ cellSize: 'M' }, from.id);
      assert.equal(sized.status, 200, sized.text);
      assert.equal((await create({ cellSize: 'M' }, full.id)).status, 200);
      const redirect = (to: string) =>
        w.cloud.request('POST', `${BASE}/order/${sized.body.id}/redirect`, {
          token: w.company.key,
          body: { postomatId: to },
        });
      const tooBig = await redirect(smallOnly.id);
      assert.equal(tooBig.status, 409, tooBig.text);
      assert.equal(tooBig.body.message, 'PARCEL_TOO_BIG');
      const noRoom = await redirect(full.id);
      assert.equal(noRoom.status, 409, noRoom.text);
      assert.equal(noRoom.body.message, 'NO_FITTING_CELL');
      assert.deepEqual(
        (await availability(from.id)).M,
        { cells: 1, free: 1, promised: 1, available: 0 },
        'a refused redirect leaves the order where it was',
      );
      const moved = await redirect(roomy.id);
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.cellSize, 'M');
      assert.equal(moved.body.reserveUntil, sized.body.reserveUntil, 'the reservation keeps its end');
      assert.deepEqual((await availability(from.id)).M, { cells: 1, free: 1, promised: 0, available: 1 });
      assert.deepEqual((await availability(roomy.id)).M, { cells: 1, free: 1, promised: 1, available: 0 });
    });

    it('availability of an unknown locker is 404', async () => {
      const res = await w.cloud.request('GET', `${BASE}/postomat/ckx1a2b3c4d5e6f7g8h9i0j1/availability`, {
        token: w.company.key,
      });
      assert.equal(res.status, 404);
      assert.equal(res.body.message, 'POSTOMAT_NOT_FOUND');
    });
  });
}
