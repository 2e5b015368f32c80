/**
 * Messages of a locker in the field (issue 20), agent → cloud, both retained so the cloud (and
 * the operator) always find the last one: `lockers/{id}/health` and `lockers/{id}/selftest`.
 * Kept apart from schemas.ts: they extend contract 1.0 with two topics an older cloud ignores.
 */
import { z } from 'zod';
import { MAX_BOARDS_PER_BUS } from '../protocols/kerong/constants.ts';
import { MAX_CELLS_PER_LOCKER } from './cell-map.ts';
import { MQTT_LIMITS } from './limits.ts';
import { CellName } from './schemas.ts';
import { CONTRACT_VERSION } from './version.ts';

const timestamp = z.iso.datetime();
const count = z.number().int().nonnegative().max(MQTT_LIMITS.counter);
const text = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters');

export const BoardHealth = z.object({
  board: z
    .number()
    .int()
    .min(0)
    .max(MAX_BOARDS_PER_BUS - 1),
  online: z.boolean(),
  /** since the agent started */
  timeouts: count,
  checksumErrors: count,
  lastAnswerAt: timestamp.nullable(),
});
export type BoardHealth = z.infer<typeof BoardHealth>;

export const HealthMessage = z.object({
  v: z.literal(CONTRACT_VERSION),
  at: timestamp,
  agentVersion: text(MQTT_LIMITS.agentVersionLength),
  uptimeSeconds: count,
  /** events recorded and not yet acknowledged by the cloud */
  outboxSize: count,
  /** the agent's store (agent.db with its WAL), bytes */
  storeBytes: count,
  boards: z.array(BoardHealth).max(MAX_BOARDS_PER_BUS),
});
export type HealthMessage = z.infer<typeof HealthMessage>;

export const SelfTestOutcome = z.enum([
  /** opened on command and read closed again */
  'OK',
  /** the board answered but the hook never read open: the latch (or a hook switch stuck closed) */
  'JAMMED',
  /** the board did not answer the status read or the unlock */
  'NO_ANSWER',
  /** the door opened but the hook never read closed again once the technician shut it */
  'SENSOR_STUCK',
  /** not opened: a parcel is inside (self-test --all opens those too) */
  'SKIPPED',
]);
export type SelfTestOutcome = z.infer<typeof SelfTestOutcome>;

export const SelfTestResult = z.object({
  cellId: CellName,
  board: z
    .number()
    .int()
    .min(0)
    .max(MAX_BOARDS_PER_BUS - 1),
  lock: z.number().int().min(1).max(16),
  outcome: SelfTestOutcome,
  detail: text(200).optional(),
});
export type SelfTestResult = z.infer<typeof SelfTestResult>;

export const SelfTestMessage = z.object({
  v: z.literal(CONTRACT_VERSION),
  at: timestamp,
  agentVersion: text(MQTT_LIMITS.agentVersionLength),
  /** every cell was tested, parcels or not */
  all: z.boolean(),
  results: z.array(SelfTestResult).max(MAX_CELLS_PER_LOCKER),
});
export type SelfTestMessage = z.infer<typeof SelfTestMessage>;
