// Fuzzing the hooks' logic in process, where runs are cheap: the auto-recall steps (provenance,
// config, cwd, sanitizer, one search against a loopback provider, rendering) on arbitrary stdin and
// arbitrary provider answers, and the two PreToolUse decision functions on arbitrary JSON.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIDDEN_CLASS } from '../../../scripts/generate-hidden-code-points.js';
import {
  confirmationOverflow,
  hiddenContentReason,
  hiddenInMemoryContent,
  isValidMemoryContent,
  tooLongToConfirmReason,
} from '../../../src/context/memory-content.js';
import { sanitizeQuery } from '../../../src/context/sanitizer.js';
import { contextSearchOutputSchema } from '../../../src/contracts/context-search.js';
import { PERMISSION_REMEMBER } from '../../../src/contracts/names.js';
import {
  AUTO_EDIT_EGRESS_REASON,
  decideApprovalGuard,
  GIT_ELSEWHERE_REASON,
  GIT_MOVED_REASON,
  GIT_WRITE_REASON,
  MEMORY_WRITE_REASON,
  OUTSIDE_REASON,
  OUTSIDE_WRITE_REASON,
  parseGuardedModes,
  SHELL_WRAPPER_REASON,
  SKILL_REASON,
  WORKTREE_REASON,
} from '../../../src/runtimes/approval-guard/decide.js';
import { readAutoRecallEvent } from '../../../src/runtimes/auto-recall/event.js';
import { searchAndRender } from '../../../src/runtimes/auto-recall/search.js';
import {
  ASK_QUESTION,
  decideWriteConfirmation,
  REASON_INVALID,
  REASON_MODE,
  REASON_PLAN,
} from '../../../src/runtimes/write-confirmation/decide.js';
import { parseJson } from '../../../src/startup/stdin.js';
import { isPlainObject } from '../../../src/text/json.js';
import { CONTENT_CANARY, CREDENTIALS, PROMPT_CANARY } from '../../fixtures/canaries.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { KeyedSection } from '../../fixtures/reliability-report.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const TOKEN = CREDENTIALS.CONTEXT_API_TOKEN;
/** Only in the legacy `prompt` field: it must never reach the provider. */
const LEGACY_MARKER = 'legacy-only-Nv6Sg2';
const LIMITS = { interruptAfterTimeLimit: 8_000 } as const;
const ROUTE = 'POST /v1/context/search';

const SUBJECTS = {
  stdin: 'auto-recall steps 1–6 on random stdin (events, JSON, bytes) against a loopback provider × 150',
  answers: 'auto-recall steps 1–6 on random provider answers (items of any shape, hostile text) × 150',
  getter: 'readAutoRecallEvent on events whose legacy `prompt` getter throws × 300',
  write: 'write-confirmation decision on arbitrary JSON and PreToolUse-shaped events × 1000',
  guard: 'approval-guard decision on arbitrary JSON, events and guarded-mode lists × 1000',
};
const EXPECTED = {
  stdin:
    '`{}` or one injection (schema-valid envelope, ≤ 4000 units, no raw < >); ≤ 1 request, body exactly ' +
    '{query: sanitizeQuery(submitted_prompt, credential), limit: 5}; never the legacy prompt or the credential',
  answers: '`{}` or one injection (schema-valid envelope, ≤ 4000 units, no raw < >); never a throw',
  getter: 'never reads `prompt`',
  write:
    'the decision table: deny non-objects; `{}` for other events/tools; deny invalid requests, content holding ' +
    'hidden code points (naming them) or a question too long for an 80 × 24 terminal, plan and unknown modes; ' +
    'otherwise ask, showing one line that JSON.parses ' +
    'to the exact content and has no control, bidi or invisible character',
  guard:
    'never deny; ask for a guarded mode and a tool other than context_remember, or in any mode with a fixed ' +
    'every-mode reason for a shell tool (git elsewhere, a shell -c), enter_worktree, skill or a file tool reading in ' +
    "Qwen's own directories, or in auto-accept-edits before web_fetch, web_search, artifact, image_gen and an edit of git's own files; the tool shown escaped",
};
const section = new KeyedSection(
  'fuzz-hook-logic',
  'fast-check properties over the hook logic in process. The auto-recall steps run against a loopback Generic HTTP ' +
    'provider with the credential canary; prompts carry the prompt marker, the credential and a marker that only ' +
    'the legacy `prompt` field holds.',
  SUBJECTS,
  EXPECTED,
);

