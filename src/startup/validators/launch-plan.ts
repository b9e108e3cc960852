// GENERATED from src/contracts/launch-plan-schema.ts by scripts/generate-validators.ts (`npm run schemas`); do not edit.
// validateLaunchPlan: the zod schema's answer (output, issues in order) with plain checks and no zod to
// load. test/unit/startup/validators.test.ts fails when this file is stale and proves the two agree.
import { aborted, type Issue, type Validation } from '../../base/validation.js';
import type { LaunchPlan } from '../../contracts/launch-plan.js';

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
  const values = ['on-demand', 'auto-recall', 'write'];
  if (!values.includes(v as never)) issues.push({ code: 'invalid_value', path: p });
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
  return v === undefined ? undefined : v5(v, p, issues);
}

function v7(v: unknown, p: Path, issues: Issue[]): unknown {
  const values = ['trusted', 'untrusted'];
  if (!values.includes(v as never)) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v8(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');
  const o = v as Json;
  const out: Json = {};
  for (const key of Object.keys(o)) {
    if (key !== '__proto__') out[key] = v3(o[key], [...p, key], issues);
  }
  return out;
}

function v9(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['PATH'] = v3(o['PATH'], [...p, 'PATH'], issues);
  out['inherit'] = v5(o['inherit'], [...p, 'inherit'], issues);
  out['set'] = v8(o['set'], [...p, 'set'], issues);
  out['files'] = v8(o['files'], [...p, 'files'], issues);
  out['fromFiles'] = v5(o['fromFiles'], [...p, 'fromFiles'], issues);
  const keys = ['PATH', 'inherit', 'set', 'files', 'fromFiles'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v10(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['users'] = v5(o['users'], [...p, 'users'], issues);
  out['groups'] = v5(o['groups'], [...p, 'groups'], issues);
  const keys = ['users', 'groups'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v11(v: unknown, p: Path, issues: Issue[]): unknown {
  return v === undefined ? undefined : v10(v, p, issues);
}

function v12(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== '127.0.0.1') issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v13(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(issues, p, 'number');
  if (!Number.isInteger(v)) return fail(issues, p, 'int');
  if (!Number.isSafeInteger(v))
    issues.push({ code: v > 0 ? 'too_big' : 'too_small', path: p, continue: true });
  return v;
}

function v14(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v13(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!((x as number) >= 1)) issues.push({ code: 'too_small', path: p, continue: true });
  if (!((x as number) <= 65535)) issues.push({ code: 'too_big', path: p, continue: true });
  return x;
}

function v15(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['name'] = v3(o['name'], [...p, 'name'], issues);
  out['port'] = v14(o['port'], [...p, 'port'], issues);
  const keys = ['name', 'port'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v16(v: unknown, p: Path, issues: Issue[]): unknown {
  if (!Array.isArray(v)) return fail(issues, p, 'array');
  const out: unknown[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v15(v[i], [...p, i], issues);
  return out;
}

function v17(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['user'] = v3(o['user'], [...p, 'user'], issues);
  out['host'] = v12(o['host'], [...p, 'host'], issues);
  out['key'] = v3(o['key'], [...p, 'key'], issues);
  out['listeners'] = v16(o['listeners'], [...p, 'listeners'], issues);
  out['keyVariables'] = v5(o['keyVariables'], [...p, 'keyVariables'], issues);
  const keys = ['user', 'host', 'key', 'listeners', 'keyVariables'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v18(v: unknown, p: Path, issues: Issue[]): unknown {
  return v === undefined ? undefined : v17(v, p, issues);
}

function v19(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['file'] = v3(o['file'], [...p, 'file'], issues);
  const keys = ['file'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v20(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== true) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v21(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['inherit'] = v20(o['inherit'], [...p, 'inherit'], issues);
  const keys = ['inherit'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v22(v: unknown, p: Path, issues: Issue[]): unknown {
  const i0: Issue[] = [];
  const o0 = v19(v, p, i0);
  if (i0.length === 0) return o0;
  const i1: Issue[] = [];
  const o1 = v21(v, p, i1);
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

function v23(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');
  const o = v as Json;
  const out: Json = {};
  for (const key of Object.keys(o)) {
    if (key !== '__proto__') out[key] = v22(o[key], [...p, key], issues);
  }
  return out;
}

function v24(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['argv'] = v5(o['argv'], [...p, 'argv'], issues);
  out['configFile'] = v3(o['configFile'], [...p, 'configFile'], issues);
  out['credentials'] = v5(o['credentials'], [...p, 'credentials'], issues);
  const keys = ['argv', 'configFile', 'credentials'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v25(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['version'] = v0(o['version'], [...p, 'version'], issues);
  out['profile'] = v1(o['profile'], [...p, 'profile'], issues);
  out['platform'] = v2(o['platform'], [...p, 'platform'], issues);
  out['installDir'] = v3(o['installDir'], [...p, 'installDir'], issues);
  out['installId'] = v4(o['installId'], [...p, 'installId'], issues);
  out['node'] = v3(o['node'], [...p, 'node'], issues);
  out['qwenCli'] = v3(o['qwenCli'], [...p, 'qwenCli'], issues);
  if ('qwenVersionsMissingSettings' in o)
    out['qwenVersionsMissingSettings'] = v6(
      o['qwenVersionsMissingSettings'],
      [...p, 'qwenVersionsMissingSettings'],
      issues,
    );
  out['argv'] = v5(o['argv'], [...p, 'argv'], issues);
  out['cwd'] = v3(o['cwd'], [...p, 'cwd'], issues);
  out['repositoryTrust'] = v7(o['repositoryTrust'], [...p, 'repositoryTrust'], issues);
  out['environment'] = v9(o['environment'], [...p, 'environment'], issues);
  if ('developers' in o) out['developers'] = v11(o['developers'], [...p, 'developers'], issues);
  if ('broker' in o) out['broker'] = v18(o['broker'], [...p, 'broker'], issues);
  out['credentials'] = v23(o['credentials'], [...p, 'credentials'], issues);
  out['externalContext'] = v24(o['externalContext'], [...p, 'externalContext'], issues);
  const keys = [
    'version',
    'profile',
    'platform',
    'installDir',
    'installId',
    'node',
    'qwenCli',
    'qwenVersionsMissingSettings',
    'argv',
    'cwd',
    'repositoryTrust',
    'environment',
    'developers',
    'broker',
    'credentials',
    'externalContext',
  ];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

/** For values JSON.parse makes (strings, numbers, booleans, null, arrays and plain objects). */
export function validateLaunchPlan(value: unknown): Validation<LaunchPlan> {
  const issues: Issue[] = [];
  const out = v25(value, [], issues);
  return issues.length === 0 ? { ok: true, value: out as LaunchPlan } : { ok: false, issues };
}
