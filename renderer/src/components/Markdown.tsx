/**
 * Package text as Markdown, inert (docs/ui.md "Markdown for descriptions and readmes, without raw HTML"): raw HTML in the source
 * is dropped (skipHtml; no rehype-raw), so `<script>`, `<iframe>` and `onerror=` never become
 * elements or attributes; links keep only https:// (others render as plain text, so `javascript:`
 * and `data:` never reach an href) and open outside with rel="noopener noreferrer"; images are
 * never fetched (a tracking pixel is still a request), their alt text is shown instead.
 */
import ReactMarkdown, { type Components } from 'react-markdown';

/** Only absolute https URLs survive; everything else becomes text. */
function safeHref(url: string | null | undefined): string | null {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

const components: Components = {
  a({ href, children }) {
    const safe = safeHref(href);
    if (safe === null) return <span className="unsafe-link">{children}</span>;
    return (
      <a href={safe} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    );
  },
  img({ alt }) {
    return alt !== undefined && alt.length > 0 ? <span className="muted">[image: {alt}]</span> : null;
  },
  // A code block scrolls sideways rather than wrap its lines: it is a focusable, named region so
  // the keyboard can scroll it too (WCAG 2.1.1; axe scrollable-region-focusable).
  pre({ children }) {
    return (
      <pre tabIndex={0} role="region" aria-label="Code">
        {children}
      </pre>
    );
  },
};

/**
 * A SKILL.md (or any Markdown file) may open with YAML front matter between `---` lines (Agent
 * Skills: name, description, license); it is metadata the page shows elsewhere, not text to read,
 * and Markdown would turn it into a rule and a bold heading. It is left out.
 */
export function stripFrontMatter(text: string): string {
  const match = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  return match === null ? text : text.slice(match[0].length).replace(/^\s*\n/, '');
}

export function Markdown({ text, className = 'markdown' }: { text: string; className?: string }) {
  return (
    <div className={className}>
      <ReactMarkdown skipHtml urlTransform={(url) => (safeHref(url) === null && !url.startsWith('#') ? '' : url)} components={components}>
        {stripFrontMatter(text)}
      </ReactMarkdown>
    </div>
  );
}

/** A single URL from package text: a link only when it is https, else plain text. */
export function SafeLink({ url }: { url: string }) {
  const safe = safeHref(url);
  if (safe === null) return <span className="mono">{url}</span>;
  return (
    <a href={safe} target="_blank" rel="noopener noreferrer">
      {safe}
    </a>
  );
}
