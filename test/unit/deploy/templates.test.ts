import { describe, expect, it } from 'vitest';
import { MCP_TIMEOUT_MS } from '../../../src/base/limits.js';
import { PROFILE_KINDS } from '../../../src/contracts/launch-plan.js';
import {
  HOOK_APPROVAL_GUARD,
  HOOK_AUTO_RECALL,
  HOOK_WRITE_CONFIRMATION,
  PERMISSION_REMEMBER,
  PERMISSION_SEARCH,
} from '../../../src/contracts/names.js';
import { mergeSettings } from '../../../src/deploy/deployment/settings.js';
import { deepEqual } from '../../../src/deploy/json.js';
import { guardMatcher, pinnedValues, templateValues } from '../../../src/deploy/render/profile.js';
import { OMIT, placeholders, substitute, TemplateError } from '../../../src/deploy/templates/substitute.js';
import { TEMPLATES } from '../../../src/deploy/templates/templates.js';
import { isPlainObject } from '../../../src/text/json.js';
import { allProfiles } from './fixtures.js';

describe('substitute: JSON-aware, never string templating', () => {
  it('replaces a whole-string placeholder with any JSON value', () => {
    expect(
      substitute(
        { a: '{{x}}', b: ['{{y}}', 'plain'], c: { d: '{{z}}' } },
        { x: 1, y: { k: [true] }, z: 'str' },
      ),
    ).toEqual({
      a: 1,
      b: [{ k: [true] }, 'plain'],
      c: { d: 'str' },
    });
  });

  it('keeps hostile values inside their string: quotes, newlines and braces cannot break out', () => {
    const hostile = `"}, "hooks": {"x": 1}, "y": "\n{{x}}`;
    const out = substitute({ command: '{{v}}' }, { v: hostile }) as { command: string };
    expect(out).toEqual({ command: hostile });
    expect(JSON.parse(JSON.stringify(out))).toEqual({ command: hostile });
  });

  it.each([
    ['a missing value', { a: '{{nope}}' }, /no value/],
    ['a placeholder inside other text', { a: 'exec {{node}}' }, /embeds a placeholder/],
    ['a placeholder in a key', { '{{k}}': 1 }, /key/],
  ])('refuses %s', (_name, template, error) => {
    expect(() => substitute(template, { node: '/n' })).toThrow(TemplateError);
    expect(() => substitute(template, { node: '/n' })).toThrow(error);
  });

  it('leaves out a key whose value is OMIT, keeping the order of the others', () => {
    const out = substitute(
      { type: 'command', command: '{{c}}', shell: '{{s}}', timeout: 1 },
      { c: 'x', s: OMIT },
    );
    expect(out).toEqual({ type: 'command', command: 'x', timeout: 1 });
    const kept = substitute(
      { type: 'command', command: '{{c}}', shell: '{{s}}', timeout: 1 },
      { c: 'x', s: 'pwsh' },
    );
    expect(Object.keys(kept as object)).toEqual(['type', 'command', 'shell', 'timeout']);
    expect(() => substitute({ a: ['{{s}}', 1] }, { s: OMIT })).toThrow(/template list at a omits an element/);
  });

  it('does not reuse value objects between substitutions', () => {
    const shared = { list: [1] };
    const out = substitute(['{{s}}', '{{s}}'], { s: shared }) as { list: number[] }[];
    out[0]!.list.push(2);
    expect(out[1]!.list).toEqual([1]);
    expect(shared.list).toEqual([1]);
  });
});

function allTemplates(): [string, unknown][] {
  const out: [string, unknown][] = [
    ['shared/system-defaults.json', TEMPLATES.systemDefaults],
    ['shared/launch.json', TEMPLATES.launchPlan],
  ];
  for (const kind of PROFILE_KINDS)
    out.push([`${kind}/external-context.json`, TEMPLATES.providerConfig[kind]]);
  out.push(
    ['on-demand/mcp.json', TEMPLATES.mcpConfig['on-demand']],
    ['write/mcp.json', TEMPLATES.mcpConfig.write],
  );
  for (const kind of PROFILE_KINDS)
    out.push([`${kind}/system-settings.json`, TEMPLATES.systemSettings[kind]]);
  out.push(['shared/approval-guard.json', TEMPLATES.approvalGuard]);
  return out;
}

/** A template with the values render supplies for `platform` (pins and guard values of a sample install). */
function rendered(platform: 'posix' | 'windows', template: unknown): unknown {
  const installDir = platform === 'windows' ? 'C:\\qm' : '/opt/qm';
  const node = platform === 'windows' ? 'C:\\node\\node.exe' : '/usr/bin/node';
  return substitute(template, {
    ...pinnedValues({ platform, installDir, node }),
    'guard.matcher': '.*',
    'guard.modes': 'yolo',
  });
}

function hookEntries(value: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isPlainObject(v)) {
      if (v.type === 'command') found.push(v);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return found;
}

