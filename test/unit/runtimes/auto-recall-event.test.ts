import { describe, expect, it } from 'vitest';
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
