/**
 * `@runlight/runtime/otel`: the runtime's telemetry on `@opentelemetry/api` (an optional peer of
 * `@runlight/runtime`; bring your own SDK and exporter).
 */
export { createOtelTelemetry, type OtelTelemetryOptions } from './create-otel-telemetry';
