import type { AgentConfig } from './config.ts';
import { redactUrl } from '../shared/urls.ts';

/** What a technician checks against the locker in front of them; no secret is printed. */
export function describeConfig(config: AgentConfig): string {
  const sizes = new Map<string, number>();
  for (const cell of config.cells) sizes.set(cell.size, (sizes.get(cell.size) ?? 0) + 1);
  return [
    `config OK: locker ${config.lockerId}`,
    `  lock boards ${config.boards.join(', ')} on ${config.serial.device} at ${config.serial.baudRate} baud`,
    `  ${config.cells.length} cells: ${[...sizes].map(([size, n]) => `${n} ${size}`).join(', ')}`,
    `  keypad ${config.keypad.device}`,
    `  store in ${config.dataDir}`,
    `  cloud ${config.cloud ? `${redactUrl(config.cloud.mqttUrl)} as ${config.cloud.username}` : 'none (offline: orders from ordersFile only)'}`,
  ].join('\n');
}
