import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NotFoundError } from '../errors';
import { preferredCoding } from './content-coding';
import type { RawResult } from './router';

/**
 * The interactive documentation (`GET /v1/docs`): Swagger UI from the npm package `swagger-ui-dist`, rendered
 * in the browser from the live `GET /v1/openapi.json`, with every script, style sheet and icon served by this
 * API (`GET /v1/docs/assets/{asset}`), so the page asks no other host for anything: no fonts, no validator
 * badge (`validatorUrl: null`), no telemetry, and a Content-Security-Policy that lets the browser load and
 * connect to this origin only. "Try it out" sends requests to the same origin with the key pasted under
 * "Authorize" (kept in the page, never stored).
 *
 * Asset names carry a hash of their content, so they are cached for a year (`immutable`) and a new package
 * version is a new name; the page itself is cached for five minutes. Text assets are gzip-encoded for clients
 * that accept it (the 1.7 MB script becomes about 0.5 MB): an answer stays far within Lambda's 6 MB response
 * limit either way, base64 included. On AWS the package files sit in the function's asset under
 * `node_modules/swagger-ui-dist` (copied there at bundling, see `lib/constructs/route-group.ts`); locally they
 * are read from the project's `node_modules`.
 */
export const DOCS_PACKAGE = 'swagger-ui-dist';
/** The files of the package the page uses. */
export const DOCS_PACKAGE_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE'];

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
};

/** Starts Swagger UI on the page (a file of its own: the page's policy allows no inline script). */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    presets: [SwaggerUIBundle.presets.apis],
    deepLinking: true,
    validatorUrl: null,
    withCredentials: false,
    persistAuthorization: false,
    displayRequestDuration: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    filter: true,
    tryItOutEnabled: false,
    supportedSubmitMethods: ['get', 'post', 'delete'],
  });
});
`;

interface Asset {
  name: string;
  contentType: string;
  body: Buffer;
  gzipped?: Buffer;
}

const hashedName = (file: string, body: Buffer): string => {
  const dot = file.lastIndexOf('.');
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return `${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
};

const assetOf = (file: string, body: Buffer): Asset => ({
  name: hashedName(file, body),
  contentType: CONTENT_TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
  body,
});

interface Docs {
  page: string;
  assets: Map<string, Asset>;
}

let loaded: Docs | undefined;

/** Reads the package files once per instance (on the first docs request, not at cold start). */
const docs = (): Docs => {
  if (loaded) return loaded;
  const directory = dirname(createRequire(import.meta.url).resolve(`${DOCS_PACKAGE}/package.json`));
  const read = (file: string) => assetOf(file, readFileSync(join(directory, file)));
  const script = read('swagger-ui-bundle.js');
  const styles = read('swagger-ui.css');
  const icon = read('favicon-32x32.png');
  const initializer = assetOf('docs.js', Buffer.from(INITIALIZER));
  const href = (asset: Asset) => `docs/assets/${asset.name}`;
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Public REST API v1: interactive documentation</title>
<link rel="icon" type="image/png" href="${href(icon)}">
<link rel="stylesheet" href="${href(styles)}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${href(script)}"></script>
<script src="${href(initializer)}"></script>
</body>
</html>
`;
  loaded = { page, assets: new Map([script, styles, icon, initializer].map((a) => [a.name, a])) };
  return loaded;
};

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes; its style sheet draws icons from data: URLs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const docsPage = (): RawResult => ({
  body: undefined,
  raw: docs().page,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'public, max-age=300',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  },
});

export const docsAsset = (name: string, acceptEncoding: string | undefined): RawResult => {
  const asset = docs().assets.get(name);
  if (!asset) throw new NotFoundError('No documentation asset has this name.');
  const compress =
    asset.contentType.startsWith('text/') && preferredCoding(acceptEncoding, ['gzip']) === 'gzip';
  if (compress) asset.gzipped ??= gzipSync(asset.body, { level: 9 });
  return {
    body: undefined,
    raw: compress ? (asset.gzipped as Buffer) : asset.body,
    headers: {
      'content-type': asset.contentType,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      ...(compress ? { 'content-encoding': 'gzip' } : {}),
    },
  };
};
