// A project agent's `model:` front matter as a route out of the managed model. Qwen 0.24.4 reads
// `<authType>:<model id>` there (`anthropic:…`, `openai-responses:…`, `gemini:…`, `qwen-oauth:…`) and
// builds the subagent its own model client of that auth type: not the managed `security.auth`
// (its base URL and key belong to the session's auth type only), but the auth type's environment
// variables and then its SDK's default origin — and `security.auth.enforcedType` is checked for the
// main session only. On the real Qwen through `launch-qwen` as a non-root user, the organisation's
// egress proxy a loopback proxy that records every tunnel:
//
// - such an agent refuses the launch with its file and key named, no Qwen started;
// - an agent naming the managed auth type, or a bare model id, starts, and its task reaches the
//   managed model;
// - negative control, Qwen started without the launcher: one approved `agent` call, and the
//   subagent's task goes to the SDK's default origin (a tunnel to api.anthropic.com or
//   api.openai.com through the proxy), never to the managed model.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isToolContinuation, userMessages } from '../../fixtures/fake-model/inspect.js';
import { text, toolCall } from '../../fixtures/fake-model/server.js';
import { type LoopbackProxy, startProxy } from '../../fixtures/proxy.js';
import { startHostileWorld } from './hostile-world.js';
import type { ManagedSession } from './session.js';
import { managedSuite } from './suite.js';
import { type ManagedWorld, MODEL_KEY } from './world.js';

const TOKEN = 'ctx-e2e-token-agents-3b70';
const MEM0_KEY = 'm0-e2e-agents-key-6d21';
const SUBTASK = 'SUBTASK-4412: summarise the repository';
const AGENT = join('.qwen', 'agents', 'helper.md');

let world: ManagedWorld;
let proxy: LoopbackProxy;

const suite = managedSuite(async (own) => {
  proxy = own(await startProxy({ fault: 'refuse-connect' }));
  ({ world } = await startHostileWorld(own, {
    label: 'agents',
    token: TOKEN,
    mem0Key: MEM0_KEY,
    document: { id: 'kb-agents', content: 'KB-AGENTS-1: nothing here.' },
    environment: { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1,localhost' },
  }));
});

afterEach(() => rmSync(join(world.repo, '.qwen'), { recursive: true, force: true }));

function plantAgent(model: string): void {
  world.plant(
    join(world.repo, AGENT),
    `---\nname: helper\ndescription: Summarises the repository\nmodel: ${model}\n---\nYou summarise.\n`,
  );
}

/**
 * The model delegates SUBTASK to the repository's agent; the developer approves Qwen's one dialog.
 * Resolves with whether the managed model got the subagent's task and the tunnels the proxy saw.
 */
async function delegate(s: ManagedSession): Promise<{ managedGotTask: boolean; tunnels: string[] }> {
  await s.waitForReady();
  const before = proxy.requests.length;
  let managedGotTask = false;
  let delegated = false;
  world.model.setResponder(({ kind, body }) => {
    if (JSON.stringify(userMessages(body)).includes(SUBTASK)) {
      managedGotTask = true;
      return text('SUB-DONE');
    }
    if (kind !== 'main') return undefined;
    if (delegated || isToolContinuation(body)) return text('ANSWER-AFTER-TOOL');
    delegated = true;
    return toolCall('agent', { description: 'summarise', prompt: SUBTASK, subagent_type: 'helper' });
  });
  await s.submit('Please delegate');
  await s.term.waitFor('Yes, allow once', 30_000);
  await s.term.press('Enter');
  await s.term.waitFor('ANSWER-AFTER-TOOL', 90_000);
  const tunnels = () => [
    ...new Set(
      proxy.requests
        .slice(before)
        .filter((r) => r.kind === 'connect')
        .map((r) => r.target),
    ),
  ];
  // Qwen may run the agent in the background: its first request comes after the main turn ended.
  for (let waited = 0; !managedGotTask && tunnels().length === 0 && waited < 60_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return { managedGotTask, tunnels: tunnels() };
}

const OTHER_ROUTES = ['anthropic:claude-sonnet-4-5', 'openai-responses:gpt-5', 'qwen-oauth:coder-model'];
/** The route that needs no other credential: openai-responses takes the managed OPENAI_API_KEY. */
const KEYED_ROUTE = ['openai-responses:gpt-5', 'api.openai.com:443'] as const;

describe("a project agent's model selector", () => {
  it.each(OTHER_ROUTES)(
    'write: `model: %s` refuses the launch, naming the file and the key; no Qwen starts',
    suite.test(async (_fixtures, model) => {
      plantAgent(model);
      const requestsBefore = world.model.requests.length;
      const s = await suite.launch(world, 'write');
      const exit = await s.term.waitForExit(30_000);
      await s.term.flush();
      const authType = model.slice(0, model.indexOf(':'));
      expect({ exit: exit.exitCode, shown: s.launcherLines({ [world.repo]: '<repo>' }) }).toEqual({
        exit: 1,
        shown: [
          `<repo>/${AGENT}: model: "${model}" names the auth type ${authType}, not the session's openai: Qwen 0.24.4 gives such a subagent its own model client, sent to ${authType}'s own environment variables or its SDK's default origin with the whole task, never to the managed model; fix: remove the auth type from the selector (write the model id alone), or remove model from the agent's front matter`,
          '1 thing(s) in the repository or your home would change the managed write session; nothing was started',
        ],
      });
      expect({ requests: world.model.requests.length, tunnels: proxy.requests.length }).toEqual({
        requests: requestsBefore,
        tunnels: 0,
      });
    }),
  );

  it.each(['openai:qwen3-coder-plus', 'qwen3-coder-plus', 'inherit'])(
    'write: `model: %s` starts, and the subagent’s task reaches the managed model',
    suite.test(async (_fixtures, model) => {
      plantAgent(model);
      const s = await suite.launch(world, 'write');
      expect(await delegate(s)).toEqual({ managedGotTask: true, tunnels: [] });
    }),
  );

  it.each([KEYED_ROUTE])(
    'negative control, Qwen started without the launcher: `model: %s` sends the task to %s, not to the managed model',
    suite.test(async (_fixtures, model, tunnel) => {
      plantAgent(model);
      const s = await suite.direct(world, 'write', {
        credentials: { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY },
      });
      const { managedGotTask, tunnels } = await delegate(s);
      expect({ managedGotTask, tunnels }).toEqual({ managedGotTask: false, tunnels: [tunnel] });
    }),
  );
});
