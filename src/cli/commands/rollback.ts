// `qwen-managed rollback` — also the whole of the self-contained rollback bundle (runtime/rollback.js),
// so it imports nothing beyond the rollback modules and node built-ins.
import * as path from 'node:path';
import {
  ALL_PROFILE_KINDS,
  type AnyProfileKind,
  isProfileKind,
  OPENCLAW_PROFILE,
  unknownProfileKind,
} from '../../contracts/launch-plan.js';
import { EXTERNAL_CONTEXT_HOOKS } from '../../contracts/names.js';
import { MANAGED_HOOK_NAMES } from '../../deploy/render/rollback-record.js';
import { unifiedDiff } from '../../deploy/rollback/diff.js';
import { rollbackInstall } from '../../deploy/rollback/install.js';
import { type EffectiveIdentity, rollbackSettingsFile } from '../../deploy/rollback/settings-file.js';
import { RESTART_MESSAGE, type RollbackOutcome } from '../../deploy/rollback/types.js';
import { type CliIO, defineCommand } from '../command.js';
import { UsageError } from '../command-errors.js';
import type { Flags } from '../flags.js';

export const ROLLBACK_HELP = `Usage:
  qwen-managed rollback --dir DIR --profile KIND [--restore-config FILE] [--remove-guard] [--dry-run]
  qwen-managed rollback --settings FILE [--hooks NAME,...] [--restore-config FILE --config FILE] [--dry-run]

Removes the managed hooks, matched by name (${EXTERNAL_CONTEXT_HOOKS.join(', ')}), keeping
every other key, hook, comment and the formatting, and optionally restores a saved version-1
provider config. Never touches provider data: memories already stored and provider-side logs stay.

Install mode (--dir): edits profiles/KIND/system-settings.json, records the rollback in
profiles/KIND/rollback.json, re-hashes manifest.json and marks the profile "rolled-back"; the
launcher then starts it as plain managed Qwen without external context. A later render keeps it
rolled back unless given --reactivate.
  --profile KIND          on-demand, auto-recall or write (required with --dir)
  --restore-config FILE   a saved version-1 provider config to put over profiles/KIND/external-context.json
  --remove-guard          also remove the approval guard hook (managed-approval-guard)

Settings mode (--settings): any Qwen settings file (JSON or JSONC), e.g. an upstream-style
QWEN_HOME/settings.json. The file is edited in place, surgically; a backup copy is kept next to it.
  --hooks NAME,...        hooks to remove (default: the external-context hooks; allowed:
                          ${MANAGED_HOOK_NAMES.join(', ')})
  --restore-config FILE   a saved version-1 provider config to restore ...
  --config FILE           ... over this file (the one QWEN_EXTERNAL_CONTEXT_CONFIG names)

Both modes:
  --dry-run               print the diff of what would change; write nothing
  -h, --help              show this help

Idempotent: a second run changes nothing. Restart Qwen afterwards.
Exit codes: 0 rolled back (or nothing to do), 1 input refused (unreadable, changed since render,
invalid saved config), 2 usage error.
`;

function report(io: CliIO, outcome: RollbackOutcome, dryRun: boolean): void {
  if (outcome.changes.length === 0) {
    io.stdout.write('rollback: nothing to change (already rolled back)\n');
    return;
  }
  if (dryRun) {
    for (const change of outcome.changes)
      io.stdout.write(unifiedDiff(change.before, change.after, change.file));
    io.stdout.write('rollback: dry run, nothing written\n');
    return;
  }
  for (const hook of outcome.removedHooks)
    io.stdout.write(`rollback: removed hook ${hook.name} (${hook.event})\n`);
  for (const change of outcome.changes) io.stdout.write(`rollback: updated ${change.file}\n`);
  for (const backup of outcome.backups) io.stdout.write(`rollback: previous version kept in ${backup}\n`);
  io.stdout.write(`rollback: ${RESTART_MESSAGE}\n`);
}

