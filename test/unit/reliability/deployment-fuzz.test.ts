// Fuzzing the deployment manifest parser with mutations of the shipped examples: every input is
// either a deployment that renders, or a DeploymentInvalid whose problems each name a key, say what
// is wrong and how to fix it — never another exception, never a stack trace.
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDeploymentText } from '../../../src/deploy/deployment/parse.js';
import { DeploymentInvalid } from '../../../src/deploy/deployment/problems.js';
import { renderInstall } from '../../../src/deploy/render/render.js';
import { type Mutation, mutate, mutationArb } from '../../fixtures/json-mutations.js';
import { KeyedSection } from '../../fixtures/reliability-report.js';
import { fakeRuntimes, REPO } from '../deploy/fixtures.js';

const LIMITS = { interruptAfterTimeLimit: 10_000 } as const;
const STACK_FRAME = /\n\s+at |\bat .*\.[cm]?[jt]s:\d+:\d+/;
const TOP = '(top level)';

const SUBJECTS = {
  values:
    'parseDeploymentText: 1–3 structural mutations (delete, set, add, rename) of the shipped example deployments × 500',
  text: 'parseDeploymentText: byte-level mutations of the example files (cuts, inserts, truncation) × 300',
  renders: 'renderInstall on every mutation the parser accepts × 500',
};
const EXPECTED = {
  values:
    'a parsed deployment, or DeploymentInvalid: every problem names its key (or quotes the unknown key), a message and a fix; no other exception, no stack trace',
  text: 'a parsed deployment, or DeploymentInvalid naming a key or the JSON line and column; no other exception',
  renders: 'renders without an exception, deterministic manifest',
};
const section = new KeyedSection(
  'fuzz-deployment',
  'fast-check properties over `deployment.json` parsing, seeded with `examples/deployments/*.json` and ' +
    '`test/fixtures/deploy/all-profiles.json`. Values planted by mutations include hostile paths (`$`, newline, ' +
    'relative, other platform), policy-forbidden variable names, provider blocks of every type and prototype keys.',
  SUBJECTS,
  EXPECTED,
);
afterAll(() => {
  section.write();
});

const SEEDS = [
  ...fs
    .readdirSync(path.join(REPO, 'examples', 'deployments'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(REPO, 'examples', 'deployments', f)),
  path.join(REPO, 'test', 'fixtures', 'deploy', 'all-profiles.json'),
].map((file) => fs.readFileSync(file, 'utf8'));

const interesting = fc.oneof(
  fc.constantFrom<unknown>(
    '/opt/$HOME/x',
    '/opt/with\nnewline',
    'relative/path',
    'C:\\Program Files\\x',
    '/',
    '',
    'NODE_OPTIONS',
    'QWEN_HOME',
    'LD_PRELOAD',
    'PATH',
    'OPENAI_API_KEY',
    'CONTEXT_API_TOKEN',
    'on-demand',
    'auto-recall',
    'write',
    'windows',
    'posix',
    { file: '/etc/qwen-managed/other.token' },
    { inherit: true },
    { inherit: true, profiles: ['write'] },
    { type: 'generic-http-search-v1', baseUrl: 'http://example.com', tokenEnv: 'CONTEXT_API_TOKEN' },
    { type: 'mem0-platform-v3', apiKeyEnv: 'MEM0_API_KEY', appId: ' ' },
    {
      type: 'mem0',
      preset: 'mem0-oss-rest-2026-08',
      endpoint: { origin: 'http://10.0.0.1:8888', allowInsecureHttp: true },
      credentialEnv: 'MEM0_API_KEY',
      scope: { userId: 'u', appId: 'a' },
    },
    { hooks: {} },
    { permissions: { allow: ['x'] } },
    { disableAllHooks: true },
    { modes: ['yolo', 'yolo'] },
    false,
    8000,
    7999,
    0,
    -1,
    1.5,
    null,
    [],
    {},
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
);
const key = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hooks',
    'mcpServers',
    'write',
    'profiles',
    'extra',
    '',
  ),
  fc.string({ maxLength: 8 }),
);
const mutation = mutationArb(interesting, key);

