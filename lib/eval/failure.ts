/**
 * A failed case in words: the first wrong element that a verdict's `metrics.first` names (the
 * bundle's exact rule always does on a failed case; a verifier may), e.g.
 * `y[0, 4] expected 17, got 18 (1 of 64 elements wrong)`.
 */

/** Longest text shown for one value, name or index: a verifier's `first` is authored, so any size can come back. */
const MAX_TEXT = 40;

/**
 * The readable failure of a case from its verdict's metrics, or undefined when they name no
 * first wrong element. The exact rule's counts read `(1 of 64 elements wrong)`; a verifier's
 * other metrics follow as their JSON, as they did before `first` existed.
 */
export function explainFailure(metrics: Record<string, unknown> | undefined): string | undefined {
  const first = metrics?.first;
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return undefined;
  const {result, index, flat, expected, got} = first as Record<string, unknown>;
  const at = indexText(index, flat);
  const withValues = expected !== undefined || got !== undefined;
  if (!withValues && typeof result !== 'string' && !at) return undefined;
  const where = `${typeof result === 'string' ? clip(result) : 'element'}${at}`;
  const text = withValues ? `${where} expected ${valueText(expected)}, got ${valueText(got)}` : `${where} is wrong`;
  const {first: _first, ...rest} = metrics!;
  if (rest.rule === 'exact' && typeof rest.wrong === 'number' && typeof rest.of === 'number') {
    return `${text} (${rest.wrong} of ${rest.of} element${rest.of === 1 ? '' : 's'} wrong)`;
  }
  return Object.keys(rest).length ? `${text} (${JSON.stringify(rest)})` : text;
}

/** Metrics whose `first` keeps where the element is but not its values (`expected`, `got`): for secret (salted) test data. */
export function withoutValues(metrics: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const first = metrics?.first;
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return metrics;
  const {expected: _expected, got: _got, ...place} = first as Record<string, unknown>;
  return {...metrics, first: place};
}

/** `[0, 4]` for a multi-dimensional index, `[4]` from a flat one alone, nothing for a scalar's `[]`. */
function indexText(index: unknown, flat: unknown): string {
  if (Array.isArray(index)) return index.length ? clip(`[${index.map((k) => (typeof k === 'number' ? String(k) : valueText(k))).join(', ')}]`) : '';
  return typeof flat === 'number' ? `[${flat}]` : '';
}

/** A value as JSON text, strings (64-bit integers, NaN, -0) as they are; clipped to MAX_TEXT characters. */
function valueText(value: unknown): string {
  return clip(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
