// Watches /proc for Qwen processes: every process whose command line contains the pinned `cli.js`
// path, polled every few milliseconds while a refusal runs. The launcher `execve`s Qwen in place,
// so a Qwen start shows up as the launcher's own pid switching its cmdline to `… cli.js …`.
// A positive control (a ~100 ms `cli.js --version`) proves the poll is fast enough to see one.
import { readdirSync, readFileSync } from 'node:fs';

export interface SeenProcess {
  pid: number;
  cmdline: string[];
}

function cmdlineOf(pid: string): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw === '' ? undefined : raw.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}

export class QwenProcessWatch {
  readonly seen = new Map<number, SeenProcess>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly qwenCli: string,
    private readonly intervalMs = 3,
  ) {}

  start(): this {
    const poll = (): void => {
      for (const name of readdirSync('/proc')) {
        if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
        const cmdline = cmdlineOf(name);
        if (cmdline?.some((arg) => arg === this.qwenCli)) {
          this.seen.set(Number(name), { pid: Number(name), cmdline });
        }
      }
      this.timer = setTimeout(poll, this.intervalMs);
    };
    poll();
    return this;
  }

  stop(): SeenProcess[] {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return [...this.seen.values()];
  }
}
