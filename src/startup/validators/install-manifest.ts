// GENERATED from src/contracts/install-manifest-schema.ts by scripts/generate-validators.ts (`npm run schemas`); do not edit.
// validateInstallManifest: the zod schema's answer (output, issues in order) with plain checks and no zod to
// load. test/unit/startup/validators.test.ts fails when this file is stale and proves the two agree.
import { aborted, type Issue, type Validation } from '../../base/validation.js';
import type { InstallManifest } from '../../contracts/install-manifest.js';

type Path = (string | number)[];
type Json = Record<string, unknown>;

/** An invalid_type issue, which stops the value's checks. */
function fail(issues: Issue[], p: Path, expected: string): undefined {
  issues.push({ code: 'invalid_type', path: p, expected });
  return undefined;
}

function v0(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'string') return fail(issues, p, 'string');
  return v;
}

function v1(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v0(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!/^[0-9a-f]{64}$/.test(x as string)) issues.push({ code: 'invalid_format', path: p, continue: true });
  return x;
}

function v2(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(issues, p, 'number');
  if (!Number.isInteger(v)) return fail(issues, p, 'int');
  if (!Number.isSafeInteger(v))
    issues.push({ code: v > 0 ? 'too_big' : 'too_small', path: p, continue: true });
  return v;
}

function v3(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v2(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!((x as number) >= 0)) issues.push({ code: 'too_small', path: p, continue: true });
  return x;
}

function v4(v: unknown, p: Path, issues: Issue[]): unknown {
  return v === undefined ? undefined : v0(v, p, issues);
}

function v5(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v0(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!/^0[0-7]{3}$/.test(x as string)) issues.push({ code: 'invalid_format', path: p, continue: true });
  return x;
}

function v6(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['sha256'] = v1(o['sha256'], [...p, 'sha256'], issues);
  out['mode'] = v5(o['mode'], [...p, 'mode'], issues);
  const keys = ['sha256', 'mode'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v7(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');
  const o = v as Json;
  const out: Json = {};
  for (const key of Object.keys(o)) {
    if (key !== '__proto__') out[key] = v6(o[key], [...p, key], issues);
  }
  return out;
}

function v8(v: unknown, p: Path, issues: Issue[]): unknown {
  const values = ['active', 'rolled-back'];
  if (!values.includes(v as never)) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v9(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['state'] = v8(o['state'], [...p, 'state'], issues);
  out['changedAt'] = v0(o['changedAt'], [...p, 'changedAt'], issues);
  const keys = ['state', 'changedAt'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v10(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');
  const o = v as Json;
  const out: Json = {};
  const keys = ['on-demand', 'auto-recall', 'write', 'openclaw-recall'];
  const unknown: string[] = [];
  for (const key of Object.keys(o)) {
    if (key === '__proto__') continue;
    if (keys.includes(key)) out[key] = v9(o[key], [...p, key], issues);
    else unknown.push(key);
  }
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v11(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['toolkitVersion'] = v0(o['toolkitVersion'], [...p, 'toolkitVersion'], issues);
  out['deploymentSha256'] = v1(o['deploymentSha256'], [...p, 'deploymentSha256'], issues);
  out['adminUid'] = v3(o['adminUid'], [...p, 'adminUid'], issues);
  if ('deploymentFile' in o)
    out['deploymentFile'] = v4(o['deploymentFile'], [...p, 'deploymentFile'], issues);
  out['files'] = v7(o['files'], [...p, 'files'], issues);
  out['profiles'] = v10(o['profiles'], [...p, 'profiles'], issues);
  const keys = ['toolkitVersion', 'deploymentSha256', 'adminUid', 'deploymentFile', 'files', 'profiles'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

/** For values JSON.parse makes (strings, numbers, booleans, null, arrays and plain objects). */
export function validateInstallManifest(value: unknown): Validation<InstallManifest> {
  const issues: Issue[] = [];
  const out = v11(value, [], issues);
  return issues.length === 0 ? { ok: true, value: out as InstallManifest } : { ok: false, issues };
}
