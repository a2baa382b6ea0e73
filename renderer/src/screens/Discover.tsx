/**
 * Discover: the catalogue, searched as you type, filtered, as a virtualised list of cards (smooth
 * with 20,000 entries: only the visible cards exist in the DOM; pages load as they scroll in).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { CatalogueCard, CatalogueFilters } from '../../../electron/common/index.js';
import { DistributionBadges, Publisher } from '../components/Badges.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { Monogram } from '../components/Monogram.js';
import { SideloadButton } from '../components/Sideload.js';
import { plural } from '../lib/format.js';
import { hrefOf } from '../router.js';
import { cardAt, useCatalogue } from '../stores/catalogue.js';

const ROW = 106;

export function Discover() {
  const {
    text,
    filters,
    total,
    pages,
    facets,
    loading,
    loaded,
    shownText,
    error,
    contentsPending,
    setText,
    setFilters,
    ensureRange,
    refresh,
  } = useCatalogue();
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => scrollRef.current, estimateSize: () => ROW, overscan: 6 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  useEffect(() => {
    if (!loaded && !loading) refresh();
  }, [loaded, loading, refresh]);
  useEffect(() => {
    if (total > 0) ensureRange(first, last);
  }, [first, last, total, pages, ensureRange]);

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
    if (index < 0 || index >= total) return;
    virtualizer.scrollToIndex(index);
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${index}"] a`)?.focus());
  };

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
        <input
          id="catalogue-search"
          type="search"
          placeholder="Search by name, publisher or what it does  ( / )"
          value={text}
          autoFocus
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              scrollRef.current?.querySelector<HTMLElement>('[data-index] a')?.focus();
            }
          }}
        />
      </div>
      <div className="filters" aria-label="Filters" role="group">
        <label>
          Tier
          <select
            value={filters.tier ?? ''}
            onChange={(e) => setFilter('tier', e.target.value === '' ? undefined : (e.target.value as 'free' | 'pro'))}
          >
            <option value="">Any</option>
            <option value="free">Free{facets === null ? '' : ` (${facets.tier.free})`}</option>
            <option value="pro">Pro{facets === null ? '' : ` (${facets.tier.pro})`}</option>
          </select>
        </label>
        <label>
          Access
          <select
            value={filters.access ?? ''}
            onChange={(e) => setFilter('access', e.target.value === '' ? undefined : (e.target.value as 'public' | 'entitled'))}
          >
            <option value="">Any</option>
            <option value="public">Public{facets === null ? '' : ` (${facets.access.public})`}</option>
            <option value="entitled">Entitled{facets === null ? '' : ` (${facets.access.entitled})`}</option>
          </select>
        </label>
        <label>
          Installed
          <select
            value={filters.installed === undefined ? '' : String(filters.installed)}
            onChange={(e) => setFilter('installed', e.target.value === '' ? undefined : e.target.value === 'true')}
          >
            <option value="">Any</option>
            <option value="true">Installed{facets === null ? '' : ` (${facets.installed.yes})`}</option>
            <option value="false">Not installed{facets === null ? '' : ` (${facets.installed.no})`}</option>
          </select>
        </label>
        {(
          [
            ['hasTools', 'Has tools', facets?.hasTools],
            ['hasSkills', 'Has skills', facets?.hasSkills],
            ['hasWorkflows', 'Has workflows', facets?.hasWorkflows],
          ] as const
        ).map(([key, label, count]) => (
          <label key={key}>
            <input type="checkbox" checked={filters[key] === true} onChange={(e) => setFilter(key, e.target.checked ? true : undefined)} />
            {label}
            {count === undefined || contentsPending > 0 ? '' : ` (${count})`}
          </label>
        ))}
      </div>
      <div className="result-count" role="status" aria-live="polite">
        {loaded ? plural(total, 'capability', 'capabilities') : 'Searching…'}
        {contentsPending > 0 && (filters.hasTools === true || filters.hasSkills === true || filters.hasWorkflows === true)
          ? ` (still reading the contents of ${contentsPending})`
          : ''}
      </div>
      {error !== null && <ErrorBox error={error} onRetry={refresh} />}
      {loaded && total === 0 && error === null && (
        <div className="empty">
          <strong>{text.trim() === '' ? 'No capabilities here yet' : `Nothing matches “${text}”`}</strong>
          {text.trim() === ''
            ? 'Add a registry in Settings, or install a .adcap file you trust.'
            : 'Try fewer words, or clear the filters.'}
        </div>
      )}
      <div ref={scrollRef} className="card-list" aria-busy={loading} data-results-for={shownText} onKeyDown={onListKey}>
        <div role="list" aria-label="Capabilities" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const card = cardAt(pages, item.index);
            return (
              <div
                key={item.key}
                role="listitem"
                data-index={item.index}
                aria-setsize={total}
                aria-posinset={item.index + 1}
                style={{ position: 'absolute', top: 0, left: 0, width: '100%', height: ROW - 10, transform: `translateY(${item.start}px)` }}
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

function Card({ card }: { card: CatalogueCard }) {
  const version = card.latest ?? card.latestPrerelease;
  return (
    <a className="card" href={hrefOf({ screen: 'capability', id: card.id })} data-id={card.id}>
      <Monogram id={card.id} name={card.name} />
      <div className="card-body">
        <div className="card-title">
          <span className="name">{card.name}</span>
          {version !== null && <span className="version">{version}</span>}
        </div>
        <div className="card-meta">
          <span className="mono">{card.id}</span> · <Publisher name={card.publisherName} verified={card.verified} />
        </div>
        <p className="card-summary">{card.summary}</p>
      </div>
      <div className="card-badges">
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
