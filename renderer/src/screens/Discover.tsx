/**
 * Discover: the catalogue, searched as you type where the list is drawn (stores/catalogue.ts: the
 * host sends the index once, a worker ranks each keystroke with the SDK's rules), sorted and
 * filtered, as a virtualised list of cards (only the visible cards exist in the DOM, so 100,000
 * entries scroll smoothly). With an empty search the first screen is not just a list: what the
 * organisation requires, what was updated lately, and categories from the catalogue's keywords,
 * then every capability (docs/ui.md "Navigation", "Cards and pages").
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useShallow } from 'zustand/react/shallow';
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { CatalogueFilters } from '../../../electron/common/index.js';
import { DistributionBadges, Publisher } from '../components/Badges.js';
import { useCardRiskMarker } from '../components/CardRisk.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { Monogram } from '../components/Monogram.js';
import { SideloadButton } from '../components/Sideload.js';
import { formatCount, plural } from '../lib/format.js';
import { hrefOf } from '../router.js';
import type { SearchSort } from '../search/protocol.js';
import { cardOf, useCatalogue, type DiscoverCard } from '../stores/catalogue.js';
import { useSettings } from '../stores/settings.js';

const ROW = 106;
/** Rows before the end of an answer's ordered rows at which the list asks for the order of the rest. */
const AHEAD = 40;

const SORTS: Array<[SearchSort, string]> = [
  ['relevance', 'Best match'],
  ['name', 'Name'],
  ['updated', 'Recently updated'],
];

