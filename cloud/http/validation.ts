/**
 * zod at the edge, with Fastify/ajv-style messages (`body must have required property 'x'`,
 * `querystring/page must be >= 1`): the original service ran on Fastify and integrators'
 * error handling and logs know that wording.
 */
import type { z } from 'zod';
import { validationError } from './http-error.ts';

export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

const TYPE_NAMES: Record<string, string> = {
  int: 'integer',
  number: 'number',
  string: 'string',
  boolean: 'boolean',
  object: 'object',
  array: 'array',
};

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: any = root;
  for (const key of path) {
    // A single value of an array parameter counts as an array of one (toArray in query.ts).
    if (key === 0 && v !== null && v !== undefined && typeof v !== 'object') continue;
    if (v === null || typeof v !== 'object') return undefined;
    v = v[key as any];
  }
  return v;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): { pathSuffix?: string; text: string } {
  const i = issue as any;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
        return { pathSuffix: '', text: `must have required property '${String(issue.path.at(-1))}'` };
      }
      // Schemas that label their own type error (see `integer()` in query.ts) know better than zod's `expected`.
      if (issue.message.startsWith('must ')) return { text: issue.message };
      return { text: `must be ${TYPE_NAMES[i.expected] ?? i.expected}` };
    case 'too_small': {
      const min = Number(i.minimum);
      if (i.origin === 'string') return { text: `must NOT have fewer than ${min} characters` };
      if (i.origin === 'array') return { text: `must NOT have fewer than ${min} items` };
      return { text: `must be ${i.inclusive === false ? '>' : '>='} ${min}` };
    }
    case 'too_big': {
      const max = Number(i.maximum);
      if (i.origin === 'string') return { text: `must NOT have more than ${max} characters` };
      if (i.origin === 'array') return { text: `must NOT have more than ${max} items` };
      return { text: `must be ${i.inclusive === false ? '<' : '<='} ${max}` };
    }
    case 'invalid_format': {
      // A schema that names its format (`cuid2()` in query.ts) says so in its own message.
      if (issue.message.startsWith('must ')) return { text: issue.message };
      if (i.format === 'regex') return { text: `must match pattern "${stripSlashes(String(i.pattern))}"` };
      return { text: `must match format "${i.format}"` };
    }
    case 'invalid_value':
      // zod reports a missing enum field as a bad value; ajv calls it missing.
      if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
        return { pathSuffix: '', text: `must have required property '${String(issue.path.at(-1))}'` };
      }
      return { text: 'must be equal to one of the allowed values' };
    case 'not_multiple_of':
      return { text: `must be multiple of ${i.divisor}` };
    default:
      return { text: issue.message };
  }
}

function stripSlashes(pattern: string): string {
  const m = /^\/(.*)\/[a-z]*$/.exec(pattern);
  return m ? m[1] : pattern;
}

/**
 * Of several bounds one value broke (an int4 maximum and zod's own safe-integer one), only the
 * tightest: ajv names one limit.
 */
function tightestBounds(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const tightest = new Map<string, z.core.$ZodIssue>();
  const bound = (i: z.core.$ZodIssue) => Number((i as any).maximum ?? (i as any).minimum);
  for (const issue of issues) {
    if (issue.code !== 'too_big' && issue.code !== 'too_small') continue;
    const key = `${issue.code} ${issue.path.join('/')}`;
    const held = tightest.get(key);
    const tighter = !held || (issue.code === 'too_big' ? bound(issue) < bound(held) : bound(issue) > bound(held));
    if (tighter) tightest.set(key, issue);
  }
  return issues.filter(
    (i) => (i.code !== 'too_big' && i.code !== 'too_small') || tightest.get(`${i.code} ${i.path.join('/')}`) === i,
  );
}

export function formatIssues(
  part: RequestPart,
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  separator = ', ',
): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of tightestBounds(issues)) {
    const { pathSuffix, text } = describeIssue(issue, input);
    const path = pathSuffix === '' ? issue.path.slice(0, -1) : issue.path;
    const where = [part, ...path.map(String)].join('/');
    const line = `${where} ${text}`;
    if (!seen.has(line)) lines.push(line), seen.add(line);
  }
  return lines.join(separator);
}

/** Parses one part of a request or throws the spec's 400 FST_ERR_VALIDATION. */
export function parsePart<S extends z.ZodType>(
  part: RequestPart,
  schema: S,
  value: unknown,
  separator?: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(formatIssues(part, result.error.issues, value, separator));
  return result.data;
}
