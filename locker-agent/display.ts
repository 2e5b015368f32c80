/** The locker's screen. A console line in the simulator, a serial LCD in the field. */
export interface Display {
  show(text: string): void;
}

export interface Log {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export const consoleLog: Log = {
  info: (m) => console.log(`[agent] ${m}`),
  warn: (m) => console.warn(`[agent] ${m}`),
  error: (m) => console.error(`[agent] ${m}`),
};

export { maskCode } from '../shared/mask.ts';

/** Minor units to a display amount (2 decimals). */
export function formatAmount(minor: number): string {
  return (minor / 100).toFixed(2);
}

/** An ISO time as the screen shows it: minutes, UTC (the cloud's SMS names the same). */
export function storedUntil(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}
