/**
 * The QR encoder of a return's drop-off code (cloud/domain/qr-code.ts), against matrices from an
 * independent encoder (qr-vectors.json: versions 1, 4, 5, 7 and 10, several masks, UTF-8), the
 * Reed–Solomon example every QR tutorial works through, and the standard's format-bit table.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { svgMatrix } from '../helpers/qr.ts';
import {
  QR_MAX_BYTES,
  encodeQr,
  maskBit,
  penalty,
  qrSvg,
  reedSolomon,
  versionFor,
} from '../../cloud/domain/qr-code.ts';

const VECTORS = JSON.parse(readFileSync(new URL('./qr-vectors.json', import.meta.url), 'utf8')) as {
  vectors: Array<{ text: string; mask: number; version: number; rows: string[] }>;
};
const rowsOf = (m: boolean[][]) => m.map((r) => r.map((d) => (d ? '1' : '0')).join(''));

describe('QR code encoder (byte mode, level M, versions 1–10)', () => {
  it('matches an independent encoder module for module', () => {
    assert.ok(VECTORS.vectors.length >= 5);
    for (const v of VECTORS.vectors) {
      const q = encodeQr(v.text, { mask: v.mask });
      assert.equal(q.version, v.version, `version of a ${v.text.length}-character text`);
      assert.deepEqual(rowsOf(q.matrix), v.rows, `matrix of version ${v.version}, mask ${v.mask}`);
    }
  });

  it('computes Reed–Solomon codewords of the worked example (1-M "HELLO WORLD")', () => {
    const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
    assert.deepEqual(reedSolomon(data, 10), [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
  });

  it("writes the standard's format bits for level M (mask 0: 101010000010010)", () => {
    const { matrix } = encodeQr('4821', { mask: 0 });
    // Bits 14..9 run along row 8 from column 0; the standard lists them most significant first.
    const top =
      [0, 1, 2, 3, 4, 5, 7].map((c) => (matrix[8][c] ? '1' : '0')).join('') +
      (matrix[8][8] ? '1' : '0') +
      [7, 5, 4, 3, 2, 1, 0].map((r) => (matrix[r][8] ? '1' : '0')).join('');
    assert.equal(top, '101010000010010');
    assert.equal(matrix[matrix.length - 8][8], true, 'the dark module');
  });

  it('picks the mask of lowest penalty, and the smallest version that holds the text', () => {
    const q = encodeQr('4821');
    const scores = [0, 1, 2, 3, 4, 5, 6, 7].map((m) => penalty(encodeQr('4821', { mask: m }).matrix));
    assert.equal(scores[q.mask], Math.min(...scores));
    assert.equal(versionFor(14), 1);
    assert.equal(versionFor(15), 2);
    assert.equal(versionFor(QR_MAX_BYTES), 10);
    assert.equal(versionFor(QR_MAX_BYTES + 1), undefined);
    assert.throws(() => encodeQr('x'.repeat(QR_MAX_BYTES + 1)), /at most 213 bytes/);
    assert.equal(maskBit(0, 1, 1), true);
  });

  it('draws the matrix as SVG: one square per dark module, a quiet zone of four', () => {
    const { matrix } = encodeQr('4821');
    const svg = qrSvg(matrix);
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="232" height="232" viewBox="0 0 29 29"/);
    assert.deepEqual(rowsOf(svgMatrix(svg)), rowsOf(matrix));
  });
});