export function Discover() {
  // Everything but the text being typed: a keystroke re-renders the field alone, and the list once,
  // when its answer comes (docs/ui.md "Fast").
  const state = useCatalogue(useShallow(({ text: _text, ...rest }) => rest));
  const typing = useCatalogue((s) => s.text.trim() !== '');
  const { filters, sort, category, phase, error, rowCount, totalRows, order, shownText, facets, contentsPending } = state;
  const { setFilters, setSort, setCategory, open, refresh, more } = state;
  const scrollRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const sectionsRef = useRef<HTMLDivElement>(null);
  const [sectionsHeight, setSectionsHeight] = useState(0);
  const count = order === null ? rowCount : state.shownTotal;
  const home = !typing && category === null && sort === 'relevance' && Object.keys(filters).length === 0;
  // Where the rows start: below the first screen's sections when they show, else at the top. Known
  // in the render that hides them, so the first key typed draws its answer in one pass.
  const listTop = home && phase === 'ready' ? sectionsHeight : 0;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW,
    // A few rows beyond the window (Tab and the arrow keys reach them; scrolling draws the next):
    // each row drawn is work on every keystroke.
    overscan: 3,
    scrollMargin: listTop,
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? -1;

  useEffect(() => open(), [open]);
  // An answer comes with its first rows in order; the order of the others is asked for only when
  // the list nears them (on the page's thread it is there before this frame is drawn).
  useLayoutEffect(() => {
    if (order !== null && order.length < count && lastShown >= order.length - AHEAD) more();
  }, [order, count, lastShown, more]);
  // The rows start below the first screen's sections (inside the same scrolling box), whose height
  // changes as they load: the virtualizer's scroll margin follows it.
  useLayoutEffect(() => {
    const list = listRef.current;
    const sections = sectionsRef.current;
    if (list === null || sections === null) return;
    const measure = (): void => {
      if (sections.childElementCount > 0) setSectionsHeight(list.offsetTop);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(sections);
    return () => observer.disconnect();
  }, []);

  const setFilter = <K extends keyof CatalogueFilters>(key: K, value: CatalogueFilters[K] | undefined): void => {
    const next = { ...filters };
    if (value === undefined) delete next[key];
    else next[key] = value;
    setFilters(next);
  };

  const onListKey = (event: React.KeyboardEvent<HTMLDivElement>): void => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const current = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (current === null) return;
    event.preventDefault();
    const index = Number(current.dataset['index']) + (event.key === 'ArrowDown' ? 1 : -1);
    if (index < 0 || index >= count) return;
    virtualizer.scrollToIndex(index);
    // A row already drawn (the overscan) takes the focus now, so keys pressed in quick succession
    // each move one row; one scrolled into view takes it once drawn.
    const row = (): HTMLElement | null | undefined => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${index}"] a`);
    const drawn = row();
    if (drawn) drawn.focus();
    else requestAnimationFrame(() => row()?.focus());
  };

  const loadingIndex = phase === 'loading' || (phase === 'ready' && !state.searchReady);
  const contentsFilter = filters.hasTools === true || filters.hasSkills === true || filters.hasWorkflows === true;
  let status: string;
  if (phase === 'idle' || (phase === 'loading' && rowCount === 0)) status = 'Loading the catalogue…';
  else if (loadingIndex && typing) status = `Preparing search over ${plural(totalRows, 'capability', 'capabilities')}…`;
  else if (loadingIndex) status = `${plural(rowCount, 'capability', 'capabilities')} of ${formatCount(totalRows)} loaded…`;
  else status = plural(count, 'capability', 'capabilities');
  if (contentsPending > 0 && contentsFilter) status += ` (still reading the contents of ${formatCount(contentsPending)})`;
  if (sort === 'updated' && state.unread > 0 && phase === 'ready')
    status += ` · dates known for ${formatCount(state.dated)}; the rest follow, by name`;

  return (
    <div className="screen catalogue">
      <div className="screen-header">
        <div>
          <h1>Discover</h1>
          <p>Capabilities from the registries you trust. Nothing is installed until you say so.</p>
        </div>
        <SideloadButton />
      </div>
      <div className="search-bar" role="search">
        <label htmlFor="catalogue-search" className="visually-hidden">
          Search capabilities
        </label>
        <SearchField onArrowDown={() => scrollRef.current?.querySelector<HTMLElement>('[data-index] a')?.focus()} />
        <label className="sort">
          Sort
          <select value={sort} onChange={(e) => setSort(e.target.value as SearchSort)}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="filters" aria-label="Filters" role="group">
        <label>
          Tier
          <select
            value={filters.tier ?? ''}
            onChange={(e) => setFilter('tier', e.target.value === '' ? undefined : (e.target.value as 'free' | 'pro'))}
          >
            <option value="">Any</option>
            <option value="free">Free{facets === null ? '' : ` (${formatCount(facets.tier.free)})`}</option>
            <option value="pro">Pro{facets === null ? '' : ` (${formatCount(facets.tier.pro)})`}</option>
          </select>
        </label>
        <label>
          Access
          <select
            value={filters.access ?? ''}
            onChange={(e) => setFilter('access', e.target.value === '' ? undefined : (e.target.value as 'public' | 'entitled'))}
          >
            <option value="">Any</option>
            <option value="public">Public{facets === null ? '' : ` (${formatCount(facets.access.public)})`}</option>
            <option value="entitled">Entitled{facets === null ? '' : ` (${formatCount(facets.access.entitled)})`}</option>
          </select>
        </label>
        <label>
          Installed
          <select
            value={filters.installed === undefined ? '' : String(filters.installed)}
            onChange={(e) => setFilter('installed', e.target.value === '' ? undefined : e.target.value === 'true')}
          >
            <option value="">Any</option>
            <option value="true">Installed{facets === null ? '' : ` (${formatCount(facets.installed.yes)})`}</option>
            <option value="false">Not installed{facets === null ? '' : ` (${formatCount(facets.installed.no)})`}</option>
          </select>
        </label>
        {(
          [
            ['hasTools', 'Has tools', facets?.hasTools],
            ['hasSkills', 'Has skills', facets?.hasSkills],
            ['hasWorkflows', 'Has workflows', facets?.hasWorkflows],
          ] as const
        ).map(([key, label, facet]) => (
          <label key={key}>
            <input type="checkbox" checked={filters[key] === true} onChange={(e) => setFilter(key, e.target.checked ? true : undefined)} />
            {label}
            {facet === undefined || contentsPending > 0 ? '' : ` (${formatCount(facet)})`}
          </label>
        ))}
        {category !== null && (
          <button type="button" className="chip active" onClick={() => setCategory(null)} aria-label={`Category ${category}: remove`}>
            Category: {category} <span aria-hidden="true">×</span>
          </button>
        )}
      </div>
      <div className="result-count" role="status" aria-live="polite">
        {status}
      </div>
      {error !== null && <ErrorBox error={error} onRetry={phase === 'error' ? open : refresh} />}
      {phase === 'ready' && state.searchReady && count === 0 && error === null && (
        <div className="empty">
          <strong>
            {totalRows === 0
              ? 'No capabilities here yet'
              : shownText.trim() === ''
                ? 'Nothing matches these filters'
                : `Nothing matches “${shownText}”`}
          </strong>
          {totalRows === 0
            ? 'Add a registry in Settings, or install a .adcap file you trust.'
            : 'Try fewer words, check the spelling, or clear the filters.'}
        </div>
      )}
      <div
        ref={scrollRef}
        className="card-list"
        aria-busy={loadingIndex}
        data-results-for={shownText}
        data-search-ready={state.searchReady ? 'true' : 'false'}
        data-search-in={state.searchIn ?? ''}
        data-search-ms={state.searchMs.toFixed(1)}
        onKeyDown={onListKey}
      >
        <div ref={sectionsRef}>
          {home && phase === 'ready' && <FirstScreen onCategory={setCategory} />}
          {home && phase === 'ready' && count > 0 && <h2 className="list-heading">All capabilities</h2>}
        </div>
        <div ref={listRef} role="list" aria-label="Capabilities" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = order === null ? item.index : order[item.index];
            const card = row === undefined ? null : cardOf(state, row);
            return (
              <div
                key={item.key}
                role="listitem"
                data-index={item.index}
                aria-setsize={count}
                aria-posinset={item.index + 1}
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  width: '100%',
                  height: ROW - 10,
                  transform: `translateY(${item.start - listTop}px)`,
                }}
              >
                {card === null ? <div className="card" aria-hidden="true" /> : <Card card={card} />}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** The search field: the one part of the screen a keystroke re-renders before the answer comes. */
function SearchField({ onArrowDown }: { onArrowDown: () => void }) {
  const text = useCatalogue((s) => s.text);
  const setText = useCatalogue((s) => s.setText);
  const ref = useRef<HTMLInputElement>(null);
  // The field has the focus when the screen opens, given once the frame that shows the screen has
  // been drawn rather than during the render (autoFocus): a focus inside React's commit forces the
  // window's first style and layout there, and the frame then lays the window out again before the
  // cards show; given before that frame is drawn it delays it (focus styles, the caret).
  useEffect(() => {
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => ref.current?.focus(), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  return (
    <input
      ref={ref}
      id="catalogue-search"
      type="search"
      placeholder="Search by name, publisher or what it does  ( / )"
      value={text}
      autoComplete="off"
      spellCheck={false}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'ArrowDown') {
          e.preventDefault();
          onArrowDown();
        }
      }}
    />
  );
}

