import { STATUS_CODES } from 'node:http';

/** An error that already knows its response: `{ statusCode, error, message[, code] }`. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code?: string;
  readonly headers?: Record<string, string>;
  constructor(statusCode: number, message: string, options: { code?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = options.code;
    this.headers = options.headers;
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      statusCode: this.statusCode,
      error: STATUS_CODES[this.statusCode] ?? 'Error',
      message: this.message,
    };
    if (this.code) body.code = this.code;
    return body;
  }
}

export const validationError = (message: string) => new HttpError(400, message, { code: 'FST_ERR_VALIDATION' });
