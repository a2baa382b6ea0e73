/**
 * What a spec drives: a page on the app, the same whether app.ts opened it in Chromium through
 * `arcotheon ui` or electron.ts in the Electron window. Its own module, so the two openers share it
 * without importing each other.
 */
import type { Page } from 'playwright-core';

export interface AppDriver {
  page: Page;
  /** Script dialogs (alert/confirm/prompt) the page opened: the hostile-text journey expects none. */
  dialogs: string[];
  /** Uncaught page errors. */
  errors: string[];
  close(): Promise<void>;
}
