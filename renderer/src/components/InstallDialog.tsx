/**
 * The install dialog (docs/ui.md "Dialogs"): "Install <name>?", every item with its version and size,
 * each new permission grouped by capability with its reason, warnings with what they mean, the
 * total download beside the buttons, Cancel (default focus) and Install as an explicit choice.
 *
 * Once the user approves, the install goes on in the background (docs/ui.md "Nothing blocks"): the
 * dialog closes as soon as the host has started it, focus goes back to what opened the dialog,
 * and the operations tray shows the phase, the progress and Cancel, then "Installed <name>" or the
 * failure. A plan or a start that fails stays in the dialog: the sentence, the next step, details.
 *
 * Approval is the plan's digest: what the user saw is what the host installs.
 */
import { useEffect, useRef, useState } from 'react';
import type {
  HostError,
  InstallTargetData,
  PlanData,
  PlanItemData,
  PlanPermissionData,
  RiskLevel,
} from '../../../electron/common/index.js';
import { host } from '../host.js';
import { isCancel } from '../lib/errors.js';
import { formatBytes, plural } from '../lib/format.js';
import { runOperation } from '../stores/operations.js';
import { Dialog } from './Dialog.js';
import { ErrorBox } from './ErrorBox.js';
import { RiskBadge, RiskSummary } from './Permissions.js';

type Phase =
  | { kind: 'planning' }
  | { kind: 'review'; plan: PlanData }
  /** Approved: waiting for the host to accept the install (then the dialog closes). */
  | { kind: 'starting'; plan: PlanData }
  | { kind: 'failed'; error: HostError; plan: PlanData | null };

interface Warning {
  level: 'danger' | 'warn' | 'info';
  title: string;
  meaning: string;
}

/** A plan item's display name (the registry entry's or the file's manifest), its id when it has none. */
const nameOf = (item: PlanItemData): string => (item.name.trim() === '' ? item.id : item.name);

/** The plan's warnings as docs/ui.md lists them, each with what it means for the user. */
function warningsOf(items: PlanItemData[]): Warning[] {
  const out: Warning[] = [];
  for (const item of items) {
    const label = `${nameOf(item)} ${item.version}`;
    if (item.source.kind === 'file') {
      if (item.source.unsigned)
        out.push({
          level: 'danger',
          title: `${label} is unsigned`,
          meaning:
            'Nobody vouches for this file: Arcotheon cannot tell who made it or whether it was changed. ' +
            'Install it only if you made it or fully trust where it came from.',
        });
      else if (item.source.unknownSigner)
        out.push({
          level: 'danger',
          title: `${label} is signed by an unknown key`,
          meaning: 'No registry you use knows the key that signed it, so its publisher cannot be confirmed.',
        });
      else if (item.source.addedByYou === true)
        out.push({
          level: 'info',
          title: `${label} is added by you`,
          meaning:
            'Arcotheon imported it on this computer and signed it with your own key: no registry vouches for it, ' +
            'and it runs only with the permissions below.',
        });
      else
        out.push({
          level: 'info',
          title: `${label} comes from a file`,
          meaning: 'It is signed by a publisher a registry you use knows, but it was not downloaded from that registry.',
        });
    }
    if (item.yanked !== undefined)
      out.push({
        level: 'warn',
        title: `${label} was yanked`,
        meaning: `Its publisher withdrew this version (“${item.yanked}”). It is installed only because this exact version was asked for.`,
      });
    if (item.deprecated !== undefined)
      out.push({
        level: 'warn',
        title: `${nameOf(item)} is deprecated`,
        meaning: `Its publisher no longer recommends it: “${item.deprecated}”`,
      });
    if (item.prerelease)
      out.push({
        level: 'warn',
        title: `${label} is a prerelease`,
        meaning: 'A preview the publisher has not called finished; expect rough edges.',
      });
    if (item.tier === 'pro')
      out.push({
        level: 'info',
        title: `${nameOf(item)} is a Pro capability`,
        meaning: 'Its publisher may charge for it or for some of what it does.',
      });
    if (item.access === 'entitled')
      out.push({
        level: 'info',
        title: `${nameOf(item)} needs an entitlement`,
        meaning: `It downloads only with a licence from its publisher${item.entitlement === undefined ? '' : ` (${item.entitlement})`}.`,
      });
    if (item.action === 'downgrade')
      out.push({
        level: 'warn',
        title: `${nameOf(item)} goes back to ${item.version}`,
        meaning: `The installed ${item.from ?? 'version'} is replaced by an older one.`,
      });
  }
  return out;
}

/** The risk the host adds to each new permission (renderer/HOST-API-NEEDS.md #1). */
const riskOf = (p: PlanPermissionData): RiskLevel | undefined => p.risk;

