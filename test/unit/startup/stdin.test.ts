// readStdin on real descriptors (FIFOs, files, devices), all read with fs.read on the threadpool. A
// hook's own fd 0 is exercised in child processes, where it is a socket (what Qwen and spawn give),
// a file or /dev/null.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, readStdin, type StdinResult } from '../../../src/startup/stdin.js';
import { ROOT } from '../../fixtures/run-runtime.js';

const openFd = promisify(fs.open);
const writeFd = promisify(fs.write);
const closeFd = promisify(fs.close);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-stdin-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

let names = 0;
const fresh = (kind: string) => path.join(dir, `${kind}-${names++}`);

/** A FIFO opened at both ends, both blocking: each open waits for the other on the threadpool. */
async function fifo(): Promise<{ reader: number; writer: number }> {
  const file = fresh('fifo');
  execFileSync('mkfifo', [file]);
  const [reader, writer] = await Promise.all([openFd(file, 'r'), openFd(file, 'w')]);
  return { reader, writer };
}
/** Writes then closes on the threadpool (a full pipe must not block the loop that drains it). */
async function writeAndClose(writer: number, content: Buffer): Promise<void> {
  // EPIPE once the reader has stopped at the limit and closed its end: expected.
  await writeFd(writer, content).catch(() => {});
  await closeFd(writer);
}
const shown = (result: StdinResult) =>
  result.kind === 'ok' ? { kind: 'ok', text: result.bytes.toString('latin1') } : result;

type Source = (content: Buffer, limit: number) => Promise<ReturnType<typeof shown>>;

const viaFifo: Source = async (content, limit) => {
  const { reader, writer } = await fifo();
  const reading = readStdin(limit, reader).result;
  const written = writeAndClose(writer, content);
  const result = await reading;
  // fs.read leaves the descriptor to its owner; closing it also ends a writer stuck on a full pipe.
  fs.closeSync(reader);
  await written;
  return shown(result);
};
const viaFile: Source = async (content, limit) => {
  const file = fresh('file');
  fs.writeFileSync(file, content);
  const fd = fs.openSync(file, 'r');
  try {
    return shown(await readStdin(limit, fd).result);
  } finally {
    fs.closeSync(fd);
  }
};

const MIB = 1024 * 1024;
describe.each([
  ['a FIFO', viaFifo],
  ['a regular file', viaFile],
])('readStdin from %s', (_source, read) => {
  it.each<[string, string, number, ReturnType<typeof shown>]>([
    ['empty', '', MIB, { kind: 'ok', text: '' }],
    ['a JSON event', '{"prompt":"hi"}', MIB, { kind: 'ok', text: '{"prompt":"hi"}' }],
    ['several 64 KiB reads', 'abc'.repeat(100_000), MIB, { kind: 'ok', text: 'abc'.repeat(100_000) }],
    ['exactly the limit', 'x'.repeat(100), 100, { kind: 'ok', text: 'x'.repeat(100) }],
    ['one byte over the limit', 'x'.repeat(101), 100, { kind: 'oversize' }],
    // The reader stops at the limit: the writer of the rest gets EPIPE, nothing is buffered.
    ['far over the limit', 'x'.repeat(4 * MIB), 1000, { kind: 'oversize' }],
  ])('%s', async (_case, content, limit, expected) => {
    expect(await read(Buffer.from(content, 'latin1'), limit)).toEqual(expected);
  });
});

describe('readStdin: what blocks', () => {
  it('reports pending() while a read is blocked on a silent writer, and not once it returned', async () => {
    const { reader, writer } = await fifo();
    const stdin = readStdin(1000, reader);
    const whileWaiting = [stdin.pending()];
    await sleep(100);
    whileWaiting.push(stdin.pending());
    await writeAndClose(writer, Buffer.from('late'));
    const result = shown(await stdin.result);
    fs.closeSync(reader);
    expect({ whileWaiting, result, after: stdin.pending() }).toEqual({
      whileWaiting: [true, true],
      result: { kind: 'ok', text: 'late' },
      after: false,
    });
  });

  it('reads /dev/null: ok, no bytes', async () => {
    const fd = fs.openSync('/dev/null', 'r');
    try {
      const stdin = readStdin(1000, fd);
      const atStart = stdin.pending();
      expect({ atStart, result: shown(await stdin.result), after: stdin.pending() }).toEqual({
        atStart: true,
        result: { kind: 'ok', text: '' },
        after: false,
      });
    } finally {
      fs.closeSync(fd);
    }
  });

  it('answers ok with no bytes for a descriptor that is not open', async () => {
    // A hook started with stdin closed: fstat and read both fail, which reads as an empty stdin. A
    // number far above any open descriptor, so that nothing of this process is read or closed.
    expect(shown(await readStdin(1000, 999_999).result)).toEqual({ kind: 'ok', text: '' });
  });
});

