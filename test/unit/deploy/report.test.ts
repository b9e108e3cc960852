import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/deploy/rollback/diff.js';
import { buildReport, Checks, reportJson, reportText } from '../../../src/deploy/verify/report.js';

describe('verify report', () => {
  const checks = new Checks();
  checks.add(
    'settings.hooks',
    { profile: 'write', file: 'profiles/write/system-settings.json' },
    false,
    'hook missing',
  );
  checks.add('manifest', { file: 'manifest.json' }, true, 'matches the pinned shape');
  checks.add('host.pins', {}, false, 'node does not exist on this machine', 'warning');
  checks.expect('files.unlisted', {}, ['b is not listed', 'a is not listed'], 'no unlisted files');
  const report = buildReport('/opt/qm', null, checks.list);

  it('has a stable shape and order (profile, file, id, message), warnings never fail', () => {
    expect(report).toEqual({
      ok: false,
      dir: '/opt/qm',
      deployment: null,
      summary: { errors: 3, warnings: 1, passed: 1 },
      checks: [
        {
          id: 'files.unlisted',
          severity: 'error',
          ok: false,
          profile: null,
          file: null,
          message: 'a is not listed',
        },
        {
          id: 'files.unlisted',
          severity: 'error',
          ok: false,
          profile: null,
          file: null,
          message: 'b is not listed',
        },
        {
          id: 'host.pins',
          severity: 'warning',
          ok: false,
          profile: null,
          file: null,
          message: 'node does not exist on this machine',
        },
        {
          id: 'manifest',
          severity: 'error',
          ok: true,
          profile: null,
          file: 'manifest.json',
          message: 'matches the pinned shape',
        },
        {
          id: 'settings.hooks',
          severity: 'error',
          ok: false,
          profile: 'write',
          file: 'profiles/write/system-settings.json',
          message: 'hook missing',
        },
      ],
    });
    expect(buildReport('/opt/qm', null, [...checks.list].reverse())).toEqual(report);
    expect(JSON.parse(reportJson(report))).toEqual(report);
  });

  it('prints one line per violation or warning, then a summary', () => {
    expect(reportText(report)).toBe(
      [
        'FAIL [files.unlisted] a is not listed',
        'FAIL [files.unlisted] b is not listed',
        'WARN [host.pins] node does not exist on this machine',
        'FAIL [settings.hooks] profiles/write/system-settings.json: hook missing',
        'verify /opt/qm: FAILED — 3 violation(s), 1 warning(s), 1 check(s) passed',
        '',
      ].join('\n'),
    );
  });

  it('is ok with warnings only', () => {
    const only = new Checks();
    only.add('host.pins', {}, false, 'absent', 'warning');
    expect(buildReport('/d', null, only.list).ok).toBe(true);
  });
});

describe('unifiedDiff', () => {
  it('shows removed lines with context and hunk headers', () => {
    const before = ['{', '  "a": 1,', '  "hooks": {', '    "X": [1]', '  },', '  "b": 2', '}', ''].join('\n');
    const after = ['{', '  "a": 1,', '  "hooks": {', '  },', '  "b": 2', '}', ''].join('\n');
    expect(unifiedDiff(before, after, 'settings.json')).toBe(
      [
        '--- a/settings.json',
        '+++ b/settings.json',
        '@@ -1,7 +1,6 @@',
        ' {',
        '   "a": 1,',
        '   "hooks": {',
        '-    "X": [1]',
        '   },',
        '   "b": 2',
        ' }',
        '',
      ].join('\n'),
    );
    expect(unifiedDiff('same\n', 'same\n', 'x')).toBe('');
  });

  it('diffs a new file from nothing', () => {
    expect(unifiedDiff('', 'a\nb\n', 'new.json')).toBe(
      '--- a/new.json\n+++ b/new.json\n@@ -0,0 +1,2 @@\n+a\n+b\n',
    );
  });
});
