/**
 * `node --import ./bench/lib/reads-in-place/hook.mjs`: the process loads
 * bench/lib/reads-in-place/end-of-turn.ts wherever cloud/storage/end-of-turn.ts is imported.
 * A bench-only switch that needs no setting read by the cloud's code.
 */
import { register } from 'node:module';

register('./resolve.mjs', import.meta.url);
