import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../../src/cli/command.js';
import { fileSystemRefusal, InputError, UsageError } from '../../../src/cli/command-errors.js';
import { renderCommand, writeRefusal } from '../../../src/cli/commands/render.js';
import { rollbackCommand } from '../../../src/cli/commands/rollback.js';
import { verifyCommand } from '../../../src/cli/commands/verify.js';
import { runProgram } from '../../../src/cli/program.js';
import { adminDeps } from '../../fixtures/admin-deps.js';
import { FAILING_PROGRAM, failingCommand } from '../../fixtures/failing-command.js';
import { fakeRuntimes, NOW, REPO, TOOLKIT, tempDir } from '../deploy/fixtures.js';

/** A temporary root with the fake runtimes render copies, in runtime/. */
async function renderRoot(): Promise<{ root: string; runtimeDir: string }> {
  const root = await tempDir();
  const runtimeDir = path.join(root, 'runtime');
  await fs.mkdir(runtimeDir);
  for (const [name, bytes] of fakeRuntimes()) await fs.writeFile(path.join(runtimeDir, name), bytes);
  return { root, runtimeDir };
}

async function setup() {
  const { root, runtimeDir } = await renderRoot();
  const deps = adminDeps({
    toolkitVersion: TOOLKIT,
    now: () => NOW,
    adminUid: () => 4242,
    runtimeDir: async () => runtimeDir,
  });
  const out = { stdout: '', stderr: '' };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c) => (out.stdout += c));
  stderr.on('data', (c) => (out.stderr += c));
  const io: CliIO = { env: {}, cwd: root, stdin: new PassThrough(), stdout, stderr };
  const commands = [renderCommand(deps), verifyCommand(deps), rollbackCommand(deps)];
  const cli = (args: string[]) =>
    runProgram({ name: 'qwen-managed', version: TOOLKIT, description: 'test' }, commands, args, io);
  return { root, out, cli };
}

describe('admin commands in-process (injected clock, uid, runtimes, streams)', () => {
  it('render records the injected admin uid and time; verify passes; rollback marks the profile', async () => {
    const { root, out, cli } = await setup();
    const deployment = path.join(REPO, 'examples', 'deployments', 'on-demand.json');
    expect(await cli(['render', '--deployment', deployment, '--out', 'tree'])).toBe(0);
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'tree', 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      toolkitVersion: TOOLKIT,
      adminUid: 4242,
      profiles: { 'on-demand': { state: 'active', changedAt: NOW } },
    });
    expect(await cli(['verify', '--dir', 'tree', '--deployment', deployment])).toBe(0);
    expect(out.stdout).toContain('OK — 0 violation(s)');
    expect(await cli(['rollback', '--dir', 'tree', '--profile', 'on-demand'])).toBe(0);
    expect(
      JSON.parse(await fs.readFile(path.join(root, 'tree', 'manifest.json'), 'utf8')).profiles['on-demand']
        .state,
    ).toBe('rolled-back');
  });

  it('a windows deployment must be staged with --out on a POSIX machine (exit 2)', async () => {
    const { out, cli } = await setup();
    expect(
      await cli(['render', '--deployment', path.join(REPO, 'examples', 'deployments', 'windows.json')]),
    ).toBe(2);
    expect(out.stderr).toContain('a windows deployment must be staged with --out on this machine');
  });

  it('verify of a missing directory is refused input (exit 1); an unknown profile is a usage error (exit 2)', async () => {
    const { out, cli } = await setup();
    expect(await cli(['verify', '--dir', 'nope'])).toBe(1);
    expect(out.stderr).toMatch(/verify: --dir .*nope is not a directory/);
    expect(await cli(['rollback', '--dir', '.', '--profile', 'everything'])).toBe(2);
    expect(out.stderr).toContain(
      'rollback: --profile: unknown profile kind "everything" (kinds: on-demand, auto-recall, write, openclaw-recall)',
    );
    expect(await cli(['rollback', '--dir', '.', '--profile', 'autorecall'])).toBe(2);
    expect(out.stderr).toContain('unknown profile kind "autorecall"; did you mean "auto-recall"?');
  });

  it('a command throwing UsageError maps to exit 2 with a help hint; anything unexpected to 70', async () => {
    const io: CliIO = {
      env: {},
      cwd: '/',
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    };
    let err = '';
    let printed = '';
    io.stderr.on('data', (c) => (err += c));
    io.stdout.on('data', (c) => (printed += c));
    expect(await runProgram(FAILING_PROGRAM, [failingCommand(new UsageError('bad flag'))], ['x'], io)).toBe(
      2,
    );
    expect(await runProgram(FAILING_PROGRAM, [failingCommand(new TypeError('oops'))], ['x'], io)).toBe(70);
    expect(err).toBe('qm: bad flag\n(see `qm x --help`)\nqm: internal error: oops\n');
    // Errors go to stderr only.
    expect(printed).toBe('');
  });
});

