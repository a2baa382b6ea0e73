/**
 * A destructive action's confirmation (docs/ui.md: "say exactly what will change before it does"):
 * the consequences listed, Cancel focused, the action named on its button; errors stay in the
 * dialog with their next step.
 *
 * Once confirmed, the action is the user's decision and goes on whatever the dialog does (docs/ui.md
 * "Nothing blocks"): Escape, or Close (Cancel's place while it runs), closes the dialog and hands the
 * running action to the operations tray, which shows its outcome; a failure stays there until
 * dismissed, so closing early never loses the error.
 */
import { useRef, useState } from 'react';
import type { HostError, Result } from '../../../electron/common/index.js';
import { followInTray, type OperationTexts } from '../stores/operations.js';
import { Dialog } from './Dialog.js';
import { ErrorBox } from './ErrorBox.js';

export function ConfirmDialog({
  title,
  children,
  action,
  danger = false,
  onConfirm,
  onClose,
  tray,
}: {
  title: string;
  children: React.ReactNode;
  action: string;
  danger?: boolean;
  onConfirm: () => Promise<Result<unknown>>;
  /** `done`: the action succeeded while the dialog was open (not when it was handed to the tray). */
  onClose: (done: boolean) => void;
  /**
   * How the tray names the action when the dialog is closed while it runs (default: the action's
   * label), or 'operation' when the action is an operation the tray already follows (runOperation).
   */
  tray?: { label: string; texts?: OperationTexts; subject?: string } | 'operation';
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<HostError | null>(null);
  /** The running action, while the dialog waits for it. */
  const running = useRef<Promise<Result<unknown>> | null>(null);
  const confirm = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const pending = onConfirm();
    running.current = pending;
    const result = await pending;
    // Handed to the tray meanwhile: the tray shows the outcome, the dialog is gone.
    if (running.current !== pending) return;
    running.current = null;
    setBusy(false);
    if (result.ok) onClose(true);
    else setError(result.error);
  };
  const close = (): void => {
    const pending = running.current;
    if (pending !== null) {
      running.current = null;
      if (tray !== 'operation') followInTray(tray?.label ?? action, pending, tray?.texts, tray?.subject);
    }
    onClose(false);
  };
  return (
    <Dialog
      title={title}
      onCancel={close}
      initialFocus={cancelRef}
      footer={
        <>
          {busy && (
            <span className="footer-note small" role="status">
              You can close this: it goes on in the operations tray.
            </span>
          )}
          <button ref={cancelRef} type="button" onClick={close}>
            {busy ? 'Close' : 'Cancel'}
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
