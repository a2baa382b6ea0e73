/**
 * What the page asks to install (electron/common/types.ts `InstallTargetData`: a spec, specs, or
 * `{ packages, sideload, bundle }` with handles, never paths; docs/host-api.md "The page never
 * names files") as the SDK's install request, with the label the operations tray shows.
 */
import type { Arcotheon } from '@arcotheon/sdk';
import type { PlanData } from '../common/types.js';
import type { InstallTargetData } from '../common/methods.js';
import type { BundleImports } from './bundle-imports.js';
import type { Sideloads } from './files.js';

type InstallRequest = Parameters<Arcotheon['plan']>[0];

export class InstallTargets {
  constructor(
    private readonly sideloads: Sideloads,
    private readonly bundles: BundleImports,
  ) {}

  /** The SDK's install request: a sideload handle becomes the file it names, a bundle handle its import. */
  request(target: InstallTargetData): InstallRequest {
    if (typeof target === 'string' || Array.isArray(target) || 'id' in target) return target;
    return {
      ...(target.packages === undefined ? {} : { packages: target.packages }),
      ...(target.sideload === undefined ? {} : { file: this.sideloads.path(target.sideload) }),
      ...(target.bundle === undefined ? {} : this.bundles.request(target.bundle)),
      ...(target.includePrerelease === undefined ? {} : { includePrerelease: target.includePrerelease }),
    };
  }

  /** "Install <label>" in the operations tray. */
  label(target: InstallTargetData): string {
    const ids = (specs: Array<string | { id: string }>): string => specs.map((t) => (typeof t === 'string' ? t : t.id)).join(', ');
    if (typeof target === 'string') return target;
    if (Array.isArray(target)) return ids(target);
    if ('id' in target) return target.id;
    if (target.sideload !== undefined || target.bundle !== undefined) return 'a sideloaded file';
    return ids(target.packages ?? []);
  }

  /** The bundle handle of an imported MCP Bundle's target, if it is one. */
  bundleOf(target: InstallTargetData): string | undefined {
    return typeof target === 'object' && !Array.isArray(target) && 'bundle' in target ? target.bundle : undefined;
  }

  /** The plan of an imported MCP Bundle: its file item is marked as built and signed with the user's own key. */
  marked(target: InstallTargetData, plan: PlanData): PlanData {
    if (this.bundleOf(target) === undefined) return plan;
    return {
      ...plan,
      items: plan.items.map((item) => (item.source.kind === 'file' ? { ...item, source: { ...item.source, addedByYou: true } } : item)),
    };
  }
}
