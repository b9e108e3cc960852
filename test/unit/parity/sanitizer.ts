// The sanitizer half of the differential suite: classification of one case, the pinned table and
// the input generators. differential.test.ts runs them.
import fc from 'fast-check';
import { sanitizeQuery } from '../../../src/context/sanitizer.js';
import {
  ADDITION_NAMES,
  type Addition,
  render,
  traceAddition,
  traceUpstream,
  union,
  upstreamSanitize,
} from '../../fixtures/upstream-reference/sanitizer.js';

export type Verdict = 'agree' | { allowed: Addition[] } | 'unclassified';

export interface Comparison {
  ours: string | undefined;
  upstream: string | undefined;
  /** What the declared rule gives: upstream's removals ∪ the additions'. */
  declared: string | undefined;
  verdict: Verdict;
}

/**
 * Ours must give exactly the declared query. It then agrees with upstream, or differs through the
 * additions that, each alone on top of upstream, change upstream's query. Anything else is
 * unclassified (and fails).
 */
export function compareSanitizers(
  input: string,
  credential?: string,
  sanitize: (input: string, credential?: string) => string | undefined = sanitizeQuery,
): Comparison {
  const ours = sanitize(input, credential);
  const upstream = upstreamSanitize(input, credential);
  const upstreamTrace = traceUpstream(input, credential);
  // The traced reference must reproduce the plain one, or its removals mean nothing.
  const traced = render(upstreamTrace);
  if (traced !== upstream)
    throw new Error(`reference disagrees with itself: ${JSON.stringify({ input, traced, upstream })}`);
  const additions = ADDITION_NAMES.map((name) => [name, traceAddition(name, input, credential)] as const);
  const declared = render(union(upstreamTrace, ...additions.map(([, trace]) => trace)));
  if (ours !== declared) return { ours, upstream, declared, verdict: 'unclassified' };
  if (declared === upstream) return { ours, upstream, declared, verdict: 'agree' };
  const allowed = additions
    .filter(([, trace]) => render(union(upstreamTrace, trace)) !== upstream)
    .map(([name]) => name);
  // Only a combination of additions explains it: still declared, counted under each.
  return {
    ours,
    upstream,
    declared,
    verdict: { allowed: allowed.length > 0 ? allowed : [...ADDITION_NAMES] },
  };
}

export const CREDENTIAL = 'cfg-Cred-7f3a';

/** A prompt whose credential starts at code point 4090 (after a fence) and so straddles the 4096 cut. */
const straddling = (lead: string) =>
  `ask \`\`\`${'x'.repeat(4079 - lead.length)}\`\`\` ${lead}${CREDENTIAL} tail`;

/**
 * The examples of the issue and the rules' edges: [name, prompt, upstream's query, ours, verdict].
 * `null` stands for "no query".
 */
