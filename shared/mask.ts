/**
 * Codes are recipients' secrets: logs, stored events and SMS log lines show none of their
 * digits (even two of four would leave a hundred guesses). The length stays, for readability.
 */
export function maskCode(code: string): string {
  return '*'.repeat(Math.max(4, code.length));
}
