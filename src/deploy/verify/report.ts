// The verify report: every check that ran, passed or not, in a stable order so CI can diff it.
//   {"ok": bool, "dir": abs, "deployment": path|null,
//    "summary": {"errors": n, "warnings": n, "passed": n},
//    "checks": [{"id", "severity": "error"|"warning", "ok", "profile": kind|null, "file": rel|null, "message"}]}
// `ok` is false when any check with severity "error" failed; warnings never fail verify.
import type { AnyProfileKind } from '../../contracts/launch-plan.js';

export type Severity = 'error' | 'warning';

export interface Check {
  id: string;
  severity: Severity;
  ok: boolean;
  profile: AnyProfileKind | null;
  file: string | null;
  message: string;
}

export interface Scope {
  profile?: AnyProfileKind | null;
  file?: string | null;
}

export interface VerifyReport {
  ok: boolean;
  dir: string;
  deployment: string | null;
  summary: { errors: number; warnings: number; passed: number };
  checks: Check[];
}

/** Collects checks; `expect` records one pass, or one failure per problem found. */
export class Checks {
  readonly list: Check[] = [];

  add(id: string, scope: Scope, ok: boolean, message: string, severity: Severity = 'error'): void {
    this.list.push({ id, severity, ok, profile: scope.profile ?? null, file: scope.file ?? null, message });
  }

  expect(
    id: string,
    scope: Scope,
    problems: readonly string[],
    passMessage: string,
    severity: Severity = 'error',
  ): void {
    if (problems.length === 0) this.add(id, scope, true, passMessage, severity);
    for (const problem of problems) this.add(id, scope, false, problem, severity);
  }
}

const cmp = (a: string | null, b: string | null) =>
  (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0;

export function buildReport(dir: string, deployment: string | null, checks: readonly Check[]): VerifyReport {
  const sorted = [...checks].sort(
    (a, b) =>
      cmp(a.profile, b.profile) || cmp(a.file, b.file) || cmp(a.id, b.id) || cmp(a.message, b.message),
  );
  const failedErrors = sorted.filter((c) => !c.ok && c.severity === 'error').length;
  return {
    ok: failedErrors === 0,
    dir,
    deployment,
    summary: {
      errors: failedErrors,
      warnings: sorted.filter((c) => !c.ok && c.severity === 'warning').length,
      passed: sorted.filter((c) => c.ok).length,
    },
    checks: sorted,
  };
}

export function reportJson(report: VerifyReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Human-readable: every violation and warning on one line each, then a summary line. */
export function reportText(report: VerifyReport): string {
  const lines: string[] = [];
  for (const check of report.checks) {
    if (check.ok) continue;
    const where = [check.file ?? (check.profile === null ? '' : `profiles/${check.profile}`)].filter(
      (w) => w !== '',
    );
    const tag = check.severity === 'error' ? 'FAIL' : 'WARN';
    lines.push(`${tag} [${check.id}] ${where.length > 0 ? `${where[0]}: ` : ''}${check.message}`);
  }
  const { errors, warnings, passed } = report.summary;
  lines.push(
    `verify ${report.dir}: ${report.ok ? 'OK' : 'FAILED'} — ${errors} violation(s), ${warnings} warning(s), ${passed} check(s) passed`,
  );
  return `${lines.join('\n')}\n`;
}
