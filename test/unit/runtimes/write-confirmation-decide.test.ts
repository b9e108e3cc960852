import { describe, expect, it } from 'vitest';
import {
  ASK_QUESTION,
  decideWriteConfirmation,
  REASON_INVALID,
  REASON_MODE,
  REASON_PLAN,
} from '../../../src/runtimes/write-confirmation/decide.js';

const TOOL = 'mcp__external-context__context_remember';
const event = (over: Record<string, unknown> = {}) => ({
  session_id: 's',
  hook_event_name: 'PreToolUse',
  tool_name: TOOL,
  tool_input: { content: 'Deploys need two approvals.' },
  permission_mode: 'default',
  ...over,
});
const deny = (reason: string) => ({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: reason,
  },
});
const ask = (display: string) => ({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'ask',
    permissionDecisionReason: `${ASK_QUESTION}\n${display}`,
  },
});

describe('decision table, in order', () => {
  it.each<[string, unknown, unknown]>([
    ['malformed or oversize input (undefined)', undefined, deny(REASON_INVALID)],
    ['JSON array', [event()], deny(REASON_INVALID)],
    ['JSON string', 'PreToolUse', deny(REASON_INVALID)],
    ['null', null, deny(REASON_INVALID)],
    ['another event', event({ hook_event_name: 'PostToolUse' }), {}],
    ['another tool', event({ tool_name: 'run_shell_command' }), {}],
    ['the search tool', event({ tool_name: 'mcp__external-context__context_search' }), {}],
    ['permission_mode missing', event({ permission_mode: undefined }), deny(REASON_INVALID)],
    ['permission_mode a number', event({ permission_mode: 1 }), deny(REASON_INVALID)],
    ['tool_input missing', event({ tool_input: undefined }), deny(REASON_INVALID)],
    ['tool_input an array', event({ tool_input: ['x'] }), deny(REASON_INVALID)],
    ['content missing', event({ tool_input: {} }), deny(REASON_INVALID)],
    ['content blank', event({ tool_input: { content: ' \n\t' } }), deny(REASON_INVALID)],
    [
      'content only format characters',
      event({ tool_input: { content: '\u200b\u202e' } }),
      deny(REASON_INVALID),
    ],
    ['content 4001 code points', event({ tool_input: { content: 'a'.repeat(4001) } }), deny(REASON_INVALID)],
    ['content with a lone surrogate', event({ tool_input: { content: 'a\ud800b' } }), deny(REASON_INVALID)],
    ['plan mode, even with invalid content', event({ permission_mode: 'plan' }), deny(REASON_PLAN)],
    ['unknown mode', event({ permission_mode: 'bypassPermissions' }), deny(REASON_MODE)],
    ['empty mode', event({ permission_mode: '' }), deny(REASON_MODE)],
  ])('%s', (_name, input, expected) => {
    expect(decideWriteConfirmation(input)).toEqual(expected);
  });

  it.each(['default', 'auto', 'auto_edit', 'auto-edit', 'yolo'])('asks in %s mode', (mode) => {
    expect(decideWriteConfirmation(event({ permission_mode: mode }))).toEqual(
      ask('"Deploys need two approvals."'),
    );
  });

  it('ignores extra tool_input keys', () => {
    const out = decideWriteConfirmation(
      event({ tool_input: { content: 'x', user_id: 'other', metadata: {} } }),
    );
    expect(out).toEqual(ask('"x"'));
  });
});

describe('the ask reason shows the exact content, escaped for display', () => {
  it.each<[string, string]>([
    ['bidi override', 'safe \u202e txt.exe'],
    ['isolates', '\u2066a\u2067b\u2068c\u2069'],
    ['zero-width', 'a\u200bb\u200cc\u200dd\ufeff'],
    ['astral Cf', 'x\u{110bd}y'],
    ['C1 controls', 'a\u0085b\u009bc\u007f'],
    ['line and paragraph separators', 'a\u2028b\u2029c'],
    ['markdown', '**Approve** [link](https://evil.example) `code`\n# heading'],
    ['html', '<script>alert(1)</script><b>bold</b>'],
    ['newlines and quotes', 'line 1\nline "2"\r\n\ttab \\ backslash'],
  ])('%s round-trips', (_name, content) => {
    const out = decideWriteConfirmation(event({ tool_input: { content } })) as {
      hookSpecificOutput: { permissionDecisionReason: string };
    };
    const [question, shown, ...rest] = out.hookSpecificOutput.permissionDecisionReason.split('\n');
    expect(question).toBe(ASK_QUESTION);
    expect(rest).toEqual([]);
    expect(JSON.parse(shown!)).toBe(content);
    // Nothing invisible or line-breaking reaches the terminal unescaped.
    expect(shown).not.toMatch(/[\u007f-\u009f\u2028\u2029\p{Cf}]/u);
  });

  it('escapes astral Cf per UTF-16 unit in lower-case hex', () => {
    const out = decideWriteConfirmation(event({ tool_input: { content: 'a\u{110bd}' } })) as {
      hookSpecificOutput: { permissionDecisionReason: string };
    };
    expect(out.hookSpecificOutput.permissionDecisionReason).toBe(`${ASK_QUESTION}\n"a\\ud804\\udcbd"`);
  });
});
