/**
 * What a hostile sender puts in a request, as fast-check arbitraries: strings with NUL and other
 * control characters, lone surrogates, unicode, long and 1 MB strings, numbers that fit
 * JavaScript but not the database, wrong types, deep nesting, broken percent-encoding, broken
 * JSON and wrong content types.
 */
import fc from 'fast-check';

export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001',
  '\u0008',
  '\t',
  '\n',
  'a\r\nb',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\ud800',
  'x\udfff',
  '😀',
  'Ёжик',
  'é',
  'ä'.repeat(300),
  '%00',
  '../../etc/passwd',
  "'; drop table locker_order; --",
  '{{status}}',
  'null',
  'true',
  '[object Object]',
  '-1',
  '0',
  '1.5',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  ' 7',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999999',
];

export const NASTY_NUMBERS = [
  -1,
  0,
  -0,
  0.5,
  1e-7,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64,
  1e21,
  1e308,
  -1e308,
  -(2 ** 31) - 1,
  100_000_001,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
];

const longStrings = fc.constantFrom('a'.repeat(10_000), '\u0000'.repeat(100), 'é'.repeat(5_000));

/** A string as a path segment or query value could carry it (the URL stays under Node's header limit). */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.nat().map(String) },
  { weight: 1, arbitrary: longStrings },
);

/** Already percent-encoded text that decodes to nothing valid. */
export const brokenEncoding = fc.constantFrom(
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%80',
  '%FF%FE',
  '%00',
  '%2e%2e%2f',
  'a%',
  '%%',
);

/** A path segment: a nasty value, percent-encoded, or a broken encoding. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: nastyString.filter((s) => s !== '').map(percentEncode) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_NUMBERS).map((n) => percentEncode(String(n))) },
  { weight: 1, arbitrary: brokenEncoding },
);

/** A query value (encoded): one of the above, or several (a repeated parameter). */
export const queryValues: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 4, arbitrary: nastyString.map((s) => [percentEncode(s)]) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_NUMBERS).map((n) => [percentEncode(String(n))]) },
  { weight: 1, arbitrary: fc.array(nastyString.map(percentEncode), { minLength: 2, maxLength: 3 }) },
  { weight: 1, arbitrary: brokenEncoding.map((s) => [s]) },
);

/** Nested `depth` times: what a recursive validator or serializer must survive. */
export const deeplyNested = (depth: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

/**
 * Stands for JSON nested 10,000 levels deep, spliced in as text by `toJson`: too deep for the
 * test's own JSON.stringify, not for a parser that a hostile sender aims at.
 */
export const DEEP_MARKER = '\u0001deep-nesting\u0001';
const DEEP_TEXT = `${'['.repeat(5_000) + '{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}${']'.repeat(5_000)}`;

export const toJson = (value: unknown): string =>
  JSON.stringify(value).replaceAll(JSON.stringify(DEEP_MARKER), DEEP_TEXT);

/** A JSON value in a body field: wrong types, nasty strings and numbers, 1 MB strings, deep nesting. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(true, false, null, [], {}, [1, 2], { $gt: '' }, { __proto__: { admin: true } }),
  },
  // 1 MB under the body limit reaches validation; over it, the body parser refuses it.
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(1_000_000), '\u0000'.repeat(1_000_000), 'y'.repeat(1_100_000)) },
  { weight: 1, arbitrary: fc.constantFrom(deeplyNested(64), DEEP_MARKER) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export interface RawBody {
  contentType?: string;
  contentEncoding?: string;
  text: string;
}

/** A body that is not the JSON object a route expects, or not JSON at all. */
export const rawBody: fc.Arbitrary<RawBody> = fc.record({
  contentType: fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    undefined,
  ),
  contentEncoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'br', 'x-made-up'),
  text: fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '{"a":',
      'null',
      '[]',
      '"text"',
      '42',
      'true',
      '\u0000',
      '{"a":"\u0000"}',
      'a=1&b=2',
      '<x/>',
      '['.repeat(100_000) + ']'.repeat(100_000),
      `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
    ),
    fc.string({ unit: 'binary', maxLength: 50 }),
  ),
});

/** Percent-encodes every byte but the unreserved ones, so the server receives exactly this text. */
export function percentEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
