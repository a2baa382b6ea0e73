/**
 * A destructive action's confirmation (docs/ui.md: "say exactly what will change before it does"):
 * the consequences listed, Cancel focused, the action named on its button; errors stay in the
 * dialog with their next step.
 */
import { useRef, useState } from 'react';
import type { HostError, Result } from '../../../electron/common/index.js';
import { Dialog } from './Dialog.js';
import { ErrorBox } from './ErrorBox.js';

export function ConfirmDialog({
  title,
  children,
  action,
  danger = false,
  onConfirm,
  onClose,
}: {
  title: string;
  children: React.ReactNode;
  action: string;
  danger?: boolean;
  onConfirm: () => Promise<Result<unknown>>;
  onClose: (done: boolean) => void;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<HostError | null>(null);
  const confirm = async (): Promise<void> => {
    setBusy(true);
    const result = await onConfirm();
    setBusy(false);
    if (result.ok) onClose(true);
    else setError(result.error);
  };
  return (
    <Dialog
      title={title}
      onCancel={() => onClose(false)}
      initialFocus={cancelRef}
      busy={busy}
      footer={
        <>
          <button ref={cancelRef} type="button" onClick={() => onClose(false)} disabled={busy}>
            Cancel
          </button>
          <button type="button" className={danger ? 'danger solid' : 'primary'} onClick={() => void confirm()} disabled={busy}>
            {busy ? `${action}…` : action}
          </button>
        </>
      }
    >
      {children}
      {error !== null && <ErrorBox error={error} />}
    </Dialog>
  );
}
