import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { RESERVED_WORKFLOW_IDS } from '../../functions/shared/types/workflows';

/**
 * Paths resolve unambiguously (Redocly's `no-ambiguous-paths`, switched off in `redocly.yaml` for this test to
 * hold instead): two paths a request could match both are refused, except where the literal segment is an id
 * the parameter can never take (`RESERVED_WORKFLOW_IDS`: `/v1/workflows/secrets/{name}` beside
 * `/v1/workflows/{id}/runs`). API Gateway, and the local gateway, match literal segments first.
 */
const isParam = (segment: string) => segment.startsWith('{');

/** Whether one request path could match both `a` and `b` (same length, each segment equal or a parameter). */
const ambiguous = (a: string[], b: string[]) =>
  a.length === b.length && a.every((s, i) => s === b[i] || isParam(s) || isParam(b[i] ?? ''));

/** Whether a segment of one is a reserved workflow id where the other has the workflow's id: no request matches both. */
const reservedOnly = (a: string[], b: string[]) =>
  a.some((s, i) => {
    const t = b[i] ?? '';
    if (isParam(s) === isParam(t)) return false;
    return RESERVED_WORKFLOW_IDS.has(isParam(s) ? t : s) && a.slice(0, i).join('/') === 'v1/workflows';
  });

describe('route paths', () => {
  it('resolve unambiguously, but for reserved ids', () => {
    const paths = [...new Set(ROUTES.map((r) => r.path))];
    const found: string[] = [];
    for (const [i, p] of paths.entries()) {
      for (const q of paths.slice(i + 1)) {
        const [a, b] = [p.split('/').slice(1), q.split('/').slice(1)];
        if (ambiguous(a, b) && !reservedOnly(a, b)) found.push(`${p} ~ ${q}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('finds an ambiguity it is shown, and lets the reserved workflow ids through', () => {
    const split = (p: string) => p.split('/').slice(1);
    expect(ambiguous(split('/v1/a/{id}/x'), split('/v1/a/b/{name}'))).toBe(true);
    expect(reservedOnly(split('/v1/a/{id}/x'), split('/v1/a/b/{name}'))).toBe(false);
    expect(reservedOnly(split('/v1/workflows/{id}/runs'), split('/v1/workflows/secrets/{name}'))).toBe(true);
  });
});
