/** Locker companies (the Locker API's customers), their balance and their API keys. */
import { defineCommand, revoking, type Command } from '../command.ts';
import { fAmount, fBool, fClear, fInt, fPrice, fText, fUrl, flagsOf } from '../flags.ts';
import { block, money, table, yesNo } from '../format.ts';
import { presentCompany } from '../present.ts';
import {
  adjustBalance,
  createLockerApiKey,
  createLockerCompany,
  lockerCompanyOverview,
  listLockerApiKeys,
  listLockerCompanies,
  revokeLockerApiKey,
  updateLockerCompany,
} from '../../services/admin/companies.ts';
import type { LockerCompanyTable } from '../../storage/schema.ts';
import { toMajor } from '../../domain/money.ts';
import { MAX_STORAGE_DAYS } from '../../domain/order-states.ts';

const companyText = (c: LockerCompanyTable, extra: Record<string, unknown> = {}) =>
  block({
    id: c.id,
    title: c.title,
    active: yesNo(c.isActive),
    notificationUrl: c.notificationUrl,
    defaultDays: c.defaultDays,
    balance: money(c.balance),
    orderPrice: money(c.orderPrice),
    deliveryPrice: money(c.deliveryPrice),
    updatedAt: c.updatedAt,
    ...extra,
  });

const companyResult = (c: LockerCompanyTable, headline?: string) => ({
  json: presentCompany(c),
  text: (headline ? `${headline}\n` : '') + companyText(c),
});

const moneyFlags = {
  'order-price': fPrice().optional(),
  'delivery-price': fPrice().optional(),
};

