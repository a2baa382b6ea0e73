import type { CandidateVersion, HostEnvironment, ResolveRequest } from '../../../sdk/src/resolve/types.js';

/** A host like the one most tests run on: linux-x64, agent "claude" 1.5.0, Node 22, no Python. */
export const HOST: HostEnvironment = {
  platform: 'linux-x64',
  agent: { id: 'claude', version: '1.5.0' },
  runtimes: { node: '22.1.0' },
};

export type Registry = Record<string, Array<Partial<CandidateVersion> & { version: string }>>;

/** An injected registry view over plain data; versions default to no dependencies, skills-only. */
export function view(registry: Registry): ResolveRequest['available'] {
  return (id) =>
    (Object.hasOwn(registry, id) ? (registry[id] ?? []) : []).map((v) => ({
      dependencies: {},
      hasTools: false,
      ...v,
    }));
}

export function request(registry: Registry, roots: Record<string, string>, extra: Partial<ResolveRequest> = {}): ResolveRequest {
  return {
    roots: Object.entries(roots).map(([id, range]) => ({ id, range })),
    available: view(registry),
    host: HOST,
    ...extra,
  };
}
