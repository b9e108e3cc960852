// The package suite's claim on this machine: which install an interrupted run left is the only one it
// removes unasked (test/fleet/deb.test.ts).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claim, claimState, release } from './machine-claim.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-claim-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The start time /proc gives this process, to forge claims that differ only in pid or start. */
function ownStart(): string {
  const stat = fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** A pid that has exited: a child that ran and was reaped. */
const gonePid = spawnSync('true').pid;

describe('claimState', () => {
  it.each([
    ['no claim file', undefined, { state: 'free' }],
    ['a torn claim file', '{"pid":', { state: 'free' }],
    ['a claim without a start time', JSON.stringify({ pid: process.pid }), { state: 'free' }],
    [
      'this live process',
      JSON.stringify({ pid: process.pid, started: ownStart() }),
      { state: 'running', pid: process.pid },
    ],
    [
      'a process that exited',
      JSON.stringify({ pid: gonePid, started: ownStart() }),
      { state: 'interrupted', pid: gonePid },
    ],
    // The pid alone is not the process: a reused pid with another start time is an interrupted run.
    [
      'a pid now reused by another process',
      JSON.stringify({ pid: process.pid, started: '1' }),
      { state: 'interrupted', pid: process.pid },
    ],
  ])('%s', (_, content, expected) => {
    const file = path.join(dir, `claim-${Math.random().toString(36).slice(2)}.json`);
    if (content !== undefined) fs.writeFileSync(file, content);
    expect(claimState(file)).toEqual(expected);
  });

  it('claim then release: running for this process, then free, with no temporary file left', () => {
    const file = path.join(dir, 'cycle.json');
    claim(file);
    expect(claimState(file)).toEqual({ state: 'running', pid: process.pid });
    release(file);
    expect(claimState(file)).toEqual({ state: 'free' });
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('cycle'))).toEqual([]);
  });
});
