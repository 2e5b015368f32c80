/** Service staff on one locker order. Codes are never printed: the pickup code is the recipient's secret. */
import { z } from 'zod';
import type { Db } from '../../storage/database.ts';
import { defineCommand, type Command } from '../command.ts';
import { fBool, fInt, fText, flagsOf } from '../flags.ts';
import { block, money, table } from '../format.ts';
import { CLOUD_ORDER_STATUSES as ORDER_STATUSES } from '../../domain/order-states.ts';
import { withBooleans, withMajor } from '../present.ts';
import { MONEY_FIELDS } from '../../storage/order-stats.ts';
import { lockerConnection } from '../../storage/locker-link-queries.ts';
import { listOrdersForStaff, orderDetails, payOrder, subtractOrderByStaff } from '../../services/admin/orders.ts';

type Details = Awaited<ReturnType<typeof orderDetails>>;

const LISTED_MONEY = ['price', 'deliveryPrice', 'paidAmount', 'notPaidAmount'] as const;

const presentOrder = (o: Details) => withMajor(withBooleans({ ...o, sendMessage: o.sendMessage === 1 }), MONEY_FIELDS);

function orderText(o: Details, headline?: string): string {
  const cell = o.cell
    ? `${o.cell.number} (size ${o.cell.size}, board ${o.cell.board} lock ${o.cell.lock}, ${o.cell.id})`
    : 'none yet';
  return [
    ...(headline ? [headline] : []),
    block({
      id: o.id,
      status: o.status,
      company: o.company ? `${o.company.title} (${o.company.id})` : o.companyId,
      locker: o.postomat ? `${o.postomat.title} [${o.postomat.shortId}] (${o.postomat.id})` : o.postomatId,
      cell,
      phone: o.phone,
      days: o.days,
      storage: o.startDateTime ? `${o.startDateTime} .. ${o.endDateTime}` : null,
      price: money(o.price),
      deliveryPrice: money(o.deliveryPrice),
      paid: money(o.paidAmount),
      notPaid: money(o.notPaidAmount),
      customData: o.customData,
      history: o.statuses.map((s) => `${s.type} ${s.createdAt}`).join(', '),
    }),
  ].join('\n');
}

const orderResult = async (ctx: { db: Db }, id: string, headline?: string) => {
  const o = await orderDetails(ctx.db, id);
  return { json: presentOrder(o), text: orderText(o, headline) };
};

export const commands: Command[] = [
  defineCommand({
    name: 'order list',
    summary: 'list orders, newest first (never their codes)',
    usage: [
      '--company <companyId>',
      '--locker <lockerId>',
      `--status ${ORDER_STATUSES.join('|')}`,
      '--limit <n>   at most this many (1-1000, default 50)',
    ],
    flags: flagsOf({
      company: fText().optional(),
      locker: fText().optional(),
      status: z.enum(ORDER_STATUSES, { error: `must be one of ${ORDER_STATUSES.join(', ')}` }).optional(),
      limit: fInt(1, 1000).optional(),
    }),
    async run(ctx, f) {
      const rows = await listOrdersForStaff(ctx.db, {
        companyId: f.company,
        postomatId: f.locker,
        status: f.status,
        limit: f.limit ?? 50,
      });
      return {
        json: rows.map((o) => withMajor(o, LISTED_MONEY)),
        text: table(
          rows.map((o) => ({ ...o, locker: o.shortId, cell: o.cellNumber, notPaid: money(o.notPaidAmount) })),
          ['id', 'status', 'locker', 'cell', 'notPaid', 'endDateTime', 'createdAt', 'companyId'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'order show',
    summary: 'show an order: status, locker, cell, amounts, history (never its codes)',
    usage: ['--id <orderId>'],
    flags: flagsOf({ id: fText() }),
    run: (ctx, f) => orderResult(ctx, f.id),
  }),
  defineCommand({
    name: 'order pay',
    summary: "settle an order's unpaid remainder (paid at the counter, or waived)",
    usage: ['--id <orderId>'],
    flags: flagsOf({ id: fText() }),
    async run(ctx, f) {
      const { settled } = await payOrder(ctx.uow, f.id, ctx.clock.now());
      return orderResult(ctx, f.id, settled ? `settled ${money(settled)}` : 'nothing was unpaid');
    },
  }),
  defineCommand({
    name: 'order subtract',
    summary: 'staff take a DELIVERED parcel out: the locker opens its cell; SUBTRACTED once the parcel is out',
    usage: [
      '--id <orderId>',
      '--manual      the parcel is already out (locker unreachable, opened by hand): SUBTRACTED at once, no cell opens',
    ],
    flags: flagsOf({ id: fText(), manual: fBool().optional() }),
    async run(ctx, f) {
      const { command, created } = await subtractOrderByStaff(ctx.uow, f.id, ctx.clock.now(), { manual: f.manual });
      if (!command) return orderResult(ctx, f.id, 'order subtracted by hand: the locker forgets it when it next syncs');
      const o = await orderDetails(ctx.db, f.id);
      const link = await lockerConnection(ctx.db, o.postomatId);
      const where = o.postomat ? `${o.postomat.title} [${o.postomat.shortId}]` : o.postomatId;
      const lines = [
        `${created ? 'Sent' : 'Already sent'} to the locker ${where} through the running cloud: its agent opens cell ${command.cellId} for staff (command ${command.id}, valid until ${command.expiresAt}).`,
        'The order becomes SUBTRACTED when staff take the parcel out and close the door.',
        ...(link?.online
          ? []
          : ['The locker is offline now: the command goes out when it reconnects, if that is before it expires.']),
        `Follow it with: npm run operator -- locker status --id ${o.postomatId}`,
      ];
      return {
        json: {
          order: presentOrder(o),
          command: {
            id: command.id,
            state: command.state,
            cellId: command.cellId,
            expiresAt: command.expiresAt,
            created,
          },
        },
        text: `${lines.join('\n')}\n\n${orderText(o)}`,
      };
    },
  }),
];
