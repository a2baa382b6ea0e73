// The validators compiled ahead of time from sdk/schema/ (build/schema-validators.mjs) are what
// Ajv generates from the schemas as they are now: a schema changed (or ajv updated) without
// `npm run schemas:generate` fails here, naming the file to generate again.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedSource, TARGETS } from '../../build/schema-validators.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the generated schema validators', () => {
  it('cover the four schemas shipped with the SDK', () => {
    expect(TARGETS.flatMap((t) => t.schemas).sort()).toEqual(['capability-1.json', 'policy-1.json', 'registry-1.json', 'workflow-1.json']);
  });

  it.each(TARGETS.map((t) => [t.file, t] as const))('%s is current (npm run schemas:generate)', async (file, target) => {
    const committed = await readFile(`${root}${file}`, 'utf8');
    // Compared as a boolean first: a failure should name the file, not print 400 KB of code.
    const current = (await generatedSource(target)) === committed;
    expect(current, `${file} is not what build/schema-validators.mjs generates now; run npm run schemas:generate`).toBe(true);
  });
});
