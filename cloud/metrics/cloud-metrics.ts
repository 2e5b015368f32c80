/**
 * The cloud's metrics in the Prometheus text format (prom-client), one registry per cloud (tests
 * run several clouds in one process). Counters and histograms are fed by the parts that see the
 * work happen (HTTP, queries, deliveries, locker events, publishing); what only the database
 * knows (outbox backlog, pending commands, lockers online) is read at scrape time
 * (database-gauges.ts). Names and what to alert on: docs/operations.md, "Metrics".
 *
 * Every label takes values from a closed set (routes from the route table, statuses, kinds and
 * outcomes from their enums): nothing a caller sends becomes a label value.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventKind, EventState } from '../storage/outbox-schema.ts';
import type { IngestOutcome } from '../sync/ingest.ts';

export const METRIC_PREFIX = 'parcel_locker_';

/** Seconds; from a cached read (sub-millisecond) to a slow list or a stuck lock. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; a change is published within milliseconds after its commit, or at the next poll when a wake-up was missed. */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class CloudMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly queryDuration: Histogram<never>;
  readonly deliveries: Counter<'kind' | 'outcome'>;
  readonly lockerEvents: Counter<'outcome'>;
  readonly syncLag: Histogram<never>;
  readonly syncPublished: Counter<never>;

  constructor() {
    const registers = [this.registry];
    // Event-loop delay (nodejs_eventloop_lag_*), heap, handles, CPU: prom-client's defaults. The
    // delay is sampled every 100 ms, not every 10: the 10 ms timer alone was half an idle cloud's
    // CPU (0.6% of a core → 0.27%), and a scrape every 15 s still reads 150 samples.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.httpRequests = new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'Time from the request to its answer being sent, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.queryDuration = new Histogram({
      name: `${METRIC_PREFIX}db_query_duration_seconds`,
      help: 'Time of each database statement',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.deliveries = new Counter({
      name: `${METRIC_PREFIX}deliveries_total`,
      help: 'Outbound events (company notifications, webhooks, SMS) delivered by this instance, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.lockerEvents = new Counter({
      name: `${METRIC_PREFIX}locker_events_total`,
      help: 'Locker events handled by this instance: APPLIED, STORED, REJECTED, FAILED (recorded); DUPLICATE (seen before), DEFERRED (left for the agent to resend), INVALID (did not parse)',
      labelNames: ['outcome'],
      registers,
    });
    this.syncLag = new Histogram({
      name: `${METRIC_PREFIX}sync_lag_seconds`,
      help: "Time from a change to a locker's orders being committed (or heard of from another instance) to its delta being published by this instance",
      buckets: LAG_BUCKETS,
      registers,
    });
    this.syncPublished = new Counter({
      name: `${METRIC_PREFIX}sync_published_total`,
      help: 'Sync deltas published to lockers by this instance',
      registers,
    });
  }

  delivered(kind: EventKind, outcome: EventState): void {
    this.deliveries.inc({ kind, outcome });
  }

  lockerEvent(outcome: IngestOutcome): void {
    this.lockerEvents.inc({ outcome });
  }

  /**
   * A gauge whose value is read when scraped. The hook for gauges fed from elsewhere, such as
   * the fleet health the agents report (fleet-gauges.ts).
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    collect: (g: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return new Gauge<L>({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        await collect(this);
      },
    });
  }

  /** The text exposition and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
