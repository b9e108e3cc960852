// postJson: the one way providers talk HTTP (docs/contracts.md, "HTTP client rules"). One request, no
// retry, no redirect following; every failure is a ProviderRequestError with a fixed message.

import { decodeJson, readBoundedBody } from './read-body.js';
import { ProviderRequestError } from './request-error.js';
import type { Transport, TransportResponse } from './transport.js';

export interface CredentialHeader {
  /** Lower-case header name, e.g. `authorization` or `x-api-key`. */
  name: string;
  value: string;
}

export interface PostJsonRequest {
  url: string;
  credential: CredentialHeader;
  /** Serialised with `JSON.stringify`, key order preserved. */
  body: unknown;
  signal: AbortSignal;
}

/** Every header of a request but the credential's (providers describe their requests with it). */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  accept: 'application/json',
  'content-type': 'application/json',
});

/** Builds the complete header set: exactly one credential header, nothing else that carries data. */
export function requestHeaders(credential: CredentialHeader): Record<string, string> {
  return { ...JSON_HEADERS, [credential.name]: credential.value };
}

/** POSTs JSON and returns the parsed JSON answer of a 2xx response. */
export async function postJson(transport: Transport, request: PostJsonRequest): Promise<unknown> {
  let response: TransportResponse;
  try {
    response = await transport.post({
      url: request.url,
      headers: requestHeaders(request.credential),
      body: JSON.stringify(request.body),
      signal: request.signal,
    });
  } catch {
    // Refused, reset, timed out or aborted before a response head: never echo the cause (host names).
    throw new ProviderRequestError('incomplete');
  }
  const { status } = response;
  if (status >= 300 && status < 400) {
    // Redirects are never followed: they could carry the credential to another origin.
    response.cancel();
    throw new ProviderRequestError('invalid-response');
  }
  if (status < 200 || status >= 300) {
    // The code is kept: write outcomes treat 400/401/403/404 as a definitive rejection.
    response.cancel();
    throw new ProviderRequestError('http-status', status);
  }
  return decodeJson(await readBoundedBody(response));
}
