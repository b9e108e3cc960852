// Random stdin through the BUILT hooks (real child processes, so few runs): each answer must be
// exactly what the in-process hook logic answers for the same bytes, with exit 0, empty stderr, at
// most one provider request and no canary in the output. The in-process logic is fuzzed much harder
// in test/unit/reliability/hook-logic-fuzz.test.ts; this proves the bundles behave the same.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideApprovalGuard, parseGuardedModes } from '../../../src/runtimes/approval-guard/decide.js';
import { readAutoRecallEvent } from '../../../src/runtimes/auto-recall/event.js';
import { searchAndRender } from '../../../src/runtimes/auto-recall/search.js';
import { decideWriteConfirmation } from '../../../src/runtimes/write-confirmation/decide.js';
import { parseJson } from '../../../src/startup/stdin.js';
import {
  CONTENT_CANARY,
  CREDENTIAL_NAMES,
  CREDENTIALS,
  canariesIn,
  PROMPT_CANARY,
} from '../../fixtures/canaries.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { KeyedSection } from '../../fixtures/reliability-report.js';
import { runRuntime } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const RUNS = { autoRecall: 20, writeConfirmation: 15, approvalGuard: 15 } as const;
const SUBJECTS = {
  autoRecall: `auto-recall.js × ${RUNS.autoRecall} random stdin inputs (events, arbitrary JSON, raw bytes)`,
  writeConfirmation: `write-confirmation.js × ${RUNS.writeConfirmation} random stdin inputs`,
  approvalGuard: `approval-guard.js × ${RUNS.approvalGuard} random stdin inputs`,
};
const EXPECTED = {
  autoRecall: 'same stdout as the in-process hook logic · exit 0 · stderr empty · ≤ 1 request · no canary',
  writeConfirmation: 'same stdout as decideWriteConfirmation · exit 0 · stderr empty',
  approvalGuard: 'same stdout as decideApprovalGuard (default modes) · exit 0 · stderr empty',
};
const section = new KeyedSection(
  'hooks-built-fuzz',
  'Random stdin (mostly well-formed events, some arbitrary JSON, raw bytes and truncated events) through the ' +
    'built hooks as real child processes, compared with the in-process logic on the same bytes. The auto-recall ' +
    'hook searches a loopback Generic HTTP provider. Seeds are random per run; a failure shows its counterexample.',
  SUBJECTS,
  EXPECTED,
);

let dir: string;
let root: string;
let search: FakeService;
let config: string;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-hook-fuzz-')));
  root = path.join(dir, 'repo');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'elsewhere'));
  search = await startGenericSearch({
    token: CREDENTIALS.CONTEXT_API_TOKEN,
    documents: [
      {
        id: 'd1',
        content: 'Deployment goes through the release train <b>every</b> Tuesday.',
        title: 'Deploys',
      },
      { id: 'd2', content: `${'release notes '.repeat(120)}`, uri: 'kb://notes', score: 0.5 },
      { id: 'd3', content: 'Rollback plans are mandatory 😀 部署', updated_at: '2026-07-23T00:00:00Z' },
      { id: '', content: 'an invalid item is dropped by the provider' },
    ],
  });
  config = path.join(dir, 'config.json');
  writeJsonFile(config, genericAutoRecallConfig(root, search.url, 1500));
});

afterAll(async () => {
  await search.close();
  fs.rmSync(dir, { recursive: true, force: true });
  section.write();
});

const hookEnv = () => ({
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: dir,
  QWEN_EXTERNAL_CONTEXT_CONFIG: config,
  CONTEXT_API_TOKEN: CREDENTIALS.CONTEXT_API_TOKEN,
});

const word = fc.constantFrom(
  'deployment',
  'release',
  'rollback',
  'Tuesday',
  'token:',
  'password=x',
  'Bearer abc.def',
  '```',
  '~~~',
  '\n',
  '\t',
  '😀',
  '部署',
  '<b>',
  PROMPT_CANARY,
  CREDENTIALS.CONTEXT_API_TOKEN,
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM',
);
const prompt = fc.oneof(
  fc.array(word, { maxLength: 12 }).map((w) => w.join(' ')),
  fc.string({ maxLength: 40 }),
);

/** Bytes for a hook's stdin: mostly well-formed events, some arbitrary JSON, some raw or truncated bytes. */
function stdinOf(event: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 8, arbitrary: event.map((e) => Buffer.from(JSON.stringify(e))) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '')) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    {
      weight: 1,
      arbitrary: fc.tuple(event, fc.nat()).map(([e, cut]) => {
        const text = Buffer.from(JSON.stringify(e));
        return text.subarray(0, cut % (text.length + 1));
      }),
    },
  );
}

