/**
 * `npm run build`: bundles the cloud and the agent into dist/ (scripts/bundles.mjs). `npm run cloud`
 * and `npm run agent` build by themselves when their bundle is stale; a deployment whose code folder
 * the service cannot write (systemd's ProtectSystem, an agent user without write access) runs this
 * once after installing, as the folder's owner.
 */
import { PROGRAMS, build } from './bundles.mjs';

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in PROGRAMS));
if (unknown.length > 0) {
  process.stderr.write(`unknown program ${unknown.join(', ')}: expected ${Object.keys(PROGRAMS).join(', ')}\n`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : Object.keys(PROGRAMS)) {
  const started = performance.now();
  const { js, inputs } = await build(PROGRAMS[name]);
  process.stderr.write(`built ${name}: ${js} (${inputs} files, ${Math.round(performance.now() - started)} ms)\n`);
}
