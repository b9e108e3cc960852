// How the demo prints: numbered section headings, aligned key/value lines, indented blocks.
const KEY_WIDTH = 16;
// Bold headings on a terminal only: a CI log or a test reads plain text.
const bold = process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined;

export function write(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function heading(number: number | string, title: string): void {
  const text = `${number}. ${title}`;
  write();
  write(bold ? `\u001b[1m${text}\u001b[0m` : text);
}

/** `  Key:            value`; continuation lines of a multi-line value stay aligned. */
export function field(key: string, value: string): void {
  const [first = '', ...rest] = value.split('\n');
  write(`  ${`${key}:`.padEnd(KEY_WIDTH)}${first}`);
  for (const line of rest) write(`  ${' '.repeat(KEY_WIDTH)}${line}`);
}

/** Every line of `text` indented (empty lines stay empty), trailing newline dropped. */
export function block(text: string, prefix = '    '): void {
  for (const line of text.replace(/\n$/, '').split('\n')) write(line === '' ? '' : `${prefix}${line}`);
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
