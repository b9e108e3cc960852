import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInsideRoot } from '../../../src/runtimes/auto-recall/cwd.js';
import { readAutoRecallEvent } from '../../../src/runtimes/auto-recall/event.js';

const base = {
  session_id: 's',
  transcript_path: '',
  cwd: '/repo',
  hook_event_name: 'UserPromptSubmit',
  timestamp: '2026-11-29T00:00:00Z',
  permission_mode: 'default',
  prompt_id: 'p',
  prompt: 'text as sent to the model',
  submitted_prompt: 'How should deployment work?',
};

describe('provenance', () => {
  it.each<[string, unknown]>([
    ['not an object', 'UserPromptSubmit'],
    ['an array', [base]],
    ['null', null],
    ['another event', { ...base, hook_event_name: 'PreToolUse' }],
    ['continuation without submitted_prompt', { ...base, prompt: '', submitted_prompt: undefined }],
    ['blank submitted_prompt', { ...base, submitted_prompt: '  \n ' }],
    ['submitted_prompt not a string', { ...base, submitted_prompt: ['x'] }],
    ['cwd missing', { ...base, cwd: undefined }],
    ['cwd not a string', { ...base, cwd: 7 }],
  ])('%s → no event', (_name, input) => {
    expect(readAutoRecallEvent(input)).toBeUndefined();
  });

  it('takes submitted_prompt and cwd', () => {
    expect(readAutoRecallEvent(base)).toEqual({
      submittedPrompt: 'How should deployment work?',
      cwd: '/repo',
    });
  });

  it('never reads the legacy prompt field, not even as a fallback', () => {
    const input = { ...base };
    Object.defineProperty(input, 'prompt', {
      enumerable: true,
      get() {
        throw new Error('the legacy prompt field was read');
      },
    });
    expect(readAutoRecallEvent(input)).toEqual({ submittedPrompt: base.submitted_prompt, cwd: '/repo' });
    const { submitted_prompt: _, ...continuation } = base;
    Object.defineProperty(continuation, 'prompt', {
      get() {
        throw new Error('the legacy prompt field was read');
      },
    });
    expect(readAutoRecallEvent(continuation)).toBeUndefined();
  });
});

describe('cwd containment', () => {
  let dir: string;
  let root: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-cwd-')));
    root = path.join(dir, 'repo');
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'repo-other'));
    fs.mkdirSync(path.join(dir, '..repo'), { recursive: true });
    fs.mkdirSync(path.join(root, '..hidden'));
    fs.symlinkSync(path.join(dir, 'repo-other'), path.join(root, 'escape'));
    fs.symlinkSync(path.join(root, 'src'), path.join(dir, 'link-into-repo'));
    fs.writeFileSync(path.join(root, 'file.txt'), 'x');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each<[string, () => string, boolean]>([
    ['the root itself', () => root, true],
    ['a subdirectory', () => path.join(root, 'src', 'deep'), true],
    ['a directory named ..hidden inside', () => path.join(root, '..hidden'), true],
    ['a symlink from outside into the root', () => path.join(dir, 'link-into-repo'), true],
    ['a textual prefix sibling', () => path.join(dir, 'repo-other'), false],
    ['a symlink escaping the root', () => path.join(root, 'escape'), false],
    ['the parent', () => dir, false],
    ['a relative path', () => 'repo', false],
    ['a file inside', () => path.join(root, 'file.txt'), false],
    ['a missing directory', () => path.join(root, 'missing'), false],
    ['dot-dot traversal out', () => path.join(root, 'src', '..', '..', 'repo-other'), false],
  ])('%s → %s', (_name, cwd, expected) => {
    expect(isInsideRoot(cwd(), root)).toBe(expected);
  });
});
