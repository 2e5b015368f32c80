/** Countries, cities and districts: the directories lockers are filed under. */
import type { Db } from '../../storage/database.ts';
import { defineCommand, type Command } from '../command.ts';
import { fBool, fText, flagsOf } from '../flags.ts';
import { block, table, yesNo } from '../format.ts';
import { withBooleans } from '../present.ts';
import {
  createCity,
  createCountry,
  createDistrict,
  listCities,
  listCountries,
  listDistricts,
  updateDirectoryEntry,
} from '../../services/admin/directories.ts';

type Entry = { id: string; title: string; isActive: number } & Record<string, unknown>;

interface Directory {
  /** command word and table */
  name: 'country' | 'city' | 'district';
  plural: string;
  /** the parent's flag and column, for cities and districts */
  parent?: { flag: 'country' | 'city'; column: 'countryId' | 'cityId' };
  create(db: Db, parentId: string, title: string, isActive: boolean, now: Date): Promise<Entry>;
  list(db: Db, parentId?: string): Promise<Entry[]>;
}

const DIRECTORIES: Directory[] = [
  {
    name: 'country',
    plural: 'countries',
    create: (db, _p, t, a, n) => createCountry(db, t, a, n),
    list: (db) => listCountries(db),
  },
  {
    name: 'city',
    plural: 'cities',
    parent: { flag: 'country', column: 'countryId' },
    create: createCity,
    list: listCities,
  },
  {
    name: 'district',
    plural: 'districts',
    parent: { flag: 'city', column: 'cityId' },
    create: createDistrict,
    list: listDistricts,
  },
];

const columnsOf = (d: Directory) => ['id', 'title', 'active', ...(d.parent ? [d.parent.column] : [])];
const entryText = (d: Directory, e: Entry, headline: string) =>
  `${headline}\n${block({ ...e, active: yesNo(e.isActive) }, [...columnsOf(d), 'updatedAt'])}`;

function directoryCommands(d: Directory): Command[] {
  const parentFlag = d.parent?.flag;
  return [
    defineCommand({
      name: `${d.name} create`,
      summary: `create a ${d.name}`,
      usage: [
        ...(parentFlag ? [`--${parentFlag} <${parentFlag}Id>   (required)`] : []),
        '--title <text>   (required)',
        '--active true|false   (default true)',
      ],
      flags: flagsOf({ title: fText(), active: fBool().optional(), ...(parentFlag ? { [parentFlag]: fText() } : {}) }),
      async run(ctx, f: { title: string; active?: boolean } & Record<string, string>) {
        const e = await d.create(ctx.db, parentFlag ? f[parentFlag] : '', f.title, f.active ?? true, ctx.clock.now());
        return { json: withBooleans(e), text: entryText(d, e, `created ${d.name}`) };
      },
    }),
    defineCommand({
      name: `${d.name} list`,
      summary: `list ${d.plural} (active and inactive)`,
      usage: parentFlag ? [`--${parentFlag} <${parentFlag}Id>   only those of one ${parentFlag}`] : [],
      flags: flagsOf(parentFlag ? { [parentFlag]: fText().optional() } : {}),
      async run(ctx, f: Record<string, string | undefined>) {
        const rows = await d.list(ctx.db, parentFlag ? f[parentFlag] : undefined);
        return {
          json: rows.map(withBooleans),
          text: table(
            rows.map((e) => ({ ...e, active: yesNo(e.isActive) })),
            columnsOf(d),
          ),
        };
      },
    }),
    defineCommand({
      name: `${d.name} update`,
      summary: `rename a ${d.name} or switch it on or off (inactive ones are hidden from the Locker API)`,
      usage: [`--id <${d.name}Id>   (required)`, '--title <text>', '--active true|false'],
      flags: flagsOf({ id: fText(), title: fText().optional(), active: fBool().optional() }).refine(
        (f) => f.title !== undefined || f.active !== undefined,
        'give --title or --active (nothing to change)',
      ),
      async run(ctx, f: { id: string; title?: string; active?: boolean }) {
        const e = (await updateDirectoryEntry(
          ctx.db,
          d.name,
          f.id,
          { title: f.title, isActive: f.active },
          ctx.clock.now(),
        )) as Entry;
        return { json: withBooleans(e), text: entryText(d, e, `updated ${d.name}`) };
      },
    }),
  ];
}

export const commands: Command[] = DIRECTORIES.flatMap(directoryCommands);
