/**
 * Resolver bench (moved from the unit tests): realistic graphs of 400
 * capabilities with 25 versions each resolve, and a conflict buried under such a graph is
 * explained, in well under the time a person waits. The unit tests
 * (test/sdk/resolve/resolver.performance.test.ts) check the answers; this measures the time.
 * `npm run bench -- resolver` runs it; target: 8 s each (typically 0.2-0.8 s).
 */
import { resolve } from '../../sdk/src/resolve/resolver.js';
import { request } from '../sdk/resolve/fixtures.js';
import { buriedConflictRegistry, realisticRegistry } from '../sdk/resolve/realistic.js';
import { registerBench } from './registry.js';

const TARGET_MS = 8000;

registerBench({
  name: 'resolver: realistic graphs (400 capabilities, 25 versions each)',
  async run(report) {
    for (const seed of [1, 2, 3]) {
      const registry = realisticRegistry(400, 25, seed);
      const roots = Object.fromEntries(
        Object.keys(registry)
          .slice(0, 20)
          .map((id) => [id, '*']),
      );
      const started = performance.now();
      const result = resolve(request(registry, roots));
      const value = performance.now() - started;
      const label = `resolve 20 roots, seed ${seed} (${Object.keys(result.versions).length} selected)`;
      report({ label, value, unit: 'ms', target: TARGET_MS });
    }
    const { registry } = buriedConflictRegistry();
    const started = performance.now();
    let refused = false;
    try {
      resolve(request(registry, { 'acme/left': '*', 'acme/right': '*' }));
    } catch {
      refused = true;
    }
    const value = performance.now() - started;
    if (!refused) throw new Error('the buried conflict resolved; the bench expects E_RESOLVE');
    report({ label: 'explain a conflict buried under the graph', value, unit: 'ms', target: TARGET_MS });
  },
});
