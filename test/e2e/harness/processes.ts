// Process bookkeeping on Linux via /proc: find every process a test started (including detached
// hook and MCP-server processes that left the pty's process group) and make sure none survives.

import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Start time in clock ticks since boot (field 22); guards against pid reuse. */
  startTime: string;
  comm: string;
}

export function readProc(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm is in parentheses and may contain spaces or parentheses: split at the last ')'.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat
    .slice(close + 2)
    .trim()
    .split(' ');
  // fields[0] is state (field 3); field N is fields[N - 3].
  const state = fields[0];
  if (state === 'Z' || state === 'X') return undefined;
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    startTime: fields[19] ?? '',
    comm,
  };
}

export function allProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** True when the process's environment contains exactly `name=value`. Unreadable → false. */
export function hasEnvMarker(pid: number, name: string, value: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.toString('utf8').split('\0').includes(`${name}=${value}`);
  } catch {
    return false;
  }
}

/**
 * The process `rootPid`, its descendants, everything in its process group or session, and every
 * process whose environment carries the marker (when given).
 */
export function relatedProcesses(rootPid: number, marker?: { name: string; value: string }): ProcInfo[] {
  const procs = allProcesses();
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const found = new Map<number, ProcInfo>();
  const stack = procs.filter(
    (p) =>
      p.pid === rootPid ||
      p.pgid === rootPid ||
      p.sid === rootPid ||
      (marker !== undefined && p.pid !== process.pid && hasEnvMarker(p.pid, marker.name, marker.value)),
  );
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (found.has(p.pid) || p.pid === process.pid) continue;
    found.set(p.pid, p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return [...found.values()];
}

function stillSame(p: ProcInfo): boolean {
  const now = readProc(p.pid);
  return now !== undefined && now.startTime === p.startTime;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Terminates `rootPid` and everything related to it (see relatedProcesses): SIGTERM first, then
 * SIGKILL after `graceMs`. The set is taken before any signal, so children reparented to init
 * when their parent dies are still tracked. Returns the processes that had to be killed.
 */
export async function killProcessTree(
  rootPid: number,
  options: { marker?: { name: string; value: string }; graceMs?: number } = {},
): Promise<ProcInfo[]> {
  const graceMs = options.graceMs ?? 1500;
  const tracked = new Map<number, ProcInfo>();
  const collect = (): void => {
    for (const p of relatedProcesses(rootPid, options.marker)) if (!tracked.has(p.pid)) tracked.set(p.pid, p);
  };
  collect();
  const initial = [...tracked.values()];
  if (initial.length === 0) return [];
  // Stop the whole set first so nothing forks or reparents while we look.
  for (const p of tracked.values()) signal(p.pid, 'SIGSTOP');
  collect();
  for (const p of tracked.values()) {
    signal(p.pid, 'SIGTERM');
    signal(p.pid, 'SIGCONT');
  }
  signal(-rootPid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (![...tracked.values()].some(stillSame)) return initial;
    await sleep(50);
    collect();
  }
  for (let round = 0; round < 5; round++) {
    collect();
    const alive = [...tracked.values()].filter(stillSame);
    if (alive.length === 0) break;
    for (const p of alive) signal(p.pid, 'SIGKILL');
    await sleep(100);
  }
  return initial;
}

/** Processes (other than this one) whose environment carries the marker. */
export function processesWithMarker(name: string, value: string): ProcInfo[] {
  return allProcesses().filter((p) => p.pid !== process.pid && hasEnvMarker(p.pid, name, value));
}
