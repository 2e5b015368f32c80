/** The platform's reference data: cargo types with their delivery types, delivery types, countries and cities. */
import { defineCommand, type Command } from '../command.ts';
import { fBool, fLat, fLng, fText, flagsOf } from '../flags.ts';
import { fChoice, fId, fIdList } from '../platform-flags.ts';
import { block, table, yesNo } from '../format.ts';
import { withBooleans } from '../present.ts';
import { CARGO_KINDS } from '../../domain/platform/enums.ts';
import {
  createCargoType,
  createDeliveryType,
  type getCargoType,
  listCargoTypes,
  listDeliveryTypes,
  updateCargoType,
} from '../../services/platform/cargo-types.ts';
import {
  createPlatformCity,
  createPlatformCountry,
  listPlatformCountries,
  updatePlatformCity,
  updatePlatformCountry,
} from '../../services/platform/directories.ts';

const titleFlags = {
  'title-ru': fText().optional(),
  'title-cn': fText().optional(),
  'title-en': fText().optional(),
  'title-ky': fText().optional(),
};
const TITLE_USAGE = '--title-ru, --title-cn, --title-en, --title-ky <text>   translated titles';
const titlesOf = (f: { 'title-ru'?: string; 'title-cn'?: string; 'title-en'?: string; 'title-ky'?: string }) => ({
  titleRU: f['title-ru'],
  titleCN: f['title-cn'],
  titleEN: f['title-en'],
  titleKY: f['title-ky'],
});

async function cargoTypeResult(db: Parameters<typeof getCargoType>[0], id: number, headline: string) {
  const t = (await listCargoTypes(db)).find((x) => x.id === id)!;
  return {
    json: withBooleans(t),
    text: `${headline}\n${block({ id: t.id, title: t.title, type: t.type, parent: yesNo(t.isParent), parentId: t.parentId, active: yesNo(t.isActive), deliveryTypes: t.deliveryTypes.map((d) => `${d.title} (${d.id})`).join(', ') || null })}`,
  };
}

const cargoTypeFlags = {
  ...titleFlags,
  'is-parent': fBool().optional(),
  parent: fId().optional(),
  'delivery-types': fIdList().optional(),
};

