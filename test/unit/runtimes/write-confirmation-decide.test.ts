import { describe, expect, it } from 'vitest';
import { hiddenContentReason, tooLongToConfirmReason } from '../../../src/context/memory-content.js';
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

describe('content a terminal could draw otherwise is refused before any question, naming its code points', () => {
  it.each<[string, string, number[]]>([
    [
      'a payload spelled in variation selectors after innocent text',
      'Deploys are fine.\ufe01\ufe02\u{E0100}\u{E0141}',
      [0xfe01, 0xfe02, 0xe0100, 0xe0141],
    ],
    ['tag characters (ASCII smuggling)', 'ok\u{E0001}\u{E0049}\u{E0047}', [0xe0001, 0xe0049, 0xe0047]],
    ['bidi override', 'safe \u202e txt.exe', [0x202e]],
    ['isolates', '\u2066a\u2067b\u2068c\u2069', [0x2066, 0x2067, 0x2068, 0x2069]],
    ['zero-width', 'a\u200bb\u200cc\u200dd\ufeff', [0x200b, 0x200c, 0x200d, 0xfeff]],
    ['astral Cf', 'x\u{110bd}y', [0x110bd]],
    ['C1 controls and DEL', 'a\u0085b\u009bc\u007f', [0x85, 0x9b, 0x7f]],
    ['a carriage return (it would overwrite the line on a terminal)', 'SECRET\rvisible', [0x0d]],
    ['an escape sequence', 'a\u001b[2Kb', [0x1b]],
    ['line and paragraph separators', 'a\u2028b\u2029c', [0x2028, 0x2029]],
    ['Hangul and braille fillers', 'x\u3164\u115f\u1160\u2800', [0x3164, 0x115f, 0x1160, 0x2800]],
    ['the combining grapheme joiner', 'a\u034fb', [0x034f]],
    ['private use', 'icon \ue0a0', [0xe0a0]],
  ])('%s', (_name, content, codePoints) => {
    for (const mode of ['default', 'yolo', 'plan']) {
      expect(decideWriteConfirmation(event({ permission_mode: mode, tool_input: { content } }))).toEqual(
        deny(hiddenContentReason(codePoints)),
      );
    }
  });

  it('names the code points in plain ASCII', () => {
    expect(hiddenContentReason([0xfe0f, 0xe0041])).toBe(
      'the memory content holds code points a terminal may draw as nothing or as something else (U+FE0F, U+E0041), so the text shown for approval would not be what is stored; nothing was stored: write it without them',
    );
  });
});

describe('content whose question an 80 × 24 terminal would show only in part is refused before any question', () => {
  // Qwen 0.24.4 gives the question 13 rows there and hides the rest behind "... last N lines
  // hidden ..." with "Yes" preselected (measured): a payload after a benign start would go unseen.
  it.each<[string, string, unknown]>([
    ['638 code points in one word: 12 rows', 'a'.repeat(638), ask(`"${'a'.repeat(638)}"`)],
    ['639: a 13th row', 'a'.repeat(639), deny(tooLongToConfirmReason(13))],
    ['318 wide characters: 12 rows', '部'.repeat(318), ask(`"${'部'.repeat(318)}"`)],
    ['319 wide characters', '部'.repeat(319), deny(tooLongToConfirmReason(13))],
    ['4000 code points of words', 'ok '.repeat(1333) + 'x', deny(tooLongToConfirmReason(66))],
  ])('%s', (_name, content, expected) => {
    for (const mode of ['default', 'yolo']) {
      expect(decideWriteConfirmation(event({ permission_mode: mode, tool_input: { content } }))).toEqual(
        expected,
      );
    }
  });

  it('says why in plain words, never the content', () => {
    expect(tooLongToConfirmReason(13)).toBe(
      'the memory content needs 13 rows of the confirmation at 64 columns, more than the 12 an 80x24 terminal shows in full, so the user could approve text they did not see; nothing was stored: store it as shorter memories',
    );
  });
});

describe('the ask reason shows the exact content', () => {
  it.each<[string, string]>([
    ['markdown', '**Approve** [link](https://evil.example) `code`\n# heading'],
    ['html', '<script>alert(1)</script><b>bold</b>'],
    ['newlines and quotes', 'line 1\nline "2"\n\ttab \\ backslash'],
    ['accents, CJK, emoji, no-break spaces', 'café\u0301 部署 😀\u00a0\u3000'],
  ])('%s round-trips', (_name, content) => {
    const out = decideWriteConfirmation(event({ tool_input: { content } })) as {
      hookSpecificOutput: { permissionDecisionReason: string };
    };
    const [question, shown, ...rest] = out.hookSpecificOutput.permissionDecisionReason.split('\n');
    expect(question).toBe(ASK_QUESTION);
    expect(rest).toEqual([]);
    expect(JSON.parse(shown!)).toBe(content);
  });
});
