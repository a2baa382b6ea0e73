import type { Access, Tier } from '../../../electron/common/index.js';

/** The verified mark: signed by a key the registry trusts, else "unverified" (docs/ui.md "Cards"). */
export function Publisher({ name, verified }: { name: string; verified: boolean }) {
  return (
    <span>
      {name}{' '}
      {verified ? (
        <span className="verified" title="Signed by a key the registry trusts">
          <span aria-hidden="true">✓</span> verified
        </span>
      ) : (
        <span className="unverified" title="No key the registry trusts signed this publisher's packages">
          unverified
        </span>
      )}
    </span>
  );
}

export function DistributionBadges({ tier, access, deprecated }: { tier: Tier; access: Access; deprecated: boolean | string | null }) {
  return (
    <>
      {tier === 'pro' && <span className="badge accent">Pro</span>}
      {access === 'entitled' && <span className="badge accent">Entitled</span>}
      {deprecated !== false && deprecated !== null && <span className="badge warn">Deprecated</span>}
    </>
  );
}
