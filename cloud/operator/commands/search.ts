/** Upkeep of the list search indexes of parcels, cargo and clients (migrations 009 and 010, storage/search-maintenance.ts). */
import { defineCommand, type Command } from '../command.ts';
import { flagsOf } from '../flags.ts';
import { table } from '../format.ts';
import { optimizeSearchIndexes } from '../../storage/search-maintenance.ts';

export const commands: Command[] = [
  defineCommand({
    name: 'search optimize',
    summary:
      'compact the parcel, cargo and client search indexes (after a bulk import, or nightly); searches keep working meanwhile',
    flags: flagsOf({}),
    async run(ctx) {
      const done = await optimizeSearchIndexes(ctx.db, ctx.dialect);
      return { json: done, text: table(done, ['table', 'index', 'ms']) };
    },
  }),
];
