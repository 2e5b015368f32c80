import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../locker-agent/config.ts';

const valid = {
    lockerId: 'L1',
    serial: { device: '/dev/ttyUSB0' },
    boards: [0],
    cells: [{ cellId: 'A1', board: 0, lock: 1, size: 'S' }],
    keypad: { device: 'stdin' },
    dataDir: 'data',
};

describe('agent config', () => {
    it('fills the defaults: 19200 baud, timings, relative data folder', () => {
        const cfg = parseConfig(valid, '/srv/locker');
        assert.equal(cfg.serial.baudRate, 19200);
        assert.equal(cfg.timing.wrongCodeLimit, 5);
        assert.equal(cfg.dataDir, '/srv/locker/data');
        assert.equal(cfg.cloud, undefined);
    });

    it('names the field and the rule when a value is wrong', () => {
        assert.throws(() => parseConfig({ ...valid, cells: [{ cellId: 'A1', board: 0, lock: 17, size: 'S' }] }), (err: Error) => {
            assert.ok(err instanceof ConfigError);
            assert.match(err.message, /cells\[0\]\.lock/);
            return true;
        });
    });

    it('refuses a cell on a board that is not listed, and two cells on one lock', () => {
        const cells = [
            { cellId: 'A1', board: 0, lock: 1, size: 'S' },
            { cellId: 'A2', board: 0, lock: 1, size: 'M' },
            { cellId: 'B1', board: 2, lock: 1, size: 'M' },
        ];
        assert.throws(() => parseConfig({ ...valid, cells }), /board 0 lock 1 is used by two cells[\s\S]*board 2 is not listed/);
    });

    it('reports a missing serial device', () => {
        assert.throws(() => parseConfig({ ...valid, serial: {} }), /serial\.device/);
    });
});

describe('shipped example config', () => {
    it('is valid', async () => {
        const { loadConfig } = await import('../../locker-agent/config.ts');
        const cfg = loadConfig(new URL('../../locker-agent/deploy/config.example.json', import.meta.url).pathname);
        assert.equal(cfg.cells.length, 8);
        assert.deepEqual(cfg.boards, [0, 1]);
    });
});
