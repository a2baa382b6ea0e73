/**
 * A small registry of benchmarks for `npm run bench`. A benchmark file (`test/bench/<area>.bench.ts`)
 * calls `registerBench` at import time; run.ts imports every such file and runs what they
 * registered, printing each result line and a summary of ratios against their targets.
 */
export interface BenchResult {
  /** What was measured, e.g. "verify 280 MiB". */
  label: string;
  /** Measured value and unit, e.g. 1.234 and "s". */
  value: number;
  unit: string;
  /** For comparisons: the baseline and its label, giving ratio = value / baseline. */
  baseline?: { label: string; value: number };
  /** Upper bound for the ratio (or for the value when there is no baseline). */
  target?: number;
}

export interface Bench {
  name: string;
  /** Runs the benchmark; `report` prints a result as soon as it is known. */
  run(report: (result: BenchResult) => void): Promise<void>;
}

const benches: Bench[] = [];

export function registerBench(bench: Bench): void {
  benches.push(bench);
}

export function registeredBenches(): readonly Bench[] {
  return benches;
}

export function formatResult(result: BenchResult): string {
  const value = `${result.value.toFixed(3)} ${result.unit}`;
  if (result.baseline === undefined) {
    const verdict =
      result.target === undefined
        ? ''
        : result.value <= result.target
          ? `  OK (target <= ${result.target} ${result.unit})`
          : `  MISSED (target <= ${result.target} ${result.unit})`;
    return `${result.label}: ${value}${verdict}`;
  }
  const ratio = result.value / result.baseline.value;
  const verdict =
    result.target === undefined
      ? ''
      : ratio <= result.target
        ? `  OK (target <= ${result.target}x)`
        : `  MISSED (target <= ${result.target}x)`;
  return (
    `${result.label}: ${value} vs ${result.baseline.label} ` +
    `${result.baseline.value.toFixed(3)} ${result.unit} = ${ratio.toFixed(2)}x${verdict}`
  );
}
