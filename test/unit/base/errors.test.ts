// Every expected error carries its exit code and whether its message is fixed text; the CLI and the
// launcher map errors with that one rule, and anything else is a bug (exit 70 in the CLI).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { failure, usage } from '../../../launcher/messages.js';
import { ConfigurationError, EXIT, exitCodeOf, ManagedError } from '../../../src/base/errors.js';
import type { CliIO } from '../../../src/cli/command.js';
import { CheckFailed, commandError, InputError, UsageError } from '../../../src/cli/command-errors.js';
import { runProgram } from '../../../src/cli/program.js';
import { DeploymentInvalid } from '../../../src/deploy/deployment/problems.js';
import { SurgicalEditError } from '../../../src/deploy/jsonc/remove-hooks.js';
import { LockedError } from '../../../src/deploy/render/lock.js';
import { RenderError } from '../../../src/deploy/render/render.js';
import { ShimPathError } from '../../../src/deploy/render/shims.js';
import { TemplateError } from '../../../src/deploy/render/substitute.js';
import { WriterError } from '../../../src/deploy/render/writer.js';
import { RollbackError } from '../../../src/deploy/rollback/types.js';
import { VerifyInputError } from '../../../src/deploy/verify/run.js';
import { ProviderRequestError } from '../../../src/http/request-error.js';
import { JsoncError } from '../../../src/text/jsonc.js';
import { FAILING_PROGRAM, failingCommand } from '../../fixtures/failing-command.js';

describe('each expected error carries its exit code and message kind', () => {
  it.each<[string, ManagedError, number, boolean]>([
    ['ConfigurationError', new ConfigurationError('schema-invalid', ['provider']), EXIT.failure, true],
    ['ProviderRequestError', new ProviderRequestError('http-status', 503), EXIT.failure, true],
    ['JsoncError', new JsoncError('unexpected end', 3, '{"a'), EXIT.failure, false],
    ['DeploymentInvalid', new DeploymentInvalid('deployment.json', []), EXIT.failure, false],
    ['RenderError', new RenderError('r'), EXIT.failure, false],
    ['LockedError', new LockedError('l'), EXIT.failure, false],
    ['WriterError', new WriterError('w'), EXIT.failure, false],
    ['ShimPathError', new ShimPathError('s'), EXIT.failure, false],
    ['SurgicalEditError', new SurgicalEditError('e'), EXIT.failure, false],
    ['RollbackError', new RollbackError('b'), EXIT.failure, false],
    ['VerifyInputError', new VerifyInputError('v'), EXIT.failure, false],
    ['InputError', new InputError('i'), EXIT.failure, false],
    ['CheckFailed', new CheckFailed('c'), EXIT.failure, false],
    ['UsageError', new UsageError('u'), EXIT.usage, false],
    ['LaunchError (failure)', failure('f'), EXIT.failure, false],
    ['LaunchError (usage)', usage('u'), EXIT.usage, false],
    // A shipped template that does not fit its values is this toolkit's bug.
    ['TemplateError', new TemplateError('t'), EXIT.internal, false],
  ])('%s', (_name, error, exitCode, fixedMessage) => {
    expect(error).toBeInstanceOf(ManagedError);
    expect([exitCodeOf(error), error.fixedMessage]).toEqual([exitCode, fixedMessage]);
  });

  it.each([
    ['a TypeError', new TypeError('oops')],
    ['a plain Error', new Error('x')],
    ['a thrown string', 'x'],
    ['an object that looks like one', { exitCode: 1, fixedMessage: true, message: 'x' }],
  ])('%s is a bug: 70', (_name, error) => {
    expect(exitCodeOf(error)).toBe(EXIT.internal);
  });
});

describe('commandError: the command name in front, the exit code kept', () => {
  it.each<[string, unknown, string, number]>([
    ['a lower layer refusal', new RenderError('target exists'), 'render: target exists', EXIT.failure],
    ['a usage-coded refusal', usage('two --profile'), 'render: two --profile', EXIT.usage],
    ['a CLI error as it is', new InputError('render: refused'), 'render: refused', EXIT.failure],
  ])('%s', (_name, error, message, exitCode) => {
    const mapped = commandError('render', error);
    expect(mapped).toBeInstanceOf(Error);
    expect([(mapped as Error).message, exitCodeOf(mapped)]).toEqual([message, exitCode]);
  });

  it.each([
    ['a bug', new TypeError('oops')],
    ['a template bug', new TemplateError('t')],
  ])('leaves %s unchanged', (_name, error) => {
    expect(commandError('render', error)).toBe(error);
  });
});

describe('the CLI mapping (program.ts) has no list of classes', () => {
  it('maps a lower-layer error no command lists to its own code, a bug to 70', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c) => (err += c));
    const io: CliIO = { env: {}, cwd: '/', stdin: new PassThrough(), stdout: new PassThrough(), stderr };
    expect(
      await runProgram(FAILING_PROGRAM, [failingCommand(new SurgicalEditError('not an object'))], ['x'], io),
    ).toBe(1);
    expect(
      await runProgram(FAILING_PROGRAM, [failingCommand(new ConfigurationError('file-not-json'))], ['x'], io),
    ).toBe(1);
    expect(await runProgram(FAILING_PROGRAM, [failingCommand(new RangeError('bug'))], ['x'], io)).toBe(70);
    expect(err).toBe(
      'qm: not an object\nqm: The external context configuration file is not valid JSON.\nqm: internal error: bug\n',
    );
  });
});
