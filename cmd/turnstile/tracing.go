package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ErrOTLPEndpoint names a -otlp-endpoint that is not an http(s) URL with a
// host.
var ErrOTLPEndpoint = errors.New("-otlp-endpoint must be an http:// or https:// URL with a host, e.g. http://localhost:4318")

// Environment variables of the OpenTelemetry SDK that turn trace export on
// when -otlp-endpoint is empty. The exporter reads them (and the other
// OTEL_EXPORTER_OTLP_* variables: headers, timeout, compression)
// itself.
const (
	envOTLPEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"        // base URL; /v1/traces is appended
	envOTLPTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" // full URL of the traces route
)

// tracingShutdownMax bounds the flush of the last spans at exit.
const tracingShutdownMax = 5 * time.Second

// tracingFlags is the trace export of `turnstile core` and `turnstile
// daemon`: OTLP over HTTP when configured, nothing otherwise.
type tracingFlags struct{ endpoint string }

func (t *tracingFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.endpoint, "otlp-endpoint", envDefault("TURNSTILE_OTLP_ENDPOINT", ""),
		"export traces over OTLP/HTTP to this collector base URL, e.g. http://localhost:4318 (/v1/traces is appended); "+
			"empty: export only when "+envOTLPEndpoint+" or "+envOTLPTracesEndpoint+" is set, otherwise no traces (TURNSTILE_OTLP_ENDPOINT)")
}

// check validates -otlp-endpoint.
func (t tracingFlags) check() error {
	if t.endpoint == "" {
		return nil
	}
	u, err := url.Parse(t.endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w (got %q)", ErrOTLPEndpoint, t.endpoint)
	}
	return nil
}

// enabled reports whether traces are exported.
func (t tracingFlags) enabled() bool {
	return t.endpoint != "" || os.Getenv(envOTLPEndpoint) != "" || os.Getenv(envOTLPTracesEndpoint) != ""
}

// start returns the tracer of service and the function that flushes and
// stops its export; without export configured the tracer is nil (the
// shells then record nothing) and stopping does nothing. Export failures
// are logged on log ("trace export failed"), not by the SDK's default
// handler, which writes plain text to stderr.
func (t tracingFlags) start(ctx context.Context, service string, log *slog.Logger) (trace.Tracer, func(), error) {
	if !t.enabled() {
		return nil, func() {}, nil
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("trace export failed", "err", err.Error())
	}))
	var opts []otlptracehttp.Option
	if t.endpoint != "" {
		u, _ := url.Parse(t.endpoint) // checked
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", service)), resource.Environment())
	if err != nil {
		res = resource.NewSchemaless(attribute.String("service.name", service))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), tracingShutdownMax)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}
	return tp.Tracer("github.com/turnstile-sim/turnstile"), stop, nil
}
