import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { formatPages, referencePages } from './reference';

/**
 * `npm run reference` (from the repository root): writes `docs/reference/`, the SDK reference read out of the
 * OpenAPI document the route table builds (`reference.ts`), formatted by Biome; a page no longer written is
 * removed.
 */
const root = join(import.meta.dirname, '..', '..');
const out = join(root, 'docs', 'reference');
const pages = formatPages(referencePages(JSON.parse(JSON.stringify(buildOpenApiDocument()))), root);
mkdirSync(out, { recursive: true });
for (const file of readdirSync(out)) if (!(file in pages)) rmSync(join(out, file));
for (const [file, text] of Object.entries(pages)) writeFileSync(join(out, file), text);
process.stdout.write(`wrote ${Object.keys(pages).length} pages into ${out}\n`);