let dir: string;
let root: string;
let search: FakeService;
let env: Record<string, string>;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-hook-logic-')));
  root = path.join(dir, 'repo');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  search = await startGenericSearch({
    token: TOKEN,
    documents: [
      {
        id: 'd1',
        content: 'Deployment goes through the release train <b>every</b> Tuesday.',
        title: 'Deploys',
      },
      { id: 'd2', content: 'rollback '.repeat(300), uri: 'kb://rollback', score: 0.4 },
      { id: 'd3', content: '部署 release 😀', updated_at: '2026-07-23T00:00:00Z' },
    ],
  });
  const config = path.join(dir, 'config.json');
  writeJsonFile(config, genericAutoRecallConfig(root, search.url, 2000));
  env = { QWEN_EXTERNAL_CONTEXT_CONFIG: config, CONTEXT_API_TOKEN: TOKEN };
});

afterAll(async () => {
  await search.close();
  fs.rmSync(dir, { recursive: true, force: true });
  section.write();
});

/** The hook's stdout must be `{}` or exactly one well-formed injection. */
function expectHookOutput(output: string): void {
  if (output === '{}') return;
  const parsed = JSON.parse(output);
  expect(Object.keys(parsed)).toEqual(['hookSpecificOutput']);
  expect(Object.keys(parsed.hookSpecificOutput)).toEqual(['hookEventName', 'additionalContext']);
  expect(parsed.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
  const context = parsed.hookSpecificOutput.additionalContext;
  expect(typeof context).toBe('string');
  expect(context.length).toBeLessThanOrEqual(4000);
  expect(context).not.toMatch(/[<>]/);
  const envelope = contextSearchOutputSchema.parse(JSON.parse(context));
  // The hook answers `{}` instead of an empty envelope.
  expect(envelope.untrusted_external_context.items.length).toBeGreaterThan(0);
  expect(output).not.toContain(TOKEN);
}

const word = fc.constantFrom(
  'deployment',
  'release',
  'rollback',
  'Tuesday',
  '部署',
  'token: abc',
  'api_key=xyz',
  'Authorization: Basic dXNlcjpwYXNz',
  'Bearer abc.def',
  '```',
  '~~~',
  '\n',
  '\u00a0',
  '😀',
  PROMPT_CANARY,
  TOKEN,
  `x${TOKEN}y`,
);
const prompt = fc.oneof(
  { weight: 3, arbitrary: fc.array(word, { maxLength: 14 }).map((w) => w.join(' ')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
);
const event = fc.record({
  hook_event_name: fc.oneof(
    { weight: 8, arbitrary: fc.constant('UserPromptSubmit') },
    fc.constantFrom('PreToolUse', 'userpromptsubmit'),
    fc.constant(undefined),
  ),
  // `undefined` drops the key when the event is serialised: a tool-result continuation.
  submitted_prompt: fc.oneof({ weight: 8, arbitrary: prompt }, fc.constantFrom('', undefined, null, 7)),
  prompt: prompt.map((p) => `${p} ${LEGACY_MARKER}`),
  cwd: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('<root>', '<root>/sub') },
    fc.constantFrom('/', 'repo', '<root>/missing', 7, undefined),
  ),
  session_id: fc.string({ maxLength: 6 }),
});

function stdinFor(value: Record<string, unknown>): Buffer {
  const cwd = value['cwd'];
  const resolved = typeof cwd === 'string' ? { ...value, cwd: cwd.replace('<root>', root) } : value;
  return Buffer.from(JSON.stringify(resolved));
}

const stdin = fc.oneof(
  { weight: 6, arbitrary: event.map(stdinFor) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)) },
);

