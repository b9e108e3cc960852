// GENERATED from src/config/schema.ts by scripts/generate-validators.ts (`npm run schemas`); do not edit.
// validateRuntimeConfig: the zod schema's answer (output, issues in order) with plain checks and no zod to
// load. test/unit/startup/validators.test.ts fails when this file is stale and proves the two agree.
import { aborted, type Issue, type Validation } from '../../base/validation.js';
import { isEndpointOrigin, isOrigin, isScopeLength, isValidBasePath, trimmed } from '../../config/rules.js';
import type { RuntimeConfig } from '../../config/schema.js';

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
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(issues, p, 'number');
  if (!Number.isInteger(v)) return fail(issues, p, 'int');
  if (!Number.isSafeInteger(v))
    issues.push({ code: v > 0 ? 'too_big' : 'too_small', path: p, continue: true });
  return v;
}

function v2(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v1(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!((x as number) >= 1)) issues.push({ code: 'too_small', path: p, continue: true });
  if (!((x as number) <= 30000)) issues.push({ code: 'too_big', path: p, continue: true });
  return x;
}

function v3(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v === undefined) return 5000;
  const out = v2(v, p, issues);
  return out === undefined ? 5000 : out;
}

function v4(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 'generic-http-search-v1') issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v5(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'string') return fail(issues, p, 'string');
  return v;
}

function v6(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v5(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!isOrigin(x as never)) issues.push({ code: 'custom', path: p, continue: true });
  return x;
}

function v7(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v5(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(x as string))
    issues.push({ code: 'invalid_format', path: p, continue: true });
  return x;
}

