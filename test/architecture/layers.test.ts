/**
 * The cloud's rooms stand on each other in one order, and imports run downward only: the
 * shared contract, then the domain rules, storage, the operations (services), the parts that
 * talk to the world (sync, events, webhooks, metrics, HTTP plumbing), the API families, and
 * the wiring at the top (app, server, operator CLI). A new import that runs upward fails here.
 *
 * KNOWN_UPWARD lists the upward imports still to be removed (issue 24); it can only shrink: an
 * entry that no longer occurs fails too, so the list is kept true.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Floors, lowest first; a path belongs to the longest prefix listed. */
const FLOORS: string[][] = [
  ['shared/'],
  ['cloud/logger.ts', 'cloud/domain/'],
  ['cloud/storage/'],
  ['cloud/services/'],
  [
    'cloud/sync/',
    'cloud/events/',
    'cloud/webhooks/',
    'cloud/retention/',
    'cloud/metrics/',
    'cloud/http/',
    'cloud/enrolment/',
    'cloud/deps.ts',
  ],
  // A webhook event carries the order in the Locker API's own shape (its presenter and schema):
  // recording events and managing subscriptions stand beside the API; sending them below it.
  [
    'cloud/locker-api/',
    'cloud/platform-api/',
    'cloud/sandbox/',
    'cloud/webhooks/record.ts',
    'cloud/webhooks/schemas.ts',
    'cloud/webhooks/subscriptions.ts',
    'cloud/webhooks/platform-record.ts',
  ],
  ['cloud/openapi/'],
  ['cloud/config.ts', 'cloud/consequences.ts', 'cloud/app.ts', 'cloud/background.ts', 'cloud/outbound.ts'],
  ['cloud/server.ts'],
  ['cloud/main.ts', 'cloud/operator/'],
];

const KNOWN_UPWARD = new Set<string>([]);

function floorOf(file: string): number | undefined {
  let best: { floor: number; length: number } | undefined;
  FLOORS.forEach((prefixes, floor) => {
    for (const p of prefixes)
      if (file.startsWith(p) && (!best || p.length > best.length)) best = { floor, length: p.length };
  });
  return best?.floor;
}

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])),
  );
}

describe('layers of the cloud', () => {
  const files = [...sources('cloud'), ...sources('shared')];

  it('every source file has a floor', () => {
    assert.ok(files.length > 150, `${files.length} files found`);
    assert.deepEqual(
      files.filter((f) => floorOf(f) === undefined),
      [],
      'add the new folder to FLOORS',
    );
  });

  it('imports run downward (or within a floor), but for the known ones being removed', () => {
    const upward: string[] = [];
    for (const file of files) {
      for (const target of importsOf(file)) {
        const from = floorOf(file);
        const to = floorOf(target);
        if (from !== undefined && to !== undefined && to > from) upward.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(
      upward.filter((u) => !KNOWN_UPWARD.has(u)),
      [],
      'imports that run upward',
    );
    assert.deepEqual(
      [...KNOWN_UPWARD].filter((k) => !upward.includes(k)),
      [],
      'gone: remove them from KNOWN_UPWARD',
    );
  });
});
