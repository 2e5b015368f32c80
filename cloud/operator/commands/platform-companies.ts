/** Platform companies: type, flags, place, code names, cargo and delivery types, partners, locker access. */
import type { z } from 'zod';
import { defineCommand, OperatorError, revoking, type Command, type OperatorContext } from '../command.ts';
import { fBool, fText, flagsOf } from '../flags.ts';
import { fChoice, fCodeList, fEmail, fId, fIdList, fPhone } from '../platform-flags.ts';
import { block, table, yesNo } from '../format.ts';
import { withBooleans } from '../present.ts';
import { COMPANY_TYPES } from '../../domain/platform/enums.ts';
import { createLockerCompany } from '../../services/admin/companies.ts';
import {
  addCompanyCode,
  addPartnership,
  createPlatformCompany,
  listPlatformCompanies,
  platformCompanyDetails,
  removeCompanyCode,
  removePartnership,
  setCompanyCargoTypes,
  setCompanyDeliveryTypes,
  setLockerAccess,
  updatePlatformCompany,
} from '../../services/platform/companies.ts';

const fieldFlags = {
  title: fText().optional(),
  intercity: fBool().optional(),
  international: fBool().optional(),
  cleaning: fBool().optional(),
  phone: fPhone().optional(),
  email: fEmail().optional(),
  address: fText().optional(),
  country: fId().optional(),
  city: fId().optional(),
};
type FieldFlags = z.output<z.ZodObject<typeof fieldFlags>>;

const fieldsOf = (f: FieldFlags) => ({
  title: f.title,
  isIntercity: f.intercity,
  isInternational: f.international,
  isCleaning: f.cleaning,
  phone: f.phone,
  email: f.email,
  address: f.address,
  countryId: f.country,
  cityId: f.city,
});

const FIELD_USAGE = [
  '--intercity, --international, --cleaning true|false   the flags the logistics list filters on',
  '--phone, --email, --address <text>',
  '--country <id>, --city <id>   platform country and city (the city must lie in the country)',
];

/** The company with everything hanging off it, as JSON and as text. */
async function details(ctx: OperatorContext, id: number, headline?: string) {
  const d = await platformCompanyDetails(ctx.db, id);
  const c = d.company;
  return {
    json: {
      ...withBooleans(c),
      lockerAccess: c.lockerAccess === 1,
      codes: d.codes,
      cargoTypes: d.cargoTypes,
      deliveryTypes: d.deliveryTypes,
      partnerIds: d.partnerIds,
      partnerOfIds: d.partnerOfIds,
    },
    text: [
      ...(headline ? [headline] : []),
      block({
        id: c.id,
        title: c.title,
        type: c.type,
        active: yesNo(c.isActive),
        flags:
          [c.isIntercity && 'intercity', c.isInternational && 'international', c.isCleaning && 'cleaning']
            .filter(Boolean)
            .join(', ') || null,
        place:
          [c.countryId && `country ${c.countryId}`, c.cityId && `city ${c.cityId}`].filter(Boolean).join(', ') || null,
        phone: c.phone,
        email: c.email,
        codes: d.codes.map((x) => `${x.title} (cargo type ${x.cargoTypeId}, id ${x.id})`).join(', ') || null,
        cargoTypes: d.cargoTypes.map((t) => `${t.title} ${t.type} (${t.id})`).join(', ') || null,
        deliveryTypes: d.deliveryTypes.map((t) => `${t.title} (${t.id})`).join(', ') || null,
        partners: d.partnerIds.join(', ') || null,
        partnerOf: d.partnerOfIds.join(', ') || null,
        lockerCompany: c.lockerCompanyId,
        lockerAccess: yesNo(c.lockerAccess),
        lastClientCode: c.lastClientCode,
      }),
    ].join('\n'),
  };
}

