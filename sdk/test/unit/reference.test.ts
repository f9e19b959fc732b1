import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../functions/shared/http/openapi';
import { operationTable } from '../../scripts/operation-table';
import { formatPages, referencePages } from '../../scripts/reference';

/**
 * The committed SDK reference (`docs/reference/`) is what `npm run reference` writes from the document the
 * route table builds now: a route's change without the pages regenerated fails here.
 */
const root = join(import.meta.dirname, '..', '..', '..');
const folder = join(root, 'docs', 'reference');
const document = JSON.parse(JSON.stringify(buildOpenApiDocument()));
const pages = referencePages(document);
const written = formatPages(pages, root);

describe('the SDK reference', () => {
  it('is up to date with the OpenAPI document (run `npm run reference`)', () => {
    expect(readdirSync(folder).sort()).toEqual(Object.keys(written).sort());
    for (const [file, text] of Object.entries(written)) {
      expect(readFileSync(join(folder, file), 'utf8'), `docs/reference/${file}`).toBe(text);
    }
  });

  it('shows every resource method once, with its call and its method and path', () => {
    const all = Object.values(pages).join('\n');
    for (const [id, facts] of Object.entries(operationTable(document))) {
      if (facts.sdk === null) continue;
      const heading = `## \`${facts.sdk.name}\``;
      expect(all.split(heading).length - 1, id).toBe(1);
      expect(all, id).toContain(`\`${facts.method.toUpperCase()} ${facts.path}\``);
      expect(all, id).toContain(`operation \`${id}\``);
    }
    expect(written['transcodes.md']).toContain("client.transcodes.waitUntilDone('tc_");
    expect(written['dynadata.md']).toContain("client.dynadata.items('contacts').list.all(");
  });
});
