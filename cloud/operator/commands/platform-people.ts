/** Platform users, API keys, clients and suppliers. Passwords and keys are printed once, when made. */
import { defineCommand, revoking, type Command } from '../command.ts';
import { fBool, fInt, fText, flagsOf } from '../flags.ts';
import { fChoice, fEmail, fId, fPhone } from '../platform-flags.ts';
import { block, table, yesNo } from '../format.ts';
import { withBooleans } from '../present.ts';
import { USER_ROLES } from '../../domain/platform/enums.ts';
import { newPassword } from '../../domain/secrets.ts';
import { createPlatformUser, listPlatformUsers, updatePlatformUser } from '../../services/platform/users.ts';
import { createPlatformApiKey, deletePlatformApiKey, listPlatformApiKeys } from '../../services/platform/api-keys.ts';
import { getPlatformCompany } from '../../services/platform/companies.ts';
import {
  createClient,
  createSupplier,
  listClients,
  listSuppliers,
  updateClient,
  updateSupplier,
} from '../../services/platform/clients.ts';

const clientFlags = {
  name: fText().optional(),
  phone: fPhone().optional(),
  address: fText().optional(),
  country: fId().optional(),
  city: fId().optional(),
  'delivery-company': fId().optional(),
};
const CLIENT_USAGE = [
  '--name, --address <text>',
  '--phone <+digits>',
  '--country <id>, --city <id>',
  '--delivery-company <id>   the WAREHOUSE (or LOGIST) company that hands parcels out',
];
const clientFields = (f: {
  name?: string;
  phone?: string;
  address?: string;
  country?: number;
  city?: number;
  'delivery-company'?: number;
}) => ({
  name: f.name,
  phone: f.phone,
  address: f.address,
  countryId: f.country,
  cityId: f.city,
  deliveryWarehouseCompanyId: f['delivery-company'],
});

