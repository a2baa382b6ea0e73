import { mulberry32 } from '../../helpers/prng.js';
import type { Registry } from './fixtures.js';

/**
 * A registry shaped like a real one: `count` capabilities with `perId` versions across three
 * majors, each version depending on up to four capabilities further down (plus the odd cycle
 * back up), with caret ranges on a major that the target publishes, the occasional yanked or
 * revoked release, and prereleases.
 */
export function realisticRegistry(count: number, perId: number, seed: number): Registry {
  const random = mulberry32(seed);
  const pick = (n: number): number => Math.floor(random() * n);
  const registry: Registry = {};
  const versionsOf = (i: number): string[] =>
    Array.from({ length: perId }, (_, v) => {
      const major = 1 + Math.floor((v * 3) / perId);
      return `${major}.${v % 7}.${(i + v) % 5}`;
    });
  for (let i = 0; i < count; i++) {
    const id = `pub${i % 17}/cap-${i}`;
    const seen = new Set<string>();
    registry[id] = versionsOf(i)
      .filter((v) => !seen.has(v) && seen.add(v))
      .map((version, v) => {
        const dependencies: Record<string, string> = {};
        const deps = pick(5);
        for (let d = 0; d < deps; d++) {
          // Mostly further down the graph; one dependency in fifty points back up (a cycle).
          const j = random() < 0.02 ? pick(count) : i + 1 + pick(Math.max(1, Math.min(40, count - i - 1)));
          if (j >= count || j === i) continue;
          const major = 1 + pick(3);
          dependencies[`pub${j % 17}/cap-${j}`] = random() < 0.8 ? `^${major}.0.0` : `>=${major}.1.0`;
        }
        const roll = random();
        return {
          version: v === perId - 1 && roll < 0.3 ? `${version}-rc.1` : version,
          dependencies,
          hasTools: random() < 0.5,
          ...(roll > 0.97 ? { status: 'yanked' as const } : roll > 0.95 ? { status: 'revoked' as const } : {}),
        };
      });
  }
  return registry;
}

/**
 * A 400-id registry with a conflict buried under it: acme/left needs the library ^1, every version of
 * acme/right needs it ^2. The resolver must explain it without exploring every combination.
 */
export function buriedConflictRegistry(): { registry: Registry; lib: string } {
  const registry = realisticRegistry(400, 25, 4);
  const ids = Object.keys(registry);
  const lib = ids[300] as string;
  registry['acme/left'] = [{ version: '1.0.0', dependencies: { [ids[0] as string]: '*', [lib]: '^1.0.0' } }];
  registry['acme/right'] = [
    { version: '1.0.0', dependencies: { [ids[1] as string]: '*', [lib]: '^2.0.0' } },
    { version: '1.1.0', dependencies: { [ids[1] as string]: '*', [lib]: '^2.0.0' } },
  ];
  return { registry, lib };
}
