/** Lockers, their cells and their agents' credentials. */
import type { z } from 'zod';
import { defineCommand, type Command, type OperatorContext } from '../command.ts';
import { fBool, fCells, fClear, fInt, fLat, fLng, fShortId, fSize, fText, flagsOf } from '../flags.ts';
import { block, table, yesNo } from '../format.ts';
import { withBooleans } from '../present.ts';
import {
  createPostomat,
  listAllPostomats,
  postomatDetails,
  resetAgentCredentials,
  updatePostomat,
  withoutSecret,
  type PostomatInput,
  type PostomatView,
} from '../../services/admin/postomats.ts';
import { addCellsToPostomat, setSizeSpec, updateCell } from '../../services/admin/cells.ts';
import { DIMENSION_MAX_MM } from '../../domain/cell-sizes.ts';
import { sizeSpecsAt } from '../../services/cell-capacity.ts';
import { recordCellMapChange } from '../../storage/locker-sync-queries.ts';
import type { CellTable } from '../../storage/schema.ts';

/**
 * The locker's agent learns its cells with its next sync message (docs/locker-sync.md): its
 * version moves, and the running clouds' publishers for it wake now, as for a queued command.
 */
async function cellMapChanged(ctx: OperatorContext, postomatId: string): Promise<void> {
  await ctx.uow.run(async (tx) => {
    await recordCellMapChange(tx.db, postomatId);
    tx.after.commandQueued(postomatId);
  });
}

const LOCKER_FIELDS = [
  'id',
  'shortId',
  'title',
  'active',
  'address',
  'lat',
  'lng',
  'schedule',
  'cityId',
  'districtId',
  'agent',
  'updatedAt',
];
const lockerText = (p: PostomatView) =>
  block(
    {
      ...p,
      active: yesNo(p.isActive),
      agent: p.hasAgentCredentials ? 'credentials issued' : 'no credentials yet (agent reset)',
    },
    LOCKER_FIELDS,
  );
const cellRows = (cells: Array<CellTable & { board?: number }>) =>
  cells.map((c) => ({ ...c, active: yesNo(c.isActive), open: yesNo(c.isOpen) }));

const describeFlags = {
  address: fText().optional(),
  description: fText().optional(),
  schedule: fText().optional(),
  lat: fLat().optional(),
  lng: fLng().optional(),
  city: fText().optional(),
  district: fText().optional(),
  'short-id': fShortId().optional(),
  active: fBool().optional(),
};
const DESCRIBE_USAGE = [
  '--address <text>',
  '--description <text>',
  '--schedule <text>          opening hours, e.g. "24/7" or "08:00-22:00"',
  '--lat <deg> --lng <deg>    coordinates, given together',
  '--city <cityId>',
  '--district <districtId>    must lie in the city (the city follows from it when not given)',
  '--short-id <text>          public short id (3-32 letters, digits, dashes; generated when not given)',
  '--active true|false',
];
type DescribeFlags = { [K in keyof typeof describeFlags]?: z.output<(typeof describeFlags)[K]> } & { title?: string };
const bothOrNeither = (f: DescribeFlags) => (f.lat === undefined) === (f.lng === undefined);
const COORDS_MESSAGE = { message: '--lat and --lng go together: give both or neither' };

const inputOf = (f: DescribeFlags): Partial<PostomatInput> => ({
  title: f.title,
  address: f.address,
  description: f.description,
  schedule: f.schedule,
  lat: f.lat,
  lng: f.lng,
  cityId: f.city,
  districtId: f.district,
  shortId: f['short-id'],
  isActive: f.active,
});

const CLEARABLE = ['address', 'description', 'schedule', 'coordinates', 'city', 'district'] as const;

