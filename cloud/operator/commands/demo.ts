/** `seed-demo`: a realistic dataset in an empty database, printed for the simulator and for people. */
import { defineCommand, type Command } from '../command.ts';
import { flagsOf } from '../flags.ts';
import { seedLockerDemo, type DemoPostomat, type LockerDemo } from '../demo/locker-demo.ts';

const sizesOf = (p: DemoPostomat) =>
  Object.entries(p.cells.reduce<Record<string, number>>((n, c) => ({ ...n, [c.size]: (n[c.size] ?? 0) + 1 }), {}))
    .map(([size, n]) => `${n}${size}`)
    .join(' ');

const lockerLine = (p: DemoPostomat) =>
  `  ${p.shortId}  ${p.title}  ${p.id}  ${p.lat ?? '-'},${p.lng ?? '-'}  cells ${sizesOf(p)}  agent ${p.agent.username} / ${p.agent.password}`;

export function lockerDemoText(d: LockerDemo): string {
  return [
    'locker side:',
    `country ${d.country.title} ${d.country.id}`,
    ...d.cities.map((c) => `city ${c.title}${c.isActive ? '' : ' (inactive)'} ${c.id}: ${c.districts.map((x) => `${x.title} ${x.id}`).join(', ')}`),
    'companies (money in major units; API keys are shown only now):',
    ...d.companies.map((c) => `  ${c.title}  ${c.id}  order ${c.orderPrice.toFixed(2)} + delivery ${c.deliveryPrice.toFixed(2)}  balance ${c.balance.toFixed(2)}  ${c.defaultDays} days  key ${c.apiKey}`),
    'active lockers (agent username / password, shown only now):',
    ...d.postomats.map(lockerLine),
    'without coordinates:',
    lockerLine(d.postomatWithoutCoordinates),
    `inactive lockers: ${d.inactivePostomatIds.join(', ')}`,
  ].join('\n');
}

export const commands: Command[] = [
  defineCommand({
    name: 'seed-demo',
    summary: 'fill an EMPTY database with demo companies, directories, lockers and cells; prints keys and agent passwords once',
    usage: ['--json   print the dataset as JSON ({ "locker": { companies, postomats, inactivePostomatIds, postomatWithoutCoordinates, … } })'],
    flags: flagsOf({}),
    async run(ctx) {
      const locker = await seedLockerDemo(ctx);
      return { json: { locker }, text: lockerDemoText(locker) };
    },
  }),
];