describe("readStdin on a child's own fd 0, with the defaults", () => {
  const SCRIPT = [
    `import { readStdin } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/startup/stdin.ts')).href)};`,
    'const stdin = readStdin(Number(process.argv[1]));',
    // A read is in flight right after the call, whatever fd 0 is.
    'const pendingAtStart = stdin.pending();',
    'const result = await stdin.result;',
    "const text = result.kind === 'ok' ? result.bytes.toString('utf8') : undefined;",
    'process.stdout.write(JSON.stringify({ kind: result.kind, text, pendingAtStart }));',
  ].join('\n');

  async function child(stdin: 'pipe' | 'ignore' | number, input: string, limit: number) {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, String(limit)],
      {
        cwd: ROOT,
        stdio: [stdin, 'pipe', 'pipe'],
      },
    );
    if (stdin === 'pipe') proc.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    proc.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
    clearTimeout(killer);
    return { code, stderr, ...(JSON.parse(stdout || '{}') as object) };
  }

  it.each<[string, 'socket' | 'file' | 'null', string, number, object]>([
    [
      'a socket (what spawn and Qwen give)',
      'socket',
      '{"a":"ü"}',
      1000,
      { kind: 'ok', text: '{"a":"ü"}', pendingAtStart: true },
    ],
    ['a socket over the limit', 'socket', 'x'.repeat(2000), 1000, { kind: 'oversize', pendingAtStart: true }],
    ['a regular file', 'file', '{"a":"ü"}', 1000, { kind: 'ok', text: '{"a":"ü"}', pendingAtStart: true }],
    [
      'a regular file over the limit',
      'file',
      'x'.repeat(2000),
      1000,
      { kind: 'oversize', pendingAtStart: true },
    ],
    ['/dev/null', 'null', '', 1000, { kind: 'ok', text: '', pendingAtStart: true }],
  ])('%s', async (_case, kind, input, limit, expected) => {
    let fd: number | undefined;
    if (kind === 'file') {
      const file = fresh('stdin');
      fs.writeFileSync(file, input);
      fd = fs.openSync(file, 'r');
    }
    try {
      const stdio = kind === 'socket' ? 'pipe' : kind === 'null' ? 'ignore' : (fd as number);
      expect(await child(stdio, input, limit)).toEqual({ code: 0, stderr: '', ...expected });
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  });
});

describe('parseJson', () => {
  const BOM = [0xef, 0xbb, 0xbf];
  it.each<[string, Buffer, unknown]>([
    ['an object', Buffer.from('{"prompt":"ü"}'), { prompt: 'ü' }],
    ['an array', Buffer.from('[1,2]'), [1, 2]],
    ['a scalar', Buffer.from(' 42 '), 42],
    ['JSON behind a BOM', Buffer.from([...BOM, ...Buffer.from('{"a":1}')]), { a: 1 }],
    // JSON.parse takes no BOM as whitespace: only the first is dropped, by the decoder.
    ['JSON behind two BOMs', Buffer.from([...BOM, ...BOM, ...Buffer.from('{}')]), undefined],
    ['invalid UTF-8 inside a string', Buffer.from([0x22, 0xff, 0x22]), undefined],
    ['an encoded surrogate inside a string', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), undefined],
    ['truncated JSON', Buffer.from('{"a":'), undefined],
    ['not JSON', Buffer.from('hello'), undefined],
    ['empty', Buffer.alloc(0), undefined],
    ['a BOM alone', Buffer.from(BOM), undefined],
  ])('%s', (_case, bytes, expected) => {
    expect(parseJson(bytes)).toEqual(expected);
  });
});