function v8(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['type'] = v4(o['type'], [...p, 'type'], issues);
  out['baseUrl'] = v6(o['baseUrl'], [...p, 'baseUrl'], issues);
  out['tokenEnv'] = v7(o['tokenEnv'], [...p, 'tokenEnv'], issues);
  const keys = ['type', 'baseUrl', 'tokenEnv'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v9(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 'mem0-platform-v3') issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v10(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  let x = v5(v, p, issues);
  if (aborted(issues, s)) return x;
  x = trimmed(x as never);
  if (!isScopeLength(x as never)) issues.push({ code: 'custom', path: p, continue: true });
  return x;
}

function v11(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['type'] = v9(o['type'], [...p, 'type'], issues);
  out['apiKeyEnv'] = v7(o['apiKeyEnv'], [...p, 'apiKeyEnv'], issues);
  out['appId'] = v10(o['appId'], [...p, 'appId'], issues);
  const keys = ['type', 'apiKeyEnv', 'appId'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v12(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 'mem0') issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v13(v: unknown, p: Path, issues: Issue[]): unknown {
  const values = [
    'mem0-platform-v3',
    'mem0-v3',
    'mem0-oss-rest-2026-08',
    'mem0-oss-2026-08',
    'aliyun-polardb-mysql-2026-08',
    'mem0-v2',
  ];
  if (!values.includes(v as never)) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v14(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v5(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!isValidBasePath(x as never)) issues.push({ code: 'custom', path: p, continue: true });
  return x;
}

function v15(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v === undefined) return '';
  const out = v14(v, p, issues);
  return out === undefined ? '' : out;
}

function v16(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'boolean') return fail(issues, p, 'boolean');
  return v;
}

function v17(v: unknown, p: Path, issues: Issue[]): unknown {
  return v === undefined ? undefined : v16(v, p, issues);
}

function v18(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['origin'] = v5(o['origin'], [...p, 'origin'], issues);
  out['basePath'] = v15(o['basePath'], [...p, 'basePath'], issues);
  if ('allowInsecureHttp' in o)
    out['allowInsecureHttp'] = v17(o['allowInsecureHttp'], [...p, 'allowInsecureHttp'], issues);
  const keys = ['origin', 'basePath', 'allowInsecureHttp'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v19(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v18(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!isEndpointOrigin(x as never)) issues.push({ code: 'custom', path: [...p, 'origin'], continue: true });
  return x;
}

function v20(v: unknown, p: Path, issues: Issue[]): unknown {
  return v === undefined ? undefined : v10(v, p, issues);
}

function v21(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  if ('userId' in o) out['userId'] = v20(o['userId'], [...p, 'userId'], issues);
  if ('agentId' in o) out['agentId'] = v20(o['agentId'], [...p, 'agentId'], issues);
  if ('appId' in o) out['appId'] = v20(o['appId'], [...p, 'appId'], issues);
  const keys = ['userId', 'agentId', 'appId'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v22(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['type'] = v12(o['type'], [...p, 'type'], issues);
  out['preset'] = v13(o['preset'], [...p, 'preset'], issues);
  out['endpoint'] = v19(o['endpoint'], [...p, 'endpoint'], issues);
  out['credentialEnv'] = v7(o['credentialEnv'], [...p, 'credentialEnv'], issues);
  out['scope'] = v21(o['scope'], [...p, 'scope'], issues);
  const keys = ['type', 'preset', 'endpoint', 'credentialEnv', 'scope'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v23(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 'dataworks-bff-memory-v1') issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v24(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['type'] = v23(o['type'], [...p, 'type'], issues);
  out['baseUrl'] = v6(o['baseUrl'], [...p, 'baseUrl'], issues);
  out['tokenEnv'] = v7(o['tokenEnv'], [...p, 'tokenEnv'], issues);
  const keys = ['type', 'baseUrl', 'tokenEnv'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v25(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  switch ((v as Json)['type']) {
    case 'generic-http-search-v1':
      return v8(v, p, issues);
    case 'mem0-platform-v3':
      return v11(v, p, issues);
    case 'mem0':
      return v22(v, p, issues);
    case 'dataworks-bff-memory-v1':
      return v24(v, p, issues);
    default:
      issues.push({ code: 'invalid_union', path: [...p, 'type'] });
      return v;
  }
}

function v26(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== true) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v27(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['enabled'] = v26(o['enabled'], [...p, 'enabled'], issues);
  const keys = ['enabled'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v28(v: unknown, p: Path, issues: Issue[]): unknown {
  return v === undefined ? undefined : v27(v, p, issues);
}

function v29(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['version'] = v0(o['version'], [...p, 'version'], issues);
  out['timeoutMs'] = v3(o['timeoutMs'], [...p, 'timeoutMs'], issues);
  out['provider'] = v25(o['provider'], [...p, 'provider'], issues);
  if ('write' in o) out['write'] = v28(o['write'], [...p, 'write'], issues);
  const keys = ['version', 'timeoutMs', 'provider', 'write'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v30(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v !== 2) issues.push({ code: 'invalid_value', path: p });
  return v;
}

function v31(v: unknown, p: Path, issues: Issue[]): unknown {
  const s = issues.length;
  const x = v1(v, p, issues);
  if (aborted(issues, s)) return x;
  if (!((x as number) >= 1)) issues.push({ code: 'too_small', path: p, continue: true });
  if (!((x as number) <= 5000)) issues.push({ code: 'too_big', path: p, continue: true });
  return x;
}

function v32(v: unknown, p: Path, issues: Issue[]): unknown {
  if (v === undefined) return 1500;
  const out = v31(v, p, issues);
  return out === undefined ? 1500 : out;
}

function v33(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['repositoryRoot'] = v5(o['repositoryRoot'], [...p, 'repositoryRoot'], issues);
  out['timeoutMs'] = v32(o['timeoutMs'], [...p, 'timeoutMs'], issues);
  const keys = ['repositoryRoot', 'timeoutMs'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v34(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  const o = v as Json;
  const out: Json = {};
  out['version'] = v30(o['version'], [...p, 'version'], issues);
  out['timeoutMs'] = v3(o['timeoutMs'], [...p, 'timeoutMs'], issues);
  out['autoRecall'] = v33(o['autoRecall'], [...p, 'autoRecall'], issues);
  out['provider'] = v25(o['provider'], [...p, 'provider'], issues);
  const keys = ['version', 'timeoutMs', 'autoRecall', 'provider'];
  const unknown = Object.keys(o).filter((key) => !keys.includes(key));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });
  return out;
}

function v35(v: unknown, p: Path, issues: Issue[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');
  switch ((v as Json)['version']) {
    case 1:
      return v29(v, p, issues);
    case 2:
      return v34(v, p, issues);
    default:
      issues.push({ code: 'invalid_union', path: [...p, 'version'] });
      return v;
  }
}

/** For values JSON.parse makes (strings, numbers, booleans, null, arrays and plain objects). */
export function validateRuntimeConfig(value: unknown): Validation<RuntimeConfig> {
  const issues: Issue[] = [];
  const out = v35(value, [], issues);
  return issues.length === 0 ? { ok: true, value: out as RuntimeConfig } : { ok: false, issues };
}
