import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_CONTEXT_HOOKS } from '../../../src/contracts/names.js';
import { removeHooksFromText, removeHooksFromValue } from '../../../src/deploy/jsonc/remove-hooks.js';
import { JsoncError, parseJsonc } from '../../../src/text/jsonc.js';

describe('parseJsonc', () => {
  it('reads comments, trailing commas and a BOM; values follow JSON.parse', () => {
    const text =
      '\ufeff{\n  // line\n  "a": [1, 2,], /* block */ "b": {"c": "x\\"y",},\n  "a": "last wins",\n}';
    expect(parseJsonc(text).value).toEqual({ a: 'last wins', b: { c: 'x"y' } });
  });

  it('keeps "__proto__" as an own key, like JSON.parse', () => {
    const value = parseJsonc('{"__proto__": {"polluted": true}}').value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['{"a": 1', /expected "," or "}" at line 1, column 8/],
    ['{"a": tru}', /unexpected character at line 1, column 7/],
    ['{\n  "a": 1\n} x', /unexpected text after the value at line 3, column 3/],
    ['{/* open', /unterminated comment/],
  ])('refuses %j with a position', (text, error) => {
    expect(() => parseJsonc(text)).toThrow(JsoncError);
    expect(() => parseJsonc(text)).toThrow(error);
  });
});

