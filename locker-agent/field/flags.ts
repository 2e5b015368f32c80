import { ConfigError } from '../config.ts';

/** A bounded integer flag, or its default; anything else is the technician's typo, said plainly. */
export function intFlag(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

/** A device that will not open is a fault of the wiring or the name: said as such, without a stack. */
export async function openOrExplain<T>(device: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    const reason = (err as Error).message.replace(/^(Error: )+/, '');
    // The agent service holds the port while it runs: the usual cause on a working locker.
    const hint = /lock|busy|temporarily unavailable/i.test(reason)
      ? 'is the agent running? sudo systemctl stop locker-agent'
      : 'see ls -l /dev/serial/by-id/';
    throw new ConfigError(`cannot open ${device}: ${reason}; ${hint}`);
  }
}
