/**
 * METRICS_PORT under `npm start`: the launcher starts every service from one environment, and two services
 * serve `GET /metrics` on METRICS_PORT (the gateway serves its own on PORT; the registry has none). Given
 * the same port, the second one failed to bind and took the whole system down (docs/security.md case 146).
 * So each service that serves metrics gets its own port, in this order: METRICS_PORT, METRICS_PORT + 1.
 */

/** The services that serve METRICS_PORT, in the order their ports are handed out. */
export const metricsServices = ["orchestrator", "tool-runner"] as const;
export type MetricsService = (typeof metricsServices)[number];

/** What the launcher gives each metrics service, or why METRICS_PORT cannot be used. */
export type MetricsPortPlan =
  | { ok: true; ports: Readonly<Record<MetricsService, number>> | undefined }
  | { ok: false; error: string };

/**
 * The ports for METRICS_PORT's value: unset or empty gives no metrics endpoint, `0` a free port for each
 * service (each logs its URL), N gives the orchestrator N and the tool-runner N + 1.
 */
export function planMetricsPorts(value: string | undefined): MetricsPortPlan {
  if (value === undefined || value.trim() === "") return { ok: true, ports: undefined };
  const first = Number(value.trim());
  const last = first + metricsServices.length - 1;
  if (!/^\d+$/.test(value.trim()) || first > 65535) return { ok: false, error: `METRICS_PORT must be a port number (0–65535), not "${value}"` };
  if (first !== 0 && last > 65535) {
    return { ok: false, error: `METRICS_PORT=${first} leaves no room: npm start gives ${metricsServices.join(" and ")} ${first}–${last}; choose a lower port` };
  }
  const ports = Object.fromEntries(metricsServices.map((service, index) => [service, first === 0 ? 0 : first + index])) as Record<MetricsService, number>;
  return { ok: true, ports };
}

/** True for a service that serves METRICS_PORT. */
export function isMetricsService(service: string): service is MetricsService {
  return (metricsServices as readonly string[]).includes(service);
}
