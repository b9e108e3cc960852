// Building and sending a ProviderRequest: the same helpers for every provider, so what the engine
// sends, what probe sends and what a broker pins are one description.
import { joinUrl } from '../base/origin.js';
import { type CredentialHeader, JSON_HEADERS, postJson } from '../http/client.js';
import type { Transport } from '../http/transport.js';
import type { JsonObject } from '../text/json.js';
import type { CredentialPlacement, ProviderOperation, ProviderRequest } from './types.js';

/** A JSON POST to `origin` + `basePath` (trailing `/` dropped) + `path`. */
export function jsonPost(
  operation: ProviderOperation,
  endpoint: { origin: string; basePath: string; credential: CredentialPlacement },
  path: string,
  body: JsonObject,
): ProviderRequest {
  const url = joinUrl(endpoint.origin, endpoint.basePath, path);
  return {
    operation,
    method: 'POST',
    origin: endpoint.origin,
    path: url.slice(endpoint.origin.length),
    headers: JSON_HEADERS,
    credential: endpoint.credential,
    body,
  };
}

/** The request's absolute URL. */
export function requestUrl(request: Pick<ProviderRequest, 'origin' | 'path'>): string {
  return request.origin + request.path;
}

/** The credential header as sent. */
export function credentialHeader(placement: CredentialPlacement, credential: string): CredentialHeader {
  return { name: placement.header, value: `${placement.prefix}${credential}` };
}

/** Sends exactly `request` with the credential filled in; the parsed JSON of a 2xx answer. */
export function sendRequest(
  transport: Transport,
  request: ProviderRequest,
  credential: string,
  signal: AbortSignal,
): Promise<unknown> {
  return postJson(transport, {
    url: requestUrl(request),
    credential: credentialHeader(request.credential, credential),
    body: request.body,
    signal,
  });
}
