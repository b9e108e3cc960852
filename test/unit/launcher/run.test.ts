import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LaunchError } from '../../../launcher/messages.js';
import { childOutcome, type QwenCommand, type RunDeps, runQwen } from '../../../launcher/run.js';

const COMMAND: QwenCommand = {
  node: '/usr/local/bin/node',
  argv: ['/opt/qwen/cli.js', '--extensions', 'none'],
  env: { PATH: '/usr/bin', HOME: '/home/dev' },
  cwd: '/srv/repo',
};

class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly killed: NodeJS.Signals[] = [];
  kill(signal: NodeJS.Signals): boolean {
    this.killed.push(signal);
    return true;
  }
}

function harness(overrides: Partial<RunDeps> = {}) {
  const calls: unknown[][] = [];
  const handlers = new Map<NodeJS.Signals, () => void>();
  const child = new FakeChild();
  const timers: Array<[number, () => void]> = [];
  const deps: RunDeps = {
    platform: 'linux',
    execve: undefined,
    chdir: (dir) => calls.push(['chdir', dir]),
    spawn: (file: string, args: string[], options: SpawnOptions) => {
      calls.push(['spawn', file, args, options]);
      return child as unknown as ChildProcess;
    },
    onSignal: (signal, handler) => handlers.set(signal, handler),
    offSignal: (signal, handler) => {
      if (handlers.get(signal) === handler) handlers.delete(signal);
    },
    raise: (signal) => calls.push(['raise', signal]),
    exit: (code) => calls.push(['exit', code]),
    later: (ms, fn) => timers.push([ms, fn]),
    signalNumber: (signal) => ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGKILL: 9 })[signal as string] ?? 0,
    stderr: (text) => calls.push(['stderr', text]),
    ...overrides,
  };
  return { deps, calls, handlers, child, timers };
}

describe('runQwen with execve', () => {
  it('enters the repository root and replaces the process with the pinned node', () => {
    const execveCalls: unknown[][] = [];
    const h = harness({
      execve: ((file: string, args: string[], env: Record<string, string>) => {
        execveCalls.push([file, args, env]);
      }) as unknown as RunDeps['execve'],
    });
    runQwen(COMMAND, h.deps);
    expect(h.calls).toEqual([['chdir', '/srv/repo']]);
    expect(execveCalls).toEqual([
      [
        '/usr/local/bin/node',
        ['/usr/local/bin/node', '/opt/qwen/cli.js', '--extensions', 'none'],
        COMMAND.env,
      ],
    ]);
    expect(h.handlers.size).toBe(0);
  });

  it('does not use execve on Windows', () => {
    let execveCalls = 0;
    const h = harness({
      platform: 'win32',
      execve: (() => {
        execveCalls++;
      }) as unknown as RunDeps['execve'],
    });
    runQwen(COMMAND, h.deps);
    expect([execveCalls, h.calls.map((c) => c[0])]).toEqual([0, ['chdir', 'spawn']]);
  });

  it('refuses with exit code 1 when the repository root cannot be entered', () => {
    const h = harness({
      chdir: () => {
        throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      },
    });
    let caught: unknown;
    try {
      runQwen(COMMAND, h.deps);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LaunchError);
    expect([(caught as LaunchError).exitCode, (caught as LaunchError).problems]).toEqual([
      1,
      ['cannot enter the repository root "/srv/repo" (ENOENT)'],
    ]);
    expect(h.calls).toEqual([]);
  });
});

describe('runQwen spawn fallback', () => {
  it('spawns the pinned node with inherited stdio, the built env and the repository root', () => {
    const h = harness();
    runQwen(COMMAND, h.deps);
    expect(h.calls).toEqual([
      ['chdir', '/srv/repo'],
      [
        'spawn',
        '/usr/local/bin/node',
        ['/opt/qwen/cli.js', '--extensions', 'none'],
        { cwd: '/srv/repo', env: COMMAND.env, stdio: 'inherit', windowsHide: false },
      ],
    ]);
    expect([...h.handlers.keys()]).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP']);
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('forwards %s to the child', (signal) => {
    const h = harness();
    runQwen(COMMAND, h.deps);
    h.handlers.get(signal)!();
    expect(h.child.killed).toEqual([signal]);
  });

  it('does not signal a child that has already ended', () => {
    const h = harness();
    runQwen(COMMAND, h.deps);
    h.child.exitCode = 0;
    h.handlers.get('SIGTERM')!();
    expect(h.child.killed).toEqual([]);
  });

  it.each([0, 1, 7, 130])('exits with the child code %i and stops forwarding', (code) => {
    const h = harness();
    runQwen(COMMAND, h.deps);
    h.child.emit('exit', code, null);
    expect(h.calls.slice(2)).toEqual([['exit', code]]);
    expect(h.handlers.size).toBe(0);
  });

  it('ends by the signal that ended the child, with 128 + n as the fallback', () => {
    const h = harness();
    runQwen(COMMAND, h.deps);
    h.child.emit('exit', null, 'SIGTERM');
    expect(h.calls.slice(2)).toEqual([['raise', 'SIGTERM']]);
    expect(h.handlers.size).toBe(0);
    expect(h.timers.map(([ms]) => ms)).toEqual([500]);
    h.timers[0]![1]();
    expect(h.calls.slice(3)).toEqual([['exit', 143]]);
  });

  it('reports a child that cannot start, with exit code 1', () => {
    const h = harness();
    runQwen(COMMAND, h.deps);
    h.child.emit('error', Object.assign(new Error('spawn failed'), { code: 'EACCES' }));
    expect(h.calls.slice(2)).toEqual([
      ['stderr', 'launch-qwen: cannot start "/usr/local/bin/node" (EACCES)\n'],
      ['exit', 1],
    ]);
  });
});

describe('childOutcome', () => {
  it.each([
    [0, null, { kind: 'exit', code: 0 }],
    [7, null, { kind: 'exit', code: 7 }],
    [null, 'SIGTERM', { kind: 'signal', signal: 'SIGTERM' }],
    [null, 'SIGKILL', { kind: 'signal', signal: 'SIGKILL' }],
    [null, null, { kind: 'exit', code: 1 }],
  ] as const)('code %s, signal %s → %j', (code, signal, outcome) => {
    expect(childOutcome(code, signal)).toEqual(outcome);
  });
});
