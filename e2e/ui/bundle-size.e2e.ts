/**
 * The built renderer stays small (its JavaScript under 350 KB
 * gzipped): every .js file Vite wrote to renderer/dist, gzipped at level 9 as a server would,
 * added up. `npm run e2e` builds the renderer first.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const dist = join(import.meta.dirname, '..', '..', 'renderer', 'dist');
const BUDGET_BYTES = 350 * 1024;

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path)));
    else out.push(path);
  }
  return out;
}

describe('the built renderer', () => {
  it('ships under 350 KB of gzipped JavaScript, and no source maps', async () => {
    const all = await files(dist).catch(() => {
      throw new Error(`${dist} is missing; run "npm run build" (npm run e2e does).`);
    });
    const scripts = all.filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const file of scripts) gzipped += gzipSync(await readFile(file), { level: 9 }).length;
    console.log(`renderer JavaScript: ${scripts.length} file(s), ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
    expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('has an index.html with a strict CSP of its own and no inline script', async () => {
    const html = await readFile(join(dist, 'index.html'), 'utf8');
    const csp = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="/);
      expect(body?.trim()).toBe('');
    }
  });
});
