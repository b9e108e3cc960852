import { describe, expect, it } from 'vitest';
import { createSlugger, headingText, slugify } from '../../../src/serve/slug.js';

describe('slugify', () => {
  it.each([
    ['Deployment process', 'deployment-process'],
    ['Rolling back a migration', 'rolling-back-a-migration'],
    ['Timeline (Europe/Berlin)', 'timeline-europeberlin'],
    ['API v2: what changed?', 'api-v2-what-changed'],
    ['snake_case stays', 'snake_case-stays'],
    ['Already-hyphenated  words', 'already-hyphenated--words'],
    ['部署流程', '部署流程'],
    ['部署 流程 (概览)', '部署-流程-概览'],
    ['Überblick & Änderungen', 'überblick--änderungen'],
    ['!!!', ''],
  ])('%j → %j', (heading, slug) => {
    expect(slugify(heading)).toBe(slug);
  });
});

describe('headingText', () => {
  it.each([
    ['The `deploy` command', 'The deploy command'],
    ['See [the guide](https://example.com/guide)', 'See the guide'],
    ['**Bold** and *italic* and ~~gone~~', 'Bold and italic and gone'],
    ['  spaced   out  ', 'spaced out'],
  ])('%j → %j', (raw, text) => {
    expect(headingText(raw)).toBe(text);
  });
});

describe('createSlugger', () => {
  it('numbers repeated slugs -1, -2, … like GitHub', () => {
    const slug = createSlugger();
    expect(['Setup', 'Setup', 'Setup', 'Setup-1', 'Setup 1'].map(slug)).toEqual([
      'setup',
      'setup-1',
      'setup-2',
      'setup-1-1',
      'setup-1-2',
    ]);
  });

  it('gives a heading without slug characters a word, never the empty anchor', () => {
    const slug = createSlugger();
    expect(['!!!', '???'].map(slug)).toEqual(['section', 'section-1']);
  });

  it('keeps counters per slugger (per document)', () => {
    const first = createSlugger();
    const second = createSlugger();
    expect([first('Notes'), second('Notes')]).toEqual(['notes', 'notes']);
  });
});
