/**
 * The Electron window's own bridge (electron/common/desktop.ts), when the renderer runs there:
 * native pickers, files and links the operating system opened, secret prompts. Null in a browser
 * opened by `arcotheon ui`, where the typed-folder and upload forms are used instead.
 */
import type { DesktopBridge } from '../../electron/common/desktop.js';

export function desktopBridge(): DesktopBridge | null {
  return window.arcotheon?.desktop ?? null;
}
