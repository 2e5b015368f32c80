/**
 * The fleet's health as the agents report it (lockers/{id}/health, kept per locker by
 * sync/field-reports.ts), summed for Prometheus: how many lockers report, how many have a
 * board that does not answer, bus timeouts and checksum errors, events waiting in the
 * agents' outboxes. Sums, not one series per locker: 10,000 lockers would be 10,000 series a
 * gauge (`npm run operator -- locker status` shows one locker). Read at most every FRESH_MS,
 * so several scrapes share one read of the reports.
 */
import type { Db } from '../storage/database.ts';
import { healthGauges } from '../sync/field-reports.ts';
import type { CloudMetrics } from './cloud-metrics.ts';
import { sharedRead } from './shared-read.ts';

const FRESH_MS = 10_000;

type Health = Awaited<ReturnType<typeof healthGauges>>;

export function registerFleetGauges(metrics: CloudMetrics, db: Db): void {
  const reports = sharedRead(() => healthGauges(db), FRESH_MS);
  const sum = (name: string, help: string, of: (r: Health[number]) => number) =>
    metrics.gauge(name, help, [], async (g) => {
      const rs = await reports();
      if (rs) g.set(rs.reduce((n, r) => n + of(r), 0));
    });
  sum('fleet_lockers_reporting_health', 'Lockers whose agent has reported its health', () => 1);
  sum(
    'fleet_lockers_with_silent_board',
    'Lockers with at least one board that did not answer at its last report',
    (r) => (r.boardsOffline > 0 ? 1 : 0),
  );
  sum(
    'fleet_board_timeouts',
    'Bus timeouts since each agent started, summed over the fleet (a counter per agent, reset when it restarts)',
    (r) => r.boardTimeouts,
  );
  sum(
    'fleet_board_checksum_errors',
    'Frames with a bad checksum since each agent started, summed over the fleet',
    (r) => r.boardChecksumErrors,
  );
  sum(
    'fleet_agent_outbox_events',
    "Events waiting in the agents' outboxes for the cloud's acknowledgement",
    (r) => r.outboxSize,
  );
}
