// The deployment's `settings` block against Qwen 0.24.4's own settings facts
// (policies/qwen/0.24.4/settings.json), the "did you mean" suggestion, duplicate keys and the BOM in
// deployment.json, and the published JSON Schema of the settings keys.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeploymentText } from '../../../src/deploy/deployment/parse.js';
import { DeploymentInvalid } from '../../../src/deploy/deployment/problems.js';
import { settingsFactsProblems } from '../../../src/deploy/deployment/settings.js';
import { qwenSettingsFacts } from '../../../src/qwen/settings-facts.js';
import { type JsonSchemaNode, qwenSettingsJsonSchema } from '../../../src/qwen/settings-json-schema.js';
import { closest, editDistance } from '../../../src/text/closest.js';
import { REPO } from './fixtures.js';

describe('settings keys and values are Qwen 0.24.4 settings', () => {
  it.each([
    {
      settings: { modle: { name: 'qwen3-coder-plus' } },
      key: 'settings.modle',
      message: 'is not a Qwen Code 0.24.4 setting',
      fix: 'did you mean "model"? Rename "modle" to "model"',
    },
    {
      settings: { security: { auth: { selectedTyp: 'openai' } } },
      key: 'settings.security.auth.selectedTyp',
      message: 'is not a Qwen Code 0.24.4 setting',
      fix: 'did you mean "security.auth.selectedType"? Rename "selectedTyp" to "selectedType"',
    },
    {
      settings: { model: { selectedType: 'openai' } },
      key: 'settings.model.selectedType',
      message: 'is not a Qwen Code 0.24.4 setting',
      fix: 'did you mean "security.auth.selectedType"? Move "selectedType" there',
    },
    {
      settings: { frobnicator: true },
      key: 'settings.frobnicator',
      message: 'is not a Qwen Code 0.24.4 setting',
      fix: 'remove "frobnicator" (Qwen Code 0.24.4 has no such setting; see schema/deployment.schema.json)',
    },
    {
      settings: { general: { vimMode: 'yes' } },
      key: 'settings.general.vimMode',
      message: 'must be a boolean',
      fix: 'write true or false',
    },
    {
      settings: { model: { name: 42 } },
      key: 'settings.model.name',
      message: 'must be a string',
      fix: 'write a JSON string',
    },
    {
      settings: { model: { reasoningEffort: 'enormous' } },
      key: 'settings.model.reasoningEffort',
      message: 'is not one of the values Qwen accepts',
      fix: 'use one of "low", "medium", "high", "xhigh", "max"',
    },
    {
      // Qwen's schema types it as a string; its code knows six AuthType values (extracted per version).
      settings: { security: { auth: { selectedType: 'openai-compatible' } } },
      key: 'settings.security.auth.selectedType',
      message: 'is not one of the values Qwen accepts',
      fix: 'use one of "openai", "openai-responses", "qwen-oauth", "gemini", "vertex-ai", "anthropic"',
    },
    {
      settings: { security: { auth: { selectedType: 'opanai' } } },
      key: 'settings.security.auth.selectedType',
      message: 'is not one of the values Qwen accepts',
      fix: 'did you mean "openai"? (one of "openai", "openai-responses", "qwen-oauth", "gemini", "vertex-ai", "anthropic")',
    },
    {
      settings: { model: { goalCheckpointTimeoutSeconds: 901 } },
      key: 'settings.model.goalCheckpointTimeoutSeconds',
      message: 'is out of range',
      fix: 'use a whole number at least 1 and at most 900',
    },
    {
      settings: { model: { maxSessionTurns: 1.5 } },
      key: 'settings.model.maxSessionTurns',
      message: 'must be a whole number',
      fix: 'write a whole number without quotes',
    },
    {
      settings: { permissions: { deny: 'ShellTool' } },
      key: 'settings.permissions.deny',
      message: 'must be a list',
      fix: 'write a JSON array',
    },
  ])('$key: $message', ({ settings, key, message, fix }) => {
    expect(settingsFactsProblems(settings)).toEqual([expect.objectContaining({ key, message, fix })]);
  });

  it.each([
    {
      model: { name: 'qwen3-coder-plus' },
      security: { auth: { selectedType: 'openai', baseUrl: 'https://x' } },
    },
    // Objects Qwen declares without sub-keys are free-form below.
    { env: { ANY_NAME: '1' }, modelProviders: { openai: [{ id: 'x' }] } },
    // The baseline's own marker is not a Qwen setting, but repeating it is allowed.
    { $version: 4 },
  ])('accepts %j', (settings) => {
    expect(settingsFactsProblems(settings)).toEqual([]);
  });

  it('an unsupported Qwen version has no facts to check against', () => {
    expect(settingsFactsProblems({ modle: {} }, '0.0.1')).toEqual([]);
  });
});