export const commands: Command[] = [
  defineCommand({
    name: 'company create',
    summary: 'create a locker company',
    usage: [
      '--title <text>              company name (required)',
      '--notification-url <url>    where COMPLETED/SUBTRACTED notifications are POSTed',
      '--default-days <n>          storage period of new orders, days (default 3)',
      '--order-price <amount>      price per order, major units, e.g. 150 or 99.90 (default 0)',
      '--delivery-price <amount>   delivery price per order, major units (default 0)',
      '--balance <amount>          opening balance, major units (default 0)',
    ],
    flags: flagsOf({
      title: fText(),
      'notification-url': fUrl().optional(),
      'default-days': fInt(1, MAX_STORAGE_DAYS).optional(),
      balance: fPrice().optional(),
      ...moneyFlags,
    }),
    async run(ctx, f) {
      const c = await createLockerCompany(
        ctx.db,
        {
          title: f.title,
          notificationUrl: f['notification-url'],
          defaultDays: f['default-days'],
          balance: f.balance,
          orderPrice: f['order-price'],
          deliveryPrice: f['delivery-price'],
        },
        ctx.clock.now(),
      );
      return companyResult(c, 'created locker company');
    },
  }),
  defineCommand({
    name: 'company list',
    summary: 'list locker companies (active and inactive)',
    flags: flagsOf({}),
    async run(ctx) {
      const rows = await listLockerCompanies(ctx.db);
      return {
        json: rows.map(presentCompany),
        text: table(
          rows.map((c) => ({
            ...c,
            active: yesNo(c.isActive),
            balance: money(c.balance),
            orderPrice: money(c.orderPrice),
            deliveryPrice: money(c.deliveryPrice),
          })),
          ['id', 'title', 'active', 'balance', 'orderPrice', 'deliveryPrice', 'defaultDays'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'company show',
    summary: 'show one locker company, with its number of API keys and its active orders per status',
    usage: ['--id <companyId>'],
    flags: flagsOf({ id: fText() }),
    async run(ctx, f) {
      const { company, apiKeyCount, orders } = await lockerCompanyOverview(ctx.db, f.id);
      const ordersLine = orders.length
        ? orders.map((o) => `${o.status} ${o.count} (unpaid ${money(o.notPaidAmount)})`).join(', ')
        : 'none';
      return {
        json: {
          ...presentCompany(company),
          apiKeyCount,
          orders: orders.map((o) => ({ ...o, notPaidAmount: toMajor(o.notPaidAmount) })),
        },
        text: companyText(company, { apiKeys: apiKeyCount, orders: ordersLine }),
      };
    },
  }),
  defineCommand({
    name: 'company update',
    summary: 'change a locker company (only the flags given change)',
    usage: [
      '--id <companyId>            (required)',
      '--title <text>',
      '--notification-url <url>    set the notification URL',
      '--clear notification-url    remove it (no notifications are sent)',
      '--default-days <n>',
      '--order-price <amount>      major units',
      '--delivery-price <amount>   major units',
      '--active true|false',
    ],
    flags: flagsOf({
      id: fText(),
      title: fText().optional(),
      'notification-url': fUrl().optional(),
      clear: fClear(['notification-url']).optional(),
      'default-days': fInt(1, MAX_STORAGE_DAYS).optional(),
      active: fBool().optional(),
      ...moneyFlags,
    })
      .refine((f) => !(f['notification-url'] && f.clear), {
        message: '--notification-url and --clear notification-url contradict each other',
      })
      .refine((f) => Object.keys(f).length > 1, { message: 'give at least one flag to change besides --id' }),
    async run(ctx, f) {
      const update = (db: typeof ctx.db) =>
        updateLockerCompany(
          db,
          f.id,
          {
            title: f.title,
            notificationUrl: f.clear ? null : f['notification-url'],
            defaultDays: f['default-days'],
            orderPrice: f['order-price'],
            deliveryPrice: f['delivery-price'],
            isActive: f.active,
          },
          ctx.clock.now(),
        );
      // Switching a company off ends its API keys.
      const c = f.active === false ? await revoking(ctx, update) : await update(ctx.db);
      return companyResult(c, 'updated locker company');
    },
  }),
  defineCommand({
    name: 'company top-up',
    summary: 'add money to a company balance',
    usage: ['--id <companyId>', '--amount <amount>   major units, > 0'],
    flags: flagsOf({ id: fText(), amount: fAmount() }),
    async run(ctx, f) {
      const c = await adjustBalance(ctx.db, f.id, f.amount, ctx.clock.now());
      return companyResult(c, `balance topped up by ${money(f.amount)}`);
    },
  }),
  defineCommand({
    name: 'company withdraw',
    summary: 'take money from a company balance (never below zero)',
    usage: ['--id <companyId>', '--amount <amount>   major units, > 0'],
    flags: flagsOf({ id: fText(), amount: fAmount() }),
    async run(ctx, f) {
      const c = await adjustBalance(ctx.db, f.id, -f.amount, ctx.clock.now());
      return companyResult(c, `withdrew ${money(f.amount)}`);
    },
  }),
  defineCommand({
    name: 'api-key create',
    summary: 'create a Locker API key for a company (the key is printed now and never again)',
    usage: ['--company <companyId>', '--title <text>   a name to tell keys apart (default "default")'],
    flags: flagsOf({ company: fText(), title: fText().optional() }),
    async run(ctx, f) {
      const k = await createLockerApiKey(ctx.db, f.company, f.title, ctx.clock.now());
      return {
        json: k,
        text: `${block(k, ['id', 'companyId', 'title', 'keyPrefix', 'key'])}\nstore the key now: it is not shown again`,
      };
    },
  }),
  defineCommand({
    name: 'api-key list',
    summary: "list a company's API keys (id, title, prefix; never the keys)",
    usage: ['--company <companyId>'],
    flags: flagsOf({ company: fText() }),
    async run(ctx, f) {
      const keys = await listLockerApiKeys(ctx.db, f.company);
      return { json: keys, text: table(keys, ['id', 'title', 'keyPrefix', 'createdAt']) };
    },
  }),
  defineCommand({
    name: 'api-key revoke',
    summary: 'delete an API key; every running cloud refuses it (401) at once',
    usage: ['--id <apiKeyId>'],
    flags: flagsOf({ id: fText() }),
    async run(ctx, f) {
      await revoking(ctx, (db) => revokeLockerApiKey(db, f.id));
      return { json: { id: f.id, revoked: true }, text: `revoked API key ${f.id}` };
    },
  }),
];
