import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../launcher/args.js';
import { ARGUMENT_POLICY } from '../../../src/policy/policies.js';

const parse = (argv: string[]) => parseArgs(argv, ARGUMENT_POLICY);

describe('parseArgs: accepted forms', () => {
  it.each([
    [['--profile', 'auto-recall'], { kind: 'launch', profile: 'auto-recall' }],
    [['--profile=on-demand'], { kind: 'launch', profile: 'on-demand' }],
    [['--profile', 'write'], { kind: 'launch', profile: 'write' }],
    [['--help'], { kind: 'help' }],
    [['--version'], { kind: 'version' }],
    [['--profile', 'write', '--help'], { kind: 'help' }],
    [['--version', '--profile=write'], { kind: 'version' }],
  ])('%j → %j', (argv, expected) => {
    expect(parse(argv)).toEqual(expected);
  });
});

describe('parseArgs: refusals name the argument', () => {
  // The forms the issue lists explicitly, then every refused flag and subcommand of the policy.
  const listed: Array<[string[], string]> = [
    [['-p', 'x'], '-p'],
    [['--prompt=x'], '--prompt=x'],
    [['-y'], '-y'],
    [['--yolo'], '--yolo'],
    [['--approval-mode=yolo'], '--approval-mode=yolo'],
    [['--approval-mode', 'default'], '--approval-mode'],
    [['--acp'], '--acp'],
    [['serve'], 'serve'],
    [['--continue'], '--continue'],
    [['-r', 'id'], '-r'],
    [['--safe-mode'], '--safe-mode'],
    [['--'], '--'],
    [['hello'], 'hello'],
    [['--profile', 'auto-recall', '--', '--yolo'], '--'],
    [['--profile', 'auto-recall', 'hello'], 'hello'],
    [['--profile', 'auto-recall', '-y'], '-y'],
    [['--profile', '--yolo'], '--yolo'],
    [['-h'], '-h'],
    [['--help=1'], '--help=1'],
    [['--prof', 'auto-recall'], '--prof'],
    [['--telemetry-target=local'], '--telemetry-target=local'],
    [['constructor'], 'constructor'],
    [['--extensions', 'none'], '--extensions'],
    [['-e', 'none'], '-e'],
    [['--mcp-config', '/etc/mcp.json'], '--mcp-config'],
  ];
  const policyFlags: Array<[string[], string]> = Object.keys(ARGUMENT_POLICY.refusedFlags).map((f) => [
    ['--profile', 'auto-recall', f],
    f,
  ]);
  const policyPrefixes: Array<[string[], string]> = Object.keys(ARGUMENT_POLICY.refusedFlagPrefixes).map(
    (p) => [[`${p}-anything`], `${p}-anything`],
  );
  const subcommands: Array<[string[], string]> = ARGUMENT_POLICY.refusedSubcommands.map((s) => [[s], s]);

  it.each([...listed, ...policyFlags, ...policyPrefixes, ...subcommands])(
    '%j refused naming %s',
    (argv, named) => {
      const result = parse(argv);
      expect(result.kind).toBe('refused');
      if (result.kind !== 'refused') return;
      expect(result.argument).toBe(named);
      expect(result.message).toContain(`refused argument ${JSON.stringify(named)}`);
    },
  );

  it('gives the policy reason for a known Qwen flag', () => {
    expect(parse(['--yolo'])).toEqual({
      kind: 'refused',
      argument: '--yolo',
      message:
        'refused argument "--yolo": a Qwen option (YOLO approves every tool); nothing you type is passed to Qwen',
    });
  });

  it('calls a plain word a prompt and a subcommand a subcommand', () => {
    expect(parse(['fix', 'the', 'bug'])).toEqual({
      kind: 'refused',
      argument: 'fix',
      message:
        'refused argument "fix": a word would reach Qwen as a headless prompt; type your prompt inside Qwen',
    });
    expect(parse(['serve'])).toEqual({
      kind: 'refused',
      argument: 'serve',
      message:
        'refused argument "serve": a Qwen subcommand; only the managed interactive session can be started',
    });
  });

  it('escapes control characters in the argument it names', () => {
    const result = parse(['\u001b[2J\u009b']);
    expect(result).toEqual({
      kind: 'refused',
      argument: '\u001b[2J\u009b',
      message:
        'refused argument "\\u001b[2J\\u009b": a word would reach Qwen as a headless prompt; type your prompt inside Qwen',
    });
  });
});

describe('parseArgs: profile problems', () => {
  it.each([
    [
      ['--profile', 'auto-recall', '--profile', 'write'],
      '--profile',
      'refused argument "--profile": --profile may be given only once',
    ],
    [
      ['--profile=auto-recall', '--profile=auto-recall'],
      '--profile=auto-recall',
      'refused argument "--profile=auto-recall": --profile may be given only once',
    ],
    [
      ['--profile', 'nonsense'],
      'nonsense',
      'unknown profile kind "nonsense" (kinds: on-demand, auto-recall, write, openclaw-recall)',
    ],
    [['--profile='], '', 'unknown profile kind "" (kinds: on-demand, auto-recall, write, openclaw-recall)'],
    [
      ['--profile', 'autorecall'],
      'autorecall',
      'unknown profile kind "autorecall"; did you mean "auto-recall"? (kinds: on-demand, auto-recall, write, openclaw-recall)',
    ],
    [['--profile'], '--profile', 'missing value: --profile <kind>'],
    [[], undefined, 'missing --profile <kind>'],
  ])('%j', (argv, argument, message) => {
    expect(parse(argv)).toEqual({ kind: 'refused', argument, message });
  });
});
