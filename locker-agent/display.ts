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

/** Codes are the recipient's secret: logs and events only ever carry the first two digits. */
export function maskCode(code: string): string {
    return code.length <= 2 ? '**' : code.slice(0, 2) + '*'.repeat(code.length - 2);
}

/** Minor units to a display amount (2 decimals). */
export function formatAmount(minor: number): string {
    return (minor / 100).toFixed(2);
}
