/**
 * A locker's own reports from the field (shared/mqtt/field.ts): its last health and its last
 * self-test, each replaced by the next one in the order the cloud receives them (a device's
 * clock proves nothing: link-state.ts). A board the health report says is silent raises the
 * locker's BOARD_SILENT alarm; a report with every board answering resolves it. The rows:
 * storage/locker-report-queries.ts.
 */
import type { HealthMessage, SelfTestMessage } from '../../shared/mqtt/index.ts';
import type { Db } from '../storage/database.ts';
import { healthReports, type LockerReportKind, replaceReport, reportOf } from '../storage/locker-report-queries.ts';
import type { Logger } from '../logger.ts';
import { clearStateAlarm } from '../storage/locker-alarm-queries.ts';
import { setStateAlarm } from './alarms.ts';
import { deviceTime } from './link-state.ts';

async function saveReport(
  db: Db,
  table: LockerReportKind,
  postomatId: string,
  report: unknown,
  at: string,
  now: Date,
): Promise<void> {
  await replaceReport(db, table, postomatId, {
    report: JSON.stringify(report),
    at: deviceTime(at, now),
    receivedAt: now.toISOString(),
  });
}

export async function recordHealth(
  db: Db,
  logger: Logger,
  postomatId: string,
  msg: HealthMessage,
  now: Date,
): Promise<void> {
  await saveReport(db, 'locker_health', postomatId, msg, msg.at, now);
  const silent = msg.boards.filter((b) => !b.online).map((b) => b.board);
  if (silent.length) {
    const detail = `lock board(s) ${silent.join(', ')} do not answer: their cells are unknown and take no parcel`;
    if (await setStateAlarm(db, postomatId, 'BOARD_SILENT', detail, now))
      logger.warn('locker board silent: alarm raised', { lockerId: postomatId, boards: silent });
  } else if (await clearStateAlarm(db, postomatId, 'BOARD_SILENT', 'every board answers again', now)) {
    logger.info('locker boards answer again: alarm resolved', { lockerId: postomatId });
  }
}

export async function recordSelfTest(
  db: Db,
  logger: Logger,
  postomatId: string,
  msg: SelfTestMessage,
  now: Date,
): Promise<void> {
  await saveReport(db, 'locker_self_test', postomatId, msg, msg.at, now);
  const faults = msg.results.filter((r) => r.outcome !== 'OK' && r.outcome !== 'SKIPPED');
  logger[faults.length ? 'warn' : 'info']('locker self-test received', {
    lockerId: postomatId,
    cells: msg.results.length,
    faults: faults.length,
  });
}

export interface StoredReport<T> {
  report: T;
  at: string;
  receivedAt: string;
}

async function readReport<T>(db: Db, table: LockerReportKind, postomatId: string): Promise<StoredReport<T> | null> {
  const row = await reportOf(db, table, postomatId);
  return row ? { report: JSON.parse(row.report) as T, at: row.at, receivedAt: row.receivedAt } : null;
}

export const lastHealth = (db: Db, postomatId: string) => readReport<HealthMessage>(db, 'locker_health', postomatId);
export const lastSelfTest = (db: Db, postomatId: string) =>
  readReport<SelfTestMessage>(db, 'locker_self_test', postomatId);

/** Per-locker figures for metrics gauges: one row per locker that ever sent its health. */
export async function healthGauges(db: Db, limit = 10_000) {
  const rows = await healthReports(db, limit);
  return rows.map((r) => {
    const h = JSON.parse(r.report) as HealthMessage;
    return {
      lockerId: r.postomatId,
      receivedAt: r.receivedAt,
      uptimeSeconds: h.uptimeSeconds,
      outboxSize: h.outboxSize,
      storeBytes: h.storeBytes,
      boardsOffline: h.boards.filter((b) => !b.online).length,
      boardTimeouts: h.boards.reduce((n, b) => n + b.timeouts, 0),
      boardChecksumErrors: h.boards.reduce((n, b) => n + b.checksumErrors, 0),
    };
  });
}
