/**
 * A QR code encoder (ISO/IEC 18004), kept to what the lockers need: byte mode, versions 1–10,
 * error correction level M (15% of the symbol may be damaged). No dependency: no QR library is
 * installed, and a code shown on a phone screen needs no more. A return's drop-off code is four
 * digits (version 1); longer texts up to 213 bytes still encode.
 *
 * The matrix is `true` for a dark module, indexed [row][column].
 */

export type QrMatrix = boolean[][];

/** Per version (index 0 = version 1), level M: EC codewords per block, then groups of [blocks, data codewords per block]. */
const BLOCKS_M: ReadonlyArray<{ ec: number; groups: ReadonlyArray<readonly [number, number]> }> = [
  { ec: 10, groups: [[1, 16]] },
  { ec: 16, groups: [[1, 28]] },
  { ec: 26, groups: [[1, 44]] },
  { ec: 18, groups: [[2, 32]] },
  { ec: 24, groups: [[2, 43]] },
  { ec: 16, groups: [[4, 27]] },
  { ec: 18, groups: [[4, 31]] },
  {
    ec: 22,
    groups: [
      [2, 38],
      [2, 39],
    ],
  },
  {
    ec: 22,
    groups: [
      [3, 36],
      [2, 37],
    ],
  },
  {
    ec: 26,
    groups: [
      [4, 43],
      [1, 44],
    ],
  },
];

/** Centres of the alignment patterns per version (version 1 has none). */
const ALIGNMENT: ReadonlyArray<readonly number[]> = [
  [],
  [6, 18],
  [6, 22],
  [6, 26],
  [6, 30],
  [6, 34],
  [6, 22, 38],
  [6, 24, 42],
  [6, 26, 46],
  [6, 28, 50],
];

export const QR_MAX_VERSION = 10;
/** Format bits of level M (L=01, M=00, Q=11, H=10). */
const LEVEL_M_BITS = 0b00;

const dataCodewords = (version: number) =>
  BLOCKS_M[version - 1].groups.reduce((n, [blocks, size]) => n + blocks * size, 0);
/** Bits a byte-mode segment of `length` bytes takes: mode, count (8 bits up to version 9, 16 from 10), data. */
const segmentBits = (version: number, length: number) => 4 + (version <= 9 ? 8 : 16) + 8 * length;

/** The bytes a text of `length` UTF-8 bytes can be at most, at version 10-M. */
export const QR_MAX_BYTES = Math.floor((dataCodewords(QR_MAX_VERSION) * 8 - 4 - 16) / 8);

/** The smallest version that holds `length` bytes, or undefined when none up to 10 does. */
export function versionFor(length: number): number | undefined {
  for (let v = 1; v <= QR_MAX_VERSION; v++) if (segmentBits(v, length) <= dataCodewords(v) * 8) return v;
  return undefined;
}

// ---- Reed–Solomon over GF(256), primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) ----

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]]);

/** The generator polynomial of degree n, highest coefficient (1) first: ∏ (x − α^i), i < n. */
function generator(n: number): number[] {
  let g = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array<number>(g.length + 1).fill(0);
    for (let j = 0; j < g.length; j++) {
      next[j] ^= g[j];
      next[j + 1] ^= mul(g[j], EXP[i]);
    }
    g = next;
  }
  return g;
}

/** The n error-correction codewords of `data` (the remainder of data·x^n divided by the generator). */
export function reedSolomon(data: readonly number[], n: number): number[] {
  const g = generator(n);
  const rem = new Array<number>(n).fill(0);
  for (const byte of data) {
    const factor = byte ^ rem.shift()!;
    rem.push(0);
    for (let i = 0; i < n; i++) rem[i] ^= mul(g[i + 1], factor);
  }
  return rem;
}

// ---- codewords ----

/** Data codewords of a byte-mode segment, padded; then split in blocks, EC added, interleaved. */
export function codewords(bytes: Uint8Array, version: number): number[] {
  const capacity = dataCodewords(version) * 8;
  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, version <= 9 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity - bits.length)); // terminator
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));

  const { ec, groups } = BLOCKS_M[version - 1];
  const blocks: Array<{ data: number[]; ec: number[] }> = [];
  let at = 0;
  for (const [count, size] of groups) {
    for (let b = 0; b < count; b++) {
      const d = data.slice(at, at + size);
      at += size;
      blocks.push({ data: d, ec: reedSolomon(d, ec) });
    }
  }
  const out: number[] = [];
  const longest = Math.max(...blocks.map((b) => b.data.length));
  for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  for (let i = 0; i < ec; i++) for (const b of blocks) out.push(b.ec[i]);
  return out;
}

