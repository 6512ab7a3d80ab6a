# clickgen as the stand's generator image: a static binary on an empty base, run as a non-root
# user, with `clickgen` as the entrypoint, so the stand's DockerOperator commands
# (`batch --day P --days N`, `snapshot --day P --days N --topic orders`, `live --day P`) run
# unchanged with only KAFKA_BOOTSTRAP_SERVERS and KAFKA_TOPIC set.
#
#   docker build -t clickgen .
#   docker build -t clickgen --build-arg CATALOG=data/products.csv .   # bake the stand's catalog
#
# GO_IMAGE is the build stage's base: any image with Go ≥ 1.26 at /usr/local/go/bin and a POSIX
# shell. Modules come from GOPROXY, or from a vendor/ directory in the build context when there
# is one (`go mod vendor`; .ci/image builds that way, offline, from a locally assembled base).
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
# CATALOG is a catalog file (the stand's `sku,name,category,brand,price[,demand]` CSV), as a path
# inside the build context; empty keeps the built-in catalog.
ARG CATALOG=
ARG GOPROXY=https://proxy.golang.org,direct
ENV PATH=/usr/local/go/bin:$PATH CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY=${GOPROXY}
WORKDIR /src
COPY . .
RUN go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/usr/local/bin/clickgen ./cmd/clickgen \
 && mkdir -p /out/etc/clickgen /out/tmp \
 && chmod 1777 /out/tmp \
 && if [ -n "$CATALOG" ]; then \
      /out/usr/local/bin/clickgen inventory --day 0 --catalog "$CATALOG" > /dev/null \
      && cp "$CATALOG" /out/etc/clickgen/catalog.csv; \
    fi \
 && if [ -f /etc/ssl/certs/ca-certificates.crt ]; then \
      mkdir -p /out/etc/ssl/certs && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/; \
    fi

FROM scratch
ARG CATALOG=
COPY --from=build /out/ /
# Set only when a catalog was baked in: an empty GENERATOR_CATALOG means the built-in catalog.
ENV GENERATOR_CATALOG=${CATALOG:+/etc/clickgen/catalog.csv}
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/clickgen"]
CMD ["--help"]