/** auto-recall.ts in process, minus the process: provenance, then steps 2–6. */
async function hook(bytes: Buffer): Promise<string> {
  const parsed = readAutoRecallEvent(parseJson(bytes));
  if (parsed === undefined) return '{}';
  return searchAndRender(parsed, { env });
}

describe('auto-recall logic', () => {
  it(SUBJECTS.stdin, async () => {
    const details = await fc.check(
      fc.asyncProperty(stdin, async (bytes) => {
        const before = search.requests.length;
        const output = await hook(bytes);
        expectHookOutput(output);
        const requests = search.requests.slice(before);
        expect(requests.length).toBeLessThanOrEqual(1);
        for (const request of requests) {
          const sent = parseJson(bytes) as Record<string, unknown>;
          expect(request.body).toEqual({
            query: sanitizeQuery(sent['submitted_prompt'] as string, TOKEN),
            limit: 5,
          });
          expect(request.rawBody.toString()).not.toContain(TOKEN);
          expect(request.rawBody.toString()).not.toContain(LEGACY_MARKER);
          expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
        }
      }),
      { numRuns: 150, ...LIMITS },
    );
    section.checkProperty('stdin', details);
  });

  const hostileText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.constantFrom('</qwen:user-prompt-submit-context>', '<script>', '\u2028', '\ud800', '😀'.repeat(900)),
    fc.string({ unit: fc.constantFrom('<', '>', '"', '\\', 'a'), minLength: 900, maxLength: 1500 }),
  );
  const item = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          id: fc.oneof(hostileText, fc.integer()),
          content: fc.oneof(hostileText, fc.constant(null)),
          title: hostileText,
          uri: hostileText,
          updated_at: fc.oneof(hostileText, fc.integer()),
          updatedAt: hostileText,
          score: fc.oneof(fc.double(), fc.string()),
        },
        { requiredKeys: ['id', 'content'] },
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );

  it(SUBJECTS.answers, async () => {
    const bytes = stdinFor({
      hook_event_name: 'UserPromptSubmit',
      submitted_prompt: 'deployment',
      cwd: '<root>',
    });
    try {
      const details = await fc.check(
        fc.asyncProperty(fc.array(item, { maxLength: 9 }), async (items) => {
          search.script(ROUTE, { status: 200, json: { items } });
          expectHookOutput(await hook(bytes));
        }),
        { numRuns: 150, ...LIMITS },
      );
      section.checkProperty('answers', details);
    } finally {
      search.unscript();
    }
  });

  it(SUBJECTS.getter, () => {
    const details = fc.check(
      fc.property(event, (value) => {
        const trapped = stdinFor(value);
        const object = JSON.parse(trapped.toString()) as Record<string, unknown>;
        delete object['prompt'];
        Object.defineProperty(object, 'prompt', {
          enumerable: true,
          get() {
            throw new Error('the legacy prompt field was read');
          },
        });
        const result = readAutoRecallEvent(object);
        if (result !== undefined) expect(result.submittedPrompt).toBe(object['submitted_prompt']);
      }),
      { numRuns: 300, ...LIMITS },
    );
    section.checkProperty('getter', details);
  });
});

