import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { ManualClock } from '../../shared/clock.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { transitionOrder } from '../../cloud/services/order-transitions.ts';
import { useOperator, type Operator } from './harness.ts';
import { testUow } from '../helpers/locker-world.ts';

/** A paid company (150.00 + 20.00) and a locker with two cells, made through the CLI. */
async function setUp(op: Operator) {
  const company = await op.json(
    'company',
    'create',
    '--title',
    'Paid Co',
    '--order-price',
    '150',
    '--delivery-price',
    '20',
    '--balance',
    '1000',
  );
  const locker = await op.json(
    'locker',
    'create',
    '--title',
    'Orders',
    '--short-id',
    `ORD${Math.floor(Math.random() * 1e6)}`,
    '--cells',
    '1:S:0:1,2:M:0:2',
  );
  return { company, locker };
}

/** Codes from 7000-7998, drawn in turn: numbers that appear nowhere else in the output. */
let nextCode = 0;
const codeDraw = () => 7000 + (nextCode++ % 999);

/** Whether `out` shows `code` as a number of its own (not inside an id or a phone number). */
const showsCode = (out: string, code: string) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(out);

async function newOrder(
  op: Operator,
  companyId: string,
  postomatId: string,
  options: { pay?: boolean; deliverTo?: string } = {},
) {
  const uow = testUow(op.storage());
  const order = await createOrder(
    { uow, clock: new ManualClock('2026-03-01T10:00:00.000Z'), randomInt: codeDraw },
    { companyId, postomatId, toUserPhone: '+996700123456', sendMessage: false, pay: options.pay },
  );
  if (options.deliverTo) {
    await uow.run((tx) =>
      transitionOrder(tx, {
        orderId: order.id,
        to: 'DELIVERED',
        at: new Date('2026-03-01T12:00:00.000Z'),
        cellId: options.deliverTo,
      }),
    );
  }
  return order;
}

