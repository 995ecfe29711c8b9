// `laconic-research/otel`: research runs as OpenTelemetry traces (`@opentelemetry/api` is an optional peer).
export { traceRun, type TraceRunOptions } from './trace-run.js'
