import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { ReadlineParser } from '@serialport/parser-readline';

export interface KeypadEvents {
  code: [string];
}

/** Anything that yields entered codes: keypad board, barcode/QR scanner, stdin. */
export abstract class KeypadSource extends EventEmitter<KeypadEvents> {
  abstract start(): void;
  abstract stop(): Promise<void>;
}

/**
 * One code per line (`1234\r\n`), the way keypad boards and scanners send them. The input is
 * any readable byte stream: a serialport instance, a pseudo-terminal, stdin, or a test stream.
 */
export class LineKeypad extends KeypadSource {
  private readonly parser = new ReadlineParser({ delimiter: '\n', encoding: 'utf8' });

  constructor(
    private readonly input: Readable,
    private readonly onStop: () => Promise<void> = async () => {},
  ) {
    super();
  }

  start(): void {
    this.input.pipe(this.parser);
    this.parser.on('data', (line: string) => {
      const code = line.replace(/\r$/, '').trim();
      if (code) this.emit('code', code);
    });
  }

  async stop(): Promise<void> {
    this.input.unpipe(this.parser);
    await this.onStop();
  }
}

/** Opens the keypad device named in the config: `stdin`, or a serial device path. */
export async function openKeypad(device: string, baudRate: number): Promise<LineKeypad> {
  if (device === 'stdin') return new LineKeypad(process.stdin);
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path: device, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return new LineKeypad(
    port,
    () => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())),
  );
}