function groupByCapability(permissions: PlanPermissionData[]): Array<[string, PlanPermissionData[]]> {
  const groups = new Map<string, PlanPermissionData[]>();
  for (const p of permissions) groups.set(p.id, [...(groups.get(p.id) ?? []), p]);
  return [...groups];
}

const ACTION_TEXT = { install: 'Install', upgrade: 'Update', downgrade: 'Go back to', reinstall: 'Reinstall' } as const;

export function InstallDialog({
  target,
  name,
  onClose,
}: {
  target: InstallTargetData;
  name: string;
  onClose: (installed: boolean) => void;
}) {
  const [phase, setPhase] = useState<Phase>({ kind: 'planning' });
  const [trustUnsigned, setTrustUnsigned] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const targetKey = JSON.stringify(target);

  useEffect(() => {
    let live = true;
    void host()
      .installs.plan(target)
      .then((result) => {
        if (!live) return;
        setPhase(result.ok ? { kind: 'review', plan: result.value } : { kind: 'failed', error: result.error, plan: null });
      });
    return () => {
      live = false;
    };
    // The target is compared by value (targetKey), not by object identity.
  }, [targetKey]);

  // Each phase has its own buttons: keep the focus inside the dialog, on the safe choice.
  useEffect(() => {
    cancelRef.current?.focus();
  }, [phase.kind]);

  const install = async (plan: PlanData): Promise<void> => {
    setPhase({ kind: 'starting', plan });
    const needsTrust = plan.items.some((i) => i.source.kind === 'file' && (i.source.unsigned || i.source.unknownSigner));
    const explicit = plan.items.filter((i) => i.explicit);
    const what =
      explicit.length === 1 && explicit[0] !== undefined ? nameOf(explicit[0]) : plural(explicit.length, 'capability', 'capabilities');
    const verb = explicit.every((i) => i.action === 'upgrade') ? 'Update' : 'Install';
    let started = false;
    const result = await runOperation(
      `${verb} ${what}`,
      () => host().installs.install(target, { approvedDigest: plan.digest, ...(needsTrust ? { allowUnsigned: true } : {}) }),
      () => {
        // From here the tray follows the install; the user keeps browsing.
        started = true;
        onClose(true);
      },
      {
        texts: {
          done: `${verb === 'Update' ? 'Updated' : 'Installed'} ${explicit.map((i) => `${nameOf(i)} ${i.version}`).join(', ')}`,
          failed: `${what} could not be ${verb === 'Update' ? 'updated' : 'installed'}`,
          cancelled: `${verb} of ${what} cancelled: nothing was changed`,
        },
        ...(explicit.length === 1 && explicit[0] !== undefined ? { subject: explicit[0].id } : {}),
      },
    );
    if (!started && !result.ok) setPhase({ kind: 'failed', error: result.error, plan });
  };

  const title =
    phase.kind === 'failed'
      ? isCancel(phase.error)
        ? `Install of ${name} cancelled`
        : `${name} could not be installed`
      : `Install ${name}?`;
  const busy = phase.kind === 'starting';

  let body: React.ReactNode;
  let footer: React.ReactNode;
  if (phase.kind === 'planning') {
    body = (
      <p role="status" aria-live="polite">
        Working out what installing {name} would do…
      </p>
    );
    footer = (
      <button ref={cancelRef} type="button" onClick={() => onClose(false)}>
        Cancel
      </button>
    );
  } else if (phase.kind === 'failed') {
    body = <ErrorBox error={phase.error} />;
    footer = (
      <>
        {phase.plan !== null && (
          <button type="button" onClick={() => setPhase({ kind: 'review', plan: phase.plan as PlanData })}>
            Back
          </button>
        )}
        <button ref={cancelRef} type="button" className="primary" onClick={() => onClose(false)}>
          Close
        </button>
      </>
    );
  } else {
    const plan = phase.plan;
    const warnings = warningsOf(plan.items);
    const needsTrust = plan.items.some((i) => i.source.kind === 'file' && (i.source.unsigned || i.source.unknownSigner));
    body = (
      <>
        {/* The overall verdict first: what installing all of it (dependencies, skills' programs) may do. */}
        {plan.items.length > 0 && <RiskSummary risk={plan.risk} label="Overall risk of this install" />}
        {plan.items.length === 0 ? (
          <p>Nothing to do: everything asked for is installed and up to date.</p>
        ) : (
          <>
            <h3>What will be installed</h3>
            <ul className="list-plain" aria-label="Items">
              {plan.items.map((item) => (
                <li
                  key={item.id}
                  className="row plan-item"
                  style={{ justifyContent: 'space-between', padding: '6px 0' }}
                  data-plan-item={item.id}
                >
                  <span>
                    {ACTION_TEXT[item.action]} <strong>{nameOf(item)}</strong> {item.version}
                    {item.from !== undefined && <span className="muted"> (now {item.from})</span>}
                    {!item.explicit && <span className="muted"> — needed by what you asked for</span>}
                    {/* The name first; the id and the publisher as secondary text (docs/ui.md "Cards and pages"). */}
                    <span className="plan-item-meta muted small" style={{ display: 'block' }}>
                      <span className="mono">{item.id}</span> · by {item.publisherName}
                    </span>
                  </span>
                  <span className="muted small">{sizeText(item)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
        {plan.blockers.length > 0 && (
          <div className="warning danger" role="alert" data-plan-blocked="">
            <span aria-hidden="true">⚠</span>
            <div>
              <strong>This cannot be installed here</strong>
              {plan.blockers.map((blocker, i) => (
                <p key={i}>{blocker}</p>
              ))}
            </div>
          </div>
        )}
        {warnings.length > 0 && (
          <>
            <h3>Before you install</h3>
            <ul className="warning-list">
              {warnings.map((w, i) => (
                <li key={i} className={`warning${w.level === 'danger' ? ' danger' : ''}`} data-warning-level={w.level}>
                  <span aria-hidden="true">{w.level === 'info' ? 'ℹ' : '⚠'}</span>
                  <div>
                    <strong>{w.title}</strong>
                    {w.meaning}
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
        <h3>What it will be able to do</h3>
        {plan.newPermissions.length === 0 ? (
          <p className="muted">Nothing new: no permission beyond what is already granted.</p>
        ) : (
          groupByCapability(plan.newPermissions).map(([id, permissions]) => {
            const owner = plan.items.find((i) => i.id === id);
            const label = owner === undefined ? id : nameOf(owner);
            return (
              <section key={id} aria-label={`New permissions for ${label}`} style={{ marginBottom: 10 }} data-permissions-for={id}>
                {plan.items.length > 1 && (
                  <div className="small muted" style={{ marginBottom: 4 }}>
                    {label}
                    {label !== id && <span className="mono"> {id}</span>}
                  </div>
                )}
                <ul className="permissions">
                  {permissions.map((p) => (
                    <li key={p.grant} className="permission added" data-grant={p.grant}>
                      {riskOf(p) === undefined ? (
                        <span className="badge neutral risk">Risk unknown</span>
                      ) : (
                        <RiskBadge risk={riskOf(p) as RiskLevel} />
                      )}
                      <div>
                        <div className="sentence">{p.text}</div>
                        {p.reason.trim().length > 0 && (
                          <blockquote>
                            <span className="visually-hidden">The publisher says: </span>“{p.reason}”
                          </blockquote>
                        )}
                        <code className="tech">{p.grant}</code>
                      </div>
                    </li>
                  ))}
                </ul>
              </section>
            );
          })
        )}
        {needsTrust && phase.kind === 'review' && (
          <label className="row" style={{ alignItems: 'flex-start', gap: 8, flexWrap: 'nowrap' }}>
            <input type="checkbox" checked={trustUnsigned} onChange={(e) => setTrustUnsigned(e.target.checked)} />
            <span>I trust this file even though no known publisher signed it.</span>
          </label>
        )}
      </>
    );
    footer = (
      <>
        {plan.items.length > 0 && (
          <span className="footer-note small" data-total-download="">
            {downloadText(plan)}
          </span>
        )}
        <button ref={cancelRef} type="button" onClick={() => onClose(false)} disabled={phase.kind === 'starting'}>
          Cancel
        </button>
        {plan.items.length > 0 && (
          <button
            type="button"
            className="primary"
            disabled={phase.kind === 'starting' || plan.blockers.length > 0 || (needsTrust && !trustUnsigned)}
            onClick={() => void install(plan)}
          >
            {phase.kind === 'starting' ? 'Starting…' : 'Install'}
          </button>
        )}
      </>
    );
  }

  return (
    <Dialog title={title} onCancel={() => onClose(false)} initialFocus={cancelRef} busy={busy} footer={footer} wide>
      {body}
    </Dialog>
  );
}

/** An item's size: what is left to download, or where it comes from when nothing is. */
function sizeText(item: PlanItemData): string {
  if (item.downloadSize > 0) return formatBytes(item.downloadSize);
  return item.source.kind === 'file' ? `${formatBytes(item.archive.size)} file` : `${formatBytes(item.archive.size)}, already downloaded`;
}

/** The footer's total: the download, or none needed (a file from this computer, or the cache). */
function downloadText(plan: PlanData): string {
  if (plan.downloadSize > 0) return `Total download: ${formatBytes(plan.downloadSize)}`;
  return plan.items.every((i) => i.source.kind === 'file') ? 'Nothing to download: it installs from the file' : 'Nothing to download';
}
