// What only the machine the deployment is rendered on can tell about its pins: a qwenCli that resolves
// to Qwen's self-updating wrapper (npm's `bin/qwen` is a link to it), a pinned node older than the Qwen
// package declares, settings the pinned Qwen version does not know. Pure over facts the render command
// gathers (src/deploy/pinned-host-facts.ts); the same rules as verify and the launcher (src/host/qwen-pins.ts).
import { nodeEnginesProblem, qwenWrapperProblem } from '../../host/qwen-pins.js';
import { octalMode, posixQuote, show } from '../../policy/quote.js';
import { pinnedBrokerProblems } from './broker.js';
import { type Problem, problem } from './problems.js';
import type { Deployment } from './schema.js';
import { pinnedQwenSettingsProblems } from './settings.js';

export interface PinnedHostFacts {
  /** The real path of `qwenCli`, when it exists here. */
  qwenCliReal?: string;
  /** package.json of the directory the real `qwenCli` sits in, when it is the Qwen package. */
  qwen?: { root: string; version?: string | undefined; enginesNode?: string | undefined };
  /** `<node> --version` of the pinned node, when it runs here. */
  nodeVersion?: string;
  /** What `node` is here, when it exists: a regular file and its permission bits, or something else. */
  nodeFile?: { regular: boolean; mode: number };
}

/** Strips the "fix: …" tail a host line carries, for a problem that states its fix on its own. */
function split(line: string): [string, string] {
  const at = line.lastIndexOf('; fix: ');
  return at === -1 ? [line, 'see docs/admin.md'] : [line.slice(0, at), line.slice(at + '; fix: '.length)];
}

export function pinnedHostProblems(deployment: Deployment, facts: PinnedHostFacts): Problem[] {
  const problems: Problem[] = [];
  const wrapper = qwenWrapperProblem(deployment.qwenCli, facts.qwenCliReal, show);
  // By name alone it is refused with the other path rules (validate.ts); here the link's target.
  if (wrapper !== undefined && facts.qwenCliReal !== undefined && facts.qwenCliReal !== deployment.qwenCli) {
    const [, fix] = split(wrapper);
    problems.push(
      problem(
        ['qwenCli'],
        deployment.qwenCli,
        `resolves to ${show(facts.qwenCliReal)}, Qwen's self-updating wrapper (npm's bin/qwen links to it), which relaunches Qwen and can apply an update first`,
        fix,
      ),
    );
  }
  // verify's judgement of a pin on a staged tree (host.pins), and the launcher's: it could not start it.
  if (facts.nodeFile !== undefined && (!facts.nodeFile.regular || (facts.nodeFile.mode & 0o111) === 0)) {
    problems.push(
      problem(
        ['node'],
        deployment.node,
        facts.nodeFile.regular
          ? `is not executable here (mode ${octalMode(facts.nodeFile.mode)}): the launcher could not start it, nor Qwen`
          : 'is not a regular file here: the launcher could not start it, nor Qwen',
        facts.nodeFile.regular
          ? `chmod 0755 ${posixQuote(deployment.node)}, or pin the Node executable itself (its bin/node)`
          : 'pin the Node executable itself (its bin/node)',
      ),
    );
  }
  if (facts.qwen !== undefined) {
    const engines = nodeEnginesProblem(deployment.node, facts.nodeVersion, facts.qwen, show);
    if (engines !== undefined) {
      const [message, fix] = split(engines);
      problems.push(problem(['node'], deployment.node, message.replace(/^node "[^"]*" /, ''), fix));
    }
  }
  if (deployment.settings !== undefined)
    problems.push(...pinnedQwenSettingsProblems(deployment.settings, facts.qwen?.version));
  // The broker fronts the model client the pinned Qwen builds: judged by that version too.
  problems.push(...pinnedBrokerProblems(deployment, facts.qwen?.version));
  return problems;
}
