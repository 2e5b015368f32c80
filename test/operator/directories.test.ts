import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { useOperator } from './harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] country, city and district commands`, () => {
    const op = useOperator(dialect);

    it('creates the chain country → city → district and lists each level', async () => {
      const country = await op.json('country', 'create', '--title', 'Kyrgyzstan');
      const city = await op.json('city', 'create', '--country', country.id, '--title', 'Bishkek');
      const district = await op.json('district', 'create', '--city', city.id, '--title', 'Leninsky');
      assert.equal(city.countryId, country.id);
      assert.equal(district.cityId, city.id);
      assert.equal(district.isActive, true);

      assert.ok((await op.json('country', 'list')).some((c: any) => c.id === country.id));
      assert.deepEqual(
        (await op.json('city', 'list', '--country', country.id)).map((c: any) => c.id),
        [city.id],
      );
      assert.deepEqual(
        (await op.json('district', 'list', '--city', city.id)).map((d: any) => d.title),
        ['Leninsky'],
      );
      assert.match((await op.run('district', 'list')).stdout, /Leninsky\s+yes/);
    });

    it('creates inactive entries and lists them too (the operator sees everything)', async () => {
      const country = await op.json('country', 'create', '--title', 'Kazakhstan', '--active', 'false');
      assert.equal(country.isActive, false);
      const city = await op.json('city', 'create', '--country', country.id, '--title', 'Almaty', '--active', 'false');
      const listed = await op.json('city', 'list', '--country', country.id);
      assert.deepEqual(
        listed.map((c: any) => [c.id, c.isActive]),
        [[city.id, false]],
      );
    });

    it('renames and switches entries on and off', async () => {
      const country = await op.json('country', 'create', '--title', 'Uzbekistn');
      const renamed = await op.json('country', 'update', '--id', country.id, '--title', 'Uzbekistan');
      assert.deepEqual([renamed.title, renamed.isActive], ['Uzbekistan', true]);
      const city = await op.json('city', 'create', '--country', country.id, '--title', 'Tashkent');
      assert.equal((await op.json('city', 'update', '--id', city.id, '--active', 'false')).isActive, false);
      const district = await op.json('district', 'create', '--city', city.id, '--title', 'Yunusabad');
      const off = await op.json('district', 'update', '--id', district.id, '--active', 'false', '--title', 'Yunusobod');
      assert.deepEqual([off.title, off.isActive], ['Yunusobod', false]);
    });

    it('names unknown parents and entries, and bad flags', async () => {
      assert.match(await op.fails(1, 'city', 'create', '--country', 'atlantis', '--title', 'X'), /no country atlantis/);
      assert.match(await op.fails(1, 'district', 'create', '--city', 'nowhere', '--title', 'X'), /no city nowhere/);
      assert.match(await op.fails(1, 'district', 'list', '--city', 'nowhere'), /no city nowhere/);
      assert.match(await op.fails(1, 'country', 'update', '--id', 'atlantis', '--title', 'X'), /no country atlantis/);
      assert.match(await op.fails(2, 'city', 'create', '--title', 'X'), /--country is required/);
      assert.match(await op.fails(2, 'country', 'update', '--id', 'x'), /give --title or --active/);
      assert.match(
        await op.fails(2, 'country', 'create', '--title', 'X', '--active', 'maybe'),
        /--active must be true or false/,
      );
      assert.match(await op.fails(2, 'country', 'list', '--country', 'x'), /--country is not a flag of "country list"/);
    });
  });
}
