/**
 * `tsx bench/lib/profile-summary.ts <file.cpuprofile> [top] [fromS] [toS]`: where a V8 CPU
 * profile's samples fell, by function (self time) and by file, as a share of all non-idle
 * samples, optionally only between fromS and toS seconds after the profile began; first a
 * timeline of busy time per 10 s, to find the window to look at. For bench:idle's
 * BENCH_IDLE_PROFILE, where the question is "what does an idle cloud spend its little CPU on".
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, fromArg, toArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/lib/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const fromUs = Number(fromArg ?? 0) * 1e6;
const toUs = toArg === undefined ? Infinity : Number(toArg) * 1e6;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
const timeline: number[] = [];
let t = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  t += dt;
  if (byId.get(id)!.callFrame.functionName !== '(idle)')
    timeline[Math.floor(t / 10e6)] = (timeline[Math.floor(t / 10e6)] ?? 0) + dt;
  if (t >= fromUs && t < toUs) selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
});
console.log('busy per 10 s since the profile began (% of a core):');
console.log([...timeline].map((us, i) => `${i * 10}s ${(((us ?? 0) / 10e6) * 100).toFixed(2)}`).join('  '));

const fn = new Map<string, number>();
const files = new Map<string, number>();
let busy = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') {
    idle += us;
    continue;
  }
  busy += us;
  const where = url.replace(/^file:\/\/.*?\/(node_modules|cloud|shared|bench)\//, '$1/');
  fn.set(
    `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`,
    (fn.get(`${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`) ?? 0) + us,
  );
  const f = where || functionName;
  files.set(f, (files.get(f) ?? 0) + us);
}
const pct = (us: number) => `${((us / busy) * 100).toFixed(1)}%`;
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${pct(us).padStart(7)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
};
console.log(
  `busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (${((busy / (busy + idle)) * 100).toFixed(2)}% of the profiled time on the main thread)`,
);
show('self time by function', fn);
show('self time by file', files);
