import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { CellName, CellSize } from '../shared/mqtt/index.ts';
import { DEFAULT_BAUD_RATE, LOCKS_PER_BOARD, MAX_BOARD_ADDRESS } from '../shared/protocols/kerong/index.ts';

const CellConfig = z.strictObject({
  /** Travels in every cell report and event: the contract's rule for cell names. */
  cellId: CellName,
  /** Board address as set on the board's DIP switches (0-15). */
  board: z.number().int().min(0).max(MAX_BOARD_ADDRESS),
  /** Lock terminal on the board, 1-16 as printed on it. */
  lock: z.number().int().min(1).max(LOCKS_PER_BOARD),
  size: CellSize,
});

/**
 * 120 s: the locker shows offline within 3 minutes of a dead link (the broker waits 1.5 times
 * it), at 83 pings a second for 10,000 lockers; each ping costs the cloud ~60 µs of CPU
 * (bench:idle), so 60 s alone took 1% of a core. Sync does not depend on it: a locker works
 * offline, and a reconnecting one gets what it missed.
 */
export const DEFAULT_KEEPALIVE_SECONDS = 120;

/**
 * 15 minutes: how often the agent looks at its health and publishes the report if it changed
 * (locker-agent/health.ts healthChanged: a counter that moved, the outbox, the store, a board).
 * What needs attention at once is sent at once (a board falling silent or answering again), and
 * the report is sent on every connection too, so an outbox that grew while the link was down is
 * seen when it comes back.
 */
export const DEFAULT_HEALTH_INTERVAL_MS = 900_000;

/**
 * 6 hours: an unchanged report is sent again after this, so the cloud's copy is never older
 * (the link's liveness is the MQTT keepalive's job, not this one's). Every 15 minutes, 10,000
 * healthy lockers sent 11 identical reports a second: on the cloud's embedded broker, with the
 * cloud's handling, about half its idle CPU (bench:idle).
 */
export const DEFAULT_HEALTH_HEARTBEAT_MS = 21_600_000;

export const AgentConfig = z
  .strictObject({
    lockerId: z.string().min(1),
    serial: z.strictObject({
      device: z.string().min(1),
      baudRate: z.number().int().positive().default(DEFAULT_BAUD_RATE),
      replyTimeoutMs: z.number().int().positive().default(150),
      readRetries: z.number().int().min(0).max(5).default(2),
      pollIntervalMs: z.number().int().positive().default(250),
      /** Quiet time between a reply and the next request (kerong-bus.ts, frameGapMs). */
      frameGapMs: z.number().int().min(0).max(1000).default(5),
    }),
    boards: z.array(z.number().int().min(0).max(MAX_BOARD_ADDRESS)).min(1),
    cells: z.array(CellConfig).min(1),
    keypad: z.strictObject({
      /** `stdin`, or a serial device such as /dev/ttyUSB1. */
      device: z.string().min(1),
      baudRate: z.number().int().positive().default(9600),
    }),
    dataDir: z.string().min(1),
    /** A sync message (or a plain array of orders) loaded at start, until the cloud sync exists. */
    ordersFile: z.string().min(1).optional(),
    timing: z
      .strictObject({
        /** After an unlock the door must read open within this, or the lock is jammed. */
        unlockConfirmMs: z.number().int().positive().default(3000),
        doorOpenAlarmMs: z.number().int().positive().default(120_000),
        wrongCodeLimit: z.number().int().positive().default(5),
        wrongCodeWindowMs: z.number().int().positive().default(60_000),
        lockoutMs: z.number().int().positive().default(300_000),
      })
      .prefault({}),
    cloud: z
      .strictObject({
        mqttUrl: z.string().url(),
        username: z.string().min(1),
        password: z.string().min(1),
        /** Unacknowledged events are published again after this long. */
        eventRetryMs: z.number().int().positive().default(15_000),
        /** Reconnect delays double up to this (from 0.5 s). */
        reconnectMaxMs: z.number().int().min(500).default(30_000),
        /** The agent looks at its health this often and sends the report (retained) if it changed; at once when a board falls silent or answers again. */
        healthIntervalMs: z.number().int().min(1000).max(3_600_000).default(DEFAULT_HEALTH_INTERVAL_MS),
        /** An unchanged health report is sent again after this (at least healthIntervalMs). */
        healthHeartbeatMs: z.number().int().min(1000).max(86_400_000).default(DEFAULT_HEALTH_HEARTBEAT_MS),
        /**
         * MQTT keepalive: a silent link is pinged after this long, and the broker declares
         * the locker offline after 1.5 times it (DEFAULT_KEEPALIVE_SECONDS says what a ping costs).
         */
        keepaliveSeconds: z.number().int().min(10).max(600).default(DEFAULT_KEEPALIVE_SECONDS),
      })
      .optional(),
  })
  .superRefine((cfg, ctx) => {
    const seenIds = new Set<string>();
    const seenLocks = new Set<string>();
    cfg.cells.forEach((cell, i) => {
      if (seenIds.has(cell.cellId))
        ctx.addIssue({ code: 'custom', path: ['cells', i, 'cellId'], message: `cellId ${cell.cellId} appears twice` });
      seenIds.add(cell.cellId);
      const key = `${cell.board}/${cell.lock}`;
      if (seenLocks.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['cells', i],
          message: `board ${cell.board} lock ${cell.lock} is used by two cells`,
        });
      seenLocks.add(key);
      if (!cfg.boards.includes(cell.board))
        ctx.addIssue({
          code: 'custom',
          path: ['cells', i, 'board'],
          message: `board ${cell.board} is not listed in boards`,
        });
    });
    if (cfg.cloud && cfg.cloud.healthHeartbeatMs < cfg.cloud.healthIntervalMs)
      ctx.addIssue({
        code: 'custom',
        path: ['cloud', 'healthHeartbeatMs'],
        message: `must be at least cloud.healthIntervalMs (${cfg.cloud.healthIntervalMs})`,
      });
  });
export type AgentConfig = z.infer<typeof AgentConfig>;
export type CellConfig = z.infer<typeof CellConfig>;

export class ConfigError extends Error {}

/** The bus driver's options (boards/kerong-bus.ts) as the config sets them. */
export function busOptionsOf(cfg: AgentConfig) {
  const s = cfg.serial;
  return {
    boards: cfg.boards,
    replyTimeoutMs: s.replyTimeoutMs,
    readRetries: s.readRetries,
    pollIntervalMs: s.pollIntervalMs,
    frameGapMs: s.frameGapMs,
  };
}

/** Validates a config object; relative paths resolve against `baseDir`. */
export function parseConfig(input: unknown, baseDir = process.cwd()): AgentConfig {
  const result = AgentConfig.safeParse(input);
  if (!result.success) throw new ConfigError(`invalid locker-agent config:\n${z.prettifyError(result.error)}`);
  const cfg = result.data;
  return {
    ...cfg,
    dataDir: resolve(baseDir, cfg.dataDir),
    ordersFile: cfg.ordersFile && resolve(baseDir, cfg.ordersFile),
  };
}

export function loadConfig(path: string): AgentConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read config ${path}: ${(err as Error).message}`);
  }
  return parseConfig(raw, dirname(resolve(path)));
}
