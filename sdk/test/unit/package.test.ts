import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The package as a consumer gets it: what `npm pack` puts in the tarball, and that the built modules (ES and
 * CommonJS) load and export the client. Reads the build of `npm run sdk:build`, which the root `npm test`
 * runs first; `test/integration/package-install.test.ts` installs the tarball and runs it.
 */
const sdk = join(import.meta.dirname, '..', '..');

interface Packed {
  files: { path: string; size: number }[];
}

describe('the SDK package', () => {
  it('packs both builds, their declarations, the generated types once, the README and CHANGELOG only', () => {
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: sdk,
      encoding: 'utf8',
    });
    const [packed]: Packed[] = JSON.parse(output);
    const files = (packed?.files ?? []).map((f) => f.path);
    const built = ['index.js', 'index.d.ts', 'client.js', 'generated/operations.js', 'webhooks.js'];
    expect(files, 'run npm run sdk:build first').toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'dist/cjs/package.json',
        'dist/generated/openapi.d.ts',
        'dist/cjs/generated/openapi.d.ts',
        ...built.flatMap((file) => [`dist/${file}`, `dist/cjs/${file}`]),
      ]),
    );
    expect(
      files.filter(
        (f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'CHANGELOG.md'].includes(f),
      ),
    ).toEqual([]);
    // The generated types, the bulk of the package, are declared once (in dist/cjs) and re-exported.
    const size = (path: string) => packed?.files.find((f) => f.path === path)?.size ?? 0;
    expect(size('dist/generated/openapi.d.ts')).toBeLessThan(1000);
    expect(size('dist/cjs/generated/openapi.d.ts')).toBeGreaterThan(100_000);
  });

  it('loads from dist as an ES module and as CommonJS, with the same exports', async () => {
    const esm: Record<string, unknown> = await import(/* @vite-ignore */ join(sdk, 'dist', 'index.js'));
    const cjs: Record<string, unknown> = createRequire(import.meta.url)(join(sdk, 'dist', 'cjs', 'index.js'));
    for (const built of [esm, cjs]) {
      expect(typeof built.createApiClient).toBe('function');
      expect(typeof built.verifyWebhook).toBe('function');
      expect(built.OPERATIONS).toHaveProperty('listDynadataItems.page.items', 'items');
    }
    expect(Object.keys(cjs).sort()).toEqual(Object.keys(esm).sort());
  });
});
