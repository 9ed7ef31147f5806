# Static, non-root image of dedupstream.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /dedupstream ./cmd/dedupstream
# The state directory must belong to the non-root user: a named volume mounted
# there starts as a copy of the image's directory, owner included.
RUN mkdir -p /out/var/lib/dedupstream

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /dedupstream /dedupstream
COPY --from=build --chown=65532:65532 /out/var/lib/dedupstream /var/lib/dedupstream
USER nonroot:nonroot
VOLUME /var/lib/dedupstream
EXPOSE 9090
ENTRYPOINT ["/dedupstream"]
CMD ["run"]