export const PINNED: [string, string, string | null, string | null, Verdict][] = [
  // Never weaker: upstream's whitespace after `Bearer` and around an assignment's separator.
  ['Bearer, newline, token', 'use Bearer\nabc123def rest', 'use rest', 'use rest', 'agree'],
  ['Bearer, CR LF, token', 'use Bearer\r\nabc123def rest', 'use rest', 'use rest', 'agree'],
  ['Bearer, U+2028, token', 'use Bearer\u2028abc123def rest', 'use rest', 'use rest', 'agree'],
  ['api_key, VT, =, VT, value', 'api_key\v=\vsk-live-77 rest', 'rest', 'rest', 'agree'],
  ['token:, U+2028, value', 'token:\u2028sk-live-77 rest', 'rest', 'rest', 'agree'],
  ['U+FEFF around =', 'password\ufeff=\ufeffhunter2 rest', 'rest', 'rest', 'agree'],
  ['form feed after :', 'secret:\fhunter2 rest', 'rest', 'rest', 'agree'],
  [
    'a line break still ends an assignment',
    'token:\nthe next line',
    'the next line',
    'the next line',
    'agree',
  ],
  // Pass order: the additions never take text from an upstream match or give it more to eat.
  [
    'authorization= before an assignment',
    'authorization=token: secret_value tail',
    'authorization= tail',
    'tail',
    { allowed: ['authorizationAssignment'] },
  ],
  ['an assignment whose value is a header', 'token: Authorization: Bearer abc def', 'def', 'def', 'agree'],
  [
    'a header before prose',
    'Authorization: Bearer abc how do I',
    'Authorization: how do I',
    'how do I',
    { allowed: ['header', 'authorizationAssignment'] },
  ],
  // Never broader: upstream's word boundaries.
  [
    'a run of 40 dashes',
    `before ${'-'.repeat(40)} after`,
    `before ${'-'.repeat(40)} after`,
    `before ${'-'.repeat(40)} after`,
    'agree',
  ],
  ['a run of 4 dashes', 'before ---- after', 'before ---- after', 'before ---- after', 'agree'],
  ['a dash before a JWT', '-aaaaaaaa.bbbbbbbb.cccccccc', '-', '-', 'agree'],
  ['a dash after a JWT', 'aaaaaaaa.bbbbbbbb.cccccccc- x', '- x', '- x', 'agree'],
  ['dashes after a long token', `${'k'.repeat(32)}---- end`, '---- end', '---- end', 'agree'],
  ['dashes inside a long token', `x ${'k'.repeat(16)}--${'k'.repeat(16)} y`, 'x y', 'x y', 'agree'],
  ['xBearer', 'xBearer abc', 'xBearer abc', 'xBearer abc', 'agree'],
  ['my_Bearer', 'my_Bearer abc', 'my_Bearer abc', 'my_Bearer abc', 'agree'],
  ['-Bearer', '-Bearer abc', '-', '-', 'agree'],
  // The declared additions.
  [
    'Authorization: Basic (4a)',
    'Authorization: Basic dXNlcjpwYXNz how do I log in',
    'Authorization: Basic dXNlcjpwYXNz how do I log in',
    'how do I log in',
    { allowed: ['header', 'authorizationAssignment'] },
  ],
  [
    'a quoted JSON header (4a)',
    '"Authorization": "Basic dXNlcjpwYXNz", next',
    '"Authorization": "Basic dXNlcjpwYXNz", next',
    ', next',
    { allowed: ['header', 'authorizationAssignment'] },
  ],
  [
    'authorization as an assignment (5)',
    'proxy_authorization=opaque-value, ok',
    'proxy_authorization=opaque-value, ok',
    ', ok',
    { allowed: ['authorizationAssignment'] },
  ],
  [
    'a credential cut by the 4096 bound (1)',
    straddling('x'),
    'ask xcfg-Cr',
    'ask x',
    { allowed: ['cutCredential'] },
  ],
  // Prose both keep, and the pinned examples of the rules.
  [
    'token budget',
    'token budget: the token limit matters',
    'token budget: the token limit matters',
    'token budget: the token limit matters',
    'agree',
  ],
  [
    'Basic knowledge',
    'Basic knowledge of deploys',
    'Basic knowledge of deploys',
    'Basic knowledge of deploys',
    'agree',
  ],
  [
    'the authorization flow',
    'the authorization flow: OAuth',
    'the authorization flow: OAuth',
    'the authorization flow: OAuth',
    'agree',
  ],
  [
    'export GITHUB_TOKEN',
    "export GITHUB_TOKEN='ghp_x1y2z3' and describe the release flow",
    'export and describe the release flow',
    'export and describe the release flow',
    'agree',
  ],
];

// Generators: prompts built from the pieces the rules look at, so that every rule and its edges
// come up often, plus plain noise.
const oneOf = (...values: string[]) => fc.constantFrom(...values);
const space = oneOf(
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u3000',
  '\u2003',
  '',
);
const quote = oneOf('', '', '"', "'");
const runOf = (units: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...units), minLength: min, maxLength: max });
const valueText = fc.oneof(
  oneOf(
    'hunter2',
    '"a b"',
    "'x y'",
    '"open',
    "'open",
    'sk-live-123',
    '',
    'Bearer abc',
    'Basic dXNlcjpwYXNz',
    'a,b',
    'x;y',
  ),
  runOf('aZ9_-.=/+~"\'', 1, 12),
);
const keyword = oneOf(
  'token',
  'TOKEN',
  'Token',
  'api_key',
  'API-KEY',
  'apikey',
  'ApiKey',
  'password',
  'Secret',
  'authorization',
  'Authorization',
  'auth',
  'key',
  'budget',
  'bearer',
);
const identifier = fc
  .tuple(
    oneOf('', '', 'my_', 'x-', 'db.', 'GITHUB_', '-', '.'),
    keyword,
    oneOf('', '', '_id', 's', '.x', '-1', '_'),
  )
  .map((parts) => parts.join(''));
const assignment = fc
  .tuple(quote, identifier, quote, space, oneOf(':', '=', ':', '=', ' is ', '', '::', ':='), space, valueText)
  .map((parts) => parts.join(''));