const anyEvent = fc.record(
  {
    hook_event_name: fc.constantFrom('UserPromptSubmit', 'PreToolUse', ''),
    submitted_prompt: fc.oneof(prompt, fc.constant(undefined), fc.integer()),
    prompt: prompt,
    cwd: fc.constantFrom('<root>', '<root>/sub', '<elsewhere>', 'repo', 42, undefined),
    session_id: fc.string({ maxLength: 8 }),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['hook_event_name'] },
);
/** Events that pass provenance and reach the provider (unless the query sanitizes to nothing). */
const searchingEvent = fc.record({
  session_id: fc.string({ maxLength: 8 }),
  cwd: fc.constantFrom('<root>', '<root>/sub'),
  hook_event_name: fc.constant('UserPromptSubmit'),
  permission_mode: fc.constantFrom('default', 'yolo', 'plan'),
  prompt: prompt,
  submitted_prompt: fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' ')),
});
const autoRecallEvent = fc.oneof(
  { weight: 4, arbitrary: searchingEvent },
  { weight: 1, arbitrary: anyEvent },
);

function withPaths(event: Record<string, unknown>): Record<string, unknown> {
  const cwd = event['cwd'];
  if (typeof cwd !== 'string' || !cwd.startsWith('<')) return event;
  const resolved = cwd.replace('<root>', root).replace('<elsewhere>', path.join(dir, 'elsewhere'));
  return { ...event, cwd: resolved };
}

describe('built hooks answer random stdin exactly like the in-process logic', () => {
  it(SUBJECTS.autoRecall, async () => {
    const details = await fc.check(
      fc.asyncProperty(stdinOf(autoRecallEvent.map(withPaths)), async (stdin) => {
        const event = readAutoRecallEvent(parseJson(stdin));
        const beforeOracle = search.requests.length;
        const expected = event === undefined ? '{}' : await searchAndRender(event, { env: hookEnv() });
        const oracleRequests = search.requests.length - beforeOracle;
        const before = search.requests.length;
        const run = await runRuntime('auto-recall.js', { stdin, env: hookEnv(), cwd: dir });
        const requests = search.requests.length - before;
        expect({ stdout: run.stdout, code: run.code, stderr: run.stderr }).toEqual({
          stdout: expected,
          code: 0,
          stderr: '',
        });
        expect(requests).toBe(oracleRequests);
        expect(requests).toBeLessThanOrEqual(1);
        expect(canariesIn(run.stdout, [...CREDENTIAL_NAMES, 'PROMPT'])).toEqual([]);
        for (const request of search.requests.slice(before)) {
          expect(request.rawBody.toString()).not.toContain(CREDENTIALS.CONTEXT_API_TOKEN);
        }
      }),
      { numRuns: RUNS.autoRecall, interruptAfterTimeLimit: 60_000 },
    );
    section.checkProperty('autoRecall', details);
  }, 90_000);

  const preToolUseEvent = fc.record(
    {
      hook_event_name: fc.constantFrom('PreToolUse', 'PreToolUse', 'PostToolUse'),
      tool_name: fc.constantFrom(
        'mcp__external-context__context_remember',
        'mcp__external-context__context_remember',
        'run_shell_command',
        'mcp__external-context__context_search',
      ),
      permission_mode: fc.oneof(
        fc.constantFrom('default', 'auto', 'auto_edit', 'auto-edit', 'yolo', 'plan', 'bypass'),
        fc.integer(),
      ),
      tool_input: fc.oneof(
        fc.record(
          {
            content: fc.oneof(
              fc.string({ maxLength: 60 }),
              fc.string({ unit: 'binary', maxLength: 30 }),
              fc.constantFrom(
                `Remember ${CONTENT_CANARY}`,
                ' \n ',
                '\u202e\u200b',
                'a\ud800',
                'x'.repeat(4001),
              ),
              fc.integer(),
            ),
            user_id: fc.string({ maxLength: 8 }),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue({ maxDepth: 1 }),
      ),
    },
    { requiredKeys: ['hook_event_name'] },
  );

  it.each([
    [SUBJECTS.writeConfirmation, 'writeConfirmation', 'write-confirmation.js', decideWriteConfirmation],
    [
      SUBJECTS.approvalGuard,
      'approvalGuard',
      'approval-guard.js',
      (input: unknown) => decideApprovalGuard(input, parseGuardedModes(undefined)),
    ],
  ] as const)(
    '%s',
    async (_subject, key, file, decide) => {
      const details = await fc.check(
        fc.asyncProperty(stdinOf(preToolUseEvent), async (stdin) => {
          const expected = JSON.stringify(decide(parseJson(stdin)));
          const run = await runRuntime(file, {
            stdin,
            env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
          });
          expect({ stdout: run.stdout, code: run.code, stderr: run.stderr }).toEqual({
            stdout: expected,
            code: 0,
            stderr: '',
          });
        }),
        { numRuns: RUNS[key], interruptAfterTimeLimit: 60_000 },
      );
      section.checkProperty(key, details);
    },
    90_000,
  );
});
