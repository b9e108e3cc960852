// The launcher's check of OpenClaw's stored sessions (launcher/prepare-openclaw.ts), pure: what the
// reader's output means and which lines refuse a start. The real database and launcher:
// test/integration/launcher/openclaw.test.ts; the real OpenClaw: test/e2e/openclaw/.
import { describe, expect, it } from 'vitest';
import {
  parseSessionStoreOutput,
  type SessionStoreRead,
  sessionStoreRefusals,
} from '../../../launcher/prepare-openclaw.js';
import type { OpenclawLaunchPlan } from '../../../src/contracts/openclaw-launch.js';
import { openclawVersionFacts } from '../../../src/openclaw/versions.js';

const FACTS = openclawVersionFacts('2026.9.6')!;
const STATE = '/home/dev/.local/share/qwen-managed/abc/openclaw-recall/home';
const DATABASE = `${STATE}/agents/main/agent/openclaw-agent.sqlite`;
const NODE = '/opt/node-24/bin/node';
// Only what the check reads: the managed argv's agent and the pinned Node.
const PLAN = {
  node: NODE,
  argv: ['agent', '--local', '--agent', 'main', '--message-file', '/dev/stdin'],
} as OpenclawLaunchPlan;

const file = { isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false };
const directory = { isFile: () => false, isDirectory: () => true, isSymbolicLink: () => false };

function refusals(stat: typeof file | undefined, read: SessionStoreRead) {
  const calls: unknown[][] = [];
  const lines = sessionStoreRefusals(
    STATE,
    PLAN,
    FACTS,
    { lstatSync: ((path: string) => (path === DATABASE ? stat : undefined)) as never },
    (...args) => {
      calls.push(args);
      return read;
    },
  );
  return { lines, calls };
}

describe('parseSessionStoreOutput', () => {
  it.each([
    ['[]', { entries: [] }],
    [
      '[["agent:main:main",{"permissionMode":"full"}]]',
      { entries: [{ key: 'agent:main:main', refused: { permissionMode: 'full' } }] },
    ],
    ['', { error: 'its reader printed no JSON' }],
    ['{"entries":[]}', { error: 'its reader printed something else than entries' }],
    ['[["agent:main:main","full"]]', { error: 'its reader printed something else than entries' }],
    ['[[1,{}]]', { error: 'its reader printed something else than entries' }],
  ])('%j → %j', (stdout, expected) => {
    expect(parseSessionStoreOutput(stdout)).toEqual(expected);
  });
});

describe('sessionStoreRefusals', () => {
  it('reads the managed agent’s database with the pinned Node for the version’s refused keys', () => {
    expect(refusals(file, { entries: [] })).toEqual({
      lines: [],
      calls: [[NODE, DATABASE, ['permissionMode', 'sessionRoot', 'toolOverrides']]],
    });
  });

  it('no database yet (a first start): nothing read, nothing refused', () => {
    expect(refusals(undefined, { entries: [] })).toEqual({ lines: [], calls: [] });
  });

  it.each([
    [
      'a permission mode',
      { entries: [{ key: 'agent:main:main', refused: { permissionMode: 'full' } }] },
      [`"${DATABASE}": the session "agent:main:main" has permissionMode "full": OpenClaw takes`],
    ],
    [
      'a mode and a root, two sessions',
      {
        entries: [
          { key: 'agent:main:main', refused: { permissionMode: 'read-only', sessionRoot: '/' } },
          { key: 'agent:main:other', refused: { sessionRoot: '/tmp' } },
        ],
      },
      [
        `"${DATABASE}": the session "agent:main:main" has permissionMode "read-only": OpenClaw takes`,
        `"${DATABASE}": the session "agent:main:main" has sessionRoot "/": with a permission mode`,
        `"${DATABASE}": the session "agent:main:other" has sessionRoot "/tmp": with a permission mode`,
      ],
    ],
    [
      'a database that cannot be read',
      { error: 'Error: file is not a database' },
      [
        `"${DATABASE}": is OpenClaw's session database for the agent "main", and the launcher could not read it to check its sessions (Error: file is not a database)`,
      ],
    ],
  ] as const)('%s: one line each, naming the database and the fix', (_name, read, starts) => {
    const { lines } = refusals(file, read as SessionStoreRead);
    expect(lines.map((line, i) => line.startsWith(starts[i]!))).toEqual(starts.map(() => true));
    for (const line of lines)
      expect(line).toContain(
        `remove "${DATABASE}" (and its -wal and -shm files) to start a new conversation`,
      );
  });

  it('a database path that is not a regular file refuses without reading it', () => {
    const { lines, calls } = refusals(directory, { entries: [] });
    expect(calls).toEqual([]);
    expect(lines).toEqual([
      `"${DATABASE}": is OpenClaw's session database for the agent "main" but not a regular file, so the launcher cannot check its sessions — remove "${DATABASE}" (and its -wal and -shm files) to start a new conversation`,
    ]);
  });

  it('without a reader (plan) the stored sessions are not read', () => {
    expect(sessionStoreRefusals(STATE, PLAN, FACTS, { lstatSync: (() => file) as never }, undefined)).toEqual(
      [],
    );
  });
});
