// The one error the HTTP client throws. Messages are fixed text: never a URL, a credential, a header
// or any byte of the response. No `cause` is attached, because causes can embed host names.

import { EXIT, ManagedError } from '../base/errors.js';

export type ProviderRequestErrorKind = 'invalid-response' | 'http-status' | 'incomplete';

export class ProviderRequestError extends ManagedError {
  override readonly name = 'ProviderRequestError';
  readonly exitCode = EXIT.failure;
  readonly fixedMessage = true;
  readonly kind: ProviderRequestErrorKind;
  /** The HTTP status, only for `http-status` (write outcomes distinguish 400/401/403/404). */
  readonly status: number | undefined;

  constructor(kind: ProviderRequestErrorKind, status?: number) {
    super(messageFor(kind, status));
    this.kind = kind;
    this.status = kind === 'http-status' ? status : undefined;
  }
}

function messageFor(kind: ProviderRequestErrorKind, status: number | undefined): string {
  switch (kind) {
    case 'invalid-response':
      return 'The provider response is invalid.';
    case 'http-status':
      return `The provider answered with HTTP status ${status}.`;
    case 'incomplete':
      return 'The provider request did not complete.';
  }
}

export function isProviderRequestError(error: unknown): error is ProviderRequestError {
  return error instanceof ProviderRequestError;
}
