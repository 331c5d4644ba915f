#!/usr/bin/env bash
# Fill Solara's CDN-proxy cache from the npm registry, for machines that cannot reach the CDN.
#
# usage: bash viz/offline_assets.sh [CACHE_DIR]        (default: .solara-cdn beside this repository's viz/)
# then:  SOLARA_ASSETS_PROXY_CACHE_DIR=CACHE_DIR gridmarket viz
#
# Solara serves the page's JavaScript through /_solara/cdn/<package>@<version>/..., a proxy to the
# jsDelivr CDN that caches in SOLARA_ASSETS_PROXY_CACHE_DIR. jsDelivr serves npm's files, so unpacking
# the npm tarballs under directories named exactly like the URL path segment (literally "vega@5")
# fills the cache. The list is what the Vue 2 app of solara 1.64 asks for (ipyvue<2, ipyvuetify<2);
# users with internet access need none of this. Needs npm. Idempotent: packages present are skipped.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${1:-$HERE/../.solara-cdn}"
mkdir -p "$CACHE" && CACHE="$(cd "$CACHE" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
for spec in @widgetti/solara-vuetify-app@10.1.1 requirejs@2.3.6 font-awesome@4.5.0 vega@5 \
            vega-lite@5 vega-embed@6 @widgetti/vue-grid-layout@2.3.13-alpha.2; do
  [ -f "$CACHE/$spec/package.json" ] && continue
  command -v npm >/dev/null || { echo "offline_assets.sh: npm is required to fetch $spec (apt-get install npm)" >&2; exit 1; }
  tgz="$(cd "$TMP" && npm pack --silent "$spec" | tail -1)"
  mkdir -p "$CACHE/$spec.partial"
  tar xzf "$TMP/$tgz" -C "$CACHE/$spec.partial" --strip-components=1
  rm -rf "$CACHE/$spec" && mv "$CACHE/$spec.partial" "$CACHE/$spec"   # complete or absent, never half
done
echo "Solara asset cache ready: $CACHE"
