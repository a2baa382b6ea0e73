/**
 * ARCOTHEON_ROOT_KEYS (host contract "Embedding" 2): the pinned root keys of the
 * registry this copy of the SDK ships (shippedRemote(): `<sdk>/registry/` in the published package).
 *
 * They are read from that registry's pin file when the module loads, not written into the code:
 * the registry is built and signed where its root private key is (a release machine for a
 * release; `examples/.keys/`, generated per machine and never committed, in a checkout), so the
 * keys a package exports are always the keys of the registry it carries. Trusting the pin file is
 * trusting the package itself: whoever can change one can change the other. Empty when this copy
 * carries no registry (a checkout before `npm run examples`).
 */
import { shippedRemote } from './embedded.js';

/** The root keys (base64) pinned for the registry shipped with this SDK, empty when none is bundled. */
export const ARCOTHEON_ROOT_KEYS: readonly string[] = Object.freeze(shippedRemote()?.rootKeys ?? []);
