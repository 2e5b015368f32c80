/**
 * Splits a command line into the command's words and its flags. Flags are `--name value`,
 * `--name=value`, or a bare `--name` (then its value is '' and a boolean flag reads it as true).
 * node's parseArgs cannot do this without knowing every flag in advance.
 */
export interface ParsedArgs {
  words: string[];
  flags: Record<string, string>;
  error?: string;
}

export function parseCommandLine(argv: string[]): ParsedArgs {
  const words: string[] = [];
  let i = 0;
  while (i < argv.length && !argv[i].startsWith('--')) words.push(argv[i++]);
  const flags: Record<string, string> = {};
  for (; i < argv.length; i++) {
    const token = argv[i];
    if (!token.startsWith('--') || token === '--') {
      return { words, flags, error: `unexpected argument "${token}" (flags are written --name value)` };
    }
    const eq = token.indexOf('=');
    const name = eq > 0 ? token.slice(2, eq) : token.slice(2);
    let value = '';
    if (eq > 0) value = token.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
    if (name in flags) return { words, flags, error: `--${name} is given more than once` };
    flags[name] = value;
  }
  return { words, flags };
}
