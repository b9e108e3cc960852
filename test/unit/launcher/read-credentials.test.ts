import { describe, expect, it } from 'vitest';
import { readCredentials } from '../../../launcher/read-credentials.js';
import { credentialFileValue, routedCredentials } from '../../../src/policy/routed-credentials.js';
import { samplePlan } from './plan-fixture.js';
import { problems } from './problems.js';

const SECRET = 'tok-Zx81Qm-secret';

const plan = samplePlan((p) => {
  p.credentials = {
    CONTEXT_API_TOKEN: { file: '/etc/qm/context.token' },
    OPENAI_API_KEY: { inherit: true },
  };
});

const files = (content: Record<string, string>) => (file: string) => {
  const value = content[file];
  if (value === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  return value;
};

describe('credentialFileValue', () => {
  it.each([
    [`${SECRET}\n`, SECRET],
    [`${SECRET}\r\n`, SECRET],
    [SECRET, SECRET],
    [`${SECRET}\n\n`, `${SECRET}\n`],
    [' spaced \n', ' spaced '],
    ['\n', undefined],
    ['\r\n', undefined],
    ['', undefined],
  ])('%j → %j', (content, value) => {
    expect(credentialFileValue(content)).toBe(value);
  });
});

describe('readCredentials', () => {
  it('reads files (trailing newline stripped) and inherited values', () => {
    const values = readCredentials(plan, {
      externalContextActive: true,
      callerEnv: { OPENAI_API_KEY: 'sk-model', CONTEXT_API_TOKEN: 'ignored-caller-value' },
      platform: 'posix',
      readFile: files({ '/etc/qm/context.token': `${SECRET}\r\n` }),
    });
    expect({ ...values }).toEqual({ CONTEXT_API_TOKEN: SECRET, OPENAI_API_KEY: 'sk-model' });
  });

  it('skips the provider credentials of a rolled-back profile (their files are not even read)', () => {
    const read: string[] = [];
    const values = readCredentials(plan, {
      externalContextActive: false,
      callerEnv: { OPENAI_API_KEY: 'sk-model' },
      platform: 'posix',
      readFile: (file) => {
        read.push(file);
        return SECRET;
      },
    });
    expect({ ...values }).toEqual({ OPENAI_API_KEY: 'sk-model' });
    expect(read).toEqual([]);
  });

  it('lists every unusable credential by name, never by value', () => {
    const found = problems(() =>
      readCredentials(
        samplePlan((p) => {
          p.credentials = {
            MISSING_FILE: { file: '/etc/qm/missing.token' },
            EMPTY_FILE: { file: '/etc/qm/empty.token' },
            NUL_FILE: { file: '/etc/qm/nul.token' },
            TWO_LINES: { file: '/etc/qm/two.token' },
            TWO_LINES_VAR: { inherit: true },
            UNSET: { inherit: true },
            EMPTY_VAR: { inherit: true },
          };
        }),
        {
          externalContextActive: true,
          callerEnv: { EMPTY_VAR: '', TWO_LINES_VAR: `${SECRET}\r\nx` },
          platform: 'posix',
          readFile: files({
            '/etc/qm/empty.token': '\n',
            '/etc/qm/nul.token': `${SECRET}\u0000x`,
            // One trailing line break is the file's own; one inside is part of the secret.
            '/etc/qm/two.token': `${SECRET}\n${SECRET}\n`,
          }),
        },
      ),
    );
    expect(found).toEqual([
      'credential MISSING_FILE: cannot read "/etc/qm/missing.token" (ENOENT); ask your administrator',
      'credential EMPTY_FILE: the file "/etc/qm/empty.token" is empty; ask your administrator',
      'credential NUL_FILE contains a NUL byte and cannot be passed in the environment',
      'credential TWO_LINES holds a line break inside the secret, which no HTTP header can carry; ask your administrator',
      'credential TWO_LINES_VAR holds a line break inside the secret, which no HTTP header can carry; set TWO_LINES_VAR as one line and retry',
      'credential UNSET is taken from your environment, but it is not set; set it and retry',
      'credential EMPTY_VAR is taken from your environment, but it is not set; set it and retry',
    ]);
    expect(found.join('\n')).not.toContain(SECRET);
  });

  it('finds an inherited credential case-insensitively on Windows only', () => {
    const windowsPlan = samplePlan((p) => {
      p.credentials = { OPENAI_API_KEY: { inherit: true } };
    });
    const options = { externalContextActive: true, callerEnv: { openai_api_key: 'sk' }, readFile: files({}) };
    expect({ ...readCredentials(windowsPlan, { ...options, platform: 'windows' }) }).toEqual({
      OPENAI_API_KEY: 'sk',
    });
    expect(problems(() => readCredentials(windowsPlan, { ...options, platform: 'posix' }))).toHaveLength(1);
  });
});

describe('routedCredentials', () => {
  it.each([
    [true, ['CONTEXT_API_TOKEN', 'OPENAI_API_KEY']],
    [false, ['OPENAI_API_KEY']],
  ])('active=%s → %j', (active, names) => {
    expect(routedCredentials(plan, active, 'posix').map(([name]) => name)).toEqual(names);
  });
});
