/**
 * Permissions (docs/ui.md "Permissions, the heart of it"): the plain sentence first, the publisher's reason quoted
 * and visibly theirs, the technical id last and small, with a risk marker that has text. The
 * sentence and the risk come from the permission table (host side), never from the publisher.
 */
import type { PermissionView, RiskLevel, RiskVerdict } from '../../../electron/common/index.js';

const RISK_TEXT: Record<RiskLevel | 'none', string> = { none: 'No risk', low: 'Low risk', medium: 'Medium risk', high: 'High risk' };

/** A three-step meter beside the word, so the levels differ in shape too, not by colour alone (WCAG 1.4.1). */
const RISK_METER: Record<RiskLevel | 'none', string> = { none: '▯▯▯', low: '▮▯▯', medium: '▮▮▯', high: '▮▮▮' };

export function RiskBadge({ risk }: { risk: RiskLevel | 'none' }) {
  return (
    <span className={`badge risk ${risk} risk-${risk}`} data-risk={risk}>
      <span className="risk-icon" aria-hidden="true">
        {RISK_METER[risk]}
      </span>
      {RISK_TEXT[risk]}
    </span>
  );
}

export function PermissionItem({
  permission,
  marker,
  action,
}: {
  permission: PermissionView;
  marker?: 'added' | 'widened' | 'removed';
  action?: React.ReactNode;
}) {
  return (
    <li className={`permission${marker === 'added' || marker === 'widened' ? ' added' : ''}`} data-grant={permission.grant}>
      <RiskBadge risk={permission.risk} />
      <div>
        <div className="sentence">
          {marker === 'added' && <span className="badge warn">New</span>}{' '}
          {marker === 'widened' && <span className="badge warn">Wider</span>}{' '}
          {marker === 'removed' && <span className="badge neutral">Removed</span>} {permission.text}
        </div>
        {permission.reason.trim().length > 0 && (
          <blockquote>
            <span className="visually-hidden">The publisher says: </span>“{permission.reason}”
          </blockquote>
        )}
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <code className="tech">{permission.grant}</code>
          {permission.granted !== undefined && (
            <span className={`badge ${permission.granted ? 'ok' : 'neutral'}`}>{permission.granted ? 'Granted' : 'Not granted'}</span>
          )}
        </div>
        {action}
      </div>
    </li>
  );
}

export function PermissionList({
  permissions,
  empty = 'No access beyond its own files.',
}: {
  permissions: PermissionView[];
  empty?: string;
}) {
  if (permissions.length === 0) {
    return (
      <ul className="permissions">
        <li className="permission">
          <RiskBadge risk="none" />
          <div className="sentence">{empty}</div>
        </li>
      </ul>
    );
  }
  return (
    <ul className="permissions">
      {permissions.map((p) => (
        <PermissionItem key={p.grant} permission={p} />
      ))}
    </ul>
  );
}

/**
 * The overall verdict of a capability (host: sdk capabilityRisk): one marker with text, and the
 * sentence that says what sets it, counting its dependencies and its skills' programs.
 */
export function RiskSummary({ risk, label = 'Overall' }: { risk: RiskVerdict; label?: string }) {
  return (
    <p className={`risk-summary risk-summary-${risk.level}`} data-overall-risk={risk.level}>
      <span className="visually-hidden">{label}: </span>
      <RiskBadge risk={risk.level} /> <span className="risk-reason">{withoutLevel(risk.reason)}</span>
    </p>
  );
}

/** The reason after its level ("High: a dependency…" → "A dependency…"): the badge beside it says the level. */
function withoutLevel(reason: string): string {
  const rest = reason.replace(/^(No risk|Low|Medium|High): /, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}
