/** Every operator command, by area. Each area file exports `commands`. */
import type { Command } from '../command.ts';

export const ALL_COMMANDS: Command[] = [];
