import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { runOperator } from '../../cloud/operator/cli.ts';
import { parseCommandLine } from '../../cloud/operator/argv.ts';
import { ALL_COMMANDS } from '../../cloud/operator/commands/index.ts';
import { useOperator } from './harness.ts';

describe('command line parsing', () => {
  it('reads --name value, --name=value and bare --name', () => {
    assert.deepEqual(parseCommandLine(['company', 'create', '--title', 'A B', '--x=1', '--active', '--lat', '-12.5']), {
      words: ['company', 'create'],
      flags: { title: 'A B', x: '1', active: '', lat: '-12.5' },
    });
  });
  it('refuses stray arguments and repeated flags', () => {
    assert.match(parseCommandLine(['a', '--x', '1', '2']).error!, /unexpected argument "2"/);
    assert.match(parseCommandLine(['a', '--x', '1', '--x', '2']).error!, /--x is given more than once/);
  });
});

describe('help', () => {
  it('lists every command', async () => {
    const r = await runOperator(['help']);
    assert.equal(r.code, 0);
    for (const c of ALL_COMMANDS) assert.ok(r.stdout.includes(`  ${c.name} `), `help lists ${c.name}`);
    assert.ok(ALL_COMMANDS.length >= 29);
  });
  it('shows the flags of one command, by help <command> or --help', async () => {
    const a = await runOperator(['help', 'cell', 'add']);
    assert.match(a.stdout, /--count <n> --size S\|M\|L\|XL/);
    const b = await runOperator(['cell', 'add', '--help']);
    assert.equal(b.stdout, a.stdout);
  });
  it('command names are unique', () => {
    assert.equal(new Set(ALL_COMMANDS.map((c) => c.name)).size, ALL_COMMANDS.length);
  });
});

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] command line errors`, () => {
    const op = useOperator(dialect);

    it('exits 2 on an unknown command, with the command list', async () => {
      const err = await op.fails(2, 'company', 'explode');
      assert.match(err, /unknown command "company explode"/);
      assert.match(err, /company create/);
    });
    it('exits 2 on stray or repeated arguments', async () => {
      assert.match(await op.fails(2, 'company', 'show', 'abc'), /unexpected argument "abc"/);
      assert.match(await op.fails(2, 'company', 'show', '--id', 'a', '--id', 'b'), /--id is given more than once/);
    });
    it('prints JSON only with --json', async () => {
      const text = await op.run('company', 'create', '--title', 'Plain');
      assert.match(text.stdout, /^created locker company\nid: +[a-z0-9]+\ntitle: +Plain$/m);
      const json = await op.run('company', 'create', '--title', 'Json', '--json');
      assert.equal(JSON.parse(json.stdout).title, 'Json');
    });
  });
}
