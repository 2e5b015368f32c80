/** The live side of a locker, as its agent reported it over MQTT, and the alarms it raised. */
import { defineCommand, OperatorError, type Command } from '../command.ts';
import { fInt, fText, flagsOf } from '../flags.ts';
import { block, table } from '../format.ts';
import { lockerLinkStatus } from '../../sync/status.ts';
import { openAlarms, resolveAlarm } from '../../storage/locker-alarm-queries.ts';
import type { LockerAlarmTable } from '../../sync/types.ts';

type Status = Awaited<ReturnType<typeof lockerLinkStatus>>;

const tri = (v: boolean | null, yes: string, no: string) => (v === null ? 'unknown' : v ? yes : no);

const alarmTable = (alarms: LockerAlarmTable[], withLocker = false) =>
  table(
    alarms.map((a) => ({ ...a, locker: a.postomatId, order: a.orderId, cell: a.cellId, event: a.eventId })),
    [...(withLocker ? ['locker'] : []), 'id', 'raisedAt', 'kind', 'order', 'cell', 'detail'],
  );

function statusText(s: Status): string {
  const c = s.connection;
  const connection = c
    ? `${c.online ? 'online' : 'offline'} since ${c.since} (agent ${c.agentVersion ?? '?'})`
    : 'never connected';
  const parts = [
    block({
      locker: `${s.title} [${s.shortId}] (${s.id})`,
      connection,
      sync: `cloud version ${s.sync.version}, published ${s.sync.publishedVersion}${c?.reportedSyncVersion !== undefined && c?.reportedSyncVersion !== null ? `, the agent held ${c.reportedSyncVersion} when it connected` : ''}`,
    }),
    // First: each one may be a parcel locked in a cell while its order says otherwise.
    s.alarms.length
      ? `ALARMS (${s.alarms.length} open; resolve with: locker alarm resolve --id <id>):\n${alarmTable(s.alarms)}`
      : 'alarms: none',
    s.cells
      ? `cells (reported ${s.cells.reportedAt}):\n${table(
          s.cells.cells.map((x) => ({
            cell: x.cellId,
            size: x.size,
            door: tri(x.lockClosed, 'closed', 'OPEN'),
            parcel: tri(x.parcelPresent, 'yes', 'no'),
            state: x.state,
          })),
          ['cell', 'size', 'door', 'parcel', 'state'],
        )}`
      : 'cells: not reported yet',
    healthText(s.health),
    selfTestText(s.selfTest),
    `staff commands:\n${table(
      s.commands.map((x) => ({ ...x, order: x.orderId, cell: x.cellId })),
      ['id', 'type', 'state', 'cell', 'order', 'createdAt', 'expiresAt', 'error'],
    )}`,
    `recent events:\n${table(
      s.events.map((e) => ({ ...e, order: e.orderId, cell: e.cellId, about: e.note ?? e.detail })),
      ['receivedAt', 'type', 'outcome', 'order', 'cell', 'about'],
    )}`,
  ];
  return parts.join('\n\n');
}

function healthText(h: Status['health']): string {
  if (!h) return 'health: not reported yet';
  const r = h.report;
  const boards = table(
    r.boards.map((b) => ({
      board: b.board,
      answers: b.online ? 'yes' : 'NO',
      timeouts: b.timeouts,
      checksumErrors: b.checksumErrors,
      lastAnswer: b.lastAnswerAt,
    })),
    ['board', 'answers', 'timeouts', 'checksumErrors', 'lastAnswer'],
  );
  return `health (reported ${h.receivedAt}): agent ${r.agentVersion}, up ${r.uptimeSeconds} s, ${r.outboxSize} event(s) unsent, store ${r.storeBytes} bytes\n${boards}`;
}

function selfTestText(t: Status['selfTest']): string {
  if (!t) return 'self-test: never run (npm run agent -- self-test)';
  const r = t.report;
  const faults = r.results.filter((x) => x.outcome !== 'OK' && x.outcome !== 'SKIPPED').length;
  return `last self-test (${r.at}${r.all ? ', every cell' : ', empty cells'}): ${faults ? `${faults} FAULT(S)` : 'no faults'}\n${table(
    r.results.map((x) => ({ cell: x.cellId, board: x.board, lock: x.lock, result: x.outcome, detail: x.detail })),
    ['cell', 'board', 'lock', 'result', 'detail'],
  )}`;
}

export const commands: Command[] = [
  defineCommand({
    name: 'locker status',
    summary:
      "a locker's live state from its agent: open alarms, connection, cells, sync, health, last self-test, staff commands, recent events",
    usage: ['--id <lockerId>', '--events <n>   recent events to show (1-200, default 10)'],
    flags: flagsOf({ id: fText(), events: fInt(1, 200).optional() }),
    async run(ctx, f) {
      const s = await lockerLinkStatus(ctx.db, f.id, f.events ?? 10);
      return { json: s, text: statusText(s) };
    },
  }),
  defineCommand({
    name: 'locker alarms',
    summary:
      'open alarms of every locker (or one), oldest first: events the cloud would not or could not apply, cell maps that differ',
    usage: ['--locker <lockerId>   only this locker', '--limit <n>   at most this many (1-1000, default 100)'],
    flags: flagsOf({ locker: fText().optional(), limit: fInt(1, 1000).optional() }),
    async run(ctx, f) {
      const alarms = await openAlarms(ctx.db, f.locker, f.limit ?? 100);
      return { json: alarms, text: alarms.length ? alarmTable(alarms, true) : 'no open alarms' };
    },
  }),
  defineCommand({
    name: 'locker alarm resolve',
    summary: 'mark an alarm dealt with (what was done goes in --note); it leaves locker status and locker alarms',
    usage: ['--id <alarmId>   (required)', '--note <text>   what was done (required)'],
    flags: flagsOf({ id: fText(), note: fText() }),
    async run(ctx, f) {
      if (!(await resolveAlarm(ctx.db, f.id, f.note, ctx.clock.now())))
        throw new OperatorError(`no open alarm ${f.id}`);
      return { json: { id: f.id, resolved: true }, text: `alarm ${f.id} resolved` };
    },
  }),
];
