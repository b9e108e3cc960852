// The one provider engine: whatever the type, it sends exactly the requests describeProvider()
// describes (src/providers/describe.ts) and reads the answers with the same description.
import type { ProviderConfig } from '../config/schema.js';
import type { Transport } from '../http/transport.js';
import { type DescribeOptions, describeProvider } from './describe.js';
import { normaliseItems } from './items.js';
import { outcomeFromError } from './mem0/write-outcome.js';
import { sendRequest } from './request.js';
import type { ContextItem, Provider, RememberResult } from './types.js';

export interface ProviderFactoryOptions extends DescribeOptions {
  transport: Transport;
}

export function createProvider(
  config: ProviderConfig,
  credential: string,
  options: ProviderFactoryOptions,
): Provider {
  const contract = describeProvider(config, options);
  const { transport } = options;
  const provider: Provider = {
    async search(request): Promise<ContextItem[]> {
      const { search } = contract;
      const answer = await sendRequest(
        transport,
        search.request(request.query, request.limit),
        credential,
        request.signal,
      );
      return normaliseItems(search.results(answer), request.limit, search.content);
    },
  };
  const remember = contract.remember;
  if (remember !== undefined) {
    provider.writer = {
      // Exactly one request: no retry, no event polling, no dedup search. Never throws.
      async remember(request): Promise<RememberResult> {
        let answer: unknown;
        try {
          answer = await sendRequest(
            transport,
            remember.request(request.content),
            credential,
            request.signal,
          );
        } catch (error) {
          return outcomeFromError(error);
        }
        return remember.outcome(answer);
      },
    };
  }
  return provider;
}
