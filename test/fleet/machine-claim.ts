// Which run owns this machine's system-wide install. The package suite installs qwen-managed for
// real; a run killed half-way (CI superseded by a newer stop, a developer's Ctrl-C) never reaches
// its clean-up, and the next run would find an install it cannot tell from an administrator's.
// A claim file, outside everything the package owns, says which process installed it.
import * as fs from 'node:fs';

export const CLAIM_FILE = '/var/lib/qwen-managed-fleet-suite.json';

interface Claim {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: with the pid, names one process even after the pid is reused. */
  started: string;
}

function startTime(pid: number): string | undefined {
  try {
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function readClaim(file: string): Claim | undefined {
  try {
    const claim = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Claim>;
    if (typeof claim.pid === 'number' && typeof claim.started === 'string') return claim as Claim;
  } catch {
    // Missing or torn: nobody's claim.
  }
  return undefined;
}

export type ClaimState =
  | { state: 'free' }
  | { state: 'running'; pid: number }
  | { state: 'interrupted'; pid: number };

/** Whether a run of the suite is in progress, was interrupted, or none ever claimed the machine. */
export function claimState(file = CLAIM_FILE): ClaimState {
  const claim = readClaim(file);
  if (claim === undefined) return { state: 'free' };
  return startTime(claim.pid) === claim.started
    ? { state: 'running', pid: claim.pid }
    : { state: 'interrupted', pid: claim.pid };
}

/** Claims the machine for this process, before anything is installed. */
export function claim(file = CLAIM_FILE): void {
  const started = startTime(process.pid);
  if (started === undefined) throw new Error(`cannot read /proc/${process.pid}/stat`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ pid: process.pid, started } satisfies Claim));
  fs.renameSync(`${file}.tmp`, file);
}

/** Gives the machine back, after everything installed is gone. */
export function release(file = CLAIM_FILE): void {
  fs.rmSync(file, { force: true });
}
