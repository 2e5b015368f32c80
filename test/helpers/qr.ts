/** Reading back what the QR code SVG draws (cloud/domain/qr-code.ts). */
/** The modules an SVG of qrSvg draws (`M x y h1v1h-1z` per dark module, offset by the quiet zone). */
export function svgMatrix(svg: string): boolean[][] {
  const size = Number(/viewBox="0 0 (\d+) /.exec(svg)![1]) - 8;
  const m = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  for (const [, x, y] of svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) m[Number(y) - 4][Number(x) - 4] = true;
  return m;
}