const bearer = fc
  .tuple(
    oneOf('', '', 'x', '_', '-', '"', '.', 'é'),
    oneOf('Bearer', 'bearer', 'BEARER', 'Bear', 'bearerx'),
    space,
    space,
    valueText,
  )
  .map((parts) => parts.join(''));
const header = fc
  .tuple(
    oneOf('', '', '"', "'", 'proxy-', 'x', '-'),
    oneOf('Authorization', 'authorization', 'AUTHORIZATION'),
    quote,
    space,
    oneOf(':', '=', ':', ' '),
    space,
    quote,
    oneOf('Bearer', 'Basic', 'Token', 'Digest-Plus', 'b64', '9x', ''),
    space,
    valueText,
    quote,
  )
  .map((parts) => parts.join(''));
const segment = (min: number, max: number) => runOf('aZ9_-', min, max);
const jwt = fc
  .tuple(
    oneOf('', '', '-', '--', 'x', 'é', '.', '_'),
    segment(6, 10),
    oneOf('.', '.', '..', ''),
    segment(6, 10),
    oneOf('.', '.', ''),
    segment(6, 10),
    oneOf('', '', '-', '.', '--', 'x', ' '),
  )
  .map((parts) => parts.join(''));
const longRun = fc
  .tuple(oneOf('', '-', '--', 'x', 'é', ' '), runOf('aB7_-', 28, 40), oneOf('', '-', '--', '.', ' ', 'é'))
  .map((parts) => parts.join(''));
const dashes = runOf('-', 1, 40);
const fence = oneOf('```', '~~~', '``', '`', '~~', '```js\n', '~~~~', '````');
const prose = oneOf(
  'How do I deploy?',
  'the token budget: large',
  'explain basic auth',
  'Basic knowledge',
  'the authorization flow: OAuth',
  'the bearer of bad news',
  '部署策略',
  '😀',
  'é',
);
const credentialPiece = oneOf(CREDENTIAL, CREDENTIAL.slice(0, 4), CREDENTIAL.slice(3), `x${CREDENTIAL}y`);
const noise = fc.oneof(fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 3 }));

const piece = fc.oneof(
  { weight: 4, arbitrary: assignment },
  { weight: 3, arbitrary: bearer },
  { weight: 3, arbitrary: header },
  { weight: 2, arbitrary: jwt },
  { weight: 2, arbitrary: longRun },
  { weight: 1, arbitrary: dashes },
  { weight: 1, arbitrary: fence },
  { weight: 2, arbitrary: prose },
  { weight: 3, arbitrary: space },
  { weight: 1, arbitrary: credentialPiece },
  { weight: 2, arbitrary: noise },
);

/** A prompt of up to 12 pieces, with or without the credential configured. */
export const shortCase = fc.record({
  prompt: fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join('')),
  credential: fc.option(fc.constant(CREDENTIAL), { nil: undefined, freq: 4 }),
});

/**
 * A prompt around the 4096-code-point bound: filler (fenced half the time, so that what follows it is not
 * cut at 512 code points later), then pieces across the cut, the credential often among them.
 */
export const boundCase = fc.record({
  prompt: fc
    .tuple(
      fc.integer({ min: 4040, max: 4095 }),
      fc.boolean(),
      fc.array(fc.oneof(piece, credentialPiece), { minLength: 1, maxLength: 8 }),
    )
    .map(([length, fenced, pieces]) => {
      const filler = fenced
        ? `\`\`\`${'x'.repeat(length - 7)}\`\`\` `
        : 'ab '.repeat(length).slice(0, length);
      return `${filler}${pieces.join('')}`;
    }),
  credential: fc.option(fc.constant(CREDENTIAL), { nil: undefined, freq: 8 }),
});

/**
 * What the sanitizer forwarded before it matched upstream (measured on the previous version):
 * [prompt, its query]. Each must be flagged as unclassified.
 */
export const PRE_FIX_OUTPUTS: [string, string | undefined][] = [
  ['use Bearer\nabc123def rest', 'use Bearer abc123def rest'],
  ['api_key\v=\vsk-live-77 rest', 'api_key = sk-live-77 rest'],
  ['password\ufeff=\ufeffhunter2 rest', 'password = hunter2 rest'],
  ['authorization=token: secret_value tail', 'secret_value tail'],
  ['token: Authorization: Bearer abc def', undefined],
  [`before ${'-'.repeat(40)} after`, 'before after'],
  ['-aaaaaaaa.bbbbbbbb.cccccccc', undefined],
  ['xBearer abc', 'x'],
];