export const commands: Command[] = [
  defineCommand({
    name: 'platform-company create',
    summary: 'create a platform company (LOGIST, WAREHOUSE, MARKETPLACE, COURIER)',
    usage: [
      '--title <text>                  (required)',
      `--type ${COMPANY_TYPES.join('|')}   (required)`,
      ...FIELD_USAGE,
      '--codes SRL:1,SRLA:2            code names, each with its cargo type id',
      '--cargo-types 1,2  --delivery-types 1,2',
      '--partners 1,2                  (WAREHOUSE, MARKETPLACE) the logistics companies it works with',
      '--locker-company <id>|new       link a Locker API company ("new": create one with this title)',
      '--locker-access true|false      switch locker access through the platform (needs a link)',
    ],
    flags: flagsOf({
      ...fieldFlags,
      title: fText(),
      type: fChoice(COMPANY_TYPES),
      codes: fCodeList().optional(),
      'cargo-types': fIdList().optional(),
      'delivery-types': fIdList().optional(),
      partners: fIdList().optional(),
      'locker-company': fText().optional(),
      'locker-access': fBool().optional(),
    }),
    async run(ctx, f) {
      const now = ctx.clock.now();
      const company = await ctx.db.transaction().execute(async (trx) => {
        const lockerCompanyId =
          f['locker-company'] === 'new'
            ? (await createLockerCompany(trx, { title: f.title }, now)).id
            : f['locker-company'];
        return createPlatformCompany(
          trx,
          {
            ...fieldsOf(f),
            title: f.title,
            type: f.type,
            codes: f.codes,
            cargoTypeIds: f['cargo-types'],
            deliveryTypeIds: f['delivery-types'],
            partnerIds: f.partners,
            lockerCompanyId,
            lockerAccess: f['locker-access'],
          },
          now,
        );
      });
      return details(ctx, company.id, 'created platform company');
    },
  }),
  defineCommand({
    name: 'platform-company list',
    summary: 'list platform companies (active and inactive)',
    usage: [`--type ${COMPANY_TYPES.join('|')}   only this type`],
    flags: flagsOf({ type: fChoice(COMPANY_TYPES).optional() }),
    async run(ctx, f) {
      const rows = await listPlatformCompanies(ctx.db, { type: f.type });
      return {
        json: rows.map((c) => ({ ...withBooleans(c), lockerAccess: c.lockerAccess === 1 })),
        text: table(
          rows.map((c) => ({ ...c, active: yesNo(c.isActive), lockerAccess: yesNo(c.lockerAccess) })),
          ['id', 'title', 'type', 'active', 'cityId', 'lockerCompanyId', 'lockerAccess'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'platform-company show',
    summary: 'show a platform company with its code names, types, partners and locker access',
    usage: ['--id <companyId>'],
    flags: flagsOf({ id: fId() }),
    run: (ctx, f) => details(ctx, f.id),
  }),
  defineCommand({
    name: 'platform-company update',
    summary: 'change a platform company (only the flags given change)',
    usage: [
      '--id <companyId>  (required)',
      '--title <text>',
      ...FIELD_USAGE,
      "--active true|false   an inactive company's keys and users stop working",
    ],
    flags: flagsOf({ ...fieldFlags, id: fId(), active: fBool().optional() }),
    async run(ctx, f) {
      const update = (db: typeof ctx.db) =>
        updatePlatformCompany(db, f.id, { ...fieldsOf(f), isActive: f.active }, ctx.clock.now());
      // Switching a company off ends its keys and its users' tokens.
      await (f.active === false ? revoking(ctx, update) : update(ctx.db));
      return details(ctx, f.id, 'updated platform company');
    },
  }),
  defineCommand({
    name: 'platform-company code-add',
    summary: 'give a company a code name for one cargo type (Latin letters, unique across companies)',
    usage: ['--company <id>', '--code-name <letters>', '--cargo-type <id>'],
    flags: flagsOf({ company: fId(), 'code-name': fText(), 'cargo-type': fId() }),
    async run(ctx, f) {
      await addCompanyCode(ctx.db, f.company, f['code-name'], f['cargo-type'], ctx.clock.now());
      return details(ctx, f.company, 'added code name');
    },
  }),
  defineCommand({
    name: 'platform-company code-remove',
    summary: 'remove a code name of a company',
    usage: ['--company <id>', '--code <code name id>'],
    flags: flagsOf({ company: fId(), code: fId() }),
    async run(ctx, f) {
      await removeCompanyCode(ctx.db, f.company, f.code, ctx.clock.now());
      return details(ctx, f.company, 'removed code name');
    },
  }),
  defineCommand({
    name: 'platform-company types',
    summary: 'replace the cargo types and/or delivery types a company carries',
    usage: ['--id <companyId>', "--cargo-types 1,2     (its code names' types always stay)", '--delivery-types 1,2'],
    flags: flagsOf({ id: fId(), 'cargo-types': fIdList().optional(), 'delivery-types': fIdList().optional() }),
    async run(ctx, f) {
      if (!f['cargo-types'] && !f['delivery-types'])
        throw new OperatorError('give --cargo-types and/or --delivery-types');
      await ctx.db.transaction().execute(async (trx) => {
        if (f['cargo-types']) await setCompanyCargoTypes(trx, f.id, f['cargo-types']);
        if (f['delivery-types']) await setCompanyDeliveryTypes(trx, f.id, f['delivery-types']);
      });
      return details(ctx, f.id, 'updated types');
    },
  }),
  defineCommand({
    name: 'platform-company partner-add',
    summary: 'a WAREHOUSE company starts serving a LOGIST company; a MARKETPLACE takes a LOGIST or COURIER partner',
    usage: ['--id <warehouse or marketplace company id>', '--partner <logistics company id>'],
    flags: flagsOf({ id: fId(), partner: fId() }),
    async run(ctx, f) {
      await addPartnership(ctx.db, f.id, f.partner, ctx.clock.now());
      return details(ctx, f.id, 'added partner');
    },
  }),
  defineCommand({
    name: 'platform-company partner-remove',
    summary: 'end a partnership',
    usage: ['--id <company id>', '--partner <partner company id>'],
    flags: flagsOf({ id: fId(), partner: fId() }),
    async run(ctx, f) {
      await removePartnership(ctx.db, f.id, f.partner);
      return details(ctx, f.id, 'removed partner');
    },
  }),
  defineCommand({
    name: 'platform-company locker-access',
    summary: 'link a Locker API company and switch locker access through the platform on or off',
    usage: [
      '--id <companyId>',
      '--locker-company <id>|new|none   link one ("new" creates one named after the company; "none" unlinks and switches off)',
      '--enabled true|false',
    ],
    flags: flagsOf({ id: fId(), 'locker-company': fText().optional(), enabled: fBool().optional() }),
    async run(ctx, f) {
      if (f['locker-company'] === undefined && f.enabled === undefined)
        throw new OperatorError('give --locker-company and/or --enabled');
      const now = ctx.clock.now();
      await ctx.db.transaction().execute(async (trx) => {
        let lockerCompanyId: string | null | undefined = f['locker-company'];
        if (lockerCompanyId === 'none') lockerCompanyId = null;
        if (lockerCompanyId === 'new') {
          const { company } = await platformCompanyDetails(trx, f.id);
          lockerCompanyId = (await createLockerCompany(trx, { title: company.title }, now)).id;
        }
        await setLockerAccess(
          trx,
          f.id,
          { lockerCompanyId, enabled: lockerCompanyId === null ? false : f.enabled },
          now,
        );
      });
      return details(ctx, f.id, 'locker access');
    },
  }),
];
