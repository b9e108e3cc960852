// `qwen-managed verify --dir DIR [--deployment FILE] [--json] [--skip-smoke] [--runtime-dir DIR]`
import * as path from 'node:path';
import { EXIT, exitCodeOf } from '../../base/errors.js';
import { reportJson, reportText } from '../../deploy/verify/report.js';
import { runVerify } from '../../deploy/verify/run.js';
import { defineCommand } from '../command.js';
import { UsageError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';
import { required } from '../flags.js';

export const VERIFY_HELP = `Usage: qwen-managed verify --dir DIR [--deployment FILE] [--json] [--skip-smoke] [--runtime-dir DIR]

Checks an install tree (or a staged one): manifest.json and every file's sha256 and mode, no
unlisted file, the schema of every rendered file, profile exclusivity, provider config versions,
pinned paths (absolute, no \`$\` or control characters), hook commands (\`exec\` + the pinned node and
runtime, exactly quoted), nested timeouts, the managed settings baseline, the argument and
environment policies, the pinned files on this machine — on the real install (DIR is the installDir
its plans name) the launcher's own host checks, a missing node, Qwen or credential file included;
on a staged tree absent is a warning —, the Qwen version, a smoke run of each bundled runtime, and
with --deployment: drift against a fresh in-memory render, byte for byte.

Options:
  --dir DIR          the install directory or staged tree (required)
  --deployment FILE  also check deployment.json and drift against it
  --json             print the report as JSON (stable order, for CI)
  --skip-smoke       do not run the bundled runtimes
  --runtime-dir DIR  the toolkit's bundled runtimes for the drift render (default: dist/runtime)
  -h, --help         show this help

JSON report: {"ok", "dir", "deployment", "summary": {"errors", "warnings", "passed"},
  "checks": [{"id", "severity": "error"|"warning", "ok", "profile", "file", "message"}]}
  With --json, stdout is JSON for every outcome: a verify that cannot run (unreadable input, not an
  install tree, usage error) prints {"ok": false, "error": {"kind": "input"|"usage"|"internal",
  "message"}, "exitCode"} and the same message on stderr.

Exit codes: 0 every check holds (warnings allowed), 1 violations found (or unreadable input),
2 usage error.
`;

/** `verify --json` when verify cannot run: still JSON on stdout, so a CI parser never sees nothing. */
export function verifyErrorJson(error: unknown): string {
  const code = exitCodeOf(error);
  const kind = error instanceof UsageError ? 'usage' : code === EXIT.internal ? 'internal' : 'input';
  const message = error instanceof Error ? error.message : String(error);
  return `${JSON.stringify({ ok: false, error: { kind, message }, exitCode: code }, null, 2)}\n`;
}

export const verifyCommand = defineCommand({
  name: 'verify',
  summary: 'Check an install tree against the managed contract (and deployment.json for drift)',
  help: VERIFY_HELP,
  flags: {
    dir: { type: 'string' },
    deployment: { type: 'string' },
    json: { type: 'boolean' },
    'skip-smoke': { type: 'boolean' },
    'runtime-dir': { type: 'string' },
  },
  async run(flags, io, deps: AdminDeps) {
    const dir = path.resolve(io.cwd, required('verify', 'dir', flags.dir));
    const report = await runVerify({
      dir,
      ...(flags.deployment === undefined ? {} : { deploymentFile: path.resolve(io.cwd, flags.deployment) }),
      runtimeDir:
        flags['runtime-dir'] === undefined
          ? await deps.runtimeDir()
          : path.resolve(io.cwd, flags['runtime-dir']),
      toolkitVersion: deps.toolkitVersion,
      smoke: flags['skip-smoke'] !== true,
      hostPlatform: deps.hostPlatform,
      fallbackNode: deps.nodePath,
      now: deps.now(),
    });
    io.stdout.write(flags.json === true ? reportJson(report) : reportText(report));
    return report.ok ? 0 : 1;
  },
  refused(error, args, io) {
    // Any spelling parseArgs accepts for the flag (`--json`, `--json=`) counts.
    if (args.some((a) => a === '--json' || a.startsWith('--json='))) io.stdout.write(verifyErrorJson(error));
  },
});
