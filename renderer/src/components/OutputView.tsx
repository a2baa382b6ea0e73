/**
 * A tool's output, readable (docs/ui.md "Run by hand"): an array of objects as a table, other values as
 * formatted JSON, with Copy. Output is hostile text: shown as text nodes only.
 */
import { CopyButton } from './Copy.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isRecord(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cell(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  // Display only (Copy takes the exact value): long fractions rounded, lists of plain values joined.
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Math.round(value * 10_000) / 10_000);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))
    return value.map((v) => (v === null ? '' : String(v))).join(', ');
  return JSON.stringify(value);
}

const MAX_ROWS = 500;

function Table({ rows, caption }: { rows: Record<string, Json>[]; caption?: string }) {
  const columns = [...new Set(rows.slice(0, MAX_ROWS).flatMap((r) => Object.keys(r)))].slice(0, 24);
  return (
    <div className="table-wrap">
      <table className="data">
        {caption !== undefined && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, MAX_ROWS).map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>{cell(row[c])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > MAX_ROWS && (
        <p className="muted small">
          Showing the first {MAX_ROWS} of {rows.length} rows; Copy takes them all.
        </p>
      )}
    </div>
  );
}

/** The whole value: tables for every array-of-objects member at the top, JSON for the rest. */
export function OutputView({ value }: { value: unknown }) {
  const json = JSON.stringify(value, null, 2) ?? 'null';
  const tables: Array<[string, Record<string, Json>[]]> = [];
  const rest: Record<string, unknown> = {};
  if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) tables.push(['Output', value as Record<string, Json>[]]);
  else if (isRecord(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (Array.isArray(member) && member.length > 0 && member.every(isRecord)) tables.push([key, member as Record<string, Json>[]]);
      else rest[key] = member;
    }
  }
  const showJson = tables.length === 0 ? json : Object.keys(rest).length > 0 ? JSON.stringify(rest, null, 2) : null;
  return (
    <div className="stack output">
      <div className="row" style={{ justifyContent: 'flex-end' }}>
        <CopyButton text={json} label="Copy output" />
      </div>
      {tables.map(([name, rows]) => (
        <section key={name} className="stack" style={{ gap: 6 }}>
          <h3>
            {name} <span className="muted small">({rows.length} rows)</span>
          </h3>
          <Table rows={rows} caption={name} />
        </section>
      ))}
      {showJson !== null && <pre className="json mono">{showJson}</pre>}
    </div>
  );
}