export const commands: Command[] = [
  defineCommand({
    name: 'platform-user create',
    summary: 'create a platform user (signs in with email and password); a generated password is printed once',
    usage: [
      '--email <address>  (required; stored lower-case)',
      '--company <id>  (required)',
      `--role ${USER_ROLES.join('|')}  (default USER; ADMIN manages API keys and webhooks)`,
      '--name <text>',
      '--password <text>   at least 8 characters; generated when absent',
    ],
    flags: flagsOf({
      email: fEmail(),
      company: fId(),
      role: fChoice(USER_ROLES).optional(),
      name: fText().optional(),
      password: fText().optional(),
    }),
    async run(ctx, f) {
      // Only a generated password is printed: one the operator typed is already known to them,
      // and printing it again would put it in scrollback and logs.
      const generated = f.password === undefined;
      const password = f.password ?? newPassword(12);
      const u = await createPlatformUser(
        ctx.db,
        { email: f.email, password, role: f.role, companyId: f.company, name: f.name },
        ctx.clock.now(),
      );
      const shown = generated ? { password } : {};
      const fields = { id: u.id, email: u.email, role: u.role, company: u.companyId, ...shown };
      return {
        json: { ...withBooleans(u), ...shown },
        text: `created platform user (${generated ? 'the password is shown only now' : 'with the password given'})\n${block(fields)}`,
      };
    },
  }),
  defineCommand({
    name: 'platform-user list',
    summary: 'list platform users (never their password hashes)',
    usage: ["--company <id>   only this company's users"],
    flags: flagsOf({ company: fId().optional() }),
    async run(ctx, f) {
      const rows = await listPlatformUsers(ctx.db, f.company);
      return {
        json: rows.map(withBooleans),
        text: table(
          rows.map((u) => ({ ...u, active: yesNo(u.isActive) })),
          ['id', 'email', 'role', 'companyId', 'active', 'name'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'platform-user update',
    summary: 'change a user: role, name, password, active (a new password or switching off ends their refresh tokens)',
    usage: [
      '--id <id>',
      `--role ${USER_ROLES.join('|')}`,
      '--name <text>',
      '--password <text> (at least 8 characters)',
      '--active true|false',
    ],
    flags: flagsOf({
      id: fId(),
      role: fChoice(USER_ROLES).optional(),
      name: fText().optional(),
      password: fText().optional(),
      active: fBool().optional(),
    }),
    async run(ctx, f) {
      const u = await revoking(ctx, (db) =>
        updatePlatformUser(
          db,
          f.id,
          { role: f.role, name: f.name, password: f.password, isActive: f.active },
          ctx.clock.now(),
        ),
      );
      return {
        json: withBooleans(u),
        text: `updated platform user\n${block({ id: u.id, email: u.email, role: u.role, active: yesNo(u.isActive) })}`,
      };
    },
  }),
  defineCommand({
    name: 'platform-key create',
    summary: 'create a platform API key for a company (x-api-token on /api/v1/integrations/*)',
    usage: ['--company <id>', '--title <text> (default "default")'],
    flags: flagsOf({ company: fId(), title: fText().optional() }),
    async run(ctx, f) {
      const k = await createPlatformApiKey(ctx.db, f.company, f.title ?? 'default', ctx.clock.now());
      return {
        json: k,
        text: `created platform API key\n${block({ id: k.id, company: k.companyId, title: k.title, key: k.key })}`,
      };
    },
  }),
  defineCommand({
    name: 'platform-key list',
    summary:
      "list a company's platform API keys (first characters only; the company's administrator sees them in full over the API)",
    usage: ['--company <id>'],
    flags: flagsOf({ company: fId() }),
    async run(ctx, f) {
      await getPlatformCompany(ctx.db, f.company);
      const { data } = await listPlatformApiKeys(ctx.db, f.company);
      const rows = data.map(({ key, ...k }) => ({ ...k, keyPrefix: key.slice(0, 8) }));
      return { json: rows, text: table(rows, ['id', 'title', 'keyPrefix', 'createdAt']) };
    },
  }),
  defineCommand({
    name: 'platform-key delete',
    summary: 'delete a platform API key (every running cloud refuses it at once)',
    usage: ['--id <key id>'],
    flags: flagsOf({ id: fId() }),
    async run(ctx, f) {
      await revoking(ctx, (db) => deletePlatformApiKey(db, null, f.id));
      return { json: { deleted: f.id }, text: `deleted platform API key ${f.id}` };
    },
  }),
  defineCommand({
    name: 'client create',
    summary: 'register a client (recipient) with a company; its code is the next free one unless --code is given',
    usage: ['--company <id>  (required)', ...CLIENT_USAGE, '--code <n>   a specific code, unique within the company'],
    flags: flagsOf({ ...clientFlags, company: fId(), code: fInt(1, 999_999_999).optional() }),
    async run(ctx, f) {
      const c = await createClient(ctx.db, { companyId: f.company, code: f.code, ...clientFields(f) }, ctx.clock.now());
      return {
        json: withBooleans(c),
        text: `created client\n${block({ id: c.id, company: c.companyId, code: c.code, name: c.name, phone: c.phone })}`,
      };
    },
  }),
  defineCommand({
    name: 'client list',
    summary: "list a company's clients by code",
    usage: ['--company <id>', '--limit <n> (1-1000, default 100)'],
    flags: flagsOf({ company: fId(), limit: fInt(1, 1000).optional() }),
    async run(ctx, f) {
      const rows = await listClients(ctx.db, f.company, f.limit ?? 100);
      return {
        json: rows.map(withBooleans),
        text: table(
          rows.map((c) => ({ ...c, active: yesNo(c.isActive) })),
          ['id', 'code', 'name', 'phone', 'cityId', 'deliveryWarehouseCompanyId', 'active'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'client update',
    summary: 'change a client (code and company never change)',
    usage: ['--id <id>', ...CLIENT_USAGE, '--active true|false'],
    flags: flagsOf({ ...clientFlags, id: fId(), active: fBool().optional() }),
    async run(ctx, f) {
      const c = await updateClient(ctx.db, f.id, { ...clientFields(f), isActive: f.active }, ctx.clock.now());
      return {
        json: withBooleans(c),
        text: `updated client\n${block({ id: c.id, code: c.code, name: c.name, phone: c.phone, active: yesNo(c.isActive) })}`,
      };
    },
  }),
  defineCommand({
    name: 'supplier create',
    summary: 'register a supplier (sender) with a company; one per company and phone',
    usage: ['--company <id>', '--phone <+digits>', '--name, --address <text>', '--city <id>'],
    flags: flagsOf({
      company: fId(),
      phone: fPhone(),
      name: fText().optional(),
      address: fText().optional(),
      city: fId().optional(),
    }),
    async run(ctx, f) {
      const s = await createSupplier(
        ctx.db,
        { companyId: f.company, phone: f.phone, name: f.name, address: f.address, cityId: f.city },
        ctx.clock.now(),
      );
      return {
        json: withBooleans(s),
        text: `created supplier\n${block({ id: s.id, company: s.companyId, phone: s.phone, name: s.name })}`,
      };
    },
  }),
  defineCommand({
    name: 'supplier list',
    summary: "list a company's suppliers",
    usage: ['--company <id>'],
    flags: flagsOf({ company: fId() }),
    async run(ctx, f) {
      const rows = await listSuppliers(ctx.db, f.company);
      return {
        json: rows.map(withBooleans),
        text: table(
          rows.map((s) => ({ ...s, active: yesNo(s.isActive) })),
          ['id', 'phone', 'name', 'cityId', 'active'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'supplier update',
    summary: 'change a supplier',
    usage: ['--id <id>', '--phone <+digits>', '--name, --address <text>', '--city <id>', '--active true|false'],
    flags: flagsOf({
      id: fId(),
      phone: fPhone().optional(),
      name: fText().optional(),
      address: fText().optional(),
      city: fId().optional(),
      active: fBool().optional(),
    }),
    async run(ctx, f) {
      const s = await updateSupplier(
        ctx.db,
        f.id,
        { phone: f.phone, name: f.name, address: f.address, cityId: f.city, isActive: f.active },
        ctx.clock.now(),
      );
      return {
        json: withBooleans(s),
        text: `updated supplier\n${block({ id: s.id, phone: s.phone, name: s.name, active: yesNo(s.isActive) })}`,
      };
    },
  }),
];