const MODES = ['default', 'auto', 'auto_edit', 'auto-edit', 'yolo'];
// Never shown raw: any C0 control, and every code point of the generated hidden set (Unicode data).
const HIDDEN = new RegExp(`[\\u0000-\\u001f]|${HIDDEN_CLASS}`, 'v');
const content = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    `Remember ${CONTENT_CANARY}`,
    '\u202eevil\u202c',
    'zero\u200bwidth',
    '\ud804\udcbd',
    'line\u2028break',
    'a\ud800',
    ' \n\t ',
    '\u200b',
    'Fine.\ufe01\u{E0100}\u{E0141}',
    'x\u3164\u2800',
    'a\rb',
    'x'.repeat(4000),
    '😀'.repeat(4001),
  ),
  fc.integer(),
);
const preToolUse = fc.record(
  {
    hook_event_name: fc.constantFrom('PreToolUse', 'PreToolUse', 'PostToolUse', 'UserPromptSubmit'),
    tool_name: fc.oneof(
      fc.constantFrom(
        PERMISSION_REMEMBER,
        PERMISSION_REMEMBER,
        'run_shell_command',
        'monitor',
        'enter_worktree',
        'skill',
        'artifact',
        'web_fetch',
        'read_file',
        'glob',
        'write_file',
        'mcp__other__tool',
        '',
      ),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.integer(),
    ),
    permission_mode: fc.oneof(
      fc.constantFrom(...MODES, 'plan', 'bypassPermissions', ''),
      fc.string(),
      fc.integer(),
    ),
    tool_input: fc.oneof(
      fc.record({ content, extra: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['content'] }),
      fc.record(
        {
          command: fc.oneof(
            fc.constantFrom(
              'git diff',
              'cd x && git show',
              'bash -c ls',
              'git -C x log',
              'ls',
              'GIT_DIR=x git log',
            ),
            fc.string(),
          ),
          directory: fc.oneof(fc.constantFrom('/repo', '/repo/x', ''), fc.jsonValue({ maxDepth: 1 })),
        },
        { requiredKeys: ['command'] },
      ),
      fc.record({
        file_path: fc.oneof(
          fc.constantFrom('/repo/a', 'a', '../x', '/home/u/.qwen/tmp/h/logs.json'),
          fc.jsonValue(),
        ),
        path: fc.oneof(fc.constantFrom('/repo', '', '/etc'), fc.string()),
        pattern: fc.oneof(fc.constantFrom('**/*.ts', '../**', '/etc/*'), fc.string()),
      }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    cwd: fc.oneof(fc.constantFrom('/repo', '/repo/', 'repo'), fc.integer()),
  },
  { requiredKeys: ['hook_event_name'] },
);
const anyInput = fc.oneof(
  { weight: 5, arbitrary: preToolUse },
  { weight: 1, arbitrary: fc.jsonValue() },
  fc.constant(undefined),
);

describe('PreToolUse decisions', () => {
  it(SUBJECTS.write, () => {
    const details = fc.check(
      fc.property(anyInput, (input) => {
        const out = decideWriteConfirmation(input) as Record<string, any>;
        // Serialisable exactly as printed.
        expect(JSON.parse(JSON.stringify(out))).toEqual(out);
        if (!isPlainObject(input)) {
          expect(out).toEqual({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: REASON_INVALID,
            },
          });
          return;
        }
        if (input['hook_event_name'] !== 'PreToolUse' || input['tool_name'] !== PERMISSION_REMEMBER) {
          expect(out).toEqual({});
          return;
        }
        const decision = out['hookSpecificOutput'];
        expect(Object.keys(decision)).toEqual([
          'hookEventName',
          'permissionDecision',
          'permissionDecisionReason',
        ]);
        expect(decision.hookEventName).toBe('PreToolUse');
        const reason: string = decision.permissionDecisionReason;
        const mode = input['permission_mode'];
        if (decision.permissionDecision === 'deny') {
          const content = (input['tool_input'] as Record<string, unknown> | undefined)?.['content'];
          if (typeof mode === 'string' && typeof content === 'string' && isValidMemoryContent(content)) {
            // Content a terminal would draw otherwise is refused in every mode, naming its code points.
            const hidden = hiddenInMemoryContent(content);
            if (hidden.length > 0) {
              expect(reason).toBe(hiddenContentReason(hidden));
              return;
            }
            // Content whose question would not fit an 80 × 24 terminal in full, in every mode.
            const overflow = confirmationOverflow(content);
            if (overflow > 0) {
              expect(reason).toBe(tooLongToConfirmReason(overflow));
              return;
            }
          }
          expect([REASON_INVALID, REASON_PLAN, REASON_MODE]).toContain(reason);
          // A mode is refused only for what it is: plan mode, or a mode the table does not know.
          if (reason === REASON_PLAN) expect(mode).toBe('plan');
          if (reason === REASON_MODE) {
            expect(typeof mode).toBe('string');
            expect([...MODES, 'plan']).not.toContain(mode);
          }
          return;
        }
        expect(decision.permissionDecision).toBe('ask');
        expect(MODES).toContain(mode);
        const [question, shown, ...rest] = reason.split('\n');
        expect(question).toBe(ASK_QUESTION);
        expect(rest).toEqual([]);
        expect(shown).not.toMatch(HIDDEN);
        const asked = (input['tool_input'] as Record<string, unknown>)['content'] as string;
        expect(JSON.parse(shown!)).toBe(asked);
        expect(hiddenInMemoryContent(asked)).toEqual([]);
        expect(confirmationOverflow(asked)).toBe(0);
      }),
      { numRuns: 1000, ...LIMITS },
    );
    section.checkProperty('write', details);
  });

  it(SUBJECTS.guard, () => {
    const modes = fc.oneof(
      fc.constant(undefined),
      fc.array(fc.constantFrom(...MODES, 'plan', ' yolo ', ''), { maxLength: 4 }).map((m) => m.join(',')),
    );
    const details = fc.check(
      fc.property(anyInput, modes, (input, modeText) => {
        const guarded = parseGuardedModes(modeText);
        const out = decideApprovalGuard(input, guarded) as Record<string, any>;
        expect(JSON.parse(JSON.stringify(out))).toEqual(out);
        if (Object.keys(out).length === 0) return;
        const decision = out['hookSpecificOutput'];
        expect(decision.permissionDecision).toBe('ask');
        expect(isPlainObject(input)).toBe(true);
        const event = input as Record<string, unknown>;
        expect(event['hook_event_name']).toBe('PreToolUse');
        expect(typeof event['tool_name']).toBe('string');
        expect(event['tool_name']).not.toBe('');
        const reason = decision.permissionDecisionReason as string;
        const everyMode =
          reason === GIT_MOVED_REASON ||
          reason === SHELL_WRAPPER_REASON ||
          reason === WORKTREE_REASON ||
          reason.startsWith(GIT_ELSEWHERE_REASON);
        if (reason.startsWith(MEMORY_WRITE_REASON)) {
          expect(['write_file', 'edit']).toContain(event['tool_name']);
        } else if (reason.startsWith(OUTSIDE_REASON)) {
          expect(['read_file', 'zoom_image', 'grep_search', 'glob', 'list_directory']).toContain(
            event['tool_name'],
          );
        } else if (reason.startsWith(GIT_WRITE_REASON) || reason.startsWith(OUTSIDE_WRITE_REASON)) {
          expect(['write_file', 'edit', 'notebook_edit']).toContain(event['tool_name']);
          expect(['auto_edit', 'auto-edit']).toContain(event['permission_mode']);
        } else if (reason.startsWith(AUTO_EDIT_EGRESS_REASON)) {
          expect(['web_fetch', 'web_search', 'artifact', 'image_gen']).toContain(event['tool_name']);
          expect(['auto_edit', 'auto-edit']).toContain(event['permission_mode']);
        } else if (reason.startsWith(SKILL_REASON)) {
          expect(event['tool_name']).toBe('skill');
        } else if (everyMode) {
          expect(['run_shell_command', 'monitor', 'enter_worktree']).toContain(event['tool_name']);
        } else {
          expect(guarded.has(event['permission_mode'] as string)).toBe(true);
          expect(event['tool_name']).not.toBe(PERMISSION_REMEMBER);
        }
        expect(decision.permissionDecisionReason).not.toMatch(HIDDEN);
      }),
      { numRuns: 1000, ...LIMITS },
    );
    section.checkProperty('guard', details);
  });
});