/**
 * The first screen's sections: what the organisation's policy requires and recommends, categories from the
 * catalogue's keywords, and what was published lately (from the package documents read so far).
 */
function FirstScreen({ onCategory }: { onCategory: (category: string) => void }) {
  const state = useCatalogue();
  const { rows, rowCount, recent, categories } = state;
  const policy = useSettings((s) => s.policy);
  const named = (policy?.policy?.required?.length ?? 0) + (policy?.policy?.recommended?.length ?? 0) > 0;
  // Only when the policy names capabilities: a map of 20,000 ids on each page of rows costs a frame.
  const rowOf = useMemo(() => {
    const map = new Map<string, number>();
    if (named) rows.slice(0, rowCount).forEach((row, i) => map.set(row[0], i));
    return map;
  }, [rows, rowCount, named]);
  const rowsOf = (specs: readonly string[]): number[] =>
    specs.map((spec) => rowOf.get(spec.replace(/@.*$/, ''))).filter((row): row is number => row !== undefined);
  const required = rowsOf(policy?.policy?.required ?? []);
  // What the policy recommends (docs/admin.md `recommended`), less what it already requires.
  const recommended = rowsOf(policy?.policy?.recommended ?? []).filter((row) => !required.includes(row));
  const organisation = policy?.policy?.organisation ?? 'your organisation';
  const cards = (list: ArrayLike<number>): DiscoverCard[] =>
    Array.from(list, (row) => cardOf(state, row)).filter((card): card is DiscoverCard => card !== null);
  return (
    <div className="first-screen">
      {required.length > 0 && (
        <section aria-labelledby="discover-required">
          <h2 id="discover-required">Required by {organisation}</h2>
          <p className="section-note">Your organisation's policy installs these on this computer and keeps them.</p>
          <div className="card-grid">
            {cards(required).map((card) => (
              <Card key={card.id} card={card} />
            ))}
          </div>
        </section>
      )}
      {recommended.length > 0 && (
        <section aria-labelledby="discover-recommended">
          <h2 id="discover-recommended">Recommended by {organisation}</h2>
          <p className="section-note">Suggested by your organisation. Nothing is installed until you choose Install.</p>
          <div className="card-grid">
            {cards(recommended).map((card) => (
              <Card key={card.id} card={card} />
            ))}
          </div>
        </section>
      )}
      {categories.length > 0 && (
        <section aria-labelledby="discover-categories">
          <h2 id="discover-categories">Categories</h2>
          <div className="chips">
            {categories.map((category) => (
              <button key={category} type="button" className="chip" onClick={() => onCategory(category)}>
                {category}
              </button>
            ))}
          </div>
        </section>
      )}
      {recent.length > 0 && (
        <section aria-labelledby="discover-recent">
          <h2 id="discover-recent">Recently updated</h2>
          <div className="card-grid recent">
            {cards(recent).map((card) => (
              <Card key={card.id} card={card} />
            ))}
          </div>
        </section>
      )}
    </div>
  );
}

