/**
 * The broker's guards directly: the fixed-header scanner fed raw bytes the way a socket splits
 * them, the connection caps, the login backoff on a clock that moves when told, the refusal
 * log's summaries, and the cap the descriptor limit leaves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { createLogger } from '../../cloud/logger.ts';
import { FrameScanner } from '../../cloud/sync/packet-guard.ts';
import { ConnectionCaps } from '../../cloud/sync/connection-caps.ts';
import { LoginBackoff } from '../../cloud/sync/login-backoff.ts';
import { RefusalLog } from '../../cloud/sync/refusal-log.ts';
import { connectionCapWithin, DEFAULT_BROKER_LIMITS, openFileLimit } from '../../cloud/sync/broker-limits.ts';
import { brokerLimitsOf, loadConfig } from '../../cloud/config.ts';
import { connectPacket, publishHead, varint } from './raw-mqtt.ts';

const bytes = (...parts: Array<number[] | Buffer>) =>
  Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));

describe('FrameScanner: the size of every packet from its first bytes', () => {
  it('follows packets split across chunks and several packets in one chunk', () => {
    const connect = connectPacket({ clientId: 'locker-abc', username: 'abc', password: 'secret' });
    const ping = Buffer.from([0xc0, 0x00]);
    const publish = bytes(publishHead('lockers/abc/events', 3), [1, 2, 3]);
    const stream = bytes(connect, ping, publish, ping);
    for (const cut of [1, 2, 3, 7, connect.length, connect.length + 1, stream.length - 1]) {
      const s = new FrameScanner(() => 1_000);
      assert.deepEqual(s.scan(stream.subarray(0, cut)), { ok: true });
      assert.deepEqual(s.scan(stream.subarray(cut)), { ok: true });
      assert.equal(s.complete, 4, `cut at ${cut}`);
    }
    const byteByByte = new FrameScanner(() => 1_000);
    for (const b of stream) assert.deepEqual(byteByByte.scan(Buffer.from([b])), { ok: true });
    assert.equal(byteByByte.complete, 4);
  });

  it('refuses a packet announced larger than allowed as soon as its length is read, before any of its body', () => {
    const s = new FrameScanner(() => 4_096);
    // 250 MB announced: four length bytes, nothing else needed to refuse it.
    assert.deepEqual(s.scan(bytes([0x10], varint(250 * 1024 * 1024))), {
      ok: false,
      reason: 'too-large',
      size: 1 + 4 + 250 * 1024 * 1024,
      limit: 4_096,
    });
    const edge = new FrameScanner(() => 4_096);
    assert.deepEqual(
      edge.scan(bytes([0x30], varint(4_093))),
      { ok: true },
      'exactly the limit, header included (1 + 2 + 4,093)',
    );
    const over = new FrameScanner(() => 4_096);
    assert.equal(over.scan(bytes([0x30], varint(4_094))).ok, false);
  });

  it('asks the limit for each packet by where it starts (a budget before login)', () => {
    const starts: number[] = [];
    const budget = 100;
    const s = new FrameScanner((start) => {
      starts.push(start);
      return budget - start;
    });
    assert.deepEqual(s.scan(bytes([0x10, 50], Buffer.alloc(50))), { ok: true });
    assert.deepEqual(s.scan(bytes([0x30, 40], Buffer.alloc(40))), { ok: true }); // 52 + 42 = 94
    assert.equal(s.scan(bytes([0xc0, 5])).ok, false, 'a 7-byte packet at 94 would end past 100');
    assert.deepEqual(starts, [0, 52, 94]);
  });

  it('refuses a remaining length longer than four bytes', () => {
    const s = new FrameScanner(() => Infinity);
    assert.deepEqual(s.scan(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01])), { ok: false, reason: 'malformed' });
  });
});

describe('ConnectionCaps: places in all and per address', () => {
  it('refuses an address at its cap while another still gets in, and everyone at the total cap', () => {
    const caps = new ConnectionCaps(5, 2);
    assert.equal(caps.take('a'), undefined);
    assert.equal(caps.take('a'), undefined);
    assert.equal(caps.take('a'), 'address-cap');
    assert.equal(caps.take('b'), undefined);
    assert.equal(caps.take('b'), undefined);
    assert.equal(caps.take('c'), undefined);
    assert.equal(caps.take('d'), 'connection-cap');
    assert.equal(caps.open, 5);
    caps.release('a');
    assert.equal(caps.take('a'), undefined, 'a place freed is a place again');
  });

  it('0 switches the per-address cap off; releasing what was never taken changes nothing', () => {
    const caps = new ConnectionCaps(3, 0);
    for (let i = 0; i < 3; i++) assert.equal(caps.take('a'), undefined);
    assert.equal(caps.take('a'), 'connection-cap');
    caps.release('zzz');
    assert.equal(caps.open, 3);
  });
});

describe('LoginBackoff: failed logins per address', () => {
  it('blocks an address after `max` failures until its window ends; successes are taken back', () => {
    const clock = new ManualClock();
    const b = new LoginBackoff(3, 60_000, clock);
    b.succeeded(b.attempt('a'));
    for (let i = 0; i < 3; i++) {
      assert.equal(b.blocked('a'), false);
      b.attempt('a');
    }
    assert.equal(b.blocked('a'), true);
    assert.equal(b.blocked('b'), false, 'another address is not affected');
    clock.advance(60_000);
    assert.equal(b.blocked('a'), false, 'the window ends by itself');
  });

  it('counts an attempt when it starts, so concurrent guesses cannot all be checked', () => {
    const b = new LoginBackoff(2, 60_000, new ManualClock());
    let checked = 0;
    for (let i = 0; i < 10; i++) {
      if (b.blocked('a')) continue;
      b.attempt('a');
      checked++;
    }
    assert.equal(checked, 2);
  });

  it('max 0 switches it off', () => {
    const b = new LoginBackoff(0, 60_000, new ManualClock());
    for (let i = 0; i < 100; i++) b.attempt('a');
    assert.equal(b.blocked('a'), false);
  });
});

describe('RefusalLog: one line, then one summary per interval', () => {
  it('logs the first refusal at once and sums up the rest at the end of the interval, by reason and address', async () => {
    const lines: any[] = [];
    const log = new RefusalLog(createLogger({ write: (l) => lines.push(JSON.parse(l)) }), 50);
    log.note('bad-login', '10.0.0.1', { username: 'x' });
    for (let i = 0; i < 500; i++) log.note('address-cap', `10.0.0.${i % 7}`);
    log.note('login-backoff', '10.0.0.1');
    assert.equal(lines.length, 1);
    assert.deepEqual(
      [lines[0].msg, lines[0].reason, lines[0].address, lines[0].username],
      ['mqtt refused', 'bad-login', '10.0.0.1', 'x'],
    );
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(lines.length, 2);
    assert.equal(lines[1].msg, 'mqtt refused more');
    assert.equal(lines[1].count, 501);
    assert.deepEqual(lines[1].byReason, { 'address-cap': 500, 'login-backoff': 1 });
    assert.equal(lines[1].addresses.length, 5);
    assert.deepEqual(lines[1].addresses[0], { address: '10.0.0.1', count: 73 });
    assert.equal(log.totals['address-cap'], 500);
    assert.equal(log.totals['bad-login'], 1);
    log.close();
  });

  it('a quiet interval adds no line; the next refusal is told at once again', async () => {
    const lines: any[] = [];
    const log = new RefusalLog(createLogger({ write: (l) => lines.push(JSON.parse(l)) }), 30);
    log.note('connect-timeout', 'a');
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(lines.length, 1);
    log.note('connect-timeout', 'b');
    assert.equal(lines.length, 2);
    assert.equal(lines[1].address, 'b');
    log.close();
  });
});

describe('the connection cap the descriptor limit leaves', () => {
  it('keeps 1,024 descriptors (at most half) for HTTP, the database and files', () => {
    assert.equal(connectionCapWithin(15_000, undefined), 15_000);
    assert.equal(connectionCapWithin(15_000, 65_536), 15_000);
    assert.equal(connectionCapWithin(15_000, 1_024), 512);
    assert.equal(connectionCapWithin(15_000, 10_000), 8_976);
  });

  it('reads the process limit on Linux', { skip: process.platform !== 'linux' }, () => {
    const limit = openFileLimit();
    assert.ok(limit === undefined || (Number.isInteger(limit) && limit > 0), String(limit));
  });
});

describe('the broker variables', () => {
  it('default to DEFAULT_BROKER_LIMITS and are read by name', () => {
    assert.deepEqual(brokerLimitsOf(loadConfig({})), DEFAULT_BROKER_LIMITS);
    const c = brokerLimitsOf(
      loadConfig({
        MQTT_MAX_CONNECTIONS: '10',
        MQTT_MAX_CONNECTIONS_PER_ADDRESS: '0',
        MQTT_CONNECT_TIMEOUT_MS: '250',
        MQTT_MAX_CONNECT_BYTES: '1024',
        MQTT_MAX_PACKET_BYTES: '65536',
        MQTT_LOGIN_FAILURE_MAX: '3',
        MQTT_LOGIN_FAILURE_WINDOW_MS: '5000',
      }),
    );
    assert.deepEqual(c, {
      maxConnections: 10,
      maxConnectionsPerAddress: 0,
      connectTimeoutMs: 250,
      maxConnectBytes: 1024,
      maxPacketBytes: 65536,
      loginFailureMax: 3,
      loginFailureWindowMs: 5000,
    });
  });

  it('refuse to start with a value that would disarm a limit, naming the variable', () => {
    assert.throws(() => loadConfig({ MQTT_MAX_CONNECT_BYTES: '100000000' }), /MQTT_MAX_CONNECT_BYTES must be <= 65536/);
    assert.throws(() => loadConfig({ MQTT_CONNECT_TIMEOUT_MS: '0' }), /MQTT_CONNECT_TIMEOUT_MS must be >= 100/);
    assert.throws(() => loadConfig({ MQTT_MAX_CONNECTIONS: '0' }), /MQTT_MAX_CONNECTIONS must be >= 1/);
  });
});
