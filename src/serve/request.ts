// The Generic HTTP Search v1 request as the server accepts it, and every error it can answer. Pure.
import { codePointLength } from '../text/codepoints.js';

export interface ApiError {
  status: number;
  code: string;
  /** Fixed wording: never built from request data, so it can never echo a query. */
  message: string;
}

export interface SearchRequestLimits {
  maxBodyBytes: number;
  maxQueryChars: number;
  maxLimit: number;
}

export const DEFAULT_REQUEST_LIMITS: SearchRequestLimits = {
  maxBodyBytes: 64 * 1024,
  maxQueryChars: 4096,
  maxLimit: 5,
};

export const ERRORS = {
  notFound: { status: 404, code: 'not_found', message: 'No such endpoint; use POST /v1/context/search.' },
  methodNotAllowed: { status: 405, code: 'method_not_allowed', message: 'Only POST is allowed here.' },
  unauthorized: { status: 401, code: 'unauthorized', message: 'A valid bearer token is required.' },
  unsupportedMediaType: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'The body must be sent as application/json (UTF-8).',
  },
  payloadTooLarge: { status: 413, code: 'payload_too_large', message: 'The request body is too large.' },
  invalidJson: { status: 400, code: 'invalid_json', message: 'The body is not valid UTF-8 JSON.' },
  invalidRequest: {
    status: 400,
    code: 'invalid_request',
    message: 'The body must be a JSON object with exactly the fields "query" and "limit".',
  },
  internal: { status: 500, code: 'internal', message: 'The search could not be completed.' },
} as const satisfies Record<string, ApiError>;

function queryError(status: number, limits: SearchRequestLimits): ApiError {
  return {
    status,
    code: 'invalid_query',
    message: `"query" must be a non-blank string of at most ${limits.maxQueryChars} characters.`,
  };
}

function limitError(status: number, limits: SearchRequestLimits): ApiError {
  return {
    status,
    code: 'invalid_limit',
    message: `"limit" must be an integer from 1 to ${limits.maxLimit}.`,
  };
}

/** `application/json`, with parameters allowed but any charset other than UTF-8 refused. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param));
}

/**
 * Validates a decoded body. Structure problems (not an object, a missing, extra or wrongly typed field)
 * are 400; well-typed values outside the allowed range are 422.
 */
export function parseSearchBody(
  body: unknown,
  limits: SearchRequestLimits = DEFAULT_REQUEST_LIMITS,
): { ok: true; query: string; limit: number } | { ok: false; error: ApiError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: ERRORS.invalidRequest };
  }
  const record = body as Record<string, unknown>;
  if (Object.keys(record).some((key) => key !== 'query' && key !== 'limit')) {
    return { ok: false, error: ERRORS.invalidRequest };
  }
  const { query, limit } = record;
  if (typeof query !== 'string') return { ok: false, error: queryError(400, limits) };
  if (typeof limit !== 'number') return { ok: false, error: limitError(400, limits) };
  if (query.trim() === '' || codePointLength(query) > limits.maxQueryChars) {
    return { ok: false, error: queryError(422, limits) };
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > limits.maxLimit) {
    return { ok: false, error: limitError(422, limits) };
  }
  return { ok: true, query, limit };
}
