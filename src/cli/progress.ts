// Progress for long admin commands: listr2 on a terminal, one plain line per step otherwise (CI logs,
// pipes). A command awaits each step and keeps its result: no state shared between steps.
import type { Writable } from 'node:stream';
import { Listr, ListrLogger, ProcessOutput } from 'listr2';

export interface Progress {
  /**
   * Runs one step, shows it done (with `detail(result)` after the title) or failed, and returns its
   * result; a failure propagates.
   */
  step<T>(title: string, run: () => Promise<T>, detail?: (result: T) => string | undefined): Promise<T>;
}

/** `title … ok (detail)` per step; `title … failed` before the error propagates. */
export function plainProgress(out: Writable): Progress {
  return {
    async step(title, run, detail) {
      let result: Awaited<ReturnType<typeof run>>;
      try {
        result = await run();
      } catch (error) {
        out.write(`${title} … failed\n`);
        throw error;
      }
      const shown = detail?.(result);
      out.write(`${title} … ok${shown === undefined ? '' : ` (${shown})`}\n`);
      return result;
    },
  };
}

/** Runs the steps and prints nothing (machine-readable output owns stdout). */
export const quietProgress: Progress = { step: (_title, run) => run() };

export function listrProgress(stdout: Writable, stderr: Writable): Progress {
  const output = new ProcessOutput(stdout as NodeJS.WriteStream, stderr as NodeJS.WriteStream);
  return {
    async step(title, run, detail) {
      let result: Awaited<ReturnType<typeof run>> | undefined;
      const list = new Listr(
        [
          {
            title,
            task: async (_ctx: unknown, task: { title: string }) => {
              const value = await run();
              result = value;
              const shown = detail?.(value);
              if (shown !== undefined) task.title = `${title} (${shown})`;
            },
          },
        ],
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
      return result as Awaited<ReturnType<typeof run>>;
    },
  };
}

export function progressFor(stdout: Writable & { isTTY?: boolean }, stderr: Writable): Progress {
  return stdout.isTTY === true ? listrProgress(stdout, stderr) : plainProgress(stdout);
}