export const commands: Command[] = [
  defineCommand({
    name: 'locker create',
    summary: 'create a locker, optionally with its cells (then run "agent reset" for its agent credentials)',
    usage: [
      '--title <text>             (required)',
      ...DESCRIBE_USAGE,
      '--cells <list>             cells as number:size:board:lock, e.g. "1:S:0:1,2:M:0:2,3:L:1:1"',
    ],
    flags: flagsOf({ title: fText(), cells: fCells().optional(), ...describeFlags }).refine(
      bothOrNeither,
      COORDS_MESSAGE,
    ),
    async run(ctx, f) {
      const p = await createPostomat(ctx.db, inputOf(f) as PostomatInput, f.cells ?? [], ctx.clock.now());
      const view = withoutSecret(p);
      return {
        json: { ...withBooleans(view), cells: p.cells.map(withBooleans) },
        text: `created locker\n${lockerText(view)}\ncells: ${p.cells.length}`,
      };
    },
  }),
  defineCommand({
    name: 'locker list',
    summary: 'list lockers (active and inactive) with their number of cells',
    usage: ['--city <cityId>   only those of one city'],
    flags: flagsOf({ city: fText().optional() }),
    async run(ctx, f) {
      const rows = await listAllPostomats(ctx.db, { cityId: f.city });
      return {
        json: rows.map(withBooleans),
        text: table(
          rows.map((p) => ({ ...p, active: yesNo(p.isActive), cells: p.cellCount })),
          ['id', 'shortId', 'title', 'active', 'lat', 'lng', 'cells', 'address'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'locker show',
    summary: 'show a locker with its boards and cells',
    usage: ['--id <lockerId>'],
    flags: flagsOf({ id: fText() }),
    async run(ctx, f) {
      const p = await postomatDetails(ctx.db, f.id);
      const boards = p.boards.map(
        (b) =>
          `board ${b.address} (${b.id})\n${table(cellRows(b.cells), ['number', 'size', 'lock', 'active', 'open', 'id'])}`,
      );
      return {
        json: { ...withBooleans(p), boards: p.boards.map((b) => ({ ...b, cells: b.cells.map(withBooleans) })) },
        text: [lockerText(p), ...(boards.length ? boards : ['no cells yet (cell add)'])].join('\n\n'),
      };
    },
  }),
  defineCommand({
    name: 'locker update',
    summary: 'change a locker (only the flags given change)',
    usage: [
      '--id <lockerId>            (required)',
      '--title <text>',
      ...DESCRIBE_USAGE,
      `--clear <fields>           empty some of: ${CLEARABLE.join(', ')} (comma-separated)`,
    ],
    flags: flagsOf({ id: fText(), title: fText().optional(), clear: fClear(CLEARABLE).optional(), ...describeFlags })
      .refine(bothOrNeither, COORDS_MESSAGE)
      .refine((f) => Object.keys(f).length > 1, { message: 'give at least one flag to change besides --id' }),
    async run(ctx, f) {
      const changes = inputOf(f);
      for (const field of f.clear ?? []) {
        if (field === 'coordinates') Object.assign(changes, { lat: null, lng: null });
        else if (field === 'city') Object.assign(changes, { cityId: null, districtId: null });
        else if (field === 'district') changes.districtId = null;
        else changes[field] = null;
      }
      const p = await updatePostomat(ctx.db, f.id, changes, ctx.clock.now());
      return { json: withBooleans(p), text: `updated locker\n${lockerText(p)}` };
    },
  }),
  defineCommand({
    name: 'cell add',
    summary: 'add cells to a locker: listed one by one, or a number of one size on one board',
    usage: [
      '--locker <lockerId>        (required)',
      '--cells <list>             number:size:board:lock, comma-separated, e.g. "9:S:1:1,10:L:1:2"',
      'or',
      '--count <n> --size S|M|L|XL [--board <0-15>]   n cells numbered after the highest, on the lowest free locks of the board (default 0)',
    ],
    flags: flagsOf({
      locker: fText(),
      cells: fCells().optional(),
      count: fInt(1, 16).optional(),
      size: fSize().optional(),
      board: fInt(0, 15).optional(),
    }).refine(
      (f) =>
        f.cells
          ? f.count === undefined && f.size === undefined && f.board === undefined
          : f.count !== undefined && f.size !== undefined,
      { message: 'give either --cells, or --count with --size (and optionally --board)' },
    ),
    async run(ctx, f) {
      const want = f.cells ?? { count: f.count!, size: f.size!, board: f.board ?? 0 };
      const created = await addCellsToPostomat(ctx.db, f.locker, want, ctx.clock.now());
      await cellMapChanged(ctx, f.locker);
      const rows = created.map((c) => ({ ...c, board: c.boardAddress }));
      return {
        json: created.map((c) =>
          withBooleans({
            id: c.id,
            number: c.number,
            size: c.size,
            board: c.boardAddress,
            lock: c.lock,
            isActive: c.isActive,
          }),
        ),
        text: `added ${created.length} cells to locker ${f.locker}\n${table(rows, ['number', 'size', 'board', 'lock', 'id'])}`,
      };
    },
  }),
  defineCommand({
    name: 'cell update',
    summary: "change a cell's size, title, or switch it on or off (inactive cells get no new parcels)",
    usage: ['--id <cellId>   (required)', '--size S|M|L|XL', '--title <text>', '--active true|false'],
    flags: flagsOf({
      id: fText(),
      size: fSize().optional(),
      title: fText().optional(),
      active: fBool().optional(),
    }).refine(
      (f) => f.size !== undefined || f.title !== undefined || f.active !== undefined,
      'give --size, --title or --active (nothing to change)',
    ),
    async run(ctx, f) {
      const c = await updateCell(ctx.db, f.id, { size: f.size, title: f.title, isActive: f.active }, ctx.clock.now());
      await cellMapChanged(ctx, c.postomatId);
      return {
        json: withBooleans(c),
        text: `updated cell\n${block({ ...c, active: yesNo(c.isActive) }, ['id', 'postomatId', 'number', 'title', 'size', 'lock', 'active'])}`,
      };
    },
  }),
  defineCommand({
    name: 'cell size-spec',
    summary:
      "set a locker's inner dimensions and heaviest parcel for one cell size (sized orders, docs/integrators.md), or --reset to the defaults",
    usage: [
      '--locker <lockerId> --size S|M|L|XL   (required)',
      '--length-mm <n> --width-mm <n> --height-mm <n> --max-weight-kg <n>',
      'or --reset true',
    ],
    flags: flagsOf({
      locker: fText(),
      size: fSize(),
      'length-mm': fInt(1, DIMENSION_MAX_MM).optional(),
      'width-mm': fInt(1, DIMENSION_MAX_MM).optional(),
      'height-mm': fInt(1, DIMENSION_MAX_MM).optional(),
      'max-weight-kg': fInt(1, 1000).optional(),
      reset: fBool().optional(),
    }).refine(
      (f) =>
        f.reset
          ? [f['length-mm'], f['width-mm'], f['height-mm'], f['max-weight-kg']].every((x) => x === undefined)
          : [f['length-mm'], f['width-mm'], f['height-mm'], f['max-weight-kg']].every((x) => x !== undefined),
      { message: 'give --length-mm, --width-mm, --height-mm and --max-weight-kg, or --reset true alone' },
    ),
    async run(ctx, f) {
      const spec = f.reset
        ? 'reset'
        : {
            lengthMm: f['length-mm']!,
            widthMm: f['width-mm']!,
            heightMm: f['height-mm']!,
            maxWeightKg: f['max-weight-kg']!,
          };
      await setSizeSpec(ctx.db, f.locker, f.size, spec, ctx.clock.now());
      const now = (await sizeSpecsAt(ctx.db, f.locker))[f.size];
      return {
        json: { postomatId: f.locker, size: f.size, ...now },
        text: `locker ${f.locker} size ${f.size}\n${block({ ...now })}`,
      };
    },
  }),
  defineCommand({
    name: 'agent reset',
    summary: "issue new credentials for a locker's agent (printed once; the old password stops working)",
    usage: ['--locker <lockerId>'],
    flags: flagsOf({ locker: fText() }),
    async run(ctx, f) {
      const creds = await resetAgentCredentials(ctx.db, f.locker, ctx.clock.now());
      return { json: creds, text: `${block(creds)}\nstore the password now: it is not shown again` };
    },
  }),
];