// ---- the matrix ----

class QrSymbol {
  readonly size: number;
  readonly modules: QrMatrix;
  readonly isFunction: boolean[][];

  constructor(readonly version: number) {
    this.size = version * 4 + 17;
    this.modules = Array.from({ length: this.size }, () => new Array<boolean>(this.size).fill(false));
    this.isFunction = Array.from({ length: this.size }, () => new Array<boolean>(this.size).fill(false));
    this.drawFunctionPatterns();
  }

  private set(row: number, col: number, dark: boolean): void {
    this.modules[row][col] = dark;
    this.isFunction[row][col] = true;
  }

  private drawFunctionPatterns(): void {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    this.finder(3, 3);
    this.finder(3, n - 4);
    this.finder(n - 4, 3);
    const centres = ALIGNMENT[this.version - 1];
    const last = centres.length - 1;
    for (let a = 0; a <= last; a++) {
      for (let b = 0; b <= last; b++) {
        // Not over the three finders.
        if ((a === 0 && b === 0) || (a === 0 && b === last) || (a === last && b === 0)) continue;
        this.alignment(centres[a], centres[b]);
      }
    }
    this.drawFormat(0); // reserves the format areas; redrawn with the chosen mask
    this.drawVersion();
  }

  /** A 7×7 finder centred at (row, col), with its light separator. */
  private finder(row: number, col: number): void {
    for (let dr = -4; dr <= 4; dr++) {
      for (let dc = -4; dc <= 4; dc++) {
        const r = row + dr;
        const c = col + dc;
        if (r < 0 || r >= this.size || c < 0 || c >= this.size) continue;
        const d = Math.max(Math.abs(dr), Math.abs(dc));
        this.set(r, c, d !== 2 && d !== 4);
      }
    }
  }

