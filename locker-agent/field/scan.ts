import { MAX_BOARDS_PER_BUS } from '../../shared/protocols/kerong/index.ts';
import type { CellSize } from '../../shared/mqtt/index.ts';
import { KerongBus } from '../boards/kerong-bus.ts';
import type { SerialLink } from '../boards/serial-link.ts';
import type { Clock } from '../clock.ts';

export interface ScanOptions {
  replyTimeoutMs: number;
  readRetries: number;
  frameGapMs: number;
}

export type ScanVerdict =
  /** Answered with a valid status. */
  | 'ANSWERS'
  /** Nothing on the wire: no board has this address (or it is unpowered / miswired). */
  | 'SILENT'
  /** Frames came back but never a valid one: two boards share the address, or the line is noisy. */
  | 'GARBLED';

export interface ScannedBoard {
  address: number;
  verdict: ScanVerdict;
  timeouts: number;
  checksumErrors: number;
  /** Per lock 1..16 (index 0 = lock 1), from the board's reply; absent unless it answered. */
  closed?: boolean[];
  parcel?: boolean[];
}

export interface CellSkeleton {
  cellId: string;
  board: number;
  lock: number;
  size: CellSize;
}

export interface ScanReport {
  boards: ScannedBoard[];
  /** Paste into the config's `boards` and `cells`, then fix sizes (and drop unwired locks). */
  skeleton: { boards: number[]; cells: CellSkeleton[] };
}

/**
 * Asks every address a bus can carry for its status, one after the other, and never sends an
 * unlock. A valid reply that also came with corrupt frames is still flagged, because a clash
 * between two boards that happen to read the same can pass.
 */
export async function scanBus(link: SerialLink, clock: Clock, options: ScanOptions): Promise<ScanReport> {
  const addresses = Array.from({ length: MAX_BOARDS_PER_BUS }, (_, i) => i);
  const bus = new KerongBus(link, clock, { boards: addresses, pollIntervalMs: 1000, ...options });
  bus.attach();
  const boards: ScannedBoard[] = [];
  for (const address of addresses) {
    const status = await bus.readStatus(address);
    const counters = bus.boardCounters().find((c) => c.board === address) ?? { timeouts: 0, checksumErrors: 0 };
    const verdict: ScanVerdict =
      status && counters.checksumErrors === 0 ? 'ANSWERS' : counters.checksumErrors > 0 ? 'GARBLED' : 'SILENT';
    boards.push({
      address,
      verdict,
      timeouts: counters.timeouts,
      checksumErrors: counters.checksumErrors,
      ...(status ? { closed: [...status.closed], parcel: [...status.parcel] } : {}),
    });
  }
  return { boards, skeleton: skeletonOf(boards.filter((b) => b.verdict === 'ANSWERS').map((b) => b.address)) };
}

/** Cells numbered 1.. across the answering boards in address order, every lock wired, size M. */
function skeletonOf(addresses: number[]): ScanReport['skeleton'] {
  const cells: CellSkeleton[] = [];
  for (const board of addresses)
    for (let lock = 1; lock <= 16; lock++) cells.push({ cellId: String(cells.length + 1), board, lock, size: 'M' });
  return { boards: addresses, cells };
}

const mark = (values: boolean[] | undefined, yes: string, no: string) =>
  (values ?? []).map((v) => (v ? yes : no).padStart(3)).join('');

/** What the technician reads on the laptop. */
export function formatScan(report: ScanReport): string {
  const lines: string[] = [];
  const answering = report.boards.filter((b) => b.verdict === 'ANSWERS');
  lines.push(`${answering.length} board(s) answer: ${answering.map((b) => b.address).join(', ') || 'none'}`);
  for (const b of report.boards.filter((x) => x.verdict === 'GARBLED')) {
    lines.push(
      `board address ${b.address}: replies arrive garbled (${b.checksumErrors} bad checksums) - two boards set to this address, or a noisy/unterminated bus`,
    );
  }
  for (const b of answering) {
    lines.push(
      '',
      `board ${b.address}`,
      `  lock  ${Array.from({ length: 16 }, (_, i) => String(i + 1).padStart(3)).join('')}`,
    );
    lines.push(`  hook  ${mark(b.closed, 'C', 'O')}`, `  IR    ${mark(b.parcel, 'P', '-')}`);
  }
  lines.push(
    '',
    'hook: C closed, O open; parcel: P seen by the IR sensor',
    '',
    'cell map skeleton (set the sizes, remove locks that are not wired):',
  );
  const cells = report.skeleton.cells.map((c) => `    ${JSON.stringify(c)}`).join(',\n');
  lines.push(`{\n  "boards": ${JSON.stringify(report.skeleton.boards)},\n  "cells": [\n${cells}\n  ]\n}`);
  return lines.join('\n');
}
