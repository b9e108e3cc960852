import { describe, expect, it } from 'vitest';
import { parseGenericSearchResponse } from '../../../src/providers/generic-http.js';
import { clampLimit, normaliseItem, normaliseItems } from '../../../src/providers/items.js';
import type { ContextItem } from '../../../src/providers/types.js';

const contentField = (item: Record<string, unknown>) =>
  typeof item['content'] === 'string' ? (item['content'] as string) : undefined;

describe('normaliseItem', () => {
  it.each<[string, unknown, ContextItem | undefined]>([
    ['minimal item', { id: 'a', content: 'text' }, { id: 'a', content: 'text' }],
    [
      'every optional field, well-typed',
      { id: 'a', content: 'c', title: 't', uri: 'u', updated_at: '2026-07-23T00:00:00Z', score: 0.82 },
      { id: 'a', content: 'c', title: 't', uri: 'u', updatedAt: '2026-07-23T00:00:00Z', score: 0.82 },
    ],
    [
      'updatedAt used when updated_at is absent',
      { id: 'a', content: 'c', updatedAt: 'x' },
      { id: 'a', content: 'c', updatedAt: 'x' },
    ],
    [
      'updated_at wins over updatedAt',
      { id: 'a', content: 'c', updated_at: 'snake', updatedAt: 'camel' },
      {
        id: 'a',
        content: 'c',
        updatedAt: 'snake',
      },
    ],
    [
      'mistyped updated_at falls back to updatedAt',
      { id: 'a', content: 'c', updated_at: 5, updatedAt: 'camel' },
      {
        id: 'a',
        content: 'c',
        updatedAt: 'camel',
      },
    ],
    [
      'an empty updated_at is "no value", as upstream reads it: updatedAt is not consulted',
      { id: 'a', content: 'c', updated_at: '', updatedAt: 'camel' },
      { id: 'a', content: 'c' },
    ],
    [
      'mistyped optional fields are dropped, not coerced',
      { id: 'a', content: 'c', title: 1, uri: ['u'], updated_at: null, score: '0.9' },
      { id: 'a', content: 'c' },
    ],
    [
      'non-finite score dropped',
      { id: 'a', content: 'c', score: Number.POSITIVE_INFINITY },
      { id: 'a', content: 'c' },
    ],
    ['NaN score dropped', { id: 'a', content: 'c', score: Number.NaN }, { id: 'a', content: 'c' }],
    [
      'zero and negative scores kept',
      { id: 'a', content: 'c', score: -0.5 },
      { id: 'a', content: 'c', score: -0.5 },
    ],
    [
      'empty optional strings omitted',
      { id: 'a', content: 'c', title: '', uri: '' },
      { id: 'a', content: 'c' },
    ],
    [
      'unknown keys ignored',
      { id: 'a', content: 'c', metadata: { x: 1 }, hash: 'h' },
      { id: 'a', content: 'c' },
    ],
    ['numeric id', { id: 7, content: 'c' }, undefined],
    ['empty id', { id: '', content: 'c' }, undefined],
    ['missing content', { id: 'a' }, undefined],
    ['empty content', { id: 'a', content: '' }, undefined],
    ['non-string content', { id: 'a', content: { text: 'c' } }, undefined],
    ['array item', ['a', 'c'], undefined],
    ['null item', null, undefined],
    ['string item', 'a', undefined],
  ])('%s', (_label, raw, expected) => {
    expect(normaliseItem(raw, contentField)).toEqual(expected);
  });
});

describe('normaliseItems', () => {
  const valid = (n: number) => ({ id: `id-${n}`, content: `c-${n}` });

  it('drops bad items one by one and keeps the first 5 valid ones in provider order', () => {
    const raw = [valid(1), { id: '' }, valid(2), null, valid(3), valid(4), 'x', valid(5), valid(6), valid(7)];
    expect(normaliseItems(raw, 5, contentField).map((i) => i.id)).toEqual([
      'id-1',
      'id-2',
      'id-3',
      'id-4',
      'id-5',
    ]);
  });

  it.each([
    [3, ['id-1', 'id-2', 'id-3']],
    [50, ['id-1', 'id-2', 'id-3', 'id-4', 'id-5']],
  ])('keeps at most min(limit, 5): limit %i', (limit, ids) => {
    const raw = [1, 2, 3, 4, 5, 6, 7].map(valid);
    expect(normaliseItems(raw, limit, contentField).map((i) => i.id)).toEqual(ids);
  });

  it.each([
    [5, 5],
    [3, 3],
    [7, 5],
    [0, 1],
    [-2, 1],
    [2.9, 2],
    [Number.NaN, 5],
  ])('clampLimit(%d) = %i', (limit, expected) => {
    expect(clampLimit(limit)).toBe(expected);
  });
});

describe('Generic HTTP response shape', () => {
  it.each<[string, unknown]>([
    ['array root', []],
    ['null', null],
    ['string', 'items'],
    ['no items', { results: [] }],
    ['items not an array', { items: { 0: { id: 'a', content: 'c' } } }],
  ])('%s fails the search', (_label, answer) => {
    expect(() => parseGenericSearchResponse(answer, 5)).toThrow('The provider response is invalid.');
  });

  it('accepts an empty items array', () => {
    expect(parseGenericSearchResponse({ items: [] }, 5)).toEqual([]);
  });
});