describe('a refusal reaches the terminal as text, never as its control sequences', () => {
  it.each([
    [
      'ESC (a colour, a cursor move)',
      '--dir /tmp/x\u001b[31mRED is not a directory',
      '--dir /tmp/x\\u001b[31mRED is not a directory',
    ],
    ['a C1 CSI', '/tmp/\u009b2J is not an install tree', '/tmp/\\u009b2J is not an install tree'],
    ['a bidi override', '/tmp/\u202egnp.exe', '/tmp/\\u202egnp.exe'],
    // The one class the renderer replaces too (src/text/terminal-controls.ts): the Arabic letter mark.
    ['an Arabic letter mark', '/tmp/\u061cx', '/tmp/\\u061cx'],
    ['a carriage return', '/tmp/a\rOK', '/tmp/a\\u000dOK'],
    ['the lines of a multi-line refusal stay lines', 'broker: one\nbroker: two', 'broker: one\nbroker: two'],
  ])('%s', async (_what, message, shown) => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c) => (err += c));
    const io: CliIO = { env: {}, cwd: '/', stdin: new PassThrough(), stdout: new PassThrough(), stderr };
    expect(await runProgram(FAILING_PROGRAM, [failingCommand(new InputError(message))], ['x'], io)).toBe(1);
    expect(err).toBe(`qm: ${shown}\n`);
  });
});

/** Streams for a command whose Ctrl+C the test delivers: `interrupt()` runs the handler it registered. */
function interruptibleIo(cwd: string) {
  const state = { stderr: '', stopped: false, handler: undefined as (() => Promise<void>) | undefined };
  const stderr = new PassThrough();
  stderr.on('data', (c) => (state.stderr += c));
  const io: CliIO = {
    env: {},
    cwd,
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    onInterrupt(handler) {
      state.handler = handler;
      return () => {
        state.stopped = true;
      };
    },
  };
  return { io, state, interrupt: () => state.handler!() };
}

describe('Ctrl+C during render', () => {
  it('releases the install lock and says so on stderr', async () => {
    const { root, runtimeDir } = await renderRoot();
    const { io, state, interrupt } = interruptibleIo(root);
    const lockFile = path.join(root, 'tree', '.qwen-managed.lock');
    const seen: { lockWhileRendering?: boolean; lockAfterInterrupt?: boolean } = {};
    const deps = adminDeps({
      toolkitVersion: TOOLKIT,
      now: () => NOW,
      runtimeDir: async () => runtimeDir,
      // Ctrl+C arrives right after "Render the install tree" (the lock is held, nothing written yet).
      progress: () => ({
        async step(title, run) {
          const result = await run();
          if (title === 'Render the install tree') {
            seen.lockWhileRendering = (await fs.stat(lockFile).catch(() => undefined)) !== undefined;
            await interrupt();
            seen.lockAfterInterrupt = (await fs.stat(lockFile).catch(() => undefined)) !== undefined;
            throw new Error('the process ends here (exit 130)');
          }
          return result;
        },
      }),
    });
    const deployment = path.join(REPO, 'examples', 'deployments', 'on-demand.json');
    await expect(
      renderCommand(deps).run(['render', '--deployment', deployment, '--out', 'tree'].slice(1), io),
    ).rejects.toThrow('exit 130');
    expect({ ...seen, stopped: state.stopped }).toEqual({
      lockWhileRendering: true,
      lockAfterInterrupt: false,
      stopped: true,
    });
    expect(state.stderr).toBe(
      `render: interrupted (Ctrl+C); released the lock of ${path.join(root, 'tree')}. manifest.json is written last, so the tree is either as before or has new files that verify reports; run render again to finish\n`,
    );
    // Nothing of the tree was written: only the (empty) directory the lock lived in.
    expect(await fs.readdir(path.join(root, 'tree'))).toEqual([]);
  });
});

