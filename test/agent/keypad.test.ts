import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { LineKeypad } from '../../locker-agent/keypad/keypad.ts';

async function codesFrom(chunks: string[]): Promise<string[]> {
  const input = new PassThrough();
  const keypad = new LineKeypad(input);
  const codes: string[] = [];
  keypad.on('code', (c) => codes.push(c));
  keypad.start();
  for (const c of chunks) input.write(c);
  await new Promise((r) => setImmediate(r));
  await keypad.stop();
  return codes;
}

describe('line keypad', () => {
  it('yields one code per CRLF-terminated line', async () => {
    assert.deepEqual(await codesFrom(['1234\r\n5678\r\n']), ['1234', '5678']);
  });

  it('joins a line split across chunks and accepts bare LF', async () => {
    assert.deepEqual(await codesFrom(['12', '34\r', '\n99', '01\n']), ['1234', '9901']);
  });

  it('ignores empty lines and surrounding spaces', async () => {
    assert.deepEqual(await codesFrom(['\r\n  \r\n 4321 \r\n']), ['4321']);
  });

  it('holds back a line until its terminator arrives', async () => {
    assert.deepEqual(await codesFrom(['1234']), []);
  });
});
