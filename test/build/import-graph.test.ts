// build/import-graph.mjs (docs/architecture.md): the repository's imports, read as text. It keeps
// what the architecture round made so: no import runs back up an SDK layer (DESIGN §2) and no two
// files import each other, directly or round a circle, type-only imports included.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Graph {
  files: number;
  imports: number;
  between: Record<string, number>;
  upward: string[];
  circles: string[][];
}

describe('the import graph', () => {
  it('has no circle and no import back up a layer, over the files it reads', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['build/import-graph.mjs', '--json'], { cwd: root });
    const graph = JSON.parse(stdout) as Graph;
    expect(graph.files).toBeGreaterThan(400);
    expect(graph.imports).toBeGreaterThan(graph.files);
    // It sees the layers' real traffic, so the two empty lists below are not for want of reading.
    expect(graph.between['sdk/src/store/ -> sdk/src/format/']).toBeGreaterThan(0);
    expect(graph.between['renderer/src/ -> electron/common/']).toBeGreaterThan(0);
    expect(graph.upward).toEqual([]);
    expect(graph.circles).toEqual([]);
  });
});
