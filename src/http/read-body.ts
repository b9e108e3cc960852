// Bounded body reading: the 1 MiB cap is enforced on the declared length AND on the running total,
// because a server may omit or lie about content-length.
import { parseJsonBytes } from '../text/json.js';
import { ProviderRequestError } from './request-error.js';
import type { TransportResponse } from './transport.js';

export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Reads the whole body, cancelling the response as soon as it exceeds the cap. */
export async function readBoundedBody(
  response: TransportResponse,
  maxBytes = MAX_RESPONSE_BYTES,
): Promise<Uint8Array> {
  const declared = response.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > maxBytes) {
    response.cancel();
    throw new ProviderRequestError('invalid-response');
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        response.cancel();
        throw new ProviderRequestError('invalid-response');
      }
      chunks.push(chunk);
    }
  } catch (error) {
    response.cancel();
    if (error instanceof ProviderRequestError) throw error;
    // Reset, abort or idle timeout mid-body: the provider may or may not have acted.
    throw new ProviderRequestError('incomplete');
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** UTF-8 (fatal) → JSON. Empty, non-UTF-8 and non-JSON bodies are invalid responses. */
export function decodeJson(bytes: Uint8Array): unknown {
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) throw new ProviderRequestError('invalid-response');
  return parsed.value;
}