/** Applies the mutations and returns the text an administrator's file would hold. */
const mutateText = (seed: string, mutations: readonly Mutation[]) =>
  JSON.stringify(mutate(JSON.parse(seed), mutations), null, 2);

const mutated = fc
  .tuple(fc.constantFrom(...SEEDS), fc.array(mutation, { minLength: 1, maxLength: 3 }))
  .map(([seed, ms]) => mutateText(seed, ms));

type Outcome = { parsed: ReturnType<typeof parseDeploymentText> } | { invalid: DeploymentInvalid };

function parse(text: string): Outcome {
  try {
    return { parsed: parseDeploymentText(text, 'deployment.json') };
  } catch (error) {
    expect(error).toBeInstanceOf(DeploymentInvalid);
    const invalid = error as DeploymentInvalid;
    expect(invalid.problems.length).toBeGreaterThan(0);
    expect(invalid.message).not.toMatch(STACK_FRAME);
    for (const p of invalid.problems) {
      expect(typeof p.key).toBe('string');
      expect(p.key).not.toBe('');
      expect(p.message.trim()).not.toBe('');
      expect(p.fix.trim()).not.toBe('');
      expect(invalid.message).toContain(p.key);
    }
    return { invalid };
  }
}

/** A problem names a key: its own key path, or (for unknown keys at the top level) the quoted key in its fix. */
const namesAKey = (p: DeploymentInvalid['problems'][number]) =>
  p.key !== TOP || /"[^"]*"/.test(p.fix) || /"[^"]*"/.test(p.message);

describe('deployment.json parser', () => {
  it(SUBJECTS.values, () => {
    const details = fc.check(
      fc.property(mutated, (text) => {
        const outcome = parse(text);
        if ('invalid' in outcome) {
          for (const p of outcome.invalid.problems) expect(namesAKey(p), JSON.stringify(p)).toBe(true);
        }
      }),
      { numRuns: 500, ...LIMITS },
    );
    section.checkProperty('values', details);
  });

  it(SUBJECTS.text, () => {
    const textMutation = fc
      .tuple(
        fc.constantFrom(...SEEDS),
        fc.nat(),
        fc.nat({ max: 8 }),
        fc.string({ unit: 'binary', maxLength: 3 }),
      )
      .map(([seed, at, cut, insert]) => {
        const i = at % (seed.length + 1);
        return seed.slice(0, i) + insert + seed.slice(Math.min(seed.length, i + cut));
      });
    const details = fc.check(
      fc.property(textMutation, (text) => {
        const outcome = parse(text);
        if ('invalid' in outcome) {
          for (const p of outcome.invalid.problems) {
            const syntax = p.key === TOP && /^is not valid JSON at line \d+, column \d+/.test(p.message);
            expect(syntax || namesAKey(p), JSON.stringify(p)).toBe(true);
          }
        }
      }),
      { numRuns: 300, ...LIMITS },
    );
    section.checkProperty('text', details);
  });

  it(SUBJECTS.renders, () => {
    const runtimes = fakeRuntimes();
    const options = { toolkitVersion: '0.0.0-test', adminUid: 0, now: '2026-11-29T12:00:00.000Z' };
    const details = fc.check(
      fc.property(fc.oneof(mutated, fc.constantFrom(...SEEDS)), (text) => {
        const outcome = parse(text);
        if (!('parsed' in outcome)) return;
        const first = renderInstall(outcome.parsed, runtimes, options);
        const again = renderInstall(parseDeploymentText(text), runtimes, options);
        expect(again.manifestText).toBe(first.manifestText);
        expect(first.files.size).toBeGreaterThan(0);
      }),
      { numRuns: 500, ...LIMITS },
    );
    section.checkProperty('renders', details);
  });
});
