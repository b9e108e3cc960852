import { describe, expect, it } from 'vitest';
import { decodeDirectImport } from '../../../src/providers/mem0/direct-import.js';

const wrap = (messages: unknown) => JSON.stringify(messages);

describe('decodeDirectImport (mem0-v2 only)', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'one user message is unwrapped',
      { infer: false },
      wrap([{ role: 'user', content: 'remember this' }]),
      'remember this',
    ],
    [
      'extra keys on the message are tolerated',
      { infer: false },
      wrap([{ role: 'user', content: 'x', name: 'n' }]),
      'x',
    ],
    [
      'infer true keeps raw',
      { infer: true },
      wrap([{ role: 'user', content: 'x' }]),
      wrap([{ role: 'user', content: 'x' }]),
    ],
    [
      'infer missing keeps raw',
      {},
      wrap([{ role: 'user', content: 'x' }]),
      wrap([{ role: 'user', content: 'x' }]),
    ],
    [
      'infer "false" (string) keeps raw',
      { infer: 'false' },
      wrap([{ role: 'user', content: 'x' }]),
      wrap([{ role: 'user', content: 'x' }]),
    ],
    ['not JSON keeps raw', { infer: false }, 'plain text memory', 'plain text memory'],
    [
      'truncated JSON keeps raw',
      { infer: false },
      '[{"role":"user","content":"x"',
      '[{"role":"user","content":"x"',
    ],
    [
      'two messages keep raw',
      { infer: false },
      wrap([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
      wrap([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    ],
    ['empty array keeps raw', { infer: false }, '[]', '[]'],
    [
      'assistant role keeps raw',
      { infer: false },
      wrap([{ role: 'assistant', content: 'x' }]),
      wrap([{ role: 'assistant', content: 'x' }]),
    ],
    [
      'empty inner content keeps raw',
      { infer: false },
      wrap([{ role: 'user', content: '' }]),
      wrap([{ role: 'user', content: '' }]),
    ],
    [
      'non-string inner content keeps raw',
      { infer: false },
      wrap([{ role: 'user', content: 5 }]),
      wrap([{ role: 'user', content: 5 }]),
    ],
    [
      'object root keeps raw',
      { infer: false },
      wrap({ role: 'user', content: 'x' }),
      wrap({ role: 'user', content: 'x' }),
    ],
    ['array of a string keeps raw', { infer: false }, wrap(['x']), wrap(['x'])],
    ['array of null keeps raw', { infer: false }, '[null]', '[null]'],
  ])('%s', (_label, item, content, expected) => {
    expect(decodeDirectImport(item, content)).toBe(expected);
  });
});
