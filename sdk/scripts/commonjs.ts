import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The last step of the build (`npm run build`), after `tsc` emitted `dist/` (ES modules) and `dist/cjs/`
 * (CommonJS, `tsconfig.cjs.json`), both with declarations:
 * - `dist/cjs/package.json` says `"type": "commonjs"`, so Node and TypeScript read that folder's `.js` and
 *   `.d.ts` files as CommonJS (the package itself is `"type": "module"`);
 * - the ES module declarations of the generated types (`generated/openapi.d.ts`, the bulk of the package)
 *   become a type-only re-export of the CommonJS copy: the same types, shipped once. That way round, since an
 *   ES module may import a CommonJS one under every TypeScript `module` setting (`node16` included), while
 *   the reverse is refused under `node16`.
 */
const dist = join(import.meta.dirname, '..', 'dist');
const cjs = join(dist, 'cjs');
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
writeFileSync(
  join(dist, 'generated', 'openapi.d.ts'),
  [
    '/** The types generated from the OpenAPI document, declared once, in the CommonJS build. */',
    "export type * from '../cjs/generated/openapi.js';",
    '',
  ].join('\n'),
);
