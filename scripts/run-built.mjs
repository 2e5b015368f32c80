/**
 * `npm run cloud` and `npm run agent`: runs the program's bundle (scripts/bundles.mjs) in this very
 * process, so signals, exit codes and arguments are the program's own. A stale or missing bundle is
 * built first. Where dist/ cannot be written, the program runs from source through tsx instead, with
 * a warning naming the fix: it still works, at tsx's idle cost.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { PROGRAMS, ROOT, build, bundlePaths, freshness } from './bundles.mjs';

const [name, ...args] = process.argv.slice(2);
const entry = PROGRAMS[name];
if (!entry) {
  process.stderr.write(`usage: node scripts/run-built.mjs <${Object.keys(PROGRAMS).join('|')}> [arguments]\n`);
  process.exit(2);
}

const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);
let target = bundlePaths(entry).js;
const state = freshness(entry);
if (state !== 'fresh') {
  try {
    await build(entry);
  } catch (err) {
    if (!UNWRITABLE.has(err?.code)) throw err;
    process.stderr.write(
      `warning: the ${name} bundle is ${state} and ${path.join(ROOT, 'dist')} cannot be written (${err.code}): ` +
        `running from source through tsx, which costs more CPU while idle. Run \`npm run build\` as the owner of ${ROOT}.\n`,
    );
    const { register } = await import('tsx/esm/api');
    register();
    target = path.join(ROOT, entry);
  }
}
// The program reads its arguments from process.argv as if it had been started directly.
process.argv = [process.argv[0], target, ...args];
await import(pathToFileURL(target).href);