/** What rollback needs from the machine (the self-contained rollback bundle passes no more). */
export interface RollbackDeps {
  now(): string;
  hostPlatform: NodeJS.Platform;
  /** The uid running rollback: trusted besides root to own the install's directories (POSIX). */
  adminUid(): number;
  /** This process's effective ids: --settings as root acts as the owner of the user's directory. */
  identity: EffectiveIdentity | undefined;
}

const ROLLBACK_FLAGS = {
  dir: { type: 'string' },
  profile: { type: 'string' },
  settings: { type: 'string' },
  hooks: { type: 'string' },
  'restore-config': { type: 'string' },
  config: { type: 'string' },
  'remove-guard': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const;

type RollbackFlags = Flags<typeof ROLLBACK_FLAGS>;
type Resolve = (p: string | undefined) => string | undefined;

/** `--dir DIR --profile KIND`: the install's profile. */
function rollbackProfile(
  flags: RollbackFlags,
  resolve: Resolve,
  deps: RollbackDeps,
): Promise<RollbackOutcome> {
  if (flags.hooks !== undefined || flags.config !== undefined) {
    throw new UsageError('rollback: --hooks and --config belong to --settings mode');
  }
  const kind = flags.profile;
  if (kind === undefined) {
    throw new UsageError(`rollback: --profile must be one of ${ALL_PROFILE_KINDS.join(', ')}`);
  }
  if (kind !== OPENCLAW_PROFILE && !isProfileKind(kind))
    throw new UsageError(`rollback: --profile: ${unknownProfileKind(kind)}`);
  const restore = resolve(flags['restore-config']);
  return rollbackInstall({
    dir: resolve(flags.dir)!,
    kind: kind as AnyProfileKind,
    ...(restore === undefined ? {} : { restoreConfig: restore }),
    removeGuard: flags['remove-guard'] === true,
    dryRun: flags['dry-run'] === true,
    now: deps.now(),
    checkModes: deps.hostPlatform !== 'win32',
    ...(deps.hostPlatform === 'win32' ? {} : { trustedUid: deps.adminUid() }),
  });
}

/** `--settings FILE`: any Qwen settings file, edited in place. */
function rollbackFile(flags: RollbackFlags, resolve: Resolve, deps: RollbackDeps): Promise<RollbackOutcome> {
  if (flags.profile !== undefined || flags['remove-guard'] === true) {
    throw new UsageError(
      'rollback: --profile and --remove-guard belong to --dir mode (use --hooks with --settings)',
    );
  }
  const hooks = flags.hooks
    ?.split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (const hook of hooks ?? []) {
    if (!(MANAGED_HOOK_NAMES as readonly string[]).includes(hook)) {
      throw new UsageError(
        `rollback: --hooks ${hook} is not a managed hook (${MANAGED_HOOK_NAMES.join(', ')})`,
      );
    }
  }
  if ((flags['restore-config'] === undefined) !== (flags.config === undefined)) {
    throw new UsageError('rollback: --restore-config and --config go together in --settings mode');
  }
  const restore = resolve(flags['restore-config']);
  const config = resolve(flags.config);
  return rollbackSettingsFile({
    settings: resolve(flags.settings)!,
    ...(hooks === undefined ? {} : { hooks }),
    ...(restore === undefined ? {} : { restoreConfig: restore }),
    ...(config === undefined ? {} : { config }),
    dryRun: flags['dry-run'] === true,
    now: deps.now(),
    identity: deps.identity,
  });
}

export const rollbackCommand = defineCommand({
  name: 'rollback',
  summary:
    'Remove the managed hooks from an install profile or any Qwen settings file; restore a saved v1 config',
  help: ROLLBACK_HELP,
  flags: ROLLBACK_FLAGS,
  async run(flags, io, deps: RollbackDeps) {
    const resolve = (p: string | undefined) => (p === undefined ? undefined : path.resolve(io.cwd, p));
    if ((flags.dir === undefined) === (flags.settings === undefined)) {
      throw new UsageError('rollback: give either --dir DIR --profile KIND or --settings FILE');
    }
    const outcome =
      flags.dir !== undefined
        ? await rollbackProfile(flags, resolve, deps)
        : await rollbackFile(flags, resolve, deps);
    report(io, outcome, flags['dry-run'] === true);
    return 0;
  },
});
