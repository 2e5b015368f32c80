import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { qs } from '../helpers/integrations.ts';
import { ManualClock } from '../../shared/clock.ts';
import { createCargoType } from '../../cloud/services/platform/cargo-types.ts';

for (const dialect of DIALECTS) {
  describe(`GET /api/v1/public/cargo-types (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    let clothes: number;
    const clock = new ManualClock('2026-03-08T09:00:00.000Z');
    const types = (params: Parameters<typeof qs>[0] = {}) =>
      cloud.request('GET', `/api/v1/public/cargo-types${qs(params)}`);
    const titles = (res: { body: any }) => res.body.map((t: any) => t.title);

    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
      await createCargoType(
        cloud.storage.db,
        { title: 'Freight (retired)', type: 'FREIGHT', isActive: false, deliveryTypeIds: [w.road.id] },
        clock.now(),
      );
      clothes = (
        await createCargoType(
          cloud.storage.db,
          { title: 'Clothes', titleRU: 'Одежда', type: 'CARGO', parentId: w.cargoType.id },
          clock.now(),
        )
      ).id;
    });
    after(() => cloud.stop());

    it('without types: every active cargo type, with its delivery types, and no key needed', async () => {
      const res = await types();
      assert.equal(res.status, 200);
      assert.deepEqual(titles(res), ['Cargo', 'Car', 'Package', 'Clothes']);
      const [cargo] = res.body;
      assert.deepEqual(Object.keys(cargo).sort(), [
        'createdAt',
        'deliveryTypes',
        'id',
        'isActive',
        'isParent',
        'parentId',
        'title',
        'titleCN',
        'titleEN',
        'titleKY',
        'titleRU',
        'type',
        'updatedAt',
      ]);
      assert.deepEqual(
        [cargo.id, cargo.type, cargo.isParent, cargo.isActive, cargo.titleEN],
        [w.cargoType.id, 'CARGO', true, true, 'Cargo'],
      );
      assert.deepEqual(cargo.deliveryTypes, [
        { id: w.air.id, title: 'Air' },
        { id: w.road.id, title: 'Road' },
      ]);
      const child = res.body[3];
      assert.deepEqual(
        [child.id, child.parentId, child.isParent, child.titleRU, child.deliveryTypes],
        [clothes, w.cargoType.id, false, 'Одежда', []],
      );
    });

    it('types (repeated) keeps those kinds; an inactive type never shows', async () => {
      assert.deepEqual(titles(await types({ types: 'CAR' })), ['Car']);
      assert.deepEqual(titles(await types({ types: ['PACKAGE', 'CARGO'] })), ['Cargo', 'Package', 'Clothes']);
      assert.deepEqual((await types({ types: 'FREIGHT' })).body, []);
    });

    it('400 for an unknown type', async () => {
      const res = await types({ types: ['CAR', 'SUBMARINE'] });
      assert.deepEqual(
        [res.status, res.body.code, res.body.message],
        [400, 'FST_ERR_VALIDATION', 'querystring/types/1 must be equal to one of the allowed values'],
      );
      assert.equal((await types({ types: 'car' })).status, 400, 'enum values are upper-case');
    });
  });
}
