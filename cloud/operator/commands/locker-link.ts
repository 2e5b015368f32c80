/** The live side of a locker, as its agent reported it over MQTT. */
import { defineCommand, type Command } from '../command.ts';
import { fInt, fText, flagsOf } from '../flags.ts';
import { block, table } from '../format.ts';
import { lockerLinkStatus } from '../../sync/status.ts';

type Status = Awaited<ReturnType<typeof lockerLinkStatus>>;

const tri = (v: boolean | null, yes: string, no: string) => (v === null ? 'unknown' : v ? yes : no);

function statusText(s: Status): string {
  const c = s.connection;
  const connection = c ? `${c.online ? 'online' : 'offline'} since ${c.since} (agent ${c.agentVersion ?? '?'})` : 'never connected';
  const parts = [
    block({
      locker: `${s.title} [${s.shortId}] (${s.id})`,
      connection,
      sync: `cloud version ${s.sync.version}, published ${s.sync.publishedVersion}${c?.reportedSyncVersion !== undefined && c?.reportedSyncVersion !== null ? `, the agent held ${c.reportedSyncVersion} when it connected` : ''}`,
    }),
    s.cells
      ? `cells (reported ${s.cells.reportedAt}):\n${table(
          s.cells.cells.map((x) => ({ cell: x.cellId, size: x.size, door: tri(x.lockClosed, 'closed', 'OPEN'), parcel: tri(x.parcelPresent, 'yes', 'no'), state: x.state })),
          ['cell', 'size', 'door', 'parcel', 'state'],
        )}`
      : 'cells: not reported yet',
    `staff commands:\n${table(s.commands.map((x) => ({ ...x, order: x.orderId, cell: x.cellId })), ['id', 'type', 'state', 'cell', 'order', 'createdAt', 'expiresAt', 'error'])}`,
    `recent events:\n${table(
      s.events.map((e) => ({ ...e, order: e.orderId, cell: e.cellId, about: e.note ?? e.detail })),
      ['receivedAt', 'type', 'outcome', 'order', 'cell', 'about'],
    )}`,
  ];
  return parts.join('\n\n');
}

export const commands: Command[] = [
  defineCommand({
    name: 'locker status',
    summary: "a locker's live state from its agent: connection, cells, sync, staff commands, recent events",
    usage: ['--id <lockerId>', '--events <n>   recent events to show (1-200, default 10)'],
    flags: flagsOf({ id: fText(), events: fInt(1, 200).optional() }),
    async run(ctx, f) {
      const s = await lockerLinkStatus(ctx.db, f.id, f.events ?? 10);
      return { json: s, text: statusText(s) };
    },
  }),
];
