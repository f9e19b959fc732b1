import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The package as a consumer gets it: what `npm pack` puts in the tarball, and that the built module loads
 * and exports the client. Reads the build of `npm run sdk:build`, which the root `npm test` runs first.
 */
const sdk = join(import.meta.dirname, '..', '..');

interface Packed {
  files: { path: string }[];
}

describe('the SDK package', () => {
  it('packs the built JavaScript, its declarations, the generated types and the README, nothing else', () => {
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: sdk,
      encoding: 'utf8',
    });
    const [packed]: Packed[] = JSON.parse(output);
    const files = (packed?.files ?? []).map((f) => f.path);
    expect(files, 'run npm run sdk:build first').toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/client.js',
        'dist/generated/openapi.d.ts',
        'dist/generated/operations.js',
        'dist/webhooks.js',
      ]),
    );
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md')).toEqual(
      [],
    );
  });

  it('loads from dist as an ES module and exports the client', async () => {
    const built: Record<string, unknown> = await import(/* @vite-ignore */ join(sdk, 'dist', 'index.js'));
    expect(typeof built.createApiClient).toBe('function');
    expect(typeof built.verifyWebhook).toBe('function');
    expect(built.OPERATIONS).toHaveProperty('listDynadataItems.page.items', 'items');
  });
});