describe('parseJsonc strings ≡ JSON.parse (differential)', () => {
  const accepts = (parse: (t: string) => unknown, text: string) => {
    try {
      return { ok: true, value: parse(text) };
    } catch {
      return { ok: false };
    }
  };
  const jsonc = (t: string) => parseJsonc(t).value;

  it('for random string bodies (escapes, control characters, lone surrogates) and JSON values', () => {
    const body = fc.array(
      fc.oneof(
        fc.string({ unit: 'binary' }),
        fc.constantFrom('\\', '\\"', '\\u00e9', '\\u12', '\\x', '\\n', '\n', '"', '\ud800'),
      ),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(body, (parts) => {
        const text = `"${parts.join('')}"`;
        expect(accepts(jsonc, text)).toEqual(accepts(JSON.parse, text));
        expect(accepts(jsonc, `{${text}: 1}`)).toEqual(accepts(JSON.parse, `{${text}: 1}`));
      }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(jsonc(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  // Negative control (by hand): with the former `"(?:[^"\\…]|\\(…))*"` regex this threw RangeError
  // "Maximum call stack size exceeded" (an internal error, exit 70, in render, verify and rollback).
  it('reads a 10,000,000-character string value (a scan: no regex backtracking stack)', () => {
    const long = 'x'.repeat(10_000_000);
    const escaped = '\\n'.repeat(1_000_000);
    const value = parseJsonc(`{"a": "${long}", "b": "${escaped}"}`).value as Record<string, string>;
    expect(value.a!.length).toBe(10_000_000);
    expect(value.b).toBe('\n'.repeat(1_000_000));
  });
});

const autoRecall = (extra = '') =>
  `{"type": "command", "command": "exec '/n' '/r/auto-recall.js'", "timeout": 8000, "name": "external-context-auto-recall"${extra}}`;
const foreign = `{"type": "command", "command": "echo hi", "name": "my-own-hook"}`;

describe('removeHooksFromText: surgical, keeps everything else', () => {
  it.each([
    [
      'the only hook: group and event go, hooks becomes {}',
      `{\n  "model": {"name": "m"},\n  "hooks": {\n    "UserPromptSubmit": [\n      {"matcher": "*", "hooks": [${autoRecall()}]}\n    ]\n  },\n  "$version": 4\n}\n`,
      `{\n  "model": {"name": "m"},\n  "hooks": {},\n  "$version": 4\n}\n`,
    ],
    [
      'a foreign hook in the same group survives byte for byte',
      `{"hooks": {"UserPromptSubmit": [{"matcher": "*", "hooks": [${autoRecall()}, ${foreign}]}]}}`,
      `{"hooks": {"UserPromptSubmit": [{"matcher": "*", "hooks": [${foreign}]}]}}`,
    ],
    [
      'a foreign hook before it, and a comment, survive',
      `{"hooks": {"UserPromptSubmit": [\n  // mine\n  {"hooks": [${foreign}]},\n  {"matcher": "*", "hooks": [${autoRecall()}]}\n]}}`,
      `{"hooks": {"UserPromptSubmit": [\n  // mine\n  {"hooks": [${foreign}]}\n]}}`,
    ],
    [
      'another event survives; JSONC trailing commas are fine',
      `{\n  "hooks": {\n    "UserPromptSubmit": [{"hooks": [${autoRecall()},]},],\n    "Stop": [{"hooks": [${foreign}]}],\n  },\n}`,
      `{\n  "hooks": {\n    "Stop": [{"hooks": [${foreign}]}],\n  },\n}`,
    ],
  ])('%s', (_name, before, after) => {
    const result = removeHooksFromText(before, EXTERNAL_CONTEXT_HOOKS);
    expect(result.text).toBe(after);
    expect(result.removed).toEqual([{ event: 'UserPromptSubmit', name: 'external-context-auto-recall' }]);
  });

  it('changes nothing (same text) when no managed hook is present, and is idempotent', () => {
    const text = `{\n  // keep\n  "hooks": {"Stop": [{"hooks": [${foreign}]}]},\n}`;
    expect(removeHooksFromText(text, EXTERNAL_CONTEXT_HOOKS)).toEqual({ text, removed: [] });
    const once = removeHooksFromText(
      `{"hooks": {"UserPromptSubmit": [{"hooks": [${autoRecall()}]}]}}`,
      EXTERNAL_CONTEXT_HOOKS,
    ).text;
    expect(removeHooksFromText(once, EXTERNAL_CONTEXT_HOOKS)).toEqual({ text: once, removed: [] });
  });

  it('edits only the effective (last) duplicate "hooks" key, as JSON.parse reads it', () => {
    const text = `{"hooks": {"UserPromptSubmit": [{"hooks": [${autoRecall()}]}]}, "hooks": {"UserPromptSubmit": [{"hooks": [${autoRecall()}]}]}}`;
    const result = removeHooksFromText(text, EXTERNAL_CONTEXT_HOOKS);
    expect(JSON.parse(result.text)).toEqual({ hooks: {} });
    expect(result.text.startsWith(`{"hooks": {"UserPromptSubmit": [{"hooks": [${autoRecall()}]}]}, `)).toBe(
      true,
    );
  });
});

// Random settings documents: hooks of managed and foreign names in random groups and events,
// unrelated keys, random indentation; the surgical edit must mean exactly the object-level removal.
const hookName = fc.constantFrom(
  'external-context-auto-recall',
  'external-context-memory-write-confirmation',
  'managed-approval-guard',
  'mine',
  'theirs',
);
const hookEntry = fc.record({
  type: fc.constant('command'),
  command: fc.string(),
  name: hookName,
  timeout: fc.integer({ min: 1, max: 9000 }),
});
const group = fc.record(
  { matcher: fc.constantFrom('*', 'Bash', undefined), hooks: fc.array(hookEntry, { maxLength: 4 }) },
  { requiredKeys: ['hooks'] },
);
const settings = fc.record({
  $version: fc.constant(4),
  model: fc.record({ name: fc.string() }),
  hooks: fc.dictionary(
    fc.constantFrom('UserPromptSubmit', 'PreToolUse', 'Stop', 'SessionStart'),
    fc.array(group, { maxLength: 4 }),
  ),
  ui: fc.jsonValue(),
});

describe('removeHooksFromText ≡ removeHooksFromValue (property)', () => {
  it('for random settings, names and indentation', () => {
    fc.assert(
      fc.property(
        settings,
        fc.subarray([
          'external-context-auto-recall',
          'external-context-memory-write-confirmation',
          'managed-approval-guard',
        ]),
        fc.constantFrom(0, 2, 4, '\t'),
        (doc, names, indent) => {
          const value = JSON.parse(JSON.stringify(doc));
          const text = JSON.stringify(value, null, indent);
          const result = removeHooksFromText(text, names);
          expect(JSON.parse(result.text)).toEqual(removeHooksFromValue(value, names).value);
          // Nothing else moved: every unrelated top-level value is unchanged.
          expect(JSON.parse(result.text).ui).toEqual(value.ui);
          expect(removeHooksFromText(result.text, names).removed).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
