// A terminal driver for end-to-end tests: runs a command in a real pseudo-terminal
// (@lydell/node-pty), feeds its output into a headless xterm (@xterm/headless) and lets a test read
// the screen, wait for text, type like a person and press keys. `kill()` leaves no process behind.

import { randomUUID } from 'node:crypto';
import type { IPty } from '@lydell/node-pty';
import { spawn as ptySpawn } from '@lydell/node-pty';
import xtermHeadless from '@xterm/headless';
import type { ProcInfo } from './processes.js';
import { killProcessTree, processesWithMarker } from './processes.js';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

/** Environment variable set in every spawned session so its processes can be found later. */
export const RUN_MARKER_ENV = 'QWEN_E2E_RUN_MARKER';

export const KEYS = {
  Enter: '\r',
  Tab: '\t',
  ShiftTab: '\x1b[Z',
  Escape: '\x1b',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
  Backspace: '\x7f',
  CtrlC: '\x03',
  CtrlD: '\x04',
  CtrlL: '\x0c',
} as const;
export type KeyName = keyof typeof KEYS;

export interface TerminalOptions {
  /** argv[0] is the executable (absolute path, or looked up on the given env's PATH by node-pty). */
  argv: [string, ...string[]];
  /** The complete environment (nothing is inherited). */
  env: Record<string, string>;
  cwd: string;
  cols?: number;
  rows?: number;
  /** Run as this uid/gid (the test process must be root). */
  uid?: number;
  gid?: number;
  /** Scrollback lines kept by the headless terminal. Default 5000. */
  scrollback?: number;
}

export interface WaitOptions {
  /** Search scrollback + screen instead of the visible screen only. */
  includeScrollback?: boolean;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(pattern: string | RegExp): string {
  return typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern);
}

export class TerminalSession {
  readonly marker: string;
  readonly startedAt: number;
  private readonly pty: IPty;
  private readonly term: HeadlessTerminal;
  private raw = '';
  private readonly titleLog: string[] = [];
  private exit: { exitCode: number; signal?: number } | undefined;
  private readonly exitWaiters: Array<() => void> = [];
  private readonly dataWaiters = new Set<() => void>();
  private pendingWrites = 0;
  private killed = false;

