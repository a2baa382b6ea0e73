// check_quality: turns a column profile from acme/csv-summary's summarize_csv into a list of
// data-quality findings (missing values, constant or mostly-unique columns, mixed types, ragged
// rows), each with a severity and a suggested fix. It works only on its input: no files, no
// network, no permissions.
import { serveTools } from './protocol.mjs';

function checkQuality(input) {
  const { summary } = input;
  const threshold = input.missingThreshold ?? 5;
  const findings = [];
  const add = (severity, column, problem, fix) => findings.push(column === null ? { severity, problem, fix } : { severity, column, problem, fix });

  if (summary.rows === 0) add('error', null, 'The file has a header but no data rows.', 'Check that the export finished, or that you picked the right file.');
  if (summary.raggedRows > 0) add('error', null, `${summary.raggedRows} row(s) have a different number of fields than the header.`, 'Look for unquoted delimiters or line breaks inside values; quote those fields.');
  if (summary.truncated) add('info', null, `Only the first ${summary.rows} rows were profiled.`, 'Raise maxRows to profile the whole file.');

  for (const column of summary.columns) {
    const present = column.count - column.missing;
    const missingPercent = column.count === 0 ? 0 : Math.round((100 * column.missing) / column.count);
    if (column.type === 'empty') {
      add('warning', column.name, 'The column is empty.', 'Drop it, or fix the export that should fill it.');
      continue;
    }
    if (missingPercent >= threshold) {
      add(missingPercent >= 50 ? 'error' : 'warning', column.name, `${missingPercent}% of the values are missing (${column.missing} of ${column.count}).`, 'Decide whether to fill them (a default, the previous value) or exclude these rows from totals.');
    }
    if (present > 1 && column.distinct === 1) add('info', column.name, 'Every value is the same.', 'A constant column carries no information; it can usually be dropped.');
    if (column.note !== undefined) add('warning', column.name, `Mixed types: ${column.note}.`, 'Clean the non-numeric values (units, thousands separators, "n/a" spellings) so the column can be used as a number.');
    if (column.type === 'text' && present > 20 && column.distinct === present && !column.distinctCapped) {
      add('info', column.name, 'Every value is different.', 'Probably an identifier or free text: do not group by it.');
    }
    if ((column.type === 'integer' || column.type === 'number') && typeof column.min === 'number' && column.min < 0 && /(count|units|qty|quantity|price|amount)/i.test(column.name)) {
      add('warning', column.name, `Has negative values (minimum ${column.min}) although the name suggests it cannot.`, 'Check whether these are returns or refunds recorded as negatives, and treat them consistently.');
    }
  }
  const order = { error: 0, warning: 1, info: 2 };
  findings.sort((a, b) => order[a.severity] - order[b.severity]);
  return { findings, ok: !findings.some((f) => f.severity === 'error'), columns: summary.columns.length, rows: summary.rows };
}

serveTools({ check_quality: checkQuality });