describe('Ctrl+C while render takes the lock', () => {
  // Negative control (by hand): when the handler read only a lock already handed over, a Ctrl+C
  // between the lock file's creation and the hand-over printed "before writing anything" and left
  // .qwen-managed.lock behind (reproduced with kill -INT at 0.37–0.40 s into a real render).
  it('waits for the lock being taken, then releases it and says so', async () => {
    const { root, runtimeDir } = await renderRoot();
    const { io, state, interrupt } = interruptibleIo(root);
    const lockFile = path.join(root, 'tree', '.qwen-managed.lock');
    let lockAfterInterrupt: boolean | undefined;
    const deps = adminDeps({
      toolkitVersion: TOOLKIT,
      now: () => NOW,
      runtimeDir: async () => runtimeDir,
      // Ctrl+C arrives as "Render the install tree" starts: the lock is being taken, not yet handed over.
      progress: () => ({
        async step(title, run) {
          if (title !== 'Render the install tree') return run();
          const rendering = run();
          const interrupted = interrupt();
          await Promise.allSettled([rendering, interrupted]);
          lockAfterInterrupt = (await fs.stat(lockFile).catch(() => undefined)) !== undefined;
          throw new Error('the process ends here (exit 130)');
        },
      }),
    });
    const deployment = path.join(REPO, 'examples', 'deployments', 'on-demand.json');
    await expect(renderCommand(deps).run(['--deployment', deployment, '--out', 'tree'], io)).rejects.toThrow(
      'exit 130',
    );
    expect(lockAfterInterrupt).toBe(false);
    expect(state.stderr).toMatch(/^render: interrupted \(Ctrl\+C\); released the lock of /);
  });
});

describe('file-system refusals while writing the tree are administrator mistakes (exit 1), not internal errors', () => {
  const errno = (code: string, p = '/opt/qwen-managed/bin') =>
    Object.assign(new Error(code), { code, path: p });
  it.each([
    [
      'EACCES',
      /^render: cannot write \/opt\/qwen-managed\/bin \(EACCES: permission denied\); nothing was rendered into \/opt\/qwen-managed\. Fix: run render as the user that owns/,
    ],
    ['EPERM', /^render: cannot write \/opt\/qwen-managed\/bin \(EPERM: permission denied\)/],
    ['EROFS', /^render: cannot write \/opt\/qwen-managed\/bin \(EROFS: read-only file system\)/],
    [
      'ENOTDIR',
      /^render: installDir \/opt\/qwen-managed is not a directory \(\/opt\/qwen-managed\/bin is an existing file\)/,
    ],
    [
      'ENOSPC',
      /^render: no space left writing \/opt\/qwen-managed\/bin \(ENOSPC\); manifest\.json was not updated/,
    ],
  ])('%s', (code, message) => {
    const refusal = writeRefusal(errno(code), '/opt/qwen-managed', false);
    expect(refusal).toBeInstanceOf(InputError);
    expect(refusal?.message).toMatch(message);
  });

  it.each(['EIO', 'EBADF'])('%s stays an internal error (a real bug or a broken disk)', (code) => {
    expect(writeRefusal(errno(code), '/opt/qwen-managed', false)).toBeUndefined();
    expect(writeRefusal(new Error('no code'), '/opt/qwen-managed', false)).toBeUndefined();
  });
});

describe('file-system refusals no lower layer explained: exit 1, one line naming the path and the fix', () => {
  const errno = (code: string) =>
    Object.assign(new Error(code), { code, path: '/opt/qwen-managed/x', syscall: 'rename' });
  it.each([
    ['ENAMETOOLONG', 'file name too long', 'use a shorter path'],
    ['EXDEV', 'cross-device link not permitted', 'keep the path on one file system'],
    ['EMLINK', 'too many links', 'free directory entries or choose another location'],
  ])('%s', (code, text, fix) => {
    const refusal = fileSystemRefusal('render', errno(code));
    expect(refusal).toBeInstanceOf(InputError);
    expect(refusal?.message).toMatch(
      new RegExp(`^render: cannot rename /opt/qwen-managed/x \\(${code}: ${text}\\)\\. Fix: ${fix}`),
    );
  });

  // Negative control (by hand): without ENAMETOOLONG in FS_TEXT this printed
  // "qwen-managed: internal error: ENAMETOOLONG: name too long, mkdir …" and exited 70.
  it('render into a 5000-character --out exits 1 naming the path, not "internal error"', async () => {
    const { root, out, cli } = await setup();
    const deployment = path.join(REPO, 'examples', 'deployments', 'on-demand.json');
    const long = 'a'.repeat(5000);
    expect(await cli(['render', '--deployment', deployment, '--out', long])).toBe(1);
    const lines = out.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^qwen-managed: render: cannot \w+ \/.*a{5000}.* \(ENAMETOOLONG: file name too long\)\. Fix: use a shorter path$/,
    );
    expect(lines[0]).toContain(path.join(root, long));
    expect(await fs.readdir(root)).toEqual(['runtime']);
  });
});
