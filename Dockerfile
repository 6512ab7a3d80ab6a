# clickgen as the stand's generator image: a static binary on an empty base, run as a non-root
# user, with `clickgen` as the entrypoint, so the stand's DockerOperator commands
# (`batch --day P --days N`, `snapshot --day P --days N --topic orders`, `live --day P`) run
# unchanged with only KAFKA_BOOTSTRAP_SERVERS and KAFKA_TOPIC set.
#
# It builds from either of two contexts, found by where go.mod is:
#
#   docker build -t clickgen .                                 # clickgen's repository root
#   docker build -t clickgen -f generator/Dockerfile .         # the stand's: clickgen under generator/,
#                                                              # the catalog in data/catalog/products.csv
#
# The image always plays /etc/clickgen/catalog.csv (GENERATOR_CATALOG points at it), which is,
# first found first:
#   1. the file --build-arg CATALOG=PATH names (a path inside the build context);
#   2. data/catalog/products.csv of the build context (the stand's dictionary: with no build
#      args the stand's image carries the stand's catalog, as its own generator image does);
#   3. the built-in catalog, written by `clickgen catalog`: the same bytes, so the same world and
#      the same catalog_sha256 as a clickgen with no catalog at all.
#
# GO_IMAGE is the build stage's base: any image with Go ≥ 1.26 at /usr/local/go/bin and a POSIX
# shell. Modules come from GOPROXY, or from a vendor/ directory beside go.mod when there is one
# (`go mod vendor`; .ci/image builds that way, offline, from a locally assembled base).
#
# `clickgen version` names the commit the image was built from: --build-arg COMMIT=$(git
# rev-parse HEAD) (and VERSION=v1.2.3 for a release), else the commit of the context's .git
# when the build stage has git; the build itself stamps no version control information (git
# refuses a checkout owned by another user, which would fail the build).
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
ARG CATALOG=
ARG VERSION=
ARG COMMIT=
ARG GOPROXY=https://proxy.golang.org,direct
ENV PATH=/usr/local/go/bin:$PATH CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY=${GOPROXY}
# The whole context, whichever layout it has; only the final stage's files reach the image.
COPY . /ctx
WORKDIR /ctx
RUN set -e; \
    if [ -f go.mod ]; then src=/ctx; \
    elif [ -f generator/go.mod ]; then src=/ctx/generator; \
    else echo "clickgen image: no go.mod in the build context nor in its generator/ folder" >&2; exit 1; fi; \
    commit=$COMMIT; \
    if [ -z "$commit" ] && [ -e "$src/.git" ] && command -v git >/dev/null; then \
      commit=$(git -c safe.directory='*' -C "$src" rev-parse HEAD 2>/dev/null || true); \
    fi; \
    echo "clickgen image: building $src, version ${VERSION:-devel}, commit ${commit:-unknown}"; \
    (cd "$src" && go build -trimpath -buildvcs=false -ldflags="-s -w -X main.version=$VERSION -X main.commit=$commit" \
      -o /out/usr/local/bin/clickgen ./cmd/clickgen); \
    mkdir -p /out/etc/clickgen /out/tmp; \
    chmod 1777 /out/tmp; \
    if [ -n "$CATALOG" ]; then catalog=$CATALOG; \
    elif [ -f data/catalog/products.csv ]; then catalog=data/catalog/products.csv; \
    else catalog=; fi; \
    if [ -n "$catalog" ]; then \
      /out/usr/local/bin/clickgen inventory --day 0 --catalog "$catalog" > /dev/null; \
      cp "$catalog" /out/etc/clickgen/catalog.csv; \
      echo "clickgen image: catalog $catalog"; \
    else \
      /out/usr/local/bin/clickgen catalog --file /out/etc/clickgen/catalog.csv; \
      echo "clickgen image: the built-in catalog"; \
    fi; \
    chmod 0644 /out/etc/clickgen/catalog.csv; \
    if [ -f /etc/ssl/certs/ca-certificates.crt ]; then \
      mkdir -p /out/etc/ssl/certs && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/; \
    fi

FROM scratch
COPY --from=build /out/ /
ENV GENERATOR_CATALOG=/etc/clickgen/catalog.csv
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/clickgen"]
CMD ["--help"]
