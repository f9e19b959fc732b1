import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DockerImage } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { PROJECT_ROOT } from './app-function';

/**
 * The npm package that ships the ffmpeg binary inside its tarball (a static x86-64 Linux build), an exact-pinned
 * devDependency: the layer is built from `node_modules` at synth, without network.
 */
export const FFMPEG_PACKAGE = '@ffmpeg-installer/linux-x64';

/**
 * A Lambda layer holding `bin/ffmpeg` (mounted as `/opt/bin/ffmpeg`), copied at synth from the installed
 * package. The binary is x86-64: only x86_64 functions may use it. About 68 MB unpacked (the layer's zip about
 * 25 MB), well within Lambda's 250 MB for a function and its layers.
 */
export const ffmpegLayer = (scope: Construct, id: string): LayerVersion =>
  new LayerVersion(scope, id, {
    description: `ffmpeg (${FFMPEG_PACKAGE}, static x86-64 build) as /opt/bin/ffmpeg`,
    compatibleArchitectures: [Architecture.X86_64],
    code: Code.fromAsset(join(PROJECT_ROOT, 'node_modules', FFMPEG_PACKAGE), {
      bundling: {
        // Never used: the local copy below always succeeds (the package is installed with the project).
        image: DockerImage.fromRegistry('public.ecr.aws/docker/library/busybox'),
        local: {
          tryBundle: (outputDir) => {
            const bin = join(outputDir, 'bin');
            mkdirSync(bin, { recursive: true });
            copyFileSync(join(PROJECT_ROOT, 'node_modules', FFMPEG_PACKAGE, 'ffmpeg'), join(bin, 'ffmpeg'));
            chmodSync(join(bin, 'ffmpeg'), 0o755);
            return true;
          },
        },
      },
    }),
  });
