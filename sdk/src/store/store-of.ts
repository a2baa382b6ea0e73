/**
 * The store behind each `Arcotheon` (host contract "Embedding": hosts call the class and the run
 * functions, nothing inside it). The class keeps its home layout, content cache, registry sources
 * and home lock to itself; the public functions that take an `Arcotheon` (runTool, runWorkflow,
 * resumeWorkflow, mcpServe), the SDK's command and the Arcotheon app read them through `storeOf`,
 * exported from `@arcotheon/sdk/internal` only. A module of its own so run/ reaches the store
 * without loading the whole facade.
 */
import { AdcapError } from '../errors.js';
import type { StoreCore } from './store-core.js';

/**
 * Module-private: each `Arcotheon` and its store, set by its constructor. Keyed by `object`, not the
 * class's type, so this module does not import the class that imports it.
 */
const stores = new WeakMap<object, StoreCore>();

/** Called once by the `Arcotheon` constructor. */
export function attachStore(arc: object, store: StoreCore): void {
  stores.set(arc, store);
}

/**
 * The store behind `arc`: its home layout, content cache, registry sources, home lock and the
 * host's options. It satisfies the narrow views run/, doctor and the policy take (RunContext,
 * DoctorContext, InstalledView, PolicyView). E_USAGE, naming `call` (the API call, e.g.
 * "runTool()"), when `arc` is not an `Arcotheon` made by `new Arcotheon(...)`.
 * @internal Exported from `@arcotheon/sdk/internal` only.
 */
export function storeOf(arc: object, call = 'This call'): StoreCore {
  const store = typeof arc === 'object' && arc !== null ? stores.get(arc) : undefined;
  if (store === undefined) {
    throw new AdcapError('E_USAGE', `${call} takes the Arcotheon instance a host made with new Arcotheon({ home, host }).`, {
      details: { argument: 'arc' },
    });
  }
  return store;
}
