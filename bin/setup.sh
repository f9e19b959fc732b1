#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian 12 machine with Node 20: the system packages the local
# stack uses (Java for DynamoDB Local; ffmpeg and ffprobe, the local media engine; pocketsphinx with its en-US
# model, the local speech engine, and its test recordings; espeak-ng for synthetic speech; Chromium for the browser test of the docs page; ps for the process
# checks of the tests), then the npm packages (the project's, the contract tests' client-type generator and the
# SDK's), and generates the SDK's types from the OpenAPI document.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v ps >/dev/null 2>&1 || missing+=(procps)
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us/en-us ] || missing+=(pocketsphinx-en-us)
[ -d /usr/share/pocketsphinx/test/data/librivox ] || missing+=(pocketsphinx-testdata)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if ((${#missing[@]} > 0)); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

npm ci --no-audit --no-fund
# openapi-typescript (the contract tests' client types) needs TypeScript 5: a package of its own, apart from the
# project's TypeScript 7.
npm ci --prefix test/contract/generator --no-audit --no-fund
# The SDK (sdk/) has its own runtime dependencies; its types are generated from the document (git-ignored).
npm ci --prefix sdk --no-audit --no-fund
npm run sdk:generate
