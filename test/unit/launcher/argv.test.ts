import { describe, expect, it } from 'vitest';
import { buildArgv } from '../../../launcher/argv.js';
import { LaunchError } from '../../../launcher/messages.js';
import { pinnedArgvPaths, qwenArgvProblems } from '../../../src/policy/arguments.js';
import { ARGUMENT_POLICY } from '../../../src/policy/policies.js';
import { PROFILE_DIR, samplePlan } from './plan-fixture.js';

const CLI = '/opt/qwen/lib/node_modules/@qwen-code/qwen-code/cli.js';

describe('buildArgv', () => {
  it('is the pinned cli, the base argv and the external-context argv while active', () => {
    expect(buildArgv(samplePlan(), { externalContextActive: true })).toEqual([
      CLI,
      '--extensions',
      'none',
      '--mcp-config',
      `${PROFILE_DIR}/mcp.json`,
    ]);
  });

  it('drops the external-context argv of a rolled-back profile', () => {
    expect(buildArgv(samplePlan(), { externalContextActive: false })).toEqual([CLI, '--extensions', 'none']);
  });

  it.each([
    [['--extensions', 'none', '--yolo'], 'refused Qwen option "--yolo" (YOLO approves every tool)'],
    [
      ['--extensions', 'none', '--approval-mode=yolo'],
      'refused Qwen option "--approval-mode yolo" (only the default approval mode is managed)',
    ],
    [
      ['--extensions', 'none', '--safe-mode'],
      'refused Qwen option "--safe-mode" (drops hooks, permissions and MCP allow lists)',
    ],
    [
      ['--extensions', 'none', '--telemetry-target', 'gcp'],
      'refused Qwen option "--telemetry-target" (telemetry is managed and off)',
    ],
    [
      ['--extensions', 'none', '--unknown-flag'],
      'refused Qwen option "--unknown-flag" (not in the managed argument policy)',
    ],
    [['--extensions', 'none', 'serve'], 'refused Qwen subcommand "serve"'],
    [
      ['--extensions', 'none', 'hello'],
      'refused word "hello" in the Qwen argv (Qwen would read it as a headless prompt)',
    ],
    [['--extensions', 'none', '--'], 'refused "--" in the Qwen argv (an end-of-options marker)'],
    [['--extensions', 'all'], 'refused Qwen option "--extensions all" (allowed: none)'],
    [['-e', 'none'], 'the Qwen argv lacks "--extensions none"'],
    [
      ['--extensions', 'none', '--mcp-config', 'relative.json'],
      'Qwen option "--mcp-config" needs a pinned path: "relative.json" is not an absolute path',
    ],
    [['--extensions', 'none', '--mcp-config'], 'Qwen option "--mcp-config" has no value'],
  ])('refuses a plan argv %j', (argv, problem) => {
    const plan = samplePlan((p) => {
      p.argv = argv;
    });
    expect(qwenArgvProblems(argv, ARGUMENT_POLICY, 'posix')).toContain(problem);
    expect(() => buildArgv(plan, { externalContextActive: false })).toThrow(LaunchError);
  });

  it('names the profile and the fix in the refusal, with exit code 1', () => {
    const plan = samplePlan((p) => {
      p.externalContext.argv = ['-y'];
    });
    let caught: unknown;
    try {
      buildArgv(plan, { externalContextActive: true });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LaunchError);
    expect((caught as LaunchError).exitCode).toBe(1);
    expect((caught as LaunchError).problems).toEqual([
      'launch plan for "on-demand": refused Qwen option "-y" (YOLO approves every tool); re-render the deployment',
    ]);
  });

  it('checks the external-context argv only when it is used', () => {
    const plan = samplePlan((p) => {
      p.externalContext.argv = ['--yolo'];
    });
    expect(buildArgv(plan, { externalContextActive: false })).toEqual([CLI, '--extensions', 'none']);
  });

  it.each([
    [['--extensions', 'none'], []],
    [['--extensions=none', '--approval-mode', 'default'], []],
    [['--extensions', 'none', '--mcp-config', '/a/mcp.json'], []],
    [['--extensions', 'none', '--mcp-config=/a/mcp.json'], []],
  ])('accepts %j', (argv, problems) => {
    expect(qwenArgvProblems(argv, ARGUMENT_POLICY, 'posix')).toEqual(problems);
  });
});

describe('pinnedArgvPaths', () => {
  it.each([
    [['--extensions', 'none', '--mcp-config', '/a/mcp.json'], ['/a/mcp.json']],
    [['--mcp-config=/b/mcp.json', '--extensions', 'none'], ['/b/mcp.json']],
    [['--extensions', 'none'], []],
  ])('%j → %j', (argv, paths) => {
    expect(pinnedArgvPaths(argv, ARGUMENT_POLICY)).toEqual(paths);
  });
});
