/**
 * What the Electron window adds on every screen:
 *   - a `.adcap` file or an `arcotheon://install/...` link the operating system handed to the app
 *     opens the verified install dialog (signer, permissions, warnings); it never installs by itself;
 *     a `.mcpb` MCP Bundle opens its import dialog first (BundleImport.tsx);
 *   - a tool that needs the value of a granted env:read variable asks for it once; the app keeps
 *     it with the OS keychain (safeStorage) and gives it only to that capability's tools.
 * Renders nothing in a browser (no desktop bridge).
 */
import { useEffect, useRef, useState } from 'react';
import type { OpenRequest, SecretRequest } from '../../../electron/common/desktop.js';
import { desktopBridge } from '../desktop.js';
import { BundleImportDialog } from './BundleImport.js';
import { Dialog } from './Dialog.js';
import { InstallDialog } from './InstallDialog.js';

export function DesktopIntegration() {
  const [opens, setOpens] = useState<OpenRequest[]>([]);
  const [secrets, setSecrets] = useState<SecretRequest[]>([]);

  useEffect(() => {
    const bridge = desktopBridge();
    if (bridge === null) return;
    const stop = bridge.subscribe((event) => {
      if (event.type === 'open') setOpens((q) => [...q, event.request]);
      else setSecrets((q) => [...q, event.request]);
    });
    // What arrived before the page listened (the file that launched the app).
    void bridge.takeOpenRequests().then((r) => r.ok && setOpens((q) => [...r.value, ...q]));
    return stop;
  }, []);

  const open = opens[0];
  const secret = secrets[0];
  const nextOpen = (): void => setOpens((q) => q.slice(1));
  return (
    <>
      {secret !== undefined ? (
        <SecretPrompt key={secret.request} request={secret} onDone={() => setSecrets((q) => q.slice(1))} />
      ) : open === undefined ? null : open.kind === 'install' ? (
        <InstallDialog key={`i-${open.spec}`} target={open.spec} name={open.spec} onClose={nextOpen} />
      ) : open.kind === 'sideload' && /\.mcpb$/i.test(open.file.name) ? (
        <BundleImportDialog key={`b-${open.file.file}`} file={open.file.file} name={open.file.name} onClose={nextOpen} />
      ) : open.kind === 'sideload' ? (
        <InstallDialog key={`s-${open.file.file}`} target={{ sideload: open.file.file }} name={open.file.name} onClose={nextOpen} />
      ) : (
        <Dialog
          title="Arcotheon could not open this"
          onCancel={nextOpen}
          footer={
            <button type="button" onClick={nextOpen}>
              OK
            </button>
          }
        >
          <p>{open.message}</p>
        </Dialog>
      )}
    </>
  );
}

function SecretPrompt({ request, onDone }: { request: SecretRequest; onDone: () => void }) {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const answer = (given: string | null): void => {
    void desktopBridge()?.provideSecret(request.request, given);
    onDone();
  };
  const usable = value !== '' && !/[\r\n]/.test(value);
  const storageNote = request.kept
    ? `Arcotheon keeps it encrypted with your system keychain and passes it only to tools of ${request.capability} ` +
      `whose permission names ${request.variable}.`
    : `Arcotheon uses it for this run only and passes it only to this tool; it asks again next time.`;
  return (
    <Dialog
      title={`${request.capability} needs ${request.variable}`}
      onCancel={() => answer(null)}
      initialFocus={input}
      footer={
        <>
          <button type="button" onClick={() => answer(null)}>
            Run without it
          </button>
          <button type="button" className="primary" disabled={!usable} onClick={() => answer(value)}>
            {request.kept ? 'Save and run' : 'Run'}
          </button>
        </>
      }
    >
      <p>
        The tool <strong>{request.tool}</strong> of <strong>{request.capability}</strong> reads the environment variable{' '}
        <code>{request.variable}</code>, which you granted it. Enter its value (an API key or token).
      </p>
      <label htmlFor="secret-value">Value of {request.variable}</label>
      <input
        id="secret-value"
        ref={input}
        type="password"
        className="mono"
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && usable && (e.preventDefault(), answer(value))}
      />
      <p className="small muted">{storageNote}</p>
      {request.notice === undefined ? null : <p className="small">{request.notice}</p>}
    </Dialog>
  );
}