/**
 * A card draws again only when what it shows changed: typing on narrows a list whose first cards
 * often stay the same, and each answer renders the list once (docs/ui.md "Fast").
 */
const Card = memo(CardView, (before, after) =>
  (Object.keys(after.card) as Array<keyof DiscoverCard>).every((key) => before.card[key] === after.card[key]),
);

function CardView({ card }: { card: DiscoverCard }) {
  // The overall risk of its page (dependencies and skills' programs counted), computed on the host.
  const risk = useCardRiskMarker(card.id);
  return (
    <a className="card" href={hrefOf({ screen: 'capability', id: card.id })} data-id={card.id} aria-describedby={risk.describedBy}>
      <Monogram id={card.id} name={card.name} />
      <div className="card-body">
        <div className="card-title">
          {/* Element Timing (W3C): the browser reports when a card's name was first painted (the UI bench reads it). */}
          <span className="name" {...{ elementtiming: 'card-name' }}>
            {card.name}
          </span>
          {card.version !== null && <span className="version">{card.version}</span>}
        </div>
        <div className="card-meta">
          <span className="mono">{card.id}</span> · <Publisher name={card.publisherName} verified={card.verified} />
        </div>
        <p className="card-summary">{card.summary}</p>
      </div>
      <div className="card-badges">
        {risk.marker}
        {card.updateAvailable ? (
          <span className="badge warn">Update available</span>
        ) : card.installed ? (
          <span className="badge ok">Installed</span>
        ) : null}
        <DistributionBadges tier={card.tier} access={card.access} deprecated={card.deprecated} />
      </div>
    </a>
  );
}
