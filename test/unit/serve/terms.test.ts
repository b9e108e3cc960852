import { describe, expect, it } from 'vitest';
import { processTerm, queryTerms, tokenize } from '../../../src/serve/terms.js';

describe('tokenize', () => {
  it.each([
    ['How should deployment work?', ['How', 'should', 'deployment', 'work']],
    ['billing-api / invoice_worker', ['billing', 'api', 'invoice', 'worker']],
    ['a+b=c $5 | x', ['a', 'b', 'c', '5', 'x']],
    ['line one\nline\ttwo', ['line', 'one', 'line', 'two']],
    ['部署流程', ['部', '署', '流', '程']],
    ['deploy到生产k8s集群', ['deploy', '到', '生', '产', 'k8s', '集', '群']],
    ['デプロイ手順', ['デ', 'プ', 'ロ', 'イ', '手', '順']],
    ['', []],
  ])('%j → %j', (text, words) => {
    expect(tokenize(text)).toEqual(words);
  });
});

describe('processTerm', () => {
  it.each([
    ['Deployment', 'deployment'],
    ['ＡＰＩ', 'api'],
    ['How', null],
    ['should', null],
    ['x', null],
    ['部', '部'],
    ['v2', 'v2'],
  ])('%j → %j', (word, term) => {
    expect(processTerm(word)).toBe(term);
  });
});

describe('queryTerms', () => {
  it('drops stop words and repeats, keeping order', () => {
    expect(queryTerms('How should a deployment work? Deployment!')).toEqual(['deployment', 'work']);
  });

  it('caps the number of distinct terms', () => {
    const query = Array.from({ length: 100 }, (_, i) => `term${i}`).join(' ');
    expect(queryTerms(query, 3)).toEqual(['term0', 'term1', 'term2']);
  });

  it('finds nothing to search in a question made only of stop words', () => {
    expect(queryTerms('how should it be?')).toEqual([]);
  });
});
