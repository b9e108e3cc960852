// Child-process side of the sanitizer/renderer measurement: the hook calls each once per process, so
// the cold first call (regex compilation, no JIT yet) is the figure that matters; warm is reported too.
import { renderContext } from '../../src/context/renderer.js';
import { sanitizeQuery } from '../../src/context/sanitizer.js';
import { RENDERER_ITEMS, SANITIZER_INPUTS } from './adversarial.js';

const [kind, name] = process.argv.slice(2);
// The hook's inputs come from JSON.parse of its stdin, so flat strings: a `repeat()` rope would make
// the cold call pay for flattening it, which no hook does.
const items = JSON.parse(JSON.stringify(RENDERER_ITEMS)) as typeof RENDERER_ITEMS;
const prompt = JSON.parse(JSON.stringify(SANITIZER_INPUTS[name ?? ''] ?? '')) as string;
const run =
  kind === 'renderer' ? () => renderContext(items) : () => sanitizeQuery(prompt, 'bench-credential-value');
const t0 = performance.now();
run();
const cold = performance.now() - t0;
const warm: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  run();
  warm.push(performance.now() - t);
}
warm.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ cold, warm: warm[10] }));