export const commands: Command[] = [
  defineCommand({
    name: 'delivery-type create',
    summary: 'create a delivery type (Air, Road, …)',
    usage: ['--title <text>  (unique)'],
    flags: flagsOf({ title: fText() }),
    async run(ctx, f) {
      const d = await createDeliveryType(ctx.db, f.title, ctx.clock.now());
      return { json: d, text: `created delivery type ${d.title} (${d.id})` };
    },
  }),
  defineCommand({
    name: 'delivery-type list',
    summary: 'list delivery types',
    flags: flagsOf({}),
    async run(ctx) {
      const rows = await listDeliveryTypes(ctx.db);
      return { json: rows, text: table(rows, ['id', 'title']) };
    },
  }),
  defineCommand({
    name: 'cargo-type create',
    summary: 'create a cargo type (the public reference of GET /api/v1/public/cargo-types)',
    usage: [
      '--title <text>  (required)',
      `--type ${CARGO_KINDS.join('|')}  (required)`,
      TITLE_USAGE,
      '--is-parent true|false   a type others hang under',
      '--parent <id>            the parent type',
      '--delivery-types 1,2',
    ],
    flags: flagsOf({ ...cargoTypeFlags, title: fText(), type: fChoice(CARGO_KINDS) }),
    async run(ctx, f) {
      const t = await createCargoType(
        ctx.db,
        {
          title: f.title,
          type: f.type,
          ...titlesOf(f),
          isParent: f['is-parent'],
          parentId: f.parent,
          deliveryTypeIds: f['delivery-types'],
        },
        ctx.clock.now(),
      );
      return cargoTypeResult(ctx.db, t.id, 'created cargo type');
    },
  }),
  defineCommand({
    name: 'cargo-type list',
    summary: 'list cargo types with their delivery types (active and inactive)',
    flags: flagsOf({}),
    async run(ctx) {
      const rows = await listCargoTypes(ctx.db);
      return {
        json: rows.map(withBooleans),
        text: table(
          rows.map((t) => ({
            ...t,
            active: yesNo(t.isActive),
            parent: yesNo(t.isParent),
            deliveryTypes: t.deliveryTypes.map((d) => d.title).join(', '),
          })),
          ['id', 'title', 'type', 'parent', 'parentId', 'active', 'deliveryTypes'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'cargo-type update',
    summary: 'change a cargo type (only the flags given change; --delivery-types replaces the list)',
    usage: [
      '--id <id>  (required)',
      '--title <text>',
      `--type ${CARGO_KINDS.join('|')}`,
      TITLE_USAGE,
      '--is-parent, --active true|false',
      '--parent <id>',
      '--delivery-types 1,2',
    ],
    flags: flagsOf({
      ...cargoTypeFlags,
      id: fId(),
      title: fText().optional(),
      type: fChoice(CARGO_KINDS).optional(),
      active: fBool().optional(),
    }),
    async run(ctx, f) {
      await updateCargoType(
        ctx.db,
        f.id,
        {
          title: f.title,
          type: f.type,
          ...titlesOf(f),
          isParent: f['is-parent'],
          parentId: f.parent,
          isActive: f.active,
          deliveryTypeIds: f['delivery-types'],
        },
        ctx.clock.now(),
      );
      return cargoTypeResult(ctx.db, f.id, 'updated cargo type');
    },
  }),
  defineCommand({
    name: 'platform-country create',
    summary: 'create a platform country (integer id; the Locker API has its own countries)',
    usage: ['--title <text>  (required)', TITLE_USAGE, '--active true|false (default true)'],
    flags: flagsOf({ ...titleFlags, title: fText(), active: fBool().optional() }),
    async run(ctx, f) {
      const c = await createPlatformCountry(
        ctx.db,
        { title: f.title, ...titlesOf(f), isActive: f.active },
        ctx.clock.now(),
      );
      return { json: withBooleans(c), text: `created platform country ${c.title} (${c.id})` };
    },
  }),
  defineCommand({
    name: 'platform-country list',
    summary: 'list platform countries with their cities (active and inactive)',
    flags: flagsOf({}),
    async run(ctx) {
      const rows = await listPlatformCountries(ctx.db);
      return {
        json: rows.map((c) => ({ ...withBooleans(c), cities: c.cities.map(withBooleans) })),
        text:
          rows
            .map(
              (c) =>
                `${c.id} ${c.title}${c.isActive ? '' : ' (inactive)'}: ${c.cities.map((x) => `${x.title} ${x.id}${x.isActive ? '' : ' (inactive)'}`).join(', ') || 'no cities'}`,
            )
            .join('\n') || '(none)',
      };
    },
  }),
  defineCommand({
    name: 'platform-country update',
    summary: 'change a platform country',
    usage: ['--id <id>', '--title <text>', TITLE_USAGE, '--active true|false'],
    flags: flagsOf({ ...titleFlags, id: fId(), title: fText().optional(), active: fBool().optional() }),
    async run(ctx, f) {
      const c = await updatePlatformCountry(
        ctx.db,
        f.id,
        { title: f.title, ...titlesOf(f), isActive: f.active },
        ctx.clock.now(),
      );
      return { json: withBooleans(c), text: `updated platform country ${c.title} (${c.id})` };
    },
  }),
  defineCommand({
    name: 'platform-city create',
    summary: 'create a platform city',
    usage: [
      '--country <id>  (required)',
      '--title <text>  (required)',
      TITLE_USAGE,
      '--lat <n> --lng <n>',
      '--active true|false (default true)',
    ],
    flags: flagsOf({
      ...titleFlags,
      country: fId(),
      title: fText(),
      lat: fLat().optional(),
      lng: fLng().optional(),
      active: fBool().optional(),
    }),
    async run(ctx, f) {
      const c = await createPlatformCity(
        ctx.db,
        { countryId: f.country, title: f.title, ...titlesOf(f), lat: f.lat, lng: f.lng, isActive: f.active },
        ctx.clock.now(),
      );
      return { json: withBooleans(c), text: `created platform city ${c.title} (${c.id}) in country ${c.countryId}` };
    },
  }),
  defineCommand({
    name: 'platform-city update',
    summary: 'change a platform city',
    usage: ['--id <id>', '--title <text>', TITLE_USAGE, '--lat <n> --lng <n>', '--active true|false'],
    flags: flagsOf({
      ...titleFlags,
      id: fId(),
      title: fText().optional(),
      lat: fLat().optional(),
      lng: fLng().optional(),
      active: fBool().optional(),
    }),
    async run(ctx, f) {
      const c = await updatePlatformCity(
        ctx.db,
        f.id,
        { title: f.title, ...titlesOf(f), lat: f.lat, lng: f.lng, isActive: f.active },
        ctx.clock.now(),
      );
      return { json: withBooleans(c), text: `updated platform city ${c.title} (${c.id})` };
    },
  }),
];
