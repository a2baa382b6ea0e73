/**
 * Install from a file the user picks: the page never names files on this computer, so the bytes
 * go to the host in capped chunks (sideload.begin/chunk/commit), and the host hands back a handle
 * that the install dialog plans with. The dialog then shows the unsigned / unknown-signer warning.
 * An MCP Bundle (`.mcpb`) goes through its import dialog first (BundleImport.tsx).
 */
import { useRef, useState } from 'react';
import type { HostError } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { formatBytes } from '../lib/format.js';
import { BundleImportDialog } from './BundleImport.js';
import { ErrorBox } from './ErrorBox.js';
import { InstallDialog } from './InstallDialog.js';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function upload(
  file: File,
  onProgress: (sent: number) => void,
): Promise<{ ok: true; handle: string } | { ok: false; error: HostError }> {
  const client = host();
  const begun = await client.sideload.begin({ name: file.name.slice(0, 255) || 'package.adcap', size: file.size });
  if (!begun.ok) return begun;
  const { upload: id, chunkBytes, maxBytes } = begun.value;
  if (file.size > maxBytes) {
    await client.sideload.abort(id);
    return {
      ok: false,
      error: {
        code: 'E_LIMIT',
        message: `${file.name} is ${formatBytes(file.size)}; Arcotheon accepts files up to ${formatBytes(maxBytes)}.`,
      },
    };
  }
  for (let offset = 0; offset < file.size; offset += chunkBytes) {
    const bytes = new Uint8Array(await file.slice(offset, offset + chunkBytes).arrayBuffer());
    const sent = await client.sideload.chunk(id, offset, toBase64(bytes));
    if (!sent.ok) {
      await client.sideload.abort(id);
      return sent;
    }
    onProgress(offset + bytes.length);
  }
  const committed = await client.sideload.commit(id);
  return committed.ok ? { ok: true, handle: committed.value.file } : committed;
}

export function SideloadButton() {
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<
    | { kind: 'idle' }
    | { kind: 'sending'; name: string; sent: number; size: number }
    | { kind: 'ready'; handle: string; name: string }
    | { kind: 'failed'; error: HostError }
  >({ kind: 'idle' });

  const onPick = async (file: File | undefined): Promise<void> => {
    if (file === undefined) return;
    setState({ kind: 'sending', name: file.name, sent: 0, size: file.size });
    const result = await upload(file, (sent) => setState({ kind: 'sending', name: file.name, sent, size: file.size }));
    if (input.current !== null) input.current.value = '';
    setState(result.ok ? { kind: 'ready', handle: result.handle, name: file.name } : { kind: 'failed', error: result.error });
  };

  return (
    <div className="stack" style={{ gap: 6, alignItems: 'flex-end' }}>
      <input
        ref={input}
        id="sideload-file"
        className="visually-hidden file-input"
        type="file"
        accept=".adcap,.mcpb"
        onChange={(e) => void onPick(e.target.files?.[0])}
      />
      <label className="button" htmlFor="sideload-file">
        Install from file…
      </label>
      {state.kind === 'sending' && (
        <span className="small muted" role="status">
          Reading {state.name}: {formatBytes(state.sent)} of {formatBytes(state.size)}
        </span>
      )}
      {state.kind === 'failed' && <ErrorBox error={state.error} title="The file could not be read" />}
      {state.kind === 'ready' &&
        (/\.mcpb$/i.test(state.name) ? (
          <BundleImportDialog file={state.handle} name={state.name} onClose={() => setState({ kind: 'idle' })} />
        ) : (
          <InstallDialog target={{ sideload: state.handle }} name={state.name} onClose={() => setState({ kind: 'idle' })} />
        ))}
    </div>
  );
}
