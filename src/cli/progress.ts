// Progress for long admin commands: listr2 on a terminal, one plain line per step otherwise (CI logs,
// pipes). Injectable through CliIO's streams.
import type { Writable } from 'node:stream';
import { Listr, ListrLogger, ProcessOutput } from 'listr2';

export interface Step {
  title: string;
  /** Resolves to an optional detail shown after the title. */
  run(): Promise<string | undefined>;
}

export type StepRunner = (steps: readonly Step[]) => Promise<void>;

/** `title … ok (detail)` per step; `title … failed` before the error propagates. */
export function plainSteps(out: Writable): StepRunner {
  return async (steps) => {
    for (const step of steps) {
      try {
        const detail = await step.run();
        out.write(`${step.title} … ok${detail === undefined ? '' : ` (${detail})`}\n`);
      } catch (error) {
        out.write(`${step.title} … failed\n`);
        throw error;
      }
    }
  };
}

/** Runs the steps and prints nothing (machine-readable output owns stdout). */
export const quietSteps: StepRunner = async (steps) => {
  for (const step of steps) await step.run();
};

export function listrSteps(stdout: Writable, stderr: Writable): StepRunner {
  return async (steps) => {
    const output = new ProcessOutput(stdout as NodeJS.WriteStream, stderr as NodeJS.WriteStream);
    const list = new Listr(
      steps.map((step) => ({
        title: step.title,
        task: async (_ctx: unknown, task: { title: string }) => {
          const detail = await step.run();
          if (detail !== undefined) task.title = `${step.title} (${detail})`;
        },
      })),
      {
        exitOnError: true,
        registerSignalListeners: false,
        renderer: 'default',
        rendererOptions: { logger: new ListrLogger({ processOutput: output }) },
        // listr2 falls back to its line renderer when process.stdout is not a TTY; keep our streams there too.
        fallbackRendererOptions: { logger: new ListrLogger({ processOutput: output }) },
      },
    );
    await list.run();
  };
}

export function stepRunnerFor(stdout: Writable & { isTTY?: boolean }, stderr: Writable): StepRunner {
  return stdout.isTTY === true ? listrSteps(stdout, stderr) : plainSteps(stdout);
}
