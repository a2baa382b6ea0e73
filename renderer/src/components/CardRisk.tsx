/**
 * A card's overall risk (docs/ui.md "Permissions, the heart of it"): the verdict of the capability's
 * page, counting its dependencies and its skills' programs (stores/risks.ts asks the host). The marker
 * differs in shape as well as colour (RiskBadge); the reason is the tooltip and the card link's
 * accessible description. "No risk" is never shown when a dependency could not be read: then the
 * marker says the risk is not known.
 */
import { useId } from 'react';
import { useCardRisk, type RiskMode } from '../stores/risks.js';
import { RiskBadge } from './Permissions.js';

/** The marker and the id of the element holding the reason (for the card link's aria-describedby), once known. */
export function useCardRiskMarker(id: string, mode: RiskMode = 'catalogue'): { marker: React.ReactNode; describedBy: string | undefined } {
  const risk = useCardRisk(id, mode);
  const reasonId = useId();
  if (risk === undefined) return { marker: null, describedBy: undefined };
  const unknown = risk.level === 'none' && risk.incomplete;
  const marker = (
    <span className="card-risk" data-card-risk={unknown ? 'unknown' : risk.level} title={risk.reason}>
      {unknown ? (
        <span className="badge neutral risk" data-risk="unknown">
          <span className="risk-icon" aria-hidden="true">
            ▯?▯
          </span>
          Risk not known
        </span>
      ) : (
        <RiskBadge risk={risk.level} />
      )}
      {/* Hidden from the link's name, read as its description. */}
      <span id={reasonId} hidden>
        {risk.reason}
      </span>
    </span>
  );
  return { marker, describedBy: reasonId };
}
