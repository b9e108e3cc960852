// Child-process side of the sanitizer/renderer measurement: the hook calls each once per process, so
// the cold first call (regex compilation, no JIT yet) is the figure that matters; warm is reported too.
import { renderContext } from '../../src/context/renderer.js';
import { sanitizeQuery } from '../../src/context/sanitizer.js';
import { RENDERER_ITEMS, SANITIZER_INPUTS } from './adversarial.js';

const [kind, name] = process.argv.slice(2);
const run =
  kind === 'renderer'
    ? () => renderContext(RENDERER_ITEMS)
    : () => sanitizeQuery(SANITIZER_INPUTS[name ?? ''] ?? '', 'bench-credential-value');
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
