// The outcome mapping as pure functions (the same rows run against the fakes in
// test/integration/providers/write-outcomes.test.ts).
import { describe, expect, it } from 'vitest';
import { ProviderRequestError } from '../../../src/http/request-error.js';
import {
  isUuid,
  isValidProviderId,
  outcomeFromError,
  outcomeFromResponse,
} from '../../../src/providers/mem0/write-outcome.js';
import type { RememberResult } from '../../../src/providers/types.js';

const UUID = '3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b';

describe('outcomeFromError', () => {
  it.each<[string, unknown, RememberResult['status']]>([
    ['HTTP 400', new ProviderRequestError('http-status', 400), 'failed'],
    ['HTTP 401', new ProviderRequestError('http-status', 401), 'failed'],
    ['HTTP 403', new ProviderRequestError('http-status', 403), 'failed'],
    ['HTTP 404', new ProviderRequestError('http-status', 404), 'failed'],
    ['HTTP 405', new ProviderRequestError('http-status', 405), 'unknown'],
    ['HTTP 409', new ProviderRequestError('http-status', 409), 'unknown'],
    ['HTTP 422', new ProviderRequestError('http-status', 422), 'unknown'],
    ['HTTP 429', new ProviderRequestError('http-status', 429), 'unknown'],
    ['HTTP 500', new ProviderRequestError('http-status', 500), 'unknown'],
    ['HTTP 502', new ProviderRequestError('http-status', 502), 'unknown'],
    ['invalid response', new ProviderRequestError('invalid-response'), 'unknown'],
    ['incomplete', new ProviderRequestError('incomplete'), 'unknown'],
    ['foreign error', new TypeError('boom'), 'unknown'],
    ['non-error throw', 404, 'unknown'],
  ])('%s → %s', (_label, error, status) => {
    expect(outcomeFromError(error)).toEqual({ status });
  });
});

describe('outcomeFromResponse: async-status (Platform V3)', () => {
  it.each<[string, unknown, RememberResult]>([
    [
      'PENDING + uuid',
      { event_id: UUID, status: 'PENDING' },
      { status: 'accepted', providerOperationId: UUID },
    ],
    [
      'PENDING + upper-case uuid',
      { event_id: UUID.toUpperCase(), status: 'PENDING' },
      {
        status: 'accepted',
        providerOperationId: UUID.toUpperCase(),
      },
    ],
    ['PENDING + non-uuid id', { event_id: 'evt-1', status: 'PENDING' }, { status: 'unknown' }],
    [
      'PENDING + uuid without dashes',
      { event_id: UUID.replaceAll('-', ''), status: 'PENDING' },
      { status: 'unknown' },
    ],
    ['PENDING + numeric id', { event_id: 12, status: 'PENDING' }, { status: 'unknown' }],
    ['PENDING without id', { status: 'PENDING' }, { status: 'unknown' }],
    [
      'SUCCEEDED + uuid',
      { event_id: UUID, status: 'SUCCEEDED' },
      { status: 'stored', providerOperationId: UUID },
    ],
    ['SUCCEEDED without id', { status: 'SUCCEEDED' }, { status: 'stored' }],
    ['SUCCEEDED + invalid id', { event_id: 'nope', status: 'SUCCEEDED' }, { status: 'unknown' }],
    ['SUCCEEDED + null id', { event_id: null, status: 'SUCCEEDED' }, { status: 'unknown' }],
    ['FAILED', { event_id: UUID, status: 'FAILED' }, { status: 'failed' }],
    ['lower-case pending is another status', { event_id: UUID, status: 'pending' }, { status: 'unknown' }],
    ['RUNNING', { event_id: UUID, status: 'RUNNING' }, { status: 'unknown' }],
    ['no status', { event_id: UUID }, { status: 'unknown' }],
    ['array root (v1-style list)', [{ event_id: UUID, status: 'PENDING' }], { status: 'unknown' }],
    ['null', null, { status: 'unknown' }],
    ['string', 'PENDING', { status: 'unknown' }],
  ])('%s', (_label, answer, expected) => {
    expect(outcomeFromResponse('async-status', answer)).toEqual(expected);
  });
});

describe('outcomeFromResponse: results-id (OSS, PolarDB, mem0-v2)', () => {
  it.each<[string, unknown, RememberResult]>([
    [
      'one ADD result',
      { results: [{ id: 'm-1', memory: 'x', event: 'ADD' }] },
      { status: 'stored', providerOperationId: 'm-1' },
    ],
    [
      'first valid id among several',
      { results: [{ id: '' }, 'x', { id: 'm-2' }, { id: 'm-3' }] },
      {
        status: 'stored',
        providerOperationId: 'm-2',
      },
    ],
    ['empty results', { results: [] }, { status: 'unknown' }],
    ['no results array', { id: 'm-1' }, { status: 'unknown' }],
    ['results not an array', { results: { id: 'm-1' } }, { status: 'unknown' }],
    ['blank id', { results: [{ id: '   ' }] }, { status: 'unknown' }],
    ['numeric id', { results: [{ id: 42 }] }, { status: 'unknown' }],
    ['id with C0', { results: [{ id: 'm\u0000-1' }] }, { status: 'unknown' }],
    ['id with newline', { results: [{ id: 'm-1\n' }] }, { status: 'unknown' }],
    ['id with DEL', { results: [{ id: 'm\u007f' }] }, { status: 'unknown' }],
    ['array root', [{ id: 'm-1' }], { status: 'unknown' }],
    ['null', null, { status: 'unknown' }],
  ])('%s', (_label, answer, expected) => {
    expect(outcomeFromResponse('results-id', answer)).toEqual(expected);
  });
});

describe('id validators', () => {
  it.each<[unknown, boolean]>([
    [UUID, true],
    [UUID.toUpperCase(), true],
    [`${UUID}0`, false],
    [` ${UUID}`, false],
    ['3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6g', false],
    [undefined, false],
  ])('isUuid(%j) = %s', (value, expected) => {
    expect(isUuid(value)).toBe(expected);
  });

  it.each<[string, unknown, boolean]>([
    ['256 code points', 'a'.repeat(256), true],
    ['257 code points', 'a'.repeat(257), false],
    ['256 astral code points (512 UTF-16 units)', '😀'.repeat(256), true],
    ['257 astral code points', '😀'.repeat(257), false],
    ['tab (C0)', 'a\tb', false],
    ['U+0080 (C1, allowed)', 'a\u0080b', true],
    ['inner spaces', 'a b', true],
    ['empty', '', false],
    ['only spaces', '  ', false],
    ['only NBSP', '\u00a0', false],
    ['number', 1, false],
  ])('isValidProviderId: %s → %s', (_label, value, expected) => {
    expect(isValidProviderId(value)).toBe(expected);
  });
});
