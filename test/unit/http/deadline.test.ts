// deadline(ms) stands in for AbortSignal.timeout(ms) in the hooks: it must fire like an 'abort'
// event and, like AbortSignal.timeout, never keep a process alive while it is pending.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadline } from '../../../src/http/deadline.js';
import { ROOT } from '../../fixtures/run-runtime.js';

describe('deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is not aborted one millisecond before ms, and is aborted at ms', () => {
    const signal = deadline(1000);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
  });

  it('calls each listener once, in the order added, when it fires', () => {
    const signal = deadline(50);
    const calls: string[] = [];
    const first = () => calls.push('first');
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', () => calls.push('second'));
    // Added twice, called once: the same rule as EventTarget.
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', () => calls.push('third'), { once: true });
    vi.advanceTimersByTime(49);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(10_000);
    expect(calls).toEqual(['first', 'second', 'third']);
  });

  it('reports aborted to a listener while it runs', () => {
    const signal = deadline(10);
    const seen: boolean[] = [];
    signal.addEventListener('abort', () => seen.push(signal.aborted));
    vi.advanceTimersByTime(10);
    expect(seen).toEqual([true]);
  });

  it('does not call a removed listener, and keeps calling the others', () => {
    const signal = deadline(10);
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    signal.addEventListener('abort', () => calls.push('kept'));
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    // Removing a listener that was never added changes nothing.
    signal.removeEventListener('abort', () => calls.push('never added'));
    vi.advanceTimersByTime(10);
    expect(calls).toEqual(['kept']);
  });

  it('never calls a listener added after it fired, nor one added by a listener while firing', () => {
    const signal = deadline(10);
    const calls: string[] = [];
    signal.addEventListener('abort', () => {
      calls.push('during');
      signal.addEventListener('abort', () => calls.push('added while firing'));
    });
    vi.advanceTimersByTime(10);
    signal.addEventListener('abort', () => calls.push('added after'));
    vi.advanceTimersByTime(10_000);
    expect({ calls, aborted: signal.aborted }).toEqual({ calls: ['during'], aborted: true });
  });

  it('does not call a listener that an earlier listener removed while firing (as AbortSignal)', () => {
    const signal = deadline(10);
    const calls: string[] = [];
    const second = () => calls.push('second');
    signal.addEventListener('abort', () => {
      calls.push('first');
      signal.removeEventListener('abort', second);
    });
    signal.addEventListener('abort', second);
    vi.advanceTimersByTime(10);
    expect(calls).toEqual(['first']);
  });

  it('fires every deadline independently', () => {
    const short = deadline(10);
    const long = deadline(20);
    vi.advanceTimersByTime(10);
    expect([short.aborted, long.aborted]).toEqual([true, false]);
    vi.advanceTimersByTime(10);
    expect([short.aborted, long.aborted]).toEqual([true, true]);
  });
});

describe('deadline in a real process', () => {
  it('does not keep Node alive while a 60 s deadline is pending', async () => {
    // The child creates the deadline, listens to it and returns: only an unref'd timer lets it exit.
    const script = [
      `import { deadline } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/http/deadline.ts')).href)};`,
      'const signal = deadline(60_000);',
      "signal.addEventListener('abort', () => console.log('fired'));",
      "console.log(signal.aborted ? 'aborted' : 'pending');",
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A ref'd timer would hold the child for 60 s: kill it well before (a tsx start on a loaded
    // machine can take seconds), so exit code 0 shows it ended on its own and a hold reports null.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'pending\n', stderr: '' });
  }, 45_000);
});
