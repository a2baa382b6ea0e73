/**
 * The rail's icons as inline SVG in the text colour (docs/ui.md "Navigation"). They were font
 * glyphs: one (⌕, Discover) is in few fonts, so the browser searched every family of the page's
 * font list for it before it could lay out the first screen, and where no font had it the rail
 * showed an empty box. Decorative: the link's text names the screen.
 */
import type { ReactElement } from 'react';
import type { ScreenName } from '../router.js';

/** The screens the rail links to (a capability's page is reached from Discover). */
export type RailScreen = Exclude<ScreenName, 'capability'>;

const PATHS: Record<RailScreen, ReactElement> = {
  discover: (
    <>
      <circle cx="8.5" cy="8.5" r="5.5" />
      <path d="M12.5 12.5 17 17" />
    </>
  ),
  installed: (
    <>
      <rect x="3" y="3" width="14" height="14" rx="2" />
      <path d="M3 8h14M3 12.5h14" />
    </>
  ),
  updates: (
    <>
      <path d="M16 10a6 6 0 1 1-1.76-4.24" />
      <path d="M16 3v4h-4" />
    </>
  ),
  run: <path d="M6 4v12l10-6z" />,
  health: <path d="M2.5 10.5h3.5l2-5 4 9 2-4h3.5" />,
  settings: (
    <>
      <circle cx="10" cy="10" r="2.5" />
      <path d="M10 2.5v2.5M10 15v2.5M2.5 10H5M15 10h2.5M4.7 4.7l1.8 1.8M13.5 13.5l1.8 1.8M4.7 15.3l1.8-1.8M13.5 6.5l1.8-1.8" />
    </>
  ),
};

export function RailIcon({ screen }: { screen: RailScreen }): ReactElement {
  return (
    <svg
      className="icon"
      viewBox="0 0 20 20"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {PATHS[screen]}
    </svg>
  );
}
