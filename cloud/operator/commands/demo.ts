/** `seed-demo`: a realistic dataset in an empty database, printed for the simulator and for people. */
import { defineCommand, type Command } from '../command.ts';
import { flagsOf } from '../flags.ts';
import type { DemoPostomat, LockerDemo } from '../demo/locker-demo.ts';
import type { PlatformDemo } from '../demo/platform-demo.ts';
import { seedDemo } from '../demo/seed.ts';

function sizesOf(p: DemoPostomat): string {
  const count = new Map<string, number>();
  for (const c of p.cells) count.set(c.size, (count.get(c.size) ?? 0) + 1);
  return [...count].map(([size, n]) => `${n}${size}`).join(' ');
}

const lockerLine = (p: DemoPostomat) =>
  `  ${p.shortId}  ${p.title}  ${p.id}  ${p.lat ?? '-'},${p.lng ?? '-'}  cells ${sizesOf(p)}  agent ${p.agent.username} / ${p.agent.password}`;

export function lockerDemoText(d: LockerDemo): string {
  return [
    'locker side:',
    `country ${d.country.title} ${d.country.id}`,
    ...d.cities.map(
      (c) =>
        `city ${c.title}${c.isActive ? '' : ' (inactive)'} ${c.id}: ${c.districts.map((x) => `${x.title} ${x.id}`).join(', ')}`,
    ),
    'companies (money in major units; API keys are shown only now):',
    ...d.companies.map(
      (c) =>
        `  ${c.title}  ${c.id}  order ${c.orderPrice.toFixed(2)} + delivery ${c.deliveryPrice.toFixed(2)}  balance ${c.balance.toFixed(2)}  ${c.defaultDays} days  key ${c.apiKey}`,
    ),
    'active lockers (agent username / password, shown only now):',
    ...d.postomats.map(lockerLine),
    'without coordinates:',
    lockerLine(d.postomatWithoutCoordinates),
    `inactive lockers: ${d.inactivePostomatIds.join(', ')}`,
  ].join('\n');
}

export function platformDemoText(p: PlatformDemo): string {
  const login = (l: { email: string; password: string }) => `${l.email} / ${l.password}`;
  return [
    'platform side (company ids; API keys and passwords are shown only now):',
    `  logistics company ${p.logist.companyId}: API key ${p.logist.apiKey}; administrator ${login(p.logist.admin)}; user ${login(p.logist.user)}`,
    `  other logistics company ${p.otherLogist.companyId}: API key ${p.otherLogist.apiKey}; administrator ${login(p.otherLogist.admin)}`,
    `  warehouse company ${p.warehouse.companyId}: API key ${p.warehouse.apiKey}; storekeeper ${login(p.warehouse.user)}`,
    `  marketplace ${p.market.companyId} (locker access on): API key ${p.market.apiKey}`,
    `  marketplace ${p.noLockerAccess.companyId} (no locker access): API key ${p.noLockerAccess.apiKey}`,
    `  courier company ${p.courier.companyId}: API key ${p.courier.apiKey}`,
    `  pickup points ${p.pickupPointIds.join(', ')}; clients ${p.clients.map((c) => `${c.codeName}-${c.code}`).join(', ')}`,
    `  ${p.parcels.length} parcels and ${p.cargo.length} cargo items over every status`,
  ].join('\n');
}

export const commands: Command[] = [
  defineCommand({
    name: 'seed-demo',
    summary:
      'fill an EMPTY database with demo companies, directories, lockers and cells; prints keys and agent passwords once',
    usage: [
      '--json   print the dataset as JSON ({ "locker": { companies, postomats, … }, "platform": { logist, otherLogist, warehouse, market, noLockerAccess, pickupPointIds, clients, … } })',
    ],
    flags: flagsOf({}),
    async run(ctx) {
      const { locker, platform } = await seedDemo(ctx);
      return {
        json: { locker, platform },
        text: `${lockerDemoText(locker)}
${platformDemoText(platform)}`,
      };
    },
  }),
];