  private alignment(row: number, col: number): void {
    for (let dr = -2; dr <= 2; dr++) {
      for (let dc = -2; dc <= 2; dc++) this.set(row + dr, col + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
    }
  }

  /** 15 format bits (level, mask, BCH(15,5), masked with 101010000010010), in both copies. */
  drawFormat(mask: number): void {
    const data = (LEVEL_M_BITS << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    const bit = (i: number) => ((bits >>> i) & 1) === 1;
    const n = this.size;
    // First copy, around the top-left finder.
    for (let i = 0; i <= 5; i++) this.set(i, 8, bit(i));
    this.set(7, 8, bit(6));
    this.set(8, 8, bit(7));
    this.set(8, 7, bit(8));
    for (let i = 9; i < 15; i++) this.set(8, 14 - i, bit(i));
    // Second copy, split between the other two finders.
    for (let i = 0; i < 8; i++) this.set(8, n - 1 - i, bit(i));
    for (let i = 8; i < 15; i++) this.set(n - 15 + i, 8, bit(i));
    this.set(n - 8, 8, true); // the dark module
  }

  /** Versions 7 and up: 18 version bits (6 data, BCH(18,6)) in two 6×3 blocks. */
  private drawVersion(): void {
    if (this.version < 7) return;
    let rem = this.version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (this.version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = this.size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      this.set(b, a, dark);
      this.set(a, b, dark);
    }
  }

  /** Codeword bits in the zigzag order: two columns at a time from the right, up then down. */
  placeData(data: readonly number[]): void {
    let i = 0;
    const total = data.length * 8;
    for (let right = this.size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5; // the vertical timing pattern
      const upward = ((right + 1) & 2) === 0;
      for (let v = 0; v < this.size; v++) {
        const row = upward ? this.size - 1 - v : v;
        for (let j = 0; j < 2; j++) {
          const col = right - j;
          if (this.isFunction[row][col] || i >= total) continue;
          this.modules[row][col] = ((data[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
    }
  }

  /** Flips the data modules where mask `m` says (applying it twice undoes it). */
  applyMask(m: number): void {
    for (let r = 0; r < this.size; r++) {
      for (let c = 0; c < this.size; c++) {
        if (!this.isFunction[r][c] && maskBit(m, r, c)) this.modules[r][c] = !this.modules[r][c];
      }
    }
  }
}

/** The eight mask conditions, with i the row and j the column. */
export function maskBit(m: number, i: number, j: number): boolean {
  switch (m) {
    case 0:
      return (i + j) % 2 === 0;
    case 1:
      return i % 2 === 0;
    case 2:
      return j % 3 === 0;
    case 3:
      return (i + j) % 3 === 0;
    case 4:
      return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5:
      return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6:
      return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default:
      return (((i + j) % 2) + ((i * j) % 3)) % 2 === 0;
  }
}

/** The standard's penalty score of a finished matrix: the mask with the lowest one is used. */
export function penalty(m: QrMatrix): number {
  const n = m.length;
  let score = 0;
  const lines: boolean[][] = [];
  for (let r = 0; r < n; r++) lines.push(m[r]);
  for (let c = 0; c < n; c++) lines.push(m.map((row) => row[c]));
  const finderLike = [true, false, true, true, true, false, true];
  for (const line of lines) {
    // Runs of five or more modules of one colour.
    let run = 1;
    for (let i = 1; i <= n; i++) {
      if (i < n && line[i] === line[i - 1]) run++;
      else {
        if (run >= 5) score += 3 + (run - 5);
        run = 1;
      }
    }
    // 1:1:3:1:1 with four light modules on one side.
    for (let i = 0; i + 7 <= n; i++) {
      if (!finderLike.every((d, k) => line[i + k] === d)) continue;
      const lightBefore = i >= 4 && [1, 2, 3, 4].every((k) => !line[i - k]);
      const lightAfter = i + 11 <= n && [0, 1, 2, 3].every((k) => !line[i + 7 + k]);
      if (lightBefore) score += 40;
      if (lightAfter) score += 40;
    }
  }
  // 2×2 blocks of one colour.
  for (let r = 0; r + 1 < n; r++) {
    for (let c = 0; c + 1 < n; c++) {
      const d = m[r][c];
      if (m[r][c + 1] === d && m[r + 1][c] === d && m[r + 1][c + 1] === d) score += 3;
    }
  }
  // The share of dark modules away from one half.
  const dark = m.reduce((a, row) => a + row.filter(Boolean).length, 0);
  const total = n * n;
  score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return score;
}

/**
 * The QR code of `text` (UTF-8, byte mode, level M) in the smallest version that holds it.
 * `mask` forces a mask pattern (0–7); by default the one with the lowest penalty is chosen.
 */
export function encodeQr(
  text: string,
  options: { mask?: number } = {},
): { version: number; mask: number; matrix: QrMatrix } {
  const bytes = new TextEncoder().encode(text);
  const version = versionFor(bytes.length);
  if (version === undefined)
    throw new RangeError(`a QR code here holds at most ${QR_MAX_BYTES} bytes, not ${bytes.length}`);
  const symbol = new QrSymbol(version);
  symbol.placeData(codewords(bytes, version));
  let mask = options.mask;
  if (mask === undefined) {
    let best = Infinity;
    for (let m = 0; m < 8; m++) {
      symbol.applyMask(m);
      symbol.drawFormat(m);
      const p = penalty(symbol.modules);
      if (p < best) {
        best = p;
        mask = m;
      }
      symbol.applyMask(m);
    }
  }
  if (!Number.isInteger(mask) || mask! < 0 || mask! > 7) throw new RangeError('mask is 0 to 7');
  symbol.applyMask(mask!);
  symbol.drawFormat(mask!);
  return { version, mask: mask!, matrix: symbol.modules };
}

/** The matrix as an SVG image: one path of dark squares, a quiet zone of four modules, `scale` pixels a module. */
export function qrSvg(matrix: QrMatrix, scale = 8): string {
  const quiet = 4;
  const size = matrix.length + 2 * quiet;
  let path = '';
  matrix.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (dark) path += `M${c + quiet} ${r + quiet}h1v1h-1z`;
    }),
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size * scale}" height="${size * scale}" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>\n`
  );
}
