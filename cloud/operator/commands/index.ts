/** Every operator command, by area. Each area file exports `commands`. */
import type { Command } from '../command.ts';
import { commands as companies } from './companies.ts';
import { commands as directories } from './directories.ts';
import { commands as postomats } from './postomats.ts';
import { commands as orders } from './orders.ts';
import { commands as demo } from './demo.ts';
import { commands as events } from './events.ts';
import { commands as lockerLink } from './locker-link.ts';
import { commands as platformCompanies } from './platform-companies.ts';
import { commands as platformReference } from './platform-reference.ts';
import { commands as platformPeople } from './platform-people.ts';
import { commands as platformShipments } from './platform-shipments.ts';
import { commands as search } from './search.ts';
import { commands as retention } from './retention.ts';
import { commands as field } from './field.ts';

export const ALL_COMMANDS: Command[] = [
  ...companies,
  ...directories,
  ...postomats,
  ...field,
  ...lockerLink,
  ...orders,
  ...events,
  ...platformCompanies,
  ...platformReference,
  ...platformPeople,
  ...platformShipments,
  ...search,
  ...retention,
  ...demo,
];
