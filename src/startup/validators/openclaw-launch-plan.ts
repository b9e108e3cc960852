// GENERATED from src/contracts/openclaw-launch.ts by scripts/generate-validators.ts (`npm run schemas`); do not edit.
// validateOpenclawLaunchPlan: the zod schema's answer (output, issues in order) with plain checks and no zod to
// load. test/unit/startup/validators.test.ts fails when this file is stale and proves the two agree.
import { aborted, type Issue, type Validation } from '../../base/validation.js';
import type { OpenclawLaunchPlan } from '../../contracts/openclaw-launch.js';

type Path = (string | number)[];
type Json = Record<string, unknown>;

/** An invalid_type issue, which stops the value's checks. */
function fail(issues: Issue[], p: Path, expected: string): undefined {
  issues.push({ code: 'invalid_type', path: p, expected });
  return undefined;
}

function v0(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 1) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v1(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 'openclaw-recall') issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v2(v: unknown, p: Path, issues: Issue[]): unknown {
  const values = ['posix', 'windows'];
  if (!values.includes(v as never)) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v3(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'string') return fail(issues, p, 'string');
  return v;
}

function v4(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v3(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!/^[0-9a-f]{16}$/.test(x as string)) issues.push({ code: 'invalid_format', path: p, continue: true });
  return x;
}

function v5(v: unknown, p: Path, issues: Issue[]): unknown {
  if (!Array.isArray(v)) return fail(issues, p, 'array');
  const out: unknown[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v3(v[i], [...p, i], issues);
  return out;
}

function v6(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');
  const o = v as Json;
  const out: Json = {};
  for (const key of Object.keys(o)) {
    if (key !== '__proto__') out[key] = v3(o[key], [...p, key], issues);
  }
  return out;
}

function v7(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['PATH'] = v3(o['PATH'], [...p, 'PATH'], issues);
  out['inherit'] = v5(o['inherit'], [...p, 'inherit'], issues);
  out['set'] = v6(o['set'], [...p, 'set'], issues);
  out['files'] = v6(o['files'], [...p, 'files'], issues);
  const keys = ['PATH', 'inherit', 'set', 'files'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v8(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['file'] = v3(o['file'], [...p, 'file'], issues);
  const keys = ['file'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v9(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== true) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v10(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['inherit'] = v9(o['inherit'], [...p, 'inherit'], issues);
  const keys = ['inherit'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v11(v: unknown, p: Path, issues: Issue[]): unknown {
  const i0: Issue[] = [];
  const o0 = v8(v, p, i0);
  if (i0.length === 0) return o0;
  const i1: Issue[] = [];
  const o1 = v10(v, p, i1);
  if (i1.length === 0) return o1;
  const open = [i0, i1].filter((found) => !aborted(found, 0));
  if (open.length === 1) {
    issues.push(...open[0]!);
    if (open[0] === i0) return o0;
    return o1;
  }
  issues.push({ code: 'invalid_union', path: p });
  return v;
}

function v12(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');
  const o = v as Json;
  const out: Json = {};
  for (const key of Object.keys(o)) {
    if (key !== '__proto__') out[key] = v11(o[key], [...p, key], issues);
  }
  return out;
}

function v13(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['credentials'] = v5(o['credentials'], [...p, 'credentials'], issues);
  const keys = ['credentials'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v14(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['version'] = v0(o['version'], [...p, 'version'], issues);
  out['profile'] = v1(o['profile'], [...p, 'profile'], issues);
  out['platform'] = v2(o['platform'], [...p, 'platform'], issues);
  out['installDir'] = v3(o['installDir'], [...p, 'installDir'], issues);
  out['installId'] = v4(o['installId'], [...p, 'installId'], issues);
  out['node'] = v3(o['node'], [...p, 'node'], issues);
  out['cli'] = v3(o['cli'], [...p, 'cli'], issues);
  out['openclawVersion'] = v3(o['openclawVersion'], [...p, 'openclawVersion'], issues);
  out['argv'] = v5(o['argv'], [...p, 'argv'], issues);
  out['cwd'] = v3(o['cwd'], [...p, 'cwd'], issues);
  out['environment'] = v7(o['environment'], [...p, 'environment'], issues);
  out['credentials'] = v12(o['credentials'], [...p, 'credentials'], issues);
  out['externalContext'] = v13(o['externalContext'], [...p, 'externalContext'], issues);
  const keys = [
    'version',
    'profile',
    'platform',
    'installDir',
    'installId',
    'node',
    'cli',
    'openclawVersion',
    'argv',
    'cwd',
    'environment',
    'credentials',
    'externalContext',
  ];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

/** For values JSON.parse makes (strings, numbers, booleans, null, arrays and plain objects). */
export function validateOpenclawLaunchPlan(value: unknown): Validation<OpenclawLaunchPlan> {
  const issues: Issue[] = [];
  const out = v14(value, [], issues);
  return issues.length === 0 ? { ok: true, value: out as OpenclawLaunchPlan } : { ok: false, issues };
}
