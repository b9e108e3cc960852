// The runtime config schema's refinements as named functions. schema.ts hands them to zod; the
// hook's generated validator (src/startup/validators/runtime-config.ts, scripts/generate-validators.ts)
// imports them by these names, so a rule is written once. A refinement exported nowhere fails generation.
import { checkOrigin, isValidBasePath } from '../base/origin.js';

export { isValidBasePath };

/** An origin (https, or loopback http): docs/contracts.md, "HTTP client rules". */
export const isOrigin = (value: string): boolean => checkOrigin(value).ok;

/** What a scope string carries: the trimmed text. */
export const trimmed = (value: string): string => value.trim();

/** 1–256 UTF-16 units, upstream's length (string `length`, not code points). */
export const isScopeLength = (value: string): boolean => value.length > 0 && value.length <= 256;

/** A Mem0 endpoint's origin; plain http off loopback only with `allowInsecureHttp: true`. */
export const isEndpointOrigin = (endpoint: {
  origin: string;
  allowInsecureHttp?: boolean | undefined;
}): boolean => checkOrigin(endpoint.origin, { allowInsecureHttp: endpoint.allowInsecureHttp === true }).ok;
