/**
 * The one string schema of every request field that reaches a text column (docs/security.md,
 * "HTTP limits"). Each field has a length; none takes NUL (PostgreSQL cannot store it: it was a
 * 500 there and a stored NUL on SQLite), other C0 and C1 control characters or DEL; only the
 * free-text fields that hold documents (an order's customData, a webhook's payloadTemplate) take
 * tab and line breaks. Unpaired UTF-16 surrogates are refused too: PostgreSQL's driver would
 * store them silently replaced by U+FFFD, SQLite as they came, so the two would differ.
 */
import { z } from 'zod';

/** Lengths in characters (UTF-16 code units, as zod counts them). */
export const TEXT_MAX = {
  /** ids given as plain strings (the platform's locker ids, marketplace locker ids) */
  id: 64,
  /** a locker's public short id */
  shortId: 64,
  /** a marketplace parcel's track code, in a path or a body */
  trackCode: 100,
  /** `search` of the client, parcel and cargo lists */
  search: 200,
  /** phone numbers other than a locker order's own (which the spec bounds at 20) */
  phone: 50,
  /** names and titles: an API key's title, a party's name */
  title: 200,
  address: 500,
  email: 254,
  password: 1024,
  /** refresh tokens (JWTs of a few hundred characters) */
  token: 4096,
  url: 2048,
  /** the value a webhook sends in its `x-api-key` header */
  headerValue: 1024,
  /** an order's customData: an integrator's own reference, often a small JSON document */
  customData: 10_000,
  /** a webhook's payloadTemplate: a small JSON document */
  payloadTemplate: 10_000,
} as const;

/** C0 controls, DEL and C1 controls; tab, LF and CR are told apart by the schema. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** With the u flag a well-formed pair is one code point, so only unpaired surrogates match. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

type StringSchema = z.ZodString | z.ZodStringFormat;

/** Adds the character rules to any string schema (a format such as url or email included). */
export function plainText<T extends StringSchema>(schema: T, options: { multiline?: boolean } = {}): T {
  const controls = options.multiline ? CONTROLS_BUT_LAYOUT : CONTROLS;
  const message = options.multiline
    ? 'must NOT contain control characters other than tab and line breaks'
    : 'must NOT contain control characters';
  return schema
    .refine((s) => !controls.test(s), { error: message, abort: true })
    .refine((s) => !UNPAIRED_SURROGATE.test(s), { error: 'must NOT contain unpaired surrogates', abort: true }) as T;
}

/** A single-line string of at most `max` characters; `trim`: surrounding whitespace is cut first. */
export const line = (max: number, options: { trim?: boolean } = {}) =>
  plainText(options.trim ? z.string().trim().max(max) : z.string().max(max));

/** A free text of at most `max` characters: tab and line breaks allowed. */
export const text = (max: number) => plainText(z.string().max(max), { multiline: true });
