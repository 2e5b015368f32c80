import { EventEmitter } from 'node:events';
import type { IClientOptions, IClientPublishOptions, MqttClient } from 'mqtt';
import type { z } from 'zod';
import { redactUrl } from '../urls.ts';

/** `mqtt.connect`, passed in so that tests and benchmarks choose the network. */
export type MqttConnect = (url: string, options: IClientOptions) => MqttClient;

export interface LinkTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface LinkLog {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface MqttLinkOptions {
  url: string;
  /** Built anew for every attempt: a Last Will carries the time of the connection it guards. */
  clientOptions: () => IClientOptions;
  /** Reconnect delays double from minMs up to maxMs (with jitter), and reset after a connect. */
  backoff?: { minMs: number; maxMs: number };
}

export interface MqttLinkEvents {
  connect: [];
  close: [];
  message: [topic: string, payload: Buffer];
}

/**
 * One MQTT connection that comes back by itself. A fresh mqtt.js client per attempt (mqtt.js's
 * own reconnect keeps a fixed period and the first attempt's Last Will), clean sessions: what a
 * peer missed while away is recovered by the application (sync version, outbox), not by broker
 * sessions, so nothing depends on a broker's persistence.
 */
export class MqttLink extends EventEmitter<MqttLinkEvents> {
  private client: MqttClient | undefined;
  private timer: unknown;
  private attempt = 0;
  private paused = false;
  private stopped = false;

  constructor(
    private readonly options: MqttLinkOptions,
    private readonly deps: { connect: MqttConnect; timers: LinkTimers; log: LinkLog },
  ) {
    super();
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  start(): void {
    this.open();
  }

  /** Publishes a JSON message; false when there is no connection or the broker did not take it. */
  async publish(topic: string, body: unknown, options: IClientPublishOptions = { qos: 1 }): Promise<boolean> {
    const client = this.client;
    if (!client?.connected) return false;
    try {
      await client.publishAsync(topic, JSON.stringify(body), options);
      return true;
    } catch (err) {
      this.deps.log.warn(`publish on ${topic} failed: ${(err as Error).message}`);
      return false;
    }
  }

  /** QoS 1 subscriptions on the current connection; refused ones are an error. */
  async subscribe(topics: string[]): Promise<void> {
    const client = this.client;
    if (!client?.connected) throw new Error('not connected');
    try {
      await client.subscribeAsync(Object.fromEntries(topics.map((t) => [t, { qos: 1 as const }])));
    } catch (err) {
      // mqtt.js rejects when the broker refuses any filter (SUBACK 0x80).
      const granted = (err as { packet?: { granted?: number[] } }).packet?.granted;
      const refused = granted ? topics.filter((_, i) => granted[i] === 128) : [];
      throw new Error(
        refused.length ? `subscription refused: ${refused.join(', ')}` : `subscribe failed: ${(err as Error).message}`,
      );
    }
  }

  /** Drops the connection without a DISCONNECT (the broker publishes the Last Will) and stays away. */
  async pause(): Promise<void> {
    this.paused = true;
    this.deps.timers.clearTimeout(this.timer);
    await this.client?.endAsync(true);
  }

  resume(): void {
    if (!this.paused || this.stopped) return;
    this.paused = false;
    this.attempt = 0;
    this.open();
  }

  /** `farewell` runs while still connected (e.g. publish "offline" so no Last Will is needed). */
  async stop(farewell?: () => Promise<unknown>): Promise<void> {
    if (this.stopped) return;
    if (farewell && this.connected) await farewell().catch(() => undefined);
    this.stopped = true;
    this.deps.timers.clearTimeout(this.timer);
    await this.client?.endAsync();
  }

  private open(): void {
    if (this.stopped || this.paused) return;
    const client = this.deps.connect(this.options.url, { ...this.options.clientOptions(), reconnectPeriod: 0 });
    this.client = client;
    // Nagle's algorithm held a small publish that followed another one until the first was
    // ACKed, and Linux delays ACKs up to 40 ms: a door event took ~50 ms to reach the cloud
    // instead of ~9 (bench:peak). MQTT.js does not turn it off; its TCP stream is a socket.
    (client.stream as { setNoDelay?: (on: boolean) => unknown } | undefined)?.setNoDelay?.(true);
    client.on('connect', () => {
      this.attempt = 0;
      this.emit('connect');
    });
    client.on('message', (topic, payload) => this.emit('message', topic, payload));
    client.on('error', (err) => this.deps.log.warn(`mqtt ${redactUrl(this.options.url)}: ${err.message}`));
    client.on('close', () => {
      if (this.client !== client) return;
      this.emit('close');
      client.removeAllListeners('connect');
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.paused) return;
    const { minMs, maxMs } = this.options.backoff ?? { minMs: 500, maxMs: 30_000 };
    const base = Math.min(maxMs, minMs * 2 ** this.attempt++);
    // Jitter, so a fleet that lost the broker together does not come back in one burst.
    const delay = base / 2 + Math.random() * (base / 2);
    this.deps.timers.clearTimeout(this.timer);
    this.timer = this.deps.timers.setTimeout(() => {
      this.client?.removeAllListeners();
      this.client?.on('error', () => undefined);
      this.open();
    }, delay);
  }
}

const MAX_ISSUES_NAMED = 5;

/** Parses and validates one message; the error names fields, never values (codes travel here). */
export function decodeMessage<T>(
  schema: z.ZodType<T>,
  payload: Buffer,
): { ok: true; value: T } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  // A hostile message can fail in thousands of places: the first few say enough.
  const issues = parsed.error.issues;
  const named = issues
    .slice(0, MAX_ISSUES_NAMED)
    .map((i) => `${i.path.join('.').slice(0, 100) || '(message)'}: ${i.message}`);
  if (issues.length > MAX_ISSUES_NAMED) named.push(`and ${issues.length - MAX_ISSUES_NAMED} more`);
  return { ok: false, error: named.join('; ') };
}
