/** What the operator sees of a locker's link: open alarms, connection, cells, sync versions, commands, events. */
import type { CellReport } from '../../shared/mqtt/index.ts';
import type { Db } from '../storage/database.ts';
import { getPostomat } from '../services/admin/postomats.ts';
import { openAlarms } from '../storage/locker-alarm-queries.ts';
import { recentCommandsOf } from '../storage/locker-command-queries.ts';
import { recentLockerEvents } from '../storage/locker-event-queries.ts';
import { lockerLinkOf } from '../storage/locker-link-queries.ts';
import { lockerVersion } from '../storage/locker-sync-queries.ts';
import { lastHealth, lastSelfTest } from './field-reports.ts';

export async function lockerLinkStatus(db: Db, postomatId: string, recentEvents = 10) {
  const p = await getPostomat(db, postomatId);
  const [alarms, link, versions, commands, events, health, selfTest] = await Promise.all([
    openAlarms(db, postomatId),
    lockerLinkOf(db, postomatId),
    lockerVersion(db, postomatId),
    recentCommandsOf(db, postomatId),
    recentLockerEvents(db, postomatId, recentEvents),
    lastHealth(db, postomatId),
    lastSelfTest(db, postomatId),
  ]);
  return {
    id: p.id,
    shortId: p.shortId,
    title: p.title,
    isConnected: p.isConnected === 1,
    alarms,
    connection: link?.connectionAt
      ? {
          online: link.online === 1,
          // Online: since the agent connected. Offline: since the cloud learned it (the Last Will
          // carries the time of the connection it guarded, which says nothing of when it dropped).
          since: link.online === 1 ? link.connectionAt : link.updatedAt,
          agentVersion: link.agentVersion,
          reportedSyncVersion: link.reportedVersion === null ? null : Number(link.reportedVersion),
        }
      : null,
    sync: { version: versions.version, publishedVersion: versions.publishedVersion },
    cells: link?.cells ? { reportedAt: link.cellsAt, cells: JSON.parse(link.cells) as CellReport[] } : null,
    commands,
    events,
    health,
    selfTest,
  };
}
