/** Types of probe-core.mjs (plain JavaScript, preloaded before tsx). */
import type { ProcessFigures } from './server-probe.ts';

export function createProbe(resolutionMs?: number): { readonly on: boolean; start(): void; stop(): ProcessFigures };