describe('did you mean', () => {
  it.each([
    ['modle', 'model', 1],
    ['selectedTyp', 'selectedType', 1],
    ['vimMod', 'vimMode', 1],
    ['general', 'general', 0],
    ['abc', 'xyz', 3],
  ])('editDistance(%j, %j) = %i', (a, b, d) => {
    expect(editDistance(a.toLowerCase(), b.toLowerCase())).toBe(d);
  });

  it.each([
    ['modle', ['model', 'mcp', 'memory'], 'model'],
    ['secruity', ['security', 'serve'], 'security'],
    ['qqqqqq', ['model', 'security'], undefined],
  ])('closest(%j) = %j', (typed, candidates, want) => {
    expect(closest(typed, candidates)).toBe(want);
  });
});

describe('deployment.json text: duplicate keys and a byte-order mark', () => {
  const base = async () => fs.readFile(path.join(REPO, 'examples', 'deployments', 'on-demand.json'), 'utf8');
  const problemsOf = (text: string) => {
    try {
      parseDeploymentText(text, 'd.json');
    } catch (error) {
      if (error instanceof DeploymentInvalid) return error.problems.map((p) => `${p.key}: ${p.message}`);
      throw error;
    }
    return [];
  };

  it('names every duplicate with both lines, at any depth, also inside arrays', async () => {
    const text = (await base())
      .replace('"version": 1,', '"version": 1,\n  "version": 1,')
      .replace(
        '"PATH": "/usr/local/bin:/usr/bin:/bin",',
        '"PATH": "/usr/local/bin:/usr/bin:/bin", "PATH": "/bin",',
      );
    expect(problemsOf(text)).toEqual([
      'version: is written twice (line 3, column 3 and line 4, column 3); JSON readers would silently keep the last one',
      'environment.PATH: is written twice (line 11, column 5 and line 11, column 45); JSON readers would silently keep the last one',
    ]);
    expect(problemsOf('{"approvalGuard": false, "profiles": [{"a": 1, "a": 2}]}')).toContain(
      'profiles[0].a: is written twice (line 1, column 40 and line 1, column 48); JSON readers would silently keep the last one',
    );
  });

  it('refuses a BOM and still reports the other problems of the file', async () => {
    const text = `\ufeff${(await base()).replace('"timeoutMs": 5000', '"timeoutMs": 5000, "timeoutMs": 6000')}`;
    expect(problemsOf(text)).toEqual([
      '(top level): starts with a UTF-8 byte-order mark (bytes EF BB BF)',
      expect.stringMatching(/^profiles\.on-demand\.timeoutMs: is written twice/),
    ]);
  });

  it('negative control: the example itself parses', async () => {
    expect(problemsOf(await base())).toEqual([]);
  });
});

describe('the published JSON Schema of the settings keys', () => {
  it('has every Qwen 0.24.4 settings key, each with its description, closed where Qwen declares sub-keys', () => {
    const schema = qwenSettingsJsonSchema('0.24.4')!;
    const facts = qwenSettingsFacts('0.24.4')!;
    const found: string[] = [];
    const walk = (node: JsonSchemaNode, prefix: string) => {
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        const name = prefix === '' ? key : `${prefix}.${key}`;
        found.push(name);
        expect(child.description, name).toEqual(expect.any(String));
        if (child.properties !== undefined) expect(child.additionalProperties, name).toBe(false);
        walk(child, name);
      }
    };
    walk(schema, '');
    expect(found.sort()).toEqual(Object.keys(facts).sort());
    expect(schema.properties?.model?.properties?.reasoningEffort).toMatchObject({
      enum: ['low', 'medium', 'high', 'xhigh', 'max'],
    });
  });

  it('is what schema/deployment.schema.json publishes under "settings"', async () => {
    const published = JSON.parse(
      await fs.readFile(path.join(REPO, 'schema', 'deployment.schema.json'), 'utf8'),
    );
    expect(Object.keys(published.properties.settings.properties)).toEqual([
      '$version',
      ...Object.keys(qwenSettingsJsonSchema('0.24.4')!.properties!).sort(),
    ]);
    expect(published.properties.settings.additionalProperties).toBe(false);
  });
});

describe('schema/deployment.schema.json explains every key an editor completes', () => {
  it('every property (deployment keys, provider fields in every branch, settings keys) has a description', async () => {
    const schema = JSON.parse(await fs.readFile(path.join(REPO, 'schema', 'deployment.schema.json'), 'utf8'));
    const missing: string[] = [];
    let seen = 0;
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Record<string, unknown>;
      for (const [key, child] of Object.entries((n.properties as Record<string, unknown>) ?? {})) {
        seen++;
        if (typeof (child as { description?: unknown }).description !== 'string')
          missing.push(`${at}.${key}`);
        walk(child, `${at}.${key}`);
      }
      for (const branch of ['anyOf', 'oneOf', 'allOf'] as const)
        for (const [i, b] of ((n[branch] as unknown[]) ?? []).entries()) walk(b, `${at}|${branch}[${i}]`);
      for (const inner of ['items', 'additionalProperties'] as const) walk(n[inner], `${at}[]`);
    };
    walk(schema, '');
    expect(missing).toEqual([]);
    expect(seen).toBeGreaterThan(400);
  });
});
