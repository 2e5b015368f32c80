/**
 * The enrolment exchange (docs/field-technicians.md, "Enrol"): a locker's agent trades a
 * one-time code for its identity, its broker and its own credentials, and its cell map.
 * `POST /api/v1/agent/enrol`, unauthenticated: the code is the credential.
 */
import { z } from 'zod';
import { CellName, CellSize } from './mqtt/index.ts';
import { MAX_CELLS_PER_LOCKER } from './mqtt/cell-map.ts';
import { LOCKS_PER_BOARD, MAX_BOARD_ADDRESS } from './protocols/kerong/index.ts';

export const ENROLMENT_PATH = '/api/v1/agent/enrol';

/** Letters and digits a person reads off a screen without confusing them (no I, L, O, 0, 1). */
export const ENROLMENT_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const ENROLMENT_CODE_LENGTH = 8;

/** XXXX-XXXX, case and the dash optional as typed; normalised to 8 upper-case characters. */
export const EnrolmentCode = z
  .string()
  .max(32)
  .transform((s) => s.replace(/[\s-]/g, '').toUpperCase())
  .pipe(
    z
      .string()
      .length(ENROLMENT_CODE_LENGTH, 'an enrolment code is 8 letters and digits, as XXXX-XXXX')
      .regex(
        new RegExp(`^[${ENROLMENT_ALPHABET}]+$`),
        'an enrolment code has letters and digits only (no I, L, O, 0 or 1)',
      ),
  );

export const EnrolmentRequest = z.strictObject({ code: EnrolmentCode });
export type EnrolmentRequest = z.infer<typeof EnrolmentRequest>;

export const EnrolledCell = z.strictObject({
  cellId: CellName,
  board: z.number().int().min(0).max(MAX_BOARD_ADDRESS),
  lock: z.number().int().min(1).max(LOCKS_PER_BOARD),
  size: CellSize,
});

export const EnrolmentResponse = z.strictObject({
  lockerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  mqttUrl: z.string().regex(/^(mqtts?|wss?|tcp):\/\/[^\s]{1,500}$/),
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(200),
  cells: z.array(EnrolledCell).min(1).max(MAX_CELLS_PER_LOCKER),
});
export type EnrolmentResponse = z.infer<typeof EnrolmentResponse>;

/** The refusals, each with its own code so the agent can tell the technician what to do. */
export const ENROLMENT_REFUSALS = {
  ENROLMENT_CODE_UNKNOWN: 'no such enrolment code: check it, or ask the operator for a new one',
  ENROLMENT_CODE_USED: 'this enrolment code was used already: ask the operator for a new one',
  ENROLMENT_CODE_EXPIRED: 'this enrolment code has expired: ask the operator for a new one',
  LOCKER_HAS_NO_CELLS: 'the locker has no cells in the cloud yet: ask the operator to add them (cell add) first',
} as const;
export type EnrolmentRefusal = keyof typeof ENROLMENT_REFUSALS;