const codesOf = (op: Operator, orderId: string) =>
  op.storage().db.selectFrom('order_code').select(['type', 'password']).where('orderId', '=', orderId).execute();

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] order show`, () => {
    const op = useOperator(dialect);

    it('shows status, locker, cell and amounts, and never a code', async () => {
      const { company, locker } = await setUp(op);
      const order = await newOrder(op, company.id, locker.id, { deliverTo: locker.cells[1].id });
      const shown = await op.json('order', 'show', '--id', order.id);
      assert.equal(shown.status, 'DELIVERED');
      assert.deepEqual([shown.price, shown.deliveryPrice, shown.paidAmount, shown.notPaidAmount], [150, 20, 0, 170]);
      assert.deepEqual([shown.cell.number, shown.cell.size, shown.cell.board, shown.cell.lock], [2, 'M', 0, 2]);
      assert.equal(shown.postomat.id, locker.id);
      assert.deepEqual(
        shown.statuses.map((s: any) => s.type),
        ['CREATED', 'DELIVERED'],
      );
      assert.equal(shown.endDateTime, '2026-03-04T12:00:00.000Z');

      const codes = await codesOf(op, order.id);
      assert.equal(codes.length, 3);
      for (const asJson of [true, false]) {
        const out = (await op.run('order', 'show', '--id', order.id, ...(asJson ? ['--json'] : []))).stdout;
        assert.match(out, /DELIVERED/);
        for (const c of codes)
          assert.ok(!showsCode(out, c.password), `${c.type} code ${c.password} must not be printed:\n${out}`);
        assert.ok(!/password|passwords|codes/i.test(out));
      }
    });

    it('names unknown orders', async () => {
      assert.match(await op.fails(1, 'order', 'show', '--id', 'noorder'), /no order noorder/);
      assert.match(await op.fails(2, 'order', 'show'), /--id is required/);
    });
  });

  describe(`[${dialect.name}] order pay`, () => {
    const op = useOperator(dialect);

    it('settles the unpaid remainder and keeps the list aggregates in step', async () => {
      const { company, locker } = await setUp(op);
      const order = await newOrder(op, company.id, locker.id, { deliverTo: locker.cells[0].id });
      const r = await op.run('order', 'pay', '--id', order.id);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /settled 170\.00/);
      const shown = await op.json('order', 'show', '--id', order.id);
      assert.deepEqual([shown.paidAmount, shown.notPaidAmount, shown.status], [170, 0, 'DELIVERED']);
      const stats = await op
        .storage()
        .db.selectFrom('order_stats')
        .selectAll()
        .where('companyId', '=', company.id)
        .where('status', '=', 'DELIVERED')
        .executeTakeFirstOrThrow();
      assert.deepEqual([stats.paidAmount, stats.notPaidAmount], [17000, 0]);
      assert.match((await op.run('order', 'pay', '--id', order.id)).stdout, /nothing was unpaid/);
      const overview = await op.json('company', 'show', '--id', company.id);
      assert.deepEqual(overview.orders, [{ status: 'DELIVERED', count: 1, notPaidAmount: 0 }]);
    });

    it('refuses finished and unknown orders', async () => {
      const { company, locker } = await setUp(op);
      const order = await newOrder(op, company.id, locker.id, { pay: true, deliverTo: locker.cells[0].id });
      await op.json('order', 'subtract', '--id', order.id, '--manual');
      assert.match(await op.fails(1, 'order', 'pay', '--id', order.id), /is SUBTRACTED: nothing left to pay/);
      assert.match(await op.fails(1, 'order', 'pay', '--id', 'noorder'), /no order noorder/);
    });
  });

  describe(`[${dialect.name}] order subtract`, () => {
    const op = useOperator(dialect);

    it('with --manual, moves a DELIVERED order to SUBTRACTED at once and frees its codes', async () => {
      const { company, locker } = await setUp(op);
      const order = await newOrder(op, company.id, locker.id, { deliverTo: locker.cells[0].id });
      const done = await op.json('order', 'subtract', '--id', order.id, '--manual');
      assert.equal(done.status, 'SUBTRACTED');
      assert.deepEqual(
        done.statuses.map((s: any) => s.type),
        ['CREATED', 'DELIVERED', 'SUBTRACTED'],
      );
      const active = await op
        .storage()
        .db.selectFrom('order_code')
        .select('id')
        .where('orderId', '=', order.id)
        .where('active', '=', 1)
        .execute();
      assert.equal(active.length, 0);
    });

    it('refuses orders that are not DELIVERED, and unknown ones', async () => {
      const { company, locker } = await setUp(op);
      const order = await newOrder(op, company.id, locker.id);
      assert.match(await op.fails(1, 'order', 'subtract', '--id', order.id), /is CREATED, cannot become SUBTRACTED/);
      assert.equal((await op.json('order', 'show', '--id', order.id)).status, 'CREATED');
      assert.match(await op.fails(1, 'order', 'subtract', '--id', 'noorder'), /no order noorder/);
    });
  });

  describe(`[${dialect.name}] order list`, () => {
    const op = useOperator(dialect);

    it('lists orders by company, locker and status, without codes', async () => {
      const { company, locker } = await setUp(op);
      const other = await setUp(op);
      const delivered = await newOrder(op, company.id, locker.id, { deliverTo: locker.cells[0].id });
      const created = await newOrder(op, company.id, locker.id);
      await newOrder(op, other.company.id, other.locker.id);

      const mine = await op.json('order', 'list', '--company', company.id);
      assert.deepEqual(new Set(mine.map((o: any) => o.id)), new Set([delivered.id, created.id]));
      const d = await op.json('order', 'list', '--locker', locker.id, '--status', 'DELIVERED');
      assert.deepEqual(
        d.map((o: any) => [o.id, o.cellNumber, o.notPaidAmount]),
        [[delivered.id, 1, 170]],
      );
      assert.equal((await op.json('order', 'list', '--limit', '1')).length, 1);

      const text = (await op.run('order', 'list', '--company', company.id)).stdout;
      assert.ok(text.includes(delivered.id) && text.includes(created.id));
      const codes = await codesOf(op, delivered.id);
      assert.equal(codes.length, 3);
      for (const c of codes)
        assert.ok(!showsCode(text, c.password), `${c.type} code ${c.password} must not be printed`);
    });

    it('names unknown filters', async () => {
      assert.match(await op.fails(1, 'order', 'list', '--company', 'ghost'), /no locker company ghost/);
      assert.match(await op.fails(1, 'order', 'list', '--locker', 'ghost'), /no locker ghost/);
      assert.match(
        await op.fails(2, 'order', 'list', '--status', 'LOST'),
        /--status must be one of CREATED, DELIVERED, COMPLETED, SUBTRACTED/,
      );
    });
  });
}
