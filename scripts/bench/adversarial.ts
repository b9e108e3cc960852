// Worst-case inputs for the pure hot paths: the sanitizer gets 1 MiB adversarial prompts, the renderer
// five items with oversized fields full of characters that need escaping or are astral.
import type { ContextItem } from '../../src/providers/types.js';

const MIB = 1024 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB);

export const SANITIZER_INPUTS: Record<string, string> = {
  'token repeated': 'token'.repeat(200_000),
  'equals signs': fill('='),
  'double quotes': fill('"'),
  'single quotes': fill("'"),
  backticks: fill('`'),
  tildes: fill('~'),
  'a= assignments': fill('a='),
  'Bearer runs': fill('Bearer '),
  'authorization: runs': fill('authorization: '),
  'long token run': fill('A'),
  'dotted segments': fill('abcdefgh.'),
  'unterminated fences': fill('```x'),
  'astral emoji': '😀'.repeat(MIB / 2),
  'api_key= quoted': fill('api_key="'),
  // Word boundaries inside runs (every one a candidate start) and upstream's wider whitespace.
  'word-dash alternation': fill('a-'),
  'dashes and dots': fill('aaaaaaaa-.'),
  'vertical tabs around =': fill('token\v=\v'),
  'Bearer and a line break': fill('Bearer\n'),
};

const hostile = (n: number) => '<😀>&"\u2028'.repeat(n);

export const RENDERER_ITEMS: ContextItem[] = Array.from({ length: 5 }, (_, i) => ({
  id: `${i}-${hostile(200)}`,
  content: hostile(20_000),
  title: hostile(1000),
  uri: `https://kb.example/${hostile(1000)}`,
  updatedAt: hostile(100),
  score: 0.5,
}));
