import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BundleSize {
  functionPath: string;
  bytes: number;
}

interface CfnResource {
  Type: string;
  Metadata?: Record<string, string>;
}

/**
 * Synthesizes the CDK app into a temporary directory and measures each Lambda's bundled entry file: the
 * exact bytes `cdk deploy` would upload (minified ESM, source map excluded).
 */
export const measureBundles = (root: string): BundleSize[] => {
  const out = mkdtempSync(join(tmpdir(), 'api-v1-synth-'));
  try {
    execFileSync('npx', ['cdk', 'synth', '--quiet', '--output', out], { cwd: root, stdio: 'pipe' });
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
    };
    const sizes: BundleSize[] = [];
    for (const artifact of Object.values(manifest.artifacts)) {
      const templateFile = artifact.properties?.templateFile;
      if (artifact.type !== 'aws:cloudformation:stack' || !templateFile) continue;
      const template = JSON.parse(readFileSync(join(out, templateFile), 'utf8')) as {
        Resources: Record<string, CfnResource>;
      };
      for (const resource of Object.values(template.Resources)) {
        const assetPath = resource.Metadata?.['aws:asset:path'];
        if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
        for (const name of ['index.mjs', 'index.js']) {
          try {
            sizes.push({
              functionPath: resource.Metadata?.['aws:cdk:path'] ?? assetPath,
              bytes: statSync(join(out, assetPath, name)).size,
            });
            break;
          } catch {
            // try the next entry name
          }
        }
      }
    }
    return sizes.sort((a, b) => a.functionPath.localeCompare(b.functionPath));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};