  private constructor(options: TerminalOptions) {
    const cols = options.cols ?? 120;
    const rows = options.rows ?? 40;
    this.marker = randomUUID();
    this.term = new Terminal({ cols, rows, scrollback: options.scrollback ?? 5000, allowProposedApi: true });
    const env: Record<string, string> = { ...options.env, [RUN_MARKER_ENV]: this.marker };
    const [file, ...args] = options.argv;
    this.startedAt = Date.now();
    this.pty = ptySpawn(file, args, {
      name: env['TERM'] ?? 'xterm-256color',
      cols,
      rows,
      cwd: options.cwd,
      env,
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.gid !== undefined ? { gid: options.gid } : {}),
    });
    this.pty.onData((data) => {
      this.raw += data;
      this.pendingWrites++;
      this.term.write(data, () => {
        this.pendingWrites--;
        for (const waiter of [...this.dataWaiters]) waiter();
      });
    });
    this.term.onTitleChange((title) => this.titleLog.push(title));
    // Answers to terminal queries (cursor position, device attributes, colours) go back to the app,
    // as a real terminal emulator would send them.
    this.term.onData((data) => {
      if (!this.exit) this.pty.write(data);
    });
    this.pty.onExit((e) => {
      this.exit = e;
      for (const waiter of this.exitWaiters.splice(0)) waiter();
      for (const waiter of [...this.dataWaiters]) waiter();
    });
  }

  static spawn(options: TerminalOptions): TerminalSession {
    return new TerminalSession(options);
  }

  get pid(): number {
    return this.pty.pid;
  }

  get exited(): { exitCode: number; signal?: number } | undefined {
    return this.exit;
  }

  /** Everything the program wrote, escape sequences included. */
  rawOutput(): string {
    return this.raw;
  }

  /** Every window title the program set (OSC 0/2), in order, as the terminal applied them. */
  titles(): string[] {
    return [...this.titleLog];
  }

  /** The visible screen: one string per row, right-trimmed, joined with "\n". */
  screen(): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = buffer.viewportY; y < buffer.viewportY + this.term.rows; y++) {
      lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    }
    return lines.join('\n').replace(/\n+$/, '');
  }

  /** Scrollback plus screen. */
  fullText(): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\n+$/, '');
  }

  /** Resolves once every byte received so far has been parsed by the headless terminal. */
  async flush(): Promise<void> {
    while (this.pendingWrites > 0) await new Promise<void>((resolve) => this.term.write('', resolve));
  }

  /**
   * Waits until the screen (or scrollback + screen) matches. Resolves with the matched text; on
   * timeout or exit throws an error that carries the captured screen.
   */
  async waitFor(pattern: string | RegExp, timeoutMs = 15_000, options: WaitOptions = {}): Promise<string> {
    const read = (): string => (options.includeScrollback ? this.fullText() : this.screen());
    const match = (): string | undefined => {
      const text = read();
      if (typeof pattern === 'string') return text.includes(pattern) ? pattern : undefined;
      return pattern.exec(text)?.[0];
    };
    await this.flush();
    const immediate = match();
    if (immediate !== undefined) return immediate;
    return new Promise<string>((resolve, reject) => {
      const finish = (error: Error | undefined, value?: string): void => {
        clearTimeout(timer);
        this.dataWaiters.delete(check);
        if (error) reject(error);
        else resolve(value ?? '');
      };
      const check = (): void => {
        const found = match();
        if (found !== undefined) finish(undefined, found);
        else if (this.exit && this.pendingWrites === 0) {
          finish(
            this.failure(`process exited (code ${this.exit.exitCode}) before ${describe(pattern)} appeared`),
          );
        }
      };
      const timer = setTimeout(
        () => finish(this.failure(`timed out after ${timeoutMs} ms waiting for ${describe(pattern)}`)),
        timeoutMs,
      );
      this.dataWaiters.add(check);
      check();
    });
  }

  /** Waits until `pattern` is no longer on the screen. */
  async waitForGone(pattern: string | RegExp, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.flush();
      const text = this.screen();
      const present = typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
      if (!present) return;
      if (Date.now() > deadline)
        throw this.failure(`timed out after ${timeoutMs} ms waiting for ${describe(pattern)} to go`);
      await sleep(50);
    }
  }

  /**
   * Waits for the process to exit; resolves with its exit code once everything it wrote is parsed, so
   * `screen()` and `fullText()` show its last words (the headless terminal parses asynchronously: read
   * right at the exit, a launcher's one-line refusal was sometimes not on the screen yet).
   */
  async waitForExit(timeoutMs = 15_000): Promise<{ exitCode: number; signal?: number }> {
    if (!this.exit) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(this.failure(`process still running after ${timeoutMs} ms`)),
          timeoutMs,
        );
        this.exitWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.flush();
    return this.exit!;
  }

  /** Writes bytes as they are (no delay). */
  write(data: string): void {
    if (this.exit) throw this.failure('cannot write: the process has exited');
    this.pty.write(data);
  }

  /** Types text one character at a time, like a person. */
  async type(text: string, delayMs = 12): Promise<void> {
    for (const ch of text) {
      this.write(ch);
      await sleep(delayMs);
    }
  }

  /** Presses a named key, `times` times (with a small pause between presses). */
  async press(key: KeyName, times = 1, delayMs = 60): Promise<void> {
    for (let i = 0; i < times; i++) {
      this.write(KEYS[key]);
      await sleep(delayMs);
    }
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.term.resize(cols, rows);
  }

  /** Processes still alive that this session started (found by the environment marker). */
  leftoverProcesses(): ProcInfo[] {
    return processesWithMarker(RUN_MARKER_ENV, this.marker);
  }

  /**
   * Ends the program and everything it started: its process group and session, its descendants,
   * and every process carrying this session's environment marker (detached hook processes, MCP
   * servers). SIGTERM, then SIGKILL. Idempotent.
   */
  async kill(): Promise<void> {
    if (!this.killed) {
      this.killed = true;
      await killProcessTree(this.pty.pid, { marker: { name: RUN_MARKER_ENV, value: this.marker } });
    }
    const deadline = Date.now() + 5000;
    while (!this.exit && Date.now() < deadline) await sleep(20);
  }

  /** An Error whose message includes the current screen. */
  failure(message: string): Error {
    const screen = this.screen();
    return new Error(
      `${message}\n----- screen (${this.term.cols}x${this.term.rows}) -----\n${screen}\n-----`,
    );
  }
}