describe('templates/', () => {
  it.each(allTemplates())('%s uses only placeholders render provides', async (_file, template) => {
    const parsed = await allProfiles();
    const values = templateValues('write', parsed.deployment, { all: {}, external: [] });
    // Supplied beside templateValues: the provider config's, and renderProfile's from the rendered settings.
    const extra = ['timeoutMs', 'provider', 'qwenVersionsMissingSettings'];
    for (const name of placeholders(template))
      expect([...Object.keys(values), ...extra], name).toContain(name);
  });

  it('one template per profile: rendered for posix and windows they differ only by shell: "powershell" on command hooks', () => {
    // The hook commands are each platform's quoting of the same pinned paths (commands.test.ts pins them).
    const strip = (v: unknown): unknown =>
      JSON.parse(JSON.stringify(v), (key, value) =>
        key === 'shell' && value === 'powershell' ? undefined : key === 'command' ? '<hook command>' : value,
      );
    for (const kind of PROFILE_KINDS) {
      expect(strip(rendered('windows', TEMPLATES.systemSettings[kind]))).toEqual(
        strip(rendered('posix', TEMPLATES.systemSettings[kind])),
      );
    }
    expect(strip(rendered('windows', TEMPLATES.approvalGuard))).toEqual(
      strip(rendered('posix', TEMPLATES.approvalGuard)),
    );
    const windowsHooks = PROFILE_KINDS.flatMap((k) =>
      hookEntries(rendered('windows', TEMPLATES.systemSettings[k])),
    );
    expect(windowsHooks.length).toBe(2);
    for (const entry of [...windowsHooks, ...hookEntries(rendered('windows', TEMPLATES.approvalGuard))]) {
      expect(entry.shell).toBe('powershell');
      // Right after the command, where Qwen's own settings put it.
      expect(Object.keys(entry).slice(0, 3)).toEqual(['type', 'command', 'shell']);
    }
    // POSIX hook entries carry no shell key at all (Qwen's default, bash).
    const posixHooks = PROFILE_KINDS.flatMap((k) =>
      hookEntries(rendered('posix', TEMPLATES.systemSettings[k])),
    );
    for (const entry of [...posixHooks, ...hookEntries(rendered('posix', TEMPLATES.approvalGuard))])
      expect(Object.hasOwn(entry, 'shell')).toBe(false);
  });

  it('hook entries carry the managed names, the per-version hook timeout and a status message', () => {
    const entries = PROFILE_KINDS.flatMap((k) => hookEntries(TEMPLATES.systemSettings[k]));
    entries.push(...hookEntries(TEMPLATES.approvalGuard));
    expect(entries.map((e) => e.name).sort()).toEqual(
      [HOOK_AUTO_RECALL, HOOK_WRITE_CONFIRMATION, HOOK_APPROVAL_GUARD].sort(),
    );
    // Filled by render in the unit the Qwen version reads (policies/qwen/versions.json); the guard's
    // and the write confirmation's are the long one, since a timeout there runs the call unasked.
    expect(Object.fromEntries(entries.map((e) => [e.name, e.timeout]))).toEqual({
      [HOOK_AUTO_RECALL]: '{{hookTimeout}}',
      [HOOK_WRITE_CONFIRMATION]: '{{securityHookTimeout}}',
      [HOOK_APPROVAL_GUARD]: '{{securityHookTimeout}}',
    });
    for (const entry of entries) expect(typeof entry.statusMessage).toBe('string');
  });

  it('pins the permissions, the MCP exclusion and the MCP entries of each profile', () => {
    // mcp.allowed names only the managed server: Qwen then starts none from a repository's settings or .mcp.json.
    expect(rendered('posix', TEMPLATES.systemSettings['on-demand'])).toEqual({
      mcp: { allowed: ['external-context'] },
      permissions: { allow: [PERMISSION_SEARCH] },
    });
    expect(rendered('posix', TEMPLATES.systemSettings['auto-recall'])).toMatchObject({
      mcp: { excluded: ['external-context'], allowed: [] },
    });
    expect(rendered('posix', TEMPLATES.systemSettings.write)).toMatchObject({
      mcp: { allowed: ['external-context'] },
      permissions: { allow: [PERMISSION_SEARCH], ask: [PERMISSION_REMEMBER] },
    });
    const onDemand = (rendered('posix', TEMPLATES.mcpConfig['on-demand']) as any).mcpServers[
      'external-context'
    ];
    const write = (rendered('posix', TEMPLATES.mcpConfig.write) as any).mcpServers['external-context'];
    expect(onDemand).toMatchObject({
      includeTools: ['context_search'],
      alwaysLoadTools: true,
      timeout: MCP_TIMEOUT_MS,
    });
    expect(write).toMatchObject({
      includeTools: ['context_search', 'context_remember'],
      alwaysLoadTools: true,
      timeout: MCP_TIMEOUT_MS,
    });
  });
});

/** Qwen 0.24.4's matchesHookPattern (measured in its bundle): `*` and exact names, else a RegExp test. */
function qwenMatches(matcher: string, tool: string): boolean {
  if (matcher === '' || matcher === '*' || matcher === '.*' || matcher === tool) return true;
  return new RegExp(matcher).test(tool);
}

describe('approval guard matcher', () => {
  it.each([
    ['write', PERMISSION_REMEMBER, false],
    ['write', PERMISSION_SEARCH, true],
    ['write', 'run_shell_command', true],
    ['write', `${PERMISSION_REMEMBER}_v2`, true],
    ['write', `x${PERMISSION_REMEMBER}`, true],
    ['on-demand', PERMISSION_REMEMBER, true],
    ['auto-recall', 'write_file', true],
  ] as const)('%s profile: %s → guarded %s', (kind, tool, guarded) => {
    expect(qwenMatches(guardMatcher(kind), tool)).toBe(guarded);
  });
});

describe('mergeSettings', () => {
  it('keeps base keys first, appends new keys, unions lists and never changes a scalar silently', () => {
    expect(mergeSettings({ a: 1, l: ['x'], o: { p: 1 } }, { o: { q: 2 }, l: ['y', 'x'], b: 2 })).toEqual({
      a: 1,
      l: ['x', 'y'],
      o: { p: 1, q: 2 },
      b: 2,
    });
    expect(Object.keys(mergeSettings({ a: 1, b: 2 }, { c: 3, a: 1 }))).toEqual(['a', 'b', 'c']);
    expect(() => mergeSettings({ a: 1 }, { a: 2 })).toThrow(/conflict at a/);
    expect(deepEqual(mergeSettings({}, {}), {})).toBe(true);
  });
});
