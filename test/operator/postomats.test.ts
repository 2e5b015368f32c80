import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { verifyPassword } from '../../cloud/domain/secrets.ts';
import { useOperator, type Operator } from './harness.ts';

async function place(op: Operator) {
  const country = await op.json('country', 'create', '--title', 'Kyrgyzstan');
  const bishkek = await op.json('city', 'create', '--country', country.id, '--title', 'Bishkek');
  const osh = await op.json('city', 'create', '--country', country.id, '--title', 'Osh');
  const leninsky = await op.json('district', 'create', '--city', bishkek.id, '--title', 'Leninsky');
  return { bishkek, osh, leninsky };
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] locker commands`, () => {
    const op = useOperator(dialect);

    it('creates a locker with its cells on two boards and shows them', async () => {
      const { bishkek, leninsky } = await place(op);
      const p = await op.json(
        'locker',
        'create',
        '--title',
        'TSUM',
        '--address',
        'Chui Ave 155',
        '--lat',
        '42.8765',
        '--lng',
        '74.6147',
        '--schedule',
        '24/7',
        '--district',
        leninsky.id,
        '--short-id',
        'TSUM01',
        '--cells',
        '1:S:0:1,2:m:0:2,3:L:1:1',
      );
      assert.deepEqual(
        [p.shortId, p.cityId, p.districtId, p.lat, p.lng, p.isActive],
        ['TSUM01', bishkek.id, leninsky.id, 42.8765, 74.6147, true],
      );
      assert.equal(p.cells.length, 3);
      assert.equal('agentSecretHash' in p, false);

      const shown = await op.json('locker', 'show', '--id', p.id);
      assert.deepEqual(
        shown.boards.map((b: any) => [b.address, b.cells.map((c: any) => `${c.number}${c.size}@${c.lock}`)]),
        [
          [0, ['1S@1', '2M@2']],
          [1, ['3L@1']],
        ],
      );
      const text = (await op.run('locker', 'show', '--id', p.id)).stdout;
      assert.match(text, /board 1 /);
      assert.match(text, /TSUM01/);
    });

    it('generates a short id and lists lockers with their cell counts', async () => {
      const p = await op.json('locker', 'create', '--title', 'Bare', '--active', 'false');
      assert.match(p.shortId, /^[A-Z2-9]{6}$/);
      const listed = (await op.json('locker', 'list')).find((x: any) => x.id === p.id);
      assert.deepEqual([listed.cellCount, listed.isActive, listed.hasAgentCredentials], [0, false, false]);
    });

    it('updates title, activity and coordinates, and clears what --clear names', async () => {
      const { osh } = await place(op);
      const p = await op.json(
        'locker',
        'create',
        '--title',
        'Old',
        '--lat',
        '1',
        '--lng',
        '2',
        '--address',
        'Somewhere',
      );
      const u = await op.json(
        'locker',
        'update',
        '--id',
        p.id,
        '--title',
        'New',
        '--active',
        'false',
        '--lat',
        '40.5',
        '--lng',
        '72.8',
        '--city',
        osh.id,
      );
      assert.deepEqual(
        [u.title, u.isActive, u.lat, u.lng, u.cityId, u.address],
        ['New', false, 40.5, 72.8, osh.id, 'Somewhere'],
      );
      const { bishkek, leninsky } = await place(op);
      const moved = await op.json('locker', 'update', '--id', p.id, '--district', leninsky.id);
      assert.deepEqual([moved.cityId, moved.districtId], [bishkek.id, leninsky.id], 'the city follows a new district');
      assert.match(
        await op.fails(1, 'locker', 'update', '--id', p.id, '--city', osh.id),
        /district .* is in city .*, not in city/,
      );
      const c = await op.json('locker', 'update', '--id', p.id, '--clear', 'coordinates,address');
      assert.deepEqual([c.lat, c.lng, c.address, c.title], [null, null, null, 'New']);
    });

    it('refuses a district outside the city, a taken short id, half coordinates', async () => {
      const { osh, leninsky } = await place(op);
      assert.match(
        await op.fails(1, 'locker', 'create', '--title', 'X', '--city', osh.id, '--district', leninsky.id),
        /district .* is in city .*, not in city/,
      );
      await op.json('locker', 'create', '--title', 'First', '--short-id', 'SAME01');
      assert.match(
        await op.fails(1, 'locker', 'create', '--title', 'Second', '--short-id', 'SAME01'),
        /short id SAME01 is taken/,
      );
      const second = await op.json('locker', 'create', '--title', 'Second', '--short-id', 'OTHER1');
      assert.match(
        await op.fails(1, 'locker', 'update', '--id', second.id, '--short-id', 'SAME01'),
        /short id SAME01 is taken/,
      );
      assert.equal((await op.json('locker', 'update', '--id', second.id, '--short-id', 'OTHER2')).shortId, 'OTHER2');
      assert.match(await op.fails(2, 'locker', 'create', '--title', 'X', '--lat', '42'), /--lat and --lng go together/);
      assert.match(
        await op.fails(2, 'locker', 'create', '--title', 'X', '--lat', '91', '--lng', '0'),
        /--lat must be <= 90/,
      );
      assert.match(await op.fails(1, 'locker', 'create', '--title', 'X', '--city', 'nocity'), /no city nocity/);
      assert.match(await op.fails(1, 'locker', 'show', '--id', 'nolocker'), /no locker nolocker/);
      assert.match(await op.fails(1, 'locker', 'update', '--id', 'nolocker', '--title', 'X'), /no locker nolocker/);
      assert.match(
        await op.fails(2, 'locker', 'update', '--id', 'nolocker'),
        /give at least one flag to change besides --id/,
      );
    });
  });

  describe(`[${dialect.name}] cell commands`, () => {
    const op = useOperator(dialect);

    it('adds cells one by one and by count (numbers after the highest, lowest free locks)', async () => {
      const p = await op.json('locker', 'create', '--title', 'Cells', '--cells', '1:S:0:1,2:S:0:3');
      const listed = await op.json('cell', 'add', '--locker', p.id, '--cells', '5:L:1:4');
      assert.deepEqual(
        listed.map((c: any) => [c.number, c.size, c.board, c.lock]),
        [[5, 'L', 1, 4]],
      );
      const counted = await op.json('cell', 'add', '--locker', p.id, '--count', '3', '--size', 'M');
      assert.deepEqual(
        counted.map((c: any) => [c.number, c.size, c.board, c.lock]),
        [
          [6, 'M', 0, 2],
          [7, 'M', 0, 4],
          [8, 'M', 0, 5],
        ],
      );
      const shown = await op.json('locker', 'show', '--id', p.id);
      assert.equal(shown.boards.flatMap((b: any) => b.cells).length, 6);
    });

    it('refuses taken numbers and locks, full boards, and mixed forms', async () => {
      const p = await op.json('locker', 'create', '--title', 'Full', '--cells', '1:S:0:1');
      assert.match(
        await op.fails(1, 'cell', 'add', '--locker', p.id, '--cells', '1:S:0:2'),
        /cell number 1 is already used/,
      );
      assert.match(
        await op.fails(1, 'cell', 'add', '--locker', p.id, '--cells', '2:S:0:1'),
        /lock 1 on board 0 already has a cell/,
      );
      assert.match(
        await op.fails(1, 'cell', 'add', '--locker', p.id, '--cells', '2:S:0:2,3:S:0:2'),
        /lock 2 on board 0 is given to two cells/,
      );
      // A clash inside the list of a new locker names the list, not the locker the refusal rolls back.
      const lockers = (await op.json('locker', 'list')).length;
      const twice = await op.fails(1, 'locker', 'create', '--title', 'Twice', '--cells', '1:S:0:1,1:M:0:2');
      assert.match(twice, /cell number 1 is given twice/);
      assert.doesNotMatch(twice, /at locker/);
      assert.equal((await op.json('locker', 'list')).length, lockers, 'no locker left behind');
      assert.match(
        await op.fails(1, 'cell', 'add', '--locker', p.id, '--count', '16', '--size', 'S'),
        /board 0 has 15 free locks/,
      );
      assert.match(await op.fails(1, 'cell', 'add', '--locker', p.id, '--cells', '2:S:0:17'), /lock must be 1-16/);
      assert.match(
        await op.fails(2, 'cell', 'add', '--locker', p.id, '--cells', '2:Q:0:1'),
        /--cells "2:Q:0:1" is not number:size:board:lock/,
      );
      assert.match(
        await op.fails(2, 'cell', 'add', '--locker', p.id, '--cells', '2:S:0:2', '--count', '2'),
        /give either --cells, or --count with --size/,
      );
      assert.match(
        await op.fails(2, 'cell', 'add', '--locker', p.id, '--count', '2', '--size', 'XXL'),
        /--size must be one of S, M, L, XL/,
      );
      assert.match(
        await op.fails(1, 'cell', 'add', '--locker', 'ghost', '--count', '1', '--size', 'S'),
        /no locker ghost/,
      );
      const after = await op.json('locker', 'show', '--id', p.id);
      assert.equal(after.boards.flatMap((b: any) => b.cells).length, 1, 'refused additions leave nothing behind');
    });

    it('changes a cell size and switches it off', async () => {
      const p = await op.json('locker', 'create', '--title', 'Resize', '--cells', '1:S:0:1');
      const cellId = p.cells[0].id;
      const c = await op.json('cell', 'update', '--id', cellId, '--size', 'XL', '--active', 'false');
      assert.deepEqual([c.size, c.isActive], ['XL', false]);
      assert.match(await op.fails(1, 'cell', 'update', '--id', 'nocell', '--size', 'S'), /no cell nocell/);
      assert.match(await op.fails(2, 'cell', 'update', '--id', cellId), /give --size, --title or --active/);
    });
  });

  describe(`[${dialect.name}] agent reset`, () => {
    const op = useOperator(dialect);

    it('issues a password once, stores only its hash, and replaces the previous one', async () => {
      const p = await op.json('locker', 'create', '--title', 'Agent');
      const first = await op.json('agent', 'reset', '--locker', p.id);
      assert.equal(first.username, p.id);
      const row = await op
        .storage()
        .db.selectFrom('postomat')
        .select('agentSecretHash')
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow();
      assert.ok(
        row.agentSecretHash &&
          row.agentSecretHash !== first.password &&
          verifyPassword(first.password, row.agentSecretHash),
      );

      const second = await op.run('agent', 'reset', '--locker', p.id);
      assert.equal(second.code, 0);
      const password = /password:\s+(\S+)/.exec(second.stdout)![1];
      const row2 = await op
        .storage()
        .db.selectFrom('postomat')
        .select('agentSecretHash')
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow();
      assert.ok(verifyPassword(password, row2.agentSecretHash!));
      assert.ok(!verifyPassword(first.password, row2.agentSecretHash!), 'the old password no longer works');

      const shown = await op.run('locker', 'show', '--id', p.id, '--json');
      assert.ok(!shown.stdout.includes(row2.agentSecretHash!), 'the hash is never printed');
      assert.equal(JSON.parse(shown.stdout).hasAgentCredentials, true);
      assert.match(await op.fails(1, 'agent', 'reset', '--locker', 'ghost'), /no locker ghost/);
    });
  });
}
